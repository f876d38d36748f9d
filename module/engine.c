// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry engine: exact fixed-point evaluation of the metric formulas,
 * lookups, group selection and the event-set packer.  See engine.h; the
 * tables themselves are in models.c.  Calls nothing else of the module
 * (the bottom layer with models.c); includes only engine.h.
 */
#include "engine.h"

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

const char *n3t_unit_name(unsigned int unit)
{
	return unit < N3T_NR_UNITS ? n3t_units[unit].name : "";
}

unsigned int n3t_unit_decimals(unsigned int unit)
{
	return unit < N3T_NR_UNITS ? n3t_units[unit].decimals : 6;
}

int n3t_event_by_name(const struct n3t_model *model, const char *name)
{
	unsigned int i;

	for (i = 0; i < model->nr_events; i++)
		if (!strcmp(model->events[i].name, name))
			return i;
	return -ENOENT;
}

int n3t_event_by_code(const struct n3t_model *model, unsigned int code)
{
	unsigned int i;

	for (i = 0; i < model->nr_events; i++)
		if (model->events[i].code == code)
			return i;
	return -ENOENT;
}

int n3t_metric_by_name(const struct n3t_model *model, const char *name)
{
	unsigned int i;

	for (i = 0; i < model->nr_metrics; i++)
		if (!strcmp(model->metrics[i].name, name))
			return i;
	return -ENOENT;
}

/*
 * @name need not be NUL-terminated: @len characters are compared.  Both the
 * file name ("branch") and Arm's group name ("Branch_Effectiveness") match.
 */
int n3t_group_by_name(const struct n3t_model *model, const char *name, size_t len)
{
	const struct n3t_group_desc *g;
	unsigned int i;

	for (i = 0; i < model->nr_groups; i++) {
		g = &model->groups[i];
		if ((strlen(g->name) == len && !strncmp(g->name, name, len)) ||
		    (strlen(g->spec_name) == len && !strncmp(g->spec_name, name, len)))
			return i;
	}
	return -ENOENT;
}

static void n3t_poly_events(const struct n3t_mono *m, unsigned int nr, unsigned long *events)
{
	unsigned int i, f;

	for (i = 0; i < nr; i++)
		for (f = 0; f < m[i].nr; f++)
			if (m[i].f[f] != N3T_F_SLOTS)
				__set_bit(m[i].f[f], events);
}

/**
 * n3t_metric_events() - add the events a metric needs to a bitmap
 * @model: the tables
 * @metric: index into @model's metrics
 * @events: bitmap of N3T_MAX_EVENTS bits, not cleared first
 */
void n3t_metric_events(const struct n3t_model *model, unsigned int metric,
		       unsigned long *events)
{
	const struct n3t_metric_desc *m = &model->metrics[metric];

	n3t_poly_events(model->mono + m->num, m->nr_num, events);
	n3t_poly_events(model->mono + m->den, m->nr_den, events);
}

/**
 * n3t_group_events() - add the events a group's metrics need to a bitmap
 * @model: the tables
 * @group: index into @model's groups
 * @events: bitmap of N3T_MAX_EVENTS bits, not cleared first
 */
void n3t_group_events(const struct n3t_model *model, unsigned int group,
		      unsigned long *events)
{
	const struct n3t_group_desc *g = &model->groups[group];
	unsigned int i;

	for (i = 0; i < g->nr; i++)
		n3t_metric_events(model, g->metrics[i], events);
}

/*
 * Exact arithmetic.  A metric is num / den, two polynomials whose monomials
 * have at most N3T_MONO_FACTORS factors (event counts or the slot count).
 * Each monomial is computed exactly in 128 bits as long as its factors' bit
 * lengths add up to at most N3T_TERM_BITS; with at most N3T_MAX_MONOS
 * monomials a polynomial then stays below 2^122.  Counts below 2^44 (an
 * hour of cycles at 4.8 GHz) always qualify: 44 + 44 + 8 bits of slots plus
 * a coefficient is far below the limit.  Beyond it the value is undefined
 * ("out of range") rather than approximate.
 */
#define N3T_TERM_BITS	118

