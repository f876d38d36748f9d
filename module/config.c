// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry configuration: every module parameter, the running
 * configuration (n3t_cfg), the group selection's parsing, who may read the
 * data, and the test builds' knobs (race windows, manual slices).
 *
 * The bottom layer of the module: it calls only the engine (engine.c) and
 * the tables (models.c), and includes only config.h (and engine.h through
 * it).  Core-type identification (coretype.c) fills n3t_cfg's core types;
 * control.c changes the plans, interval and schedule under n3t_cfg's locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/user_namespace.h>

#include "config.h"

const char * const n3t_schedule_names[N3T_NR_SCHEDULES] = {
	[N3T_SCHED_ROTATE] = "rotate",
	[N3T_SCHED_ALL] = "all",
};

static char *force;
module_param(force, charp, 0444);
MODULE_PARM_DESC(force, "Use this table on every CPU whatever the core (e.g. neoverse-v2; 1 means neoverse-n3); metrics may be meaningless");

unsigned int n3t_param_slots;
module_param_named(slots, n3t_param_slots, uint, 0444);
MODULE_PARM_DESC(slots, "Slots per cycle (default: PMMIR_EL1.SLOTS, else the core's table; the generic table has none)");

int n3t_param_pmu_type = -1;
module_param_named(pmu_type, n3t_param_pmu_type, int, 0444);
MODULE_PARM_DESC(pmu_type, "perf PMU type number to use (default: the CPU PMU, raw events)");

static uint interval_ms = 1000;

/* decimal only, as the interval_ms file takes it (param_set_uint takes 0x64 and 010) */
static int n3t_param_set_ms(const char *val, const struct kernel_param *kp)
{
	return kstrtouint(val, 10, kp->arg);
}

static const struct kernel_param_ops n3t_param_ms_ops = {
	.set = n3t_param_set_ms,
	.get = param_get_uint,
};

module_param_cb(interval_ms, &n3t_param_ms_ops, &interval_ms, 0444);
MODULE_PARM_DESC(interval_ms, "Initial interval in ms, 10..60000 (also writable in sysfs)");

static uint yield_pct = N3T_YIELD_DEFAULT;

/* decimal only, 0..N3T_YIELD_MAX, as the yield_pct file takes it */
static int n3t_param_set_yield(const char *val, const struct kernel_param *kp)
{
	unsigned int pct;
	int ret = kstrtouint(val, 10, &pct);

	if (ret)
		return ret;
	if (pct > N3T_YIELD_MAX)
		return -ERANGE;
	*(unsigned int *)kp->arg = pct;
	return 0;
}

static const struct kernel_param_ops n3t_param_yield_ops = {
	.set = n3t_param_set_yield,
	.get = param_get_uint,
};

module_param_cb(yield_pct, &n3t_param_yield_ops, &yield_pct, 0444);
MODULE_PARM_DESC(yield_pct, "Percent of each interval in which the module holds no counter, leaving the PMU to others, 0..50 (default 0; also writable in sysfs)");

static unsigned int sched_param = N3T_SCHED_ROTATE;

/* the words the schedule file takes */
static int n3t_param_set_schedule(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(n3t_schedule_names, val);

	if (i < 0)
		return -EINVAL;
	*(unsigned int *)kp->arg = i;
	return 0;
}

static int n3t_param_get_schedule(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", n3t_schedule_names[*(unsigned int *)kp->arg]);
}

static const struct kernel_param_ops n3t_param_schedule_ops = {
	.set = n3t_param_set_schedule,
	.get = n3t_param_get_schedule,
};

module_param_cb(schedule, &n3t_param_schedule_ops, &sched_param, 0444);
MODULE_PARM_DESC(schedule, "Initial schedule: rotate (default: topdown_l1's events every interval, the other sets in turn, each within 15 s) or all (every set every interval); also writable in sysfs");

static char *groups = "default";
module_param(groups, charp, 0444);
MODULE_PARM_DESC(groups, "Initial metric groups: default, all, or group names separated by commas (also writable in sysfs)");

