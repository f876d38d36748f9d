// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry sampler: per-CPU kernel counters (flexible, or pinned with
 * pinned=1), one event set counting at a time, switched by a CPU-bound
 * delayed work item on a schedule (enum n3t_schedule: by default the
 * first group's sets every interval, and every few intervals one other set
 * in turn), optionally each interval ending with a rest holding no counter
 * (yield_pct); stepping aside, per CPU, for other perf users; the CPU
 * hotplug callbacks; publication of each set's latest interval, and the
 * narrow read API over it (n3t_read_cpu(), n3t_group_age(), n3t_cpu_state(),
 * n3t_cpu_seq(), n3t_read_cost()).
 *
 * perf_event_create_kernel_counter() cannot create groups, so the module
 * itself guarantees co-scheduling: on each CPU exactly one set is enabled
 * at a time, and a slice in which any member did not count the whole time
 * is discarded.  Only what counts is in perf's lists, where every
 * reschedule walks it: the events of the sets counted in every interval
 * are created disabled with the CPU's state, a rotating set's events are
 * created at the start of its slice and released at its end.
 *
 * Stepping aside: a slice that did not count the whole time means another
 * perf user wants the counters (a pinned one always wins; a CPU-wide
 * flexible one makes perf rotate).  That CPU alone then releases every
 * counter and publishes intervals with nothing counted (nan), and every
 * few intervals looks whether its sets fit again: it creates the events of
 * the largest set it counts in every interval, newer than the other user's
 * and so scheduled after them, and releases them at once; if every one
 * counted, it collects again.  A rotating set is created at its slice's
 * start: if it does not fit, it is released at once and only that slice is
 * lost.  The other CPUs carry on.
 * Reads and set switches run in work bound to the events' CPU, where
 * perf_event_read_value(), perf_event_enable() and perf_event_disable() act
 * locally without an IPI.
 *
 * Lifetimes.  A CPU's struct n3t_cpu exists from its online callback to its
 * offline callback; readers reach it under RCU and it is freed, whole, after
 * a grace period.  What it counted is folded into the CPU's struct n3t_base
 * (load to unload) as it is unpublished, so cumulative counts continue
 * across a pause (the enabled file), a reconfiguration and CPU hotplug.
 * Collection is started and stopped only under n3t_cfg.reconf; once
 * n3t_cfg.exiting is set nothing starts it again, so after module exit has
 * stopped it no sampler or re-pack work can run.
 * Telemetry never keeps a CPU offline: the online callback always succeeds,
 * and a CPU it could not set up is left uncollected (its status says why).
 *
 * Layering: calls only config.c (n3t_cfg, the test hooks), coretype.c
 * (n3t_cpu_identify(), n3t_cpu_wanted()) and the engine; includes only
 * n3telemetry.h.  Called by control.c (lifecycle), probe.c (n3t_create())
 * and the front-ends (the read API).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/error-injection.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "n3telemetry.h"

static DEFINE_PER_CPU(struct n3t_cpu __rcu *, n3t_pcpu);
/* what each possible CPU counted before its current state (struct n3t_base) */
static struct n3t_base __percpu *n3t_base;
/* enum n3t_cpu_state, written by the hotplug callbacks and the sampler */
static DEFINE_PER_CPU(int, n3t_state);
/* pause leases in force on each CPU (n3t_lease()) */
static DEFINE_PER_CPU(atomic_t, n3t_leases);
/* the hotplug state, registered once at load, removed once at unload */
static enum cpuhp_state n3t_hp_state;
/* collection runs: a CPU coming online is set up (written under n3t_cfg.reconf) */
static bool n3t_running;
static struct workqueue_struct *n3t_wq;
/*
 * n3t_wq is per CPU (each CPU's slices are queued on it); from 7.x one
 * allocated without WQ_PERCPU or WQ_UNBOUND gets a warning.  Kernels
 * before WQ_PERCPU (Kbuild's probe) have only per-CPU workqueues without
 * WQ_UNBOUND.
 */
#ifdef N3T_HAVE_WQ_PERCPU
#define N3T_WQ_PERCPU	WQ_PERCPU
#else
#define N3T_WQ_PERCPU	0
#endif
/* sets up the CPUs that stop being isolated (n3t_isol_fn()) */
static struct delayed_work n3t_isol_work;
#ifdef N3T_TEST_HOOKS
/* Test builds: slices end only when "advance" is written (debugfs "manual"). */
static bool n3t_manual_mode(void)
{
	return READ_ONCE(n3t_manual);
}
#else
/* production builds have no test controls */
static bool n3t_manual_mode(void)
{
	return false;
}
#endif
/* stepped aside, a CPU looks after 1, 2 or 4 intervals (struct n3t_cpu.aside_backoff) */
#define N3T_ASIDE_WAIT_MAX	4U
/* n3t_end_slice(): no set counts next, every counter goes off */
#define N3T_NO_SET		UINT_MAX
/* the first CPU that could not be set up since the last start is logged */
atomic_t n3t_cpu_warned;

/*
 * The statistics of struct n3t_cpu (looks .. cost_max_ns) have one writer,
 * the CPU's sampler, and are read locklessly by n3t_read_cost() on any CPU:
 * written whole (WRITE_ONCE()), read whole (READ_ONCE()); a reader may see
 * one updated and the next not yet.
 */
static void n3t_stat_add(u64 *stat, u64 n)
{
	WRITE_ONCE(*stat, *stat + n);
}

static const char * const n3t_state_names[N3T_NR_CPU_STATES] = {
	[N3T_CPU_OFFLINE] = "stopped",
	[N3T_CPU_COLLECTING] = "collecting",
	[N3T_CPU_ISOLATED] = "isolated",
	[N3T_CPU_NO_MEMORY] = "failed-no-memory",
	[N3T_CPU_NO_COUNTERS] = "failed-no-counters",
	[N3T_CPU_UNSUPPORTED] = "unsupported-core",
	[N3T_CPU_PAUSED] = "paused",
	[N3T_CPU_ASIDE] = "stepped-aside",
};

/**
 * n3t_cpu_state() - whether a CPU collects
 * @cpu: the CPU
 * Return: its enum n3t_cpu_state.
 */
enum n3t_cpu_state n3t_cpu_state(unsigned int cpu)
{
	enum n3t_cpu_state state = READ_ONCE(per_cpu(n3t_state, cpu));

	/* stopped because paused, or came online while paused */
	if (state == N3T_CPU_OFFLINE && READ_ONCE(n3t_cfg.paused))
		return N3T_CPU_PAUSED;
	return state;
}

/**
 * n3t_cpu_state_name() - the word a status file prints for a state
 * @state: the state
 * Return: a static string.
 */
const char *n3t_cpu_state_name(enum n3t_cpu_state state)
{
	return state < N3T_NR_CPU_STATES ? n3t_state_names[state] : "unknown";
}

