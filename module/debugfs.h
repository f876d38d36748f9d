/* SPDX-License-Identifier: GPL-2.0 */
/* n3telemetry debugfs files (debugfs.c), for main.c.  Includes nothing. */
#ifndef N3T_DEBUGFS_H
#define N3T_DEBUGFS_H

void n3t_debugfs_init(void);
void n3t_debugfs_exit(void);

#endif /* N3T_DEBUGFS_H */
