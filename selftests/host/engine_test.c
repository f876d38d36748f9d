// SPDX-License-Identifier: GPL-2.0
/*
 * Host build of the engine (module/engine.c and module/models.c, unchanged)
 * with its tests:
 *   engine-host-test               tests of every model; ok/not ok lines
 *   engine-host-test tables [MODEL] print the model's events, metrics, groups
 *   engine-host-test eval [MODEL]   read "slots c0 .. cN-1" lines (counts in
 *                                   the order of the table's events), print
 *                                   the metrics as n3t_format() prints them
 *   engine-host-test raw [MODEL]    the same, values in millionths or "nan"
 *   engine-host-test sets [MODEL] CAP CYC default|all|GROUP...
 *                                   print the packer's sets
 * MODEL defaults to neoverse-n3.
 */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <linux/n3telemetry.h>

#include "engine.h"

/* A record carries every event and metric of any model. */
static_assert(N3T_MAX_EVENTS == N3T_SNAP_MAX_EVENTS, "engine and snapshot event limits");
static_assert(N3T_MAX_METRICS == N3T_SNAP_MAX_METRICS, "engine and snapshot metric limits");
static_assert(N3T_FIXED_SCALE == N3T_SNAP_FIXED_SCALE, "fixed point scale");
static_assert(N3T_MAX_GROUPS <= 32, "group selections are u32");

static int failed;

static void result(int ok, const char *name, const char *model)
{
	if (model)
		printf("%s %s/%s\n", ok ? "ok" : "not ok", name, model);
	else
		printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
}

static const struct n3t_model *model_arg(int argc, char **argv, int i)
{
	const char *name = argc > i ? argv[i] : "neoverse-n3";
	const struct n3t_model *model = n3t_model_by_name(name);

	if (!model) {
		fprintf(stderr, "unknown model %s\n", name);
		exit(2);
	}
	return model;
}

static int eval_lines(const struct n3t_model *model, bool raw)
{
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	u64 c[N3T_MAX_EVENTS];
	unsigned int slots;
	char buf[N3T_VALUE_BUF];

	memset(counted, 0xff, sizeof(counted));
	while (scanf("%u", &slots) == 1) {
		for (int i = 0; i < model->nr_events; i++)
			if (scanf("%llu", (unsigned long long *)&c[i]) != 1)
				return 1;
		for (int m = 0; m < model->nr_metrics; m++) {
			s64 v = 0;
			bool ok = n3t_eval(model, m, c, counted, slots, &v);

			if (raw && ok)
				snprintf(buf, sizeof(buf), "%lld", (long long)v);
			else
				n3t_format(buf, sizeof(buf),
					   n3t_unit_decimals(model->metrics[m].unit), v, ok);
			printf("%s%s", m ? " " : "", buf);
		}
		printf("\n");
	}
	return 0;
}

static void tables(const struct n3t_model *model)
{
	printf("model %s %u 0x%x %s\n", model->name, model->slots, model->default_groups,
	       model->title);
	for (int i = 0; i < model->nr_events; i++)
		printf("event %s 0x%04x\n", model->events[i].name, model->events[i].code);
	for (int m = 0; m < model->nr_metrics; m++) {
		DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
		unsigned int e;

		bitmap_zero(ev, N3T_MAX_EVENTS);
		n3t_metric_events(model, m, ev);
		printf("metric %s %s|", model->metrics[m].name,
		       n3t_unit_name(model->metrics[m].unit));
		for_each_set_bit(e, ev, N3T_MAX_EVENTS)
			printf(" %s", model->events[e].name);
		printf("\n");
	}
	for (int g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		printf("group %s %s", grp->name, grp->spec_name);
		for (int i = 0; i < grp->nr; i++)
			printf(" %s", model->metrics[grp->metrics[i]].name);
		printf("\n");
	}
}

static int print_sets(const struct n3t_model *model, int argc, char **argv)
{
	static struct n3t_plan p;
	char sel[N3T_GROUPS_MAX] = "";
	u32 groups;
	int ret;

	if (argc < 6)
		return 2;
	for (int i = 5; i < argc; i++) {
		strncat(sel, argv[i], sizeof(sel) - strlen(sel) - 2);
		strcat(sel, " ");
	}
	if (n3t_parse_groups(model, sel, strlen(sel) - 1, &groups))
		return 2;
	ret = n3t_pack(model, groups, atoi(argv[3]), atoi(argv[4]), &p);
	printf("ret %d sets %u\n", ret, p.nr_sets);
	for (unsigned int s = 0; s < p.nr_sets; s++) {
		unsigned int e;

		printf("set %u:", s);
		for_each_set_bit(e, p.set[s].events, N3T_MAX_EVENTS)
			printf(" %s", model->events[e].name);
		printf(" |");
		for_each_set_bit(e, p.set[s].metrics, N3T_MAX_METRICS)
			printf(" %s", model->metrics[e].name);
		printf(" | rates");
		for (e = 0; e < model->nr_events; e++)
			if (p.rate_set[e] == (int)s)
				printf(" %s", model->events[e].name);
		printf("\n");
	}
	for (unsigned int m = 0; m < model->nr_metrics; m++)
		if (test_bit(m, p.composed) || test_bit(m, p.unschedulable))
			printf("%s %s\n", test_bit(m, p.composed) ?
			       (p.per_ns ? "composed-per-ns" : "composed") : "unschedulable",
			       model->metrics[m].name);
	printf("every %u\n", p.nr_every);
	return 0;
}

