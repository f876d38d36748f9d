/* SPDX-License-Identifier: GPL-2.0 */
/* n3telemetry: declarations shared by the module's files. */
#ifndef N3T_N3TELEMETRY_H
#define N3T_N3TELEMETRY_H

#define N3T_VERSION	"0.1.0"

int n3t_sysfs_init(void);
void n3t_sysfs_exit(void);

#endif /* N3T_N3TELEMETRY_H */