static unsigned int n3t_fls128(__uint128_t x)
{
	return x >> 64 ? 64 + fls64((u64)(x >> 64)) : fls64((u64)x);
}

static bool n3t_poly(const struct n3t_mono *m, unsigned int nr, const u64 *counts,
		     unsigned int slots, __int128_t *out)
{
	__int128_t sum = 0;
	unsigned int i, f, bits;
	__uint128_t v;
	u64 x;

	for (i = 0; i < nr; i++) {
		x = m[i].coef < 0 ? -(s64)m[i].coef : m[i].coef;
		bits = fls64(x);
		v = x;
		for (f = 0; f < m[i].nr; f++) {
			x = m[i].f[f] == N3T_F_SLOTS ? slots : counts[m[i].f[f]];
			bits += fls64(x);
			if (bits > N3T_TERM_BITS)
				return false;
			v *= x;
		}
		sum += m[i].coef < 0 ? -(__int128_t)v : (__int128_t)v;
	}
	*out = sum;
	return true;
}

/*
 * n / d and n % d; d != 0.  The quotient must be below 2^64.  Both in 64
 * bits: div64_u64_rem().  A wider dividend or divisor: long division, as
 * math64.h has no division of a 128-bit dividend (its widest,
 * mul_u64_u64_div_u64(), divides a product of two u64 by a u64).
 */
static u64 n3t_divmod(__uint128_t n, __uint128_t d, __uint128_t *rem)
{
	unsigned int shift;
	u64 q = 0, r64;

	if (!((n | d) >> 64)) {
		q = div64_u64_rem((u64)n, (u64)d, &r64);
		*rem = r64;
		return q;
	}
	if (n < d) {
		*rem = n;
		return 0;
	}
	shift = n3t_fls128(n) - n3t_fls128(d);
	d <<= shift;
	for (;;) {
		q <<= 1;
		if (n >= d) {
			n -= d;
			q |= 1;
		}
		if (!shift--)
			break;
		d >>= 1;
	}
	*rem = n;
	return q;
}

/*
 * trunc(n / d * N3T_FIXED_SCALE): exact, so that rounding it to fewer
 * decimals (n3t_format()) rounds n / d itself correctly.  False when d is 0
 * or the result does not fit.
 */
static bool n3t_quotient(__int128_t n, __int128_t d, s64 *res)
{
	bool neg = (n < 0) != (d < 0);
	__uint128_t un = n < 0 ? -(__uint128_t)n : (__uint128_t)n;
	__uint128_t ud = d < 0 ? -(__uint128_t)d : (__uint128_t)d;
	__uint128_t r;
	u64 q, frac = 0;
	unsigned int i;

	if (!ud)
		return false;
	/* the integer part is at least 2^(bits - 1), too large for s64 millionths */
	if (n3t_fls128(un) > n3t_fls128(ud) + 44)
		return false;
	q = n3t_divmod(un, ud, &r);
	if (q > (u64)S64_MAX / N3T_FIXED_SCALE)
		return false;
	if (!(ud >> 64) && r < BIT_ULL(44)) {
		/* exact on every kernel: ilog2(r) + ilog2(scale) <= 43 + 19, 6.1's bound */
		BUILD_BUG_ON(ilog2(N3T_FIXED_SCALE) + 43 > 62);
		frac = mul_u64_u64_div_u64((u64)r, N3T_FIXED_SCALE, (u64)ud);
	} else {
		for (i = 0; i < 6; i++)		/* r < ud < 2^122: r * 10 fits */
			frac = frac * 10 + n3t_divmod(r * 10, ud, &r);
	}
	q = q * N3T_FIXED_SCALE + frac;
	if (q > (u64)S64_MAX)
		return false;
	*res = neg ? -(s64)q : (s64)q;
	return true;
}

/**
 * n3t_eval() - evaluate one metric from event count deltas
 * @model: the tables
 * @metric: index into @model's metrics
 * @counts: the model's event deltas, indexed like its events
 * @counted: bitmap of the events whose delta in @counts is a measurement
 * @slots: rename slots per cycle
 * @value: the value in millionths of the metric's unit, truncated toward zero
 *
 * The value is exact: printed with n3t_format() it is rounded correctly.
 *
 * Return: true if @value is defined; false if an event was not counted, the
 * denominator is zero, or a count or the value is out of range (see
 * N3T_TERM_BITS; never for counts below 2^44).
 */