/*
 * The packer's verdict for many selections, one process: each line of
 * standard input is "CAP CYC GROUP..." and gets "ret R sets N" back
 * ("ret bad" for a line that does not parse).  The oracle cross-check in
 * engine.sh asks about some 1,500 selections; an exec each cost it a minute.
 */
static int sets_ret_lines(const struct n3t_model *model)
{
	static struct n3t_plan p;
	char line[512], sel[N3T_GROUPS_MAX];
	unsigned int cap, cyc;
	int off, ret;
	u32 groups;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%u %u %n", &cap, &cyc, &off) != 2 ||
		    snprintf(sel, sizeof(sel), "%s", line + off) >= (int)sizeof(sel) ||
		    n3t_parse_groups(model, sel, strlen(sel), &groups)) {
			printf("ret bad\n");
			continue;
		}
		ret = n3t_pack(model, groups, cap, cyc, &p);
		printf("ret %d sets %u\n", ret, p.nr_sets);
	}
	return 0;
}

/* Counters a metric needs alone, computed here from its events. */
static unsigned int metric_cost(const struct n3t_model *model, unsigned int m, bool cyc,
				unsigned long *ev)
{
	unsigned int w;

	bitmap_zero(ev, N3T_MAX_EVENTS);
	n3t_metric_events(model, m, ev);
	w = bitmap_weight(ev, N3T_MAX_EVENTS);
	if (cyc && test_bit(model->cycles, ev))
		w--;
	return w;
}

/*
 * Whether scaling every count leaves the metric's value unchanged, found by
 * evaluating it: three vectors of counts, each also times 3 and times 7
 * (values that are defined must be equal; one vector at least defined).
 * Independent of the packer's own test, which reads the monomials.
 */
static bool scales_eval(const struct n3t_model *model, unsigned int m)
{
	static const u64 base[3] = { 1000003, 777781, 2000029 };
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);
	u64 c[N3T_MAX_EVENTS], c3[N3T_MAX_EVENTS], c7[N3T_MAX_EVENTS];
	bool some = false;

	memset(all, 0xff, sizeof(all));
	for (int v = 0; v < 3; v++) {
		s64 x, x3, x7;
		bool ok;

		for (int e = 0; e < model->nr_events; e++) {
			c[e] = base[v] + 7919ULL * e * (v + 1) + (e == model->cycles) * 50000000ULL;
			c3[e] = 3 * c[e];
			c7[e] = 7 * c[e];
		}
		ok = n3t_eval(model, m, c, all, model->slots, &x);
		if (ok != n3t_eval(model, m, c3, all, model->slots, &x3) ||
		    ok != n3t_eval(model, m, c7, all, model->slots, &x7))
			return false;
		if (ok && (x != x3 || x != x7))
			return false;
		some |= ok;
	}
	return some;
}

/* scales_eval(), once per metric of the model last asked about */
static bool scales(const struct n3t_model *model, unsigned int m)
{
	static const struct n3t_model *cached;
	static signed char known[N3T_MAX_METRICS];

	if (cached != model) {
		memset(known, -1, sizeof(known));
		cached = model;
	}
	if (known[m] < 0)
		known[m] = scales_eval(model, m);
	return known[m];
}

/*
 * A metric a full plan leaves out: N3T_MAX_SETS sets, in none, and one of
 * its events with no set beside CPU_CYCLES (or, per second, none at all)
 * where its rate could be counted.
 */
static bool left_out(const struct n3t_plan *p, unsigned int m, const unsigned long *ev)
{
	bool homeless = false;
	unsigned int e, s;

	if (p->nr_sets != N3T_MAX_SETS || test_bit(m, p->composed) || p->metric_set[m] != -1)
		return false;
	for_each_set_bit(e, ev, N3T_MAX_EVENTS) {
		bool home = false;

		if (!p->per_ns && e == p->model->cycles)
			continue;
		for (s = 0; s < p->nr_sets; s++)
			home |= test_bit(e, p->set[s].events) &&
				(p->per_ns || test_bit(p->model->cycles, p->set[s].events));
		homeless |= !home;
	}
	return homeless;
}

/* Whether a set the packer may still add to (not the first group's) has room for @ev. */
static bool fits_a_set(const struct n3t_plan *p, const unsigned long *ev)
{
	DECLARE_BITMAP(merged, N3T_MAX_EVENTS);

	for (unsigned int s = p->nr_every; s < p->nr_sets; s++) {
		bitmap_or(merged, p->set[s].events, ev, N3T_MAX_EVENTS);
		if (bitmap_weight(merged, N3T_MAX_EVENTS) -
		    (p->cycle_counter && test_bit(p->model->cycles, merged)) <= p->capacity)
			return true;
	}
	return false;
}

