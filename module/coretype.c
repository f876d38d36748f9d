// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry core types: which table describes each CPU (its MIDR matched
 * against the tables' ranges with the kernel's is_midr_in_range_list(), or
 * from 6.15 its per-range helper; or force=, or test_models=, or a test
 * build's test_midr= for the MIDR), what its PMU
 * implements (PMCEID, PMCR_EL0.N, PMMIR_EL1.SLOTS), the PMU to count with
 * (pmu_type=), and which CPUs the module may touch at all
 * (cpu_is_isolated()).  The CPUs of one core type are one struct
 * n3t_core_type of n3t_cfg; n3t_detect() makes them at load, the online
 * callbacks add CPUs that come later (n3t_cpu_identify()).
 *
 * Calls only config.c, the engine and the tables; includes config.h,
 * coretype.h and the generated models.h and models_midr.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/perf_event.h>
#include <linux/sched/isolation.h>
#include <linux/smp.h>
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

#include "coretype.h"

/* the counters are the CPU PMU's (pmu_type unset or naming it): PMCEID and reserve apply */
static bool n3t_cpu_pmu;

/* The tables generated from Arm's descriptions, and the MIDR ranges they describe. */
#include "models.h"

#ifdef CONFIG_ARM64
/**
 * struct n3t_midr_match - which table describes which cores
 * @model: the table
 * @ranges: the MIDR parts and revision ranges it describes, ended by an
 *	empty entry (is_midr_in_range_list())
 */
struct n3t_midr_match {
	const struct n3t_model *model;
	const struct midr_range *ranges;
};

/* cores older kernels' cputype.h does not name (5.10 has N1, V1 and N2) */
#ifndef MIDR_NEOVERSE_V2
#define MIDR_NEOVERSE_V2	MIDR_CPU_MODEL(ARM_CPU_IMP_ARM, 0xD4F)
#endif
#ifndef MIDR_NEOVERSE_V3
#define MIDR_NEOVERSE_V3	MIDR_CPU_MODEL(ARM_CPU_IMP_ARM, 0xD84)
#endif
#ifndef MIDR_NEOVERSE_N3
#define MIDR_NEOVERSE_N3	MIDR_CPU_MODEL(ARM_CPU_IMP_ARM, 0xD8E)
#endif
#ifndef MIDR_NEOVERSE_V3AE
#define MIDR_NEOVERSE_V3AE	MIDR_CPU_MODEL(ARM_CPU_IMP_ARM, 0xD83)
#endif
/* Microsoft's implementer code (ARM_CPU_IMP_MICROSOFT from 6.8) */
#ifndef MIDR_MICROSOFT_AZURE_COBALT_100
#define MIDR_MICROSOFT_AZURE_COBALT_100	MIDR_CPU_MODEL(0x6D, 0xD49)
#endif

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
	id->midr = n3t_midr_override(read_cpuid_id());
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

#ifdef CONFIG_ARM64
/*
 * Whether @midr, read on its own CPU, is in @ranges.  From 6.15 the kernel's
 * is_midr_in_range_list() tests the calling CPU's MIDR (or, in a guest, the
 * implementations its hypervisor names), not one given to it: there, each
 * range is compared with the helper that function uses for it.
 */
static bool n3t_midr_in_ranges(u32 midr, const struct midr_range *ranges)
{
#ifdef N3T_HAVE_MIDR_LIST_OF_MIDR	/* up to 6.14, see module/Kbuild */
	return is_midr_in_range_list(midr, ranges);
#else
	for (; ranges->model; ranges++)
		if (midr_is_cpu_model_range(midr, ranges->model, ranges->rv_min, ranges->rv_max))
			return true;
	return false;
#endif
}
#endif

static const struct n3t_model *n3t_match_model(u32 midr)
{
#ifdef CONFIG_ARM64
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n3t_midr_matches); i++)
		if (n3t_midr_in_ranges(midr, n3t_midr_matches[i].ranges))
			return n3t_midr_matches[i].model;
#endif
	return NULL;
}

