// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: always-on topdown telemetry for Arm Neoverse N3 cores.
 *
 * Module parameters, CPU model and PMU detection, load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#include <asm/sysreg.h>
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
#endif
	} else {
		n3t_cfg.pmu_type = pmu_type;
	}
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
	n3t_cfg.plan->groups = N3T_DEFAULT_GROUPS;

	ret = n3t_collect_init();
	if (ret)
		goto err_plan;
	ret = n3t_sysfs_init();
	if (ret)
		goto err_collect;
	return 0;

err_collect:
	n3t_collect_exit();
err_plan:
	kfree(n3t_cfg.plan);
	return ret;
}

static void __exit n3t_exit(void)
{
	n3t_sysfs_exit();
	n3t_collect_exit();
	kfree(n3t_cfg.plan);
}

module_init(n3t_init);
module_exit(n3t_exit);

MODULE_DESCRIPTION("Topdown telemetry for Arm Neoverse N3 cores");
MODULE_LICENSE("GPL");
MODULE_VERSION(N3T_VERSION);