/* One selection at one capacity: returns the number of violations. */
static int check_plan(const struct n3t_model *model, u32 groups, unsigned int cap, bool cyc)
{
	static struct n3t_plan a, b;
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	DECLARE_BITMAP(used, N3T_MAX_EVENTS);
	int ra, rb, bad = 0, fits = 0;
	DECLARE_BITMAP(rated, N3T_MAX_EVENTS);

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	ra = n3t_pack(model, groups, cap, cyc, &a);
	rb = n3t_pack(model, groups, cap, cyc, &b);
	/* deterministic, whatever the plan held before */
	if (ra != rb || memcmp(&a, &b, sizeof(a)))
		bad++;
	if (a.model != model || a.groups != groups || a.capacity != cap ||
	    a.cycle_counter != cyc || a.nr_sets > N3T_MAX_SETS ||
	    a.per_ns != (cap == 1 && !cyc))
		bad++;
	for (unsigned int m = 0; m < N3T_MAX_METRICS; m++) {
		bool sel = false;
		unsigned int in_sets = 0, w;

		for (unsigned int g = 0; g < model->nr_groups; g++)
			for (unsigned int i = 0; i < model->groups[g].nr; i++)
				sel |= (groups & BIT(g)) && model->groups[g].metrics[i] == m;
		for (unsigned int s = 0; s < a.nr_sets; s++)
			in_sets += test_bit(m, a.set[s].metrics);
		if (sel != test_bit(m, a.selected)) {
			bad++;
			continue;
		}
		if (!sel) {
			bad += a.metric_set[m] != -1 || in_sets || test_bit(m, a.unschedulable);
			continue;
		}
		w = metric_cost(model, m, cyc, ev);
		if (w > cap && scales(model, m)) {
			unsigned int e;

			/*
			 * composed when it does not fit alone and its formula
			 * scales: each event in a set beside CPU_CYCLES (but
			 * on one counter without the cycle counter, alone,
			 * its rate per second of counting)
			 */
			fits++;
			/* (or, the plan full, left out: see left_out()) */
			if (test_bit(m, a.unschedulable) && left_out(&a, m, ev))
				continue;
			bad += !test_bit(m, a.composed) || test_bit(m, a.unschedulable) ||
			       a.metric_set[m] != -1 || in_sets;
			for_each_set_bit(e, ev, N3T_MAX_EVENTS) {
				int s = a.rate_set[e];

				if (!a.per_ns && e == model->cycles)
					continue;
				if (s < 0 || s >= a.nr_sets || !test_bit(e, a.set[s].events) ||
				    (!a.per_ns && !test_bit(model->cycles, a.set[s].events)))
					bad++;
			}
			continue;
		}
		if (w > cap) {
			/* unschedulable exactly when it does not fit alone nor scales */
			bad += !test_bit(m, a.unschedulable) || a.metric_set[m] != -1 ||
			       in_sets || test_bit(m, a.composed);
			continue;
		}
		fits++;
		if (test_bit(m, a.unschedulable) && left_out(&a, m, ev) &&
		    !fits_a_set(&a, ev))
			continue;
		if (test_bit(m, a.unschedulable) || test_bit(m, a.composed) ||
		    a.metric_set[m] < 0 ||
		    a.metric_set[m] >= a.nr_sets || in_sets != 1 ||
		    !test_bit(m, a.set[a.metric_set[m]].metrics) ||
		    !bitmap_subset(ev, a.set[a.metric_set[m]].events, N3T_MAX_EVENTS))
			bad++;
	}
	/*
	 * the sets counted in every interval: exactly those of the first
	 * selected group that has a metric in a set (one at least, if any)
	 */
	{
		bool first[N3T_MAX_SETS] = { false }, found = false;
		unsigned int g0;

		for (g0 = 0; g0 < model->nr_groups && !found; g0++) {
			if (!(groups & BIT(g0)))
				continue;
			for (unsigned int i = 0; i < model->groups[g0].nr; i++) {
				unsigned int m = model->groups[g0].metrics[i], e;
				int s = a.metric_set[m];

				if (s >= 0)
					first[s] = found = true;
				if (!test_bit(m, a.composed))
					continue;
				bitmap_zero(ev, N3T_MAX_EVENTS);
				n3t_metric_events(model, m, ev);
				for_each_set_bit(e, ev, N3T_MAX_EVENTS)
					if (a.rate_set[e] >= 0)
						first[a.rate_set[e]] = found = true;
			}
		}
		if (a.nr_every > a.nr_sets || (a.nr_sets && !a.nr_every))
			bad++;
		for (unsigned int s = 0; s < a.nr_sets; s++)
			bad += first[s] != (s < a.nr_every);
	}
	/* -ENOSPC exactly when nothing fits, and then no set */
	if (fits ? ra != 0 || !a.nr_sets : ra != -ENOSPC || a.nr_sets)
		bad++;
	for (unsigned int s = 0; s < a.nr_sets; s++) {
		unsigned int w = bitmap_weight(a.set[s].events, N3T_MAX_EVENTS), m;

		if (cyc && test_bit(model->cycles, a.set[s].events))
			w--;
		/*
		 * no counter is spent on an event none of the set's metrics
		 * uses, nor a rate of a composed one (with its base)
		 */
		bitmap_zero(used, N3T_MAX_EVENTS);
		for_each_set_bit(m, a.set[s].metrics, N3T_MAX_METRICS)
			n3t_metric_events(model, m, used);
		for (unsigned int e = 0; e < model->nr_events; e++) {
			if (a.rate_set[e] != (int)s)
				continue;
			__set_bit(e, used);
			if (!a.per_ns)
				__set_bit(model->cycles, used);
		}
		if (w > cap || bitmap_empty(used, N3T_MAX_EVENTS) ||
		    !bitmap_equal(used, a.set[s].events, N3T_MAX_EVENTS))
			bad++;
	}
	/* rates only of the composed metrics' events, and where they say */
	bitmap_zero(rated, N3T_MAX_EVENTS);
	for (unsigned int m = 0; m < N3T_MAX_METRICS; m++)
		if (test_bit(m, a.composed))
			n3t_metric_events(model, m, rated);
	if (!a.per_ns)
		__clear_bit(model->cycles, rated);
	for (unsigned int e = 0, first = 0; e < N3T_MAX_EVENTS; e++) {
		int s = a.rate_set[e];

		if ((s >= 0) != test_bit(e, rated)) {
			bad++;
			continue;
		}
		if (s < 0)
			continue;
		first = 0;
		for (int t = 0; t < s; t++)
			first += bitmap_weight(a.set[t].events, N3T_MAX_EVENTS);
		/* the positions, counted here set by set and bit by bit */
		for (unsigned int f = 0, i = 0; f < N3T_MAX_EVENTS; f++) {
			if (!test_bit(f, a.set[s].events))
				continue;
			if (f == e && a.rate_pos[e] != first + i)
				bad++;
			if (!a.per_ns && f == model->cycles && a.base_pos[e] != first + i)
				bad++;
			i++;
		}
	}
	return bad;
}

