/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry engine: the Neoverse N3 topdown events, the metric formulas in
 * fixed point, the metric groups and the event-set packer.
 *
 * Pure code: no perf, no sysfs, no allocation, no locking.  The same source
 * is built into the kernel module and into the n3tel reader (see compat.h).
 *
 * Fixed point: a metric value is an s64 in millionths of its unit
 * (N3T_FIXED_SCALE), e.g. 21.37 percent is 21370000.
 */
#ifndef N3T_ENGINE_H
#define N3T_ENGINE_H

#include "compat.h"

#define N3T_FIXED_SCALE		1000000LL
#define N3T_DEFAULT_SLOTS	5
#define N3T_MAX_SLOTS		255	/* PMMIR_EL1.SLOTS is 8 bits */
#define N3T_MAX_CAPACITY	31	/* PMUv3 programmable counters */

/* Every event the metrics use, by event number. */
enum n3t_event_id {
	N3T_EV_L1I_CACHE_REFILL,
	N3T_EV_L1I_TLB_REFILL,
	N3T_EV_L1D_CACHE_REFILL,
	N3T_EV_L1D_CACHE,
	N3T_EV_L1D_TLB_REFILL,
	N3T_EV_INST_RETIRED,
	N3T_EV_BR_IMMED_RETIRED,
	N3T_EV_BR_RETURN_RETIRED,
	N3T_EV_CPU_CYCLES,
	N3T_EV_L1I_CACHE,
	N3T_EV_L2D_CACHE,
	N3T_EV_L2D_CACHE_REFILL,
	N3T_EV_INST_SPEC,
	N3T_EV_BR_RETIRED,
	N3T_EV_BR_MIS_PRED_RETIRED,
	N3T_EV_STALL_FRONTEND,
	N3T_EV_STALL_BACKEND,
	N3T_EV_L1D_TLB,
	N3T_EV_L1I_TLB,
	N3T_EV_L2D_TLB_REFILL,
	N3T_EV_L2D_TLB,
	N3T_EV_DTLB_WALK,
	N3T_EV_ITLB_WALK,
	N3T_EV_LL_CACHE_RD,
	N3T_EV_LL_CACHE_MISS_RD,
	N3T_EV_OP_RETIRED,
	N3T_EV_OP_SPEC,
	N3T_EV_STALL_SLOT_BACKEND,
	N3T_EV_STALL_SLOT_FRONTEND,
	N3T_EV_STALL_SLOT,
	N3T_EV_LD_SPEC,
	N3T_EV_ST_SPEC,
	N3T_EV_DP_SPEC,
	N3T_EV_ASE_SPEC,
	N3T_EV_VFP_SPEC,
	N3T_EV_PC_WRITE_SPEC,
	N3T_EV_CRYPTO_SPEC,
	N3T_EV_ISB_SPEC,
	N3T_EV_DSB_SPEC,
	N3T_EV_DMB_SPEC,
	N3T_EV_STALL_BACKEND_MEM,
	N3T_EV_SVE_INST_SPEC,
	N3T_EV_FP_HP_SPEC,
	N3T_EV_FP_SP_SPEC,
	N3T_EV_FP_DP_SPEC,
	N3T_EV_SVE_PRED_SPEC,
	N3T_EV_SVE_PRED_EMPTY_SPEC,
	N3T_EV_SVE_PRED_FULL_SPEC,
	N3T_EV_SVE_PRED_PARTIAL_SPEC,
	N3T_EV_FP_SCALE_OPS_SPEC,
	N3T_EV_FP_FIXED_OPS_SPEC,
	N3T_EV_BR_IND_RETIRED,
	N3T_EV_STALL_FRONTEND_MEMBOUND,
	N3T_EV_STALL_FRONTEND_L1I,
	N3T_EV_STALL_FRONTEND_MEM,
	N3T_EV_STALL_FRONTEND_TLB,
	N3T_EV_STALL_FRONTEND_CPUBOUND,
	N3T_EV_STALL_FRONTEND_FLOW,
	N3T_EV_STALL_FRONTEND_FLUSH,
	N3T_EV_STALL_BACKEND_MEMBOUND,
	N3T_EV_STALL_BACKEND_L1D,
	N3T_EV_STALL_BACKEND_TLB,
	N3T_EV_STALL_BACKEND_ST,
	N3T_EV_STALL_BACKEND_CPUBOUND,
	N3T_EV_STALL_BACKEND_BUSY,
	N3T_EV_STALL_BACKEND_RENAME,
	N3T_NR_EVENTS
};