unsigned int n3t_param_spare = 1;
module_param_named(spare, n3t_param_spare, uint, 0444);
MODULE_PARM_DESC(spare, "Programmable counters left free for other perf users' flexible events (perf record, perf top), where the PMU has more (default 1)");

int n3t_param_reserve = -1;
module_param_named(reserve, n3t_param_reserve, int, 0444);
MODULE_PARM_DESC(reserve, "PMU counters never to use (default -1: none, as every pinned user goes first anyway; with pinned=1, one for the perf hard-lockup detector when the kernel has it and the CPU PMU is used)");

#ifdef N3T_TEST_HOOKS
static char *test_models;
module_param(test_models, charp, 0444);
MODULE_PARM_DESC(test_models, "Test builds only: the table of each CPU in CPU order, comma separated, instead of the MIDR's (lets QEMU be heterogeneous)");

unsigned int n3t_test_midr;
module_param_named(test_midr, n3t_test_midr, uint, 0444);
MODULE_PARM_DESC(test_midr, "Test builds only: the MIDR_EL1 value every CPU is taken to have when its table is chosen (cores QEMU does not model)");

bool n3t_test_all_events;
module_param_named(test_all_events, n3t_test_all_events, bool, 0444);
MODULE_PARM_DESC(test_all_events, "Test builds only: every event of the table is live on the CPU PMU, whatever PMCEID says (QEMU's PMU counts them as zero), so that the cost is measured as on a core that has them all");

/* make bench's "old default" row: the schedule and lists before stepping aside */
unsigned int n3t_test_every;
module_param_named(test_every, n3t_test_every, uint, 0444);
MODULE_PARM_DESC(test_every, "Test builds only: a rotating slice every N intervals, whatever the 15 s freshness allows (0: as it allows)");
bool n3t_test_hold_all;
module_param_named(test_hold_all, n3t_test_hold_all, bool, 0444);
MODULE_PARM_DESC(test_hold_all, "Test builds only: every event of every set is created with the CPU's state and kept (in perf's lists), as before rotating sets' events lived for their slices only");
#endif

bool n3t_pinned;
module_param_named(pinned, n3t_pinned, bool, 0444);
MODULE_PARM_DESC(pinned, "Dedicated monitoring hosts only: pin the counters, so that they keep their counters against every task's pinned events (KVM guests' PMUs, perf -e ...:D) and later pinned users, which then stop counting (default: flexible, every other user goes first)");

bool n3t_isolated;
module_param_named(isolated, n3t_isolated, bool, 0444);
MODULE_PARM_DESC(isolated, "Also collect on isolated CPUs (nohz_full, isolcpus); default: leave them alone");

/*
 * Who reads the data (metric files, events, /dev/n3telemetry): see
 * n3t_data_allowed() and "Security" in Documentation/n3telemetry.rst.
 */
bool n3t_root_only;
module_param_named(root_only, n3t_root_only, bool, 0444);
MODULE_PARM_DESC(root_only, "Make every file and /dev/n3telemetry root-only; overrides world_readable (default: configuration and status world-readable, data for CAP_PERFMON)");

bool n3t_world_readable;
module_param_named(world_readable, n3t_world_readable, bool, 0444);
MODULE_PARM_DESC(world_readable, "Let every user read the metrics, the cumulative counts and /dev/n3telemetry (default: CAP_PERFMON or CAP_SYS_ADMIN needed, as for CPU-wide perf counting; a CPU's PMU data is a side channel between users); ignored with root_only=1");

struct n3t_config n3t_cfg = {
	.reconf = __MUTEX_INITIALIZER(n3t_cfg.reconf),
	.lock = __MUTEX_INITIALIZER(n3t_cfg.lock),
};

