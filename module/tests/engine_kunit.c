// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the n3telemetry engine, every model.
 *
 * Expected values come from outside the engine: engine_vectors.h is generated
 * by engine_vectors.py from Arm's formula strings with exact rational
 * arithmetic and names models, events and metrics instead of indexing them.
 * The property test checks n3t_eval() and n3t_format() against a plain
 * 128-bit evaluation of each metric's polynomials, correctly rounded.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../engine.h"

struct n3t_vcount {
	const char *event;
	u64 count;
};

struct n3t_expect {
	const char *metric;
	const char *text;
};

struct n3t_vector {
	const char *model;
	const char *name;
	unsigned int slots;
	const struct n3t_vcount *c;
	unsigned int nr;
	unsigned int first;	/* its expectations in n3t_expected[] */
	unsigned int nr_expect;
};

#include "engine_vectors.h"

/* Parameter generator over every model of the engine. */
static const void *n3t_model_gen(const void *prev, char *desc)
{
	const struct n3t_model *const *p = prev;

	p = p ? p + 1 : n3t_models;
	if (p >= n3t_models + n3t_nr_models)
		return NULL;
	strscpy(desc, (*p)->name, KUNIT_PARAM_DESC_SIZE);
	return p;
}

static const struct n3t_model *n3t_param_model(struct kunit *test)
{
	const struct n3t_model *const *p = test->param_value;

	return *p;
}

static void n3t_vector_desc(const struct n3t_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%s", v->model, v->name);
}

KUNIT_ARRAY_PARAM(n3t_vector, n3t_vectors, n3t_vector_desc);

/* Every metric of a model on a generated vector, printed exactly as expected. */
static void n3t_metric_vector_test(struct kunit *test)
{
	const struct n3t_vector *vec = test->param_value;
	const struct n3t_model *model = n3t_model_by_name(vec->model);
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	char buf[N3T_VALUE_BUF];
	u64 *c = kunit_kzalloc(test, sizeof(u64) * N3T_MAX_EVENTS, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL_MSG(test, model, "no model %s", vec->model);
	KUNIT_ASSERT_EQ(test, vec->nr, model->nr_events);
	KUNIT_ASSERT_EQ(test, vec->nr_expect, model->nr_metrics);
	bitmap_fill(counted, N3T_MAX_EVENTS);
	for (i = 0; i < vec->nr; i++) {
		int e = n3t_event_by_name(model, vec->c[i].event);

		KUNIT_ASSERT_GE_MSG(test, e, 0, "no event %s", vec->c[i].event);
		c[e] = vec->c[i].count;
	}
	for (i = 0; i < vec->nr_expect; i++) {
		const struct n3t_expect *x = &n3t_expected[vec->first + i];
		int m = n3t_metric_by_name(model, x->metric);
		s64 v = 0;
		bool ok;

		KUNIT_ASSERT_GE_MSG(test, m, 0, "no metric %s", x->metric);
		ok = n3t_eval(model, m, c, counted, vec->slots, &v);
		n3t_format(buf, sizeof(buf), n3t_unit_decimals(model->metrics[m].unit), v, ok);
		KUNIT_EXPECT_STREQ_MSG(test, buf, x->text, "%s", x->metric);
	}
}

static void n3t_tables_test(struct kunit *test)
{
	static const char *const names[] = {
		"neoverse-n1", "neoverse-n2", "neoverse-n2-r0p3", "neoverse-n3",
		"neoverse-v1", "neoverse-v2", "neoverse-v3", "generic",
	};
	const struct n3t_model *n3 = n3t_model_by_name("neoverse-n3");
	const struct n3t_model *gen = n3t_model_by_name("generic");
	unsigned int i;

	KUNIT_EXPECT_EQ(test, n3t_nr_models, ARRAY_SIZE(names));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test, n3t_model_by_name(names[i]), "%s", names[i]);
	KUNIT_EXPECT_NULL(test, n3t_model_by_name("neoverse-n4"));
	KUNIT_ASSERT_NOT_NULL(test, n3);
	KUNIT_EXPECT_EQ(test, n3->nr_events, 66);
	KUNIT_EXPECT_EQ(test, n3->nr_metrics, 67);
	KUNIT_EXPECT_EQ(test, n3->nr_groups, 18);
	KUNIT_EXPECT_EQ(test, n3->slots, 5);
	KUNIT_EXPECT_EQ(test, n3->events[n3t_event_by_name(n3, "STALL_SLOT")].code, 0x3f);
	KUNIT_EXPECT_EQ(test, n3t_event_by_code(n3, 0x11), n3->cycles);
	KUNIT_EXPECT_EQ(test, n3t_group_by_name(n3, "ll_cache", 8),
			n3t_group_by_name(n3, "LL_Cache_Effectiveness", 22));
	KUNIT_EXPECT_GE(test, n3t_group_by_name(n3, "ll_cache", 8), 0);
	KUNIT_EXPECT_EQ(test, n3t_group_by_name(n3, "ll_cach", 7), -ENOENT);
	KUNIT_EXPECT_EQ(test, n3t_model_by_name("neoverse-v3")->slots, 10);
	KUNIT_EXPECT_EQ(test, n3t_model_by_name("neoverse-v1")->slots, 8);
	/* the generic table: the architected events, matched by them alone */
	KUNIT_ASSERT_NOT_NULL(test, gen);
	KUNIT_EXPECT_TRUE(test, gen->generic);
	KUNIT_EXPECT_FALSE(test, n3->generic);
	KUNIT_EXPECT_EQ(test, gen->nr_events, 9);
	KUNIT_EXPECT_EQ(test, gen->events[n3t_event_by_name(gen, "STALL_SLOT")].code, 0x3f);
	KUNIT_EXPECT_EQ(test, gen->events[n3t_event_by_name(gen, "OP_SPEC")].code, 0x3b);
	KUNIT_EXPECT_GE(test, n3t_group_by_name(gen, "topdown_l1", 10), 0);
}

