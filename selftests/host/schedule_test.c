// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the schedule (module/schedule.c) over every plan the packer
 * (module/engine.c) makes: every table, PMU sizes 0..6 with the cycle
 * counter free and taken, spare 0..2 (left where there are more counters),
 * every single group, the default, all and 300 random selections, the
 * rotating and the every-set schedules, at three intervals.  Each plan's schedule is run as the sampler runs it
 * (n3t_sched_next(), then n3t_sched_commit()), through a step aside and a
 * resume, and checked:
 *   - the plan has sets of every interval whenever it has sets;
 *   - n3t_sched_init() takes it; every set named is one of the plan's; an
 *     interval has 1 .. nr_every + 1 slices, and it ends;
 *   - the sets an interval's end publishes (n3t_sched_interval_set()) are
 *     exactly the sets its slices counted;
 *   - every set is counted, and never later than n3t_sched_max_age()
 *     intervals after its previous interval, which is at most
 *     max(N3T_FRESH_MS / interval, rotating sets) (the guide's promise);
 *     a set of every interval is counted in every interval.
 * Prints ok/not ok lines, one per table, and '#' lines with the counts.
 */
#include <assert.h>
#include <stdlib.h>

#include "engine.h"
#include "schedule.h"

static int failed;
static unsigned long plans, refused, intervals;

static void result(int ok, const char *name, const char *model)
{
	printf("%s %s/%s\n", ok ? "ok" : "not ok", name, model);
	failed |= !ok;
}

/* One complaint per table is enough to find the case again. */
static void complain(const struct n3t_model *model, u32 groups, unsigned int cap, bool cyc,
		     unsigned int nr_every, unsigned int ivl, const char *what)
{
	static const struct n3t_model *last;

	if (last == model)
		return;
	last = model;
	printf("# %s groups %#x capacity %u cycle counter %s nr_every %u interval %u ms: %s\n",
	       model->name, groups, cap, cyc ? "free" : "taken", nr_every, ivl, what);
}

#define BAD(what) do { complain(model, groups, cap, cyc, nr_every, ivl, what); return 1; } while (0)

/* Run one schedule; 0 when every check holds. */
static int run_schedule(const struct n3t_model *model, u32 groups, unsigned int cap, bool cyc,
			const struct n3t_plan *plan, unsigned int nr_every, unsigned int ivl,
			unsigned int turn0)
{
	unsigned int last[N3T_MAX_SETS], counted[N3T_MAX_SETS];
	unsigned int nr_sets = plan->nr_sets, bound, k, i, n, slices = 0;
	unsigned int fresh = N3T_FRESH_MS / ivl;
	struct n3t_sched s;
	struct n3t_sched_step st;
	bool seen[N3T_MAX_SETS], aside_done = false;

	if (n3t_sched_init(&s, nr_sets, nr_every, ivl, 0, turn0))
		BAD("n3t_sched_init() refuses the plan");
	bound = 1;
	for (k = 0; k < nr_sets; k++) {
		unsigned int a = n3t_sched_max_age(&s, k);

		if (!a || a > (fresh > nr_sets - nr_every ? fresh : nr_sets - nr_every))
			BAD("a set's age bound exceeds the promise");
		if (k < nr_every && a != 1)
			BAD("a set of every interval is not counted every interval");
		bound = a > bound ? a : bound;
		last[k] = 0;
	}
	/* long enough for every set twice and a step aside in between */
	n = 3 * bound + 8;
	/* the first interval's first slice, as n3t_cpu_online() starts it */
	memset(seen, 0, sizeof(seen));
	k = n3t_sched_first(&s);
	if (k >= nr_sets)
		BAD("first slice's set outside the plan");
	seen[k] = true;
	for (unsigned int iv = 1; iv <= n; ) {
		if (s.nr_slots < 1 || s.nr_slots > nr_every + 1 || s.slot >= s.nr_slots)
			BAD("slices of an interval out of range");
		if (++slices > nr_every + 1)
			BAD("an interval does not end");
		n3t_sched_next(&s, &st);
		if (st.set >= nr_sets)
			BAD("a slice's set outside the plan");
		if (st.new_interval) {
			/* what the interval's end publishes is what it counted */
			bool pub[N3T_MAX_SETS] = { false };

			for (i = 0; i < s.nr_slots; i++) {
				k = n3t_sched_interval_set(&s, i);
				if (k >= nr_sets || pub[k])
					BAD("an interval's end names a set twice or outside the plan");
				pub[k] = true;
			}
			for (k = 0; k < nr_sets; k++) {
				if (pub[k] != seen[k])
					BAD("an interval's end publishes other sets than it counted");
				if (seen[k]) {
					if (iv - last[k] > n3t_sched_max_age(&s, k))
						BAD("a set counted later than its age bound");
					last[k] = iv;
					counted[k] = 1;
				} else if (iv - last[k] > n3t_sched_max_age(&s, k)) {
					BAD("a set not counted within its age bound");
				}
			}
			intervals++;
			iv++;
			slices = 0;
			memset(seen, 0, sizeof(seen));
		}
		n3t_sched_commit(&s, &st);
		if (s.slot != st.slot || n3t_sched_set(&s, s.slot, s.turn, s.flip) != st.set)
			BAD("the committed slice is not the one announced");
		seen[st.set] = true;
		/*
		 * half way: a step aside at the first slice of an interval
		 * (the sampler publishes the intervals aside with nothing
		 * counted and comes back at the same position), then a resume
		 */
		if (!aside_done && iv == n / 2 && st.new_interval) {
			aside_done = true;
			n3t_sched_resume(&s);
			if (n3t_sched_first(&s) != st.set || s.nr_slots < 1)
				BAD("a resume does not start where the step aside left");
		}
	}
	for (k = 0; k < nr_sets; k++)
		if (!counted[k])
			BAD("a set never counted");
	return 0;
}

/* The plan of one selection on one PMU, and its schedules. */
static int check_one(const struct n3t_model *model, u32 groups, unsigned int pmu, bool cyc,
		     unsigned int spare)
{
	static const unsigned int ivls[] = { 100, 1000, 10000 };
	static struct n3t_plan p;
	/* as n3t_probe_capacity(): spare counters are left where there are more */
	unsigned int cap = pmu > spare ? pmu - spare : pmu, nr_every = 0, ivl = 0;
	int ret, bad = 0;

	plans++;
	if (!cap) {
		/* no counter: the probe refuses (-EBUSY) before packing, and so does the packer */
		if (n3t_pack(model, groups, cap, cyc, &p) != -EINVAL)
			BAD("capacity 0 packed");
		refused++;
		return 0;
	}
	ret = n3t_pack(model, groups, cap, cyc, &p);
	if (ret == -ENOSPC && !p.nr_sets) {
		refused++;	/* a clear refusal: nothing selected fits */
		return 0;
	}
	if (ret || !p.nr_sets || p.nr_sets > N3T_MAX_SETS)
		BAD("the packer returned no usable plan");
	nr_every = p.nr_every;
	if (!nr_every || nr_every > p.nr_sets)
		BAD("a plan with sets has no set of every interval");
	for (unsigned int i = 0; i < sizeof(ivls) / sizeof(ivls[0]); i++) {
		ivl = ivls[i];
		bad |= run_schedule(model, groups, cap, cyc, &p, p.nr_every, ivl, i * 7919);
		bad |= run_schedule(model, groups, cap, cyc, &p, p.nr_sets, ivl, 0);
	}
	/* the kernel's guard: a plan with no set of every interval still runs */
	bad |= run_schedule(model, groups, cap, cyc, &p, 0, 1000, 3);
	return bad;
}

static void check_model(const struct n3t_model *model, unsigned int nr_random)
{
	u32 all = N3T_ALL_GROUPS(model);
	unsigned long p0 = plans, r0 = refused;
	int bad = 0;

	srand(1);
	for (unsigned int pmu = 0; pmu <= 6; pmu++) {
		for (int cyc = 0; cyc <= 1; cyc++) {
			for (unsigned int spare = 0; spare <= 2; spare++) {
				for (unsigned int g = 0; g < model->nr_groups; g++)
					bad |= check_one(model, BIT(g), pmu, cyc, spare);
				bad |= check_one(model, model->default_groups, pmu, cyc, spare);
				bad |= check_one(model, all, pmu, cyc, spare);
				for (unsigned int r = 0; r < nr_random; r++) {
					u32 sel = ((u32)rand() << 16 ^ (u32)rand()) & all;

					bad |= check_one(model, sel ? sel : 1, pmu, cyc, spare);
				}
			}
		}
	}
	printf("# %s: %lu plans, %lu refused\n", model->name, plans - p0, refused - r0);
	result(!bad, "schedule-every-plan", model->name);
}

/* The plan of the reported crash: V2's default on 2 counters, spare 1. */
static void check_reported(void)
{
	static struct n3t_plan p;
	const struct n3t_model *v2 = n3t_model_by_name("neoverse-v2");
	int ret = n3t_pack(v2, v2->default_groups, 1, true, &p);

	printf("# neoverse-v2 default on 1 counter + cycle counter: ret %d, %u sets, nr_every %u\n",
	       ret, p.nr_sets, p.nr_every);
	result(!ret && p.nr_sets && p.nr_every >= 1, "v2-default-one-counter-has-every-set",
	       "neoverse-v2");
}

/* A schedule with no set of every interval: one slice, each set in turn. */
static void check_guard(void)
{
	struct n3t_sched s;
	struct n3t_sched_step st;
	int ok = 1;

	for (unsigned int nr = 1; nr <= N3T_MAX_SETS; nr++) {
		ok &= !n3t_sched_init(&s, nr, 0, 100, 5, 0);
		ok &= s.every == 1 && s.nr_slots == 1;
		for (unsigned int iv = 1; iv <= 2 * nr; iv++) {
			n3t_sched_next(&s, &st);
			ok &= st.new_interval && st.set == iv % nr;
			n3t_sched_commit(&s, &st);
		}
	}
	ok &= n3t_sched_init(&s, 0, 0, 1000, 0, 0) == -EINVAL &&
	      n3t_sched_init(&s, 2, 3, 1000, 0, 0) == -EINVAL &&
	      n3t_sched_init(&s, 2, 1, 0, 0, 0) == -EINVAL;
	printf("%s schedule-without-every-set-rotates-all\n", ok ? "ok" : "not ok");
	failed |= !ok;
}

int main(int argc, char **argv)
{
	unsigned int nr_random = argc > 1 ? atoi(argv[1]) : 300;

	check_reported();
	check_guard();
	for (unsigned int i = 0; i < n3t_nr_models; i++)
		check_model(n3t_models[i], nr_random);
	printf("# %lu plans (%lu refused), %lu intervals run\n", plans, refused, intervals);
	return failed;
}