bool n3t_eval(const struct n3t_model *model, unsigned int metric, const u64 *counts,
	      const unsigned long *counted, unsigned int slots, s64 *value)
{
	const struct n3t_metric_desc *m = &model->metrics[metric];
	DECLARE_BITMAP(need, N3T_MAX_EVENTS);
	__int128_t num, den;

	bitmap_zero(need, N3T_MAX_EVENTS);
	n3t_metric_events(model, metric, need);
	if (!bitmap_subset(need, counted, N3T_MAX_EVENTS))
		return false;
	if (!n3t_poly(model->mono + m->num, m->nr_num, counts, slots, &num) ||
	    !n3t_poly(model->mono + m->den, m->nr_den, counts, slots, &den))
		return false;
	return n3t_quotient(num, den, value);
}

/**
 * n3t_eval_set() - evaluate the metrics a plan computes from one set
 * @plan: the plan
 * @set: index of the set whose deltas are in @counts
 * @counts: the model's event deltas; only the set's events are read
 * @counted: events whose delta is a measurement
 * @slots: rename slots per cycle
 * @values: N3T_MAX_METRICS values; the set's metrics are written
 * @valid: bitmap of defined values; the set's metrics are set or cleared
 */
void n3t_eval_set(const struct n3t_plan *plan, unsigned int set, const u64 *counts,
		  const unsigned long *counted, unsigned int slots, s64 *values,
		  unsigned long *valid)
{
	unsigned int m;

	for_each_set_bit(m, plan->set[set].metrics, N3T_MAX_METRICS) {
		if (n3t_eval(plan->model, m, counts, counted, slots, &values[m]))
			__set_bit(m, valid);
		else
			__clear_bit(m, valid);
	}
}

/* The number of event factors of every monomial, or -1 if they differ. */
static int n3t_poly_degree(const struct n3t_mono *m, unsigned int nr, int deg)
{
	unsigned int i, f;
	int d;

	for (i = 0; i < nr; i++) {
		for (f = 0, d = 0; f < m[i].nr; f++)
			d += m[i].f[f] != N3T_F_SLOTS;
		if (deg >= 0 && d != deg)
			return -1;
		deg = d;
	}
	return deg;
}

/**
 * n3t_metric_homogeneous() - whether a metric is a ratio of like counts
 * @model: the tables
 * @metric: index into @model's metrics
 *
 * Every monomial of the numerator and of the denominator has the same
 * number of event factors (one at least): scaling every count by the same
 * factor leaves the value unchanged, so the value can be computed from each
 * event's rate per unit of a common base (n3t_eval_composed()).
 *
 * Return: true if so.
 */
bool n3t_metric_homogeneous(const struct n3t_model *model, unsigned int metric)
{
	const struct n3t_metric_desc *m = &model->metrics[metric];
	int deg = n3t_poly_degree(model->mono + m->num, m->nr_num, -1);

	if (deg > 0)
		deg = n3t_poly_degree(model->mono + m->den, m->nr_den, deg);
	return deg > 0;
}

/**
 * n3t_eval_composed() - evaluate a plan's composed metrics
 * @plan: the plan
 * @delta: the latest deltas of every set, set after set, each set's events
 *	in ascending index order (n3t_plan_nr_events() entries)
 * @set_ns: for each set, the time it counted in complete slices in its
 *	latest interval; 0: no measurement
 * @usable: events whose counts are measurements
 * @slots: rename slots per cycle
 * @counts: N3T_MAX_EVENTS entries of scratch
 * @values: N3T_MAX_METRICS values; the composed metrics are written
 * @valid: bitmap of defined values; the composed metrics' bits are set or
 *	cleared
 *
 * Each event's rate is its count over its set's base: that set's CPU_CYCLES
 * (or counting time with @plan->per_ns).  The rates, scaled to the largest
 * base (B), are the counts the formula is evaluated with (CPU_CYCLES is B
 * itself unless @plan->per_ns).  A formula of like counts
 * (n3t_metric_homogeneous()) then gives what the events would give had
 * they been counted together at those rates: exactly that when every set
 * counted the same base, else within the rounding of the scaling (below one
 * count in B).  An event whose set has no measurement or no base, or whose
 * scaled count passes 2^64, leaves its metrics undefined.
 */
