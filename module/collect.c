// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry collection: per-CPU pinned kernel counters, one event set
 * counting at a time, rotated by a CPU-bound deferrable work item; CPU
 * hotplug; capacity probing; publication of each interval's results.
 *
 * perf_event_create_kernel_counter() cannot create groups, so the module
 * itself guarantees co-scheduling: every event of every set is created
 * pinned and disabled, and on each CPU exactly one set is enabled at a time.
 * Reads and set switches run in work bound to the events' CPU, where
 * perf_event_read_value(), perf_event_enable() and perf_event_disable() act
 * locally without an IPI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "n3telemetry.h"

static DEFINE_PER_CPU(struct n3t_cpu __rcu *, n3t_pcpu);
static enum cpuhp_state n3t_hp_state;
static bool n3t_hp_active;
static struct workqueue_struct *n3t_wq;
static struct dentry *n3t_debugfs;
/* Tests: slices end only when "advance" is written (debugfs "manual"). */
static bool n3t_manual;
/* Re-pack after this many intervals in a row with a set that never counted. */
#define N3T_REPACK_AFTER	3
static void n3t_repack_fn(struct work_struct *work);
static DECLARE_WORK(n3t_repack_work, n3t_repack_fn);
/* set when a re-pack did not help; cleared by the next reconfiguration */
static bool n3t_repack_off;
static int n3t_probe_capacity(void);