/* Lookups and group parsing of each model, by file and by Arm's names. */
static void n3t_lookup_test(struct kunit *test)
{
	const struct n3t_model *model = n3t_param_model(test);
	char buf[64];
	u32 g = 0;
	int i;

	KUNIT_EXPECT_PTR_EQ(test, n3t_model_by_name(model->name), model);
	KUNIT_EXPECT_STREQ(test, model->events[model->cycles].name, "CPU_CYCLES");
	for (i = 0; i < model->nr_events; i++) {
		KUNIT_EXPECT_EQ(test, n3t_event_by_name(model, model->events[i].name), i);
		KUNIT_EXPECT_EQ(test, n3t_event_by_code(model, model->events[i].code), i);
	}
	for (i = 0; i < model->nr_metrics; i++)
		KUNIT_EXPECT_EQ(test, n3t_metric_by_name(model, model->metrics[i].name), i);
	for (i = 0; i < model->nr_groups; i++) {
		const struct n3t_group_desc *grp = &model->groups[i];

		snprintf(buf, sizeof(buf), "%s\n", grp->name);
		KUNIT_EXPECT_EQ(test, n3t_parse_groups(model, buf, strlen(buf), &g), 0);
		KUNIT_EXPECT_EQ(test, g, (u32)BIT(i));
		KUNIT_EXPECT_EQ(test, n3t_parse_groups(model, grp->spec_name,
						       strlen(grp->spec_name), &g), 0);
		KUNIT_EXPECT_EQ(test, g, (u32)BIT(i));
	}
	KUNIT_EXPECT_EQ(test, n3t_parse_groups(model, "default", 7, &g), 0);
	KUNIT_EXPECT_EQ(test, g, model->default_groups);
	KUNIT_EXPECT_EQ(test, n3t_parse_groups(model, "all\n", 4, &g), 0);
	KUNIT_EXPECT_EQ(test, g, N3T_ALL_GROUPS(model));
	g = 42;
	KUNIT_EXPECT_EQ(test, n3t_parse_groups(model, "nosuch", 6, &g), -EINVAL);
	KUNIT_EXPECT_EQ(test, g, 42U);
}

/* An event that was not counted makes exactly the metrics using it undefined. */
static void n3t_uncounted_test(struct kunit *test)
{
	const struct n3t_model *model = n3t_param_model(test);
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	DECLARE_BITMAP(uses, N3T_MAX_EVENTS);
	u64 c[N3T_MAX_EVENTS];
	unsigned int e, m;
	s64 v;

	for (e = 0; e < N3T_MAX_EVENTS; e++)
		c[e] = 1000003 + 7919 * e;
	for (e = 0; e < model->nr_events; e++) {
		bitmap_fill(counted, N3T_MAX_EVENTS);
		__clear_bit(e, counted);
		for (m = 0; m < model->nr_metrics; m++) {
			bitmap_zero(uses, N3T_MAX_EVENTS);
			n3t_metric_events(model, m, uses);
			KUNIT_EXPECT_EQ_MSG(test, n3t_eval(model, m, c, counted, model->slots, &v),
					    !test_bit(e, uses), "%s without %s",
					    model->metrics[m].name, model->events[e].name);
		}
	}
}

