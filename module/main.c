// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: always-on topdown telemetry for Arm Neoverse N3 cores.
 *
 * Module parameters, CPU model and PMU detection, load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#include <asm/sysreg.h>
#ifdef N3T_HAVE_ARM_PMUV3_H	/* 6.4+, see Kbuild */
#include <linux/perf/arm_pmuv3.h>
#else
#include <asm/perf_event.h>
#endif
#ifndef ARMV8_PMU_PMCR_N	/* before 6.7: a shift and a mask */
#define ARMV8_PMU_PMCR_N	(ARMV8_PMU_PMCR_N_MASK << ARMV8_PMU_PMCR_N_SHIFT)
#endif
#endif

#include "n3telemetry.h"

static bool force;
module_param(force, bool, 0444);
MODULE_PARM_DESC(force, "Load on a CPU that is not a Neoverse N3 (metrics may be meaningless)");

static uint slots;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "Slots per cycle (default: PMMIR_EL1.SLOTS, else 5)");

static int pmu_type = -1;
module_param(pmu_type, int, 0444);
MODULE_PARM_DESC(pmu_type, "perf PMU type number to use (default: the CPU PMU, raw events)");

static uint interval_ms = 1000;
module_param(interval_ms, uint, 0444);
MODULE_PARM_DESC(interval_ms, "Initial interval in ms, 10..60000 (also writable in sysfs)");

static char *groups = "default";
module_param(groups, charp, 0444);
MODULE_PARM_DESC(groups, "Initial metric groups: default, all, or group names separated by commas (also writable in sysfs)");

static int reserve = -1;
module_param(reserve, int, 0444);
MODULE_PARM_DESC(reserve, "PMU counters to leave to others (default -1: one for the perf hard-lockup detector when the kernel has it and the CPU PMU is used, else 0)");

bool n3t_isolated;
module_param_named(isolated, n3t_isolated, bool, 0444);
MODULE_PARM_DESC(isolated, "Also collect on isolated CPUs (nohz_full, isolcpus); default: leave them alone");

bool n3t_root_only;
module_param_named(root_only, n3t_root_only, bool, 0444);
MODULE_PARM_DESC(root_only, "Make every file root-only (default: derived metrics world-readable)");

struct n3t_config n3t_cfg = {
	.reconf = __MUTEX_INITIALIZER(n3t_cfg.reconf),
	.lock = __MUTEX_INITIALIZER(n3t_cfg.lock),
};

#define N3T_MIDR_IMPL_ARM	0x41
#define N3T_MIDR_PART_N3	0xd8e

#ifdef CONFIG_ARM64
/* PMMIR_EL1 exists from PMUv3.4 (ID_AA64DFR0_EL1.PMUVer >= 5). */
static unsigned int n3t_pmmir_slots(void)
{
	u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
	unsigned int pmuver = (dfr0 >> 8) & 0xf;

	if (pmuver < 5 || pmuver == 0xf)
		return 0;
	return read_sysreg_s(sys_reg(3, 0, 9, 14, 6)) & 0xff;
}

/*
 * Common events the PMU implements, per PMCEID0/1_EL0: bits 0-31 of the two
 * registers describe events 0x00-0x3f, bits 32-63 events 0x4000-0x403f.
 * The arm64 PMU driver hides the same events from its sysfs events/.
 */
static void n3t_pmceid(unsigned long *usable)
{
	u64 id[2] = { read_sysreg(pmceid0_el0), read_sysreg(pmceid1_el0) };
	unsigned int e, code, c, shift;

	for (e = 0; e < N3T_NR_EVENTS; e++) {
		code = n3t_events[e].code;
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
#endif

static int n3t_detect(void)
{
	unsigned int impl = 0, part = 0, pmmir = 0;

#ifdef CONFIG_ARM64
	u32 midr = read_cpuid_id();

	impl = MIDR_IMPLEMENTOR(midr);
	part = MIDR_PARTNUM(midr);
	pmmir = n3t_pmmir_slots();
#endif
	if (impl == N3T_MIDR_IMPL_ARM && part == N3T_MIDR_PART_N3) {
		strscpy(n3t_cfg.model, "neoverse-n3", sizeof(n3t_cfg.model));
	} else if (force) {
		snprintf(n3t_cfg.model, sizeof(n3t_cfg.model),
			 "forced (implementer 0x%02x part 0x%03x)", impl, part);
	} else {
		pr_err("CPU is implementer 0x%02x part 0x%03x, not a Neoverse N3 (0x41/0xd8e); load with force=1 to override\n",
		       impl, part);
		return -ENODEV;
	}
	if (slots > N3T_MAX_SLOTS) {
		pr_err("slots=%u out of range 1..%u\n", slots, N3T_MAX_SLOTS);
		return -EINVAL;
	}
	n3t_cfg.slots = slots ?: pmmir ?: N3T_DEFAULT_SLOTS;

	bitmap_fill(n3t_cfg.usable, N3T_NR_EVENTS);
	if (pmu_type < 0) {
		n3t_cfg.pmu_type = PERF_TYPE_RAW;
#ifdef CONFIG_ARM64
		n3t_pmceid(n3t_cfg.usable);
		/* PMCR_EL0.N programmable counters, and the cycle counter */
		n3t_cfg.pmu_total = FIELD_GET(ARMV8_PMU_PMCR_N, read_sysreg(pmcr_el0)) + 1;
#endif
	} else {
		n3t_cfg.pmu_type = pmu_type;
	}
	/*
	 * The perf hard-lockup detector creates its pinned cycles event
	 * whenever it is switched on; it must find a counter then.
	 */
	if (reserve < 0)
		n3t_cfg.reserved = pmu_type < 0 && IS_ENABLED(CONFIG_HARDLOCKUP_DETECTOR_PERF);
	else
		n3t_cfg.reserved = reserve;
	return 0;
}

static int __init n3t_init(void)
{
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
	n3t_cfg.plan = kzalloc(sizeof(*n3t_cfg.plan), GFP_KERNEL);
	if (!n3t_cfg.plan)
		return -ENOMEM;
	ret = n3t_parse_groups(groups, strlen(groups), &n3t_cfg.plan->groups);
	if (ret) {
		pr_err("groups=%s: not \"default\", \"all\" or group names (see available_groups)\n",
		       groups);
		goto err_plan;
	}

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
	kfree(n3t_cfg.plan);
	return ret;
}

static void __exit n3t_exit(void)
{
	n3t_snapshot_exit();
	n3t_sysfs_exit();
	n3t_collect_exit();
	kfree(n3t_cfg.plan);
}

module_init(n3t_init);
module_exit(n3t_exit);

MODULE_DESCRIPTION("Topdown telemetry for Arm Neoverse N3 cores");
MODULE_LICENSE("GPL");
MODULE_VERSION(N3T_VERSION);