/* Global and not inlined, so that fault injection can fail it (fail_function). */
noinline struct perf_event *n3t_create(unsigned int cpu, unsigned int code, bool on)
{
	struct perf_event_attr attr = {
		.type = n3t_cfg.pmu_type,
		.size = sizeof(attr),
		.config = code,
		.pinned = n3t_pinned,
		.disabled = !on,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}
ALLOW_ERROR_INJECTION(n3t_create, ERRNO);

/*
 * The interval in jiffies: at least a jiffy per slice of the intervals that
 * rotate, and one for a rest.
 */
static unsigned long n3t_interval_jiffies(const struct n3t_cpu *pc, unsigned int pct)
{
	return max_t(unsigned long, msecs_to_jiffies(n3t_cfg.interval_ms),
		     pc->sch.nr_every + 1 + !!pct);
}

/*
 * The rest that ends each interval (yield_pct): @pct percent of the
 * interval, rounded up to a jiffy, leaving each slice a jiffy at least.
 */
static unsigned long n3t_rest_jiffies(const struct n3t_cpu *pc, unsigned long ivl,
				      unsigned int pct)
{
	if (!pct)
		return 0;
	return clamp_t(unsigned long,
		       msecs_to_jiffies(DIV_ROUND_UP(n3t_cfg.interval_ms * pct, 100)),
		       1, ivl - pc->sch.nr_every - 1);
}

/*
 * Slices end on a schedule of absolute deadlines: of an interval that
 * started at pc->epoch, with a rest of r jiffies (yield_pct) at its end,
 * slice k ends at epoch + (k + 1) * (interval - r) / nr_slots and the rest
 * at epoch + interval, which is the next interval's epoch (in jiffies).  So
 * the time the sampler itself takes, or a late timer, does not stretch the
 * interval: it lasts the interval, within a jiffy.  A CPU whose timer
 * fired more than a whole interval late starts a new schedule instead of
 * catching up with slices of no length.
 * @pct: the yield_pct the sampler read
 * Return: the delay until the current slice's (or rest's) deadline, at
 * least a jiffy.
 */
static unsigned long n3t_slice_delay(struct n3t_cpu *pc, unsigned int pct)
{
	unsigned long ivl = n3t_interval_jiffies(pc, pct);
	unsigned long work = ivl - n3t_rest_jiffies(pc, ivl, pct);
	unsigned long now = jiffies, start, end;

	/* offsets from the epoch; resting, the epoch is the rest's end */
	if (pc->resting) {
		start = work - ivl;	/* negative: the epoch is ahead */
		end = 0;
	} else {
		start = pc->sch.slot * work / pc->sch.nr_slots;
		end = (pc->sch.slot + 1) * work / pc->sch.nr_slots;
	}
	if (time_after(now, pc->epoch + end + ivl))
		pc->epoch = now - start;
	end += pc->epoch;
	return time_after(end, now) ? end - now : 1;
}

/*
 * Read a counter: what it counted since its last read in @d, and how long
 * it was enabled and running meanwhile in @de and @dr; folded into the
 * CPU's cumulative counts.
 */
static void n3t_read_ctr(struct n3t_cpu *pc, struct n3t_cpu_ev *c, u64 *d, u64 *de, u64 *dr)
{
	u64 total, enabled = 0, running = 0;

	total = perf_event_read_value(c->pe, &enabled, &running);
	*d = total - c->last_count;
	*de = enabled - c->last_enabled;
	*dr = running - c->last_running;
	c->last_count = total;
	c->last_enabled = enabled;
	c->last_running = running;
	pc->scratch.ev_count[c->ev] += *d;
	pc->scratch.ev_ns[c->ev] += min(*dr, *de);
}

/*
 * Whether a counter ran the whole time it was enabled since its last read,
 * and was enabled at all: a flexible one perf could not schedule falls
 * behind in running time; a pinned one that found no counter is in the
 * error state, its enabled time frozen.
 */
static bool n3t_ran_whole(u64 de, u64 dr)
{
	return de && dr == de;
}

/* Switch a counter off; what it counted since its last read is folded in. */
static void n3t_ctr_off(struct n3t_cpu *pc, struct n3t_cpu_ev *c)
{
	u64 d, de, dr;

	if (!c->pe || !c->on)
		return;
	perf_event_disable(c->pe);
	c->on = false;
	n3t_read_ctr(pc, c, &d, &de, &dr);
}

/* Release a counter, switched off first. */
static void n3t_ctr_put(struct n3t_cpu *pc, struct n3t_cpu_ev *c)
{
	if (!c->pe)
		return;
	n3t_ctr_off(pc, c);
	perf_event_release_kernel(c->pe);
	c->pe = NULL;
}

/* Create a counter for @c, enabled (@on) or not; false if it could not be. */
static bool n3t_ctr_get(struct n3t_cpu *pc, struct n3t_cpu_ev *c, bool on)
{
	struct perf_event *pe = n3t_create(pc->cpu, pc->plan->model->events[c->ev].code, on);

	if (IS_ERR(pe))
		return false;
	c->pe = pe;
	c->on = on;
	c->last_count = 0;
	c->last_enabled = 0;
	c->last_running = 0;
	return true;
}

static void n3t_release_all(struct n3t_cpu *pc)
{
	unsigned int i;

	for (i = 0; i < pc->nr_ctr; i++)
		n3t_ctr_put(pc, &pc->ctr[i]);
}

/* Hold no counter and drop what the interval under way counted so far. */
static void n3t_drop_all(struct n3t_cpu *pc)
{
	unsigned int i;

	n3t_release_all(pc);
	for (i = 0; i < pc->sch.nr_sets; i++)
		pc->set[i].good_ns = 0;
	for (i = 0; i < pc->nr_ev; i++)
		pc->ev[i].acc = 0;
	pc->aside = true;
}

/*
 * Step aside: another perf user took counters the active set needed.
 * Every counter of the CPU is released, every set's values are dropped
 * (the intervals published meanwhile have nothing counted), and the CPU
 * looks after aside_backoff intervals whether its first set fits again.
 */
static void n3t_step_aside(struct n3t_cpu *pc)
{
	n3t_drop_all(pc);
	pc->aside_backoff = pc->resumed ? min(pc->aside_backoff * 2, N3T_ASIDE_WAIT_MAX) : 1;
	pc->aside_wait = pc->aside_backoff;
	pc->resumed = false;
	n3t_stat_add(&pc->asides, 1);
	WRITE_ONCE(per_cpu(n3t_state, pc->cpu), N3T_CPU_ASIDE);
}

/*
 * Hidden events: a hypervisor may let a guest program an event its PMU
 * implements (PMCEID) and never count it (a filter).  A zero is then no
 * measurement, but only an event every running core counts (the core
 * type's always set: instructions and operations) can be told from a true
 * zero.  Even an idle CPU's slice holds the sampler's own instructions
 * (the counters count the kernel too) between the enable at its start and
 * the read at its end, so such an event that counted nothing in a
 * complete slice in which CPU_CYCLES, counted beside it, advanced
 * N3T_HIDDEN_CYCLES or more (milliseconds of a running core) does not
 * count at all: it is hidden, and its metrics undefined, until a later
 * such slice sees it count.  A slice of fewer cycles, or without
 * CPU_CYCLES, judges nothing.  Its counter stays: what it would free is
 * one counter, and a filter lifted is seen at once.
 */
#define N3T_HIDDEN_CYCLES	10000000ULL

static void n3t_judge_hidden(struct n3t_cpu *pc, const struct n3t_cpu_member *m,
			     unsigned int nr, const u64 *d)
{
	unsigned int i, cycles = pc->dom->model->cycles;

	for (i = 0; i < nr; i++)
		if (m[i].ev == cycles)
			break;
	if (i == nr || !test_bit(cycles, pc->dom->usable) || d[i] < N3T_HIDDEN_CYCLES)
		return;
	for (i = 0; i < nr; i++)
		if (test_bit(m[i].ev, pc->dom->always) && test_bit(m[i].ev, pc->dom->usable))
			__assign_bit(m[i].ev, pc->hidden, !d[i]);
}

/*
 * Stop the active set, read it, fold a complete slice into the interval;
 * @next: the set that counts next (its counters that the active set shares
 * stay enabled, and are read enabled), or N3T_NO_SET to switch every
 * counter off.  A rotating set's counters that do not stay on are read
 * enabled and released: no disable before the release, which switches
 * them off anyway.  A held counter that does not stay on is disabled
 * first, so that its count and times stop together and its next slice's
 * deltas start from exactly where this one ended; a member read enabled is
 * read once, count and times together.
 *
 * A slice is complete when every member ran the whole time it was enabled.
 * A flexible counter (the default) that perf could not schedule, or
 * rotated out, keeps its enabled time growing without running: running
 * falls behind.  A pinned one (pinned=1) that lost its counter goes to the
 * error state, where both times stop: read once more before it is switched
 * off, it shows no enabled time between that read and the last.  Such a
 * slice means another perf user wants the counters: with @may_aside the
 * CPU steps aside (n3t_step_aside()).  A slice one of whose counters
 * could not be created is only lost.
 * Return: true if the CPU stepped aside.
 */
static bool n3t_end_slice(struct n3t_cpu *pc, unsigned int next, bool may_aside)
{
	const unsigned long *keep = next == N3T_NO_SET || n3t_pinned ? NULL :
				    pc->plan->set[next].events;
	struct n3t_cpu_set *s = &pc->set[pc->active];
	struct n3t_cpu_member *m = &pc->ev[s->first];
	u64 d[N3T_SET_MAX], on_ns[N3T_SET_MAX], slice_ns = 0;
	bool contended = false, failed = false;
	unsigned int i, nr_pe = 0;
	struct n3t_cpu_ev *c;

	/* pinned=1: the enabled times while still on (the error state test) */
	for (i = 0; n3t_pinned && i < s->nr; i++) {
		u64 running;

		c = &pc->ctr[m[i].ctr];
		on_ns[i] = 0;
		if (c->pe && c->on)
			perf_event_read_value(c->pe, &on_ns[i], &running);
	}
	/*
	 * counters the next set shares stay enabled: no disable, no enable;
	 * a rotating set's others are released enabled, below
	 */
	for (i = 0; i < s->nr; i++) {
		c = &pc->ctr[m[i].ctr];
		if (c->pe && c->on && !(keep && test_bit(m[i].ev, keep))) {
			if (c->held)
				perf_event_disable(c->pe);
			c->on = false;
		}
	}
	for (i = 0; i < s->nr; i++) {
		u64 de, dr;

		c = &pc->ctr[m[i].ctr];
		d[i] = 0;
		if (!test_bit(m[i].ev, pc->dom->usable))
			continue;	/* unusable event: its metrics are undefined */
		nr_pe++;
		if (!c->pe) {
			failed = true;	/* a rotating set's counter not created */
			continue;
		}
		n3t_read_ctr(pc, c, &d[i], &de, &dr);
		/* a member that did not run the whole time it was on spoils it */
		if (!n3t_ran_whole(de, dr) || (n3t_pinned && c->last_enabled == on_ns[i]))
			contended = true;
		slice_ns = max(slice_ns, de);
	}
	pc->switch_ns = local_clock();
	/*
	 * a rotating set's counters exist for its slice only: released just
	 * read, what they count meanwhile is no slice's
	 */
	for (i = 0; i < s->nr; i++) {
		c = &pc->ctr[m[i].ctr];
		if (c->pe && !c->held && !c->on) {
			perf_event_release_kernel(c->pe);
			c->pe = NULL;
		}
	}
	if (!nr_pe)
		return false;
	if (contended || failed) {
		s->lost++;
		pc->scratch.lost++;
		if (contended && may_aside) {
			n3t_step_aside(pc);
			return true;
		}
		/*
		 * Every member off, the ones the next set shares too: enabling
		 * that set then reschedules the CPU's flexible events, and takes
		 * a pinned one out of the error state.  What such a member
		 * counted since its read is folded in, so that the next slice
		 * starts exactly where this one ends.
		 */
		for (i = 0; i < s->nr; i++) {
			c = &pc->ctr[m[i].ctr];
			if (c->held)
				n3t_ctr_off(pc, c);
			else
				n3t_ctr_put(pc, c);
		}
		return false;
	}
	for (i = 0; i < s->nr; i++) {
		m[i].acc += d[i];
		/* each usable event's count and time in complete slices */
		if (test_bit(m[i].ev, pc->dom->usable)) {
			pc->scratch.ev_slice[m[i].ev] += d[i];
			pc->scratch.ev_slice_ns[m[i].ev] += slice_ns;
		}
	}
	s->good_ns += slice_ns;
	pc->scratch.slices_ns += slice_ns;
	n3t_judge_hidden(pc, m, s->nr, d);
	return false;
}

/*
 * How far apart the starts of a slice's members may be without their being
 * read again: 1/4096 of an interval (244 us at 1 s), less than 0.1 % of
 * any slice of a rotating interval.
 */
static u64 n3t_switch_slack_ns(void)
{
	return (u64)READ_ONCE(n3t_cfg.interval_ms) * NSEC_PER_MSEC >> 12;
}

/*
 * Switch the active set's counters on: the held ones enabled, then a
 * rotating set's created enabled.  One that cannot be created (no memory)
 * is counted and left out: the slice will be lost, nothing else.
 *
 * A rotating set's slice starts once its events exist.  Creating them
 * takes time (an allocation, perf's context mutex, a reschedule each; the
 * worker may be preempted or sleep), during which the members already on
 * (kept from the slice before, held, or created first) go on counting.
 * When the switch took longer than n3t_switch_slack_ns() since the last
 * slice's reads (pc->switch_ns), every member is read again after the last
 * creation, so that what they counted meanwhile (folded into the
 * cumulative counts) is not the slice's and every ratio covers the same
 * time; a quicker switch leaves the members' starts less than that apart.
 *
 * The newest event is the last of the CPU's in perf's lists, scheduled
 * after every other flexible one (perf stops giving counters at the first
 * that finds none): if it did not get one, the set does not fit beside
 * the other users of the CPU.  Pinned (pinned=1), an event that found no
 * counter is in the error state and skipped, so each new one is read.  A
 * set that does not fit has its new events released at once, before
 * perf's multiplexing rotates anybody's for them, and its slice is lost;
 * the CPU goes on with its other sets (a CPU-wide user of a few counters
 * leaves the smaller sets room).
 */
static void n3t_enable_set(struct n3t_cpu *pc)
{
	struct n3t_cpu_set *s = &pc->set[pc->active];
	struct n3t_cpu_ev *c, *newest = NULL;
	bool late, busy = false;
	u64 d, de, dr;
	unsigned int i;

	for (i = s->first; i < s->first + s->nr; i++) {
		c = &pc->ctr[pc->ev[i].ctr];
		if (!c->on && c->pe && test_bit(c->ev, pc->dom->usable)) {
			perf_event_enable(c->pe);
			c->on = true;
		}
	}
	for (i = s->first; i < s->first + s->nr; i++) {
		c = &pc->ctr[pc->ev[i].ctr];
		if (c->pe || c->held || !test_bit(c->ev, pc->dom->usable))
			continue;
		if (n3t_ctr_get(pc, c, true)) {
			c->fresh = true;
			newest = c;
		} else {
			n3t_stat_add(&pc->create_failed, 1);
		}
	}
	if (!newest)
		return;
	late = local_clock() - pc->switch_ns > n3t_switch_slack_ns();
	for (i = s->first; i < s->first + s->nr; i++) {
		c = &pc->ctr[pc->ev[i].ctr];
		if (!c->on || !(late || c == newest || (n3t_pinned && c->fresh)))
			continue;
		n3t_read_ctr(pc, c, &d, &de, &dr);
		/* not running since created: pinned, de is 0 (error state) */
		if (c->fresh && !n3t_ran_whole(de, dr))
			busy = true;
	}
	for (i = s->first; i < s->first + s->nr; i++) {
		c = &pc->ctr[pc->ev[i].ctr];
		if (busy && c->fresh)
			n3t_ctr_put(pc, c);
		c->fresh = false;
	}
	if (busy)
		n3t_stat_add(&pc->set_busy, 1);
}

/* Every metric of a hidden event undefined. */
static void n3t_drop_hidden(const struct n3t_model *model, struct n3t_result *r)
{
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	unsigned int m;

	for_each_set_bit(m, r->valid, model->nr_metrics) {
		bitmap_zero(ev, N3T_MAX_EVENTS);
		n3t_metric_events(model, m, ev);
		if (bitmap_intersects(ev, r->hidden, N3T_MAX_EVENTS))
			__clear_bit(m, r->valid);
	}
}

/*
 * A rotating set whose slice in the interval that ends was lost (a counter
 * not created, or one that did not count the whole slice: its lost count
 * moved since it was last published): its values, counts and age stay
 * those of its latest complete slice, as between its turns; only its lost
 * slices are published.  A set of every interval reads nan instead: it is
 * never older than an interval.  A set none of whose events is usable
 * loses nothing and is published as usual, every value nan.
 */
static bool n3t_set_kept(const struct n3t_cpu *pc, unsigned int s)
{
	return s >= pc->sch.nr_every && !pc->set[s].good_ns &&
	       pc->set[s].lost != pc->pub_set[s].lost;
}

/*
 * Turn the complete slices of the sets counted in the interval that ends
 * into metrics and publish them, with the interval's sequence number and
 * end; the other sets' values stay as their latest interval left them.
 */
static void n3t_end_interval(struct n3t_cpu *pc, u64 now)
{
	const struct n3t_plan *plan = pc->plan;
	struct n3t_result *r = &pc->scratch;
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	/* the events whose counts are measurements: usable, not hidden */
	DECLARE_BITMAP(live, N3T_MAX_EVENTS);
	/* the interval's sets: 0 .. nr_every - 1, and the rotating one's */
	unsigned int last = n3t_sched_interval_set(&pc->sch, pc->sch.nr_slots - 1);
	bool composed = !bitmap_empty(plan->composed, N3T_MAX_METRICS);
	unsigned int slot, s, i;

	r->seq = ++pc->seq;
	r->end_ns = now;
	r->interval_ns = now - pc->interval_start;
	r->nr_sets = pc->sch.nr_slots;
	/*
	 * Hidden as published: the events hidden now, and those a set's
	 * published counts took while hidden (a set of another interval's
	 * turn), until that set has been counted again
	 */
	for (slot = 0; slot < pc->sch.nr_slots; slot++) {
		s = n3t_sched_interval_set(&pc->sch, slot);
		if (!n3t_set_kept(pc, s))
			bitmap_and(pc->set[s].hidden, pc->hidden, plan->set[s].events,
				   N3T_MAX_EVENTS);
	}
	bitmap_copy(r->hidden, pc->hidden, N3T_MAX_EVENTS);
	for (s = 0; s < pc->sch.nr_sets; s++)
		bitmap_or(r->hidden, r->hidden, pc->set[s].hidden, N3T_MAX_EVENTS);
	bitmap_andnot(live, pc->dom->usable, r->hidden, N3T_MAX_EVENTS);
	for (slot = 0; slot < pc->sch.nr_slots; slot++) {
		struct n3t_cpu_set *cs;

		s = n3t_sched_interval_set(&pc->sch, slot);
		if (n3t_set_kept(pc, s))
			continue;
		cs = &pc->set[s];
		/* the composed metrics' input: the sampler's own copy (below) */
		if (composed) {
			pc->set_ns[s] = cs->good_ns;
			for (i = cs->first; i < cs->first + cs->nr; i++)
				pc->rate_delta[i] = pc->ev[i].acc;
		}
		bitmap_zero(counted, N3T_MAX_EVENTS);
		if (cs->good_ns) {
			for (i = cs->first; i < cs->first + cs->nr; i++) {
				pc->count_scratch[pc->ev[i].ev] = pc->ev[i].acc;
				/* a complete slice had every usable member */
				if (test_bit(pc->ev[i].ev, live))
					__set_bit(pc->ev[i].ev, counted);
			}
		}
		n3t_eval_set(plan, s, pc->count_scratch, counted, pc->dom->slots, r->value,
			     r->valid);
	}
	/* the events with a measurement: each set's latest interval's */
	bitmap_zero(r->counted, N3T_MAX_EVENTS);
	for (s = 0; s < pc->sch.nr_sets; s++) {
		bool in_turn = (s < pc->sch.nr_every || s == last) && !n3t_set_kept(pc, s);

		if (in_turn ? !pc->set[s].good_ns : !pc->pub_set[s].good_ns)
			continue;
		bitmap_and(counted, plan->set[s].events, live, N3T_MAX_EVENTS);
		bitmap_or(r->counted, r->counted, counted, N3T_MAX_EVENTS);
	}
	/*
	 * The composed metrics, from every set's latest rates as they are
	 * about to be published (the sampler's own copy: no perf call, and
	 * outside the readers' section)
	 */
	if (composed)
		n3t_eval_composed(plan, pc->rate_delta, pc->set_ns, live,
				  pc->dom->slots, pc->count_scratch, r->value, r->valid);
	/* a set not counted in this interval keeps values of a hidden event */
	if (!bitmap_empty(r->hidden, N3T_MAX_EVENTS))
		n3t_drop_hidden(pc->dom->model, r);

	preempt_disable();
	write_seqcount_begin(&pc->pub_lock);
	pc->pub = *r;
	for (slot = 0; slot < pc->sch.nr_slots; slot++) {
		struct n3t_cpu_set *cs = &pc->set[n3t_sched_interval_set(&pc->sch, slot)];
		struct n3t_pub_set *ps = &pc->pub_set[cs - pc->set];
		/* before ps->lost moves: n3t_set_kept() compares it */
		bool kept = n3t_set_kept(pc, cs - pc->set);

		ps->lost = cs->lost;
		if (kept)
			continue;
		ps->seq = r->seq;
		ps->end_ns = now;
		ps->interval_ns = r->interval_ns;
		ps->good_ns = cs->good_ns;
		for (i = cs->first; i < cs->first + cs->nr; i++)
			pc->pub_delta[i] = pc->ev[i].acc;
	}
	write_seqcount_end(&pc->pub_lock);
	preempt_enable();

	for (slot = 0; slot < pc->sch.nr_slots; slot++) {
		struct n3t_cpu_set *cs = &pc->set[n3t_sched_interval_set(&pc->sch, slot)];

		cs->good_ns = 0;
		for (i = cs->first; i < cs->first + cs->nr; i++)
			pc->ev[i].acc = 0;
	}
	pc->interval_start = now;
}

/*
 * An interval's end while stepped aside: published with nothing counted,
 * every set's values dropped (nan, age nan), so that nothing a reader sees
 * is older than the step aside.
 */
static void n3t_end_interval_aside(struct n3t_cpu *pc, u64 now)
{
	struct n3t_result *r = &pc->scratch;
	unsigned int s;

	r->seq = ++pc->seq;
	r->end_ns = now;
	r->interval_ns = now - pc->interval_start;
	r->nr_sets = 0;
	bitmap_zero(r->valid, N3T_MAX_METRICS);
	bitmap_zero(r->counted, N3T_MAX_EVENTS);
	bitmap_copy(r->hidden, pc->hidden, N3T_MAX_EVENTS);
	preempt_disable();
	write_seqcount_begin(&pc->pub_lock);
	pc->pub = *r;
	for (s = 0; s < pc->sch.nr_sets; s++) {
		struct n3t_pub_set *ps = &pc->pub_set[s];

		ps->seq = 0;
		ps->end_ns = 0;
		ps->interval_ns = 0;
		ps->good_ns = 0;
		ps->lost = pc->set[s].lost;
	}
	memset(pc->pub_delta, 0, pc->nr_ev * sizeof(*pc->pub_delta));
	write_seqcount_end(&pc->pub_lock);
	preempt_enable();
	memset(pc->set_ns, 0, pc->sch.nr_sets * sizeof(*pc->set_ns));
	memset(pc->rate_delta, 0, pc->nr_ev * sizeof(*pc->rate_delta));
	pc->interval_start = now;
}

/*
 * The programmable counters set @s needs on this CPU: its usable events,
 * less CPU_CYCLES where it has the cycle counter.
 */
static unsigned int n3t_set_need(const struct n3t_cpu *pc, unsigned int s)
{
	const struct n3t_plan *plan = pc->plan;
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);

	bitmap_and(ev, plan->set[s].events, pc->dom->usable, N3T_MAX_EVENTS);
	if (plan->cycle_counter)
		__clear_bit(plan->model->cycles, ev);
	return bitmap_weight(ev, N3T_MAX_EVENTS);
}

