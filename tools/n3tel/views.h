/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal views: show (show.c, a table or tree), top (top.c, a live
 * view) and diagnose (diagnose.c, the topdown method's path).  They read the model (model.h); main.c calls them.
 */
#ifndef N3TEL_VIEWS_H
#define N3TEL_VIEWS_H

#include "model.h"

/* n3tel show into @t (root set, freed by the caller): --cpu @cpus, --group */
void show(struct tree *t, enum source src, const char *cpus, const char *const *group,
	  int nr_groups);
/*
 * n3tel show --by-cgroup into @t: the containers of the cgroup2 hierarchy
 * at @cgroot (NULL: the mounted one), at most @max, and the shared pool
 */
void show_cgroups(struct tree *t, enum source src, const char *const *group, int nr_groups,
		  const char *cgroot, long max);
/*
 * n3tel diagnose into @t: Arm's topdown method walked on the latest values
 * of system/ (or the CPUs of --cpu @cpus), as @format (NULL or "text",
 * "json") on standard output (diagnose.c)
 */
void diagnose(struct tree *t, enum source src, const char *cpus, const char *format);
/*
 * n3tel top: @iterations screens (0: until a signal), one every @delay s
 * (0: the module's interval, at least 1 s)
 */
void top(const char *root, enum source src, const char *sort, int iterations, double delay);

#endif