/* A single group that fits in one set is counted in one set. */
static int check_group_unit(const struct n3t_model *model, unsigned int g, unsigned int cap,
			    bool cyc)
{
	static struct n3t_plan p;
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	unsigned int w;

	bitmap_zero(ev, N3T_MAX_EVENTS);
	n3t_group_events(model, g, ev);
	w = bitmap_weight(ev, N3T_MAX_EVENTS) - (cyc && test_bit(model->cycles, ev));
	if (w > cap)
		return 0;
	if (n3t_pack(model, BIT(g), cap, cyc, &p) || p.nr_sets != 1)
		return 1;
	for (unsigned int i = 0; i < model->groups[g].nr; i++)
		if (p.metric_set[model->groups[g].metrics[i]] != 0)
			return 1;
	return 0;
}

/*
 * One plan's composed metrics from per-set deltas made here: every event at
 * the same rate in every set (the counts @c per 10^9 cycles and 10^6 ns),
 * set s counting @k[s % 4] times as long.  With k powers of two the scaled
 * counts are @c times the largest k exactly, so every composed value must be
 * n3t_eval()'s of @c to the last digit; with 3 in k, within rounding (a
 * millionth of a unit).  Then one rate set unmeasured (set_ns 0), and one
 * whose cycles read 0: the metrics that use it undefined, the others as
 * before.  Returns the violations.
 */
static int composed_case(const struct n3t_plan *p, const u64 *c, const u64 *k)
{
	static u64 delta[N3T_MAX_SETS * (N3T_MAX_CAPACITY + 1)], ns[N3T_MAX_SETS];
	static u64 counts[N3T_MAX_EVENTS];
	static s64 v[N3T_MAX_METRICS];
	const struct n3t_model *model = p->model;
	DECLARE_BITMAP(valid, N3T_MAX_METRICS);
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	unsigned int s, e, i = 0, m;
	bool exact = k[0] != 3 && k[1] != 3 && k[2] != 3 && k[3] != 3;
	int bad = 0, hole = -1;

	memset(all, 0xff, sizeof(all));
	for (s = 0; s < p->nr_sets; s++) {
		ns[s] = 1000000ULL * k[s % 4];
		for_each_set_bit(e, p->set[s].events, N3T_MAX_EVENTS)
			delta[i++] = c[e] * k[s % 4];
	}
	for (int round = 0; round < 3; round++) {
		bitmap_zero(valid, N3T_MAX_METRICS);
		if (round == 1) {	/* a rate set unmeasured */
			for (e = 0; e < model->nr_events && hole < 0; e++)
				hole = p->rate_set[e];
			if (hole < 0)
				break;
			ns[hole] = 0;
		}
		if (round == 2) {	/* its cycles 0 (per cycle) */
			if (p->per_ns)
				break;
			ns[hole] = 1000000ULL * k[hole % 4];
			for (e = 0; e < model->nr_events; e++)
				if (p->rate_set[e] == hole)
					delta[p->base_pos[e]] = 0;
		}
		n3t_eval_composed(p, delta, ns, all, model->slots, counts, v, valid);
		for (m = 0; m < N3T_MAX_METRICS; m++) {
			s64 want;
			bool ok, uses = false;

			if (!test_bit(m, p->composed)) {
				bad += test_bit(m, valid);	/* composed ones only */
				continue;
			}
			bitmap_zero(ev, N3T_MAX_EVENTS);
			n3t_metric_events(model, m, ev);
			for_each_set_bit(e, ev, N3T_MAX_EVENTS)
				uses |= hole >= 0 && p->rate_set[e] == hole;
			ok = n3t_eval(model, m, c, all, model->slots, &want);
			if (round && uses) {
				bad += test_bit(m, valid);
				continue;
			}
			if (ok != test_bit(m, valid) ||
			    (ok && (exact ? v[m] != want : llabs(v[m] - want) > 1)))
				bad++;
		}
	}
	return bad;
}

