/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3telemetry core types (coretype.c): the CPUs of each core type (struct
 * n3t_core_type of n3t_cfg) and whether the module may collect on a CPU.
 * Includes only config.h below it.
 */
#ifndef N3T_CORETYPE_H
#define N3T_CORETYPE_H

#include "config.h"

int n3t_detect(void);
struct n3t_core_type *n3t_cpu_identify(void);
struct n3t_core_type *n3t_cpu_core_type(unsigned int cpu);
bool n3t_cpu_wanted(unsigned int cpu);
bool n3t_cpu_isolation_fixed(unsigned int cpu);

#endif /* N3T_CORETYPE_H */
