/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry: the sampler (collect.c): per-CPU collection state, slices,
 * intervals, publication, and the narrow API the rest of the module uses:
 * the read API for the front-ends, the lifecycle and re-pack requests for
 * control.c.  Includes only config.h and coretype.h below it.
 */
#ifndef N3T_N3TELEMETRY_H
#define N3T_N3TELEMETRY_H

#include <linux/atomic.h>
#include <linux/seqlock.h>
#include <linux/workqueue.h>

#include "config.h"
#include "coretype.h"
#include "schedule.h"

#define N3T_VERSION		"0.2.0"
#define N3T_SET_MAX		(N3T_MAX_CAPACITY + 1)

struct perf_event;

/**
 * struct n3t_pub_set - one event set's latest counting, as published
 * @seq: sequence number of the interval the set's values come from: the
 *	last one it was counted in (0: not counted since collection started)
 * @end_ns: end of that interval (ktime_get_ns())
 * @interval_ns: its length
 * @good_ns: time the set counted in complete slices in it
 * @lost: slices of this set discarded since collection started
 *
 * The set's counts are in the CPU's delta array (see n3t_read_cpu()).  With
 * the rotating schedule (enum n3t_schedule) a set is counted in one
 * interval out of several, and keeps its values until its next turn.
 */
struct n3t_pub_set {
	u64 seq;
	u64 end_ns;
	u64 interval_ns;
	u64 good_ns;
	u64 lost;
};

/**
 * struct n3t_result - one CPU's latest interval, as published to readers
 * @seq: interval sequence number, 0 before the first interval ends
 * @end_ns: end of the interval (ktime_get_ns())
 * @interval_ns: length of the interval
 * @nr_sets: sets rotated through
 * @lost: discarded slices, all sets: since collection started in the CPU's
 *	state (struct n3t_cpu.scratch), since load as n3t_read_cpu() returns it
 * @value: metric values, fixed point (engine.h)
 * @valid: which @value are defined
 * @counted: events counted in the interval (not the hidden ones)
 * @hidden: events that counted nothing while the core ran (struct
 *	n3t_cpu.hidden): their metrics are undefined
 * @ev_count: cumulative count of each event (as published: since load,
 *	struct n3t_base included)
 * @ev_ns: cumulative time each event was counting (likewise)
 * @ev_slice: cumulative count of each event in its sets' complete slices
 *	(likewise)
 * @ev_slice_ns: the time of those slices (likewise): two events counted
 *	in the same slices have equal times, and the ratio of their
 *	@ev_slice differences between two reads is exact over those slices;
 *	others' are rates per second (n3tel stat)
 * @slices_ns: the time of every complete slice, whichever set's
 *	(likewise)
 */
struct n3t_result {
	u64 seq;
	u64 end_ns;
	u64 interval_ns;
	u32 nr_sets;
	u64 lost;
	s64 value[N3T_MAX_METRICS];
	DECLARE_BITMAP(valid, N3T_MAX_METRICS);
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	DECLARE_BITMAP(hidden, N3T_MAX_EVENTS);
	u64 ev_count[N3T_MAX_EVENTS];
	u64 ev_ns[N3T_MAX_EVENTS];
	u64 ev_slice[N3T_MAX_EVENTS];
	u64 ev_slice_ns[N3T_MAX_EVENTS];
	u64 slices_ns;
};

/**
 * struct n3t_base - what a CPU counted before its current collection state
 * @lock: protects @seq, @lost and the cumulative counts, and the publication of the CPU's
 *	struct n3t_cpu, against readers (n3t_read_cpu()); written only by the
 *	CPU's teardown callback, which folds the state's counts in and
 *	unpublishes it in one write section, so a reader sees them either in
 *	the state or here, never in both nor in neither
 * @seq: the last interval sequence number those states published: the next
 *	state numbers its intervals on from there
 * @turn: the rotating schedule's position those states reached: the next
 *	state goes on from there
 * @lost: slices those states discarded
 * @ev_count: counts of the CPU's torn-down collection states, per event
 * @ev_ns: their counting times, per event
 * @ev_slice: their counts in complete slices, per event
 * @ev_slice_ns: the time of those slices, per event
 * @slices_ns: the time of every complete slice of those states
 *
 * One per possible CPU, allocated at load and freed at unload once no
 * reader is left: a CPU's cumulative counts are this plus its current
 * state's, and so never go backwards, whether collection is paused,
 * reconfigured or the CPU goes offline.
 */
