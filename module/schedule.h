/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry schedule: which of a plan's sets counts in each slice of each
 * interval, when the rotation turns, and how many slices an interval has.
 *
 * Pure code like the engine: no perf, no allocation, no locking; built into
 * the module (the sampler, collect.c, keeps one struct n3t_sched per CPU)
 * and into the host tests, which run it for every plan the packer makes.
 */
#ifndef N3T_SCHEDULE_H
#define N3T_SCHEDULE_H

#include "compat.h"

/* every set of a plan is counted within this, where the interval allows */
#define N3T_FRESH_MS		15000

/**
 * struct n3t_sched - one CPU's position in its plan's schedule
 * @nr_sets: the plan's sets, at least 1
 * @nr_every: sets 0 .. @nr_every - 1 are counted in every interval, the
 *	others one per rotating interval in turn (@nr_sets with the
 *	every-set schedule).  0 when the plan has no set for its first
 *	group: then every interval is a rotating one, of one slice
 * @every: intervals from one rotating slice to the next: the largest that
 *	counts every set within N3T_FRESH_MS, at least 1 (always 1 with
 *	@nr_every 0)
 * @nr_slots: slices of the interval under way, at least 1: @nr_every,
 *	plus one for the set whose turn it is in a rotating interval
 * @phase: intervals until the next rotating one (0: the one under way)
 * @flip: the interval under way takes the sets of every interval in
 *	reverse order (n3t_sched_set())
 * @slot: the slice under way, 0 .. @nr_slots - 1
 * @turn: rotating intervals so far (continued across the CPU's states):
 *	the set in rotation is @nr_every + @turn % (@nr_sets - @nr_every)
 *
 * Plain data, owned by whoever runs the schedule (the CPU's sampler).
 */
struct n3t_sched {
	unsigned int nr_sets;
	unsigned int nr_every;
	unsigned int every;
	unsigned int nr_slots;
	unsigned int phase;
	bool flip;
	unsigned int slot;
	unsigned int turn;
};

/**
 * struct n3t_sched_step - what follows the slice under way
 * @slot: the next slice
 * @turn: the rotation position after it
 * @flip: the order of the interval it belongs to
 * @set: the set that counts in it
 * @new_interval: it is the first slice of the next interval
 */
struct n3t_sched_step {
	unsigned int slot;
	unsigned int turn;
	bool flip;
	unsigned int set;
	bool new_interval;
};

int n3t_sched_init(struct n3t_sched *s, unsigned int nr_sets, unsigned int nr_every,
		   unsigned int interval_ms, unsigned int every_override, unsigned int turn);
unsigned int n3t_sched_set(const struct n3t_sched *s, unsigned int slot, unsigned int turn,
			   bool flip);
unsigned int n3t_sched_first(const struct n3t_sched *s);
unsigned int n3t_sched_interval_set(const struct n3t_sched *s, unsigned int i);
unsigned int n3t_sched_nr_slots(const struct n3t_sched *s, unsigned int phase);
void n3t_sched_next(const struct n3t_sched *s, struct n3t_sched_step *st);
void n3t_sched_commit(struct n3t_sched *s, const struct n3t_sched_step *st);
void n3t_sched_resume(struct n3t_sched *s);
unsigned int n3t_sched_max_age(const struct n3t_sched *s, unsigned int set);

#endif /* N3T_SCHEDULE_H */