static struct perf_event *n3t_create(unsigned int cpu, unsigned int ev)
{
	struct perf_event_attr attr = {
		.type = n3t_cfg.pmu_type,
		.size = sizeof(attr),
		.config = n3t_events[ev].code,
		.pinned = 1,
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

static unsigned long n3t_slice_jiffies(const struct n3t_plan *plan)
{
	unsigned int ms = n3t_cfg.interval_ms / max_t(unsigned int, plan->nr_sets, 1);

	return max_t(unsigned long, msecs_to_jiffies(ms), 1);
}

/* Read the active set, fold complete slices into the interval, disable it. */
static void n3t_end_slice(struct n3t_cpu *pc)
{
	struct n3t_cpu_set *s = &pc->set[pc->active];
	struct n3t_result *r = &pc->scratch;
	u64 d[N3T_SET_MAX], slice_ns = 0;
	bool complete = true;
	unsigned int i, nr_pe = 0;

	for (i = 0; i < s->nr; i++) {
		u64 total, enabled = 0, running = 0, de, dr;
		bool active;

		d[i] = 0;
		if (!s->pe[i])
			continue;	/* unusable event: its metrics are undefined */
		nr_pe++;
		/* a pinned event that found no counter sits in the error state */
		active = READ_ONCE(s->pe[i]->state) == PERF_EVENT_STATE_ACTIVE;
		total = perf_event_read_value(s->pe[i], &enabled, &running);
		d[i] = total - s->last_count[i];
		de = enabled - s->last_enabled[i];
		dr = running - s->last_running[i];
		s->last_count[i] = total;
		s->last_enabled[i] = enabled;
		s->last_running[i] = running;
		if (!active) {
			complete = false;
			continue;
		}
		r->ev_count[s->ev[i]] += d[i];
		r->ev_ns[s->ev[i]] += dr;
		/* a member that did not run for the whole slice spoils it */
		if (!de || dr != de)
			complete = false;
		slice_ns = max(slice_ns, de);
	}
	for (i = 0; i < s->nr; i++)
		if (s->pe[i])
			perf_event_disable(s->pe[i]);
	if (!nr_pe)
		return;
	if (!complete) {
		s->starved |= !s->good_ns;
		s->lost++;
		r->lost++;
		return;
	}
	for (i = 0; i < s->nr; i++)
		s->acc[i] += d[i];
	s->good_ns += slice_ns;
}

static void n3t_enable_set(struct n3t_cpu *pc)
{
	struct n3t_cpu_set *s = &pc->set[pc->active];
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (s->pe[i])
			perf_event_enable(s->pe[i]);
}

/* Turn the interval's complete slices into metrics and publish them. */
static void n3t_end_interval(struct n3t_cpu *pc, const struct n3t_plan *plan, u64 now)
{
	struct n3t_result *r = &pc->scratch;
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	unsigned int s, i;
	bool starved;

	r->seq = ++pc->seq;
	r->end_ns = now;
	r->interval_ns = now - pc->interval_start;
	r->nr_sets = plan->nr_sets;
	bitmap_zero(r->counted, N3T_NR_EVENTS);
	bitmap_zero(r->valid, N3T_NR_METRICS);
	for (s = 0; s < plan->nr_sets; s++) {
		struct n3t_cpu_set *cs = &pc->set[s];

		bitmap_zero(counted, N3T_NR_EVENTS);
		if (cs->good_ns) {
			for (i = 0; i < cs->nr; i++) {
				pc->count_scratch[cs->ev[i]] = cs->acc[i];
				if (test_bit(cs->ev[i], n3t_cfg.usable))
					__set_bit(cs->ev[i], counted);
			}
		}
		bitmap_or(r->counted, r->counted, counted, N3T_NR_EVENTS);
		n3t_eval_set(plan, s, pc->count_scratch, counted, n3t_cfg.slots, r->value,
			     r->valid);
	}

	preempt_disable();
	write_seqcount_begin(&pc->pub_lock);
	pc->pub = *r;
	for (s = 0; s < plan->nr_sets; s++) {
		struct n3t_cpu_set *cs = &pc->set[s];

		memcpy(pc->pub_set[s].delta, cs->acc, sizeof(cs->acc));
		pc->pub_set[s].good_ns = cs->good_ns;
		pc->pub_set[s].lost = cs->lost;
	}
	write_seqcount_end(&pc->pub_lock);
	preempt_enable();

	starved = false;
	for (s = 0; s < plan->nr_sets; s++) {
		starved |= pc->set[s].starved;
		memset(pc->set[s].acc, 0, sizeof(pc->set[s].acc));
		pc->set[s].good_ns = 0;
		pc->set[s].starved = false;
	}
	pc->interval_start = now;
	/* A set that never got its counters for a while: re-probe, re-pack. */
	pc->starved_intervals = starved ? pc->starved_intervals + 1 : 0;
	if (pc->starved_intervals == N3T_REPACK_AFTER && !READ_ONCE(n3t_repack_off))
		schedule_work(&n3t_repack_work);
}

/*
 * The sampler: runs on pc->cpu at each slice end.  No allocation, no IPI,
 * no global lock: only this CPU's events and this CPU's structure.
 */
static void n3t_slice_work(struct work_struct *work)
{
	struct n3t_cpu *pc = container_of(to_delayed_work(work), struct n3t_cpu, work);
	const struct n3t_plan *plan = n3t_cfg.plan;
	u64 t0 = local_clock(), cost;

	n3t_end_slice(pc);
	if (++pc->active == plan->nr_sets) {
		pc->active = 0;
		n3t_end_interval(pc, plan, ktime_get_ns());
	}
	n3t_enable_set(pc);
	if (!READ_ONCE(n3t_manual))
		queue_delayed_work_on(pc->cpu, n3t_wq, &pc->work, n3t_slice_jiffies(plan));

	cost = local_clock() - t0;
	pc->slices++;
	pc->cost_ns += cost;
	pc->cost_max_ns = max(pc->cost_max_ns, cost);
}

static void n3t_cpu_free(struct n3t_cpu *pc, const struct n3t_plan *plan)
{
	unsigned int s, i;

	for (s = 0; s < plan->nr_sets; s++)
		for (i = 0; i < pc->set[s].nr; i++)
			if (pc->set[s].pe[i])
				perf_event_release_kernel(pc->set[s].pe[i]);
	kfree(pc->set);
	kfree(pc->pub_set);
	kfree_rcu(pc, rcu);
}

static int n3t_cpu_online(unsigned int cpu)
{
	const struct n3t_plan *plan = n3t_cfg.plan;
	struct n3t_cpu *pc;
	unsigned int s, e, i;

	pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc)
		return -ENOMEM;
	pc->set = kcalloc(plan->nr_sets, sizeof(*pc->set), GFP_KERNEL);
	pc->pub_set = kcalloc(plan->nr_sets, sizeof(*pc->pub_set), GFP_KERNEL);
	if (!pc->set || !pc->pub_set) {
		kfree(pc->set);
		kfree(pc->pub_set);
		kfree(pc);
		return -ENOMEM;
	}
	pc->cpu = cpu;
	seqcount_init(&pc->pub_lock);
	INIT_DEFERRABLE_WORK(&pc->work, n3t_slice_work);

