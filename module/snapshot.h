/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry snapshot device (snapshot.c): for main.c, and the allocation
 * point fault injection fails.  Includes nothing.
 */
#ifndef N3T_SNAPSHOT_H
#define N3T_SNAPSHOT_H

#include <linux/types.h>

char *n3t_snapshot_alloc(size_t size);
int n3t_snapshot_init(void);
void n3t_snapshot_exit(void);

#endif /* N3T_SNAPSHOT_H */