static void check_composed(const struct n3t_model *model)
{
	static const u64 k2[4] = { 1, 2, 4, 8 }, k3[4] = { 1, 3, 2, 1 };
	static struct n3t_plan p;
	u64 c[N3T_MAX_EVENTS];
	int bad = 0, plans = 0;

	for (unsigned int e = 0; e < model->nr_events; e++)
		c[e] = e == model->cycles ? 1000000000ULL : 1000003ULL * (e + 1) % 2999999ULL + 7;
	for (unsigned int cap = 1; cap <= 5; cap++) {
		for (int cyc = 0; cyc <= 1; cyc++) {
			u32 sel[3] = { model->default_groups, N3T_ALL_GROUPS(model), BIT(0) };

			for (int i = 0; i < 3; i++) {
				if (n3t_pack(model, sel[i], cap, cyc, &p) ||
				    bitmap_empty(p.composed, N3T_MAX_METRICS))
					continue;
				plans++;
				bad += composed_case(&p, c, k2) + composed_case(&p, c, k3);
			}
		}
	}
	result(!bad && plans, "composed-values-from-rates", model->name);
}

/* Packer invariants: each group, default, all, C = 1..31, with and without PMCCNTR. */
static void check_packer(const struct n3t_model *model)
{
	static struct n3t_plan p;
	u32 all = N3T_ALL_GROUPS(model);
	int bad = 0, unit_bad = 0;

	for (unsigned int cap = 1; cap <= N3T_MAX_CAPACITY; cap++) {
		for (int cyc = 0; cyc <= 1; cyc++) {
			for (unsigned int g = 0; g < model->nr_groups; g++) {
				bad += check_plan(model, BIT(g), cap, cyc);
				unit_bad += check_group_unit(model, g, cap, cyc);
			}
			bad += check_plan(model, all, cap, cyc);
			bad += check_plan(model, model->default_groups, cap, cyc);
			/* pairs of groups: units placed into existing sets */
			for (unsigned int g = 0; g + 1 < model->nr_groups; g++)
				bad += check_plan(model, BIT(g) | BIT(g + 1) | BIT(0), cap, cyc);
		}
	}
	result(!bad, "packer-invariants", model->name);
	result(!unit_bad, "packer-group-fits-in-one-set", model->name);
	/*
	 * The rotating schedule counts the first group's sets in every
	 * interval and each other set once every nr_sets - nr_every
	 * intervals: with the default selection on 6 counters and the cycle
	 * counter, at least every 10 intervals (10 s at the default 1 s).
	 */
	result(!n3t_pack(model, model->default_groups, 6, true, &p) && p.nr_every >= 1 &&
	       p.nr_sets - p.nr_every <= 10, "default-refreshed-within-10-intervals",
	       model->name);
	result(n3t_pack(model, all, 0, true, &p) == -EINVAL &&
	       n3t_pack(model, all, N3T_MAX_CAPACITY + 1, true, &p) == -EINVAL &&
	       (model->nr_groups == 32 ||
		n3t_pack(model, BIT(model->nr_groups), 6, true, &p) == -EINVAL),
	       "packer-rejects-bad-arguments", model->name);
}

/* The numbers of the closing note: one '#' line per model. */
static void summary(const struct n3t_model *model)
{
	static struct n3t_plan d, a;
	int rd = n3t_pack(model, model->default_groups, 6, true, &d);
	int ra = n3t_pack(model, N3T_ALL_GROUPS(model), 6, true, &a);

	printf("# %s: %u metrics, %u groups, %u events; C=6+PMCCNTR: ", model->name,
	       model->nr_metrics, model->nr_groups, model->nr_events);
	printf("default %u sets (%u events, %u unschedulable), ",
	       rd ? 0 : d.nr_sets, n3t_plan_nr_events(&d),
	       bitmap_weight(d.unschedulable, N3T_MAX_METRICS));
	printf("all %u sets (%u events, %u unschedulable)\n", ra ? 0 : a.nr_sets,
	       n3t_plan_nr_events(&a), bitmap_weight(a.unschedulable, N3T_MAX_METRICS));
}

/* The tables are consistent and within the engine's (and the ABI's) limits. */
static void table_checks(const struct n3t_model *model)
{
	int bad = 0;

	bad += !model->nr_events || model->nr_events > N3T_MAX_EVENTS;
	bad += !model->nr_metrics || model->nr_metrics > N3T_MAX_METRICS;
	bad += !model->nr_groups || model->nr_groups > N3T_MAX_GROUPS;
	bad += !model->default_groups || (model->default_groups & ~N3T_ALL_GROUPS(model));
	bad += !model->slots;
	bad += model->cycles >= model->nr_events ||
	       strcmp(model->events[model->cycles].name, "CPU_CYCLES") ||
	       model->events[model->cycles].code != 0x11;
	for (int i = 0; i < model->nr_events; i++) {
		bad += i && model->events[i].code <= model->events[i - 1].code;
		bad += n3t_event_by_name(model, model->events[i].name) != i;
		bad += n3t_event_by_code(model, model->events[i].code) != i;
	}
	bad += n3t_event_by_name(model, "CPU_CYCLE") != -ENOENT;
	bad += n3t_event_by_code(model, 0xffff) != -ENOENT;
	for (int m = 0; m < model->nr_metrics; m++) {
		const struct n3t_metric_desc *d = &model->metrics[m];

		bad += m && strcmp(model->metrics[m - 1].name, d->name) >= 0;
		bad += n3t_metric_by_name(model, d->name) != m;
		bad += d->unit >= N3T_NR_UNITS || !d->nr_num || !d->nr_den ||
		       d->nr_num > N3T_MAX_MONOS || d->nr_den > N3T_MAX_MONOS;
		for (int k = 0; k < d->nr_num + d->nr_den; k++) {
			int at = k < d->nr_num ? d->num + k : d->den + k - d->nr_num;
			const struct n3t_mono *mo = &model->mono[at];

			bad += mo->nr > N3T_MONO_FACTORS || !mo->coef;
			for (int f = 0; f < mo->nr; f++)
				bad += mo->f[f] != N3T_F_SLOTS && mo->f[f] >= model->nr_events;
		}
	}
	bad += n3t_metric_by_name(model, "ipc ") != -ENOENT;
	for (int g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		bad += !grp->nr || grp->nr > N3T_MAX_GROUP_METRICS;
		for (int i = 0; i < grp->nr; i++)
			bad += grp->metrics[i] >= model->nr_metrics;
		bad += n3t_group_by_name(model, grp->name, strlen(grp->name)) != g;
		bad += n3t_group_by_name(model, grp->spec_name, strlen(grp->spec_name)) != g;
		/* not NUL-terminated: only len characters count */
		bad += n3t_group_by_name(model, grp->name, strlen(grp->name) - 1) == g;
	}
	bad += n3t_model_by_name(model->name) != model;
	result(!bad, "tables-consistent", model->name);
}

