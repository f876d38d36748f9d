// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: always-on topdown telemetry for Arm Neoverse cores.
 *
 * Module parameters, core and PMU detection (one domain per core type),
 * load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#include <asm/sysreg.h>
#ifdef N3T_HAVE_ARM_PMUV3_H	/* 6.4+, see Kbuild */
#include <linux/perf/arm_pmuv3.h>
#include <asm/arm_pmuv3.h>
#else
#include <asm/perf_event.h>
/* Before 6.4: the PMUv3 version helpers of asm/arm_pmuv3.h, by number. */
static inline u32 read_pmuver(void)
{
	return FIELD_GET(GENMASK(11, 8), read_sysreg(id_aa64dfr0_el1));
}

static inline bool pmuv3_implemented(int pmuver)
{
	return pmuver != 0 && pmuver != 0xf;	/* not implemented, IMPLEMENTATION DEFINED */
}

static inline bool is_pmuv3p4(int pmuver)
{
	return pmuver >= 5;
}

static inline unsigned long read_pmmir(void)
{
	return read_sysreg_s(SYS_PMMIR_EL1);
}
#endif
#ifndef ARMV8_PMU_SLOTS	/* before 6.7: a mask */
#define ARMV8_PMU_SLOTS	ARMV8_PMU_SLOTS_MASK
#endif
#ifndef ARMV8_PMU_PMCR_N	/* before 6.7: a shift and a mask */
#define ARMV8_PMU_PMCR_N	(ARMV8_PMU_PMCR_N_MASK << ARMV8_PMU_PMCR_N_SHIFT)
#endif
#endif

#include "n3telemetry.h"

static char *force;
module_param(force, charp, 0444);
MODULE_PARM_DESC(force, "Use this table on every CPU whatever the core (e.g. neoverse-v2; 1 means neoverse-n3); metrics may be meaningless");

static uint slots;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "Slots per cycle (default: PMMIR_EL1.SLOTS, else the core's table)");

static int pmu_type = -1;
module_param(pmu_type, int, 0444);
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
MODULE_PARM_DESC(yield_pct, "Percent of each interval in which the module holds no counter, leaving the PMU to others, 0..50 (default 10; also writable in sysfs)");

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
MODULE_PARM_DESC(schedule, "Initial schedule: rotate (default: topdown_l1's events every interval, one other set per interval in turn) or all (every set every interval); also writable in sysfs");

static char *groups = "default";
module_param(groups, charp, 0444);
MODULE_PARM_DESC(groups, "Initial metric groups: default, all, or group names separated by commas (also writable in sysfs)");

/* the counters are the CPU PMU's (pmu_type unset or naming it): PMCEID and reserve apply */
static bool n3t_cpu_pmu;

static int reserve = -1;
module_param(reserve, int, 0444);
MODULE_PARM_DESC(reserve, "PMU counters never to use (default -1: none, as every pinned user goes first anyway; with pinned=1, one for the perf hard-lockup detector when the kernel has it and the CPU PMU is used)");

#ifdef N3T_TEST_HOOKS
static char *test_models;
module_param(test_models, charp, 0444);
MODULE_PARM_DESC(test_models, "Test builds only: the table of each CPU in CPU order, comma separated, instead of the MIDR's (lets QEMU be heterogeneous)");
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

/* The tables generated from Arm's descriptions, and the MIDR ranges they describe. */
#include "models.h"

#ifdef CONFIG_ARM64
/**
 * struct n3t_midr_match - which table describes a range of cores
 * @range: the MIDR part and revision range
 * @model: the table
 */
struct n3t_midr_match {
	struct midr_range range;
	const struct n3t_model *model;
};

static const struct n3t_midr_match n3t_midr_matches[] = {
#include "models_midr.h"
};
#endif

/**
 * struct n3t_cpu_id - what a CPU says about itself and its PMU
 * @cpu: the CPU
 * @midr: MIDR_EL1
 * @pmceid: PMCEID0_EL0, PMCEID1_EL0
 * @pmu_total: PMCR_EL0.N programmable counters plus the cycle counter
 * @pmmir_slots: PMMIR_EL1.SLOTS (0: not implemented)
 */
struct n3t_cpu_id {
	unsigned int cpu;
	u32 midr;
	u64 pmceid[2];
	unsigned int pmu_total;
	unsigned int pmmir_slots;
};