/*
 * The set a look tries: of the sets counted in every interval, the one
 * that needs the most programmable counters (if it fits, they all do; a
 * rotating set that does not fit when its slice starts only loses that
 * slice), or with none (every set rotates) the one that needs the fewest:
 * where it fits, some of the CPU's metrics can be counted.
 */
static unsigned int n3t_look_set(const struct n3t_cpu *pc)
{
	unsigned int s, w, best = 0, wb = n3t_set_need(pc, 0);

	for (s = 1; s < (pc->sch.nr_every ?: pc->sch.nr_sets); s++) {
		w = n3t_set_need(pc, s);
		if (pc->sch.nr_every ? w > wb : w < wb) {
			best = s;
			wb = w;
		}
	}
	return best;
}

/*
 * A look, stepped aside: the events of the set pc->look_set (the largest
 * of every interval's sets) are created enabled, then released.  They are
 * newer than every other user's, so perf schedules them after the others'
 * flexible events (and after every pinned one): they take only counters
 * nobody else wants.  If each counted, the CPU is back: it creates the
 * events of the sets of every interval, disabled, and the caller enables
 * the first slice's.  The other user lost nothing but a reschedule, and
 * perf's multiplexing timer, started by an event that found no counter,
 * expires once with nothing of the module's left to rotate.
 * Return: true if the CPU collects again.
 */