static int parse(const struct n3t_model *model, const char *s, u32 *out)
{
	return n3t_parse_groups(model, s, strlen(s), out);
}

static void parse_checks(const struct n3t_model *model)
{
	char buf[N3T_GROUPS_MAX + 2];
	u32 out, want = 0;
	int bad = 0;

	bad += parse(model, "default", &out) || out != model->default_groups;
	bad += parse(model, "default\n", &out) || out != model->default_groups;
	bad += parse(model, "all\n", &out) || out != N3T_ALL_GROUPS(model);
	for (int g = 0; g < model->nr_groups; g++) {
		snprintf(buf, sizeof(buf), "%s\n", model->groups[g].name);
		bad += parse(model, buf, &out) || out != BIT(g);
		bad += parse(model, model->groups[g].spec_name, &out) || out != BIT(g);
	}
	/* every group, alternately by file and by Arm's name, mixed separators */
	buf[0] = 0;
	for (int g = model->nr_groups - 1; g >= 0; g--) {
		strcat(buf, g & 1 ? model->groups[g].spec_name : model->groups[g].name);
		strcat(buf, g % 3 ? "," : " ");
		want |= BIT(g);
	}
	bad += parse(model, buf, &out) || out != want;
	out = 0x1234;
	bad += parse(model, "", &out) != -EINVAL;
	bad += parse(model, "\n", &out) != -EINVAL;
	bad += parse(model, " , ", &out) != -EINVAL;
	bad += parse(model, "nosuchgroup", &out) != -EINVAL;
	bad += parse(model, "Default", &out) != -EINVAL;
	bad += parse(model, "all general", &out) != -EINVAL;
	snprintf(buf, sizeof(buf), "%s,%s", model->groups[0].name, model->groups[0].spec_name);
	bad += parse(model, buf, &out) != -EINVAL;	/* the same group twice */
	bad += n3t_parse_groups(model, "general\0", 8, &out) != -EINVAL;
	memset(buf, ' ', N3T_GROUPS_MAX + 1);
	memcpy(buf, model->groups[0].name, strlen(model->groups[0].name));
	bad += n3t_parse_groups(model, buf, N3T_GROUPS_MAX, &out) != 0 || out != BIT(0);
	out = 0x1234;
	bad += n3t_parse_groups(model, buf, N3T_GROUPS_MAX + 1, &out) != -EINVAL;
	bad += out != 0x1234;	/* unchanged on error */
	result(!bad, "parse-groups", model->name);
}

/*
 * An event that is not counted makes exactly the metrics that use it
 * undefined, and n3t_eval_set() computes a set's metrics like n3t_eval().
 */
static void eval_checks(const struct n3t_model *model)
{
	static struct n3t_plan p;
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	DECLARE_BITMAP(valid, N3T_MAX_METRICS);
	s64 vals[N3T_MAX_METRICS];
	u64 c[N3T_MAX_EVENTS];
	int bad = 0, defined = 0;

	for (int i = 0; i < N3T_MAX_EVENTS; i++)
		c[i] = 1000003 + 7919 * i;
	for (int e = 0; e < model->nr_events; e++) {
		bitmap_zero(counted, N3T_MAX_EVENTS);
		for (int i = 0; i < model->nr_events; i++)
			if (i != e)
				__set_bit(i, counted);
		for (int m = 0; m < model->nr_metrics; m++) {
			s64 v, w;
			bool all_ok;

			memset(ev, 0xff, sizeof(ev));
			all_ok = n3t_eval(model, m, c, ev, model->slots, &v);
			defined += all_ok;
			bitmap_zero(ev, N3T_MAX_EVENTS);
			n3t_metric_events(model, m, ev);
			if (test_bit(e, ev))
				bad += n3t_eval(model, m, c, counted, model->slots, &w);
			else
				bad += n3t_eval(model, m, c, counted, model->slots, &w) != all_ok ||
				       (all_ok && v != w);
		}
	}
	result(!bad && defined == model->nr_metrics * model->nr_events, "eval-uncounted-events",
	       model->name);

	bad = 0;
	memset(counted, 0xff, sizeof(counted));
	n3t_pack(model, N3T_ALL_GROUPS(model), 6, true, &p);
	for (unsigned int s = 0; s < p.nr_sets; s++) {
		unsigned int m;

		for (int i = 0; i < N3T_MAX_METRICS; i++)
			vals[i] = -777;
		bitmap_zero(valid, N3T_MAX_METRICS);
		n3t_eval_set(&p, s, c, counted, model->slots, vals, valid);
		for (m = 0; m < N3T_MAX_METRICS; m++) {
			s64 v;

			if (!test_bit(m, p.set[s].metrics)) {
				bad += vals[m] != -777 || test_bit(m, valid);
				continue;
			}
			bad += !n3t_eval(model, m, c, counted, model->slots, &v) ||
			       !test_bit(m, valid) || vals[m] != v;
		}
	}
	result(!bad && p.nr_sets, "eval-set-matches-eval", model->name);
}