/* Runs on the CPU it describes. */
static void n3t_read_id(void *info)
{
	struct n3t_cpu_id *id = info;

	memset(id, 0, sizeof(*id));
	id->cpu = smp_processor_id();
#ifdef CONFIG_ARM64
	id->midr = read_cpuid_id();
	/* the PMU registers exist only with PMUv3 (not in every VM) */
	if (!pmuv3_implemented(read_pmuver()))
		return;
	id->pmceid[0] = read_sysreg(pmceid0_el0);
	id->pmceid[1] = read_sysreg(pmceid1_el0);
	id->pmu_total = FIELD_GET(ARMV8_PMU_PMCR_N, read_sysreg(pmcr_el0)) + 1;
	/* PMMIR_EL1 exists from PMUv3.4 on */
	if (pmuv3_implemented(read_pmuver()) && is_pmuv3p4(read_pmuver()))
		id->pmmir_slots = FIELD_GET(ARMV8_PMU_SLOTS, read_pmmir());
#endif
}

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
static const struct n3t_model *n3t_forced_model(void)
{
	bool on;

	if (!force || !*force)
		return NULL;
	if (!n3t_force_bool(&on))
		return on ? n3t_model_by_name("neoverse-n3") : NULL;
	return n3t_model_by_name(force);
}

/* test_models=: the @cpu-th name of the list, if any. */
static const struct n3t_model *n3t_test_model(unsigned int cpu)
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

static const struct n3t_model *n3t_match_model(u32 midr)
{
#ifdef CONFIG_ARM64
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n3t_midr_matches); i++) {
		const struct midr_range *r = &n3t_midr_matches[i].range;

		if (midr_is_cpu_model_range(midr, r->model, r->rv_min, r->rv_max))
			return n3t_midr_matches[i].model;
	}
#endif
	return NULL;
}

/*
 * Common events the PMU implements, per PMCEID0/1_EL0: bits 0-31 of the two
 * registers describe events 0x00-0x3f, bits 32-63 events 0x4000-0x403f.
 * The arm64 PMU driver hides the same events from its sysfs events/.
 */
static void n3t_pmceid(const struct n3t_model *model, const u64 *id, unsigned long *usable)
{
	unsigned int e, code, c, shift;

	for (e = 0; e < model->nr_events; e++) {
		code = model->events[e].code;
		if (code < 0x40) {
			c = code;
			shift = 0;
		} else if (code >= 0x4000 && code < 0x4040) {
			c = code - 0x4000;
			shift = 32;
		} else {
			continue;	/* not described by PMCEID */
		}
		if (!((id[c / 32] >> (shift + c % 32)) & 1))
			__clear_bit(e, usable);
	}
}

/**
 * n3t_domain_of() - the domain a CPU belongs to
 * @id: what the CPU said about itself (n3t_read_id())
 * @create: add a domain for a core type not seen yet
 *
 * Called at load for the online CPUs (@create true) and by the CPU online
 * callbacks for CPUs that come later (@create false: it only reads the
 * domains, which no longer change, and the callers add the CPU).
 * Return: the domain, or NULL for a core no table describes (or too many
 * core types).
 */
static struct n3t_domain *n3t_domain_of(const struct n3t_cpu_id *id, bool create)
{
	const struct n3t_model *model = n3t_test_model(id->cpu) ?: n3t_forced_model() ?:
					n3t_match_model(id->midr);
	struct n3t_domain *d;
	unsigned int i;

	if (!model)
		return NULL;
	for (i = 0; i < n3t_cfg.nr_dom; i++)
		if (n3t_cfg.dom[i].model == model)
			return &n3t_cfg.dom[i];
	if (!create || n3t_cfg.nr_dom == N3T_MAX_DOMAINS)
		return NULL;
	d = &n3t_cfg.dom[n3t_cfg.nr_dom++];
	d->model = model;
	d->forced = n3t_test_model(id->cpu) || n3t_forced_model();
	d->midr = id->midr;
	d->slots = slots ?: id->pmmir_slots ?: model->slots;
	bitmap_zero(d->usable, N3T_MAX_EVENTS);
	bitmap_set(d->usable, 0, model->nr_events);
	if (n3t_cpu_pmu) {
		n3t_pmceid(model, id->pmceid, d->usable);
		d->pmu_total = id->pmu_total;
	}
	/*
	 * The perf hard-lockup detector creates its pinned cycles event
	 * whenever it is switched on; it must find a counter then.
	 */
	if (reserve < 0)
		d->reserved = n3t_pinned && n3t_cpu_pmu &&
			      IS_ENABLED(CONFIG_HARDLOCKUP_DETECTOR_PERF);
	else
		d->reserved = reserve;
	return d;
}