static bool n3t_look(struct n3t_cpu *pc)
{
	struct n3t_cpu_set *s0 = &pc->set[pc->look_set];
	struct n3t_cpu_ev *c;
	bool ok = true;
	unsigned int i;

	n3t_stat_add(&pc->looks, 1);
	/*
	 * one at a time, each read at once: a look that finds the counters
	 * taken usually stops at the first event, one creation and one
	 * release; the events created before are scheduled again at each
	 * creation, so they are read once more at the end
	 */
	for (i = s0->first; ok && i < s0->first + s0->nr; i++) {
		u64 d, de, dr;

		c = &pc->ctr[pc->ev[i].ctr];
		if (!test_bit(c->ev, pc->dom->usable) || c->pe)
			continue;
		ok = n3t_ctr_get(pc, c, true);
		if (ok) {
			n3t_read_ctr(pc, c, &d, &de, &dr);
			/*
			 * enabled and running alike, and enabled at all: a
			 * pinned event (pinned=1) that found no counter is in
			 * the error state, its times frozen at 0 (6.12)
			 */
			ok = n3t_ran_whole(de, dr);
		}
	}
	for (i = s0->first; ok && i < s0->first + s0->nr; i++) {
		u64 d, de, dr;

		c = &pc->ctr[pc->ev[i].ctr];
		if (!c->pe)
			continue;
		n3t_read_ctr(pc, c, &d, &de, &dr);
		ok = n3t_ran_whole(de, dr);
	}
	n3t_release_all(pc);
	/* the sets of every interval: off until their slices */
	for (i = 0; ok && i < pc->nr_ctr; i++) {
		c = &pc->ctr[i];
		if (c->held && test_bit(c->ev, pc->dom->usable))
			ok = n3t_ctr_get(pc, c, false);
	}
	if (!ok)
		n3t_release_all(pc);
	return ok;
}