static bool fmt_is(unsigned int dec, s64 v, bool valid, const char *want)
{
	char buf[N3T_VALUE_BUF];
	int n = n3t_format(buf, sizeof(buf), dec, v, valid);

	if (strcmp(buf, want) || n != (int)strlen(want)) {
		printf("# n3t_format(%u, %lld, %d) = \"%s\", want \"%s\"\n", dec, (long long)v,
		       valid, buf, want);
		return false;
	}
	return true;
}

/* n3t_format(): half away from zero, ties exactly, never "-0". */
static void format_checks(void)
{
	static const unsigned int want_dec[N3T_NR_UNITS] = {
		[N3T_U_PCT_SLOTS] = 2, [N3T_U_PCT_CYCLES] = 2, [N3T_U_PCT_OPS] = 2,
		[N3T_U_MPKI] = 3, [N3T_U_PER_CYCLE] = 3, [N3T_U_OPS_PER_CYCLE] = 3,
		[N3T_U_PER_BRANCH] = 4, [N3T_U_PER_TLB_ACCESS] = 4,
		[N3T_U_PER_CACHE_ACCESS] = 4,
	};
	char buf[N3T_VALUE_BUF];
	int ok = 1;

	for (int u = 0; u < N3T_NR_UNITS; u++)
		ok &= n3t_unit_decimals(u) == want_dec[u];
	result(ok, "unit-decimals", NULL);

	ok = 1;
	ok &= fmt_is(2, 21374999, true, "21.37");
	ok &= fmt_is(2, 21375000, true, "21.38");	/* tie: away from zero */
	ok &= fmt_is(2, -21375000, true, "-21.38");
	ok &= fmt_is(2, -21374999, true, "-21.37");
	ok &= fmt_is(2, 4999, true, "0.00");
	ok &= fmt_is(2, 5000, true, "0.01");
	ok &= fmt_is(2, -4999, true, "0.00");		/* never -0.00 */
	ok &= fmt_is(2, -5000, true, "-0.01");
	ok &= fmt_is(2, -1, true, "0.00");
	ok &= fmt_is(2, 0, true, "0.00");
	ok &= fmt_is(2, 99995000, true, "100.00");	/* carry into the integer part */
	ok &= fmt_is(2, 99994999, true, "99.99");
	ok &= fmt_is(2, -99995000, true, "-100.00");
	ok &= fmt_is(3, 1234500, true, "1.235");
	ok &= fmt_is(3, 1234499, true, "1.234");
	ok &= fmt_is(3, -1234500, true, "-1.235");
	ok &= fmt_is(3, -499, true, "0.000");
	ok &= fmt_is(3, -500, true, "-0.001");
	ok &= fmt_is(3, 999500, true, "1.000");
	ok &= fmt_is(4, 30000, true, "0.0300");
	ok &= fmt_is(4, 50, true, "0.0001");
	ok &= fmt_is(4, 49, true, "0.0000");
	ok &= fmt_is(4, -49, true, "0.0000");
	ok &= fmt_is(4, -50, true, "-0.0001");
	ok &= fmt_is(4, 999950, true, "1.0000");
	ok &= fmt_is(6, -1, true, "-0.000001");
	ok &= fmt_is(6, 123456789, true, "123.456789");
	ok &= fmt_is(0, 500000, true, "1");
	ok &= fmt_is(0, 499999, true, "0");
	ok &= fmt_is(0, -499999, true, "0");
	ok &= fmt_is(0, -500000, true, "-1");
	ok &= fmt_is(1, 50000, true, "0.1");
	ok &= fmt_is(7, 1, true, "0.000001");		/* at most 6 decimals */
	ok &= fmt_is(3, S64_MAX, true, "9223372036854.776");
	ok &= fmt_is(3, -S64_MAX, true, "-9223372036854.776");
	ok &= fmt_is(2, -S64_MAX - 1, true, "-9223372036854.78");
	ok &= fmt_is(6, -S64_MAX - 1, true, "-9223372036854.775808");
	ok &= fmt_is(2, 0, false, "nan");
	ok &= fmt_is(2, 21375000, false, "nan");
	/* N3T_VALUE_BUF is enough for any value; a short buffer truncates */
	ok &= n3t_format(buf, 5, 2, 21375000, true) == 5 && !strcmp(buf, "21.3");
	result(ok, "format-rounding", NULL);
}

