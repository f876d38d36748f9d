/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry views (view.c): a consistent copy of one CPU's latest
 * interval, or the sum of several CPUs' (system/, N3T_IOC_SUM), for the
 * front-ends (sysfs.c, snapshot.c).  Includes n3telemetry.h only.
 */
#ifndef N3T_VIEW_H
#define N3T_VIEW_H

#include <linux/cpumask.h>
#include <linux/types.h>

#include "n3telemetry.h"

/**
 * struct n3t_view - a consistent copy of one CPU's or some CPUs' latest interval
 * @res: the result (for a sum: sums over the CPUs that collect; the
 *	cumulative counts sum over every CPU of the mask of the core type,
 *	their low 64 bits here, and @res.seq is the highest n3t_cpu_seq() of
 *	those CPUs)
 * @ev_count_hi: a sum: the high 64 bits of each cumulative count's sum
 * @ev_ns_hi: a sum: likewise, of each counting time's sum
 * @dom: the core type whose plan the view follows (NULL: the CPU has none)
 * @ok: whether any data was published
 * @state: one CPU: whether it collects
 * @nr_state: a sum: online CPUs of the mask in each state, any core type
 * @nr_cpus: a sum: CPUs whose latest intervals are summed in @res
 * @nr_sets: sets in @sets
 * @nr_ev: counts in @delta
 * @events: every event of the sets in use
 * @composed: the metrics the plan composes (copied under n3t_cfg.lock with
 *	the plan's data: the plan may be freed once it is dropped)
 * @sets: per-set data
 * @delta: the sets' counts, set after set
 * @data: storage of @sets and @delta
 *
 * Made by n3t_view_cpu() or n3t_view_sum() under n3t_cfg.lock; the reader
 * owns it and kvfree()s it after use.  Nothing in it points into the plan.
 */
struct n3t_view {
	struct n3t_result res;
	u64 ev_count_hi[N3T_MAX_EVENTS];
	u64 ev_ns_hi[N3T_MAX_EVENTS];
	const struct n3t_core_type *dom;
	bool ok;
	enum n3t_cpu_state state;
	unsigned int nr_state[N3T_NR_CPU_STATES];
	unsigned int nr_cpus;
	unsigned int nr_sets;
	unsigned int nr_ev;
	DECLARE_BITMAP(events, N3T_MAX_EVENTS);
	DECLARE_BITMAP(composed, N3T_MAX_METRICS);
	struct n3t_pub_set *sets;
	u64 *delta;
	u64 data[];
};

struct n3t_view *n3t_view_alloc(unsigned int nr_sets, unsigned int nr_ev);
struct n3t_view *n3t_view_cpu(unsigned int cpu);
struct n3t_view *n3t_view_sum(const struct n3t_core_type *dom, const struct cpumask *cpus);

#endif /* N3T_VIEW_H */