/*
 * A pause lease (n3t_lease()) on the CPU: its counters go, as when it steps
 * aside, but it does not look until every lease of the CPU is given back.
 * @counting: a slice is under way (not at set-up, aside or resting)
 */
static void n3t_lend(struct n3t_cpu *pc, bool counting)
{
	if (counting)
		n3t_end_slice(pc, N3T_NO_SET, false);
	pc->resting = false;
	n3t_drop_all(pc);
	pc->lent = true;
	/* what is left of the interval is published with nothing counted */
	pc->sch.slot = pc->sch.nr_slots - 1;
	WRITE_ONCE(per_cpu(n3t_state, pc->cpu), N3T_CPU_PAUSED);
}

/*
 * A sampler run while stepped aside, at an interval's end: the interval is
 * published with nothing counted; every aside_wait intervals, a look (at
 * once when a pause lease has just been given back), none while lent.
 * Back, the CPU starts a new interval with its first set.
 */
static void n3t_aside_work(struct n3t_cpu *pc, unsigned int pct)
{
	pc->epoch += n3t_interval_jiffies(pc, pct);
	n3t_end_interval_aside(pc, ktime_get_ns());
	if (pc->lent) {
		pc->lent = false;
		pc->aside_wait = 1;
		pc->aside_backoff = 1;
		WRITE_ONCE(per_cpu(n3t_state, pc->cpu), N3T_CPU_ASIDE);
	}
	if (--pc->aside_wait)
		return;
	if (!n3t_look(pc)) {
		/* still taken: look less often, every 2, then 4 intervals */
		pc->aside_backoff = min(pc->aside_backoff * 2, N3T_ASIDE_WAIT_MAX);
		pc->aside_wait = pc->aside_backoff;
		return;
	}
	pc->aside = false;
	pc->resumed = true;
	n3t_sched_resume(&pc->sch);
	pc->active = n3t_sched_first(&pc->sch);
	pc->epoch = jiffies;
	pc->interval_start = ktime_get_ns();
	WRITE_ONCE(per_cpu(n3t_state, pc->cpu), N3T_CPU_COLLECTING);
	n3t_enable_set(pc);
}

/*
 * The CPU has become isolated (a cpuset isolated partition): the sampler,
 * running there for the last time, releases every counter, publishes an
 * interval with nothing counted and does not queue itself again.  The
 * state stays published, retired, until the isolation check (on a
 * housekeeping CPU) or a teardown frees it without running anything on the
 * CPU.  The check is queued without a timer, which would fire here.
 */
static void n3t_retire(struct n3t_cpu *pc)
{
	if (!pc->aside && !pc->resting)
		n3t_end_slice(pc, N3T_NO_SET, false);
	n3t_release_all(pc);
	n3t_end_interval_aside(pc, ktime_get_ns());
	/* read by n3t_lease() on another CPU */
	WRITE_ONCE(pc->retired, true);
	WRITE_ONCE(per_cpu(n3t_state, pc->cpu), N3T_CPU_ISOLATED);
	queue_delayed_work(system_unbound_wq, &n3t_isol_work, 0);
}

/*
 * The sampler: runs on pc->cpu at each slice end.  No IPI, no global lock:
 * only this CPU's events and this CPU's structure.  Its one allocation is
 * a rotating set's counters, created at the start of the set's slice (a
 * failure loses that slice, nothing else).
 *
 * An interval of the sets counted in every interval alone (nr_every 1: the
 * first group's set) ends without a switch: the set stays enabled across
 * the boundary and is read enabled.  With yield_pct, the end of an
 * interval's last slice switches every counter off (the ones the next
 * slice's set shares too) and publishes the interval; the CPU then rests,
 * holding no counter, until the next interval's epoch, when the first
 * slice's set is enabled.  The rest is no set's time: no slice, no count,
 * no counting time.  Stepped aside, the sampler runs once an interval
 * (n3t_aside_work()).
 */
static void n3t_slice_work(struct work_struct *work)
{
	struct n3t_cpu *pc = container_of(to_delayed_work(work), struct n3t_cpu, work);
	unsigned int pct = READ_ONCE(n3t_cfg.yield_pct);
	struct n3t_sched_step st;
	u64 t0 = local_clock(), cost;
	bool rest = false, aside;

	if (unlikely(!n3t_cpu_wanted(pc->cpu))) {
		n3t_retire(pc);
		goto account;
	}
	if (unlikely(atomic_read(per_cpu_ptr(&n3t_leases, pc->cpu)))) {
		if (!pc->lent) {
			n3t_lend(pc, !pc->aside && !pc->resting);
		} else {
			pc->epoch += n3t_interval_jiffies(pc, pct);
			n3t_end_interval_aside(pc, ktime_get_ns());
		}
		goto queue;
	}
	if (pc->aside) {
		n3t_aside_work(pc, pct);
		goto queue;
	}
	if (pc->resting) {
		/* the rest ends: the interval's first slice begins */
		pc->resting = false;
		n3t_enable_set(pc);
		goto queue;
	}
	n3t_sched_next(&pc->sch, &st);
	rest = st.new_interval && pct;
	aside = n3t_end_slice(pc, rest ? N3T_NO_SET : st.set, true);
	n3t_test_delay(N3T_HOOK_SWITCH);
	if (st.new_interval) {
		pc->epoch += n3t_interval_jiffies(pc, pct);
		/*
		 * No rest, but the last slice ended where a rest was planned
		 * (yield_pct lowered to 0 during it): the new interval starts
		 * now, not when that rest would have ended
		 */
		if (!rest && time_after(pc->epoch, jiffies))
			pc->epoch = jiffies;
		if (aside)
			n3t_end_interval_aside(pc, ktime_get_ns());
		else
			n3t_end_interval(pc, ktime_get_ns());
		pc->resumed = false;
	}
	n3t_sched_commit(&pc->sch, &st);
	if (aside) {
		/* nothing counts: the next run ends the interval */
		pc->sch.slot = pc->sch.nr_slots - 1;
		goto queue;
	}
	pc->active = st.set;
	if (rest) {
		pc->resting = true;
		n3t_stat_add(&pc->rests, 1);
	} else {
		n3t_enable_set(pc);
	}
queue:
	if (!n3t_manual_mode())
		queue_delayed_work_on(pc->cpu, n3t_wq, &pc->work, n3t_slice_delay(pc, pct));
account:
	cost = local_clock() - t0;
	n3t_stat_add(&pc->slices, 1);
	n3t_stat_add(&pc->cost_ns, cost);
	if (cost > pc->cost_max_ns)
		WRITE_ONCE(pc->cost_max_ns, cost);
}

/*
 * One allocation for everything a CPU needs, sized by the plan.  Global
 * and not inlined, so that fault injection can fail it (fail_function).
 */
noinline struct n3t_cpu *n3t_cpu_alloc(const struct n3t_core_type *dom)
{
	const struct n3t_plan *plan = dom->plan;
	unsigned int nr_sets = plan->nr_sets, nr_ev = n3t_plan_nr_events(plan);
	unsigned int nr_ctr, s;
	size_t sz = sizeof(struct n3t_cpu);
	struct n3t_cpu *pc;
	size_t off_set, off_ev, off_ctr, off_pub_set, off_delta, off_set_ns, off_rate;
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);

	bitmap_zero(all, N3T_MAX_EVENTS);
	for (s = 0; s < nr_sets; s++)
		bitmap_or(all, all, plan->set[s].events, N3T_MAX_EVENTS);
	nr_ctr = bitmap_weight(all, N3T_MAX_EVENTS);

	off_set = sz;
	sz += ALIGN(array_size(nr_sets, sizeof(struct n3t_cpu_set)), 8);
	off_ev = sz;
	sz += ALIGN(array_size(nr_ev, sizeof(struct n3t_cpu_member)), 8);
	off_ctr = sz;
	sz += ALIGN(array_size(nr_ctr, sizeof(struct n3t_cpu_ev)), 8);
	off_pub_set = sz;
	sz += ALIGN(array_size(nr_sets, sizeof(struct n3t_pub_set)), 8);
	off_delta = sz;
	sz += array_size(nr_ev, sizeof(u64));
	off_set_ns = sz;
	sz += array_size(nr_sets, sizeof(u64));
	off_rate = sz;
	sz += array_size(nr_ev, sizeof(u64));

	pc = kvzalloc(sz, GFP_KERNEL);
	if (!pc)
		return NULL;
	pc->dom = dom;
	pc->plan = plan;
	pc->aside_backoff = 1;
	pc->nr_ev = nr_ev;
	pc->nr_ctr = nr_ctr;
	pc->set = (void *)pc + off_set;
	pc->ev = (void *)pc + off_ev;
	pc->ctr = (void *)pc + off_ctr;
	pc->pub_set = (void *)pc + off_pub_set;
	pc->pub_delta = (void *)pc + off_delta;
	pc->set_ns = (void *)pc + off_set_ns;
	pc->rate_delta = (void *)pc + off_rate;
	return pc;
}
ALLOW_ERROR_INJECTION(n3t_cpu_alloc, NULL);