static void layout(void)
{
	result(sizeof(struct n3t_snapshot_header) == 56 &&
	       offsetof(struct n3t_snapshot_header, names_offset) == 36 &&
	       offsetof(struct n3t_snapshot_header, records_offset) == 44 &&
	       offsetof(struct n3t_snapshot_header, fixed_scale) == 48,
	       "uapi-header-no-holes", NULL);
	result(offsetof(struct n3t_snapshot_record, interval_ns) == 24 &&
	       offsetof(struct n3t_snapshot_record, nr_sets) == 32 &&
	       offsetof(struct n3t_snapshot_record, model) == 40 &&
	       offsetof(struct n3t_snapshot_record, reserved) == 52 &&
	       offsetof(struct n3t_snapshot_record, valid) == 56 &&
	       offsetof(struct n3t_snapshot_record, counted) == 72 &&
	       offsetof(struct n3t_snapshot_record, value) == 88 &&
	       offsetof(struct n3t_snapshot_record, event_count) ==
	       88 + 8 * N3T_SNAP_MAX_METRICS &&
	       offsetof(struct n3t_snapshot_record, event_ns) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + N3T_SNAP_MAX_EVENTS) &&
	       offsetof(struct n3t_snapshot_record, lost_slices_total) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 2 * N3T_SNAP_MAX_EVENTS) &&
	       offsetof(struct n3t_snapshot_record, group_seq) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 2 * N3T_SNAP_MAX_EVENTS) + 8 &&
	       offsetof(struct n3t_snapshot_record, composed) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 2 * N3T_SNAP_MAX_EVENTS) + 8 +
	       16 * N3T_SNAP_MAX_GROUPS &&
	       offsetof(struct n3t_snapshot_record, event_slice_count) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 2 * N3T_SNAP_MAX_EVENTS) + 8 +
	       16 * N3T_SNAP_MAX_GROUPS + 16 &&
	       offsetof(struct n3t_snapshot_record, slices_ns) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 4 * N3T_SNAP_MAX_EVENTS) + 8 +
	       16 * N3T_SNAP_MAX_GROUPS + 16 &&
	       sizeof(struct n3t_snapshot_record) ==
	       88 + 8 * (N3T_SNAP_MAX_METRICS + 4 * N3T_SNAP_MAX_EVENTS) + 8 +
	       16 * N3T_SNAP_MAX_GROUPS + 16 + 8 &&
	       sizeof(struct n3t_snapshot_record) % 8 == 0,
	       "uapi-record-no-holes", NULL);
	/* the record's bitmaps hold every metric and event of a model */
	result(N3T_SNAP_MAX_EVENTS == N3T_MAX_EVENTS && N3T_SNAP_MAX_METRICS == N3T_MAX_METRICS &&
	       sizeof(((struct n3t_snapshot_record *)0)->valid) * 8 >= N3T_MAX_METRICS &&
	       sizeof(((struct n3t_snapshot_record *)0)->counted) * 8 >= N3T_MAX_EVENTS &&
	       sizeof(((struct n3t_snapshot_record *)0)->composed) * 8 >= N3T_MAX_METRICS &&
	       N3T_SNAP_FIXED_SCALE == N3T_FIXED_SCALE, "uapi-matches-engine", NULL);
}

static void check_models(void)
{
	static const char *const names[] = {
		"neoverse-n1", "neoverse-n2", "neoverse-n2-r0p3", "neoverse-n3",
		"neoverse-v1", "neoverse-v2", "neoverse-v3", "generic",
	};
	int ok = n3t_nr_models == ARRAY_SIZE(names);

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		ok &= n3t_model_by_name(names[i]) && !strcmp(n3t_model_by_name(names[i])->name,
							      names[i]);
	ok &= !n3t_model_by_name("neoverse-n4") && !n3t_model_by_name("neoverse-n");
	/* Arm's seven descriptions and the generic one, which alone is generic */
	for (unsigned int i = 0; i < n3t_nr_models; i++)
		ok &= n3t_models[i]->generic == !strcmp(n3t_models[i]->name, "generic");
	result(ok, "models-seven-and-generic", NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return eval_lines(model_arg(argc, argv, 2), false);
	if (argc > 1 && !strcmp(argv[1], "raw"))
		return eval_lines(model_arg(argc, argv, 2), true);
	if (argc > 1 && !strcmp(argv[1], "tables")) {
		tables(model_arg(argc, argv, 2));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "sets"))
		return print_sets(model_arg(argc, argv, 2), argc, argv);
	if (argc > 1 && !strcmp(argv[1], "sets-ret"))
		return sets_ret_lines(model_arg(argc, argv, 2));
	if (argc > 1 && !strcmp(argv[1], "formulas")) {
		/* models/<model>/formulas as the module prints it */
		const struct n3t_model *model = model_arg(argc, argv, 2);
		char line[1024];

		for (unsigned int m = 0; m < model->nr_metrics; m++) {
			if (n3t_format_formula(line, sizeof(line), model, m) >= (int)sizeof(line))
				return 1;
			fputs(line, stdout);
		}
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: %s [tables|eval|raw|formulas [MODEL]]\n", argv[0]);
		fprintf(stderr, "       %s sets MODEL CAP CYC GROUP...\n", argv[0]);
		fprintf(stderr, "       %s sets-ret MODEL < lines of CAP CYC GROUP...\n", argv[0]);
		return 2;
	}
	check_models();
	format_checks();
	layout();
	for (unsigned int i = 0; i < n3t_nr_models; i++) {
		const struct n3t_model *model = n3t_models[i];

		table_checks(model);
		parse_checks(model);
		eval_checks(model);
		check_packer(model);
		check_composed(model);
		summary(model);
	}
	return failed;
}
