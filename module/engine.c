// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry engine: event table, metric formulas in fixed point, metric
 * groups and the event-set packer.  See engine.h.
 *
 * Event numbers, metric names, units, formulas and groups follow Arm's
 * Neoverse N3 telemetry specification.
 */
#include "engine.h"

const struct n3t_event_desc n3t_events[N3T_NR_EVENTS] = {
	[N3T_EV_L1I_CACHE_REFILL] = { "L1I_CACHE_REFILL", 0x0001 },
	[N3T_EV_L1I_TLB_REFILL] = { "L1I_TLB_REFILL", 0x0002 },
	[N3T_EV_L1D_CACHE_REFILL] = { "L1D_CACHE_REFILL", 0x0003 },
	[N3T_EV_L1D_CACHE] = { "L1D_CACHE", 0x0004 },
	[N3T_EV_L1D_TLB_REFILL] = { "L1D_TLB_REFILL", 0x0005 },
	[N3T_EV_INST_RETIRED] = { "INST_RETIRED", 0x0008 },
	[N3T_EV_BR_IMMED_RETIRED] = { "BR_IMMED_RETIRED", 0x000d },
	[N3T_EV_BR_RETURN_RETIRED] = { "BR_RETURN_RETIRED", 0x000e },
	[N3T_EV_CPU_CYCLES] = { "CPU_CYCLES", 0x0011 },
	[N3T_EV_L1I_CACHE] = { "L1I_CACHE", 0x0014 },
	[N3T_EV_L2D_CACHE] = { "L2D_CACHE", 0x0016 },
	[N3T_EV_L2D_CACHE_REFILL] = { "L2D_CACHE_REFILL", 0x0017 },
	[N3T_EV_INST_SPEC] = { "INST_SPEC", 0x001b },
	[N3T_EV_BR_RETIRED] = { "BR_RETIRED", 0x0021 },
	[N3T_EV_BR_MIS_PRED_RETIRED] = { "BR_MIS_PRED_RETIRED", 0x0022 },
	[N3T_EV_STALL_FRONTEND] = { "STALL_FRONTEND", 0x0023 },
	[N3T_EV_STALL_BACKEND] = { "STALL_BACKEND", 0x0024 },
	[N3T_EV_L1D_TLB] = { "L1D_TLB", 0x0025 },
	[N3T_EV_L1I_TLB] = { "L1I_TLB", 0x0026 },
	[N3T_EV_L2D_TLB_REFILL] = { "L2D_TLB_REFILL", 0x002d },
	[N3T_EV_L2D_TLB] = { "L2D_TLB", 0x002f },
	[N3T_EV_DTLB_WALK] = { "DTLB_WALK", 0x0034 },
	[N3T_EV_ITLB_WALK] = { "ITLB_WALK", 0x0035 },
	[N3T_EV_LL_CACHE_RD] = { "LL_CACHE_RD", 0x0036 },
	[N3T_EV_LL_CACHE_MISS_RD] = { "LL_CACHE_MISS_RD", 0x0037 },
	[N3T_EV_OP_RETIRED] = { "OP_RETIRED", 0x003a },
	[N3T_EV_OP_SPEC] = { "OP_SPEC", 0x003b },
	[N3T_EV_STALL_SLOT_BACKEND] = { "STALL_SLOT_BACKEND", 0x003d },
	[N3T_EV_STALL_SLOT_FRONTEND] = { "STALL_SLOT_FRONTEND", 0x003e },
	[N3T_EV_STALL_SLOT] = { "STALL_SLOT", 0x003f },
	[N3T_EV_LD_SPEC] = { "LD_SPEC", 0x0070 },
	[N3T_EV_ST_SPEC] = { "ST_SPEC", 0x0071 },
	[N3T_EV_DP_SPEC] = { "DP_SPEC", 0x0073 },
	[N3T_EV_ASE_SPEC] = { "ASE_SPEC", 0x0074 },
	[N3T_EV_VFP_SPEC] = { "VFP_SPEC", 0x0075 },
	[N3T_EV_PC_WRITE_SPEC] = { "PC_WRITE_SPEC", 0x0076 },
	[N3T_EV_CRYPTO_SPEC] = { "CRYPTO_SPEC", 0x0077 },
	[N3T_EV_ISB_SPEC] = { "ISB_SPEC", 0x007c },
	[N3T_EV_DSB_SPEC] = { "DSB_SPEC", 0x007d },
	[N3T_EV_DMB_SPEC] = { "DMB_SPEC", 0x007e },
	[N3T_EV_STALL_BACKEND_MEM] = { "STALL_BACKEND_MEM", 0x4005 },
	[N3T_EV_SVE_INST_SPEC] = { "SVE_INST_SPEC", 0x8006 },
	[N3T_EV_FP_HP_SPEC] = { "FP_HP_SPEC", 0x8014 },
	[N3T_EV_FP_SP_SPEC] = { "FP_SP_SPEC", 0x8018 },
	[N3T_EV_FP_DP_SPEC] = { "FP_DP_SPEC", 0x801c },
	[N3T_EV_SVE_PRED_SPEC] = { "SVE_PRED_SPEC", 0x8074 },
	[N3T_EV_SVE_PRED_EMPTY_SPEC] = { "SVE_PRED_EMPTY_SPEC", 0x8075 },
	[N3T_EV_SVE_PRED_FULL_SPEC] = { "SVE_PRED_FULL_SPEC", 0x8076 },
	[N3T_EV_SVE_PRED_PARTIAL_SPEC] = { "SVE_PRED_PARTIAL_SPEC", 0x8077 },
	[N3T_EV_FP_SCALE_OPS_SPEC] = { "FP_SCALE_OPS_SPEC", 0x80c0 },
	[N3T_EV_FP_FIXED_OPS_SPEC] = { "FP_FIXED_OPS_SPEC", 0x80c1 },
	[N3T_EV_BR_IND_RETIRED] = { "BR_IND_RETIRED", 0x811d },
	[N3T_EV_STALL_FRONTEND_MEMBOUND] = { "STALL_FRONTEND_MEMBOUND", 0x8158 },
	[N3T_EV_STALL_FRONTEND_L1I] = { "STALL_FRONTEND_L1I", 0x8159 },
	[N3T_EV_STALL_FRONTEND_MEM] = { "STALL_FRONTEND_MEM", 0x815b },
	[N3T_EV_STALL_FRONTEND_TLB] = { "STALL_FRONTEND_TLB", 0x815c },
	[N3T_EV_STALL_FRONTEND_CPUBOUND] = { "STALL_FRONTEND_CPUBOUND", 0x8160 },
	[N3T_EV_STALL_FRONTEND_FLOW] = { "STALL_FRONTEND_FLOW", 0x8161 },
	[N3T_EV_STALL_FRONTEND_FLUSH] = { "STALL_FRONTEND_FLUSH", 0x8162 },
	[N3T_EV_STALL_BACKEND_MEMBOUND] = { "STALL_BACKEND_MEMBOUND", 0x8164 },
	[N3T_EV_STALL_BACKEND_L1D] = { "STALL_BACKEND_L1D", 0x8165 },
	[N3T_EV_STALL_BACKEND_TLB] = { "STALL_BACKEND_TLB", 0x8167 },
	[N3T_EV_STALL_BACKEND_ST] = { "STALL_BACKEND_ST", 0x8168 },
	[N3T_EV_STALL_BACKEND_CPUBOUND] = { "STALL_BACKEND_CPUBOUND", 0x816a },
	[N3T_EV_STALL_BACKEND_BUSY] = { "STALL_BACKEND_BUSY", 0x816b },
	[N3T_EV_STALL_BACKEND_RENAME] = { "STALL_BACKEND_RENAME", 0x816d },
};