static void n3t_expect_format(struct kunit *test, unsigned int dec, s64 v, const char *want)
{
	char buf[N3T_VALUE_BUF];

	n3t_format(buf, sizeof(buf), dec, v, true);
	KUNIT_EXPECT_STREQ_MSG(test, buf, want, "%lld at %u decimals", v, dec);
}

static void n3t_format_test(struct kunit *test)
{
	char buf[N3T_VALUE_BUF];

	n3t_expect_format(test, 2, 21374999, "21.37");
	n3t_expect_format(test, 2, 21375000, "21.38");
	n3t_expect_format(test, 2, -21375000, "-21.38");
	n3t_expect_format(test, 2, -4999, "0.00");
	n3t_expect_format(test, 2, -5000, "-0.01");
	n3t_expect_format(test, 2, 99995000, "100.00");
	n3t_expect_format(test, 3, 1234500, "1.235");
	n3t_expect_format(test, 3, -499, "0.000");
	n3t_expect_format(test, 4, 30000, "0.0300");
	n3t_expect_format(test, 4, 50, "0.0001");
	n3t_expect_format(test, 4, -49, "0.0000");
	n3t_expect_format(test, 3, S64_MIN + 1, "-9223372036854.776");
	n3t_expect_format(test, 2, S64_MIN, "-9223372036854.78");
	n3t_format(buf, sizeof(buf), 3, 0, false);
	KUNIT_EXPECT_STREQ(test, buf, "nan");
	KUNIT_EXPECT_EQ(test, n3t_unit_decimals(N3T_U_PCT_SLOTS), 2U);
	KUNIT_EXPECT_EQ(test, n3t_unit_decimals(N3T_U_OPS_PER_CYCLE), 3U);
	KUNIT_EXPECT_EQ(test, n3t_unit_decimals(N3T_U_PER_CACHE_ACCESS), 4U);
}

/* Slot count is a parameter: on N3, backend_bound = SSB / (slots * cycles). */
static void n3t_slots_test(struct kunit *test)
{
	const struct n3t_model *n3 = n3t_model_by_name("neoverse-n3");
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	u64 c[N3T_MAX_EVENTS] = {};
	int bb;
	s64 v;

	KUNIT_ASSERT_NOT_NULL(test, n3);
	bb = n3t_metric_by_name(n3, "backend_bound");
	KUNIT_ASSERT_GE(test, bb, 0);
	bitmap_fill(counted, N3T_MAX_EVENTS);
	c[n3->cycles] = 1000;
	c[n3t_event_by_name(n3, "STALL_SLOT_BACKEND")] = 2000;
	KUNIT_ASSERT_TRUE(test, n3t_eval(n3, bb, c, counted, 8, &v));
	KUNIT_EXPECT_EQ(test, v, 25000000);	/* 2000 / 8000 * 100 */
	KUNIT_ASSERT_TRUE(test, n3t_eval(n3, bb, c, counted, 4, &v));
	KUNIT_EXPECT_EQ(test, v, 50000000);
	KUNIT_EXPECT_FALSE(test, n3t_eval(n3, bb, c, counted, 0, &v));
}

/* A polynomial of the tables evaluated plainly. */
static void n3t_plain_poly(const struct n3t_mono *mo, unsigned int nr, const u64 *c,
			   unsigned int slots, __int128_t *out)
{
	__int128_t sum = 0, t;
	unsigned int i, f;

	for (i = 0; i < nr; i++) {
		t = mo[i].coef;
		for (f = 0; f < mo[i].nr; f++)
			t *= mo[i].f[f] == N3T_F_SLOTS ? slots : c[mo[i].f[f]];
		sum += t;
	}
	*out = sum;
}

static __int128_t n3t_abs128(__int128_t x)
{
	return x < 0 ? -x : x;
}

/* n / d for 0 <= n, 0 < d, one bit at a time (the kernel has no __divti3). */
static __int128_t n3t_div128(__int128_t n, __int128_t d)
{
	__uint128_t un = n, ud = d, q = 0, r = 0;
	int i;

	for (i = 127; i >= 0; i--) {
		r = r << 1 | ((un >> i) & 1);
		if (r >= ud) {
			r -= ud;
			q |= (__uint128_t)1 << i;
		}
	}
	return q;
}

