// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry control: collection's lifecycle.  Load (probe the PMU, pack
 * the groups, start the sampler) and unload; reconfiguration (groups,
 * interval, schedule: the sysfs writes); pause and resume (the enabled
 * file, which probes the counters again).  Other perf users are the
 * sampler's business, per CPU (it steps aside): nothing here restarts
 * collection for them.  Everything here runs under n3t_cfg.reconf; the
 * plans, interval and schedule change under n3t_cfg.lock, with collection
 * stopped.
 *
 * Calls the sampler's lifecycle (n3t_start(), n3t_stop(), n3t_sampler_*:
 * n3telemetry.h), the capacity probe (probe.c), config.c and the engine
 * (n3t_pack()); includes n3telemetry.h, probe.h and control.h.  Called by
 * main.c (load, unload) and sysfs.c (the writes).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "control.h"
#include "n3telemetry.h"
#include "probe.h"

static void n3t_warn_nofit(const struct n3t_core_type *d, const char *what)
{
	pr_warn_ratelimited("%s: no metric of the selected groups fits in %u programmable counters with the cycle counter %s; %s\n",
			    d->model->name, d->capacity, d->cycle_counter ? "free" : "busy", what);
}

static int __n3t_reconfigure(const u32 *groups, unsigned int interval_ms,
			     unsigned int schedule, struct n3t_plan **plans);

static void n3t_free_plans(struct n3t_plan **plans)
{
	unsigned int d;

	for (d = 0; d < N3T_MAX_CORE_TYPES; d++)
		kfree(plans[d]);
}

/**
 * n3t_collect_reconfigure() - change groups, interval or schedule, restart collection
 * @groups: the new group selection per core type, or NULL to keep it
 * @interval_ms: the new interval, or N3T_KEEP
 * @schedule: the new enum n3t_schedule, or N3T_KEEP
 *
 * Takes n3t_cfg.reconf; the plans are swapped under n3t_cfg.lock while
 * collection is stopped.  On failure the previous configuration is restored.
 * Return: 0; -ENOSPC if no selected metric of a core type fits in the counters
 * found (the previous configuration goes on); -ENODEV once module exit has
 * begun; or another negative errno.
 */
int n3t_collect_reconfigure(const u32 *groups, unsigned int interval_ms,
			    unsigned int schedule)
{
	struct n3t_plan *plans[N3T_MAX_CORE_TYPES] = {};
	unsigned int d;
	int ret;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		plans[d] = kmalloc(sizeof(*plans[d]), GFP_KERNEL);
		if (!plans[d]) {
			n3t_free_plans(plans);
			return -ENOMEM;
		}
	}
	mutex_lock(&n3t_cfg.reconf);
	ret = __n3t_reconfigure(groups, interval_ms, schedule, plans);
	mutex_unlock(&n3t_cfg.reconf);
	return ret;
}

/* Pack every core type's selection into @plans; a core type without CPUs gets no set. */
static int n3t_pack_all(const u32 *groups, struct n3t_plan **plans, bool warn)
{
	unsigned int d;
	int ret;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		struct n3t_core_type *dom = &n3t_cfg.type[d];

		if (!dom->capacity) {
			memset(plans[d], 0, sizeof(*plans[d]));
			plans[d]->model = dom->model;
			plans[d]->groups = groups[d];
			continue;
		}
		ret = n3t_pack(dom->model, groups[d], dom->capacity, dom->cycle_counter, plans[d]);
		if (ret) {
			if (ret == -ENOSPC && warn)
				n3t_warn_nofit(dom, "keeping the current selection");
			return ret;
		}
	}
	return 0;
}

/*
 * Make @plans the core types' plans, @interval_ms the interval and @schedule
 * the schedule, with collection stopped; @plans is left holding the
 * previous plans.
 */
static void n3t_swap_plans(struct n3t_plan **plans, unsigned int interval_ms,
			   unsigned int schedule)
{
	unsigned int d;

	mutex_lock(&n3t_cfg.lock);
	for (d = 0; d < n3t_cfg.nr_types; d++)
		swap(n3t_cfg.type[d].plan, plans[d]);
	WRITE_ONCE(n3t_cfg.interval_ms, interval_ms);
	WRITE_ONCE(n3t_cfg.schedule, schedule);
	mutex_unlock(&n3t_cfg.lock);
}