/* Addends of a linear sum: +e, -e, +slots*e. */
#define P(e)		{ .ev = N3T_EV_##e, .k = 1 }
#define N(e)		{ .ev = N3T_EV_##e, .k = -1 }
#define PS(e)		{ .ev = N3T_EV_##e, .k = N3T_K_SLOTS }
#define SUM(...)	{ __VA_ARGS__ }
#define TERM1(s, n, d)	{ .scale = s, .frac = { { .num = n, .den = d } } }
#define TERM2(s, n0, d0, n1, d1) \
	{ .scale = s, .frac = { { .num = n0, .den = d0 }, { .num = n1, .den = d1 } } }
#define RATIO(nm, u, s, n, d) \
	[N3T_M_##nm] = { .name = #nm, .unit = N3T_U_##u, \
			 .term = { { .scale = s, .frac = { { .num = n, .den = d } } } } }

const struct n3t_metric_desc n3t_metrics[N3T_NR_METRICS] = {
	RATIO(backend_bound, PCT_SLOTS, 100,
	      SUM(P(STALL_SLOT_BACKEND)), SUM(PS(CPU_CYCLES))),
	RATIO(backend_busy_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_BUSY)), SUM(P(STALL_BACKEND))),
	RATIO(backend_cache_l1d_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_L1D)), SUM(P(STALL_BACKEND_L1D), P(STALL_BACKEND_MEM))),
	RATIO(backend_cache_l2d_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_MEM)), SUM(P(STALL_BACKEND_L1D), P(STALL_BACKEND_MEM))),
	RATIO(backend_core_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_CPUBOUND)), SUM(P(STALL_BACKEND))),
	RATIO(backend_core_rename_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_RENAME)), SUM(P(STALL_BACKEND_CPUBOUND))),
	RATIO(backend_mem_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_MEMBOUND)), SUM(P(STALL_BACKEND))),
	RATIO(backend_mem_cache_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_L1D), P(STALL_BACKEND_MEM)), SUM(P(STALL_BACKEND_MEMBOUND))),
	RATIO(backend_mem_store_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_ST)), SUM(P(STALL_BACKEND_MEMBOUND))),
	RATIO(backend_mem_tlb_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND_TLB)), SUM(P(STALL_BACKEND_MEMBOUND))),
	RATIO(backend_stalled_cycles, PCT_CYCLES, 100,
	      SUM(P(STALL_BACKEND)), SUM(P(CPU_CYCLES))),
	[N3T_M_bad_speculation] = {
		.name = "bad_speculation",
		.unit = N3T_U_PCT_SLOTS,
		.term = {
			TERM2(100, SUM(PS(CPU_CYCLES), N(STALL_SLOT)), SUM(PS(CPU_CYCLES)),
			      SUM(P(OP_SPEC), N(OP_RETIRED)), SUM(P(OP_SPEC))),
			TERM1(100, SUM(P(STALL_FRONTEND_FLUSH)), SUM(P(CPU_CYCLES))),
		},
	},
	RATIO(barrier_percentage, PCT_OPS, 100,
	      SUM(P(ISB_SPEC), P(DSB_SPEC), P(DMB_SPEC)), SUM(P(INST_SPEC))),
	RATIO(branch_direct_ratio, PER_BRANCH, 1,
	      SUM(P(BR_IMMED_RETIRED)), SUM(P(BR_RETIRED))),
	RATIO(branch_indirect_ratio, PER_BRANCH, 1,
	      SUM(P(BR_IND_RETIRED)), SUM(P(BR_RETIRED))),
	RATIO(branch_misprediction_ratio, PER_BRANCH, 1,
	      SUM(P(BR_MIS_PRED_RETIRED)), SUM(P(BR_RETIRED))),
	RATIO(branch_mpki, MPKI, 1000,
	      SUM(P(BR_MIS_PRED_RETIRED)), SUM(P(INST_RETIRED))),
	RATIO(branch_percentage, PCT_OPS, 100,
	      SUM(P(PC_WRITE_SPEC)), SUM(P(INST_SPEC))),
	RATIO(branch_return_ratio, PER_BRANCH, 1,
	      SUM(P(BR_RETURN_RETIRED)), SUM(P(BR_RETIRED))),
	RATIO(crypto_percentage, PCT_OPS, 100,
	      SUM(P(CRYPTO_SPEC)), SUM(P(INST_SPEC))),
	RATIO(dtlb_mpki, MPKI, 1000,
	      SUM(P(DTLB_WALK)), SUM(P(INST_RETIRED))),
	RATIO(dtlb_walk_ratio, PER_TLB_ACCESS, 1,
	      SUM(P(DTLB_WALK)), SUM(P(L1D_TLB))),
	RATIO(fp16_percentage, PCT_OPS, 100,
	      SUM(P(FP_HP_SPEC)), SUM(P(INST_SPEC))),
	RATIO(fp32_percentage, PCT_OPS, 100,
	      SUM(P(FP_SP_SPEC)), SUM(P(INST_SPEC))),
	RATIO(fp64_percentage, PCT_OPS, 100,
	      SUM(P(FP_DP_SPEC)), SUM(P(INST_SPEC))),
	RATIO(fp_ops_per_cycle, OPS_PER_CYCLE, 1,
	      SUM(P(FP_SCALE_OPS_SPEC), P(FP_FIXED_OPS_SPEC)), SUM(P(CPU_CYCLES))),
	[N3T_M_frontend_bound] = {
		.name = "frontend_bound",
		.unit = N3T_U_PCT_SLOTS,
		.term = {
			TERM1(100, SUM(P(STALL_SLOT_FRONTEND)), SUM(PS(CPU_CYCLES))),
			TERM1(100, SUM(N(STALL_FRONTEND_FLUSH)), SUM(P(CPU_CYCLES))),
		},
	},
	RATIO(frontend_cache_l1i_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_L1I)), SUM(P(STALL_FRONTEND_L1I), P(STALL_FRONTEND_MEM))),
	RATIO(frontend_cache_l2i_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_MEM)), SUM(P(STALL_FRONTEND_L1I), P(STALL_FRONTEND_MEM))),
	RATIO(frontend_core_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_CPUBOUND)), SUM(P(STALL_FRONTEND))),
	RATIO(frontend_core_flow_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_FLOW)), SUM(P(STALL_FRONTEND_CPUBOUND))),
	RATIO(frontend_core_flush_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_FLUSH)), SUM(P(STALL_FRONTEND_CPUBOUND))),
	RATIO(frontend_mem_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_MEMBOUND)), SUM(P(STALL_FRONTEND))),
	RATIO(frontend_mem_cache_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_L1I), P(STALL_FRONTEND_MEM)), SUM(P(STALL_FRONTEND_MEMBOUND))),
	RATIO(frontend_mem_tlb_bound, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND_TLB)), SUM(P(STALL_FRONTEND_MEMBOUND))),
	RATIO(frontend_stalled_cycles, PCT_CYCLES, 100,
	      SUM(P(STALL_FRONTEND)), SUM(P(CPU_CYCLES))),
	RATIO(integer_dp_percentage, PCT_OPS, 100,
	      SUM(P(DP_SPEC), N(DSB_SPEC)), SUM(P(INST_SPEC))),
	RATIO(ipc, PER_CYCLE, 1,
	      SUM(P(INST_RETIRED)), SUM(P(CPU_CYCLES))),
	RATIO(itlb_mpki, MPKI, 1000,
	      SUM(P(ITLB_WALK)), SUM(P(INST_RETIRED))),
	RATIO(itlb_walk_ratio, PER_TLB_ACCESS, 1,
	      SUM(P(ITLB_WALK)), SUM(P(L1I_TLB))),
	RATIO(l1d_cache_miss_ratio, PER_CACHE_ACCESS, 1,
	      SUM(P(L1D_CACHE_REFILL)), SUM(P(L1D_CACHE))),
	RATIO(l1d_cache_mpki, MPKI, 1000,
	      SUM(P(L1D_CACHE_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(l1d_tlb_miss_ratio, PER_TLB_ACCESS, 1,
	      SUM(P(L1D_TLB_REFILL)), SUM(P(L1D_TLB))),
	RATIO(l1d_tlb_mpki, MPKI, 1000,
	      SUM(P(L1D_TLB_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(l1i_cache_miss_ratio, PER_CACHE_ACCESS, 1,
	      SUM(P(L1I_CACHE_REFILL)), SUM(P(L1I_CACHE))),
	RATIO(l1i_cache_mpki, MPKI, 1000,
	      SUM(P(L1I_CACHE_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(l1i_tlb_miss_ratio, PER_TLB_ACCESS, 1,
	      SUM(P(L1I_TLB_REFILL)), SUM(P(L1I_TLB))),
	RATIO(l1i_tlb_mpki, MPKI, 1000,
	      SUM(P(L1I_TLB_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(l2_cache_miss_ratio, PER_CACHE_ACCESS, 1,
	      SUM(P(L2D_CACHE_REFILL)), SUM(P(L2D_CACHE))),
	RATIO(l2_cache_mpki, MPKI, 1000,
	      SUM(P(L2D_CACHE_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(l2_tlb_miss_ratio, PER_TLB_ACCESS, 1,
	      SUM(P(L2D_TLB_REFILL)), SUM(P(L2D_TLB))),
	RATIO(l2_tlb_mpki, MPKI, 1000,
	      SUM(P(L2D_TLB_REFILL)), SUM(P(INST_RETIRED))),
	RATIO(ll_cache_read_hit_ratio, PER_CACHE_ACCESS, 1,
	      SUM(P(LL_CACHE_RD), N(LL_CACHE_MISS_RD)), SUM(P(LL_CACHE_RD))),
	RATIO(ll_cache_read_miss_ratio, PER_CACHE_ACCESS, 1,
	      SUM(P(LL_CACHE_MISS_RD)), SUM(P(LL_CACHE_RD))),
	RATIO(ll_cache_read_mpki, MPKI, 1000,
	      SUM(P(LL_CACHE_MISS_RD)), SUM(P(INST_RETIRED))),
	RATIO(load_percentage, PCT_OPS, 100,
	      SUM(P(LD_SPEC)), SUM(P(INST_SPEC))),
	RATIO(nonsve_fp_ops_per_cycle, OPS_PER_CYCLE, 1,
	      SUM(P(FP_FIXED_OPS_SPEC)), SUM(P(CPU_CYCLES))),
	[N3T_M_retiring] = {
		.name = "retiring",
		.unit = N3T_U_PCT_SLOTS,
		.term = {
			TERM2(100, SUM(PS(CPU_CYCLES), N(STALL_SLOT)), SUM(PS(CPU_CYCLES)),
			      SUM(P(OP_RETIRED)), SUM(P(OP_SPEC))),
		},
	},
	RATIO(scalar_fp_percentage, PCT_OPS, 100,
	      SUM(P(VFP_SPEC)), SUM(P(INST_SPEC))),
	RATIO(simd_percentage, PCT_OPS, 100,
	      SUM(P(ASE_SPEC)), SUM(P(INST_SPEC))),
	RATIO(store_percentage, PCT_OPS, 100,
	      SUM(P(ST_SPEC)), SUM(P(INST_SPEC))),
	RATIO(sve_all_percentage, PCT_OPS, 100,
	      SUM(P(SVE_INST_SPEC)), SUM(P(INST_SPEC))),
	RATIO(sve_fp_ops_per_cycle, OPS_PER_CYCLE, 1,
	      SUM(P(FP_SCALE_OPS_SPEC)), SUM(P(CPU_CYCLES))),
	RATIO(sve_predicate_empty_percentage, PCT_OPS, 100,
	      SUM(P(SVE_PRED_EMPTY_SPEC)), SUM(P(SVE_PRED_SPEC))),
	RATIO(sve_predicate_full_percentage, PCT_OPS, 100,
	      SUM(P(SVE_PRED_FULL_SPEC)), SUM(P(SVE_PRED_SPEC))),
	RATIO(sve_predicate_partial_percentage, PCT_OPS, 100,
	      SUM(P(SVE_PRED_PARTIAL_SPEC)), SUM(P(SVE_PRED_SPEC))),
	RATIO(sve_predicate_percentage, PCT_OPS, 100,
	      SUM(P(SVE_PRED_SPEC)), SUM(P(INST_SPEC))),
};

#undef P
#undef N
#undef PS

#define M(x)	N3T_M_##x
#define GROUP(g, spec, ...) \
	[N3T_G_##g] = { .name = #g, .spec_name = spec, \
			.nr = sizeof((u8[]){ __VA_ARGS__ }), .metrics = { __VA_ARGS__ } }

const struct n3t_group_desc n3t_groups[N3T_NR_GROUPS] = {
	GROUP(topdown_l1, "Topdown_L1",
	      M(frontend_bound), M(backend_bound), M(retiring), M(bad_speculation)),
	GROUP(topdown_frontend, "Topdown_Frontend",
	      M(frontend_core_bound), M(frontend_mem_bound), M(frontend_core_flush_bound),
	      M(frontend_core_flow_bound), M(frontend_mem_cache_bound), M(frontend_mem_tlb_bound),
	      M(frontend_cache_l1i_bound), M(frontend_cache_l2i_bound)),
	GROUP(topdown_backend, "Topdown_Backend",
	      M(backend_core_bound), M(backend_mem_bound), M(backend_core_rename_bound),
	      M(backend_busy_bound), M(backend_mem_cache_bound), M(backend_mem_tlb_bound),
	      M(backend_mem_store_bound), M(backend_cache_l1d_bound), M(backend_cache_l2d_bound)),
	GROUP(cycle_accounting, "Cycle_Accounting",
	      M(frontend_stalled_cycles), M(backend_stalled_cycles)),
	GROUP(general, "General", M(ipc)),
	GROUP(mpki, "MPKI",
	      M(branch_mpki), M(itlb_mpki), M(dtlb_mpki), M(l1i_tlb_mpki), M(l1d_tlb_mpki),
	      M(l2_tlb_mpki), M(l1i_cache_mpki), M(l1d_cache_mpki), M(l2_cache_mpki),
	      M(ll_cache_read_mpki)),
	GROUP(miss_ratio, "Miss_Ratio",
	      M(branch_misprediction_ratio), M(itlb_walk_ratio), M(dtlb_walk_ratio),
	      M(l1i_tlb_miss_ratio), M(l1d_tlb_miss_ratio), M(l2_tlb_miss_ratio),
	      M(l1i_cache_miss_ratio), M(l1d_cache_miss_ratio), M(l2_cache_miss_ratio),
	      M(ll_cache_read_miss_ratio)),
	GROUP(branch, "Branch_Effectiveness",
	      M(branch_mpki), M(branch_misprediction_ratio), M(branch_direct_ratio),
	      M(branch_indirect_ratio), M(branch_return_ratio)),
	GROUP(itlb, "ITLB_Effectiveness",
	      M(itlb_mpki), M(itlb_walk_ratio), M(l1i_tlb_mpki), M(l1i_tlb_miss_ratio),
	      M(l2_tlb_mpki), M(l2_tlb_miss_ratio)),
	GROUP(dtlb, "DTLB_Effectiveness",
	      M(dtlb_mpki), M(dtlb_walk_ratio), M(l1d_tlb_mpki), M(l1d_tlb_miss_ratio),
	      M(l2_tlb_mpki), M(l2_tlb_miss_ratio)),
	GROUP(l1i_cache, "L1I_Cache_Effectiveness", M(l1i_cache_mpki), M(l1i_cache_miss_ratio)),
	GROUP(l1d_cache, "L1D_Cache_Effectiveness", M(l1d_cache_mpki), M(l1d_cache_miss_ratio)),
	GROUP(l2_cache, "L2_Cache_Effectiveness", M(l2_cache_mpki), M(l2_cache_miss_ratio)),
	GROUP(ll_cache, "LL_Cache_Effectiveness",
	      M(ll_cache_read_mpki), M(ll_cache_read_miss_ratio), M(ll_cache_read_hit_ratio)),
	GROUP(operation_mix, "Operation_Mix",
	      M(load_percentage), M(store_percentage), M(integer_dp_percentage),
	      M(simd_percentage), M(scalar_fp_percentage), M(barrier_percentage),
	      M(branch_percentage), M(crypto_percentage), M(sve_all_percentage)),
	GROUP(sve, "SVE_Effectiveness",
	      M(sve_predicate_percentage), M(sve_predicate_full_percentage),
	      M(sve_predicate_partial_percentage), M(sve_predicate_empty_percentage)),
	GROUP(fp_arithmetic, "FP_Arithmetic_Intensity",
	      M(nonsve_fp_ops_per_cycle), M(sve_fp_ops_per_cycle), M(fp_ops_per_cycle)),
	GROUP(fp_precision, "FP_Precision_Mix",
	      M(fp16_percentage), M(fp32_percentage), M(fp64_percentage)),
};

static const struct {
	const char *name;
	u8 decimals;
} n3t_units[N3T_NR_UNITS] = {
	[N3T_U_PCT_SLOTS]	= { "percent of slots", 2 },
	[N3T_U_PCT_CYCLES]	= { "percent of cycles", 2 },
	[N3T_U_PCT_OPS]		= { "percent of operations", 2 },
	[N3T_U_MPKI]		= { "MPKI", 3 },
	[N3T_U_PER_CYCLE]	= { "per cycle", 3 },
	[N3T_U_OPS_PER_CYCLE]	= { "operations per cycle", 3 },
	[N3T_U_PER_BRANCH]	= { "per branch", 4 },
	[N3T_U_PER_TLB_ACCESS]	= { "per TLB access", 4 },
	[N3T_U_PER_CACHE_ACCESS] = { "per cache access", 4 },
};

const char *n3t_unit_name(enum n3t_unit unit)
{
	return n3t_units[unit].name;
}

unsigned int n3t_unit_decimals(enum n3t_unit unit)
{
	return n3t_units[unit].decimals;
}

int n3t_event_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < N3T_NR_EVENTS; i++)
		if (!strcmp(n3t_events[i].name, name))
			return i;
	return -ENOENT;
}

int n3t_event_by_code(unsigned int code)
{
	unsigned int i;

	for (i = 0; i < N3T_NR_EVENTS; i++)
		if (n3t_events[i].code == code)
			return i;
	return -ENOENT;
}

/* @name need not be NUL-terminated: @len characters are compared. */
int n3t_group_by_name(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < N3T_NR_GROUPS; i++)
		if (strlen(n3t_groups[i].name) == len &&
		    !strncmp(n3t_groups[i].name, name, len))
			return i;
	return -ENOENT;
}

static void n3t_sum_events(const struct n3t_addend *a, unsigned long *events)
{
	unsigned int i;

	for (i = 0; i < 3 && a[i].k; i++)
		__set_bit(a[i].ev, events);
}

/**
 * n3t_metric_events() - add the events a metric needs to a bitmap
 * @metric: enum n3t_metric_id
 * @events: bitmap of N3T_NR_EVENTS bits, not cleared first
 */
void n3t_metric_events(unsigned int metric, unsigned long *events)
{
	const struct n3t_metric_desc *m = &n3t_metrics[metric];
	unsigned int t, f;

	for (t = 0; t < 2 && m->term[t].scale; t++) {
		for (f = 0; f < 2 && m->term[t].frac[f].den[0].k; f++) {
			n3t_sum_events(m->term[t].frac[f].num, events);
			n3t_sum_events(m->term[t].frac[f].den, events);
		}
	}
}

/**
 * n3t_group_events() - add the events a group's metrics need to a bitmap
 * @group: enum n3t_group_id
 * @events: bitmap of N3T_NR_EVENTS bits, not cleared first
 */
void n3t_group_events(unsigned int group, unsigned long *events)
{
	unsigned int i;

	for (i = 0; i < n3t_groups[group].nr; i++)
		n3t_metric_events(n3t_groups[group].metrics[i], events);
}

/*
 * Fixed-point arithmetic.  Linear sums of counts below 2^64 with slot
 * weights below 256 fit easily in 128 bits; quotients are taken with the
 * kernel's mul_u64_u64_div_u64() after scaling both operands into 64 bits.
 */
static __int128_t n3t_sum(const struct n3t_addend *a, const u64 *counts, unsigned int slots)
{
	__int128_t sum = 0;
	unsigned int i;

	for (i = 0; i < 3 && a[i].k; i++) {
		__int128_t v = counts[a[i].ev];

		if (a[i].k == N3T_K_SLOTS || a[i].k == -N3T_K_SLOTS)
			v *= slots;
		sum += a[i].k < 0 ? -v : v;
	}
	return sum;
}

/* floor(a * b / c) for a, b, c < 2^64, c != 0; false if it exceeds S64_MAX. */
static bool n3t_muldiv(u64 a, u64 b, u64 c, u64 *res)
{
	u64 q, r, lo;

	q = div64_u64_rem(a, c, &r);
	if (q && b > (u64)S64_MAX / q)
		return false;
	lo = mul_u64_u64_div_u64(r, b, c);	/* r < c, so lo < b */
	if (q * b > (u64)S64_MAX - lo)
		return false;
	*res = q * b + lo;
	return true;
}

/* num / den * mul, truncated towards zero; false if undefined or too large. */
static bool n3t_ratio(__int128_t num, __int128_t den, u64 mul, s64 *res)
{
	bool neg = (num < 0) != (den < 0);
	__uint128_t n = num < 0 ? -num : num;
	__uint128_t d = den < 0 ? -den : den;
	u64 q;

	/* Keep the ratio, drop insignificant low bits, until both fit. */
	while ((n | d) >> 64) {
		n >>= 1;
		d >>= 1;
	}
	if (!d || !n3t_muldiv((u64)n, mul, (u64)d, &q))
		return false;
	*res = neg ? -(s64)q : (s64)q;
	return true;
}

/* Fractions of a two-factor term are carried with 12 decimal places. */
#define N3T_FRAC_SCALE	1000000000000ULL

static bool n3t_term(const struct n3t_term *t, const u64 *counts, unsigned int slots,
		     s64 *res)
{
	const struct n3t_frac *f0 = &t->frac[0], *f1 = &t->frac[1];
	u64 mul = (u64)t->scale * N3T_FIXED_SCALE;
	s64 x, y;

	if (!f1->den[0].k)
		return n3t_ratio(n3t_sum(f0->num, counts, slots),
				 n3t_sum(f0->den, counts, slots), mul, res);

	/* x = f1 * 1e12; y = f0 * x; result = y * mul / 1e12 */
	if (!n3t_ratio(n3t_sum(f1->num, counts, slots), n3t_sum(f1->den, counts, slots),
		       N3T_FRAC_SCALE, &x))
		return false;
	if (!n3t_ratio(n3t_sum(f0->num, counts, slots), n3t_sum(f0->den, counts, slots),
		       x < 0 ? -(u64)x : (u64)x, &y))
		return false;
	if (x < 0)
		y = -y;
	return n3t_ratio(y, N3T_FRAC_SCALE, mul, res);
}

/**
 * n3t_eval() - evaluate one metric from event count deltas
 * @metric: enum n3t_metric_id
 * @counts: N3T_NR_EVENTS deltas, indexed by enum n3t_event_id
 * @counted: bitmap of the events whose delta in @counts is a measurement
 * @slots: rename slots per cycle (5 on N3)
 * @value: the value in millionths of the metric's unit
 *
 * Return: true if @value is defined; false if an event was not counted, a
 * denominator is zero or the value does not fit in an s64.
 */
bool n3t_eval(unsigned int metric, const u64 *counts, const unsigned long *counted,
	      unsigned int slots, s64 *value)
{
	const struct n3t_metric_desc *m = &n3t_metrics[metric];
	DECLARE_BITMAP(need, N3T_NR_EVENTS);
	s64 sum = 0, v;
	unsigned int t;

	bitmap_zero(need, N3T_NR_EVENTS);
	n3t_metric_events(metric, need);
	if (!bitmap_subset(need, counted, N3T_NR_EVENTS))
		return false;

	for (t = 0; t < 2 && m->term[t].scale; t++) {
		if (!n3t_term(&m->term[t], counts, slots, &v))
			return false;
		if ((v > 0 && sum > S64_MAX - v) || (v < 0 && sum < -S64_MAX - v))
			return false;
		sum += v;
	}
	*value = sum;
	return true;
}

/**
 * n3t_eval_set() - evaluate the metrics a plan computes from one set
 * @plan: the plan
 * @set: index of the set whose deltas are in @counts
 * @counts: N3T_NR_EVENTS deltas; only the set's events are read
 * @counted: events whose delta is a measurement
 * @slots: rename slots per cycle
 * @values: N3T_NR_METRICS values; the set's metrics are written
 * @valid: bitmap of defined values; the set's metrics are set or cleared
 */
void n3t_eval_set(const struct n3t_plan *plan, unsigned int set, const u64 *counts,
		  const unsigned long *counted, unsigned int slots, s64 *values,
		  unsigned long *valid)
{
	unsigned int m;

	for_each_set_bit(m, plan->set[set].metrics, N3T_NR_METRICS) {
		if (n3t_eval(m, counts, counted, slots, &values[m]))
			__set_bit(m, valid);
		else
			__clear_bit(m, valid);
	}
}

/**
 * n3t_format() - print a metric value with its unit's precision
 * @buf: output buffer
 * @size: its size (N3T_VALUE_BUF is always enough)
 * @metric: enum n3t_metric_id, selects the number of decimals
 * @value: value in millionths of the unit
 * @valid: false prints "nan"
 *
 * Rounds half away from zero.
 *
 * Return: snprintf()'s result.
 */
int n3t_format(char *buf, size_t size, unsigned int metric, s64 value, bool valid)
{
	unsigned int dec = n3t_unit_decimals(n3t_metrics[metric].unit);
	u64 div = 1, pow = 1, mag, q;
	unsigned int i;

	if (!valid)
		return snprintf(buf, size, "nan");
	for (i = dec; i < 6; i++)
		div *= 10;
	for (i = 0; i < dec; i++)
		pow *= 10;
	mag = value < 0 ? -(u64)value : (u64)value;
	q = mag / div + (mag % div >= div / 2);
	return snprintf(buf, size, "%s%llu.%0*llu", value < 0 && q ? "-" : "",
			(unsigned long long)(q / pow), (int)dec,
			(unsigned long long)(q % pow));
}

/* Programmable counters a set of events needs. */
static unsigned int n3t_set_cost(const unsigned long *events, bool cycle_counter)
{
	unsigned int w = bitmap_weight(events, N3T_NR_EVENTS);

	if (cycle_counter && test_bit(N3T_EV_CPU_CYCLES, events))
		w--;
	return w;
}

/*
 * Place one unit (a whole group, or a single metric) into the set where it
 * adds the fewest events; open a new set if it fits nowhere.
 */
static void n3t_place(struct n3t_plan *plan, const unsigned long *events,
		      const unsigned long *metrics)
{
	DECLARE_BITMAP(merged, N3T_NR_EVENTS);
	unsigned int i, best = plan->nr_sets, best_add = ~0U, m;
	unsigned int have = bitmap_weight(events, N3T_NR_EVENTS);

	for (i = 0; i < plan->nr_sets; i++) {
		unsigned int add;

		bitmap_or(merged, plan->set[i].events, events, N3T_NR_EVENTS);
		if (n3t_set_cost(merged, plan->cycle_counter) > plan->capacity)
			continue;
		add = bitmap_weight(merged, N3T_NR_EVENTS) -
		      bitmap_weight(plan->set[i].events, N3T_NR_EVENTS);
		if (add < best_add) {
			best = i;
			best_add = add;
		}
		if (add == 0 && have)
			break;
	}
	if (best == plan->nr_sets)
		plan->nr_sets++;
	bitmap_or(plan->set[best].events, plan->set[best].events, events, N3T_NR_EVENTS);
	for_each_set_bit(m, metrics, N3T_NR_METRICS) {
		__set_bit(m, plan->set[best].metrics);
		plan->metric_set[m] = best;
	}
}

/**
 * n3t_pack() - pack the selected groups' events into counter-sized sets
 * @groups: bitmap of enum n3t_group_id
 * @capacity: usable programmable counters, 1..N3T_MAX_CAPACITY
 * @cycle_counter: CPU_CYCLES can be counted by the dedicated cycle counter
 * @plan: the result
 *
 * Groups are taken in order; a group whose remaining metrics fit in one set
 * is placed as a unit (so its metrics are counted together), otherwise its
 * metrics are placed one by one.  Each unit goes where it adds the fewest
 * new events (first such set on ties), so the result is deterministic.  A
 * metric whose events do not fit even alone is marked unschedulable; it is
 * never split across sets.
 *
 * Return: 0; -ENOSPC when no selected metric fits in @capacity (the plan
 * then has no set); -EINVAL for bad arguments.
 */
int n3t_pack(u32 groups, unsigned int capacity, bool cycle_counter,
	     struct n3t_plan *plan)
{
	DECLARE_BITMAP(events, N3T_NR_EVENTS);
	DECLARE_BITMAP(metrics, N3T_NR_METRICS);
	DECLARE_BITMAP(one, N3T_NR_METRICS);
	unsigned int g, i;

	if (capacity < 1 || capacity > N3T_MAX_CAPACITY || (groups & ~N3T_ALL_GROUPS))
		return -EINVAL;

	memset(plan, 0, sizeof(*plan));
	plan->groups = groups;
	plan->capacity = capacity;
	plan->cycle_counter = cycle_counter;
	for (i = 0; i < N3T_NR_METRICS; i++)
		plan->metric_set[i] = -1;

	for (g = 0; g < N3T_NR_GROUPS; g++) {
		const struct n3t_group_desc *grp = &n3t_groups[g];

		if (!(groups & BIT(g)))
			continue;
		bitmap_zero(events, N3T_NR_EVENTS);
		bitmap_zero(metrics, N3T_NR_METRICS);
		for (i = 0; i < grp->nr; i++) {
			unsigned int m = grp->metrics[i];

			__set_bit(m, plan->selected);
			if (plan->metric_set[m] >= 0 || test_bit(m, plan->unschedulable))
				continue;
			n3t_metric_events(m, events);
			__set_bit(m, metrics);
		}
		if (bitmap_empty(metrics, N3T_NR_METRICS))
			continue;
		if (n3t_set_cost(events, cycle_counter) <= capacity) {
			n3t_place(plan, events, metrics);
			continue;
		}
		for (i = 0; i < grp->nr; i++) {
			unsigned int m = grp->metrics[i];

			if (!test_bit(m, metrics))
				continue;
			bitmap_zero(events, N3T_NR_EVENTS);
			n3t_metric_events(m, events);
			bitmap_zero(one, N3T_NR_METRICS);
			__set_bit(m, one);
			if (n3t_set_cost(events, cycle_counter) > capacity)
				__set_bit(m, plan->unschedulable);
			else
				n3t_place(plan, events, one);
		}
	}
	return plan->nr_sets ? 0 : -ENOSPC;
}

/**
 * n3t_plan_nr_events() - events counted over all sets of a plan
 * @plan: the plan
 *
 * An event counted in several sets is counted once per set.
 * Return: the sum of the sets' sizes.
 */
unsigned int n3t_plan_nr_events(const struct n3t_plan *plan)
{
	unsigned int s, n = 0;

	for (s = 0; s < plan->nr_sets; s++)
		n += bitmap_weight(plan->set[s].events, N3T_NR_EVENTS);
	return n;
}

/**
 * n3t_parse_groups() - parse a group selection
 * @buf: "default", "all", or distinct group names separated by spaces or
 *	commas; a trailing newline is ignored
 * @count: length of @buf
 * @out: the selection (bit per enum n3t_group_id)
 *
 * Return: 0, or -EINVAL for anything else (then @out is unchanged).
 */
int n3t_parse_groups(const char *buf, size_t count, u32 *out)
{
	u32 groups = 0;
	size_t i = 0, start;
	int g, n = 0;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count > N3T_GROUPS_MAX || memchr(buf, 0, count))
		return -EINVAL;
	if (count == 7 && !strncmp(buf, "default", 7)) {
		*out = N3T_DEFAULT_GROUPS;
		return 0;
	}
	if (count == 3 && !strncmp(buf, "all", 3)) {
		*out = N3T_ALL_GROUPS;
		return 0;
	}
	while (i < count) {
		if (buf[i] == ' ' || buf[i] == ',') {
			i++;
			continue;
		}
		start = i;
		while (i < count && buf[i] != ' ' && buf[i] != ',')
			i++;
		g = n3t_group_by_name(buf + start, i - start);
		if (g < 0 || (groups & BIT(g)))
			return -EINVAL;
		groups |= BIT(g);
		n++;
	}
	if (!n)
		return -EINVAL;
	*out = groups;
	return 0;
}