/**
 * n3t_cpu_identify() - the domain of the calling CPU, for online callbacks
 *
 * Runs on the CPU coming online; adds it to its domain's CPUs, so that
 * whichever online callback runs first (collection, sysfs) finds it there.
 * Return: its domain, or NULL.
 */
struct n3t_domain *n3t_cpu_identify(void)
{
	struct n3t_domain *d;
	struct n3t_cpu_id id;

	n3t_read_id(&id);
	d = n3t_domain_of(&id, false);
	if (d)
		cpumask_set_cpu(id.cpu, &d->cpus);
	return d;
}

/*
 * Whether pmu_type= names the CPU PMU itself (its type number, as in
 * /sys/bus/event_source/devices/armv8_pmuv3_0/type): the same PMU then
 * takes a raw event of the same code on a CPU that collects.  Such a
 * choice is the default in all but name: the PMCEID check and the
 * watchdog reserve apply.
 */
static bool n3t_names_cpu_pmu(u32 type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.config = ARMV8_PMUV3_PERFCTR_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *named, *raw;
	unsigned int cpu;
	bool same = false;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (n3t_cpu_wanted(cpu))
			break;
	if (cpu < nr_cpu_ids) {
		attr.type = type;
		named = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		attr.type = PERF_TYPE_RAW;
		raw = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		same = !IS_ERR(named) && !IS_ERR(raw) && named->pmu == raw->pmu;
		if (!IS_ERR(named))
			perf_event_release_kernel(named);
		if (!IS_ERR(raw))
			perf_event_release_kernel(raw);
	}
	cpus_read_unlock();
	return same;
}

static int n3t_detect(void)
{
	bool off;
	struct n3t_domain *d;
	struct n3t_cpu_id id;
	unsigned int cpu, i, unknown = 0;
	u32 unknown_midr = 0;
	int ret = 0;

	if (force && *force && !n3t_forced_model() && n3t_force_bool(&off)) {
		pr_err("force=%s: no such table (see the user guide for the list)\n", force);
		return -EINVAL;
	}
	if (reserve < -1) {
		pr_err("reserve=%d: not a number of counters (-1 for the default)\n", reserve);
		return -EINVAL;
	}
	if (slots > N3T_MAX_SLOTS) {
		pr_err("slots=%u out of range 1..%u\n", slots, N3T_MAX_SLOTS);
		return -EINVAL;
	}
	n3t_cfg.pmu_type = pmu_type < 0 ? PERF_TYPE_RAW : pmu_type;
	n3t_cpu_pmu = pmu_type < 0 || n3t_names_cpu_pmu(pmu_type);
	if (pmu_type >= 0 && n3t_cpu_pmu)
		pr_info("pmu_type=%d is the CPU PMU: its implemented events are checked as by default\n",
			pmu_type);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!n3t_cpu_wanted(cpu))
			continue;	/* an isolated CPU is not even asked */
		ret = smp_call_function_single(cpu, n3t_read_id, &id, 1);
		if (ret)
			break;
		d = n3t_domain_of(&id, true);
		if (d) {
			cpumask_set_cpu(cpu, &d->cpus);
		} else {
			unknown++;
			unknown_midr = id.midr;
		}
	}
	cpus_read_unlock();
	if (ret)
		return ret;
	if (!n3t_cfg.nr_dom) {
		pr_err("CPU is implementer 0x%02x part 0x%03x r%up%u, a core no table describes; load with force=<table> to use one anyway\n",
		       MIDR_IMPLEMENTOR(unknown_midr), MIDR_PARTNUM(unknown_midr),
		       MIDR_VARIANT(unknown_midr), MIDR_REVISION(unknown_midr));
		return -ENODEV;
	}
	for (i = 0; i < n3t_cfg.nr_dom; i++) {
		d = &n3t_cfg.dom[i];
		if (d->pmu_total && d->reserved >= d->pmu_total) {
			pr_err("reserve=%d: the %s PMU has only %u counters\n", reserve,
			       d->model->name, d->pmu_total);
			return -EINVAL;
		}
	}
	if (unknown)
		pr_warn("%u CPUs (e.g. implementer 0x%02x part 0x%03x) are cores no table describes; they are not collected\n",
			unknown, MIDR_IMPLEMENTOR(unknown_midr), MIDR_PARTNUM(unknown_midr));
	return 0;
}

