/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry sysfs front-end (sysfs.c): for main.c, and the allocation
 * point fault injection fails (fail_function needs a global symbol).
 * Includes nothing.
 */
#ifndef N3T_SYSFS_H
#define N3T_SYSFS_H

struct n3t_view;
struct n3t_view *n3t_view_alloc(unsigned int nr_sets, unsigned int nr_ev);
int n3t_sysfs_init(void);
void n3t_sysfs_exit(void);

#endif /* N3T_SYSFS_H */
