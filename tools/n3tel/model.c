// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory model (model.h): looking up a model's events,
 * metrics and groups by name, building a model's tables (for sysfs.c and
 * snapshot.c), printing a metric's value, freeing a tree.
 *
 * Calls util.h and the engine's n3t_format() (module/engine.c, the module's
 * own formatter); nothing else of n3tel.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"	/* n3t_format(): values printed as the module prints them */
#include "read.h"
#include "util.h"

/*
 * A value in millionths printed with @decimals digits (0..6), rounded half
 * away from zero, like the module prints it; "nan" when not valid, never
 * "-0.00".
 */
static const char *fmt_fixed(char *buf, size_t size, int decimals, int64_t value, bool valid)
{
	n3t_format(buf, size, decimals < 0 ? 0 : decimals, value, valid);	/* the engine's */
	return buf;
}

int metric_by_name(const struct model *md, const char *name)
{
	for (int m = 0; md && m < md->nr_metrics; m++)
		if (!strcmp(md->metric[m].name, name))
			return m;
	return -1;
}

int event_by_name(const struct model *md, const char *name)
{
	for (int e = 0; e < md->nr_events; e++)
		if (!strcmp(md->event[e], name))
			return e;
	return -1;
}

/* the file name ("branch") or Arm's name ("Branch_Effectiveness") */
int group_by_name(const struct model *md, const char *name)
{
	for (int g = 0; g < md->nr_groups; g++)
		if (!strcmp(md->group[g].name, name) || !strcmp(md->group[g].arm, name))
			return g;
	return -1;
}

int model_by_name(const struct tree *t, const char *name)
{
	for (int i = 0; i < t->nr_models; i++)
		if (!strcmp(t->model[i].name, name))
			return i;
	return -1;
}

const struct model *view_model(const struct tree *t, const struct view *v)
{
	return v->model >= 0 ? &t->model[v->model] : NULL;
}

void mark_selected(struct model *md)
{
	memset(md->selected, 0, sizeof(md->selected));
	for (int g = 0; g < md->nr_groups; g++)
		if (md->groups & (1u << g))
			for (int k = 0; k < md->group[g].nr; k++)
				md->selected[md->group[g].metrics[k]] = true;
}

/* copy a token that must fit a name; false if it does not */
bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= NAME_LEN)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

struct model *add_model(struct tree *t, const char *name)
{
	struct model *md;

	if (!t->model) {
		t->model = calloc(MAX_MODELS, sizeof(*t->model));
		if (!t->model)
			die("out of memory");
	}
	if (t->nr_models == MAX_MODELS)
		die("more than %d CPU models", MAX_MODELS);
	md = &t->model[t->nr_models++];
	snprintf(md->name, sizeof(md->name), "%s", name);
	return md;
}

const char *fmt_metric(char *buf, size_t n, const struct tree *t,
			      const struct view *v, int m)
{
	const struct model *md = view_model(t, v);

	if (!md || m < 0)
		return "-";
	return fmt_fixed(buf, n, md->metric[m].decimals, v->value[m], v->have && v->valid[m]);
}

bool metric_composed(const struct tree *t, const struct view *v, int m)
{
	return view_model(t, v) && m >= 0 && v->composed[m];
}

const char *fmt_metric_marked(char *buf, size_t n, const struct tree *t,
			      const struct view *v, int m)
{
	char val[VALUE_BUF];

	if (!metric_composed(t, v, m))
		return fmt_metric(buf, n, t, v, m);
	snprintf(buf, n, COMPOSED_MARK "%s", fmt_metric(val, sizeof(val), t, v, m));
	return buf;
}

void free_tree(struct tree *t)
{
	for (int m = 0; m < t->nr_models; m++) {
		if (t->model[m].fx)
			free(t->model[m].fx->term);
		free(t->model[m].fx);
	}
	free(t->v);
	free(t->model);
	t->v = NULL;
	t->model = NULL;
	t->nr = t->nr_models = 0;
}
