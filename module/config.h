/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry configuration (config.c): the module parameters, the running
 * configuration (n3t_cfg: the core types, their plans, the interval, the
 * schedule) and the parsing of a group selection.  The bottom layer: it
 * includes only the engine's header, and config.c calls nothing of the
 * module but the engine and the tables (models.c).
 */
#ifndef N3T_CONFIG_H
#define N3T_CONFIG_H

#include <linux/cpumask.h>
#include <linux/mutex.h>

#include "engine.h"

struct file;

#define N3T_INTERVAL_MIN	10
#define N3T_INTERVAL_MAX	60000
#define N3T_YIELD_DEFAULT	0	/* percent of each interval (yield_pct) */
#define N3T_YIELD_MAX		50
#define N3T_MAX_CORE_TYPES		4

/**
 * enum n3t_schedule - which sets an interval counts (the schedule file)
 * @N3T_SCHED_ROTATE: the default: the sets of the first selected group
 *	(topdown_l1) in every interval, the other sets in turn, one every
 *	few intervals (each set counted within N3T_FRESH_MS)
 * @N3T_SCHED_ALL: every set in every interval (short studies)
 * @N3T_NR_SCHEDULES: number of schedules
 */
enum n3t_schedule {
	N3T_SCHED_ROTATE,
	N3T_SCHED_ALL,
	N3T_NR_SCHEDULES
};

/**
 * struct n3t_core_type - the CPUs of one core type, and how they are counted
 * @model: the tables of the core (matched by MIDR, or named by force=)
 * @forced: @model was named by force=, not matched
 * @midr: MIDR_EL1 of the first CPU found
 * @cpus: the CPUs of this core type seen so far
 * @plan: the event sets in use; replaced only with collection stopped
 * @slots: slots per cycle used by the formulas (slots=, else the PMU's
 *	PMMIR_EL1.SLOTS, else the table's)
 * @capacity: usable programmable counters found by the last probe
 * @cycle_counter: whether the dedicated cycle counter is free
 * @load_capacity: @capacity found at load
 * @load_cycle_counter: @cycle_counter found at load
 * @usable: events the PMU implements and accepted (model event indices)
 * @always: events every running core counts, so that a zero is a hidden
 *	event, not a measurement (n3t_end_slice(): instructions and operations,
 *	retired and speculated; model event indices)
 * @pmu_total: counters of the PMU, the cycle counter included (0: unknown,
 *	then what the first probe finds free)
 * @reserved: counters of @pmu_total the module leaves to others (the perf
 *	hard-lockup detector)
 *
 * Set up at load; afterwards @plan, @capacity and @cycle_counter change
 * under n3t_config.reconf (and @plan also under n3t_config.lock), @cpus
 * grows in CPU online callbacks.  Part of n3t_cfg, never freed; @plan is
 * freed when replaced and at unload.
 */
struct n3t_core_type {
	const struct n3t_model *model;
	bool forced;
	u32 midr;
	struct cpumask cpus;
	struct n3t_plan *plan;
	unsigned int slots;
	unsigned int capacity;
	bool cycle_counter;
	unsigned int load_capacity;
	bool load_cycle_counter;
	DECLARE_BITMAP(usable, N3T_MAX_EVENTS);
	DECLARE_BITMAP(always, N3T_MAX_EVENTS);
	unsigned int pmu_total;
	unsigned int reserved;
};

/**
 * struct n3t_config - module-wide configuration
 * @reconf: serialises starting and stopping collection (configuration
 *	writes, the enabled file, the re-pack work, test controls) and
 *	protects @exiting and @paused; held
 *	across cpuhp calls, so never taken by a sysfs reader
 * @lock: protects the core types' plans, @interval_ms and @schedule against readers;
 *	never held across cpuhp calls or while taking cpus_read_lock()
 * @interval_ms: interval length
 * @schedule: enum n3t_schedule; a CPU reads it when it is set up
 * @yield_pct: percent of each interval in which the module holds no
 *	counter (0 .. N3T_YIELD_MAX); written with WRITE_ONCE() and read by
 *	the samplers with READ_ONCE() at each slice end: a write takes effect
 *	from the next slice, without a restart
 * @pmu_type: perf PMU type used for the counters
 * @exiting: module exit has begun; nothing may start collection again
 *	(written with WRITE_ONCE(): the isolation check reads it without
 *	@reconf)
 * @paused: collection is paused (enabled 0): no counter is held, and
 *	configuration writes are stored for the resume (read locklessly by
 *	the status files)
 * @nr_types: core types in @type
 * @type: one per core type; the first is the boot CPU's
 */
struct n3t_config {
	struct mutex reconf;	/* see above */
	struct mutex lock;	/* see above */
	unsigned int interval_ms;
	unsigned int schedule;
	unsigned int yield_pct;
	u32 pmu_type;
	bool exiting;
	bool paused;
	unsigned int nr_types;
	struct n3t_core_type type[N3T_MAX_CORE_TYPES];
};

extern struct n3t_config n3t_cfg;
extern bool n3t_root_only;
extern bool n3t_world_readable;
extern bool n3t_isolated;
extern bool n3t_pinned;
extern const char * const n3t_schedule_names[N3T_NR_SCHEDULES];

int n3t_config_check(void);
int n3t_config_init(void);
void n3t_config_exit(void);
int n3t_parse_selection(const char *buf, size_t count, u32 *groups);
bool n3t_data_allowed(const struct file *file);

/* the parameters core-type identification reads (coretype.c) */
extern int n3t_param_pmu_type;
extern unsigned int n3t_param_slots;
extern int n3t_param_reserve;
extern unsigned int n3t_param_spare;
const struct n3t_model *n3t_forced_model(void);
const struct n3t_model *n3t_test_model(unsigned int cpu);

/*
 * Test builds (make N3T_TESTS=y) widen race windows on purpose: debugfs
 * n3telemetry/delay_us_{read,switch}.  Production builds: no-ops.
 */
enum n3t_hook { N3T_HOOK_READ, N3T_HOOK_SWITCH, N3T_NR_HOOKS };
#ifdef N3T_TEST_HOOKS
extern u32 n3t_delay_us[N3T_NR_HOOKS];
extern bool n3t_test_all_events;
extern unsigned int n3t_test_midr;
extern unsigned int n3t_test_every;
extern bool n3t_test_hold_all;
extern bool n3t_manual;
void n3t_test_delay(enum n3t_hook hook);
/* test_all_events=1: every event of the table counts as implemented */
static inline bool n3t_all_events(void) { return n3t_test_all_events; }
/* test_midr=: the MIDR a table is chosen for, instead of @midr */
static inline u32 n3t_midr_override(u32 midr) { return n3t_test_midr ?: midr; }
/* test_every=N: intervals between rotating slices (0: the freshness's) */
static inline unsigned int n3t_every_override(void) { return n3t_test_every; }
/* test_hold_all=1: every event is held (created with the CPU's state) */
static inline bool n3t_hold_all(void) { return n3t_test_hold_all; }
#else
static inline void n3t_test_delay(enum n3t_hook hook) { }
static inline bool n3t_all_events(void) { return false; }
static inline u32 n3t_midr_override(u32 midr) { return midr; }
static inline unsigned int n3t_every_override(void) { return 0; }
static inline bool n3t_hold_all(void) { return false; }
#endif

#endif /* N3T_CONFIG_H */