void n3t_eval_composed(const struct n3t_plan *plan, const u64 *delta, const u64 *set_ns,
		       const unsigned long *usable, unsigned int slots, u64 *counts,
		       s64 *values, unsigned long *valid)
{
	const struct n3t_model *model = plan->model;
	DECLARE_BITMAP(counted, N3T_MAX_EVENTS);
	u64 base, big = 0;
	__uint128_t rem;
	unsigned int e, m;
	int s;

	if (bitmap_empty(plan->composed, N3T_MAX_METRICS))
		return;
	bitmap_zero(counted, N3T_MAX_EVENTS);
	for (e = 0; e < model->nr_events; e++) {
		s = plan->rate_set[e];
		if (s < 0 || !set_ns[s] || !test_bit(e, usable))
			continue;
		base = plan->per_ns ? set_ns[s] : delta[plan->base_pos[e]];
		if (!base)
			continue;
		__set_bit(e, counted);
		big = max(big, base);
	}
	for_each_set_bit(e, counted, N3T_MAX_EVENTS) {
		s = plan->rate_set[e];
		base = plan->per_ns ? set_ns[s] : delta[plan->base_pos[e]];
		if (base == big) {
			counts[e] = delta[plan->rate_pos[e]];
			continue;
		}
		/* below 2^64 when the rate is below 2^64 / big: else undefined */
		if ((__uint128_t)delta[plan->rate_pos[e]] * big >= (__uint128_t)base << 64) {
			__clear_bit(e, counted);
			continue;
		}
		counts[e] = n3t_divmod((__uint128_t)delta[plan->rate_pos[e]] * big, base, &rem);
	}
	if (!plan->per_ns && big && test_bit(model->cycles, usable)) {
		counts[model->cycles] = big;
		__set_bit(model->cycles, counted);
	}
	for_each_set_bit(m, plan->composed, N3T_MAX_METRICS) {
		if (n3t_eval(model, m, counts, counted, slots, &values[m]))
			__set_bit(m, valid);
		else
			__clear_bit(m, valid);
	}
}

/**
 * n3t_metric_sets() - the sets a metric's value comes from
 * @plan: the plan
 * @metric: a selected metric of @plan
 * @sets: bitmap of N3T_MAX_SETS bits, not cleared first: its set if it is
 *	exact, the sets of its events' rates if it is composed, none else
 */
void n3t_metric_sets(const struct n3t_plan *plan, unsigned int metric, unsigned long *sets)
{
	DECLARE_BITMAP(events, N3T_MAX_EVENTS);
	unsigned int e;

	if (plan->metric_set[metric] >= 0) {
		__set_bit(plan->metric_set[metric], sets);
		return;
	}
	if (!test_bit(metric, plan->composed))
		return;
	bitmap_zero(events, N3T_MAX_EVENTS);
	n3t_metric_events(plan->model, metric, events);
	for_each_set_bit(e, events, N3T_MAX_EVENTS)
		if (plan->rate_set[e] >= 0)
			__set_bit(plan->rate_set[e], sets);
}

/**
 * n3t_format() - print a metric value with a given number of decimals
 * @buf: output buffer
 * @size: its size (N3T_VALUE_BUF is always enough)
 * @decimals: digits after the point, 0..6 (n3t_unit_decimals())
 * @value: value in millionths of the unit
 * @valid: false prints "nan"
 *
 * Rounds half away from zero.
 *
 * Return: snprintf()'s result.
 */
