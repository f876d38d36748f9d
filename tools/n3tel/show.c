// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel show: the metrics of the CPUs of --cpu (or system/) as a
 * table, topdown level 1 as a tree, each group's age when it is older than
 * the latest interval, a composed value marked with a ~ (explained in a
 * last line).
 *
 * With --by-cgroup the containers' and the shared pool's (cgroup.c).
 *
 * Calls the model (model.h: load(), lookups, fmt_metric_marked()), the
 * containers (cgroup.h) and util.h; main.c calls it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "util.h"
#include "views.h"

/* whether a view (cpu -1: system) is selected; no --cpu: every CPU */
static bool want_cpu(const struct cpu_list *l, int cpu)
{
	if (!l->given)
		return cpu >= 0;
	if (l->system)
		return cpu < 0;
	for (int i = 0; i < l->nr; i++)
		if (cpu >= l->lo[i] && cpu <= l->hi[i])
			return true;
	return false;
}

/* every CPU and range of the list names CPUs the module publishes */
static void check_cpus_exist(const struct cpu_list *l, const struct tree *t)
{
	for (int k = 0; k < l->nr; k++) {
		bool found = false;

		for (int i = 0; i < t->nr && !found; i++)
			found = t->v[i].cpu >= l->lo[k] && t->v[i].cpu <= l->hi[k];
		if (found)
			continue;
		if (l->lo[k] == l->hi[k])
			die("no CPU %d in %s (see its cpuN directories; offline CPUs have none)",
			    l->lo[k], t->root);
		die("no CPU %d-%d in %s (see its cpuN directories; offline CPUs have none)",
		    l->lo[k], l->hi[k], t->root);
	}
}

/* whether show printed a composed value: a last line says what ~ means */
static bool shown_composed;

static void show_metric(const struct tree *t, const struct view *v, int m, int indent)
{
	const struct model *md = view_model(t, v);
	char val[VALUE_BUF];

	/* a composed value is marked: "~7.50", "~nan" */
	printf("%*s%-*s %10s  %s\n", indent, "", 36 - indent, md->metric[m].name,
	       fmt_metric_marked(val, sizeof(val), t, v, m), md->metric[m].unit);
	shown_composed |= metric_composed(t, v, m);
}

/*
 * With the rotating schedule a group's values may come from an earlier
 * interval than the latest: say which, and how much earlier it ended.
 */
static void show_age(const struct view *v, int g, int indent)
{
	uint64_t ago, latest = v->seq;

	/*
	 * system/'s seq is the highest any CPU ever published (it never goes
	 * down, the CPU furthest ahead may be offline): the latest interval
	 * summed is its newest group's
	 */
	if (v->cpu < 0) {
		latest = 0;
		for (int k = 0; k < MAX_GROUPS; k++)
			if (v->group_seq[k] > latest)
				latest = v->group_seq[k];
	}
	if (!v->have_ages || !v->have || v->group_seq[g] == latest)
		return;
	if (!v->group_seq[g]) {
		printf("%*s(not counted yet: its turn comes)\n", indent, "");
		return;
	}
	ago = v->end_ns > v->group_end_ns[g] ? v->end_ns - v->group_end_ns[g] : 0;
	printf("%*s(from interval %" PRIu64 ", %" PRIu64 ".%03" PRIu64 " s before the latest)\n",
	       indent, "", v->group_seq[g], ago / 1000000000, ago / 1000000 % 1000);
}

static void show_group(const struct tree *t, const struct view *v, int g, int indent)
{
	const struct model *md = view_model(t, v);

	show_age(v, g, indent);
	for (int i = 0; i < md->group[g].nr; i++)
		show_metric(t, v, md->group[g].metrics[i], indent);
}

/*
 * Topdown level 1 as a tree: the frontend and backend groups under their
 * level-1 metric, where the model has them; then the other groups.
 */
