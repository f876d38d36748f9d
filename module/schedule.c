// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry schedule: the slot -> set mapping of the rotating and the
 * every-set schedules, the turn, the slices of each interval and the age
 * each set is counted within.  See schedule.h.  Calls nothing else of the
 * module (the bottom layer, with the engine); includes only schedule.h.
 *
 * An interval has a slice for each of the sets counted in every interval,
 * 0 .. nr_every - 1, and, in one interval of every @every (phase 0), one
 * for the set whose turn it is, second.  With several sets of every
 * interval (the first group split over sets) and something to rotate,
 * every other interval takes them in reverse order (@flip): an interval
 * starts with the set the one before ended with, so that no switch falls
 * on the boundary, and the rotating slice between two of them adds one
 * switch, not two.  A plan none of whose sets holds its first group
 * (nr_every 0) rotates every set, one per interval, every interval: an
 * interval always has a slice.
 */
#include "schedule.h"

/* intervals with a rotating slice exist: something is left to rotate */
static bool n3t_sched_rotates(const struct n3t_sched *s)
{
	return s->nr_sets > s->nr_every;
}

/* the set whose turn it is at @turn */
static unsigned int n3t_sched_rot_set(const struct n3t_sched *s, unsigned int turn)
{
	return s->nr_every + turn % (s->nr_sets - s->nr_every);
}

/**
 * n3t_sched_nr_slots() - slices of an interval
 * @s: the schedule
 * @phase: the interval's phase (0: it rotates)
 *
 * Return: @s->nr_every, plus one in a rotating interval; at least 1.
 */
unsigned int n3t_sched_nr_slots(const struct n3t_sched *s, unsigned int phase)
{
	return s->nr_every + (n3t_sched_rotates(s) && (!phase || !s->nr_every));
}

/**
 * n3t_sched_init() - a schedule at its start
 * @s: the schedule
 * @nr_sets: the plan's sets, 1 .. N3T_MAX_SETS
 * @nr_every: sets counted in every interval, 0 .. @nr_sets
 * @interval_ms: the interval, at least 1
 * @every_override: intervals between rotating slices, for tests; 0: from
 *	N3T_FRESH_MS
 * @turn: the rotation position to continue from
 *
 * Return: 0, or -EINVAL (then @s is unchanged).
 */
int n3t_sched_init(struct n3t_sched *s, unsigned int nr_sets, unsigned int nr_every,
		   unsigned int interval_ms, unsigned int every_override, unsigned int turn)
{
	unsigned int nr_rot;

	if (!nr_sets || nr_every > nr_sets || !interval_ms)
		return -EINVAL;
	nr_rot = nr_sets - nr_every;
	memset(s, 0, sizeof(*s));
	s->nr_sets = nr_sets;
	s->nr_every = nr_every;
	/* floor(floor(a / b) / c) is floor(a / (b * c)), without the product */
	s->every = nr_rot ? max(1U, N3T_FRESH_MS / interval_ms / nr_rot) : 1;
	if (every_override)
		s->every = every_override;
	if (!nr_every)
		s->every = 1;
	s->turn = nr_rot ? turn % nr_rot : turn;
	s->nr_slots = n3t_sched_nr_slots(s, 0);
	return 0;
}

/**
 * n3t_sched_set() - the set that counts in a slice
 * @s: the schedule
 * @slot: the slice: 0 for any interval, a later one of the interval under
 *	way (@s->nr_slots is its)
 * @turn: the interval's rotation position
 * @flip: the interval's order
 *
 * Return: a set, below @s->nr_sets.
 */
unsigned int n3t_sched_set(const struct n3t_sched *s, unsigned int slot, unsigned int turn,
			   bool flip)
{
	if (!s->nr_every)
		return n3t_sched_rot_set(s, turn);
	if (slot && s->nr_slots > s->nr_every) {
		if (slot == 1)
			return n3t_sched_rot_set(s, turn);
		slot--;
	}
	return flip ? s->nr_every - 1 - slot : slot;
}

/**
 * n3t_sched_first() - the set of the first slice of the interval under way
 * @s: the schedule
 * Return: a set, below @s->nr_sets.
 */
unsigned int n3t_sched_first(const struct n3t_sched *s)
{
	return n3t_sched_set(s, 0, s->turn, s->flip);
}

/**
 * n3t_sched_interval_set() - the sets counted in the interval under way
 * @s: the schedule
 * @i: 0 .. @s->nr_slots - 1
 *
 * Return: for @i below @s->nr_slots - 1, set @i; for the last, the rotating
 * set in a rotating interval, else set @s->nr_every - 1.  (In set order,
 * not slice order.)
 */
unsigned int n3t_sched_interval_set(const struct n3t_sched *s, unsigned int i)
{
	if (i < s->nr_slots - 1)
		return i;
	if (s->nr_slots > s->nr_every)
		return n3t_sched_rot_set(s, s->turn);
	return s->nr_every - 1;
}

/**
 * n3t_sched_next() - what follows the slice under way
 * @s: the schedule
 * @st: the next slice; n3t_sched_commit() moves @s to it
 */
void n3t_sched_next(const struct n3t_sched *s, struct n3t_sched_step *st)
{
	st->slot = s->slot + 1;
	st->turn = s->turn;
	st->flip = s->flip;
	st->new_interval = st->slot >= s->nr_slots;
	if (st->new_interval) {
		st->slot = 0;
		/* the turn moves on after an interval that had a rotating slice */
		if (s->nr_slots > s->nr_every)
			st->turn = (s->turn + 1) % (s->nr_sets - s->nr_every);
		st->flip = s->nr_every > 1 && n3t_sched_rotates(s) ? !s->flip : false;
	}
	st->set = n3t_sched_set(s, st->slot, st->turn, st->flip);
}

/**
 * n3t_sched_commit() - move to the slice n3t_sched_next() gave
 * @s: the schedule
 * @st: n3t_sched_next()'s result for @s
 */
void n3t_sched_commit(struct n3t_sched *s, const struct n3t_sched_step *st)
{
	if (st->new_interval) {
		if (n3t_sched_rotates(s))
			s->phase = s->phase ? s->phase - 1 : s->every - 1;
		s->nr_slots = n3t_sched_nr_slots(s, s->phase);
	}
	s->slot = st->slot;
	s->turn = st->turn;
	s->flip = st->flip;
}

/**
 * n3t_sched_resume() - start the interval under way again at its first slice
 * @s: the schedule (after a step aside: its turn, phase and order kept)
 */
void n3t_sched_resume(struct n3t_sched *s)
{
	s->slot = 0;
	s->nr_slots = n3t_sched_nr_slots(s, s->phase);
}

/**
 * n3t_sched_max_age() - how often a set is counted
 * @s: the schedule
 * @set: a set below @s->nr_sets
 *
 * Return: the most intervals from the start of one interval that counts
 * @set to the start of the next that does: 1 for a set of every interval,
 * @s->every times the rotating sets for the others.  With the default
 * N3T_FRESH_MS rule it is at most max(N3T_FRESH_MS / interval, the
 * rotating sets).
 */
unsigned int n3t_sched_max_age(const struct n3t_sched *s, unsigned int set)
{
	if (set < s->nr_every)
		return 1;
	return s->every * (s->nr_sets - s->nr_every);
}
