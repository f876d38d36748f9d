// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: always-on topdown telemetry for Arm Neoverse N3 cores.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

#include "n3telemetry.h"

static int __init n3t_init(void)
{
	return n3t_sysfs_init();
}

static void __exit n3t_exit(void)
{
	n3t_sysfs_exit();
}

module_init(n3t_init);
module_exit(n3t_exit);

MODULE_DESCRIPTION("Topdown telemetry for Arm Neoverse N3 cores");
MODULE_LICENSE("GPL");
MODULE_VERSION(N3T_VERSION);