	for (s = 0; s < plan->nr_sets; s++) {
		struct n3t_cpu_set *cs = &pc->set[s];

		i = 0;
		for_each_set_bit(e, plan->set[s].events, N3T_NR_EVENTS) {
			struct perf_event *pe = NULL;

			if (test_bit(e, n3t_cfg.usable)) {
				pe = n3t_create(cpu, e);
				if (IS_ERR(pe))
					pe = NULL;
			}
			cs->ev[i] = e;
			cs->pe[i++] = pe;
		}
		cs->nr = i;
	}
	pc->interval_start = ktime_get_ns();
	rcu_assign_pointer(per_cpu(n3t_pcpu, cpu), pc);
	n3t_enable_set(pc);
	if (!READ_ONCE(n3t_manual))
		queue_delayed_work_on(cpu, n3t_wq, &pc->work, n3t_slice_jiffies(plan));
	return 0;
}

static int n3t_cpu_offline(unsigned int cpu)
{
	struct n3t_cpu *pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu), true);

	if (!pc)
		return 0;
	cancel_delayed_work_sync(&pc->work);
	RCU_INIT_POINTER(per_cpu(n3t_pcpu, cpu), NULL);
	n3t_cpu_free(pc, n3t_cfg.plan);
	return 0;
}

/**
 * n3t_read_cpu() - copy a CPU's latest published interval
 * @cpu: the CPU
 * @res: where to copy the result
 * @sets: if not NULL, where to copy @nr_sets per-set entries
 * @nr_sets: entries in @sets; must match the plan in use
 *
 * Lockless against the sampler (seqcount retry loop, never blocks it).
 * Return: false if the CPU is not collecting.
 */
bool n3t_read_cpu(unsigned int cpu, struct n3t_result *res, struct n3t_pub_set *sets,
		  unsigned int nr_sets)
{
	struct n3t_cpu *pc;
	unsigned int seq;
	bool ok = false;

	rcu_read_lock();
	pc = rcu_dereference(per_cpu(n3t_pcpu, cpu));
	if (pc) {
		do {
			seq = read_seqcount_begin(&pc->pub_lock);
			*res = pc->pub;
			if (sets)
				memcpy(sets, pc->pub_set, nr_sets * sizeof(*sets));
		} while (read_seqcount_retry(&pc->pub_lock, seq));
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}

static int n3t_start(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "n3telemetry:online",
				n3t_cpu_online, n3t_cpu_offline);
	if (ret < 0)
		return ret;
	n3t_hp_state = ret;
	n3t_hp_active = true;
	return 0;
}

static void n3t_stop(void)
{
	if (!n3t_hp_active)
		return;
	cpuhp_remove_state(n3t_hp_state);
	n3t_hp_active = false;
	synchronize_rcu();
}

/**
 * n3t_collect_reconfigure() - change groups and/or interval, restart collection
 * @groups: the new group selection, or N3T_KEEP
 * @interval_ms: the new interval, or N3T_KEEP
 *
 * Takes n3t_cfg.reconf; the plan is swapped under n3t_cfg.lock while
 * collection is stopped.  On failure the previous configuration is restored.
 * Return: 0 or a negative errno.
 */
int n3t_collect_reconfigure(u32 groups, unsigned int interval_ms)
{
	struct n3t_plan *plan, *old;
	unsigned int old_ms;
	int ret;

	plan = kmalloc(sizeof(*plan), GFP_KERNEL);
	if (!plan)
		return -ENOMEM;
	mutex_lock(&n3t_cfg.reconf);
	if (groups == N3T_KEEP)
		groups = n3t_cfg.plan->groups;
	if (interval_ms == N3T_KEEP)
		interval_ms = n3t_cfg.interval_ms;
	n3t_stop();
	if (current_work() != &n3t_repack_work)
		WRITE_ONCE(n3t_repack_off, false);
	/* our own counters are released now: see what is really free */
	if (n3t_probe_capacity())
		pr_warn("re-probe found no free counters; keeping %u\n", n3t_cfg.capacity);
	ret = n3t_pack(groups, n3t_cfg.capacity, n3t_cfg.cycle_counter, plan);
	if (ret) {
		if (n3t_start())
			pr_err("could not restart collection\n");
		mutex_unlock(&n3t_cfg.reconf);
		kfree(plan);
		return ret;
	}
	mutex_lock(&n3t_cfg.lock);
	old = n3t_cfg.plan;
	old_ms = n3t_cfg.interval_ms;
	n3t_cfg.plan = plan;
	n3t_cfg.interval_ms = interval_ms;
	mutex_unlock(&n3t_cfg.lock);
	ret = n3t_start();
	if (ret) {
		mutex_lock(&n3t_cfg.lock);
		n3t_cfg.plan = old;
		n3t_cfg.interval_ms = old_ms;
		mutex_unlock(&n3t_cfg.lock);
		if (n3t_start())
			pr_err("could not restart collection\n");
		old = plan;
	}
	mutex_unlock(&n3t_cfg.reconf);
	kfree(old);
	return ret;
}

