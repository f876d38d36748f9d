// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel diagnose [--cpu LIST|system] [--format text|json]: Arm's topdown
 * method walked on the latest values, from stage 1 (topdown level 1, then
 * the frontend or backend breakdown where the core has it) to the stage 2
 * groups that the path ends in, each step with the values it was taken
 * on, and those groups' values.
 *
 * The walk: at each level the largest of the metrics that divide the level
 * above (level 1: frontend_bound, backend_bound, bad_speculation, retiring,
 * percent of slots; a core without level 1: frontend_stalled_cycles and
 * backend_stalled_cycles, percent of cycles) is the one followed.  A step
 * whose metrics are not collected (their group not selected) or nan ends
 * the walk there, saying which group to select.  Where the core has no
 * breakdown of a level-1 category, its stage 2 groups are named directly.
 * Nothing here is a threshold on a value: the path is the largest share at
 * each level; the values say how dominant it is.
 *
 * Calls the model (model.h: load(), lookups, fmt_metric()) and util.h;
 * main.c calls it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "views.h"

#define MAX_STEPS	8
#define MAX_CHOICES	4
#define MAX_NEXT	4

/* one level of the tree: the metrics that divide it, and where each leads */
struct level {
	const char *name;			/* what is divided */
	const char *metric[MAX_CHOICES];	/* the parts */
	const char *then[MAX_CHOICES];		/* the level each part leads to, or NULL */
	const char *next[MAX_CHOICES][MAX_NEXT];/* stage 2 groups at a leaf */
	const char *why[MAX_CHOICES];		/* what a large part means */
};

static const struct level levels[] = {
	{ "topdown level 1",
	  { "frontend_bound", "backend_bound", "bad_speculation", "retiring" },
	  { "frontend", "backend", NULL, NULL },
	  { { "l1i_cache", "itlb", "branch" }, { "l1d_cache", "l2_cache", "ll_cache", "dtlb" },
	    { "branch" }, { "operation_mix", "fp_arithmetic", "fp_precision", "sve" } },
	  { "slots lost because the frontend delivered no operations",
	    "slots lost because the backend could not accept operations",
	    "slots spent on operations that were thrown away (mispredicted branches, machine clears)",
	    "slots that retired operations: the pipeline is used; to go faster, do less work (vectorize, simplify)" } },
	{ "cycle accounting",
	  { "frontend_stalled_cycles", "backend_stalled_cycles" },
	  { "frontend", "backend" },
	  { { "l1i_cache", "itlb", "branch" }, { "l1d_cache", "l2_cache", "ll_cache", "dtlb" } },
	  { "cycles the frontend stalled", "cycles the backend stalled" } },
	{ "frontend",
	  { "frontend_mem_bound", "frontend_core_bound" },
	  { "frontend memory", "frontend core" },
	  { { "l1i_cache", "itlb" }, { "branch" } },
	  { "instruction fetch waited on memory", "the frontend itself stalled" } },
	{ "frontend memory",
	  { "frontend_mem_cache_bound", "frontend_mem_tlb_bound" },
	  { "frontend cache", NULL },
	  { { "l1i_cache", "l2_cache" }, { "itlb" } },
	  { "instruction fetch waited on the caches", "instruction fetch waited on address translation" } },
	{ "frontend cache",
	  { "frontend_cache_l1i_bound", "frontend_cache_l2i_bound" },
	  { NULL, NULL },
	  { { "l1i_cache" }, { "l2_cache", "ll_cache" } },
	  { "missed the L1 instruction cache", "missed the L2 cache too" } },
	{ "frontend core",
	  { "frontend_core_flush_bound", "frontend_core_flow_bound" },
	  { NULL, NULL },
	  { { "branch" }, { "branch" } },
	  { "refetching after flushes (mispredictions, machine clears)",
	    "branch prediction did not keep up with fetch" } },
	{ "backend",
	  { "backend_mem_bound", "backend_core_bound" },
	  { "backend memory", "backend core" },
	  { { "l1d_cache", "l2_cache", "ll_cache", "dtlb" }, { "operation_mix" } },
	  { "operations waited on memory", "operations waited on the core's own resources" } },
	{ "backend memory",
	  { "backend_mem_cache_bound", "backend_mem_tlb_bound", "backend_mem_store_bound" },
	  { "backend cache", NULL, NULL },
	  { { "l1d_cache", "l2_cache" }, { "dtlb" }, { "operation_mix" } },
	  { "loads waited on the data caches", "loads waited on address translation",
	    "stores could not be taken (store buffer full)" } },
	{ "backend cache",
	  { "backend_cache_l1d_bound", "backend_cache_l2d_bound" },
	  { NULL, NULL },
	  { { "l1d_cache" }, { "l2_cache", "ll_cache" } },
	  { "missed the L1 data cache", "missed the L2 cache too" } },
	{ "backend core",
	  { "backend_busy_bound", "backend_core_rename_bound" },
	  { NULL, NULL },
	  { { "operation_mix" }, { "operation_mix" } },
	  { "the issue queues were full: execution units busy",
	    "rename ran out of registers" } },
};