/*
 * The above with n3t_cfg.reconf held; @plans (one per core type) are consumed.
 *
 * A write that changes nothing restarts nothing.  A write that cannot be
 * applied is refused before anything stops: the selection is packed for
 * the counters the last probe found (load, resume), and refused if it does
 * not fit them (-ENOSPC).  Once it fits, collection stops and restarts
 * with the new plans: only the interval under way is lost, and the
 * sequence numbers and cumulative counts continue.  The counters are not
 * probed again: a CPU where another user holds some steps aside on its own
 * (the sampler), and the others carry on.
 */
static int __n3t_reconfigure(const u32 *groups, unsigned int interval_ms,
			     unsigned int schedule, struct n3t_plan **plans)
{
	bool same;
	u32 sel[N3T_MAX_CORE_TYPES];
	unsigned int d;
	int ret;

	lockdep_assert_held(&n3t_cfg.reconf);
	if (n3t_cfg.exiting) {
		ret = -ENODEV;
		goto out;
	}
	if (interval_ms == N3T_KEEP)
		interval_ms = n3t_cfg.interval_ms;
	if (schedule == N3T_KEEP)
		schedule = n3t_cfg.schedule;
	same = interval_ms == n3t_cfg.interval_ms && schedule == n3t_cfg.schedule;
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		sel[d] = groups ? groups[d] : n3t_cfg.type[d].plan->groups;
		same &= sel[d] == n3t_cfg.type[d].plan->groups;
	}
	ret = 0;
	if (same)
		goto out;
	/* nothing has changed yet: a selection that does not fit is refused */
	ret = n3t_pack_all(sel, plans, true);
	if (ret)
		goto out;
	/* paused: stored and applied by the resume, which probes and packs again */
	if (!n3t_cfg.paused)
		n3t_stop();
	n3t_swap_plans(plans, interval_ms, schedule);
	if (!n3t_cfg.paused)
		n3t_start(false);
out:
	n3t_free_plans(plans);
	return ret;
}

/* Any CPU that should collect and could not be set up (since n3t_start()). */
static int n3t_left_out_error(void)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		enum n3t_cpu_state state = n3t_cpu_state(cpu);

		if (state == N3T_CPU_NO_MEMORY)
			ret = -ENOMEM;
		else if (state == N3T_CPU_NO_COUNTERS && !ret)
			ret = -EBUSY;
	}
	cpus_read_unlock();
	return ret;
}

/*
 * Resume, with n3t_cfg.reconf held: probe each core type's counters as at
 * load, pack the stored selection for them, recreate the counters.  On any
 * failure (nothing free, the selection does not fit, a CPU that could not
 * be set up) everything is as before: paused, same plans and capacities.
 */
static int n3t_resume(void)
{
	struct n3t_plan *plans[N3T_MAX_CORE_TYPES] = {};
	unsigned int cap[N3T_MAX_CORE_TYPES], d;
	bool cycle[N3T_MAX_CORE_TYPES];
	u32 sel[N3T_MAX_CORE_TYPES];
	int ret = 0;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		plans[d] = kmalloc(sizeof(*plans[d]), GFP_KERNEL);
		if (!plans[d])
			ret = -ENOMEM;
		sel[d] = n3t_cfg.type[d].plan->groups;
		cap[d] = n3t_cfg.type[d].capacity;
		cycle[d] = n3t_cfg.type[d].cycle_counter;
	}
	if (ret)
		goto out;
	ret = n3t_probe_capacity();
	if (!ret)
		ret = n3t_pack_all(sel, plans, false);
	if (ret)
		goto restore;
	n3t_swap_plans(plans, n3t_cfg.interval_ms, n3t_cfg.schedule);
	n3t_start(true);
	ret = n3t_left_out_error();
	if (!ret) {
		WRITE_ONCE(n3t_cfg.paused, false);
		atomic_set(&n3t_cpu_warned, 0);	/* CPUs coming online later */
		goto out;
	}
	n3t_stop();
	n3t_swap_plans(plans, n3t_cfg.interval_ms, n3t_cfg.schedule);
restore:
	mutex_lock(&n3t_cfg.lock);
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		n3t_cfg.type[d].capacity = cap[d];
		n3t_cfg.type[d].cycle_counter = cycle[d];
	}
	mutex_unlock(&n3t_cfg.lock);
