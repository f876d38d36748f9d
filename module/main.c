// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: always-on topdown telemetry for Arm Neoverse cores.
 *
 * Load and unload, the top of the module's layers: check the parameters
 * and make the initial configuration (config.c), identify the core types
 * (coretype.c), start collection (control.c), then the front-ends: debugfs
 * (debugfs.c), sysfs (sysfs.c), /dev/n3telemetry (snapshot.c); unload in
 * the reverse order.  Calls only those units' init and exit functions;
 * nothing calls it.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "control.h"
#include "coretype.h"
#include "debugfs.h"
#include "n3telemetry.h"
#include "snapshot.h"
#include "sysfs.h"

static int __init n3t_init(void)
{
	int ret;

	ret = n3t_config_check();
	if (ret)
		return ret;
	ret = n3t_detect();
	if (ret)
		return ret;
	ret = n3t_config_init();
	if (ret)
		return ret;
	ret = n3t_collect_init();
	if (ret)
		goto err_config;
	n3t_debugfs_init();
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
	n3t_debugfs_exit();
	n3t_collect_exit();
err_config:
	n3t_config_exit();
	return ret;
}

static void __exit n3t_exit(void)
{
	n3t_snapshot_exit();
	n3t_sysfs_exit();
	n3t_debugfs_exit();
	n3t_collect_exit();
	n3t_config_exit();
}

module_init(n3t_init);
module_exit(n3t_exit);

MODULE_DESCRIPTION("Topdown telemetry for Arm Neoverse cores");
MODULE_LICENSE("GPL");
MODULE_VERSION(N3T_VERSION);
