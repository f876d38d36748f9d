/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry engine: the per-core tables (models.c, generated from Arm's
 * telemetry descriptions), exact evaluation of their metric formulas in fixed
 * point, group selection and the event-set packer.
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
#define N3T_MAX_SLOTS		255	/* PMMIR_EL1.SLOTS is 8 bits */
#define N3T_MAX_CAPACITY	31	/* PMUv3 programmable counters */
#define N3T_MAX_EVENTS		96	/* events one model's metrics use */
#define N3T_MAX_METRICS		96	/* metrics of one model */
#define N3T_MAX_GROUPS		32	/* metric groups of one model */
#define N3T_MAX_GROUP_METRICS	12
#define N3T_MAX_SETS		64	/* sets of one plan: cpuN/status fits a page */
#define N3T_MONO_FACTORS	3	/* factors of one monomial */
#define N3T_MAX_MONOS		16	/* monomials of one numerator or denominator */
#define N3T_F_SLOTS		0xff	/* factor: the slot count, not an event */

/**
 * struct n3t_event_desc - one PMU event used by a model's metrics
 * @name: the architecture or core event name, e.g. "CPU_CYCLES"
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

/**
 * struct n3t_mono - one monomial: @coef times the product of its factors
 * @coef: signed integer coefficient
 * @nr: number of factors, 0..N3T_MONO_FACTORS
 * @f: the factors: an event index of the model, or N3T_F_SLOTS
 */
struct n3t_mono {
	s32 coef;
	u8 nr;
	u8 f[N3T_MONO_FACTORS];
};

/**
 * struct n3t_metric_desc - one metric: the value is num / den
 * @name: the metric name of Arm's description (and Linux perf)
 * @unit: enum n3t_unit
 * @num: index of the numerator's first monomial in the model's @mono
 * @nr_num: its number of monomials
 * @den: index of the denominator's first monomial
 * @nr_den: its number of monomials
 *
 * Units like percent are folded into the coefficients: the polynomials give
 * the value in the metric's unit.
 */
struct n3t_metric_desc {
	const char *name;
	u8 unit;
	u16 num, nr_num;
	u16 den, nr_den;
};

/**
 * struct n3t_group_desc - one metric group
 * @name: lower-case file name, e.g. "topdown_l1"
 * @spec_name: the group name of Arm's description, e.g. "Topdown_L1"
 * @nr: number of metrics
 * @metrics: the metrics (index into the model's @metrics), in Arm's order
 */
struct n3t_group_desc {
	const char *name;
	const char *spec_name;
	u8 nr;
	u8 metrics[N3T_MAX_GROUP_METRICS];
};

/**
 * struct n3t_model - the telemetry tables of one core (and revision range)
 * @name: the description's name, e.g. "neoverse-n3", "neoverse-n2-r0p3"
 * @title: product name, e.g. "Neoverse N3"
 * @implementer: MIDR_EL1.Implementer
 * @part: MIDR_EL1.PartNum
 * @variant: MIDR_EL1.Variant of the revision described
 * @revision: MIDR_EL1.Revision of the revision described
 * @slots: rename slots per cycle when the PMU does not report them (for a
 *	generic table, only the count its formulas were written and checked
 *	with: a core's own PMMIR_EL1.SLOTS, or slots=, is needed)
 * @generic: matched by its events, not by MIDR: a core no other table
 *	names whose PMU implements every event of it (coretype.c)
 * @cycles: index of CPU_CYCLES in @events
 * @nr_events: events the metrics use
 * @nr_metrics: metrics
 * @nr_groups: metric groups
 * @default_groups: the groups collected by default (bit per group)
 * @events: the events, by event number
 * @metrics: the metrics, in alphabetical order
 * @groups: the groups, in the order they are listed to users
 * @mono: the monomials of all metrics
 *
 * Generated from Arm's descriptions (tools/models/gen_models.py); constant.
 */
struct n3t_model {
	const char *name;
	const char *title;
	u8 implementer;
	u16 part;
	u8 variant;
	u8 revision;
	u8 slots;
	bool generic;
	u8 cycles;
	u8 nr_events;
	u8 nr_metrics;
	u8 nr_groups;
	u32 default_groups;
	const struct n3t_event_desc *events;
	const struct n3t_metric_desc *metrics;
	const struct n3t_group_desc *groups;
	const struct n3t_mono *mono;
};

extern const struct n3t_model *const n3t_models[];
extern const unsigned int n3t_nr_models;

#define N3T_ALL_GROUPS(model)	((u32)(BIT_ULL((model)->nr_groups) - 1))

/**
 * struct n3t_set - a set of events counted together
 * @events: the events of the set (model event indices)
 * @metrics: the metrics computed from this set's deltas
 */