int n3t_format(char *buf, size_t size, unsigned int decimals, s64 value, bool valid)
{
	u64 div = 1, pow = 1, mag, q;
	unsigned int i;

	if (!valid)
		return snprintf(buf, size, "nan");
	decimals = min(decimals, 6U);
	for (i = decimals; i < 6; i++)
		div *= 10;
	for (i = 0; i < decimals; i++)
		pow *= 10;
	mag = value < 0 ? -(u64)value : (u64)value;
	q = mag / div + (mag % div >= (div + 1) / 2 && div > 1);
	if (!decimals)
		return snprintf(buf, size, "%s%llu", value < 0 && q ? "-" : "",
				(unsigned long long)q);
	return snprintf(buf, size, "%s%llu.%0*llu", value < 0 && q ? "-" : "",
			(unsigned long long)(q / pow), (int)decimals,
			(unsigned long long)(q % pow));
}

/* One polynomial of n3t_format_formula(): its terms, or "+0" with none. */
static int n3t_format_poly(char *buf, size_t size, const struct n3t_mono *mono,
			   unsigned int nr)
{
	unsigned int i, k;
	int len = 0;

#define N3T_FMT(...)	(len += snprintf(buf + min_t(size_t, len, size), \
					 size - min_t(size_t, len, size), __VA_ARGS__))
	if (!nr)
		N3T_FMT(" +0");
	for (i = 0; i < nr; i++) {
		N3T_FMT(" %+d", mono[i].coef);
		for (k = 0; k < mono[i].nr; k++) {
			if (mono[i].f[k] == N3T_F_SLOTS)
				N3T_FMT("*slots");
			else
				N3T_FMT("*e%u", mono[i].f[k]);
		}
	}
#undef N3T_FMT
	return len;
}

/**
 * n3t_format_formula() - a metric's formula as a line of text
 * @buf: where to write it (NUL-terminated when @size is not 0)
 * @size: room at @buf
 * @model: the model
 * @metric: index of the metric
 *
 * "name NUM / DEN\n", each polynomial its terms separated by spaces, a term
 * its signed integer coefficient followed by its factors, each "*eI" (the
 * count of the model's event I) or "*slots" (the rename slots per cycle),
 * e.g. "ipc +1*e1 / +1*e0".  The metric is NUM / DEN in its unit (percent
 * folded into the coefficients), as n3t_eval() computes it; a reader
 * with the counts evaluates it the same way (n3tel stat).
 * Return: the length of the whole line (snprintf()-like: @size may be
 * smaller).
 */
int n3t_format_formula(char *buf, size_t size, const struct n3t_model *model,
		       unsigned int metric)
{
	const struct n3t_metric_desc *m = &model->metrics[metric];
	int len;

	len = snprintf(buf, size, "%s", m->name);
	len += n3t_format_poly(buf + min_t(size_t, len, size), size - min_t(size_t, len, size),
			       model->mono + m->num, m->nr_num);
	len += snprintf(buf + min_t(size_t, len, size), size - min_t(size_t, len, size), " /");
	len += n3t_format_poly(buf + min_t(size_t, len, size), size - min_t(size_t, len, size),
			       model->mono + m->den, m->nr_den);
	len += snprintf(buf + min_t(size_t, len, size), size - min_t(size_t, len, size), "\n");
	return len;
}

/* Programmable counters a set of events needs. */
static unsigned int n3t_set_cost(const struct n3t_plan *plan, const unsigned long *events)
{
	unsigned int w = bitmap_weight(events, N3T_MAX_EVENTS);

	if (plan->cycle_counter && test_bit(plan->model->cycles, events))
		w--;
	return w;
}

/*
 * Place one unit (a whole group, a single metric, or an event with the base
 * of its rate) into the set where it adds the fewest events; open a new set
 * if it fits nowhere.  The sets of the first group (0 .. nr_every - 1, once
 * it is placed) take nothing else.  Returns the set, or -ENOSPC when a
 * new set is needed and the plan has N3T_MAX_SETS.
 */
