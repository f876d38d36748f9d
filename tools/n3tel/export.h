/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output formats: what an export holds (struct selection,
 * export.c), JSON and CSV (export.c), Prometheus text (prometheus.c), the
 * node_exporter textfile loop (textfile.c).  They read the model (model.h)
 * and the containers (cgroup.h); prometheus.c calls export.c, textfile.c
 * calls prometheus.c, main.c calls them all; export.c calls neither.
 */
#ifndef N3TEL_EXPORT_H
#define N3TEL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum { SCOPE_SYSTEM = 1, SCOPE_CPU = 2, SCOPE_ALL = 3 };

/* what an export holds: --scope, --group, --metric; --by-cgroup */
struct selection {
	unsigned int scope;
	bool by_cgroup;			/* the containers too (export, textfile) */
	long max_cgroups;		/* --max-cgroups */
	const char *cgroot;		/* --cgroup-root, NULL: the mounted hierarchy */
	bool every_metric;		/* no --group/--metric: every metric (JSON, CSV) */
	int nr_groups, nr_metrics;
	const char *group[MAX_GROUPS * 2];
	const char *metric[MAX_METRICS * 2];
};

/* export.c */
void check_selection(const struct selection *sel, const struct tree *t);
bool want_metric(const struct selection *sel, const struct model *md, int m);
bool in_scope(const struct selection *sel, const struct view *v);
bool events_readable(const struct tree *t, const struct selection *sel);
void warn_events(const struct tree *t, const struct selection *sel);
unsigned int export_loads(const struct selection *sel);
/* false: --by-cgroup could not read the containers (said on stderr) */
bool export_json(struct tree *t, const struct selection *sel);
bool export_csv(struct tree *t, const struct selection *sel);

/* prometheus.c */
char *prom_text(struct tree *t, enum source src, const struct selection *sel,
		long max, size_t *len, bool *too_many, bool *cgroup_failed);

/* textfile.c */
int textfile(const char *root, enum source src, const char *dir,
	     const struct selection *sel, long max, unsigned int every);

#endif
