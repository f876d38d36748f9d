// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry capacity probe: which of a core type's events its PMU accepts
 * (at load), and how many programmable counters, and whether the cycle
 * counter, really count together on its CPUs now (at load, at every
 * reconfiguration and resume, and when re-packing).  The counters are made
 * with n3t_create() and released before returning; nothing is kept but the
 * core types' capacity and usable events.
 *
 * Calls the sampler only for n3t_create() (fault injection) and
 * n3t_cpu_leased() (a leased CPU is not probed), core-type
 * lookups (coretype.c) and config.c; includes n3telemetry.h and probe.h.
 * Called by control.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

#include "n3telemetry.h"
#include "probe.h"

/*
 * Capacity: how many programmable counters really run together on this CPU
 * next to a CPU_CYCLES event, and whether CPU_CYCLES has the cycle counter.
 * A pinned event that gets no counter sits in the error state and
 * accumulates no running time, which is all that is looked at.
 */
static int n3t_probe_run(const struct n3t_core_type *d, unsigned int cpu, unsigned int n,
			 bool with_cycles)
{
	const struct n3t_model *model = d->model;
	struct perf_event *pe[N3T_SET_MAX + 1] = {};
	unsigned int i, k = 0, e;
	int ok = 1;

	for_each_set_bit(e, d->usable, N3T_MAX_EVENTS) {
		if (k == n)
			break;
		if (e == model->cycles)
			continue;
		pe[k] = n3t_create(cpu, model->events[e].code, false);
		if (IS_ERR(pe[k])) {
			ok = PTR_ERR(pe[k]);
			pe[k] = NULL;
			goto out;
		}
		k++;
	}
	if (k < n) {
		ok = -ENODEV;	/* fewer usable events than counters to try */
		goto out;
	}
	if (with_cycles) {
		pe[k] = n3t_create(cpu, model->events[model->cycles].code, false);
		if (IS_ERR(pe[k])) {
			ok = PTR_ERR(pe[k]);
			pe[k] = NULL;
			goto out;
		}
		k++;
	}
	for (i = 0; i < k; i++)
		perf_event_enable(pe[i]);
	for (i = 0; i < k; i++) {
		u64 enabled, running;

		perf_event_read_value(pe[i], &enabled, &running);
		if (!running || running != enabled)
			ok = 0;
	}
out:
	for (i = 0; i < k; i++)
		if (pe[i])
			perf_event_release_kernel(pe[i]);
	return ok;
}

/*
 * One CPU: programmable counters usable next to CPU_CYCLES, and without it.
 * Running out of usable events ends the count; another error fails.
 */
static int n3t_probe_cpu(const struct n3t_core_type *d, unsigned int cpu, unsigned int *with,
			 unsigned int *without)
{
	unsigned int n;
	int r;

	*with = 0;
	*without = 0;
	for (n = 1; n <= N3T_MAX_CAPACITY; n++) {
		r = n3t_probe_run(d, cpu, n, true);
		if (r < 0 && r != -ENODEV)
			return r;
		if (r <= 0)
			break;
		*with = n;
	}
	for (n = *with + 1; n <= N3T_MAX_CAPACITY; n++) {
		r = n3t_probe_run(d, cpu, n, false);
		if (r < 0 && r != -ENODEV)
			return r;
		if (r <= 0)
			break;
		*without = n;
	}
	return *with || *without ? 0 : -EBUSY;
}

/*
 * Leave d->reserved counters of the PMU's d->pmu_total unused.  Counters
 * someone else holds already count as left: the hard-lockup detector's
 * event, if it runs, is among them.  Programmable counters are given up
 * first (the cycle counter is worth more to the module).
 */
static int n3t_leave_reserved(struct n3t_core_type *d, unsigned int *cap, bool *cycle)
{
	unsigned int found = *cap + *cycle, limit;

	if (!d->pmu_total)
		d->pmu_total = found;	/* unknown PMU: what is free at load */
	if (d->reserved >= d->pmu_total)
		return -EBUSY;
	limit = d->pmu_total - d->reserved;
	if (found <= limit)
		return 0;
	if (*cap > found - limit) {
		*cap -= found - limit;
		return 0;
	}
	*cycle = false;
	*cap = limit;
	return *cap ? 0 : -EBUSY;
}

/**
 * n3t_probe_capacity() - how many counters each core type can use now
 *
 * Probe every online CPU that collects, but those under a pause lease
 * (n3t_cpu_leased()), and keep, per core type, what all of them can do:
 * the smallest capacity, and the cycle counter only if it is free
 * everywhere (CPU_CYCLES took a programmable counter where more events ran
 * without it).  A core type with no such CPU keeps what it had.
 * Return: 0; -EBUSY when a core type has no counter free; -ENODEV when no
 * CPU could be probed, none of them for a lease; or the error creating a
 * counter.
 */