/*
 * One counter per distinct event of the sets, and the sets' members
 * pointing at them; the events of the sets counted in every interval are
 * created now, disabled (held), a rotating set's at its slices.  On
 * failure the caller releases them.
 */
static int n3t_cpu_create_events(struct n3t_cpu *pc)
{
	const struct n3t_plan *plan = pc->plan;
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);
	DECLARE_BITMAP(held, N3T_MAX_EVENTS);
	u8 ctr[N3T_MAX_EVENTS];
	unsigned int s, e, i = 0, k = 0;

	bitmap_zero(all, N3T_MAX_EVENTS);
	bitmap_zero(held, N3T_MAX_EVENTS);
	for (s = 0; s < plan->nr_sets; s++) {
		bitmap_or(all, all, plan->set[s].events, N3T_MAX_EVENTS);
		if (s < pc->sch.nr_every || n3t_hold_all())
			bitmap_or(held, held, plan->set[s].events, N3T_MAX_EVENTS);
	}
	for_each_set_bit(e, all, N3T_MAX_EVENTS) {
		struct n3t_cpu_ev *c = &pc->ctr[k];

		c->ev = e;
		c->held = test_bit(e, held);
		if (c->held && test_bit(e, pc->dom->usable) && !n3t_ctr_get(pc, c, false))
			return -ENOMEM;
		ctr[e] = k++;
	}
	for (s = 0; s < plan->nr_sets; s++) {
		struct n3t_cpu_set *cs = &pc->set[s];

		cs->first = i;
		for_each_set_bit(e, plan->set[s].events, N3T_MAX_EVENTS) {
			pc->ev[i].ev = e;
			pc->ev[i++].ctr = ctr[e];
		}
		cs->nr = i - cs->first;
	}
	return 0;
}

/* Say once per start that a CPU is left out; the status files say which. */
static void n3t_cpu_left_out(unsigned int cpu, enum n3t_cpu_state state, int err)
{
	WRITE_ONCE(per_cpu(n3t_state, cpu), state);
	if (!atomic_xchg(&n3t_cpu_warned, 1))
		pr_warn("cpu%u: not collecting (%s, error %d); the CPU is online regardless, see cpu%u/status (further such CPUs are not logged)\n",
			cpu, n3t_cpu_state_name(state), err, cpu);
}

/*
 * Set up a CPU: its hotplug online callback, or n3t_start() through work on
 * the CPU.  Never fails: a CPU must come online whatever happens to its
 * telemetry.  An isolated CPU is only marked so.
 */
static int n3t_cpu_online(unsigned int cpu)
{
	struct n3t_core_type *d;
	struct n3t_cpu *pc;
	int ret;

	if (!n3t_cpu_wanted(cpu)) {
		WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_ISOLATED);
		/* no timer here: the check runs on a housekeeping CPU */
		if (!n3t_cpu_isolation_fixed(cpu))
			queue_delayed_work(system_unbound_wq, &n3t_isol_work, 0);
		return 0;
	}
	/* pairs with n3t_start(): the plans it swapped in are visible */
	if (!smp_load_acquire(&n3t_running))
		return 0;	/* stopped or paused: n3t_start() sets it up later */
	d = n3t_cpu_identify();
	if (!d) {
		n3t_cpu_left_out(cpu, N3T_CPU_UNSUPPORTED, -ENODEV);
		return 0;
	}
	if (!d->plan->nr_sets) {	/* its core type had no CPU to probe */
		n3t_cpu_left_out(cpu, N3T_CPU_NO_COUNTERS, -ENODEV);
		return 0;
	}
	pc = n3t_cpu_alloc(d);
	if (!pc) {
		n3t_cpu_left_out(cpu, N3T_CPU_NO_MEMORY, -ENOMEM);
		return 0;
	}
	pc->cpu = cpu;
	/* only the teardown callbacks, serialised with this one, write them */
	pc->seq = per_cpu_ptr(n3t_base, cpu)->seq;
	/*
	 * a rotating slice every @every intervals, so that each set is
	 * counted within N3T_FRESH_MS; the rotation goes on where the CPU's
	 * last state left it.  The packer's plans always fit a schedule
	 * (1 .. N3T_MAX_SETS sets, nr_every at most nr_sets; a plan with no
	 * set for its first group rotates them all): this is a guard.
	 */
	ret = n3t_sched_init(&pc->sch, d->plan->nr_sets,
			     READ_ONCE(n3t_cfg.schedule) == N3T_SCHED_ALL ?
			     d->plan->nr_sets : d->plan->nr_every,
			     READ_ONCE(n3t_cfg.interval_ms), n3t_every_override(),
			     per_cpu_ptr(n3t_base, cpu)->turn);
	if (WARN_ON_ONCE(ret)) {
		kvfree(pc);
		n3t_cpu_left_out(cpu, N3T_CPU_NO_COUNTERS, ret);
		return 0;
	}
	pc->active = n3t_sched_first(&pc->sch);
	pc->look_set = n3t_look_set(pc);
	seqcount_init(&pc->pub_lock);
	/*
	 * Not deferrable: an idle CPU would keep its set's counters from a
	 * CPU-wide perf user that came meanwhile until it woke for something
	 * else, and only then step aside.
	 */
	INIT_DELAYED_WORK(&pc->work, n3t_slice_work);
	ret = n3t_cpu_create_events(pc);
	if (ret) {
		n3t_release_all(pc);
		kvfree(pc);
		n3t_cpu_left_out(cpu, N3T_CPU_NO_COUNTERS, ret);
		return 0;
	}
	pc->interval_start = ktime_get_ns();
	pc->epoch = jiffies;
	rcu_assign_pointer(per_cpu(n3t_pcpu, cpu), pc);
	WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_COLLECTING);
	if (atomic_read(per_cpu_ptr(&n3t_leases, cpu)))
		n3t_lend(pc, false);
	else
		n3t_enable_set(pc);
	if (!n3t_manual_mode())
		queue_delayed_work_on(cpu, n3t_wq, &pc->work,
				      n3t_slice_delay(pc, READ_ONCE(n3t_cfg.yield_pct)));
	return 0;
}

/*
 * The CPU's state, its sampler stopped and its counters released: what it
 * counted goes to the CPU's base as it is unpublished, and it is freed
 * after a grace period.  Touches no counter: callable from any CPU.
 */
static void n3t_cpu_free(unsigned int cpu, struct n3t_cpu *pc)
{
	struct n3t_base *b = per_cpu_ptr(n3t_base, cpu);
	unsigned int e;

	write_seqlock(&b->lock);
	RCU_INIT_POINTER(per_cpu(n3t_pcpu, cpu), NULL);
	b->seq = pc->seq;
	/*
	 * the next state goes on with the set whose turn the interval under
	 * way was; resting, the next interval's (its predecessor is published)
	 */
	b->turn = pc->sch.turn;
	b->lost += pc->scratch.lost;
	for (e = 0; e < N3T_MAX_EVENTS; e++) {
		b->ev_count[e] += pc->scratch.ev_count[e];
		b->ev_ns[e] += pc->scratch.ev_ns[e];
		b->ev_slice[e] += pc->scratch.ev_slice[e];
		b->ev_slice_ns[e] += pc->scratch.ev_slice_ns[e];
	}
	b->slices_ns += pc->scratch.slices_ns;
	write_sequnlock(&b->lock);
	/* the one place a reader-reachable structure is freed */
	kvfree_rcu(pc, rcu);
}