struct n3t_base {
	seqlock_t lock;	/* see above */
	u64 seq;
	unsigned int turn;
	u64 lost;
	u64 ev_count[N3T_MAX_EVENTS];
	u64 ev_ns[N3T_MAX_EVENTS];
	u64 ev_slice[N3T_MAX_EVENTS];
	u64 ev_slice_ns[N3T_MAX_EVENTS];
	u64 slices_ns;
};

/**
 * struct n3t_cpu_ev - one kernel counter on one CPU (sampler only)
 * @pe: the counter; NULL for an event the PMU does not implement, for a
 *	rotating set's event outside its slices, and while the CPU is
 *	stepped aside
 * @last_count: last perf_event_read_value() total
 * @last_enabled: likewise, time enabled
 * @last_running: likewise, time running
 * @ev: event index of the CPU's model
 * @on: enabled now
 * @held: an event of a set counted in every interval: created (disabled)
 *	with the CPU's state and kept while the CPU collects; the others
 *	exist only during their set's slice (created enabled at its start,
 *	released at its end), so that perf's lists hold only what counts
 * @fresh: created by the n3t_enable_set() under way (false outside it)
 */
struct n3t_cpu_ev {
	struct perf_event *pe;
	u64 last_count;
	u64 last_enabled;
	u64 last_running;
	u8 ev;
	bool on;
	bool held;
	bool fresh;
};

/**
 * struct n3t_cpu_member - one event of one set on one CPU (sampler only)
 * @acc: this interval's count over the set's complete slices
 * @ev: event index of the CPU's model
 * @ctr: its counter in &struct n3t_cpu.ctr, one per event and shared by
 *	every set that counts the event: if the next set counts the event
 *	too, the counter stays enabled across the switch
 */
struct n3t_cpu_member {
	u64 acc;
	u8 ev;
	u8 ctr;
};

/**
 * struct n3t_cpu_set - one set on one CPU (sampler only)
 * @first: index of its first event in &struct n3t_cpu.ev
 * @nr: number of events
 * @good_ns: this interval's time in complete slices
 * @lost: discarded slices since start
 * @hidden: its events hidden (&struct n3t_cpu.hidden) when it was last
 *	published: its published counts of them are no measurement
 */
struct n3t_cpu_set {
	unsigned int first;
	unsigned int nr;
	u64 good_ns;
	u64 lost;
	DECLARE_BITMAP(hidden, N3T_MAX_EVENTS);
};