int n3t_probe_capacity(void)
{
	unsigned int cpu, with, without, cap[N3T_MAX_CORE_TYPES], d;
	bool cycle[N3T_MAX_CORE_TYPES], any[N3T_MAX_CORE_TYPES] = {}, some = false;
	bool leased = false;
	int ret = 0;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		cap[d] = N3T_MAX_CAPACITY;
		cycle[d] = true;
	}
	/* one CPU at a time: CPU hotplug waits for one CPU's probe at most */
	for_each_possible_cpu(cpu) {
		struct n3t_core_type *dom = n3t_cpu_core_type(cpu);
		bool probed = false;

		/*
		 * a CPU under a pause lease is lent whole (perf stat of every
		 * counter there is what the lease is for): it does not set the
		 * capacity of the others, and looks when the lease ends
		 */
		if (!dom || !n3t_cpu_wanted(cpu))
			continue;
		if (n3t_cpu_leased(cpu)) {
			leased = true;
			continue;
		}
		cpus_read_lock();
		if (cpu_online(cpu)) {
			ret = n3t_probe_cpu(dom, cpu, &with, &without);
			probed = true;
		}
		cpus_read_unlock();
		if (ret)
			break;
		cond_resched();	/* a few hundred CPUs: counters made and freed on each */
		if (!probed)
			continue;
		d = dom - n3t_cfg.type;
		cycle[d] &= without <= with;
		cap[d] = min(cap[d], max(with, without));
		any[d] = true;
	}
	for (d = 0; !ret && d < n3t_cfg.nr_types; d++) {
		/* capacity 0 means "never probed": a probed core has a counter */
		if (any[d] && !cap[d])
			ret = -EBUSY;
		else if (any[d])
			ret = n3t_leave_reserved(&n3t_cfg.type[d], &cap[d], &cycle[d]);
		/*
		 * and spare= programmable counters free for others' flexible
		 * events (perf record, perf top), where there are more
		 */
		if (!ret && any[d] && cap[d] > n3t_param_spare)
			cap[d] -= n3t_param_spare;
		some |= any[d];
	}
	/* every CPU leased: each core type keeps what it had */
	if (!ret && !some && !leased)
		ret = -ENODEV;
	if (ret)
		return ret;
	mutex_lock(&n3t_cfg.lock);
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		if (!any[d])
			continue;
		n3t_cfg.type[d].cycle_counter = cycle[d];
		n3t_cfg.type[d].capacity = cap[d];
	}
	mutex_unlock(&n3t_cfg.lock);
	return 0;
}

/*
 * Which of a core type's events the PMU accepts, tried on one of its CPUs.
 * Return: 0, -ENODEV without CPU_CYCLES, or -ENOMEM.
 */
static int n3t_check_events(struct n3t_core_type *d, unsigned int cpu)
{
	const struct n3t_model *model = d->model;
	char bad[512];
	size_t len = 0;
	unsigned int e;

	for (e = 0; e < model->nr_events; e++) {
		struct perf_event *pe;

		if (!test_bit(e, d->usable))
			goto unusable;
		pe = n3t_create(cpu, model->events[e].code, false);
		if (!IS_ERR(pe)) {
			perf_event_release_kernel(pe);
			continue;
		}
		if (PTR_ERR(pe) == -ENOMEM)	/* not the PMU's answer */
			return -ENOMEM;
		__clear_bit(e, d->usable);
unusable:
		len += scnprintf(bad + len, sizeof(bad) - len, " %s", model->events[e].name);
	}
	if (!test_bit(model->cycles, d->usable)) {
		pr_err("%s: the PMU (type %u) does not count CPU_CYCLES; not loading\n",
		       model->name, n3t_cfg.pmu_type);
		return -ENODEV;
	}
	if (len)
		pr_info("%s: events not implemented or rejected (their metrics read nan):%s%s\n",
			model->name, bad, len >= sizeof(bad) - 1 ? " ..." : "");
	return 0;
}

/**
 * n3t_probe_events() - which events each core type's PMU accepts
 *
 * Tried on the first online CPU of each core type (n3t_check_events()).
 * Return: 0, -ENODEV for a PMU without CPU_CYCLES, or -ENOMEM.
 */
int n3t_probe_events(void)
{
	unsigned int d, cpu;
	int ret;

	cpus_read_lock();	/* the CPU the events are tried on stays online */
	for (d = 0, ret = 0; !ret && d < n3t_cfg.nr_types; d++) {
		struct n3t_core_type *dom = &n3t_cfg.type[d];

		cpu = cpumask_first_and(&dom->cpus, cpu_online_mask);
		if (cpu < nr_cpu_ids)
			ret = n3t_check_events(dom, cpu);
	}
	cpus_read_unlock();
	return ret;
}