out:
	if (ret == -EBUSY)
		pr_warn_ratelimited("could not resume (error %d: counters held by another perf user); still paused\n",
				    ret);
	else if (ret == -ENOSPC)
		pr_warn_ratelimited("could not resume (error %d: the selected groups do not fit in the free counters); still paused\n",
				    ret);
	else if (ret)
		pr_warn_ratelimited("could not resume (error %d); still paused\n", ret);
	n3t_free_plans(plans);
	return ret;
}

/**
 * n3t_collect_enable() - pause or resume collection (the enabled file)
 * @on: resume (true) or pause (false)
 *
 * Pausing releases every counter on every CPU and stops the samplers;
 * resuming probes the counters again, re-packs the selected groups if
 * needed and recreates the counters.  Cumulative counts continue (see
 * struct n3t_base); the time paused is not counting time.  Asking for the
 * current state does nothing.
 * Return: 0; -ENODEV once module exit has begun; or, failing to resume,
 * -EBUSY (no counter free), -ENOSPC (the selection does not fit), -ENOMEM,
 * with the module still paused.
 */
int n3t_collect_enable(bool on)
{
	int ret = 0;

	mutex_lock(&n3t_cfg.reconf);
	if (n3t_cfg.exiting) {
		ret = -ENODEV;
	} else if (on == !n3t_cfg.paused) {
		ret = 0;
	} else if (on) {
		ret = n3t_resume();
		if (!ret)
			pr_info_ratelimited("resumed\n");
	} else {
		WRITE_ONCE(n3t_cfg.paused, true);
		n3t_stop();
		pr_info_ratelimited("paused: every counter released\n");
	}
	mutex_unlock(&n3t_cfg.reconf);
	return ret;
}

/**
 * n3t_collect_init() - probe the PMU and start collecting on every CPU
 *
 * The core types (model, slots, usable, pmu_total, reserved, CPUs, and the
 * initial plans' groups), n3t_cfg.pmu_type and n3t_cfg.interval_ms are set
 * by the caller.
 * Return: 0 or a negative errno.
 */
int n3t_collect_init(void)
{
	unsigned int d;
	int ret;

	ret = n3t_probe_events();
	if (ret)
		return ret;

	ret = n3t_probe_capacity();
	if (ret == -EBUSY)
		pr_err("no usable PMU counters (held by the NMI watchdog or another perf user?)\n");
	else if (ret)
		pr_err("probing the PMU failed (error %d)\n", ret);
	if (ret)
		return ret;
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		struct n3t_core_type *dom = &n3t_cfg.type[d];

		dom->load_capacity = dom->capacity;
		dom->load_cycle_counter = dom->cycle_counter;
		if (!dom->capacity)
			continue;	/* no CPU of this type collects */
		ret = n3t_pack(dom->model, dom->plan->groups, dom->capacity,
			       dom->cycle_counter, dom->plan);
		if (ret == -ENOSPC)
			n3t_warn_nofit(dom, "not loading");
		if (ret)
			return ret;
		pr_info("%s%s: cpus %*pbl, %u programmable counters usable, cycle counter %s, %u left for others, %u slots, %u sets\n",
			dom->model->name, dom->forced ? " (forced)" : "",
			cpumask_pr_args(&dom->cpus), dom->capacity,
			dom->cycle_counter ? "free" : "busy", dom->reserved, dom->slots,
			dom->plan->nr_sets);
	}

	ret = n3t_sampler_init();
	if (ret)
		return ret;
	mutex_lock(&n3t_cfg.reconf);
	n3t_start(false);
	mutex_unlock(&n3t_cfg.reconf);
	return 0;
}

/**
 * n3t_collect_exit() - stop collecting for good
 *
 * After it returns no sampler work runs, and none can be queued.
 * Paused or not.  Called after the readers (sysfs, snapshot, debugfs) are
 * gone.
 */
void n3t_collect_exit(void)
{
	mutex_lock(&n3t_cfg.reconf);
	/* the isolation check reads it without reconf (n3t_isol_fn()) */
	WRITE_ONCE(n3t_cfg.exiting, true);
	n3t_stop();
	mutex_unlock(&n3t_cfg.reconf);
	n3t_sampler_exit();
}