static void n3t_repack_fn(struct work_struct *work)
{
	unsigned int before = n3t_cfg.capacity;

	if (n3t_collect_reconfigure(N3T_KEEP, N3T_KEEP))
		return;
	if (n3t_cfg.capacity == before) {
		/* not a capacity problem: do not restart again and again */
		WRITE_ONCE(n3t_repack_off, true);
		pr_warn("a set keeps failing to get counters although %u are free; not re-packing again until reconfigured\n",
			before);
		return;
	}
	pr_info("a set kept failing to get counters: re-packed for %u counters (was %u), %u sets\n",
		n3t_cfg.capacity, before, n3t_cfg.plan->nr_sets);
}

/*
 * Capacity: how many programmable counters really run together on this CPU
 * next to a CPU_CYCLES event, and whether CPU_CYCLES has the cycle counter.
 * Pinned events that get no counter end in the error state.
 */
static int n3t_probe_run(unsigned int cpu, unsigned int n, bool with_cycles)
{
	struct perf_event *pe[N3T_SET_MAX + 1] = {};
	unsigned int i, k = 0, e;
	int ok = 1;

	for_each_set_bit(e, n3t_cfg.usable, N3T_NR_EVENTS) {
		if (k == n)
			break;
		if (e == N3T_EV_CPU_CYCLES)
			continue;
		pe[k] = n3t_create(cpu, e);
		if (IS_ERR(pe[k])) {
			pe[k] = NULL;
			ok = -1;
			goto out;
		}
		k++;
	}
	if (k < n) {
		ok = -1;
		goto out;
	}
	if (with_cycles) {
		pe[k] = n3t_create(cpu, N3T_EV_CPU_CYCLES);
		if (IS_ERR(pe[k])) {
			pe[k] = NULL;
			ok = -1;
			goto out;
		}
		k++;
	}
	for (i = 0; i < k; i++)
		perf_event_enable(pe[i]);
	for (i = 0; i < k; i++)
		if (READ_ONCE(pe[i]->state) != PERF_EVENT_STATE_ACTIVE)
			ok = 0;
out:
	for (i = 0; i < k; i++)
		if (pe[i])
			perf_event_release_kernel(pe[i]);
	return ok;
}

/* One CPU: programmable counters usable next to CPU_CYCLES, and without it. */
static int n3t_probe_cpu(unsigned int cpu, unsigned int *with, unsigned int *without)
{
	unsigned int n;
	int r;

	*with = 0;
	*without = 0;
	for (n = 1; n <= N3T_MAX_CAPACITY; n++) {
		r = n3t_probe_run(cpu, n, true);
		if (r < 0)
			return -ENODEV;
		if (!r)
			break;
		*with = n;
	}
	for (n = *with + 1; n <= N3T_MAX_CAPACITY; n++) {
		r = n3t_probe_run(cpu, n, false);
		if (r <= 0)
			break;
		*without = n;
	}
	return *with || *without ? 0 : -EBUSY;
}

/*
 * Probe every online CPU and keep what all of them can do: the smallest
 * capacity, and the cycle counter only if it is free everywhere (CPU_CYCLES
 * took a programmable counter where more events ran without it).
 */
static int n3t_probe_capacity(void)
{
	unsigned int cpu, with, without, cap = N3T_MAX_CAPACITY;
	bool cycle = true;
	int ret = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = n3t_probe_cpu(cpu, &with, &without);
		if (ret)
			break;
		cycle &= without <= with;
		cap = min(cap, max(with, without));
	}
	cpus_read_unlock();
	if (ret)
		return ret;
	n3t_cfg.cycle_counter = cycle;
	n3t_cfg.capacity = cap;
	return 0;
}

static int n3t_advance_set(void *data, u64 val)
{
	unsigned int cpu;
	struct n3t_cpu *pc;

	mutex_lock(&n3t_cfg.reconf);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (val != U64_MAX && val != cpu)
			continue;
		pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu), true);
		if (!pc)
			continue;
		mod_delayed_work_on(cpu, n3t_wq, &pc->work, 0);
		flush_delayed_work(&pc->work);
	}
	cpus_read_unlock();
	mutex_unlock(&n3t_cfg.reconf);
	return 0;
}