/* Printed text in units of its last digit ("-21.37" -> -2137). */
static bool n3t_parse_digits(const char *s, s64 *out)
{
	char tmp[N3T_VALUE_BUF];
	size_t i, j = 0;

	for (i = 0; s[i] && j < sizeof(tmp) - 1; i++)
		if (s[i] != '.')
			tmp[j++] = s[i];
	tmp[j] = 0;
	return !kstrtos64(tmp, 10, out);
}

#define N3T_PROPERTY_VECTORS	3000

static u64 n3t_rand64(struct rnd_state *rnd)
{
	u64 hi = prandom_u32_state(rnd);

	return hi << 32 | prandom_u32_state(rnd);
}

/*
 * Pseudo-random counts below 2^40 (fixed seed), each model: the value is
 * trunc(num / den * 10^6) exactly and the printed text is num / den rounded
 * half away from zero, with num and den the metric's polynomials evaluated
 * here in plain 128-bit arithmetic (no overflow: 16 terms of at most
 * 2^9 * 2^40 * 2^40 * 2^8, times 2 * 10^6).
 */
static void n3t_property_test(struct kunit *test)
{
	const struct n3t_model *model = n3t_param_model(test);
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	struct rnd_state rnd;
	unsigned int i, m, e, bad = 0, nan_ok = 0;
	u64 *c = kunit_kzalloc(test, sizeof(u64) * N3T_MAX_EVENTS, GFP_KERNEL);
	char buf[N3T_VALUE_BUF];

	KUNIT_ASSERT_NOT_NULL(test, c);
	bitmap_fill(counted, N3T_MAX_EVENTS);
	prandom_seed_state(&rnd, 0x4e33 + model->part);
	for (i = 0; i < N3T_PROPERTY_VECTORS; i++) {
		unsigned int bits = 1 + prandom_u32_state(&rnd) % 40;
		unsigned int slots = i & 3 ? model->slots : 1 + prandom_u32_state(&rnd) % 255;

		for (e = 0; e < model->nr_events; e++)
			c[e] = n3t_rand64(&rnd) >> (64 - bits);
		for (m = 0; m < model->nr_metrics; m++) {
			const struct n3t_metric_desc *d = &model->metrics[m];
			unsigned int dec = n3t_unit_decimals(d->unit), k;
			__int128_t num, den, p10 = 1, an, ad, want;
			s64 v = 0, digits;
			bool ok = n3t_eval(model, m, c, counted, slots, &v), neg;

			n3t_plain_poly(model->mono + d->num, d->nr_num, c, slots, &num);
			n3t_plain_poly(model->mono + d->den, d->nr_den, c, slots, &den);
			n3t_format(buf, sizeof(buf), dec, v, ok);
			if (!den) {
				nan_ok += !ok;
				bad += ok;
				continue;
			}
			an = n3t_abs128(num);
			ad = n3t_abs128(den);
			neg = num < 0;
			if (den < 0)
				neg = !neg;
			want = n3t_div128(an * 1000000, ad);
			if (want > S64_MAX) {	/* beyond s64 millionths: undefined */
				bad += ok;
				continue;
			}
			if (neg)
				want = -want;
			for (k = 0; k < dec; k++)
				p10 *= 10;
			if (!ok || v != want || !n3t_parse_digits(buf, &digits)) {
				if (bad++ < 5)
					kunit_info(test, "%s: %s, vector %u", d->name, buf, i);
				continue;
			}
			/* half away from zero: (2 |num| 10^dec + |den|) / (2 |den|) */
			want = n3t_div128(2 * an * p10 + ad, 2 * ad);
			if (neg)
				want = -want;
			if (digits != want && bad++ < 5)
				kunit_info(test, "%s: printed %s, vector %u", d->name, buf, i);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	kunit_info(test, "%u vectors, %u undefined as expected", i, nan_ok);
}

static struct n3t_plan *n3t_plan_alloc(struct kunit *test)
{
	struct n3t_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static unsigned int n3t_cost(const struct n3t_model *model, unsigned long *ev, bool cyc)
{
	return bitmap_weight(ev, N3T_MAX_EVENTS) - (cyc && test_bit(model->cycles, ev));
}

/* One selection at one capacity. */
static void n3t_check_plan(struct kunit *test, const struct n3t_model *model, u32 groups,
			   unsigned int cap, bool cyc, struct n3t_plan *a, struct n3t_plan *b)
{
	DECLARE_BITMAP(ev, N3T_MAX_EVENTS);
	unsigned int s, m, in;
	int ra, rb, fits = 0;

	ra = n3t_pack(model, groups, cap, cyc, a);
	rb = n3t_pack(model, groups, cap, cyc, b);
	KUNIT_EXPECT_EQ(test, ra, rb);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, sizeof(*a)), 0);
	for (s = 0; s < a->nr_sets; s++)
		KUNIT_EXPECT_LE(test, n3t_cost(model, a->set[s].events, cyc), cap);
	for (m = 0; m < model->nr_metrics; m++) {
		if (!test_bit(m, a->selected))
			continue;
		bitmap_zero(ev, N3T_MAX_EVENTS);
		n3t_metric_events(model, m, ev);
		in = 0;
		for (s = 0; s < a->nr_sets; s++)
			in += test_bit(m, a->set[s].metrics);
		/* (a plan of N3T_MAX_SETS may leave a metric out) */
		if (test_bit(m, a->unschedulable) && a->nr_sets == N3T_MAX_SETS) {
			fits++;
			KUNIT_EXPECT_EQ(test, in, 0U);
			continue;
		}
		if (n3t_cost(model, ev, cyc) > cap) {
			/* composed when its formula scales, else unschedulable */
			KUNIT_EXPECT_NE(test, test_bit(m, a->unschedulable),
					test_bit(m, a->composed));
			KUNIT_EXPECT_EQ(test, test_bit(m, a->composed),
					n3t_metric_homogeneous(model, m));
			KUNIT_EXPECT_EQ(test, in, 0U);
			KUNIT_EXPECT_EQ(test, a->metric_set[m], -1);
			fits += test_bit(m, a->composed);
			continue;
		}
		fits++;
		KUNIT_EXPECT_FALSE(test, test_bit(m, a->composed));
		KUNIT_EXPECT_EQ(test, in, 1U);
		KUNIT_ASSERT_GE(test, a->metric_set[m], 0);
		s = a->metric_set[m];
		KUNIT_EXPECT_TRUE(test, bitmap_subset(ev, a->set[s].events, N3T_MAX_EVENTS));
	}
	KUNIT_EXPECT_EQ_MSG(test, ra, fits ? 0 : -ENOSPC, "groups %x cap %u cyc %d",
			    groups, cap, cyc);
	KUNIT_EXPECT_EQ(test, a->nr_sets == 0, !fits);
}

/*
 * Each group, default and all, at C = 1..31 with and without PMCCNTR: every
 * selected metric is in exactly one set holding all its events, or, when it
 * does not fit alone, composed if its formula scales and unschedulable if
 * not; no set exceeds C; packing twice gives the same plan; -ENOSPC only
 * when nothing can be counted.  (The host's engine-host-test checks the
 * rates' sets and positions too.)
 */
static void n3t_packer_invariants_test(struct kunit *test)
{
	const struct n3t_model *model = n3t_param_model(test);
	struct n3t_plan *a = n3t_plan_alloc(test), *b = n3t_plan_alloc(test);
	unsigned int cap, g;
	int cyc;

	for (cap = 1; cap <= N3T_MAX_CAPACITY; cap++) {
		for (cyc = 0; cyc <= 1; cyc++) {
			for (g = 0; g < model->nr_groups; g++)
				n3t_check_plan(test, model, BIT(g), cap, cyc, a, b);
			n3t_check_plan(test, model, N3T_ALL_GROUPS(model), cap, cyc, a, b);
			n3t_check_plan(test, model, model->default_groups, cap, cyc, a, b);
		}
	}
	KUNIT_EXPECT_EQ(test, n3t_pack(model, N3T_ALL_GROUPS(model), 0, true, a), -EINVAL);
	KUNIT_EXPECT_EQ(test, n3t_pack(model, N3T_ALL_GROUPS(model), 32, true, a), -EINVAL);
	KUNIT_EXPECT_EQ(test, n3t_pack(model, BIT(model->nr_groups), 6, true, a), -EINVAL);
}

/*
 * N3: no metric needs more than 4 counters beside PMCCNTR; two need 4, and
 * are composed on 3.  On one counter: topdown_l1 from rates per cycle, or,
 * without PMCCNTR, per second of counting, each event alone.
 */
static void n3t_packer_n3_test(struct kunit *test)
{
	static const char *const rates[] = {	/* by event number */
		"STALL_SLOT_FRONTEND", "STALL_FRONTEND_FLUSH", "STALL_SLOT_BACKEND",
		"OP_RETIRED", "OP_SPEC", "STALL_SLOT",
	};
	const struct n3t_model *n3 = n3t_model_by_name("neoverse-n3");
	struct n3t_plan *a = n3t_plan_alloc(test);
	int td = n3t_group_by_name(n3, "topdown_l1", 10);
	int fe = n3t_metric_by_name(n3, "frontend_bound");
	int be = n3t_metric_by_name(n3, "backend_bound");
	unsigned int i, e;

	KUNIT_ASSERT_EQ(test, n3t_pack(n3, N3T_ALL_GROUPS(n3), 4, true, a), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(a->unschedulable, N3T_MAX_METRICS));
	KUNIT_EXPECT_TRUE(test, bitmap_empty(a->composed, N3T_MAX_METRICS));
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, N3T_ALL_GROUPS(n3), 3, true, a), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(a->unschedulable, N3T_MAX_METRICS));
	KUNIT_EXPECT_EQ(test, bitmap_weight(a->composed, N3T_MAX_METRICS), 2U);
	KUNIT_EXPECT_TRUE(test, test_bit(n3t_metric_by_name(n3, "bad_speculation"),
					 a->composed));
	KUNIT_EXPECT_TRUE(test, test_bit(n3t_metric_by_name(n3, "barrier_percentage"),
					 a->composed));
	KUNIT_ASSERT_GE(test, td, 0);
	/* topdown_l1 at 1 counter + PMCCNTR: backend_bound exact, the rest composed */
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, BIT(td), 1, true, a), 0);
	KUNIT_EXPECT_FALSE(test, a->per_ns);
	KUNIT_EXPECT_EQ(test, a->nr_sets, 6);
	KUNIT_EXPECT_EQ(test, a->nr_every, 6);
	KUNIT_EXPECT_EQ(test, a->metric_set[be], 2);
	KUNIT_EXPECT_EQ(test, a->metric_set[fe], -1);
	KUNIT_EXPECT_TRUE(test, test_bit(fe, a->composed));
	KUNIT_EXPECT_EQ(test, bitmap_weight(a->composed, N3T_MAX_METRICS), 3U);
	/* each set: one event beside CPU_CYCLES, the event's delta after it */
	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		e = n3t_event_by_name(n3, rates[i]);
		KUNIT_EXPECT_TRUE(test, test_bit(e, a->set[i].events));
		KUNIT_EXPECT_TRUE(test, test_bit(n3->cycles, a->set[i].events));
		KUNIT_EXPECT_EQ(test, bitmap_weight(a->set[i].events, N3T_MAX_EVENTS), 2U);
		if (i == 2)	/* backend_bound's, no composed metric's */
			continue;
		KUNIT_EXPECT_EQ(test, a->rate_set[e], (int)i);
		KUNIT_EXPECT_EQ(test, a->rate_pos[e], 2 * i + (e > n3->cycles));
		KUNIT_EXPECT_EQ(test, a->base_pos[e], 2 * i + (e < n3->cycles));
	}
	/* without PMCCNTR: every event alone, CPU_CYCLES too, per second */
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, BIT(td), 1, false, a), 0);
	KUNIT_EXPECT_TRUE(test, a->per_ns);
	KUNIT_EXPECT_EQ(test, a->nr_sets, 7);
	KUNIT_EXPECT_EQ(test, bitmap_weight(a->composed, N3T_MAX_METRICS), 4U);
	for (i = 0; i < a->nr_sets; i++)
		KUNIT_EXPECT_EQ(test, bitmap_weight(a->set[i].events, N3T_MAX_EVENTS), 1U);
	KUNIT_EXPECT_GE(test, a->rate_set[n3->cycles], 0);
	/* all: as many as N3T_MAX_SETS sets hold, fp32 and fp64 left out */
	KUNIT_EXPECT_EQ(test, n3t_pack(n3, N3T_ALL_GROUPS(n3), 1, false, a), 0);
	KUNIT_EXPECT_EQ(test, a->nr_sets, N3T_MAX_SETS);
	KUNIT_EXPECT_EQ(test, bitmap_weight(a->unschedulable, N3T_MAX_METRICS), 2U);
}