/* Every metric, by spec name, in the spec's (alphabetical) order. */
enum n3t_metric_id {
	N3T_M_backend_bound,
	N3T_M_backend_busy_bound,
	N3T_M_backend_cache_l1d_bound,
	N3T_M_backend_cache_l2d_bound,
	N3T_M_backend_core_bound,
	N3T_M_backend_core_rename_bound,
	N3T_M_backend_mem_bound,
	N3T_M_backend_mem_cache_bound,
	N3T_M_backend_mem_store_bound,
	N3T_M_backend_mem_tlb_bound,
	N3T_M_backend_stalled_cycles,
	N3T_M_bad_speculation,
	N3T_M_barrier_percentage,
	N3T_M_branch_direct_ratio,
	N3T_M_branch_indirect_ratio,
	N3T_M_branch_misprediction_ratio,
	N3T_M_branch_mpki,
	N3T_M_branch_percentage,
	N3T_M_branch_return_ratio,
	N3T_M_crypto_percentage,
	N3T_M_dtlb_mpki,
	N3T_M_dtlb_walk_ratio,
	N3T_M_fp16_percentage,
	N3T_M_fp32_percentage,
	N3T_M_fp64_percentage,
	N3T_M_fp_ops_per_cycle,
	N3T_M_frontend_bound,
	N3T_M_frontend_cache_l1i_bound,
	N3T_M_frontend_cache_l2i_bound,
	N3T_M_frontend_core_bound,
	N3T_M_frontend_core_flow_bound,
	N3T_M_frontend_core_flush_bound,
	N3T_M_frontend_mem_bound,
	N3T_M_frontend_mem_cache_bound,
	N3T_M_frontend_mem_tlb_bound,
	N3T_M_frontend_stalled_cycles,
	N3T_M_integer_dp_percentage,
	N3T_M_ipc,
	N3T_M_itlb_mpki,
	N3T_M_itlb_walk_ratio,
	N3T_M_l1d_cache_miss_ratio,
	N3T_M_l1d_cache_mpki,
	N3T_M_l1d_tlb_miss_ratio,
	N3T_M_l1d_tlb_mpki,
	N3T_M_l1i_cache_miss_ratio,
	N3T_M_l1i_cache_mpki,
	N3T_M_l1i_tlb_miss_ratio,
	N3T_M_l1i_tlb_mpki,
	N3T_M_l2_cache_miss_ratio,
	N3T_M_l2_cache_mpki,
	N3T_M_l2_tlb_miss_ratio,
	N3T_M_l2_tlb_mpki,
	N3T_M_ll_cache_read_hit_ratio,
	N3T_M_ll_cache_read_miss_ratio,
	N3T_M_ll_cache_read_mpki,
	N3T_M_load_percentage,
	N3T_M_nonsve_fp_ops_per_cycle,
	N3T_M_retiring,
	N3T_M_scalar_fp_percentage,
	N3T_M_simd_percentage,
	N3T_M_store_percentage,
	N3T_M_sve_all_percentage,
	N3T_M_sve_fp_ops_per_cycle,
	N3T_M_sve_predicate_empty_percentage,
	N3T_M_sve_predicate_full_percentage,
	N3T_M_sve_predicate_partial_percentage,
	N3T_M_sve_predicate_percentage,
	N3T_NR_METRICS
};

/* The metric groups, in the order they are listed to users. */
enum n3t_group_id {
	N3T_G_topdown_l1,
	N3T_G_topdown_frontend,
	N3T_G_topdown_backend,
	N3T_G_cycle_accounting,
	N3T_G_general,
	N3T_G_mpki,
	N3T_G_miss_ratio,
	N3T_G_branch,
	N3T_G_itlb,
	N3T_G_dtlb,
	N3T_G_l1i_cache,
	N3T_G_l1d_cache,
	N3T_G_l2_cache,
	N3T_G_ll_cache,
	N3T_G_operation_mix,
	N3T_G_sve,
	N3T_G_fp_arithmetic,
	N3T_G_fp_precision,
	N3T_NR_GROUPS
};

#define N3T_ALL_GROUPS		((1U << N3T_NR_GROUPS) - 1)
#define N3T_DEFAULT_GROUPS	(BIT(N3T_G_topdown_l1) | BIT(N3T_G_topdown_frontend) | \
				 BIT(N3T_G_topdown_backend) | BIT(N3T_G_general) | \
				 BIT(N3T_G_l1i_cache) | BIT(N3T_G_l1d_cache) | \
				 BIT(N3T_G_l2_cache) | BIT(N3T_G_ll_cache))
#define N3T_MAX_GROUP_METRICS	10
#define N3T_MAX_SETS		N3T_NR_METRICS

/**
 * struct n3t_event_desc - one PMU event used by the metrics
 * @name: the architecture/N3 event name, e.g. "CPU_CYCLES"
 * @code: the event number programmed into PMEVTYPER<n>_EL0.evtCount
 */
struct n3t_event_desc {
	const char *name;
	u16 code;
};