/* why the generic table does not apply to a core no table names */
enum n3t_generic_no {
	N3T_GENERIC_OK,
	N3T_GENERIC_NO_TABLE,	/* the module has no generic table */
	N3T_GENERIC_NO_SLOTS,	/* PMMIR_EL1.SLOTS reads 0 and no slots= */
	N3T_GENERIC_NO_EVENTS,	/* PMCEID lacks one of its events */
};

static const struct n3t_model *n3t_generic_model(void)
{
	unsigned int i;

	for (i = 0; i < n3t_nr_models; i++)
		if (n3t_models[i]->generic)
			return n3t_models[i];
	return NULL;
}

static void n3t_pmceid(const struct n3t_model *model, const u64 *id, unsigned long *usable);

/*
 * Whether the generic table describes a core no other table names: its
 * slot count is known (PMMIR_EL1.SLOTS, or slots=), and on the CPU PMU
 * PMCEID says every one of its events is implemented (another PMU,
 * pmu_type=, has no PMCEID: its events are taken as they come).
 */
static enum n3t_generic_no n3t_generic_fits(const struct n3t_model *model,
					    const struct n3t_cpu_id *id)
{
	DECLARE_BITMAP(usable, N3T_MAX_EVENTS);

	if (!model)
		return N3T_GENERIC_NO_TABLE;
	if (!n3t_param_slots && !id->pmmir_slots)
		return N3T_GENERIC_NO_SLOTS;
	if (n3t_cpu_pmu && !n3t_all_events()) {
		bitmap_zero(usable, N3T_MAX_EVENTS);
		bitmap_set(usable, 0, model->nr_events);
		n3t_pmceid(model, id->pmceid, usable);
		if (!bitmap_full(usable, model->nr_events))
			return N3T_GENERIC_NO_EVENTS;
	}
	return N3T_GENERIC_OK;
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

/*
 * Whether every core counts event @code whenever it runs: an instruction
 * or an operation, retired or speculated (the PMUv3 common events).  Over
 * millions of cycles such an event cannot count nothing: if it does, its
 * counts do not reach the guest (a hypervisor's filter), see
 * n3t_end_slice().  A cache refill or an SVE operation may truly not happen.
 */
static bool n3t_always_counts(u16 code)
{
	return code == ARMV8_PMUV3_PERFCTR_INST_RETIRED || code == ARMV8_PMUV3_PERFCTR_INST_SPEC ||
	       code == ARMV8_PMUV3_PERFCTR_OP_RETIRED || code == ARMV8_PMUV3_PERFCTR_OP_SPEC;
}

/**
 * n3t_core_type_of() - the core type a CPU belongs to
 * @id: what the CPU said about itself (n3t_read_id())
 * @create: add a core type for a core type not seen yet
 *
 * Called at load for the online CPUs (@create true) and by the CPU online
 * callbacks for CPUs that come later (@create false: it only reads the
 * core types, which no longer change, and the callers add the CPU).
 * Return: the core type, or NULL for a core no table describes (or too many
 * core types).
 */
static struct n3t_core_type *n3t_core_type_of(const struct n3t_cpu_id *id, bool create)
{
	const struct n3t_model *model = n3t_test_model(id->cpu) ?: n3t_forced_model() ?:
					n3t_match_model(id->midr);
	struct n3t_core_type *d;
	unsigned int i, e;

	if (!model && n3t_generic_fits(n3t_generic_model(), id) == N3T_GENERIC_OK)
		model = n3t_generic_model();
	if (!model)
		return NULL;
	for (i = 0; i < n3t_cfg.nr_types; i++) {
		d = &n3t_cfg.type[i];
		if (d->model != model)
			continue;
		/*
		 * One core type per table; the generic table's is one core,
		 * its slots its own: the CPUs of another core no table names
		 * are left alone (n3t_detect() says so).
		 */
		if (model->generic && !d->forced &&
		    (MIDR_IMPLEMENTOR(d->midr) != MIDR_IMPLEMENTOR(id->midr) ||
		     MIDR_PARTNUM(d->midr) != MIDR_PARTNUM(id->midr)))
			return NULL;
		return d;
	}
	if (!create || n3t_cfg.nr_types == N3T_MAX_CORE_TYPES)
		return NULL;
	d = &n3t_cfg.type[n3t_cfg.nr_types++];
	d->model = model;
	d->forced = n3t_test_model(id->cpu) || n3t_forced_model();
	d->midr = id->midr;
	d->slots = n3t_param_slots ?: id->pmmir_slots ?: (model->generic ? 0 : model->slots);
	bitmap_zero(d->usable, N3T_MAX_EVENTS);
	bitmap_set(d->usable, 0, model->nr_events);
	bitmap_zero(d->always, N3T_MAX_EVENTS);
	for (e = 0; e < model->nr_events; e++)
		if (n3t_always_counts(model->events[e].code))
			__set_bit(e, d->always);
	if (n3t_cpu_pmu) {
		if (!n3t_all_events())
			n3t_pmceid(model, id->pmceid, d->usable);
		d->pmu_total = id->pmu_total;
	}
	/*
	 * The perf hard-lockup detector creates its pinned cycles event
	 * whenever it is switched on; it must find a counter then.
	 */
	if (n3t_param_reserve < 0)
		d->reserved = n3t_pinned && n3t_cpu_pmu &&
			      IS_ENABLED(CONFIG_HARDLOCKUP_DETECTOR_PERF);
	else
		d->reserved = n3t_param_reserve;
	return d;
}

/**
 * n3t_cpu_identify() - the core type of the calling CPU, for online callbacks
 *
 * Runs on the CPU coming online; adds it to its core type's CPUs, so that
 * whichever online callback runs first (collection, sysfs) finds it there.
 * Return: its core type, or NULL.
 */
struct n3t_core_type *n3t_cpu_identify(void)
{
	struct n3t_core_type *d;
	struct n3t_cpu_id id;

	n3t_read_id(&id);
	d = n3t_core_type_of(&id, false);
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

/**
 * n3t_detect() - the core types of the online CPUs, and the PMU to use
 *
 * Sets n3t_cfg.pmu_type and n3t_cfg's core types (model, slots, usable
 * events, PMU counters, reserve, CPUs); the parameters were checked
 * (n3t_config_check()).
 * Return: 0; -ENODEV when no CPU is a core a table describes; -EINVAL for
 * a reserve= the PMU cannot leave; or smp_call_function_single()'s error.
 */
int n3t_detect(void)
{
	static const char * const why[] = {
		[N3T_GENERIC_NO_SLOTS] = ", and no slot count for the generic table (PMMIR_EL1)",
		[N3T_GENERIC_NO_EVENTS] = ", and its PMU lacks the generic table's events",
	};
	struct n3t_core_type *d;
	struct n3t_cpu_id id, unknown_id = {};
	unsigned int cpu, i, unknown = 0;
	u32 unknown_midr = 0;
	int ret = 0;

	n3t_cfg.pmu_type = n3t_param_pmu_type < 0 ? PERF_TYPE_RAW : n3t_param_pmu_type;
	n3t_cpu_pmu = n3t_param_pmu_type < 0 || n3t_names_cpu_pmu(n3t_param_pmu_type);
	if (n3t_param_pmu_type >= 0 && n3t_cpu_pmu)
		pr_info("pmu_type=%d is the CPU PMU: its implemented events are checked as by default\n",
			n3t_param_pmu_type);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!n3t_cpu_wanted(cpu))
			continue;	/* an isolated CPU is not even asked */
		ret = smp_call_function_single(cpu, n3t_read_id, &id, 1);
		if (ret)
			break;
		d = n3t_core_type_of(&id, true);
		if (d) {
			cpumask_set_cpu(cpu, &d->cpus);
		} else {
			unknown++;
			unknown_midr = id.midr;
			unknown_id = id;
		}
	}
	cpus_read_unlock();
	if (ret)
		return ret;
	if (!n3t_cfg.nr_types) {
		enum n3t_generic_no no = n3t_generic_fits(n3t_generic_model(), &unknown_id);

		pr_err("CPU is implementer 0x%02x part 0x%03x r%up%u, a core no table describes%s; load with force=<table> to use one anyway\n",
		       MIDR_IMPLEMENTOR(unknown_midr), MIDR_PARTNUM(unknown_midr),
		       MIDR_VARIANT(unknown_midr), MIDR_REVISION(unknown_midr),
		       no < ARRAY_SIZE(why) && why[no] ? why[no] : "");
		return -ENODEV;
	}
	for (i = 0; i < n3t_cfg.nr_types; i++) {
		d = &n3t_cfg.type[i];
		if (!d->slots) {	/* the generic table, forced */
			pr_err("%s: the PMU gives no slot count (PMMIR_EL1.SLOTS reads 0): give slots=, the core's slots per cycle\n",
			       d->model->name);
			return -EINVAL;
		}
		if (d->pmu_total && d->reserved >= d->pmu_total) {
			pr_err("reserve=%d: the %s PMU has only %u counters\n", n3t_param_reserve,
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
 * n3t_cpu_core_type() - the core type of a CPU
 * @cpu: the CPU
 * Return: the core type of its core type, or NULL if none was seen for it.
 */
struct n3t_core_type *n3t_cpu_core_type(unsigned int cpu)
{
	unsigned int d;

	for (d = 0; d < n3t_cfg.nr_types; d++)
		if (cpumask_test_cpu(cpu, &n3t_cfg.type[d].cpus))
			return &n3t_cfg.type[d];
	return NULL;
}

/**
 * n3t_cpu_wanted() - whether collection may run on a CPU at all
 * @cpu: the CPU
 *
 * Not on an isolated CPU (nohz_full, isolcpus, a cpuset isolated partition
 * where the kernel knows them: cpu_is_isolated()) unless isolated=1: such a
 * CPU was promised no kernel noise, and a slice timer, an event created or
 * a function called on it is noise.  housekeeping_test_cpu(), not the
 * inline housekeeping_cpu(): that one puts sites of the static key
 * housekeeping_overridden into the module's text, and loading text with
 * sites of an enabled key patches them, which arm64 follows with an IPI
 * to every CPU (kick_all_cpus_sync()), isolated ones included (seen on 7.3,
 * whose cpuset isolated partitions enable the key, by the isolated
 * kselftest).
 * Return: true to collect on @cpu.
 */
bool n3t_cpu_wanted(unsigned int cpu)
{
	if (n3t_isolated)
		return true;
#ifdef N3T_HAVE_CPU_IS_ISOLATED
	return !cpu_is_isolated(cpu);
#elif defined(N3T_HAVE_HK_TYPE)
	return housekeeping_test_cpu(cpu, HK_TYPE_TICK) &&
	       housekeeping_test_cpu(cpu, HK_TYPE_DOMAIN);
#else	/* before 5.18: flags */
	return housekeeping_test_cpu(cpu, HK_FLAG_TICK) &&
	       housekeeping_test_cpu(cpu, HK_FLAG_DOMAIN);
#endif
}

/**
 * n3t_cpu_isolation_fixed() - whether a CPU's n3t_cpu_wanted() never changes
 * @cpu: the CPU
 *
 * Isolated at boot (nohz_full, isolcpus), or the kernel has no isolation
 * that changes at run time (no cpu_is_isolated(): no cpuset isolated
 * partitions), or isolated=1.
 * Return: true if n3t_cpu_wanted(@cpu) is the same until reboot.
 */
bool n3t_cpu_isolation_fixed(unsigned int cpu)
{
#if defined(N3T_HAVE_CPU_IS_ISOLATED) && defined(N3T_HAVE_HK_TYPE_DOMAIN_BOOT)
	/* HK_TYPE_DOMAIN leaves out cpuset isolated partitions too: isolcpus= alone */
	return n3t_isolated || !housekeeping_test_cpu(cpu, HK_TYPE_TICK) ||
	       !housekeeping_test_cpu(cpu, HK_TYPE_DOMAIN_BOOT);
#elif defined(N3T_HAVE_CPU_IS_ISOLATED)
	return n3t_isolated || !housekeeping_test_cpu(cpu, HK_TYPE_TICK) ||
	       !housekeeping_test_cpu(cpu, HK_TYPE_DOMAIN);
#else
	return true;
#endif
}