/*
 * N3's topdown_l1 on 1 counter + PMCCNTR, composed from per-set deltas: each
 * event at the same rate in every set, set s counting 2^(s % 3) times as
 * long: every composed value is the exact one of the unscaled counts (the
 * scaled counts are 4 times them, exactly); with a rate set unmeasured,
 * the metrics that use it are undefined.
 */
static void n3t_composed_test(struct kunit *test)
{
	const struct n3t_model *n3 = n3t_model_by_name("neoverse-n3");
	struct n3t_plan *p = n3t_plan_alloc(test);
	u64 *c = kunit_kcalloc(test, N3T_MAX_EVENTS, sizeof(u64), GFP_KERNEL);
	u64 *counts = kunit_kcalloc(test, N3T_MAX_EVENTS, sizeof(u64), GFP_KERNEL);
	u64 *delta = kunit_kcalloc(test, 2 * N3T_MAX_SETS, sizeof(u64), GFP_KERNEL);
	s64 *v = kunit_kcalloc(test, N3T_MAX_METRICS, sizeof(s64), GFP_KERNEL);
	DECLARE_BITMAP(valid, N3T_MAX_METRICS);
	DECLARE_BITMAP(all, N3T_MAX_EVENTS);
	u64 ns[N3T_MAX_SETS];
	unsigned int s, e, i = 0, m;
	s64 want;
	int td;

	KUNIT_ASSERT_NOT_NULL(test, n3);
	KUNIT_ASSERT_TRUE(test, c && counts && delta && v);
	td = n3t_group_by_name(n3, "topdown_l1", 10);
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, BIT(td), 1, true, p), 0);
	KUNIT_ASSERT_LE(test, p->nr_sets * 2U, 2U * N3T_MAX_SETS);
	for (e = 0; e < n3->nr_events; e++)
		c[e] = e == n3->cycles ? 1000000000ULL : 100000007ULL * (e % 7 + 1);
	bitmap_fill(all, N3T_MAX_EVENTS);
	for (s = 0; s < p->nr_sets; s++) {
		ns[s] = 1000000ULL << (s % 3);
		for_each_set_bit(e, p->set[s].events, N3T_MAX_EVENTS)
			delta[i++] = c[e] << (s % 3);
	}
	bitmap_zero(valid, N3T_MAX_METRICS);
	n3t_eval_composed(p, delta, ns, all, n3->slots, counts, v, valid);
	KUNIT_EXPECT_EQ(test, bitmap_weight(valid, N3T_MAX_METRICS), 3U);
	for_each_set_bit(m, p->composed, N3T_MAX_METRICS) {
		KUNIT_ASSERT_TRUE(test, n3t_eval(n3, m, c, all, n3->slots, &want));
		KUNIT_EXPECT_EQ_MSG(test, v[m], want, "%s", n3->metrics[m].name);
	}
	/* OP_SPEC's set unmeasured: retiring and bad_speculation undefined */
	ns[p->rate_set[n3t_event_by_name(n3, "OP_SPEC")]] = 0;
	n3t_eval_composed(p, delta, ns, all, n3->slots, counts, v, valid);
	KUNIT_EXPECT_TRUE(test, test_bit(n3t_metric_by_name(n3, "frontend_bound"), valid));
	KUNIT_EXPECT_FALSE(test, test_bit(n3t_metric_by_name(n3, "retiring"), valid));
	KUNIT_EXPECT_FALSE(test, test_bit(n3t_metric_by_name(n3, "bad_speculation"), valid));
}