/* force= as a boolean: only these spellings (kstrtobool() takes "n..." as no) */
static int n3t_force_bool(bool *on)
{
	static const char * const yes[] = { "1", "y", "yes", "true", "on" };
	static const char * const no[] = { "0", "n", "no", "false", "off" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(force, yes[i]) || !strcasecmp(force, no[i])) {
			*on = !strcasecmp(force, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* force=: a table name, or a boolean (true means neoverse-n3, as before) */
/**
 * n3t_forced_model() - the table force= names
 * Return: the table, or NULL if force= names none (unset, or false).
 */
const struct n3t_model *n3t_forced_model(void)
{
	bool on;

	if (!force || !*force)
		return NULL;
	if (!n3t_force_bool(&on))
		return on ? n3t_model_by_name("neoverse-n3") : NULL;
	return n3t_model_by_name(force);
}

/**
 * n3t_test_model() - test builds: the table test_models= gives a CPU
 * @cpu: the CPU
 * Return: the @cpu-th name of the list as a table, or NULL.
 */
const struct n3t_model *n3t_test_model(unsigned int cpu)
{
#ifdef N3T_TEST_HOOKS
	const char *p = test_models, *end;
	unsigned int i;

	for (i = 0; p && i < cpu; i++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NULL;
	end = strchrnul(p, ',');
	for (i = 0; i < n3t_nr_models; i++)
		if (strlen(n3t_models[i]->name) == end - p &&
		    !strncmp(n3t_models[i]->name, p, end - p))
			return n3t_models[i];
#endif
	return NULL;
}

/**
 * n3t_config_check() - refuse parameters out of range, before detection
 * Return: 0 or -EINVAL (said in the log).
 */
int n3t_config_check(void)
{
	bool off;

	if (interval_ms < N3T_INTERVAL_MIN || interval_ms > N3T_INTERVAL_MAX) {
		pr_err("interval_ms=%u out of range %u..%u\n", interval_ms,
		       N3T_INTERVAL_MIN, N3T_INTERVAL_MAX);
		return -EINVAL;
	}
	if (force && *force && !n3t_forced_model() && n3t_force_bool(&off)) {
		pr_err("force=%s: no such table (see the user guide for the list)\n", force);
		return -EINVAL;
	}
	if (n3t_param_reserve < -1) {
		pr_err("reserve=%d: not a number of counters (-1 for the default)\n",
		       n3t_param_reserve);
		return -EINVAL;
	}
	if (n3t_param_spare > N3T_MAX_CAPACITY) {
		pr_err("spare=%u out of range 0..%u\n", n3t_param_spare, N3T_MAX_CAPACITY);
		return -EINVAL;
	}
	if (n3t_param_slots > N3T_MAX_SLOTS) {
		pr_err("slots=%u out of range 1..%u\n", n3t_param_slots, N3T_MAX_SLOTS);
		return -EINVAL;
	}
	return 0;
}

/**
 * n3t_parse_selection() - parse a group selection for every core type
 * @buf: "default", "all", or distinct group names separated by spaces or
 *	commas (see n3t_parse_groups())
 * @count: length of @buf
 * @groups: the selection of each core type (N3T_MAX_CORE_TYPES entries)
 *
 * "default" and "all" mean each core's own.  A name must name a group of
 * at least one core type in use; each core type selects the named groups its
 * core has, and must be left with at least one.
 * Return: 0, or -EINVAL (then @groups is unchanged).
 */
int n3t_parse_selection(const char *buf, size_t count, u32 *groups)
{
	u32 sel[N3T_MAX_CORE_TYPES] = {};
	unsigned int d;
	size_t pos = 0, len;
	const char *name;
	bool found;
	int g;

	if (n3t_cfg.nr_types == 1)
		return n3t_parse_groups(n3t_cfg.type[0].model, buf, count, groups);
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		/* rejects bad strings; handles "default" and "all" */
		if (!n3t_parse_groups(n3t_cfg.type[d].model, buf, count, &sel[d]))
			continue;
		memset(sel, 0, sizeof(sel));
		if (count && buf[count - 1] == '\n')
			count--;
		if (!count || count > N3T_GROUPS_MAX || memchr(buf, 0, count))
			return -EINVAL;
		break;
	}
	if (d < n3t_cfg.nr_types) {
		while ((name = n3t_next_name(buf, count, &pos, &len))) {
			found = false;
			for (d = 0; d < n3t_cfg.nr_types; d++) {
				g = n3t_group_by_name(n3t_cfg.type[d].model, name, len);
				if (g < 0)
					continue;
				if (sel[d] & BIT(g))
					return -EINVAL;
				sel[d] |= BIT(g);
				found = true;
			}
			if (!found)
				return -EINVAL;
		}
	}
	for (d = 0; d < n3t_cfg.nr_types; d++)
		if (!sel[d])
			return -EINVAL;
	memcpy(groups, sel, sizeof(sel));
	return 0;
}

/**
 * n3t_config_exit() - free the core types' plans
 */
void n3t_config_exit(void)
{
	unsigned int d;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		kfree(n3t_cfg.type[d].plan);
		n3t_cfg.type[d].plan = NULL;
	}
}

/**
 * n3t_config_init() - the initial configuration, once the core types are known
 *
 * The interval, the schedule and each core type's empty plan with the
 * groups= selection.
 * Return: 0, -ENOMEM, or -EINVAL for a groups= that selects nothing.
 */
int n3t_config_init(void)
{
	u32 sel[N3T_MAX_CORE_TYPES];
	unsigned int d;
	int ret;

	n3t_cfg.interval_ms = interval_ms;
	n3t_cfg.schedule = sched_param;
	n3t_cfg.yield_pct = yield_pct;
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		n3t_cfg.type[d].plan = kzalloc(sizeof(*n3t_cfg.type[d].plan), GFP_KERNEL);
		if (!n3t_cfg.type[d].plan) {
			ret = -ENOMEM;
			goto err;
		}
		n3t_cfg.type[d].plan->model = n3t_cfg.type[d].model;
	}
	ret = n3t_parse_selection(groups, strlen(groups), sel);
	if (ret) {
		pr_err("groups=%s: not \"default\", \"all\" or group names (see available_groups)\n",
		       groups);
		goto err;
	}
	for (d = 0; d < n3t_cfg.nr_types; d++)
		n3t_cfg.type[d].plan->groups = sel[d];
	return 0;
err:
	n3t_config_exit();
	return ret;
}

/**
 * n3t_data_allowed() - whether the opener of a file may read the data
 * @file: the open file, whose credentials (f_cred, the opener's) decide
 *
 * The data are what the PMU measured on a CPU: the metric group files and
 * the cumulative counts (events) of cpuN/ and system/, and /dev/n3telemetry.
 * perf gives a CPU's counts only to perfmon_capable() tasks (at any
 * perf_event_paranoid above 0, the default); so does the module, unless it
 * was loaded with world_readable=1 and without root_only=1 (root_only only
 * ever takes access away).  The configuration and status files are not
 * data.  perfmon_capable()'s test, CAP_PERFMON or CAP_SYS_ADMIN in the
 * initial user namespace, is made on the credentials the file was opened
 * with, not the reader's: a descriptor an unprivileged task opened reads
 * nothing even in a privileged task's hands, and one a privileged task
 * opened keeps reading after it drops its privileges, as with a perf
 * event's descriptor.  /dev/n3telemetry checks at open, the sysfs files
 * (which have no open of their own) at each read; their modes stay 0444 so
 * that a task with CAP_PERFMON but not root opens them.
 *
 * Return: true if the file's opener may read the data.
 */
bool n3t_data_allowed(const struct file *file)
{
	if (n3t_world_readable && !n3t_root_only)
		return true;
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

#ifdef N3T_TEST_HOOKS
/* Test builds: slices end only when "advance" is written (debugfs "manual"). */
bool n3t_manual;

/* the race windows' lengths (debugfs delay_us_*) */
u32 n3t_delay_us[N3T_NR_HOOKS];

/**
 * n3t_test_delay() - test builds: wait for the configured time
 * @hook: which window
 *
 * The windows busy-wait, as they are in RCU read-side sections or stand
 * for work that keeps the CPU.
 */
void n3t_test_delay(enum n3t_hook hook)
{
	u32 us = READ_ONCE(n3t_delay_us[hook]);

	while (us) {
		u32 step = min(us, 1000U);

		udelay(step);
		us -= step;
	}
}
#endif
