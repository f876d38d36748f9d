// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: views, consistent copies of the latest interval of one CPU
 * (cpuN/, the snapshot's records) or the sum of some CPUs of one core type
 * (system/, and a snapshot file's N3T_IOC_SUM for n3tel's containers).
 * A sum adds each set's latest counts over the CPUs and evaluates the
 * formulas on the sums, so that its ratios are exact over those CPUs: the
 * same code serves system/ and any other set of CPUs.
 *
 * Reads the configuration (config.c, the caller holds n3t_cfg.lock), the
 * core types (coretype.c) and the sampler through its read API only
 * (n3t_read_cpu(), n3t_cpu_state(), n3t_cpu_seq()), and evaluates with
 * the engine; includes n3telemetry.h and view.h.  Called by the
 * front-ends (sysfs.c, snapshot.c) only.
 */
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/error-injection.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "n3telemetry.h"
#include "view.h"

/* Global and not inlined, so that fault injection can fail it (fail_function). */
noinline struct n3t_view *n3t_view_alloc(unsigned int nr_sets, unsigned int nr_ev)
{
	size_t sets = ALIGN(array_size(nr_sets, sizeof(struct n3t_pub_set)), 8);
	struct n3t_view *v;

	v = kvzalloc(size_add(struct_size(v, data, 0),
			      size_add(sets, array_size(nr_ev, sizeof(u64)))), GFP_KERNEL);
	if (!v)
		return NULL;
	v->nr_sets = nr_sets;
	v->nr_ev = nr_ev;
	v->sets = (void *)v->data;
	v->delta = (void *)v->data + sets;
	return v;
}
ALLOW_ERROR_INJECTION(n3t_view_alloc, NULL);

/* An empty view following @dom's plan (NULL: none). */
static struct n3t_view *n3t_view_new(const struct n3t_core_type *dom)
{
	const struct n3t_plan *plan = dom ? dom->plan : NULL;
	unsigned int nr = plan ? plan->nr_sets : 0, s;
	struct n3t_view *v;

	v = n3t_view_alloc(nr, plan ? n3t_plan_nr_events(plan) : 0);
	if (!v)
		return NULL;
	v->dom = dom;
	for (s = 0; s < nr; s++)
		bitmap_or(v->events, v->events, plan->set[s].events, N3T_MAX_EVENTS);
	if (plan)
		bitmap_copy(v->composed, plan->composed, N3T_MAX_METRICS);
	return v;
}

/**
 * n3t_view_cpu() - a copy of one CPU's latest interval
 * @cpu: the CPU
 *
 * The caller holds n3t_cfg.lock.
 * Return: the view, which the caller kvfree()s, or NULL without memory.
 */
struct n3t_view *n3t_view_cpu(unsigned int cpu)
{
	const struct n3t_core_type *dom = n3t_cpu_core_type(cpu);
	struct n3t_view *v = n3t_view_new(dom);

	if (!v)
		return NULL;
	v->state = n3t_cpu_state(cpu);
	v->ok = dom && n3t_read_cpu(cpu, dom->plan, &v->res, v->sets, v->delta) &&
		v->res.seq;
	return v;
}

/* v->res.@field += @add with the carry in @hi (NULL: modulo 2^64) */
static void n3t_add128(u64 *lo, u64 *hi, u64 add)
{
	if (check_add_overflow(*lo, add, lo) && hi)
		(*hi)++;
}

/**
 * n3t_view_sum() - the sum of some CPUs' latest intervals
 * @dom: the core type summed: the CPUs of @cpus of another type are left out
 * @cpus: the CPUs, possible ones (online or not)
 *
 * Sums each set's latest deltas of the CPUs of @cpus and @dom that
 * collect, and the cumulative counts of all of them, offline or paused
 * ones included: event_count and event_ns in 128 bits (the totals never go
 * down nor wrap), the counts in complete slices and their times modulo 2^64
 * (their differences stay exact).  A set whose sum of an event passes 2^64
 * has no values (nan), never a wrapped one.  The sequence number is the
 * highest any of these CPUs published, offline ones included: it never
 * goes down.  The metrics are evaluated on the sums, as for one CPU.
 *
 * The caller holds n3t_cfg.lock; no cpus_read_lock(): CPUs going offline
 * simply stop publishing.
 * Return: the view, which the caller kvfree()s, or NULL without memory.
 */
struct n3t_view *n3t_view_sum(const struct n3t_core_type *dom, const struct cpumask *cpus)
{
	const struct n3t_plan *plan = dom ? dom->plan : NULL;
	unsigned int nr = plan ? plan->nr_sets : 0, nr_ev = plan ? n3t_plan_nr_events(plan) : 0;
	unsigned int c, s, i, e, first;
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	/* the events whose sums are measurements: usable, hidden on no CPU */
	DECLARE_BITMAP(measured, N3T_MAX_EVENTS);
	DECLARE_BITMAP(overflow, N3T_MAX_SETS);
	struct n3t_view *v, *one = NULL;
	u64 *counts = NULL, *set_ns = NULL;

	v = n3t_view_new(dom);
	if (!v || !plan)
		return v;
	one = n3t_view_alloc(nr, nr_ev);
	counts = kcalloc(N3T_MAX_EVENTS, sizeof(*counts), GFP_KERNEL);
	set_ns = kcalloc(max(nr, 1U), sizeof(*set_ns), GFP_KERNEL);
	if (!one || !counts || !set_ns)
		goto fail;
	bitmap_zero(overflow, N3T_MAX_SETS);
	for_each_cpu(c, cpus) {
		bool live;

		if (cpu_online(c))
			v->nr_state[n3t_cpu_state(c)]++;
		if (n3t_cpu_core_type(c) != dom)
			continue;
		live = n3t_read_cpu(c, plan, &one->res, one->sets, one->delta) &&
		       one->res.seq;
		v->res.seq = max(v->res.seq, n3t_cpu_seq(c));
		v->res.lost += one->res.lost;
		for (e = 0; e < N3T_MAX_EVENTS; e++) {
			n3t_add128(&v->res.ev_count[e], &v->ev_count_hi[e], one->res.ev_count[e]);
			n3t_add128(&v->res.ev_ns[e], &v->ev_ns_hi[e], one->res.ev_ns[e]);
			n3t_add128(&v->res.ev_slice[e], NULL, one->res.ev_slice[e]);
			n3t_add128(&v->res.ev_slice_ns[e], NULL, one->res.ev_slice_ns[e]);
		}
		n3t_add128(&v->res.slices_ns, NULL, one->res.slices_ns);
		if (!live)
			continue;
		v->ok = true;
		v->nr_cpus++;
		/*
		 * an event hidden on a CPU whose counts are summed spoils the
		 * sums: hidden for all (a stepped-aside CPU's are not summed)
		 */
		for (s = 0; s < nr; s++)
			if (one->sets[s].good_ns)
				break;
		if (s < nr)
			bitmap_or(v->res.hidden, v->res.hidden, one->res.hidden, N3T_MAX_EVENTS);
		v->res.end_ns = max(v->res.end_ns, one->res.end_ns);
		v->res.interval_ns = max(v->res.interval_ns, one->res.interval_ns);
		v->res.nr_sets = max(v->res.nr_sets, one->res.nr_sets);
		for (s = 0, first = 0; s < nr; s++) {
			unsigned int w = bitmap_weight(plan->set[s].events, N3T_MAX_EVENTS);
			struct n3t_pub_set *vs = &v->sets[s], *os = &one->sets[s];
			u64 *sum = &v->delta[first], *add = &one->delta[first];

			vs->lost += os->lost;
			if (os->good_ns) {
				for (i = 0; i < w; i++)
					if (check_add_overflow(sum[i], add[i], &sum[i]))
						__set_bit(s, overflow);
				vs->good_ns += os->good_ns;
				/* the newest interval summed, and when the oldest ended */
				vs->seq = max(vs->seq, os->seq);
				vs->end_ns = vs->end_ns ? min(vs->end_ns, os->end_ns) : os->end_ns;
				vs->interval_ns = max(vs->interval_ns, os->interval_ns);
			}
			first += w;
		}
	}
	bitmap_andnot(measured, dom->usable, v->res.hidden, N3T_MAX_EVENTS);
	for (s = 0, i = 0; s < nr; s++) {
		bitmap_zero(counted, N3T_MAX_EVENTS);
		for_each_set_bit(e, plan->set[s].events, N3T_MAX_EVENTS) {
			counts[e] = v->delta[i++];
			if (v->sets[s].good_ns && !test_bit(s, overflow) &&
			    test_bit(e, measured))
				__set_bit(e, counted);
		}
		bitmap_or(v->res.counted, v->res.counted, counted, N3T_MAX_EVENTS);
		n3t_eval_set(plan, s, counts, counted, dom->slots, v->res.value,
			     v->res.valid);
	}
	/* the composed metrics from the rates of every CPU's counts together */
	if (!bitmap_empty(plan->composed, N3T_MAX_METRICS)) {
		for (s = 0; s < nr; s++)
			set_ns[s] = test_bit(s, overflow) ? 0 : v->sets[s].good_ns;
		n3t_eval_composed(plan, v->delta, set_ns, measured, dom->slots, counts,
				  v->res.value, v->res.valid);
	}
	kfree(set_ns);
	kfree(counts);
	kvfree(one);
	return v;
fail:
	kfree(set_ns);
	kfree(counts);
	kvfree(one);
	kvfree(v);
	return NULL;
}