static int n3t_place(struct n3t_plan *plan, const unsigned long *events,
		     const unsigned long *metrics)
{
	DECLARE_BITMAP(merged, N3T_MAX_EVENTS);
	unsigned int i, best = plan->nr_sets, best_add = ~0U, m;
	unsigned int have = bitmap_weight(events, N3T_MAX_EVENTS);

	for (i = plan->nr_every; i < plan->nr_sets; i++) {
		unsigned int add;

		bitmap_or(merged, plan->set[i].events, events, N3T_MAX_EVENTS);
		if (n3t_set_cost(plan, merged) > plan->capacity)
			continue;
		add = bitmap_weight(merged, N3T_MAX_EVENTS) -
		      bitmap_weight(plan->set[i].events, N3T_MAX_EVENTS);
		if (add < best_add) {
			best = i;
			best_add = add;
		}
		if (add == 0 && have)
			break;
	}
	if (best == plan->nr_sets) {
		if (plan->nr_sets == N3T_MAX_SETS)
			return -ENOSPC;
		plan->nr_sets++;
	}
	bitmap_or(plan->set[best].events, plan->set[best].events, events, N3T_MAX_EVENTS);
	for_each_set_bit(m, metrics, N3T_MAX_METRICS) {
		__set_bit(m, plan->set[best].metrics);
		plan->metric_set[m] = best;
	}
	return best;
}

/* A set that counts @e beside the base of its rate already, or -1. */
static int n3t_rate_home(const struct n3t_plan *plan, unsigned int e)
{
	unsigned int s;

	for (s = 0; s < plan->nr_sets; s++)
		if (test_bit(e, plan->set[s].events) &&
		    (plan->per_ns || test_bit(plan->model->cycles, plan->set[s].events)))
			return s;
	return -1;
}

/*
 * Compose @metric, whose events do not fit in one set: each of its events
 * counted beside the base of its rate (CPU_CYCLES, free with the cycle
 * counter; the set's time with @plan->per_ns), in a set that already does
 * or one it is placed in.  Only a formula of like counts can be composed,
 * and only if every such unit fits and there is room for a new set for each.
 */
static bool n3t_compose(struct n3t_plan *plan, unsigned int metric)
{
	const struct n3t_model *model = plan->model;
	DECLARE_BITMAP(events, N3T_MAX_EVENTS);
	DECLARE_BITMAP(unit, N3T_MAX_EVENTS);
	DECLARE_BITMAP(none, N3T_MAX_METRICS);
	unsigned int e, need = 0;
	bool cyc = !plan->per_ns;
	int s;

	if (!n3t_metric_homogeneous(model, metric))
		return false;
	bitmap_zero(events, N3T_MAX_EVENTS);
	n3t_metric_events(model, metric, events);
	if (cyc)
		__clear_bit(model->cycles, events);
	for_each_set_bit(e, events, N3T_MAX_EVENTS) {
		if (plan->rate_set[e] >= 0 || n3t_rate_home(plan, e) >= 0)
			continue;
		bitmap_zero(unit, N3T_MAX_EVENTS);
		__set_bit(e, unit);
		if (cyc)
			__set_bit(model->cycles, unit);
		if (n3t_set_cost(plan, unit) > plan->capacity)
			return false;
		need++;
	}
	if (plan->nr_sets + need > N3T_MAX_SETS)
		return false;
	bitmap_zero(none, N3T_MAX_METRICS);
	for_each_set_bit(e, events, N3T_MAX_EVENTS) {
		if (plan->rate_set[e] >= 0)
			continue;
		s = n3t_rate_home(plan, e);
		if (s < 0) {	/* room checked above */
			bitmap_zero(unit, N3T_MAX_EVENTS);
			__set_bit(e, unit);
			if (cyc)
				__set_bit(model->cycles, unit);
			s = n3t_place(plan, unit, none);
		}
		plan->rate_set[e] = s;
	}
	__set_bit(metric, plan->composed);
	return true;
}

/* Where each rate's event and base are in the per-set deltas (n3t_plan). */
static void n3t_rate_positions(struct n3t_plan *plan)
{
	unsigned int first[N3T_MAX_SETS], s, e, pos = 0;
	const struct n3t_set *set;

	for (s = 0; s < plan->nr_sets; s++) {
		first[s] = pos;
		pos += bitmap_weight(plan->set[s].events, N3T_MAX_EVENTS);
	}
	for (e = 0; e < plan->model->nr_events; e++) {
		if (plan->rate_set[e] < 0)
			continue;
		set = &plan->set[plan->rate_set[e]];
		plan->rate_pos[e] = first[plan->rate_set[e]] + bitmap_weight(set->events, e);
		if (!plan->per_ns)
			plan->base_pos[e] = first[plan->rate_set[e]] +
					    bitmap_weight(set->events, plan->model->cycles);
	}
}

