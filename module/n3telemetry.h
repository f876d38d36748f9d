/* SPDX-License-Identifier: GPL-2.0 */
/* n3telemetry: declarations shared by the module's files. */
#ifndef N3T_N3TELEMETRY_H
#define N3T_N3TELEMETRY_H

#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/workqueue.h>

#include "engine.h"

#define N3T_VERSION		"0.2.0"
#define N3T_SET_MAX		(N3T_MAX_CAPACITY + 1)
#define N3T_INTERVAL_MIN	10
#define N3T_INTERVAL_MAX	60000
#define N3T_KEEP		U32_MAX	/* n3t_collect_reconfigure(): unchanged */

struct perf_event;

/**
 * struct n3t_pub_set - one event set's part of a published interval
 * @delta: counts of the set's events over its complete slices
 * @good_ns: time the set counted in complete slices
 * @lost: slices of this set discarded since collection started
 */
struct n3t_pub_set {
	u64 delta[N3T_SET_MAX];
	u64 good_ns;
	u32 lost;
};

/**
 * struct n3t_result - one CPU's latest interval, as published to readers
 * @seq: interval sequence number, 0 before the first interval ends
 * @end_ns: end of the interval (ktime_get_ns())
 * @interval_ns: length of the interval
 * @nr_sets: sets rotated through
 * @lost: discarded slices since collection started, all sets
 * @value: metric values, fixed point (engine.h)
 * @valid: which @value are defined
 * @counted: events counted in the interval
 * @ev_count: cumulative count of each event
 * @ev_ns: cumulative time each event was counting
 */
struct n3t_result {
	u64 seq;
	u64 end_ns;
	u64 interval_ns;
	u32 nr_sets;
	u32 lost;
	s64 value[N3T_NR_METRICS];
	DECLARE_BITMAP(valid, N3T_NR_METRICS);
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	u64 ev_count[N3T_NR_EVENTS];
	u64 ev_ns[N3T_NR_EVENTS];
};

/**
 * struct n3t_cpu_set - the perf events of one set on one CPU
 * @nr: number of events
 * @ev: engine event ids
 * @pe: the kernel counters (NULL where creation failed)
 * @last_count: last perf_event_read_value() totals, per event
 * @last_enabled: likewise, time enabled
 * @last_running: likewise, time running
 * @acc: this interval's counts over complete slices
 * @good_ns: this interval's time in complete slices
 * @lost: discarded slices since start
 * @starved: this interval, a slice was lost before any was complete
 */
struct n3t_cpu_set {
	u8 nr;
	u8 ev[N3T_SET_MAX];
	struct perf_event *pe[N3T_SET_MAX];
	u64 last_count[N3T_SET_MAX];
	u64 last_enabled[N3T_SET_MAX];
	u64 last_running[N3T_SET_MAX];
	u64 acc[N3T_SET_MAX];
	u64 good_ns;
	u32 lost;
	bool starved;
};

/**
 * struct n3t_cpu - per-CPU collection state
 * @rcu: frees the structure after readers are done (first: kfree_rcu limit)
 * @cpu: the CPU
 * @work: the slice timer, bound to @cpu, deferrable
 * @active: index of the set counting now
 * @interval_start: ktime_get_ns() at the start of the current interval
 * @seq: interval sequence number
 * @starved_intervals: consecutive intervals with a set that never counted
 * @set: the sets, plan->nr_sets entries
 * @scratch: result being built (sampler only)
 * @count_scratch: engine input (sampler only)
 * @pub_lock: seqcount protecting @pub and @pub_set; written only by the
 *	sampler on @cpu with preemption off, read locklessly by readers
 * @pub: the latest published interval
 * @pub_set: per-set data of @pub, plan->nr_sets entries
 * @slices: slices run (cost statistics)
 * @cost_ns: total time spent in the sampler
 * @cost_max_ns: longest sampler run
 *
 * Owned by the CPU's hotplug callbacks and its work item; readers reach
 * it through RCU (n3t_cpu_get()) and read only @pub/@pub_set under
 * @pub_lock.
 */
struct n3t_cpu {
	struct rcu_head rcu;
	unsigned int cpu;
	struct delayed_work work;
	unsigned int active;
	u64 interval_start;
	u64 seq;
	unsigned int starved_intervals;
	struct n3t_cpu_set *set;
	struct n3t_result scratch;
	u64 count_scratch[N3T_NR_EVENTS];
	seqcount_t pub_lock;
	struct n3t_result pub;
	struct n3t_pub_set *pub_set;
	u64 slices;
	u64 cost_ns;
	u64 cost_max_ns;
};

/**
 * struct n3t_config - module-wide configuration
 * @reconf: serialises starting and stopping collection (configuration
 *	writes, test controls); held across cpuhp calls, so never taken by a
 *	sysfs reader
 * @lock: protects @plan and @interval_ms against readers; never held
 *	across cpuhp calls or while taking cpus_read_lock()
 * @plan: the event sets in use; replaced only with collection stopped
 * @interval_ms: interval length
 * @slots: slots per cycle used by the formulas
 * @capacity: usable programmable counters found at load
 * @cycle_counter: whether the dedicated cycle counter is free
 * @pmu_type: perf PMU type used for the counters
 * @usable: events the PMU implements and accepted
 * @model: what was detected ("neoverse-n3", or forced)
 */
struct n3t_config {
	struct mutex reconf;	/* see above */
	struct mutex lock;	/* see above */
	struct n3t_plan *plan;
	unsigned int interval_ms;
	unsigned int slots;
	unsigned int capacity;
	bool cycle_counter;
	u32 pmu_type;
	DECLARE_BITMAP(usable, N3T_NR_EVENTS);
	char model[64];
};

extern struct n3t_config n3t_cfg;
extern bool n3t_root_only;

int n3t_collect_init(void);
void n3t_collect_exit(void);
int n3t_collect_reconfigure(u32 groups, unsigned int interval_ms);
bool n3t_read_cpu(unsigned int cpu, struct n3t_result *res, struct n3t_pub_set *sets,
		  unsigned int nr_sets);

int n3t_sysfs_init(void);
void n3t_sysfs_exit(void);

#endif /* N3T_N3TELEMETRY_H */