/**
 * n3t_parse_selection() - parse a group selection for every domain
 * @buf: "default", "all", or distinct group names separated by spaces or
 *	commas (see n3t_parse_groups())
 * @count: length of @buf
 * @groups: the selection of each domain (N3T_MAX_DOMAINS entries)
 *
 * "default" and "all" mean each core's own.  A name must name a group of
 * at least one core type in use; each domain selects the named groups its
 * core has, and must be left with at least one.
 * Return: 0, or -EINVAL (then @groups is unchanged).
 */
int n3t_parse_selection(const char *buf, size_t count, u32 *groups)
{
	u32 sel[N3T_MAX_DOMAINS] = {};
	unsigned int d;
	size_t pos = 0, len;
	const char *name;
	bool found;
	int g;

	if (n3t_cfg.nr_dom == 1)
		return n3t_parse_groups(n3t_cfg.dom[0].model, buf, count, groups);
	for (d = 0; d < n3t_cfg.nr_dom; d++) {
		/* rejects bad strings; handles "default" and "all" */
		if (!n3t_parse_groups(n3t_cfg.dom[d].model, buf, count, &sel[d]))
			continue;
		memset(sel, 0, sizeof(sel));
		if (count && buf[count - 1] == '\n')
			count--;
		if (!count || count > N3T_GROUPS_MAX || memchr(buf, 0, count))
			return -EINVAL;
		break;
	}
	if (d < n3t_cfg.nr_dom) {
		while ((name = n3t_next_name(buf, count, &pos, &len))) {
			found = false;
			for (d = 0; d < n3t_cfg.nr_dom; d++) {
				g = n3t_group_by_name(n3t_cfg.dom[d].model, name, len);
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
	for (d = 0; d < n3t_cfg.nr_dom; d++)
		if (!sel[d])
			return -EINVAL;
	memcpy(groups, sel, sizeof(sel));
	return 0;
}

static void n3t_free_plans(void)
{
	unsigned int d;

	for (d = 0; d < n3t_cfg.nr_dom; d++) {
		kfree(n3t_cfg.dom[d].plan);
		n3t_cfg.dom[d].plan = NULL;
	}
}

static int __init n3t_init(void)
{
	u32 sel[N3T_MAX_DOMAINS];
	unsigned int d;
	int ret;

	if (interval_ms < N3T_INTERVAL_MIN || interval_ms > N3T_INTERVAL_MAX) {
		pr_err("interval_ms=%u out of range %u..%u\n", interval_ms,
		       N3T_INTERVAL_MIN, N3T_INTERVAL_MAX);
		return -EINVAL;
	}
	ret = n3t_detect();
	if (ret)
		return ret;
	n3t_cfg.interval_ms = interval_ms;
	n3t_cfg.schedule = sched_param;
	n3t_cfg.yield_pct = yield_pct;
	for (d = 0; d < n3t_cfg.nr_dom; d++) {
		n3t_cfg.dom[d].plan = kzalloc(sizeof(*n3t_cfg.dom[d].plan), GFP_KERNEL);
		if (!n3t_cfg.dom[d].plan) {
			ret = -ENOMEM;
			goto err_plan;
		}
		n3t_cfg.dom[d].plan->model = n3t_cfg.dom[d].model;
	}
	ret = n3t_parse_selection(groups, strlen(groups), sel);
	if (ret) {
		pr_err("groups=%s: not \"default\", \"all\" or group names (see available_groups)\n",
		       groups);
		goto err_plan;
	}
	for (d = 0; d < n3t_cfg.nr_dom; d++)
		n3t_cfg.dom[d].plan->groups = sel[d];

	ret = n3t_collect_init();
	if (ret)
		goto err_plan;
	ret = n3t_sysfs_init();
	if (ret)
		goto err_collect;
	ret = n3t_snapshot_init();
	if (ret)
		goto err_sysfs;
	return 0;

err_sysfs:
	n3t_sysfs_exit();
err_collect:
	n3t_collect_exit();
err_plan:
	n3t_free_plans();
	return ret;
}

static void __exit n3t_exit(void)
{
	n3t_snapshot_exit();
	n3t_sysfs_exit();
	n3t_collect_exit();
	n3t_free_plans();
}

module_init(n3t_init);
module_exit(n3t_exit);

MODULE_DESCRIPTION("Topdown telemetry for Arm Neoverse cores");
MODULE_LICENSE("GPL");
MODULE_VERSION(N3T_VERSION);