struct n3t_set {
	DECLARE_BITMAP(events, N3T_MAX_EVENTS);
	DECLARE_BITMAP(metrics, N3T_MAX_METRICS);
};

/**
 * struct n3t_plan - the packer's result; plain data, copied by value
 * @model: the tables the plan was packed from
 * @groups: the selected groups (bit per group of @model)
 * @capacity: programmable counters the plan was packed for
 * @cycle_counter: whether CPU_CYCLES could use the dedicated cycle counter
 * @nr_sets: number of sets in @set
 * @nr_every: sets 0 .. @nr_every - 1 hold the metrics of the first selected
 *	group (topdown_l1 where the core has it; if none of its metrics fits
 *	@capacity, of the first selected group one of whose metrics does):
 *	the rotating schedule counts them in every interval and the others in
 *	turn.  At least 1 when @nr_sets is
 * @set: the event sets, in rotation order
 * @selected: every metric of the selected groups
 * @unschedulable: selected metrics that are neither exact nor composed
 * @metric_set: for each metric counted in one set (exact) that set, else -1
 * @composed: selected metrics whose events do not fit in one set, computed
 *	from each event's rate counted beside a common base in its own set
 *	(n3t_eval_composed()): a number, but not an exact one
 * @per_ns: the composed metrics' base is each set's counting time, not
 *	CPU_CYCLES: one programmable counter and no cycle counter, so that no
 *	set holds an event and CPU_CYCLES together
 * @rate_set: for each event a composed metric uses the set its rate comes
 *	from (with CPU_CYCLES there too unless @per_ns), else -1; CPU_CYCLES
 *	itself has none unless @per_ns (its rate per cycle is 1)
 * @rate_pos: where that event's delta is in the plan's per-set deltas
 *	(set after set, each set's events in ascending index order)
 * @base_pos: likewise CPU_CYCLES of that set, unless @per_ns
 */
struct n3t_plan {
	const struct n3t_model *model;
	u32 groups;
	u8 capacity;
	bool cycle_counter;
	u8 nr_sets;
	u8 nr_every;
	struct n3t_set set[N3T_MAX_SETS];
	DECLARE_BITMAP(selected, N3T_MAX_METRICS);
	DECLARE_BITMAP(unschedulable, N3T_MAX_METRICS);
	s8 metric_set[N3T_MAX_METRICS];
	DECLARE_BITMAP(composed, N3T_MAX_METRICS);
	bool per_ns;
	s8 rate_set[N3T_MAX_EVENTS];
	u16 rate_pos[N3T_MAX_EVENTS];
	u16 base_pos[N3T_MAX_EVENTS];
};

const char *n3t_unit_name(unsigned int unit);
unsigned int n3t_unit_decimals(unsigned int unit);

const struct n3t_model *n3t_model_by_name(const char *name);
int n3t_event_by_name(const struct n3t_model *model, const char *name);
int n3t_event_by_code(const struct n3t_model *model, unsigned int code);
int n3t_metric_by_name(const struct n3t_model *model, const char *name);
int n3t_group_by_name(const struct n3t_model *model, const char *name, size_t len);
#define N3T_GROUPS_MAX	512	/* longest selection n3t_parse_groups() takes */
const char *n3t_next_name(const char *buf, size_t count, size_t *pos, size_t *len);
int n3t_parse_groups(const struct n3t_model *model, const char *buf, size_t count, u32 *out);

void n3t_metric_events(const struct n3t_model *model, unsigned int metric,
		       unsigned long *events);
void n3t_group_events(const struct n3t_model *model, unsigned int group,
		      unsigned long *events);

bool n3t_eval(const struct n3t_model *model, unsigned int metric, const u64 *counts,
	      const unsigned long *counted, unsigned int slots, s64 *value);
void n3t_eval_set(const struct n3t_plan *plan, unsigned int set, const u64 *counts,
		  const unsigned long *counted, unsigned int slots, s64 *values,
		  unsigned long *valid);
bool n3t_metric_homogeneous(const struct n3t_model *model, unsigned int metric);
void n3t_eval_composed(const struct n3t_plan *plan, const u64 *delta, const u64 *set_ns,
		       const unsigned long *usable, unsigned int slots, u64 *counts,
		       s64 *values, unsigned long *valid);
void n3t_metric_sets(const struct n3t_plan *plan, unsigned int metric, unsigned long *sets);

#define N3T_VALUE_BUF	24
int n3t_format(char *buf, size_t size, unsigned int decimals, s64 value, bool valid);
int n3t_format_formula(char *buf, size_t size, const struct n3t_model *model,
		       unsigned int metric);

int n3t_pack(const struct n3t_model *model, u32 groups, unsigned int capacity,
	     bool cycle_counter, struct n3t_plan *plan);
unsigned int n3t_plan_nr_events(const struct n3t_plan *plan);

#endif /* N3T_ENGINE_H */
