/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry control (control.c): load, unload, reconfiguration, pause and
 * resume, for main.c and sysfs.c.  Includes nothing of the module.
 */
#ifndef N3T_CONTROL_H
#define N3T_CONTROL_H

#include <linux/limits.h>
#include <linux/types.h>

#define N3T_KEEP		U32_MAX	/* n3t_collect_reconfigure(): unchanged */

int n3t_collect_init(void);
void n3t_collect_exit(void);
int n3t_collect_reconfigure(const u32 *groups, unsigned int interval_ms,
			    unsigned int schedule);
int n3t_collect_enable(bool on);

#endif /* N3T_CONTROL_H */
