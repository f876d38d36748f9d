/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry capacity probe (probe.c), for control.c.  Includes nothing of
 * the module.
 */
#ifndef N3T_PROBE_H
#define N3T_PROBE_H

int n3t_probe_events(void);
int n3t_probe_capacity(void);

#endif /* N3T_PROBE_H */