/* n3t_pack()'s packing; @seal: the first group's sets take nothing else */
static int __n3t_pack(const struct n3t_model *model, u32 groups, unsigned int capacity,
		      bool cycle_counter, struct n3t_plan *plan, bool seal)
{
	DECLARE_BITMAP(events, N3T_MAX_EVENTS);
	DECLARE_BITMAP(metrics, N3T_MAX_METRICS);
	DECLARE_BITMAP(one, N3T_MAX_METRICS);
	DECLARE_BITMAP(later, N3T_MAX_METRICS);
	unsigned int g, i, m;
	bool first = true, now;

	memset(plan, 0, sizeof(*plan));
	plan->model = model;
	plan->groups = groups;
	plan->capacity = capacity;
	plan->cycle_counter = cycle_counter;
	for (i = 0; i < N3T_MAX_METRICS; i++)
		plan->metric_set[i] = -1;
	for (i = 0; i < N3T_MAX_EVENTS; i++)
		plan->rate_set[i] = -1;
	plan->per_ns = capacity == 1 && !cycle_counter;
	bitmap_zero(later, N3T_MAX_METRICS);

	for (g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		if (!(groups & BIT(g)))
			continue;
		/* the sets opened so far are the first group's: closed */
		if (first)
			first = false;
		else if (seal && !plan->nr_every)
			plan->nr_every = plan->nr_sets;
		/*
		 * the first group to open sets composes what it must at once,
		 * the others after every group's exact metrics are placed
		 */
		now = !plan->nr_sets;
		bitmap_zero(events, N3T_MAX_EVENTS);
		bitmap_zero(metrics, N3T_MAX_METRICS);
		for (i = 0; i < grp->nr; i++) {
			m = grp->metrics[i];

			__set_bit(m, plan->selected);
			if (plan->metric_set[m] >= 0 || test_bit(m, plan->unschedulable) ||
			    test_bit(m, plan->composed))
				continue;
			n3t_metric_events(model, m, events);
			__set_bit(m, metrics);
		}
		if (bitmap_empty(metrics, N3T_MAX_METRICS))
			continue;
		if (n3t_set_cost(plan, events) <= capacity && n3t_place(plan, events, metrics) >= 0)
			continue;
		for (i = 0; i < grp->nr; i++) {
			m = grp->metrics[i];

			if (!test_bit(m, metrics))
				continue;
			bitmap_zero(events, N3T_MAX_EVENTS);
			n3t_metric_events(model, m, events);
			bitmap_zero(one, N3T_MAX_METRICS);
			__set_bit(m, one);
			if (n3t_set_cost(plan, events) <= capacity &&
			    n3t_place(plan, events, one) >= 0)
				continue;
			if (!now)
				__set_bit(m, later);
			else if (!n3t_compose(plan, m))
				__set_bit(m, plan->unschedulable);
		}
	}
	/* in the groups' order, as chosen */
	for (g = 0; g < model->nr_groups; g++) {
		for (i = 0; i < model->groups[g].nr; i++) {
			m = model->groups[g].metrics[i];
			if (!test_bit(m, later))
				continue;
			__clear_bit(m, later);
			if (!n3t_compose(plan, m))
				__set_bit(m, plan->unschedulable);
		}
	}
	/*
	 * The sets of every interval: those of the first selected group that
	 * has a metric in a set (exact or composed).  It was the first to open
	 * sets, so they are the first ones, and (sealed) nothing else joined
	 * them.  Only when none of a selected group's metrics can be counted
	 * is that not the first selected group: a plan has sets of every
	 * interval whenever it has sets.
	 */
	plan->nr_every = 0;
	for (g = 0; g < model->nr_groups && !plan->nr_every; g++) {
		DECLARE_BITMAP(sets, N3T_MAX_SETS);
		unsigned int s;

		if (!(groups & BIT(g)))
			continue;
		bitmap_zero(sets, N3T_MAX_SETS);
		for (i = 0; i < model->groups[g].nr; i++)
			n3t_metric_sets(plan, model->groups[g].metrics[i], sets);
		for_each_set_bit(s, sets, N3T_MAX_SETS)
			plan->nr_every = s + 1;
	}
	n3t_rate_positions(plan);
	return plan->nr_sets ? 0 : -ENOSPC;
}