/**
 * struct n3t_cpu - per-CPU collection state
 * @rcu: frees the structure after readers are done (first: kvfree_rcu limit)
 * @cpu: the CPU
 * @dom: the CPU's core type
 * @plan: the plan it was built for (constant while it exists)
 * @nr_ev: n3t_plan_nr_events(@plan): entries of @ev and @pub_delta
 * @nr_ctr: distinct events of @plan: entries of @ctr
 * @work: the slice timer, bound to @cpu (not deferrable: see n3t_cpu_online())
 * @sch: the CPU's position in its plan's schedule (struct n3t_sched:
 *	@sch.nr_sets is @plan->nr_sets, the entries of @set and @pub_set;
 *	@sch.turn continues the CPU's struct n3t_base's)
 * @resting: the rest (yield_pct) after an interval's last slice: every
 *	counter is off, @sch and @active name the slice that starts
 *	when it ends
 * @active: index of the set counting now (the next one while @resting)
 * @interval_start: ktime_get_ns() at the start of the current interval
 * @epoch: jiffies at the start of the current interval's slice schedule
 * @seq: interval sequence number (continues the CPU's struct n3t_base's)
 * @aside: stepped aside: another perf user took counters the active set
 *	needed (one of its slices did not count the whole time), so the CPU
 *	holds no counter, publishes intervals with nothing counted and looks
 *	every @aside_wait intervals whether its first set fits again
 * @lent: stepped aside for a pause lease (n3t_lease()): no look until
 *	every lease of the CPU is given back
 * @resumed: came back from aside, no interval completed since
 * @retired: the CPU became isolated (n3t_cpu_wanted()): the sampler ran
 *	there for the last time, released every counter and published an
 *	interval with nothing counted; the state is freed, without running
 *	anything on the CPU, by the isolation check or a teardown
 * @aside_wait: intervals until the next look while @aside
 * @look_set: the set a look tries: of the sets counted in every interval,
 *	the one that needs the most programmable counters (a rotating set
 *	that does not fit when its slice starts only loses that slice:
 *	n3t_enable_set()); with none, the one that needs the fewest
 * @switch_ns: local_clock() at the last slice end's reads: how long a
 *	switch to a rotating set took (n3t_enable_set())
 * @aside_backoff: @aside_wait after the next step aside or look: 1,
 *	doubled up to N3T_ASIDE_WAIT_MAX by each look that finds the
 *	counters taken and each time the CPU is pushed out again straight
 *	after coming back (a user scheduled only while the sampler is not,
 *	such as a KVM vCPU thread)
 * @set: the sets (sampler only)
 * @ev: the events of all sets, set after set (sampler only)
 * @ctr: the counters, one per distinct event (sampler only): a counter of
 *	two consecutive sets stays enabled across the switch
 * @hidden: events of @dom's always set that counted nothing in the latest
 *	complete slice that judged them: one of theirs in which CPU_CYCLES
 *	advanced N3T_HIDDEN_CYCLES or more (n3t_end_slice(); sampler only)
 * @scratch: result being built (sampler only)
 * @count_scratch: engine input (sampler only)
 * @pub_lock: seqcount protecting @pub, @pub_set and @pub_delta; written
 *	only by the sampler on @cpu with preemption off, read locklessly
 * @pub: the latest published interval
 * @pub_set: per-set data of @pub, @sch.nr_sets entries: each set's latest
 *	interval (the sampler reads its own without @pub_lock)
 * @pub_delta: counts of each set's complete slices in its latest interval,
 *	@nr_ev entries, in the order of @ev
 * @set_ns: each set's good_ns as last published, the composed metrics'
 *	input (n3t_eval_composed(); sampler only)
 * @rate_delta: likewise each set's counts, a copy of @pub_delta the
 *	sampler reads outside @pub_lock's write section (sampler only)
 * @looks: looks made while aside (statistics)
 * @asides: steps aside (statistics)
 * @create_failed: counters a rotating slice could not create (its slice
 *	is lost; statistics)
 * @set_busy: rotating slices lost because their set did not fit beside
 *	the CPU's other perf users when it started (statistics)
 * @slices: sampler runs: slice ends and rest ends (cost statistics)
 * @rests: rests begun (statistics)
 * @cost_ns: total time spent in the sampler
 * @cost_max_ns: longest sampler run
 * @data: storage of @set, @ev, @ctr, @pub_set, @pub_delta, @set_ns and
 *	@rate_delta
 *
 * One allocation, sized by the plan, created and destroyed by the CPU's
 * hotplug callbacks.  Readers reach it through RCU (the per-CPU pointer
 * behind n3t_read_cpu()) and read only @pub, @pub_set and @pub_delta under
 * @pub_lock; the offline callback stops @work, ends the running slice,
 * folds the counts into the CPU's struct n3t_base as it unpublishes the
 * structure, releases the counters and frees the whole allocation after a
 * grace period (kvfree_rcu()), so nothing a reader can reach is freed
 * earlier.
 */
struct n3t_cpu {
	struct rcu_head rcu;
	unsigned int cpu;
	const struct n3t_core_type *dom;
	const struct n3t_plan *plan;
	unsigned int nr_ev;
	unsigned int nr_ctr;
	struct delayed_work work;
	struct n3t_sched sch;
	bool resting;
	unsigned int active;
	u64 interval_start;
	unsigned long epoch;
	u64 seq;
	bool aside;
	bool lent;
	bool resumed;
	bool retired;
	unsigned int aside_wait;
	unsigned int aside_backoff;
	unsigned int look_set;
	u64 switch_ns;
	struct n3t_cpu_set *set;
	struct n3t_cpu_member *ev;
	struct n3t_cpu_ev *ctr;
	DECLARE_BITMAP(hidden, N3T_MAX_EVENTS);
	struct n3t_result scratch;
	u64 count_scratch[N3T_MAX_EVENTS];
	seqcount_t pub_lock;
	struct n3t_result pub;
	struct n3t_pub_set *pub_set;
	u64 *pub_delta;
	u64 *set_ns;
	u64 *rate_delta;
	u64 looks;
	u64 asides;
	u64 create_failed;
	u64 set_busy;
	u64 slices;
	u64 rests;
	u64 cost_ns;
	u64 cost_max_ns;
	u64 data[];
};