/*
 * Teardown: a real CPU offline, and every CPU's when collection stops
 * (pause, reconfiguration, unload).  The sampler is stopped, the running
 * slice ended and the counters released, so that everything they counted
 * is in pc->scratch; it goes to the CPU's base in the same write section that
 * unpublishes pc: a reader retries and sees it once, never twice or not at
 * all, and the counts never go down.
 */
static int n3t_cpu_offline(unsigned int cpu)
{
	struct n3t_cpu *pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu), true);

	/* stopped first: a sampler run would write its own state after ours */
	if (pc)
		cancel_delayed_work_sync(&pc->work);
	WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_OFFLINE);
	if (!pc)
		return 0;
	/*
	 * resting, aside or retired, every counter is off and what they
	 * counted folded in
	 */
	if (!pc->resting && !pc->aside && !pc->retired)
		n3t_end_slice(pc, N3T_NO_SET, false);
	n3t_release_all(pc);
	n3t_cpu_free(cpu, pc);
	return 0;
}

/* n3t_read_cpu() clears what comes before the cumulative counts */
static_assert(offsetof(struct n3t_result, ev_ns) ==
	      offsetofend(struct n3t_result, ev_count));
static_assert(offsetof(struct n3t_result, ev_slice) ==
	      offsetofend(struct n3t_result, ev_ns));
static_assert(offsetof(struct n3t_result, ev_slice_ns) ==
	      offsetofend(struct n3t_result, ev_slice));
static_assert(offsetof(struct n3t_result, slices_ns) ==
	      offsetofend(struct n3t_result, ev_slice_ns));
static_assert(offsetofend(struct n3t_result, slices_ns) == sizeof(struct n3t_result));

/**
 * n3t_read_cpu() - copy a CPU's latest published interval
 * @cpu: the CPU
 * @plan: if not NULL, the plan the CPU must collect with
 * @res: where to copy the result
 * @sets: if not NULL, where to copy @plan->nr_sets per-set entries
 * @delta: if not NULL, where to copy n3t_plan_nr_events(@plan) counts (set
 *	after set, each set's events in ascending event index order)
 *
 * Lockless against the sampler (seqcount retry loop, never blocks it).  The
 * caller holds n3t_cfg.lock, so plans do not change under it; @sets and
 * @delta need @plan.  The cumulative counts (@res->ev_count, @res->ev_ns,
 * @res->ev_slice, @res->ev_slice_ns, @res->slices_ns, @res->lost) are always filled,
 * collecting or not: since load.
 * Return: false if the CPU is not collecting (with @plan); then @res has
 * only the cumulative counts.
 */
bool n3t_read_cpu(unsigned int cpu, const struct n3t_plan *plan, struct n3t_result *res,
		  struct n3t_pub_set *sets, u64 *delta)
{
	struct n3t_base *b = per_cpu_ptr(n3t_base, cpu);
	unsigned int seq, bseq, e;
	struct n3t_cpu *pc;
	bool ok;

	if (WARN_ON_ONCE(!plan && (sets || delta)))
		return false;
	do {
		bseq = read_seqbegin(&b->lock);
		ok = false;
		rcu_read_lock();
		pc = rcu_dereference(per_cpu(n3t_pcpu, cpu));
		n3t_test_delay(N3T_HOOK_READ);
		if (pc) {
			ok = !plan || pc->plan == plan;
			do {
				seq = read_seqcount_begin(&pc->pub_lock);
				*res = pc->pub;
				if (ok && sets)
					memcpy(sets, pc->pub_set, pc->sch.nr_sets * sizeof(*sets));
				if (ok && delta)
					memcpy(delta, pc->pub_delta, pc->nr_ev * sizeof(*delta));
			} while (read_seqcount_retry(&pc->pub_lock, seq));
		}
		rcu_read_unlock();
		if (!ok) {
			/* not collecting (with @plan): only the counts below */
			if (pc)
				memset(res, 0, offsetof(struct n3t_result, ev_count));
			else
				memset(res, 0, sizeof(*res));
		}
		/*
		 * In b->lock's read section: n3t_cpu_free() may write them
		 * meanwhile, and then the read is retried, a race the seqlock
		 * expects.  data_race(): KCSAN, which knows seqlock readers,
		 * takes the section as ended at the nested seqcount's retry.
		 */
		res->lost += data_race(b->lost);	/* as said above */
		res->slices_ns += data_race(b->slices_ns);	/* likewise */
		for (e = 0; e < N3T_MAX_EVENTS; e++) {
			res->ev_count[e] += data_race(b->ev_count[e]);	/* likewise */
			res->ev_ns[e] += data_race(b->ev_ns[e]);	/* likewise */
			res->ev_slice[e] += data_race(b->ev_slice[e]);	/* likewise */
			res->ev_slice_ns[e] += data_race(b->ev_slice_ns[e]);	/* likewise */
		}
	} while (read_seqretry(&b->lock, bseq));
	return ok;
}

/**
 * n3t_cpu_seq() - the last interval sequence number a CPU published
 * @cpu: any possible CPU, online or not
 *
 * Its collection state's latest, or, before that state has published or
 * when the CPU has none (offline, paused, not collecting), the last its
 * earlier states published (struct n3t_base): so it never decreases while
 * the module is loaded, across pauses, restarts and CPU hotplug.  Lockless,
 * as n3t_read_cpu().
 * Return: the sequence number, 0 if the CPU has published no interval.
 */
u64 n3t_cpu_seq(unsigned int cpu)
{
	struct n3t_base *b = per_cpu_ptr(n3t_base, cpu);
	unsigned int seq, bseq;
	struct n3t_cpu *pc;
	u64 last, pub;

	do {
		bseq = read_seqbegin(&b->lock);
		last = b->seq;
		rcu_read_lock();
		pc = rcu_dereference(per_cpu(n3t_pcpu, cpu));
		if (pc) {
			do {
				seq = read_seqcount_begin(&pc->pub_lock);
				pub = pc->pub.seq;
			} while (read_seqcount_retry(&pc->pub_lock, seq));
			last = max(last, pub);
		}
		rcu_read_unlock();
	} while (read_seqretry(&b->lock, bseq));
	return last;
}

/**
 * n3t_group_age() - which interval a group's values come from
 * @plan: the plan @sets were published with
 * @sets: @plan->nr_sets per-set entries (n3t_read_cpu())
 * @group: the group (a selected one of @plan)
 * @seq: its values' interval sequence number: the oldest of its sets'
 *	(0 if one of them was not counted yet, or none is scheduled)
 * @end_ns: the end of that interval (0 with @seq 0)
 */
void n3t_group_age(const struct n3t_plan *plan, const struct n3t_pub_set *sets,
		   unsigned int group, u64 *seq, u64 *end_ns)
{
	const struct n3t_group_desc *g = &plan->model->groups[group];
	const struct n3t_pub_set *oldest = NULL;
	DECLARE_BITMAP(used, N3T_MAX_SETS);
	unsigned int i, s;

	bitmap_zero(used, N3T_MAX_SETS);
	for (i = 0; i < g->nr; i++)
		n3t_metric_sets(plan, g->metrics[i], used);
	for_each_set_bit(s, used, N3T_MAX_SETS) {
		if (!oldest || sets[s].seq < oldest->seq ||
		    (sets[s].seq == oldest->seq && sets[s].end_ns < oldest->end_ns))
			oldest = &sets[s];
	}
	*seq = oldest && oldest->seq ? oldest->seq : 0;
	*end_ns = *seq ? oldest->end_ns : 0;
}

static long n3t_cpu_up_fn(void *cpu)
{
	return n3t_cpu_online((unsigned long)cpu);
}

static long n3t_cpu_down_fn(void *cpu)
{
	return n3t_cpu_offline((unsigned long)cpu);
}

/*
 * Start collecting, with n3t_cfg.reconf held: each online CPU it collects on
 * is set up by work on that CPU, one CPU at a time, each within its own
 * cpus_read_lock() section (a CPU coming online meanwhile is set up by its
 * online callback).  An isolated CPU is not touched: no work, no event, no
 * function call; only its state is written.  A CPU that cannot be set up is
 * left out (its state says why).
 * @quiet: a CPU left out is not logged (the caller says what failed)
 */