/** enum n3t_unit - the unit of a metric, which also sets its print precision */
enum n3t_unit {
	N3T_U_PCT_SLOTS,
	N3T_U_PCT_CYCLES,
	N3T_U_PCT_OPS,
	N3T_U_MPKI,
	N3T_U_PER_CYCLE,
	N3T_U_OPS_PER_CYCLE,
	N3T_U_PER_BRANCH,
	N3T_U_PER_TLB_ACCESS,
	N3T_U_PER_CACHE_ACCESS,
	N3T_NR_UNITS,
};

/* Coefficient of an addend that is multiplied by the slot count. */
#define N3T_K_SLOTS	64

/**
 * struct n3t_addend - one signed, optionally slot-weighted event count
 * @ev: enum n3t_event_id
 * @k: +1 or -1, or +/-N3T_K_SLOTS for slots * count; 0 ends the list
 */
struct n3t_addend {
	u8 ev;
	s8 k;
};

/**
 * struct n3t_frac - a quotient of two linear sums of event counts
 * @num: numerator addends (up to three; k == 0 ends the list)
 * @den: denominator addends, same encoding
 */
struct n3t_frac {
	struct n3t_addend num[3];
	struct n3t_addend den[3];
};

/**
 * struct n3t_term - scale * frac[0] (* frac[1])
 * @scale: 1, 100 (percent) or 1000 (per kilo-instruction)
 * @frac: one or two factors; an unused factor has den[0].k == 0
 */
struct n3t_term {
	u32 scale;
	struct n3t_frac frac[2];
};

/**
 * struct n3t_metric_desc - one metric of the specification
 * @name: the spec (and Linux perf) metric name
 * @unit: its unit
 * @term: value = term[0] + term[1]; an unused term has scale == 0
 */
struct n3t_metric_desc {
	const char *name;
	enum n3t_unit unit;
	struct n3t_term term[2];
};

/**
 * struct n3t_group_desc - one metric group
 * @name: lower-case file name, e.g. "topdown_l1"
 * @spec_name: the specification's group name, e.g. "Topdown_L1"
 * @nr: number of metrics
 * @metrics: the metrics (enum n3t_metric_id) in the spec's order
 */
struct n3t_group_desc {
	const char *name;
	const char *spec_name;
	u8 nr;
	u8 metrics[N3T_MAX_GROUP_METRICS];
};

/**
 * struct n3t_set - a set of events counted together
 * @events: the events of the set (enum n3t_event_id)
 * @metrics: the metrics computed from this set's deltas
 */
struct n3t_set {
	DECLARE_BITMAP(events, N3T_NR_EVENTS);
	DECLARE_BITMAP(metrics, N3T_NR_METRICS);
};

/**
 * struct n3t_plan - the packer's result; plain data, copied by value
 * @groups: the selected groups (bit per enum n3t_group_id)
 * @capacity: programmable counters the plan was packed for
 * @cycle_counter: whether CPU_CYCLES could use the dedicated cycle counter
 * @nr_sets: number of sets in @set
 * @set: the event sets, in rotation order
 * @selected: every metric of the selected groups
 * @unschedulable: selected metrics whose events cannot be counted together
 * @metric_set: for each scheduled metric the set it is computed from, else -1
 */
struct n3t_plan {
	u32 groups;
	u8 capacity;
	bool cycle_counter;
	u8 nr_sets;
	struct n3t_set set[N3T_MAX_SETS];
	DECLARE_BITMAP(selected, N3T_NR_METRICS);
	DECLARE_BITMAP(unschedulable, N3T_NR_METRICS);
	s8 metric_set[N3T_NR_METRICS];
};

extern const struct n3t_event_desc n3t_events[N3T_NR_EVENTS];
extern const struct n3t_metric_desc n3t_metrics[N3T_NR_METRICS];
extern const struct n3t_group_desc n3t_groups[N3T_NR_GROUPS];

const char *n3t_unit_name(enum n3t_unit unit);
unsigned int n3t_unit_decimals(enum n3t_unit unit);

int n3t_event_by_name(const char *name);
int n3t_event_by_code(unsigned int code);
int n3t_group_by_name(const char *name, size_t len);
#define N3T_GROUPS_MAX	512	/* longest selection n3t_parse_groups() takes */
int n3t_parse_groups(const char *buf, size_t count, u32 *out);

void n3t_metric_events(unsigned int metric, unsigned long *events);
void n3t_group_events(unsigned int group, unsigned long *events);

bool n3t_eval(unsigned int metric, const u64 *counts, const unsigned long *counted,
	      unsigned int slots, s64 *value);
void n3t_eval_set(const struct n3t_plan *plan, unsigned int set, const u64 *counts,
		  const unsigned long *counted, unsigned int slots, s64 *values,
		  unsigned long *valid);

#define N3T_VALUE_BUF	24
int n3t_format(char *buf, size_t size, unsigned int metric, s64 value, bool valid);

int n3t_pack(u32 groups, unsigned int capacity, bool cycle_counter,
	     struct n3t_plan *plan);
unsigned int n3t_plan_nr_events(const struct n3t_plan *plan);

#endif /* N3T_ENGINE_H */
