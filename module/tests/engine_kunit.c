// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the n3telemetry engine.
 *
 * Expected values come from outside the engine: engine_vectors.h is generated
 * by engine_vectors.py from the specification's formula strings with exact
 * rational arithmetic, and the property test below checks every metric
 * against its own exact 128-bit integer evaluation of the formula.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../engine.h"

struct n3t_vector {
	const char *name;
	u64 c[N3T_NR_EVENTS];
};

struct n3t_expect {
	unsigned int metric;
	unsigned int vector;
	const char *text;
};

#include "engine_vectors.h"

static void n3t_expect_desc(const struct n3t_expect *e, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%s", n3t_metrics[e->metric].name,
		 n3t_vectors[e->vector].name);
}

KUNIT_ARRAY_PARAM(n3t_vector, n3t_expected, n3t_expect_desc);

static void n3t_all_counted(unsigned long *counted)
{
	bitmap_fill(counted, N3T_NR_EVENTS);
}

/* Every metric on the generated vectors, printed exactly as expected. */
static void n3t_metric_vector_test(struct kunit *test)
{
	const struct n3t_expect *e = test->param_value;
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	char buf[N3T_VALUE_BUF];
	s64 v = 0;
	bool ok;

	n3t_all_counted(counted);
	ok = n3t_eval(e->metric, n3t_vectors[e->vector].c, counted, 5, &v);
	n3t_format(buf, sizeof(buf), e->metric, v, ok);
	KUNIT_EXPECT_STREQ(test, buf, e->text);
}

/* An event that was not counted makes exactly the metrics using it undefined. */
static void n3t_uncounted_test(struct kunit *test)
{
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	unsigned int m;
	s64 v;

	n3t_all_counted(counted);
	__clear_bit(N3T_EV_OP_SPEC, counted);
	for (m = 0; m < N3T_NR_METRICS; m++) {
		bool uses = m == N3T_M_retiring || m == N3T_M_bad_speculation;

		KUNIT_EXPECT_EQ_MSG(test, n3t_eval(m, n3t_vectors[0].c, counted, 5, &v), !uses,
				    "%s", n3t_metrics[m].name);
	}
}

static void n3t_format_test(struct kunit *test)
{
	char buf[N3T_VALUE_BUF];

	n3t_format(buf, sizeof(buf), N3T_M_frontend_bound, 21374999, true);
	KUNIT_EXPECT_STREQ(test, buf, "21.37");
	n3t_format(buf, sizeof(buf), N3T_M_frontend_bound, 21375000, true);
	KUNIT_EXPECT_STREQ(test, buf, "21.38");
	n3t_format(buf, sizeof(buf), N3T_M_frontend_bound, -21375000, true);
	KUNIT_EXPECT_STREQ(test, buf, "-21.38");
	n3t_format(buf, sizeof(buf), N3T_M_frontend_bound, -4999, true);
	KUNIT_EXPECT_STREQ(test, buf, "0.00");
	n3t_format(buf, sizeof(buf), N3T_M_ipc, 1234500, true);
	KUNIT_EXPECT_STREQ(test, buf, "1.235");
	n3t_format(buf, sizeof(buf), N3T_M_l1d_cache_miss_ratio, 30000, true);
	KUNIT_EXPECT_STREQ(test, buf, "0.0300");
	n3t_format(buf, sizeof(buf), N3T_M_ipc, S64_MIN + 1, true);
	KUNIT_EXPECT_STREQ(test, buf, "-9223372036854.776");
	n3t_format(buf, sizeof(buf), N3T_M_ipc, 0, false);
	KUNIT_EXPECT_STREQ(test, buf, "nan");
}

/* Slot count is a parameter: backend_bound = SSB / (slots * cycles). */
static void n3t_slots_test(struct kunit *test)
{
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	u64 c[N3T_NR_EVENTS] = {};
	s64 v;

	n3t_all_counted(counted);
	c[N3T_EV_CPU_CYCLES] = 1000;
	c[N3T_EV_STALL_SLOT_BACKEND] = 2000;
	KUNIT_ASSERT_TRUE(test, n3t_eval(N3T_M_backend_bound, c, counted, 8, &v));
	KUNIT_EXPECT_EQ(test, v, 25000000);	/* 2000 / 8000 * 100 */
	KUNIT_ASSERT_TRUE(test, n3t_eval(N3T_M_backend_bound, c, counted, 4, &v));
	KUNIT_EXPECT_EQ(test, v, 50000000);
}