/* Write a CPU number, or -1 for all: that slice ends now (tests). */
static ssize_t n3t_advance_write(struct file *f, const char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	s64 v;
	int ret = kstrtos64_from_user(ubuf, len, 10, &v);

	if (ret)
		return ret;
	if (v < -1 || v >= nr_cpu_ids)
		return -EINVAL;
	n3t_advance_set(NULL, v < 0 ? U64_MAX : v);
	return len;
}

static const struct file_operations n3t_advance_fops = {
	.owner = THIS_MODULE,
	.write = n3t_advance_write,
	.llseek = noop_llseek,
};

static int n3t_cost_show(struct seq_file *m, void *v)
{
	unsigned int cpu;
	struct n3t_cpu *pc;

	rcu_read_lock();
	for_each_online_cpu(cpu) {
		pc = rcu_dereference(per_cpu(n3t_pcpu, cpu));
		if (pc)
			seq_printf(m, "cpu%u slices %llu total_ns %llu max_ns %llu\n", cpu,
				   pc->slices, pc->cost_ns, pc->cost_max_ns);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(n3t_cost);

/**
 * n3t_collect_init() - probe the PMU and start collecting on every CPU
 *
 * n3t_cfg's model, slots, pmu_type, usable, interval_ms and the initial
 * plan's groups (in n3t_cfg.plan->groups) are set by the caller.
 * Return: 0 or a negative errno.
 */
int n3t_collect_init(void)
{
	unsigned int e;
	u32 groups = n3t_cfg.plan->groups;
	char bad[512];
	size_t len = 0;
	int ret;

	for (e = 0; e < N3T_NR_EVENTS; e++) {
		struct perf_event *pe;

		if (!test_bit(e, n3t_cfg.usable))
			goto unusable;
		pe = n3t_create(raw_smp_processor_id(), e);
		if (!IS_ERR(pe)) {
			perf_event_release_kernel(pe);
			continue;
		}
		__clear_bit(e, n3t_cfg.usable);
unusable:
		len += scnprintf(bad + len, sizeof(bad) - len, " %s", n3t_events[e].name);
	}
	if (!test_bit(N3T_EV_CPU_CYCLES, n3t_cfg.usable)) {
		pr_err("the PMU (type %u) does not count CPU_CYCLES; not loading\n",
		       n3t_cfg.pmu_type);
		return -ENODEV;
	}
	if (len)
		pr_info("events not implemented or rejected (their metrics read nan):%s%s\n",
			bad, len >= sizeof(bad) - 1 ? " ..." : "");

	ret = n3t_probe_capacity();
	if (ret) {
		pr_err("no usable PMU counters (held by the NMI watchdog or another perf user?)\n");
		return ret;
	}
	ret = n3t_pack(groups, n3t_cfg.capacity, n3t_cfg.cycle_counter, n3t_cfg.plan);
	if (ret)
		return ret;
	pr_info("%s: %u programmable counters usable, cycle counter %s, %u slots, %u sets\n",
		n3t_cfg.model, n3t_cfg.capacity, n3t_cfg.cycle_counter ? "free" : "busy",
		n3t_cfg.slots, n3t_cfg.plan->nr_sets);

	n3t_wq = alloc_workqueue("n3telemetry", WQ_FREEZABLE, 0);
	if (!n3t_wq)
		return -ENOMEM;
	mutex_lock(&n3t_cfg.reconf);
	ret = n3t_start();
	mutex_unlock(&n3t_cfg.reconf);
	if (ret) {
		destroy_workqueue(n3t_wq);
		return ret;
	}
	n3t_debugfs = debugfs_create_dir("n3telemetry", NULL);
	debugfs_create_file("advance", 0200, n3t_debugfs, NULL, &n3t_advance_fops);
	debugfs_create_file("cost", 0400, n3t_debugfs, NULL, &n3t_cost_fops);
	debugfs_create_bool("manual", 0600, n3t_debugfs, &n3t_manual);
	return 0;
}

void n3t_collect_exit(void)
{
	debugfs_remove_recursive(n3t_debugfs);
	mutex_lock(&n3t_cfg.reconf);
	n3t_stop();
	mutex_unlock(&n3t_cfg.reconf);
	/* a re-pack already running may restart collection: stop it again */
	cancel_work_sync(&n3t_repack_work);
	mutex_lock(&n3t_cfg.reconf);
	n3t_stop();
	mutex_unlock(&n3t_cfg.reconf);
	destroy_workqueue(n3t_wq);
}