static const struct level *level_named(const char *name)
{
	for (unsigned int i = 0; i < sizeof(levels) / sizeof(*levels); i++)
		if (!strcmp(levels[i].name, name))
			return &levels[i];
	return NULL;
}

/* a step of the walk: the level, its parts' values, the part followed */
struct step {
	const struct level *lv;
	int metric[MAX_CHOICES];	/* metric index, -1: the model has none */
	int chosen;			/* index into lv->metric, -1: none */
	const char *stop;		/* why the walk ends here, or NULL */
};

/* whether metric @m of view @v is collected: its group selected */
static bool collected(const struct model *md, int m)
{
	return m >= 0 && md->selected[m];
}

/* the group that holds metric @m (its first), for "select it" */
static const char *group_of(const struct model *md, int m)
{
	for (int g = 0; g < md->nr_groups; g++)
		for (int k = 0; k < md->group[g].nr; k++)
			if (md->group[g].metrics[k] == m)
				return md->group[g].name;
	return "?";
}

/* the walk on one view; returns the steps and the leaf's next groups */
static int walk(const struct model *md, const struct view *v, struct step *st,
		const char *const **next)
{
	const struct level *lv = level_named(metric_by_name(md, "frontend_bound") >= 0 ?
					     "topdown level 1" : "cycle accounting");
	int n = 0;

	*next = NULL;
	while (lv && n < MAX_STEPS) {
		struct step *s = &st[n++];
		int have = 0, best = -1;

		memset(s, 0, sizeof(*s));
		s->lv = lv;
		s->chosen = -1;
		for (int i = 0; i < MAX_CHOICES; i++) {
			s->metric[i] = lv->metric[i] ? metric_by_name(md, lv->metric[i]) : -1;
			if (s->metric[i] >= 0)
				have++;
		}
		if (!have) {
			n--;	/* the core does not break this level down */
			break;
		}
		for (int i = 0; i < MAX_CHOICES; i++) {
			int m = s->metric[i];

			if (m < 0)
				continue;
			if (!collected(md, m)) {
				s->stop = group_of(md, m);
				break;
			}
			if (!v->have || !v->valid[m]) {
				s->stop = "nan";
				break;
			}
			if (best < 0 || v->value[m] > v->value[s->metric[best]])
				best = i;
		}
		if (s->stop)
			return n;
		s->chosen = best;
		*next = lv->next[best];
		lv = lv->then[best] ? level_named(lv->then[best]) : NULL;
	}
	return n;
}

static void print_value(FILE *f, const struct tree *t, const struct view *v, int m)
{
	char buf[VALUE_BUF];

	fputs(fmt_metric_marked(buf, sizeof(buf), t, v, m), f);
}

static void diagnose_text(const struct tree *t, const struct view *v)
{
	const struct model *md = view_model(t, v);
	struct step st[MAX_STEPS];
	const char *const *next;
	char buf[VALUE_BUF];
	int n;

	if (v->cpu < 0)
		printf("system");
	else
		printf("cpu%d", v->cpu);
	if (!md) {
		printf(": no telemetry tables for this CPU\n");
		return;
	}
	printf(" (%s)", md->name);
	if (v->have)
		printf(", interval %llu\n", (unsigned long long)v->seq);
	else
		printf(", no complete interval yet\n");
	n = walk(md, v, st, &next);
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];

		printf("  %d. %s:", i + 1, s->lv->name);
		for (int k = 0; k < MAX_CHOICES; k++) {
			if (s->metric[k] < 0)
				continue;
			printf(" %s%s ", k == s->chosen ? "*" : "", md->metric[s->metric[k]].name);
			print_value(stdout, t, v, s->metric[k]);
		}
		putchar('\n');
		if (s->stop && strcmp(s->stop, "nan"))
			printf("     not collected: add %s to the module's groups\n", s->stop);
		else if (s->stop)
			printf("     no value yet (nan): nothing to follow\n");
		else
			printf("     largest: %s (%s, %s): %s\n",
			       md->metric[s->metric[s->chosen]].name,
			       fmt_metric_marked(buf, sizeof(buf), t, v, s->metric[s->chosen]),
			       md->metric[s->metric[s->chosen]].unit, s->lv->why[s->chosen]);
	}
	if (!n)
		printf("  this core has no topdown metrics\n");
	for (int k = 0; next && k < MAX_NEXT && next[k]; k++) {
		int g = group_by_name(md, next[k]);

		if (g < 0)
			continue;
		printf("  next: %s", next[k]);
		if (!(md->groups & (1u << g))) {
			printf(" (not collected: add it to the module's groups)\n");
			continue;
		}
		for (int j = 0; j < md->group[g].nr; j++) {
			printf(" %s ", md->metric[md->group[g].metrics[j]].name);
			print_value(stdout, t, v, md->group[g].metrics[j]);
		}
		putchar('\n');
	}
}

