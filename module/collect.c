// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry sampler: per-CPU kernel counters (flexible, or pinned with
 * pinned=1), one event set counting at a time, switched by a CPU-bound
 * deferrable work item on a schedule (enum n3t_schedule: by default the
 * first group's sets every interval and the others in turn), each interval
 * ending with a rest holding no counter (yield_pct); the CPU hotplug
 * callbacks; publication of each set's latest interval, and the
 * narrow read API over it (n3t_read_cpu(), n3t_group_age(), n3t_cpu_state(),
 * n3t_read_cost()).  When a set stays starved for counters, or a look finds
 * the counters of load free again, it asks control.c to re-pack by queueing
 * n3t_repack_work.
 *
 * perf_event_create_kernel_counter() cannot create groups, so the module
 * itself guarantees co-scheduling: every event of every set is created
 * disabled, on each CPU exactly one set is enabled at a time, and a slice
 * in which any member did not count the whole time is discarded.
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
/* enum n3t_cpu_state, written by the hotplug callbacks */
static DEFINE_PER_CPU(int, n3t_state);
/* the hotplug state, registered once at load, removed once at unload */
static enum cpuhp_state n3t_hp_state;
/* collection runs: a CPU coming online is set up (written under n3t_cfg.reconf) */
static bool n3t_running;
struct workqueue_struct *n3t_wq;
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
/* Re-pack after a set never counted in this many of its intervals in a row. */
#define N3T_REPACK_AFTER	3
/* while reduced, a CPU looks every N3T_LOOK_EVERY intervals (n3t_look()) */
#define N3T_LOOK_EVERY		4
/* n3t_end_slice(): no set counts next, every counter goes off */
#define N3T_NO_SET		UINT_MAX
/* the re-pack request: its function is control.c's n3t_repack_fn() */
struct work_struct n3t_repack_work;
/* set when a re-pack did not help; cleared by the next reconfiguration */
bool n3t_repack_off;
/* no look queues a re-pack before this (jiffies): set after a vain step up */
unsigned long n3t_look_after;
/* a look saw the load-time counters free: the queued re-pack steps up */
bool n3t_repack_up;
/* collection starts so far (under reconf), and the one a request came from */
unsigned int n3t_gen;
unsigned int n3t_repack_gen;
unsigned int n3t_repack_up_gen;
/* the first CPU that could not be set up since the last start is logged */
atomic_t n3t_cpu_warned;

static const char * const n3t_state_names[N3T_NR_CPU_STATES] = {
	[N3T_CPU_OFFLINE] = "stopped",
	[N3T_CPU_COLLECTING] = "collecting",
	[N3T_CPU_ISOLATED] = "isolated",
	[N3T_CPU_NO_MEMORY] = "failed-no-memory",
	[N3T_CPU_NO_COUNTERS] = "failed-no-counters",
	[N3T_CPU_UNSUPPORTED] = "unsupported-core",
	[N3T_CPU_PAUSED] = "paused",
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
noinline struct perf_event *n3t_create(unsigned int cpu, unsigned int code)
{
	struct perf_event_attr attr = {
		.type = n3t_cfg.pmu_type,
		.size = sizeof(attr),
		.config = code,
		.pinned = n3t_pinned,
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}
ALLOW_ERROR_INJECTION(n3t_create, ERRNO);

/* The interval in jiffies: at least a jiffy per slice, and one for a rest. */
static unsigned long n3t_interval_jiffies(const struct n3t_cpu *pc, unsigned int pct)
{
	return max_t(unsigned long, msecs_to_jiffies(n3t_cfg.interval_ms), pc->nr_slots + !!pct);
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
		       1, ivl - pc->nr_slots);
}

/*
 * Slices end on a schedule of absolute deadlines: of an interval that
 * started at pc->epoch, with a rest of r jiffies (yield_pct) at its end,
 * slice k ends at epoch + (k + 1) * (interval - r) / nr_slots and the rest
 * at epoch + interval, which is the next interval's epoch (in jiffies).  So
 * the time the sampler itself takes, or a late timer, does not stretch the
 * interval: it lasts the interval, within a jiffy.  A CPU whose deferrable
 * timer slept through more than a whole interval (idle) starts a new
 * schedule instead of catching up with slices of no length.
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
		start = pc->slot * work / pc->nr_slots;
		end = (pc->slot + 1) * work / pc->nr_slots;
	}
	if (time_after(now, pc->epoch + end + ivl))
		pc->epoch = now - start;
	end += pc->epoch;
	return time_after(end, now) ? end - now : 1;
}

/*
 * The schedule (enum n3t_schedule): an interval has a slice for each of the
 * sets counted in every interval, 0 .. nr_every - 1, then, if any set
 * rotates, one for the set whose turn it is.  With the every-set schedule
 * nr_every is nr_sets and nothing rotates.
 * Return: the set that counts in slice @slot of the interval at @turn.
 */
static unsigned int n3t_slot_set(const struct n3t_cpu *pc, unsigned int slot,
				 unsigned int turn)
{
	if (slot < pc->nr_every)
		return slot;
	return pc->nr_every + turn % (pc->nr_sets - pc->nr_every);
}

/* The rotation position after @turn. */
static unsigned int n3t_next_turn(const struct n3t_cpu *pc, unsigned int turn)
{
	if (pc->nr_slots == pc->nr_every)
		return turn;	/* nothing rotates: kept for the rotating schedule */
	return (turn + 1) % (pc->nr_sets - pc->nr_every);
}

/*
 * Stop the active set, read it, fold a complete slice into the interval;
 * @next: the set that counts next (its counters that the active set shares
 * stay enabled), or N3T_NO_SET to switch every counter off.
 * Disabling first means a member's count and times stop together, so the
 * next slice's deltas start from exactly where this one ended.
 *
 * A slice is complete when every member ran the whole time it was enabled.
 * A flexible counter (the default) that perf could not schedule, or
 * rotated out, keeps its enabled time growing without running: running
 * falls behind.  A pinned one (pinned=1) that lost its counter goes to the
 * error state, where both times stop: read once more before it is switched
 * off, it shows no enabled time between that read and the last.
 */
static void n3t_end_slice(struct n3t_cpu *pc, unsigned int next)
{
	const unsigned long *keep = next == N3T_NO_SET || n3t_pinned ? NULL :
				    pc->plan->set[next].events;
	struct n3t_cpu_set *s = &pc->set[pc->active];
	struct n3t_cpu_member *m = &pc->ev[s->first];
	struct n3t_result *r = &pc->scratch;
	u64 d[N3T_SET_MAX], on_ns[N3T_SET_MAX], slice_ns = 0;
	bool complete = true;
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
	/* counters the next set shares stay enabled: no disable, no enable */
	for (i = 0; i < s->nr; i++) {
		c = &pc->ctr[m[i].ctr];
		if (c->pe && c->on && !(keep && test_bit(m[i].ev, keep))) {
			perf_event_disable(c->pe);
			c->on = false;
		}
	}
	for (i = 0; i < s->nr; i++) {
		u64 total, enabled = 0, running = 0, de, dr;

		c = &pc->ctr[m[i].ctr];
		d[i] = 0;
		if (!c->pe)
			continue;	/* unusable event: its metrics are undefined */
		nr_pe++;
		total = perf_event_read_value(c->pe, &enabled, &running);
		d[i] = total - c->last_count;
		de = enabled - c->last_enabled;
		dr = running - c->last_running;
		c->last_count = total;
		c->last_enabled = enabled;
		c->last_running = running;
		r->ev_count[m[i].ev] += d[i];
		r->ev_ns[m[i].ev] += min(dr, de);
		/* a member that did not run the whole time it was on spoils it */
		if (!de || dr != de || (n3t_pinned && enabled == on_ns[i]))
			complete = false;
		slice_ns = max(slice_ns, de);
	}
	if (!nr_pe)
		return;
	if (!complete) {
		/*
		 * Every member off, the ones the next set shares too: enabling
		 * that set then reschedules the CPU's flexible events, which
		 * ends the rotation perf started for this set (a rotation
		 * while the next set counts would spoil its slice too), and
		 * takes a pinned one out of the error state.  What such a
		 * member counted between its read and now is read again, so
		 * that the next slice starts exactly where this one ends.
		 */
		for (i = 0; i < s->nr; i++) {
			u64 total, enabled = 0, running = 0;

			c = &pc->ctr[m[i].ctr];
			if (!c->pe || !c->on)
				continue;
			perf_event_disable(c->pe);
			c->on = false;
			total = perf_event_read_value(c->pe, &enabled, &running);
			r->ev_count[m[i].ev] += total - c->last_count;
			r->ev_ns[m[i].ev] += min(running - c->last_running,
						 enabled - c->last_enabled);
			c->last_count = total;
			c->last_enabled = enabled;
			c->last_running = running;
		}
		s->starved |= !s->good_ns;
		s->lost++;
		r->lost++;
		return;
	}
	for (i = 0; i < s->nr; i++)
		m[i].acc += d[i];
	s->good_ns += slice_ns;
}

/* Enable the active set's counters that are not on already. */
static void n3t_enable_set(struct n3t_cpu *pc)
{
	struct n3t_cpu_set *s = &pc->set[pc->active];
	struct n3t_cpu_ev *c;
	unsigned int i;

	for (i = s->first; i < s->first + s->nr; i++) {
		c = &pc->ctr[pc->ev[i].ctr];
		if (c->pe && !c->on) {
			perf_event_enable(c->pe);
			c->on = true;
		}
	}
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
	/* the interval's sets: 0 .. nr_every - 1, and the last slot's */
	unsigned int last = n3t_slot_set(pc, pc->nr_slots - 1, pc->turn);
	unsigned int slot, s, i;
	bool repack = false;

	r->seq = ++pc->seq;
	r->end_ns = now;
	r->interval_ns = now - pc->interval_start;
	r->nr_sets = pc->nr_slots;
	for (slot = 0; slot < pc->nr_slots; slot++) {
		struct n3t_cpu_set *cs;

		s = slot < pc->nr_slots - 1 ? slot : last;
		cs = &pc->set[s];
		bitmap_zero(counted, N3T_MAX_EVENTS);
		if (cs->good_ns) {
			for (i = cs->first; i < cs->first + cs->nr; i++) {
				pc->count_scratch[pc->ev[i].ev] = pc->ev[i].acc;
				if (pc->ctr[pc->ev[i].ctr].pe)
					__set_bit(pc->ev[i].ev, counted);
			}
		}
		n3t_eval_set(plan, s, pc->count_scratch, counted, pc->dom->slots, r->value,
			     r->valid);
	}
	/* the events with a measurement: each set's latest interval's */
	bitmap_zero(r->counted, N3T_MAX_EVENTS);
	for (s = 0; s < pc->nr_sets; s++) {
		bool in_turn = s < pc->nr_every || s == last;

		if (in_turn ? !pc->set[s].good_ns : !pc->pub_set[s].good_ns)
			continue;
		bitmap_and(counted, plan->set[s].events, pc->dom->usable, N3T_MAX_EVENTS);
		bitmap_or(r->counted, r->counted, counted, N3T_MAX_EVENTS);
	}

	preempt_disable();
	write_seqcount_begin(&pc->pub_lock);
	pc->pub = *r;
	for (slot = 0; slot < pc->nr_slots; slot++) {
		struct n3t_cpu_set *cs = &pc->set[slot < pc->nr_slots - 1 ? slot : last];
		struct n3t_pub_set *ps = &pc->pub_set[cs - pc->set];

		ps->seq = r->seq;
		ps->end_ns = now;
		ps->interval_ns = r->interval_ns;
		ps->good_ns = cs->good_ns;
		ps->lost = cs->lost;
		for (i = cs->first; i < cs->first + cs->nr; i++)
			pc->pub_delta[i] = pc->ev[i].acc;
	}
	write_seqcount_end(&pc->pub_lock);
	preempt_enable();

	for (slot = 0; slot < pc->nr_slots; slot++) {
		struct n3t_cpu_set *cs = &pc->set[slot < pc->nr_slots - 1 ? slot : last];

		cs->starved_turns = cs->starved ? cs->starved_turns + 1 : 0;
		repack |= cs->starved_turns >= N3T_REPACK_AFTER;
		cs->good_ns = 0;
		cs->starved = false;
		for (i = cs->first; i < cs->first + cs->nr; i++)
			pc->ev[i].acc = 0;
	}
	pc->interval_start = now;
	/* A set that never got its counters for a while: re-probe, re-pack. */
	if (repack && !READ_ONCE(n3t_repack_off)) {
		WRITE_ONCE(n3t_repack_gen, pc->gen);
		queue_work(n3t_wq, &n3t_repack_work);
	}
}

/**
 * n3t_reduced() - a core type runs below the capacity it found at load
 * @d: the core type
 * Return: true if it has fewer counters than at load.
 */
bool n3t_reduced(const struct n3t_core_type *d)
{
	return d->capacity < d->load_capacity ||
	       (d->load_cycle_counter && !d->cycle_counter);
}

/*
 * A look, while a domain runs below its load-time capacity: can the
 * counters the module had at load all count again?  Between two sets, with
 * every counter of the module off, the look events (flexible, so never
 * before another user's pinned or older flexible events) are switched on
 * and straight off again: if each ran the whole time, the counters are
 * free and the re-pack work packs for them.  A look that finds them taken
 * leaves perf one multiplexing-timer expiry with nothing to rotate: the
 * set enabled next reschedules the CPU's flexible events, which clears
 * perf's rotation request first.  With a rest (yield_pct) the look is made
 * at its start, where every counter is off anyway, and perf's timer
 * rotates at most the others' flexible events once more.
 */
static void n3t_look(struct n3t_cpu *pc)
{
	bool all = true;
	unsigned int i;

	for (i = 0; i < pc->nr_look; i++)
		perf_event_enable(pc->look[i].pe);
	for (i = 0; i < pc->nr_look; i++)
		perf_event_disable(pc->look[i].pe);
	for (i = 0; i < pc->nr_look; i++) {
		struct n3t_cpu_ev *l = &pc->look[i];
		u64 enabled, running;

		perf_event_read_value(l->pe, &enabled, &running);
		all &= enabled != l->last_enabled &&
		       running - l->last_running == enabled - l->last_enabled;
		l->last_enabled = enabled;
		l->last_running = running;
	}
	pc->looks++;
	if (all && time_after_eq(jiffies, READ_ONCE(n3t_look_after))) {
		WRITE_ONCE(n3t_repack_up_gen, pc->gen);
		WRITE_ONCE(n3t_repack_up, true);
		queue_work(n3t_wq, &n3t_repack_work);
	}
}

/*
 * The sampler: runs on pc->cpu at each slice end.  No allocation, no IPI,
 * no global lock: only this CPU's events and this CPU's structure.
 *
 * With yield_pct, the end of an interval's last slice switches every
 * counter off (the ones the next slice's set shares too: one disable each
 * more than a switch, and one enable each when the rest ends) and
 * publishes the interval; the CPU then rests, holding no counter, until
 * the next interval's epoch, when the first slice's set is enabled.  The
 * rest is no set's time: no slice, no count, no counting time.  Every
 * N3T_LOOK_EVERY intervals while the domain is reduced, it looks between
 * two intervals (n3t_look()), with every counter off: at the start of the
 * rest, or without one between the last slice and the first.
 */
static void n3t_slice_work(struct work_struct *work)
{
	struct n3t_cpu *pc = container_of(to_delayed_work(work), struct n3t_cpu, work);
	unsigned int pct = READ_ONCE(n3t_cfg.yield_pct);
	unsigned int slot = pc->slot + 1, turn = pc->turn, next;
	u64 t0 = local_clock(), cost;
	bool look = false, rest = false;

	if (pc->resting) {
		/* the rest ends: the interval's first slice begins */
		pc->resting = false;
		n3t_enable_set(pc);
		goto queue;
	}
	if (slot == pc->nr_slots) {
		slot = 0;
		turn = n3t_next_turn(pc, turn);
		rest = pct;
		if (pc->nr_look && !--pc->look_wait) {
			look = true;
			pc->look_wait = N3T_LOOK_EVERY;
		}
	}
	next = n3t_slot_set(pc, slot, turn);
	n3t_end_slice(pc, look || rest ? N3T_NO_SET : next);
	n3t_test_delay(N3T_HOOK_SWITCH);
	if (!slot) {
		pc->epoch += n3t_interval_jiffies(pc, pct);
		/*
		 * No rest, but the last slice ended where a rest was planned
		 * (yield_pct lowered to 0 during it): the new interval starts
		 * now, not when that rest would have ended
		 */
		if (!rest && time_after(pc->epoch, jiffies))
			pc->epoch = jiffies;
		n3t_end_interval(pc, ktime_get_ns());
	}
	pc->slot = slot;
	pc->turn = turn;
	pc->active = next;
	if (look)
		n3t_look(pc);
	if (rest) {
		pc->resting = true;
		pc->rests++;
	} else {
		n3t_enable_set(pc);
	}
queue:
	if (!n3t_manual_mode())
		queue_delayed_work_on(pc->cpu, n3t_wq, &pc->work, n3t_slice_delay(pc, pct));

	cost = local_clock() - t0;
	pc->slices++;
	pc->cost_ns += cost;
	pc->cost_max_ns = max(pc->cost_max_ns, cost);
}

/*
 * Look events: while the module runs below its load-time capacity, one per
 * counter it had at load (CPU_CYCLES for the cycle counter, if it had it).
 */
static unsigned int n3t_nr_look(const struct n3t_core_type *d)
{
	if (!n3t_reduced(d))
		return 0;
	return d->load_capacity + d->load_cycle_counter;
}

/*
 * One allocation for everything a CPU needs, sized by the plan.  Global
 * and not inlined, so that fault injection can fail it (fail_function).
 */
noinline struct n3t_cpu *n3t_cpu_alloc(const struct n3t_core_type *dom)
{
	const struct n3t_plan *plan = dom->plan;
	unsigned int nr_sets = plan->nr_sets, nr_ev = n3t_plan_nr_events(plan);
	unsigned int nr_look = n3t_nr_look(dom), nr_ctr, s;
	size_t sz = sizeof(struct n3t_cpu);
	struct n3t_cpu *pc;
	size_t off_set, off_ev, off_ctr, off_look, off_pub_set, off_delta;
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
	off_look = sz;
	sz += ALIGN(array_size(nr_look, sizeof(struct n3t_cpu_ev)), 8);
	off_pub_set = sz;
	sz += ALIGN(array_size(nr_sets, sizeof(struct n3t_pub_set)), 8);
	off_delta = sz;
	sz += array_size(nr_ev, sizeof(u64));

	pc = kvzalloc(sz, GFP_KERNEL);
	if (!pc)
		return NULL;
	pc->dom = dom;
	pc->plan = plan;
	pc->nr_sets = nr_sets;
	pc->nr_every = READ_ONCE(n3t_cfg.schedule) == N3T_SCHED_ALL ? nr_sets : plan->nr_every;
	pc->nr_slots = pc->nr_every + (nr_sets > pc->nr_every);
	pc->nr_ev = nr_ev;
	pc->nr_ctr = nr_ctr;
	pc->nr_look = nr_look;
	pc->set = (void *)pc + off_set;
	pc->ev = (void *)pc + off_ev;
	pc->ctr = (void *)pc + off_ctr;
	pc->look = (void *)pc + off_look;
	pc->pub_set = (void *)pc + off_pub_set;
	pc->pub_delta = (void *)pc + off_delta;
	return pc;
}
ALLOW_ERROR_INJECTION(n3t_cpu_alloc, NULL);

static void n3t_cpu_release_events(struct n3t_cpu *pc)
{
	unsigned int i;

	for (i = 0; i < pc->nr_ctr; i++) {
		if (pc->ctr[i].pe)
			perf_event_release_kernel(pc->ctr[i].pe);
		pc->ctr[i].pe = NULL;
	}
	for (i = 0; i < pc->nr_look; i++) {
		if (pc->look[i].pe)
			perf_event_release_kernel(pc->look[i].pe);
		pc->look[i].pe = NULL;
	}
}

/*
 * Look events: CPU_CYCLES for the cycle counter, the first other usable
 * event for the programmable counters.  Created after the sets' events and
 * not pinned, so they only ever take a counter nobody else wants.
 */
static int n3t_cpu_create_look(struct n3t_cpu *pc)
{
	const struct n3t_core_type *d = pc->dom;
	const struct n3t_model *model = d->model;
	unsigned int i, n = pc->nr_look, e, prog = N3T_MAX_EVENTS;
	struct perf_event_attr attr = {
		.type = n3t_cfg.pmu_type,
		.size = sizeof(attr),
		.disabled = 1,
	};

	for_each_set_bit(e, d->usable, N3T_MAX_EVENTS) {
		if (e != model->cycles) {
			prog = e;
			break;
		}
	}
	if (d->load_cycle_counter && n)
		n--;	/* the last one looks for the cycle counter */
	for (i = 0; i < pc->nr_look; i++) {
		struct perf_event *pe;

		e = i < n ? prog : model->cycles;
		if (e == N3T_MAX_EVENTS)
			return -ENODEV;
		attr.config = model->events[e].code;
		pe = perf_event_create_kernel_counter(&attr, pc->cpu, NULL, NULL, NULL);
		if (IS_ERR(pe))
			return PTR_ERR(pe);
		pc->look[i].pe = pe;
		pc->look[i].ev = e;
	}
	return 0;
}

/*
 * Create one counter per distinct event of the sets, and the sets' members
 * pointing at them; on failure the caller releases them.
 */
static int n3t_cpu_create_events(struct n3t_cpu *pc)
{
	const struct n3t_plan *plan = pc->plan;
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);
	u8 ctr[N3T_MAX_EVENTS];
	unsigned int s, e, i = 0, k = 0;

	bitmap_zero(all, N3T_MAX_EVENTS);
	for (s = 0; s < plan->nr_sets; s++)
		bitmap_or(all, all, plan->set[s].events, N3T_MAX_EVENTS);
	for_each_set_bit(e, all, N3T_MAX_EVENTS) {
		struct perf_event *pe = NULL;

		if (test_bit(e, pc->dom->usable)) {
			pe = n3t_create(pc->cpu, plan->model->events[e].code);
			if (IS_ERR(pe))
				return PTR_ERR(pe);
		}
		pc->ctr[k].ev = e;
		pc->ctr[k].pe = pe;
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
	return n3t_cpu_create_look(pc);
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
	pc->gen = READ_ONCE(n3t_gen);
	/* only the teardown callbacks, serialised with this one, write them */
	pc->seq = per_cpu_ptr(n3t_base, cpu)->seq;
	pc->turn = per_cpu_ptr(n3t_base, cpu)->turn;
	if (pc->nr_slots > pc->nr_every)
		pc->turn %= pc->nr_sets - pc->nr_every;
	pc->active = n3t_slot_set(pc, 0, pc->turn);
	seqcount_init(&pc->pub_lock);
	INIT_DEFERRABLE_WORK(&pc->work, n3t_slice_work);
	ret = n3t_cpu_create_events(pc);
	if (ret) {
		n3t_cpu_release_events(pc);
		kvfree(pc);
		n3t_cpu_left_out(cpu, N3T_CPU_NO_COUNTERS, ret);
		return 0;
	}
	pc->interval_start = ktime_get_ns();
	pc->epoch = jiffies;
	rcu_assign_pointer(per_cpu(n3t_pcpu, cpu), pc);
	WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_COLLECTING);
	pc->look_wait = N3T_LOOK_EVERY;
	n3t_enable_set(pc);
	if (!n3t_manual_mode())
		queue_delayed_work_on(cpu, n3t_wq, &pc->work,
				      n3t_slice_delay(pc, READ_ONCE(n3t_cfg.yield_pct)));
	return 0;
}

/*
 * Teardown: a real CPU offline, and every CPU's when collection stops
 * (pause, reconfiguration, re-pack, unload).  The sampler is stopped and the
 * running slice ended, so that everything the counters counted is in
 * pc->scratch; it goes to the CPU's base in the same write section that
 * unpublishes pc: a reader retries and sees it once, never twice or not at
 * all, and the counts never go down.
 */
static int n3t_cpu_offline(unsigned int cpu)
{
	struct n3t_cpu *pc = rcu_dereference_protected(per_cpu(n3t_pcpu, cpu), true);
	struct n3t_base *b = per_cpu_ptr(n3t_base, cpu);
	unsigned int e;

	WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_OFFLINE);
	if (!pc)
		return 0;
	cancel_delayed_work_sync(&pc->work);
	/* resting, every counter is off and what they counted folded in */
	if (!pc->resting)
		n3t_end_slice(pc, N3T_NO_SET);
	write_seqlock(&b->lock);
	RCU_INIT_POINTER(per_cpu(n3t_pcpu, cpu), NULL);
	b->seq = pc->seq;
	/*
	 * the next state goes on with the set whose turn the interval under
	 * way was; resting, the next interval's (its predecessor is published)
	 */
	b->turn = pc->turn;
	b->lost += pc->scratch.lost;
	for (e = 0; e < N3T_MAX_EVENTS; e++) {
		b->ev_count[e] += pc->scratch.ev_count[e];
		b->ev_ns[e] += pc->scratch.ev_ns[e];
	}
	write_sequnlock(&b->lock);
	n3t_cpu_release_events(pc);
	/* the one place a reader-reachable structure is freed */
	kvfree_rcu(pc, rcu);
	return 0;
}