/*
 * The oracle: each metric as an exact fraction num/den of 128-bit integers
 * (value in the metric's unit), written from the specification's formulas.
 */
static void n3t_oracle(unsigned int m, const u64 *c, __int128_t s, __int128_t *num,
		       __int128_t *den)
{
#define E(x) ((__int128_t)c[N3T_EV_##x])
#define Q(k, n, d) do { *num = (k) * (n); *den = (d); } while (0)
	switch (m) {
	case N3T_M_frontend_bound:
		Q(100, E(STALL_SLOT_FRONTEND) - s * E(STALL_FRONTEND_FLUSH), s * E(CPU_CYCLES));
		break;
	case N3T_M_backend_bound:
		Q(100, E(STALL_SLOT_BACKEND), s * E(CPU_CYCLES));
		break;
	case N3T_M_retiring:
		Q(100, (s * E(CPU_CYCLES) - E(STALL_SLOT)) * E(OP_RETIRED),
		  s * E(CPU_CYCLES) * E(OP_SPEC));
		break;
	case N3T_M_bad_speculation:
		Q(100, (s * E(CPU_CYCLES) - E(STALL_SLOT)) * (E(OP_SPEC) - E(OP_RETIRED)) +
		  s * E(STALL_FRONTEND_FLUSH) * E(OP_SPEC), s * E(CPU_CYCLES) * E(OP_SPEC));
		break;
	case N3T_M_backend_busy_bound:
		Q(100, E(STALL_BACKEND_BUSY), E(STALL_BACKEND));
		break;
	case N3T_M_backend_cache_l1d_bound:
		Q(100, E(STALL_BACKEND_L1D), E(STALL_BACKEND_L1D) + E(STALL_BACKEND_MEM));
		break;
	case N3T_M_backend_cache_l2d_bound:
		Q(100, E(STALL_BACKEND_MEM), E(STALL_BACKEND_L1D) + E(STALL_BACKEND_MEM));
		break;
	case N3T_M_backend_core_bound:
		Q(100, E(STALL_BACKEND_CPUBOUND), E(STALL_BACKEND));
		break;
	case N3T_M_backend_core_rename_bound:
		Q(100, E(STALL_BACKEND_RENAME), E(STALL_BACKEND_CPUBOUND));
		break;
	case N3T_M_backend_mem_bound:
		Q(100, E(STALL_BACKEND_MEMBOUND), E(STALL_BACKEND));
		break;
	case N3T_M_backend_mem_cache_bound:
		Q(100, E(STALL_BACKEND_L1D) + E(STALL_BACKEND_MEM), E(STALL_BACKEND_MEMBOUND));
		break;
	case N3T_M_backend_mem_store_bound:
		Q(100, E(STALL_BACKEND_ST), E(STALL_BACKEND_MEMBOUND));
		break;
	case N3T_M_backend_mem_tlb_bound:
		Q(100, E(STALL_BACKEND_TLB), E(STALL_BACKEND_MEMBOUND));
		break;
	case N3T_M_backend_stalled_cycles:
		Q(100, E(STALL_BACKEND), E(CPU_CYCLES));
		break;
	case N3T_M_barrier_percentage:
		Q(100, E(ISB_SPEC) + E(DSB_SPEC) + E(DMB_SPEC), E(INST_SPEC));
		break;
	case N3T_M_branch_direct_ratio:
		Q(1, E(BR_IMMED_RETIRED), E(BR_RETIRED));
		break;
	case N3T_M_branch_indirect_ratio:
		Q(1, E(BR_IND_RETIRED), E(BR_RETIRED));
		break;
	case N3T_M_branch_misprediction_ratio:
		Q(1, E(BR_MIS_PRED_RETIRED), E(BR_RETIRED));
		break;
	case N3T_M_branch_mpki:
		Q(1000, E(BR_MIS_PRED_RETIRED), E(INST_RETIRED));
		break;
	case N3T_M_branch_percentage:
		Q(100, E(PC_WRITE_SPEC), E(INST_SPEC));
		break;
	case N3T_M_branch_return_ratio:
		Q(1, E(BR_RETURN_RETIRED), E(BR_RETIRED));
		break;
	case N3T_M_crypto_percentage:
		Q(100, E(CRYPTO_SPEC), E(INST_SPEC));
		break;
	case N3T_M_dtlb_mpki:
		Q(1000, E(DTLB_WALK), E(INST_RETIRED));
		break;
	case N3T_M_dtlb_walk_ratio:
		Q(1, E(DTLB_WALK), E(L1D_TLB));
		break;
	case N3T_M_fp16_percentage:
		Q(100, E(FP_HP_SPEC), E(INST_SPEC));
		break;
	case N3T_M_fp32_percentage:
		Q(100, E(FP_SP_SPEC), E(INST_SPEC));
		break;
	case N3T_M_fp64_percentage:
		Q(100, E(FP_DP_SPEC), E(INST_SPEC));
		break;
	case N3T_M_fp_ops_per_cycle:
		Q(1, E(FP_SCALE_OPS_SPEC) + E(FP_FIXED_OPS_SPEC), E(CPU_CYCLES));
		break;
	case N3T_M_frontend_cache_l1i_bound:
		Q(100, E(STALL_FRONTEND_L1I), E(STALL_FRONTEND_L1I) + E(STALL_FRONTEND_MEM));
		break;
	case N3T_M_frontend_cache_l2i_bound:
		Q(100, E(STALL_FRONTEND_MEM), E(STALL_FRONTEND_L1I) + E(STALL_FRONTEND_MEM));
		break;
	case N3T_M_frontend_core_bound:
		Q(100, E(STALL_FRONTEND_CPUBOUND), E(STALL_FRONTEND));
		break;
	case N3T_M_frontend_core_flow_bound:
		Q(100, E(STALL_FRONTEND_FLOW), E(STALL_FRONTEND_CPUBOUND));
		break;
	case N3T_M_frontend_core_flush_bound:
		Q(100, E(STALL_FRONTEND_FLUSH), E(STALL_FRONTEND_CPUBOUND));
		break;
	case N3T_M_frontend_mem_bound:
		Q(100, E(STALL_FRONTEND_MEMBOUND), E(STALL_FRONTEND));
		break;
	case N3T_M_frontend_mem_cache_bound:
		Q(100, E(STALL_FRONTEND_L1I) + E(STALL_FRONTEND_MEM), E(STALL_FRONTEND_MEMBOUND));
		break;
	case N3T_M_frontend_mem_tlb_bound:
		Q(100, E(STALL_FRONTEND_TLB), E(STALL_FRONTEND_MEMBOUND));
		break;
	case N3T_M_frontend_stalled_cycles:
		Q(100, E(STALL_FRONTEND), E(CPU_CYCLES));
		break;
	case N3T_M_integer_dp_percentage:
		Q(100, E(DP_SPEC) - E(DSB_SPEC), E(INST_SPEC));
		break;
	case N3T_M_ipc:
		Q(1, E(INST_RETIRED), E(CPU_CYCLES));
		break;
	case N3T_M_itlb_mpki:
		Q(1000, E(ITLB_WALK), E(INST_RETIRED));
		break;
	case N3T_M_itlb_walk_ratio:
		Q(1, E(ITLB_WALK), E(L1I_TLB));
		break;
	case N3T_M_l1d_cache_miss_ratio:
		Q(1, E(L1D_CACHE_REFILL), E(L1D_CACHE));
		break;
	case N3T_M_l1d_cache_mpki:
		Q(1000, E(L1D_CACHE_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_l1d_tlb_miss_ratio:
		Q(1, E(L1D_TLB_REFILL), E(L1D_TLB));
		break;
	case N3T_M_l1d_tlb_mpki:
		Q(1000, E(L1D_TLB_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_l1i_cache_miss_ratio:
		Q(1, E(L1I_CACHE_REFILL), E(L1I_CACHE));
		break;
	case N3T_M_l1i_cache_mpki:
		Q(1000, E(L1I_CACHE_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_l1i_tlb_miss_ratio:
		Q(1, E(L1I_TLB_REFILL), E(L1I_TLB));
		break;
	case N3T_M_l1i_tlb_mpki:
		Q(1000, E(L1I_TLB_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_l2_cache_miss_ratio:
		Q(1, E(L2D_CACHE_REFILL), E(L2D_CACHE));
		break;
	case N3T_M_l2_cache_mpki:
		Q(1000, E(L2D_CACHE_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_l2_tlb_miss_ratio:
		Q(1, E(L2D_TLB_REFILL), E(L2D_TLB));
		break;
	case N3T_M_l2_tlb_mpki:
		Q(1000, E(L2D_TLB_REFILL), E(INST_RETIRED));
		break;
	case N3T_M_ll_cache_read_hit_ratio:
		Q(1, E(LL_CACHE_RD) - E(LL_CACHE_MISS_RD), E(LL_CACHE_RD));
		break;
	case N3T_M_ll_cache_read_miss_ratio:
		Q(1, E(LL_CACHE_MISS_RD), E(LL_CACHE_RD));
		break;
	case N3T_M_ll_cache_read_mpki:
		Q(1000, E(LL_CACHE_MISS_RD), E(INST_RETIRED));
		break;
	case N3T_M_load_percentage:
		Q(100, E(LD_SPEC), E(INST_SPEC));
		break;
	case N3T_M_nonsve_fp_ops_per_cycle:
		Q(1, E(FP_FIXED_OPS_SPEC), E(CPU_CYCLES));
		break;
	case N3T_M_scalar_fp_percentage:
		Q(100, E(VFP_SPEC), E(INST_SPEC));
		break;
	case N3T_M_simd_percentage:
		Q(100, E(ASE_SPEC), E(INST_SPEC));
		break;
	case N3T_M_store_percentage:
		Q(100, E(ST_SPEC), E(INST_SPEC));
		break;
	case N3T_M_sve_all_percentage:
		Q(100, E(SVE_INST_SPEC), E(INST_SPEC));
		break;
	case N3T_M_sve_fp_ops_per_cycle:
		Q(1, E(FP_SCALE_OPS_SPEC), E(CPU_CYCLES));
		break;
	case N3T_M_sve_predicate_empty_percentage:
		Q(100, E(SVE_PRED_EMPTY_SPEC), E(SVE_PRED_SPEC));
		break;
	case N3T_M_sve_predicate_full_percentage:
		Q(100, E(SVE_PRED_FULL_SPEC), E(SVE_PRED_SPEC));
		break;
	case N3T_M_sve_predicate_partial_percentage:
		Q(100, E(SVE_PRED_PARTIAL_SPEC), E(SVE_PRED_SPEC));
		break;
	case N3T_M_sve_predicate_percentage:
		Q(100, E(SVE_PRED_SPEC), E(INST_SPEC));
		break;
	default:
		*num = 0;
		*den = -1;	/* no oracle: fails the test */
	}
#undef Q
#undef E
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

#define N3T_PROPERTY_VECTORS	10000

static u64 n3t_rand64(struct rnd_state *rnd)
{
	u64 hi = prandom_u32_state(rnd);

	return hi << 32 | prandom_u32_state(rnd);
}

/*
 * >= 10000 pseudo-random vectors (fixed seed): every printed metric is within
 * one unit of its last digit of the exact value; with consistent topdown
 * counts (STALL_SLOT = STALL_SLOT_FRONTEND + STALL_SLOT_BACKEND) the four
 * level 1 metrics sum to 100.00 +/- 0.02.
 */
static void n3t_property_test(struct kunit *test)
{
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	struct rnd_state rnd;
	unsigned int i, m, e, bad = 0, nan_ok = 0, sum_bad = 0;
	u64 *c = kunit_kzalloc(test, sizeof(u64) * N3T_NR_EVENTS, GFP_KERNEL);
	char buf[N3T_VALUE_BUF];

	KUNIT_ASSERT_NOT_NULL(test, c);
	n3t_all_counted(counted);
	prandom_seed_state(&rnd, 0x4e33);
	for (i = 0; i < N3T_PROPERTY_VECTORS; i++) {
		unsigned int bits = 1 + prandom_u32_state(&rnd) % 40;
		s64 l1 = 0;

		for (e = 0; e < N3T_NR_EVENTS; e++)
			c[e] = n3t_rand64(&rnd) >> (64 - bits);
		/* every other vector: consistent topdown counts */
		if (i & 1) {
			c[N3T_EV_CPU_CYCLES] |= 1;
			c[N3T_EV_STALL_SLOT_FRONTEND] %= 2 * c[N3T_EV_CPU_CYCLES];
			c[N3T_EV_STALL_SLOT_BACKEND] %= 2 * c[N3T_EV_CPU_CYCLES];
			c[N3T_EV_STALL_SLOT] = c[N3T_EV_STALL_SLOT_FRONTEND] +
					       c[N3T_EV_STALL_SLOT_BACKEND];
			c[N3T_EV_STALL_FRONTEND_FLUSH] %= c[N3T_EV_CPU_CYCLES];
			c[N3T_EV_OP_SPEC] |= 1;
			c[N3T_EV_OP_RETIRED] %= c[N3T_EV_OP_SPEC] + 1;
		}
		for (m = 0; m < N3T_NR_METRICS; m++) {
			unsigned int dec = n3t_unit_decimals(n3t_metrics[m].unit);
			__int128_t num, den, p10 = 1, lhs;
			s64 v = 0, digits;
			bool ok = n3t_eval(m, c, counted, 5, &v);

			n3t_oracle(m, c, 5, &num, &den);
			n3t_format(buf, sizeof(buf), m, v, ok);
			if (!den) {
				nan_ok += !ok;
				bad += ok;
				continue;
			}
			if (!ok || den < 0 || !n3t_parse_digits(buf, &digits)) {
				if (bad++ < 5)
					kunit_info(test, "%s: %s undefined",
						   n3t_metrics[m].name, buf);
				continue;
			}
			while (dec--)
				p10 *= 10;
			/* |digits / 10^dec - num / den| <= 1 / 10^dec */
			lhs = (__int128_t)digits * den - num * p10;
			if (lhs > den || -lhs > den) {
				if (bad++ < 5)
					kunit_info(test, "%s: printed %s, vector %u",
						   n3t_metrics[m].name, buf, i);
			}
			if ((i & 1) && (m == N3T_M_frontend_bound || m == N3T_M_backend_bound ||
					m == N3T_M_retiring || m == N3T_M_bad_speculation))
				l1 += digits;
		}
		if ((i & 1) && (l1 < 9998 || l1 > 10002))
			sum_bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, sum_bad, 0);
	kunit_info(test, "%u vectors, %u undefined as expected", i, nan_ok);
}

static struct n3t_plan *n3t_plan_alloc(struct kunit *test)
{
	struct n3t_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* All 18 groups (each, and all together) at C = 2..31, with and without PMCCNTR. */
static void n3t_packer_invariants_test(struct kunit *test)
{
	struct n3t_plan *a = n3t_plan_alloc(test), *b = n3t_plan_alloc(test);
	DECLARE_BITMAP(ev, N3T_NR_EVENTS);
	unsigned int cap, g, s, m, w;
	int cyc;

	for (cap = 2; cap <= N3T_MAX_CAPACITY; cap++) {
		for (cyc = 0; cyc <= 1; cyc++) {
			for (g = 0; g <= N3T_NR_GROUPS; g++) {
				u32 groups = g == N3T_NR_GROUPS ? N3T_ALL_GROUPS : BIT(g);

				KUNIT_ASSERT_EQ(test, n3t_pack(groups, cap, cyc, a), 0);
				KUNIT_ASSERT_EQ(test, n3t_pack(groups, cap, cyc, b), 0);
				KUNIT_EXPECT_EQ(test, memcmp(a, b, sizeof(*a)), 0);
				for (s = 0; s < a->nr_sets; s++) {
					w = bitmap_weight(a->set[s].events, N3T_NR_EVENTS);
					if (cyc && test_bit(N3T_EV_CPU_CYCLES, a->set[s].events))
						w--;
					KUNIT_EXPECT_LE(test, w, cap);
				}
				for (m = 0; m < N3T_NR_METRICS; m++) {
					if (!test_bit(m, a->selected))
						continue;
					bitmap_zero(ev, N3T_NR_EVENTS);
					n3t_metric_events(m, ev);
					w = bitmap_weight(ev, N3T_NR_EVENTS) -
					    (cyc && test_bit(N3T_EV_CPU_CYCLES, ev));
					if (w > cap) {
						KUNIT_EXPECT_TRUE(test,
								  test_bit(m, a->unschedulable));
						continue;
					}
					KUNIT_ASSERT_GE(test, a->metric_set[m], 0);
					s = a->metric_set[m];
					KUNIT_EXPECT_TRUE(test, bitmap_subset(ev, a->set[s].events,
									      N3T_NR_EVENTS));
				}
			}
		}
	}
	/*
	 * bad_speculation (SS, OR, OS, SFF + cycles) and barrier_percentage
	 * (ISB, DSB, DMB, INST_SPEC) need 4 counters; no metric needs more.
	 */
	KUNIT_ASSERT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 4, true, a), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(a->unschedulable, N3T_NR_METRICS));
	KUNIT_ASSERT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 3, true, a), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(a->unschedulable, N3T_NR_METRICS), 2U);
	KUNIT_EXPECT_TRUE(test, test_bit(N3T_M_bad_speculation, a->unschedulable));
	KUNIT_EXPECT_TRUE(test, test_bit(N3T_M_barrier_percentage, a->unschedulable));
	/* no metric is a single event: nothing fits one counter without PMCCNTR */
	KUNIT_EXPECT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 1, false, a), -ENOSPC);
	KUNIT_EXPECT_EQ(test, a->nr_sets, 0);
	KUNIT_ASSERT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 1, true, a), 0);
	KUNIT_EXPECT_FALSE(test, bitmap_empty(a->unschedulable, N3T_NR_METRICS));
	KUNIT_EXPECT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 0, true, a), -EINVAL);
	KUNIT_EXPECT_EQ(test, n3t_pack(N3T_ALL_GROUPS, 32, true, a), -EINVAL);
	KUNIT_EXPECT_EQ(test, n3t_pack(BIT(N3T_NR_GROUPS), 6, true, a), -EINVAL);
}

/*
 * -ENOSPC exactly when no selected metric fits: every group and all, at one
 * and two counters, with and without PMCCNTR.  At 1 counter with PMCCNTR
 * only metrics of one event over CPU_CYCLES fit.
 */
static void n3t_packer_nofit_test(struct kunit *test)
{
	struct n3t_plan *a = n3t_plan_alloc(test);
	DECLARE_BITMAP(ev, N3T_NR_EVENTS);
	unsigned int cap, g, i, w;
	int cyc, ret;

	for (cap = 1; cap <= 2; cap++) {
		for (cyc = 0; cyc <= 1; cyc++) {
			for (g = 0; g < N3T_NR_GROUPS; g++) {
				bool fits = false;

				for (i = 0; i < n3t_groups[g].nr; i++) {
					bitmap_zero(ev, N3T_NR_EVENTS);
					n3t_metric_events(n3t_groups[g].metrics[i], ev);
					w = bitmap_weight(ev, N3T_NR_EVENTS) -
					    (cyc && test_bit(N3T_EV_CPU_CYCLES, ev));
					fits |= w <= cap;
				}
				ret = n3t_pack(BIT(g), cap, cyc, a);
				KUNIT_EXPECT_EQ_MSG(test, ret, fits ? 0 : -ENOSPC,
						    "group %s cap %u cyc %d", n3t_groups[g].name,
						    cap, cyc);
				KUNIT_EXPECT_EQ(test, a->nr_sets == 0, !fits);
			}
		}
	}
	/* topdown_l1 at 1 counter + PMCCNTR: only backend_bound */
	KUNIT_ASSERT_EQ(test, n3t_pack(BIT(N3T_G_topdown_l1), 1, true, a), 0);
	KUNIT_EXPECT_EQ(test, a->nr_sets, 1);
	KUNIT_EXPECT_EQ(test, a->metric_set[N3T_M_backend_bound], 0);
	KUNIT_EXPECT_EQ(test, a->metric_set[N3T_M_frontend_bound], -1);
	KUNIT_EXPECT_EQ(test, n3t_pack(BIT(N3T_G_l1d_cache), 1, true, a), -ENOSPC);
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
		for_each_set_bit(e, p->set[s].events, N3T_NR_EVENTS) {
			KUNIT_ASSERT_LT(test, i, 8U);
			KUNIT_EXPECT_STREQ(test, n3t_events[e].name, want[s].ev[i]);
			i++;
		}
		KUNIT_EXPECT_TRUE(test, i == 8 || !want[s].ev[i]);
	}
}

/*
 * The default selection's sets, written out by hand from the packing rule:
 * groups in order, a group that fits is one unit, each unit goes where it
 * adds the fewest events.  Events are listed by event number.
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
		{ { "CPU_CYCLES", "STALL_FRONTEND", "STALL_SLOT_BACKEND",
		    "STALL_SLOT_FRONTEND", "STALL_FRONTEND_CPUBOUND", "STALL_FRONTEND_FLUSH" } },
		{ { "INST_RETIRED", "CPU_CYCLES", "OP_RETIRED", "OP_SPEC", "STALL_SLOT",
		    "STALL_FRONTEND_FLUSH" } },
		{ { "STALL_FRONTEND", "STALL_FRONTEND_MEMBOUND", "STALL_FRONTEND_TLB",
		    "STALL_FRONTEND_CPUBOUND", "STALL_FRONTEND_FLOW" } },
		{ { "STALL_BACKEND", "STALL_FRONTEND_MEMBOUND", "STALL_FRONTEND_L1I",
		    "STALL_FRONTEND_MEM", "STALL_BACKEND_CPUBOUND" } },
		{ { "STALL_BACKEND", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_CPUBOUND",
		    "STALL_BACKEND_BUSY", "STALL_BACKEND_RENAME" } },
		{ { "STALL_BACKEND_MEM", "STALL_BACKEND_MEMBOUND", "STALL_BACKEND_L1D",
		    "STALL_BACKEND_TLB", "STALL_BACKEND_ST" } },
		{ { "L1I_CACHE_REFILL", "L1D_CACHE_REFILL", "L1D_CACHE", "INST_RETIRED",
		    "L1I_CACHE" } },
		{ { "INST_RETIRED", "L2D_CACHE", "L2D_CACHE_REFILL", "LL_CACHE_RD",
		    "LL_CACHE_MISS_RD" } },
	};
	struct n3t_plan *p = n3t_plan_alloc(test);

	KUNIT_ASSERT_EQ(test, n3t_pack(N3T_DEFAULT_GROUPS, 6, true, p), 0);
	n3t_expect_sets(test, p, c6, ARRAY_SIZE(c6));
	/* topdown_l1 in one set at C = 6 */
	KUNIT_EXPECT_EQ(test, p->metric_set[N3T_M_frontend_bound], 0);
	KUNIT_EXPECT_EQ(test, p->metric_set[N3T_M_backend_bound], 0);
	KUNIT_EXPECT_EQ(test, p->metric_set[N3T_M_retiring], 0);
	KUNIT_EXPECT_EQ(test, p->metric_set[N3T_M_bad_speculation], 0);
	KUNIT_ASSERT_EQ(test, n3t_pack(N3T_DEFAULT_GROUPS, 5, true, p), 0);
	n3t_expect_sets(test, p, c5, ARRAY_SIZE(c5));
}

