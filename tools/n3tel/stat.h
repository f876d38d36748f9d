/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3tel stat (stat.c): the metrics of one run of a command, from the
 * module's counts before and after it.  main.c calls it.
 */
#ifndef N3TEL_STAT_H
#define N3TEL_STAT_H

#include "model.h"

/*
 * Run @cmd (argv, NULL-terminated) on the CPUs of the --cpu list @cpus
 * (NULL: n3tel's own), then print the metrics of its run for those CPUs
 * and the whole system, of the groups @group (@nr_groups names; none: the
 * module's selection), as @format (NULL or "text", "json", "csv") to
 * @output (NULL: stderr), reading the module at @root; @cmd's exit status
 * (128 + signal if it was killed).
 */
int stat_run(const char *root, const char *cpus, const char *const *group, int nr_groups,
	     const char *format, const char *output, char **cmd);

#endif