/**
 * n3t_pack() - pack the selected groups' events into counter-sized sets
 * @model: the tables
 * @groups: bitmap of @model's groups
 * @capacity: usable programmable counters, 1..N3T_MAX_CAPACITY
 * @cycle_counter: CPU_CYCLES can be counted by the dedicated cycle counter
 * @plan: the result
 *
 * Groups are taken in order; a group whose remaining metrics fit in one set
 * is placed as a unit (so its metrics are counted together), otherwise its
 * metrics are placed one by one.  Each unit goes where it adds the fewest
 * new events (first such set on ties), so the result is deterministic.  A
 * metric whose events do not fit even alone is composed (n3t_compose(): its
 * events' rates counted apart, @plan->composed) when its formula allows,
 * else marked unschedulable; so is one for which no set is left
 * (N3T_MAX_SETS).  The first selected group is placed first, so
 * the sets opened for it are the first ones (@plan->nr_every; if none of
 * its metrics can be counted, the sets of the first group that has one).  Unless
 * the whole selection fits in one set, they hold nothing else: they count
 * in every interval (the rotating schedule), so the fewer their events,
 * the less the module holds of the PMU most of the time, and the less a
 * switch between them costs.
 *
 * Return: 0; -ENOSPC when no selected metric can be counted in @capacity
 * (the plan then has no set); -EINVAL for bad arguments.
 */
int n3t_pack(const struct n3t_model *model, u32 groups, unsigned int capacity,
	     bool cycle_counter, struct n3t_plan *plan)
{
	int ret;

	if (capacity < 1 || capacity > N3T_MAX_CAPACITY || (groups & ~N3T_ALL_GROUPS(model)))
		return -EINVAL;
	/* a selection that fits in one set is one set: nothing to switch */
	ret = __n3t_pack(model, groups, capacity, cycle_counter, plan, false);
	if (ret || plan->nr_sets == 1)
		return ret;
	return __n3t_pack(model, groups, capacity, cycle_counter, plan, true);
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
		n += bitmap_weight(plan->set[s].events, N3T_MAX_EVENTS);
	return n;
}

/**
 * n3t_next_name() - the next name of a group selection
 * @buf: the selection (names separated by spaces or commas)
 * @count: its length
 * @pos: where to look from; moved past the name found
 * @len: the name's length
 *
 * Return: the name's first character, or NULL when no name is left.
 */
const char *n3t_next_name(const char *buf, size_t count, size_t *pos, size_t *len)
{
	size_t i = *pos, start;

	while (i < count && (buf[i] == ' ' || buf[i] == ','))
		i++;
	if (i == count) {
		*pos = i;
		return NULL;
	}
	start = i;
	while (i < count && buf[i] != ' ' && buf[i] != ',')
		i++;
	*pos = i;
	*len = i - start;
	return buf + start;
}

/**
 * n3t_parse_groups() - parse a group selection
 * @model: the tables
 * @buf: "default", "all", or distinct group names (file names or Arm's
 *	names) separated by spaces or commas; a trailing newline is ignored
 * @count: length of @buf
 * @out: the selection (bit per group of @model)
 *
 * Return: 0, or -EINVAL for anything else (then @out is unchanged).
 */
int n3t_parse_groups(const struct n3t_model *model, const char *buf, size_t count, u32 *out)
{
	const char *name;
	size_t pos = 0, len;
	u32 groups = 0;
	int g, n = 0;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count > N3T_GROUPS_MAX || memchr(buf, 0, count))
		return -EINVAL;
	if (count == 7 && !strncmp(buf, "default", 7)) {
		*out = model->default_groups;
		return 0;
	}
	if (count == 3 && !strncmp(buf, "all", 3)) {
		*out = N3T_ALL_GROUPS(model);
		return 0;
	}
	while ((name = n3t_next_name(buf, count, &pos, &len))) {
		g = n3t_group_by_name(model, name, len);
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