void n3t_start(bool quiet)
{
	unsigned int cpu;

	lockdep_assert_held(&n3t_cfg.reconf);
	atomic_set(&n3t_cpu_warned, quiet);
	/* the plans and capacities written before, for the online callback */
	smp_store_release(&n3t_running, true);
	for_each_possible_cpu(cpu) {
		/* an offline CPU is set up by its online callback */
		cpus_read_lock();
		if (cpu_online(cpu) && !n3t_cpu_wanted(cpu))
			WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_ISOLATED);
		else if (cpu_online(cpu) && !rcu_access_pointer(per_cpu(n3t_pcpu, cpu)))
			work_on_cpu(cpu, n3t_cpu_up_fn, (void *)(unsigned long)cpu);
		cpus_read_unlock();
		cond_resched();
	}
	/* the CPUs isolated now, in case that changes */
	queue_delayed_work(system_unbound_wq, &n3t_isol_work, 0);
}

/*
 * Stop collecting, with n3t_cfg.reconf held: every CPU that collects is torn
 * down by work on that CPU, one CPU at a time; the others' states are only
 * written (a CPU left out ends "stopped", an isolated one stays isolated).
 */
void n3t_stop(void)
{
	unsigned int cpu;

	lockdep_assert_held(&n3t_cfg.reconf);
	WRITE_ONCE(n3t_running, false);
	for_each_possible_cpu(cpu) {
		struct n3t_cpu *pc;

		cpus_read_lock();
		/* stable: hotplug is held off, and the isolation check needs reconf */
		pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu), true);
		/* a CPU that became isolated is not run on: its state is freed here */
		if (pc)
			cancel_delayed_work_sync(&pc->work);
		if (pc && pc->retired)
			n3t_cpu_free(cpu, pc);
		else if (pc)
			work_on_cpu(cpu, n3t_cpu_down_fn, (void *)(unsigned long)cpu);
		else if (READ_ONCE(per_cpu(n3t_state, cpu)) != N3T_CPU_ISOLATED)
			WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_OFFLINE);
		cpus_read_unlock();
		cond_resched();
	}
}

/**
 * n3t_lease() - take or give back a pause lease (N3T_IOC_PAUSE)
 * @cpus: the CPUs it names
 * @take: take it (true) or give it back
 *
 * While a CPU has a lease, its sampler holds no counter and publishes
 * intervals with nothing counted (its state: paused).  A lease taken is in
 * force when this returns: each CPU's sampler has run and released its
 * counters (in a test build's manual mode, at the next advance).  One given
 * back makes each of its CPUs look at once whether its first set fits.
 * Sleeps: takes n3t_cfg.reconf.
 */
void n3t_lease(const struct cpumask *cpus, bool take)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpus) {
		if (take)
			atomic_inc(per_cpu_ptr(&n3t_leases, cpu));
		else
			atomic_dec(per_cpu_ptr(&n3t_leases, cpu));
	}
	if (n3t_manual_mode())
		return;
	mutex_lock(&n3t_cfg.reconf);
	cpus_read_lock();
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		struct n3t_cpu *pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu),
							       lockdep_is_held(&n3t_cfg.reconf));

		/* the sampler queues itself again: it runs now, then on time */
		if (!pc || READ_ONCE(pc->retired))
			continue;
		mod_delayed_work_on(cpu, n3t_wq, &pc->work, 0);
		if (take)
			flush_delayed_work(&pc->work);
	}
	cpus_read_unlock();
	mutex_unlock(&n3t_cfg.reconf);
}

/**
 * n3t_cpu_leased() - whether a pause lease is in force on a CPU
 * @cpu: a possible CPU
 *
 * Its PMU is lent to whoever holds the lease: what is free there says
 * nothing of what the module will find when the lease is given back (the
 * CPU then looks whether its sets fit, as after a step aside).
 * Return: true while a lease names @cpu.
 */
bool n3t_cpu_leased(unsigned int cpu)
{
	return atomic_read(per_cpu_ptr(&n3t_leases, cpu));
}

/*
 * The isolation check, on a housekeeping CPU (system_unbound_wq), with
 * nothing queued on the CPUs it is about: a CPU left alone because it was
 * isolated (state isolated, retired or never set up) whose isolation can
 * change (a cpuset partition, n3t_cpu_isolation_fixed()) and that is no
 * longer isolated is set up again.  Queued by whatever finds a CPU
 * isolated (the sampler retiring, the online callback, n3t_start()); runs
 * again every interval (100 ms at least) while such a CPU is still
 * isolated, never otherwise.  It needs n3t_cfg.reconf and only tries it:
 * holding it, n3t_stop() and n3t_start() never wait for this work.
 */
static void n3t_isol_fn(struct work_struct *work)
{
	bool again = false;
	unsigned int cpu;

	if (!mutex_trylock(&n3t_cfg.reconf)) {
		again = true;
		goto out;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct n3t_cpu *pc;

		if (!n3t_running || READ_ONCE(per_cpu(n3t_state, cpu)) != N3T_CPU_ISOLATED ||
		    n3t_cpu_isolation_fixed(cpu))
			continue;
		if (!n3t_cpu_wanted(cpu)) {
			again = true;
			continue;
		}
		pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu),
					       lockdep_is_held(&n3t_cfg.reconf));
		if (pc) {
			cancel_delayed_work_sync(&pc->work);
			n3t_cpu_free(cpu, pc);
		}
		work_on_cpu(cpu, n3t_cpu_up_fn, (void *)(unsigned long)cpu);
	}
	cpus_read_unlock();
	mutex_unlock(&n3t_cfg.reconf);
out:
	if (again && !READ_ONCE(n3t_cfg.exiting))
		queue_delayed_work(system_unbound_wq, &n3t_isol_work,
				   msecs_to_jiffies(max(READ_ONCE(n3t_cfg.interval_ms), 100U)));
}

/**
 * n3t_read_cost() - what a CPU's sampler has cost so far
 * @cpu: the CPU
 * @cost: where to copy it
 * Return: false if the CPU is not collecting (then @cost is untouched).
 */
bool n3t_read_cost(unsigned int cpu, struct n3t_cost *cost)
{
	struct n3t_cpu *pc;

	rcu_read_lock();
	pc = rcu_dereference(per_cpu(n3t_pcpu, cpu));
	if (pc) {
		/* each whole, not consistent with one another (n3t_stat_add()) */
		cost->slices = READ_ONCE(pc->slices);
		cost->total_ns = READ_ONCE(pc->cost_ns);
		cost->max_ns = READ_ONCE(pc->cost_max_ns);
		cost->looks = READ_ONCE(pc->looks);
		cost->rests = READ_ONCE(pc->rests);
		cost->asides = READ_ONCE(pc->asides);
		cost->create_failed = READ_ONCE(pc->create_failed);
		cost->set_busy = READ_ONCE(pc->set_busy);
	}
	rcu_read_unlock();
	return pc;
}

#ifdef N3T_TEST_HOOKS
/**
 * n3t_advance_set() - test builds: end the running slice now (debugfs advance)
 * @data: unused
 * @val: the CPU, or U64_MAX for every CPU
 * Return: 0.
 */
int n3t_advance_set(void *data, u64 val)
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

#endif

/**
 * n3t_sampler_init() - the per-CPU bases, the workqueue, the hotplug state
 *
 * Collection is not started: n3t_start() sets up the online CPUs.
 * Return: 0 or a negative errno.
 */
int n3t_sampler_init(void)
{
	unsigned int cpu;
	int ret;

	n3t_base = alloc_percpu(struct n3t_base);
	if (!n3t_base)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		seqlock_init(&per_cpu_ptr(n3t_base, cpu)->lock);
	INIT_DELAYED_WORK(&n3t_isol_work, n3t_isol_fn);
	n3t_wq = alloc_workqueue("n3telemetry", WQ_FREEZABLE | N3T_WQ_PERCPU, 0);
	if (!n3t_wq) {
		free_percpu(n3t_base);
		return -ENOMEM;
	}
	/* once: no callback runs now, n3t_start() sets up the online CPUs */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "n3telemetry:online",
					n3t_cpu_online, n3t_cpu_offline);
	if (ret < 0) {
		destroy_workqueue(n3t_wq);
		free_percpu(n3t_base);
		return ret;
	}
	n3t_hp_state = ret;
	return 0;
}

/**
 * n3t_sampler_exit() - undo n3t_sampler_init(), collection stopped for good
 *
 * The caller has stopped collection (n3t_stop()) with n3t_cfg.exiting set,
 * and the readers (sysfs, snapshot, debugfs) are gone.
 */
void n3t_sampler_exit(void)
{
	/* stopped: a CPU coming online meanwhile was not set up, none will be */
	cpuhp_remove_state_nocalls(n3t_hp_state);
	/* exiting is set: it does not queue itself again */
	cancel_delayed_work_sync(&n3t_isol_work);
	destroy_workqueue(n3t_wq);
	/* sysfs and the snapshot device, its readers, are gone */
	free_percpu(n3t_base);
}