/* n3t_read_cpu() clears what comes before the cumulative counts */
static_assert(offsetof(struct n3t_result, ev_ns) ==
	      offsetofend(struct n3t_result, ev_count));
static_assert(offsetofend(struct n3t_result, ev_ns) == sizeof(struct n3t_result));

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
 * @res->lost) are always filled, collecting or not: since load.
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
					memcpy(sets, pc->pub_set, pc->nr_sets * sizeof(*sets));
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
		res->lost += b->lost;
		for (e = 0; e < N3T_MAX_EVENTS; e++) {
			res->ev_count[e] += b->ev_count[e];
			res->ev_ns[e] += b->ev_ns[e];
		}
	} while (read_seqretry(&b->lock, bseq));
	return ok;
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
	unsigned int i;

	for (i = 0; i < g->nr; i++) {
		int s = plan->metric_set[g->metrics[i]];

		if (s >= 0 && (!oldest || sets[s].seq < oldest->seq ||
			       (sets[s].seq == oldest->seq && sets[s].end_ns < oldest->end_ns)))
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
	WRITE_ONCE(n3t_gen, n3t_gen + 1);
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
		cpus_read_lock();
		if (rcu_access_pointer(per_cpu(n3t_pcpu, cpu)))
			work_on_cpu(cpu, n3t_cpu_down_fn, (void *)(unsigned long)cpu);
		else if (READ_ONCE(per_cpu(n3t_state, cpu)) != N3T_CPU_ISOLATED)
			WRITE_ONCE(per_cpu(n3t_state, cpu), N3T_CPU_OFFLINE);
		cpus_read_unlock();
		cond_resched();
	}
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
		cost->slices = pc->slices;
		cost->total_ns = pc->cost_ns;
		cost->max_ns = pc->cost_max_ns;
		cost->looks = pc->looks;
		cost->rests = pc->rests;
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
 * Collection is not started: n3t_start() sets up the online CPUs.  The
 * caller has initialised n3t_repack_work.
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
	/* samplers are gone; a re-pack queued before sees exiting and returns */
	cancel_work_sync(&n3t_repack_work);
	destroy_workqueue(n3t_wq);
	/* sysfs and the snapshot device, its readers, are gone */
	free_percpu(n3t_base);
}