static void show_view(const struct tree *t, const struct view *v, uint32_t groups)
{
	const struct model *md = view_model(t, v);
	int l1 = md ? group_by_name(md, "topdown_l1") : -1;

	if (v->label)
		printf("%s", v->label);
	else if (v->cpu < 0)
		printf("system");
	else
		printf("cpu%d", v->cpu);
	if (md && t->nr_models > 1)
		printf("  %s", md->name);
	if (!md) {
		printf("  no telemetry tables for this CPU\n");
		return;
	}
	if (v->have)
		printf("  interval %" PRIu64 ", %" PRIu64 ".%03" PRIu64 " s\n", v->seq,
		       v->interval_ns / 1000000000, v->interval_ns / 1000000 % 1000);
	else
		printf("  no complete interval yet\n");
	if (v->hidden[0])
		printf("  hidden events (counted nothing while the CPU ran; their metrics nan): %s\n",
		       v->hidden);
	if (l1 >= 0 && (groups & (1u << l1))) {
		static const char *const sub[][2] = {
			{ "frontend_bound", "topdown_frontend" },
			{ "backend_bound", "topdown_backend" },
		};

		printf("  Topdown\n");
		show_age(v, l1, 4);
		groups &= ~(1u << l1);
		for (int i = 0; i < md->group[l1].nr; i++) {
			int m = md->group[l1].metrics[i];

			show_metric(t, v, m, 4);
			for (unsigned int k = 0; k < sizeof(sub) / sizeof(*sub); k++) {
				int g = group_by_name(md, sub[k][1]);

				if (!strcmp(md->metric[m].name, sub[k][0]) && g >= 0 &&
				    (groups & (1u << g))) {
					show_group(t, v, g, 8);
					groups &= ~(1u << g);
				}
			}
		}
	}
	for (int g = 0; g < md->nr_groups; g++) {
		if (!(groups & (1u << g)))
			continue;
		printf("  %s\n", md->group[g].name);
		show_group(t, v, g, 4);
	}
}

/*
 * --group names a group of any model; each CPU shows those its model has.
 * Without: those of @deflt the module selected, else all it selected
 */
static void pick_groups(const struct tree *t, const char *const *group, int nr_groups,
			uint32_t deflt, uint32_t *groups)
{
	for (int k = 0; k < nr_groups; k++) {
		bool known = false;

		for (int m = 0; m < t->nr_models; m++) {
			int g = group_by_name(&t->model[m], group[k]);

			if (g >= 0) {
				groups[m] |= 1u << g;
				known = true;
			}
		}
		if (!known)
			die("unknown group \"%s\" (see available_groups)", group[k]);
	}
	for (int m = 0; m < t->nr_models && !nr_groups; m++) {
		uint32_t g = t->model[m].groups;

		groups[m] = g & deflt ? g & deflt : g;
	}
}

static void explain_composed(void)
{
	if (shown_composed)
		printf("\n%s composed: its events do not fit in the counters together; the value\n"
		       "  comes from each event's rate counted apart, a number but not an exact one\n",
		       COMPOSED_MARK);
}

/* show: the views --cpu selects, their groups as --group says */
void show(struct tree *t, enum source src, const char *cpus, const char *const *group,
	  int nr_groups)
{
	uint32_t groups[MAX_MODELS] = { 0 };
	struct cpu_list cl;

	parse_cpu_list(cpus, &cl);
	/* the states too: hidden events are in cpuN/status, not the snapshot */
	load(t, src, cl.system ? LOAD_SYSTEM : LOAD_CPUS | LOAD_STATES);
	check_cpus_exist(&cl, t);
	pick_groups(t, group, nr_groups, 0, groups);
	for (int i = 0, shown = 0; i < t->nr; i++) {
		if (!want_cpu(&cl, t->v[i].cpu))
			continue;
		if (shown++)
			putchar('\n');
		show_view(t, &t->v[i], t->v[i].model >= 0 ? groups[t->v[i].model] : 0);
	}
	explain_composed();
	free(cl.lo);
	free(cl.hi);
}

/*
 * show --by-cgroup: each container's metrics and the shared pool's, the
 * sums of their CPUs; topdown level 1 (each model's first group) unless
 * --group says otherwise
 */
void show_cgroups(struct tree *t, enum source src, const char *const *group, int nr_groups,
		  const char *cgroot, long max)
{
	uint32_t groups[MAX_MODELS] = { 0 };
	struct cgroups cgs = { 0 };

	if (src == SRC_TEXT)
		die("--by-cgroup reads the snapshot's sums: --text does not apply");
	load(t, SRC_SNAPSHOT, LOAD_CPUS);
	pick_groups(t, group, nr_groups, 1u, groups);
	if (!find_cgroups(t, cgroot, max, &cgs))
		die("%s", cgs.error);
	for (int i = 0; i < cgs.nr; i++) {
		const struct cgroup *c = &cgs.cg[i];

		if (i)
			putchar('\n');
		if (c->why) {
			printf("%s\n  %s\n", c->title, c->why);
			continue;
		}
		show_view(t, &c->v, c->v.model >= 0 ? groups[c->v.model] : 0);
	}
	if (!cgs.nr)
		printf("no online CPU\n");
	explain_composed();
	free_cgroups(&cgs);
}