/**
 * enum n3t_cpu_state - whether a CPU collects, as its status file says
 * @N3T_CPU_OFFLINE: offline, or collection stopped
 * @N3T_CPU_COLLECTING: collecting
 * @N3T_CPU_ISOLATED: left alone: not a housekeeping CPU (nohz_full,
 *	isolcpus) and the isolated parameter is off
 * @N3T_CPU_NO_MEMORY: its state could not be allocated when it came online
 * @N3T_CPU_NO_COUNTERS: a counter could not be created when it came online
 * @N3T_CPU_UNSUPPORTED: a core none of the module's tables describes
 * @N3T_CPU_PAUSED: collection is paused (the enabled file): no counter held
 * @N3T_CPU_ASIDE: stepped aside for another perf user (struct n3t_cpu.aside)
 * @N3T_NR_CPU_STATES: number of states
 */
enum n3t_cpu_state {
	N3T_CPU_OFFLINE,
	N3T_CPU_COLLECTING,
	N3T_CPU_ISOLATED,
	N3T_CPU_NO_MEMORY,
	N3T_CPU_NO_COUNTERS,
	N3T_CPU_UNSUPPORTED,
	N3T_CPU_PAUSED,
	N3T_CPU_ASIDE,
	N3T_NR_CPU_STATES
};

/* The sampler's read API, for the front-ends (sysfs.c, snapshot.c, debugfs.c) */
bool n3t_read_cpu(unsigned int cpu, const struct n3t_plan *plan, struct n3t_result *res,
		  struct n3t_pub_set *sets, u64 *delta);
void n3t_group_age(const struct n3t_plan *plan, const struct n3t_pub_set *sets,
		   unsigned int group, u64 *seq, u64 *end_ns);
enum n3t_cpu_state n3t_cpu_state(unsigned int cpu);
u64 n3t_cpu_seq(unsigned int cpu);
const char *n3t_cpu_state_name(enum n3t_cpu_state state);

/**
 * struct n3t_cost - what a CPU's sampler has cost so far (debugfs cost)
 * @slices: sampler runs: slice ends and rest ends
 * @total_ns: time spent in the sampler
 * @max_ns: its longest run
 * @looks: looks made while stepped aside
 * @rests: rests begun (yield_pct)
 * @asides: steps aside
 * @create_failed: counters a rotating slice could not create
 * @set_busy: rotating slices lost to a set that did not fit at its start
 */
struct n3t_cost {
	u64 slices;
	u64 total_ns;
	u64 max_ns;
	u64 looks;
	u64 rests;
	u64 asides;
	u64 create_failed;
	u64 set_busy;
};

bool n3t_read_cost(unsigned int cpu, struct n3t_cost *cost);
#ifdef N3T_TEST_HOOKS
int n3t_advance_set(void *data, u64 val);
#endif

/*
 * The sampler's lifecycle, for control.c (with n3t_cfg.reconf held):
 * per-CPU states and the hotplug callbacks from n3t_sampler_init() to
 * n3t_sampler_exit(), collection from n3t_start() to n3t_stop().
 */
int n3t_sampler_init(void);
void n3t_sampler_exit(void);
void n3t_start(bool quiet);
void n3t_stop(void);
/* pause leases, for the snapshot device (N3T_IOC_PAUSE) */
void n3t_lease(const struct cpumask *cpus, bool take);
bool n3t_cpu_leased(unsigned int cpu);

extern atomic_t n3t_cpu_warned;

/* Creation points that fault injection can fail */
struct perf_event *n3t_create(unsigned int cpu, unsigned int code, bool on);
struct n3t_cpu *n3t_cpu_alloc(const struct n3t_core_type *dom);

#endif /* N3T_N3TELEMETRY_H */