struct n3t_names {
	const char *ev[8];
};

static void n3t_expect_sets(struct kunit *test, const struct n3t_plan *p,
			    const struct n3t_names *want, unsigned int nr)
{
	unsigned int s, e, i;

	KUNIT_ASSERT_EQ(test, p->nr_sets, nr);
	for (s = 0; s < nr; s++) {
		i = 0;
		for_each_set_bit(e, p->set[s].events, N3T_MAX_EVENTS) {
			KUNIT_ASSERT_LT(test, i, 8U);
			KUNIT_EXPECT_STREQ(test, p->model->events[e].name, want[s].ev[i]);
			i++;
		}
		KUNIT_EXPECT_TRUE(test, i == 8 || !want[s].ev[i]);
	}
}

/*
 * N3's default selection's sets, written out by hand from the packing rule:
 * groups in order, a group that fits is one unit, each unit goes where it
 * adds the fewest events, and the first group's sets take nothing else (at
 * C = 5 topdown_l1 is split over sets 0 and 1, which hold only it).  Events
 * are listed by event number.
 */
static void n3t_packer_default_test(struct kunit *test)
{
	static const struct n3t_names c6[] = {
		{ { "CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT_BACKEND",
		    "STALL_SLOT_FRONTEND", "STALL_SLOT", "STALL_FRONTEND_FLUSH" } },
		{ { "STALL_FRONTEND", "STALL_FRONTEND_MEMBOUND", "STALL_FRONTEND_TLB",
		    "STALL_FRONTEND_CPUBOUND", "STALL_FRONTEND_FLOW", "STALL_FRONTEND_FLUSH" } },
		{ { "STALL_BACKEND", "STALL_FRONTEND_MEMBOUND", "STALL_FRONTEND_L1I",
		    "STALL_FRONTEND_MEM", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_CPUBOUND" } },
		{ { "INST_RETIRED", "CPU_CYCLES", "STALL_BACKEND", "STALL_BACKEND_CPUBOUND",
		    "STALL_BACKEND_BUSY", "STALL_BACKEND_RENAME" } },
		{ { "STALL_BACKEND_MEM", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_L1D",
		    "STALL_BACKEND_TLB", "STALL_BACKEND_ST" } },
		{ { "L1I_CACHE_REFILL", "L1D_CACHE_REFILL", "L1D_CACHE", "INST_RETIRED",
		    "L1I_CACHE" } },
		{ { "INST_RETIRED", "L2D_CACHE", "L2D_CACHE_REFILL", "LL_CACHE_RD",
		    "LL_CACHE_MISS_RD" } },
	};
	static const struct n3t_names c5[] = {
		{ { "CPU_CYCLES", "STALL_SLOT_BACKEND", "STALL_SLOT_FRONTEND",
		    "STALL_FRONTEND_FLUSH" } },
		{ { "CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT",
		    "STALL_FRONTEND_FLUSH" } },
		{ { "STALL_FRONTEND", "STALL_FRONTEND_MEMBOUND", "STALL_FRONTEND_CPUBOUND",
		    "STALL_FRONTEND_FLOW", "STALL_FRONTEND_FLUSH" } },
		{ { "INST_RETIRED", "CPU_CYCLES", "STALL_FRONTEND_MEMBOUND",
		    "STALL_FRONTEND_L1I", "STALL_FRONTEND_MEM", "STALL_FRONTEND_TLB" } },
		{ { "STALL_BACKEND", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_CPUBOUND",
		    "STALL_BACKEND_BUSY", "STALL_BACKEND_RENAME" } },
		{ { "STALL_BACKEND_MEM", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_L1D",
		    "STALL_BACKEND_TLB", "STALL_BACKEND_ST" } },
		{ { "L1I_CACHE_REFILL", "L1D_CACHE_REFILL", "L1D_CACHE", "INST_RETIRED",
		    "L1I_CACHE" } },
		{ { "INST_RETIRED", "L2D_CACHE", "L2D_CACHE_REFILL", "LL_CACHE_RD",
		    "LL_CACHE_MISS_RD" } },
	};
	static const char *const l1[] = {
		"frontend_bound", "backend_bound", "retiring", "bad_speculation",
	};
	const struct n3t_model *n3 = n3t_model_by_name("neoverse-n3");
	struct n3t_plan *p = n3t_plan_alloc(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, n3);
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, n3->default_groups, 6, true, p), 0);
	n3t_expect_sets(test, p, c6, ARRAY_SIZE(c6));
	/* topdown_l1 in one set at C = 6 */
	for (i = 0; i < ARRAY_SIZE(l1); i++)
		KUNIT_EXPECT_EQ(test, p->metric_set[n3t_metric_by_name(n3, l1[i])], 0);
	KUNIT_ASSERT_EQ(test, n3t_pack(n3, n3->default_groups, 5, true, p), 0);
	n3t_expect_sets(test, p, c5, ARRAY_SIZE(c5));
}

static struct kunit_case n3t_engine_cases[] = {
	KUNIT_CASE(n3t_tables_test),
	KUNIT_CASE_PARAM(n3t_lookup_test, n3t_model_gen),
	KUNIT_CASE_PARAM(n3t_metric_vector_test, n3t_vector_gen_params),
	KUNIT_CASE_PARAM(n3t_uncounted_test, n3t_model_gen),
	KUNIT_CASE(n3t_format_test),
	KUNIT_CASE(n3t_slots_test),
	KUNIT_CASE_PARAM_ATTR(n3t_property_test, n3t_model_gen, { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(n3t_packer_invariants_test, n3t_model_gen),
	KUNIT_CASE(n3t_packer_n3_test),
	KUNIT_CASE(n3t_composed_test),
	KUNIT_CASE(n3t_packer_default_test),
	{}
};

static struct kunit_suite n3t_engine_suite = {
	.name = "n3telemetry_engine",
	.test_cases = n3t_engine_cases,
};

kunit_test_suite(n3t_engine_suite);

MODULE_DESCRIPTION("KUnit tests for the n3telemetry engine");
MODULE_LICENSE("GPL");