static void n3t_tables_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, N3T_NR_EVENTS, 66);
	KUNIT_EXPECT_EQ(test, N3T_NR_METRICS, 67);
	KUNIT_EXPECT_EQ(test, N3T_NR_GROUPS, 18);
	KUNIT_EXPECT_EQ(test, n3t_events[N3T_EV_STALL_SLOT].code, 0x3f);
	KUNIT_EXPECT_EQ(test, n3t_event_by_name("STALL_BACKEND_MEM"), N3T_EV_STALL_BACKEND_MEM);
	KUNIT_EXPECT_EQ(test, n3t_event_by_code(0x11), N3T_EV_CPU_CYCLES);
	KUNIT_EXPECT_EQ(test, n3t_group_by_name("ll_cache", 8), N3T_G_ll_cache);
	KUNIT_EXPECT_EQ(test, n3t_group_by_name("ll_cach", 7), -ENOENT);
}

static struct kunit_case n3t_engine_cases[] = {
	KUNIT_CASE(n3t_tables_test),
	KUNIT_CASE_PARAM(n3t_metric_vector_test, n3t_vector_gen_params),
	KUNIT_CASE(n3t_uncounted_test),
	KUNIT_CASE(n3t_format_test),
	KUNIT_CASE(n3t_slots_test),
	KUNIT_CASE_SLOW(n3t_property_test),
	KUNIT_CASE(n3t_packer_invariants_test),
	KUNIT_CASE(n3t_packer_nofit_test),
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
