/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the parts of the model's reader only (model.c, sysfs.c,
 * snapshot.c, read.c): building a model, the access rules of the module's
 * files, the tables from text or from the snapshot.  The views and formats
 * include model.h, never this.
 */
#ifndef N3TEL_READ_H
#define N3TEL_READ_H

#include "model.h"

#define DEFAULT_DEVICE	"/dev/n3telemetry"	/* the binary snapshot */

/* model.c: building the tables */
int model_by_name(const struct tree *t, const char *name);
void mark_selected(struct model *md);
bool name_ok(const char *s);
struct model *add_model(struct tree *t, const char *name);

/* sysfs.c: the rule for a refused file, the tables from text */
void __attribute__((noreturn)) die_access(const struct tree *t, const char *path);
void load_models_text(struct tree *t);

/* snapshot.c: the tables and the CPUs' views from the binary snapshot */
void snapshot_path(const struct tree *t, char *path, size_t size);
int load_snapshot(struct tree *t);

#endif