/* a value for JSON: the number, or null */
static const char *json_value(char *buf, size_t size, const struct tree *t, const struct view *v,
			      int m)
{
	if (!v->have || !v->valid[m])
		return "null";
	return fmt_metric(buf, size, t, v, m);
}

/*
 * ", "composed": [...]": which of the @nr metrics @m (-1: none) the module
 * composed (not exact: their events were counted apart), as text marks ~
 */
static void json_composed(const struct tree *t, const struct view *v, const int *m, int nr)
{
	const struct model *md = view_model(t, v);
	bool one = true;

	printf(", \"composed\": [");
	for (int k = 0; k < nr; k++) {
		if (m[k] < 0 || !metric_composed(t, v, m[k]))
			continue;
		printf("%s\"%s\"", one ? "" : ", ", md->metric[m[k]].name);
		one = false;
	}
	printf("]");
}

static void diagnose_json(const struct tree *t, const struct view *v, bool first)
{
	const struct model *md = view_model(t, v);
	struct step st[MAX_STEPS];
	const char *const *next;
	char buf[VALUE_BUF];
	int n;

	printf("%s{\"scope\": ", first ? "" : ", ");
	if (v->cpu < 0)
		printf("\"system\"");
	else
		printf("\"cpu%d\"", v->cpu);
	if (!md) {
		printf(", \"model\": null, \"steps\": [], \"next\": []}");
		return;
	}
	printf(", \"model\": \"%s\", \"seq\": %llu, \"steps\": [", md->name,
	       (unsigned long long)v->seq);
	n = walk(md, v, st, &next);
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];
		bool one = true;

		printf("%s{\"level\": \"%s\", \"values\": {", i ? ", " : "", s->lv->name);
		for (int k = 0; k < MAX_CHOICES; k++) {
			if (s->metric[k] < 0)
				continue;
			printf("%s\"%s\": %s", one ? "" : ", ", md->metric[s->metric[k]].name,
			       json_value(buf, sizeof(buf), t, v, s->metric[k]));
			one = false;
		}
		printf("}");
		json_composed(t, v, s->metric, MAX_CHOICES);
		printf(", \"largest\": ");
		if (s->chosen >= 0)
			printf("\"%s\", \"meaning\": \"%s\"", md->metric[s->metric[s->chosen]].name,
			       s->lv->why[s->chosen]);
		else
			printf("null, \"stopped\": \"%s\"", !strcmp(s->stop, "nan") ? "nan" :
			       "not collected");
		if (s->stop && strcmp(s->stop, "nan"))
			printf(", \"select\": \"%s\"", s->stop);
		printf("}");
	}
	printf("], \"next\": [");
	for (int k = 0, one = 1; next && k < MAX_NEXT && next[k]; k++) {
		int g = group_by_name(md, next[k]);

		if (g < 0)
			continue;
		printf("%s{\"group\": \"%s\", \"collected\": %s, \"values\": {", one ? "" : ", ",
		       next[k], md->groups & (1u << g) ? "true" : "false");
		one = 0;
		for (int j = 0; (md->groups & (1u << g)) && j < md->group[g].nr; j++)
			printf("%s\"%s\": %s", j ? ", " : "",
			       md->metric[md->group[g].metrics[j]].name,
			       json_value(buf, sizeof(buf), t, v, md->group[g].metrics[j]));
		printf("}");
		json_composed(t, v, md->group[g].metrics,
			      (md->groups & (1u << g)) ? md->group[g].nr : 0);
		printf("}");
	}
	printf("]}");
}

void diagnose(struct tree *t, enum source src, const char *cpus, const char *format)
{
	struct cpu_list cl;
	bool json = format && !strcmp(format, "json"), first = true;

	if (format && strcmp(format, "text") && strcmp(format, "json"))
		die("diagnose takes --format text or json, not \"%s\"", format);
	parse_cpu_list(cpus, &cl);
	load(t, src, !cl.given || cl.system ? LOAD_SYSTEM : LOAD_CPUS | LOAD_STATES);
	for (int k = 0; k < cl.nr; k++) {
		bool found = false;

		for (int i = 0; i < t->nr && !found; i++)
			found = t->v[i].cpu >= cl.lo[k] && t->v[i].cpu <= cl.hi[k];
		if (!found)
			die("no CPU %d in %s (see its cpuN directories; offline CPUs have none)",
			    cl.lo[k], t->root);
	}
	if (json)
		printf("[");
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = &t->v[i];
		bool want = v->cpu < 0 ? !cl.given || cl.system : false;

		for (int k = 0; v->cpu >= 0 && k < cl.nr; k++)
			want |= v->cpu >= cl.lo[k] && v->cpu <= cl.hi[k];
		if (!want)
			continue;
		if (json) {
			diagnose_json(t, v, first);
		} else {
			if (!first)
				putchar('\n');
			diagnose_text(t, v);
		}
		first = false;
	}
	if (json)
		printf("]\n");
	free(cl.lo);
	free(cl.hi);
}
