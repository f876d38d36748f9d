// SPDX-License-Identifier: GPL-2.0
/*
 * What an export holds (--scope, --group, --metric: struct
 * selection), shared by every format, and two of the formats: JSON and
 * CSV, in the module's units, with the containers (--by-cgroup).
 *
 * Calls the model (model.h), the containers (cgroup.h) and util.h;
 * prometheus.c and main.c call it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "export.h"
#include "util.h"

/* whether some model of @t has @name, a group or a metric as @find looks up */
static bool some_model_has(const struct tree *t,
			   int (*find)(const struct model *md, const char *name), const char *name)
{
	for (int m = 0; m < t->nr_models; m++)
		if (find(&t->model[m], name) >= 0)
			return true;
	return false;
}

/* --group and --metric name groups and metrics some model has */
void check_selection(const struct selection *sel, const struct tree *t)
{
	for (int k = 0; k < sel->nr_groups; k++)
		if (!some_model_has(t, group_by_name, sel->group[k]))
			die("unknown group \"%s\" (see available_groups)", sel->group[k]);
	for (int k = 0; k < sel->nr_metrics; k++)
		if (!some_model_has(t, metric_by_name, sel->metric[k]))
			die("unknown metric \"%s\" (see models/<model>/metrics)", sel->metric[k]);
}

/*
 * Whether metric @m of @md is exported: the named groups' and metrics, or
 * by default the metrics the module collects (its selected groups'), or
 * every metric (JSON and CSV, which say which are selected).
 */
bool want_metric(const struct selection *sel, const struct model *md, int m)
{
	if (!sel->nr_groups && !sel->nr_metrics)
		return sel->every_metric || md->selected[m];
	for (int k = 0; k < sel->nr_metrics; k++)
		if (!strcmp(md->metric[m].name, sel->metric[k]))
			return true;
	for (int k = 0; k < sel->nr_groups; k++) {
		int g = group_by_name(md, sel->group[k]);

		for (int i = 0; g >= 0 && i < md->group[g].nr; i++)
			if (md->group[g].metrics[i] == m)
				return true;
	}
	return false;
}

/* a view the export holds: system/ or a CPU with tables, as --scope says */
bool in_scope(const struct selection *sel, const struct view *v)
{
	if (v->model < 0)
		return false;
	return v->cpu < 0 ? sel->scope & SCOPE_SYSTEM : sel->scope & SCOPE_CPU;
}

/* whether every exported view's cumulative counts could be read */
bool events_readable(const struct tree *t, const struct selection *sel)
{
	for (int i = 0; i < t->nr; i++)
		if (in_scope(sel, &t->v[i]) && !t->v[i].have_events)
			return false;
	return true;
}

void warn_events(const struct tree *t, const struct selection *sel)
{
	if (!events_readable(t, sel))
		warn_once("cannot read %s: %s; the cumulative counts (n3telemetry_event_*) are left out: they are root-only",
			  t->events_path[0] ? t->events_path : "the events files",
			  strerror(t->events_errno ? t->events_errno : EACCES));
}

unsigned int export_loads(const struct selection *sel)
{
	return LOAD_STATES | (sel->scope & SCOPE_SYSTEM ? LOAD_SYSTEM : 0) |
	       (sel->scope & SCOPE_CPU ? LOAD_CPUS : 0);
}

static void json_groups(const struct model *md)
{
	printf("[");
	for (int g = 0, first = 1; g < md->nr_groups; g++)
		if (md->groups & (1u << g)) {
			printf("%s\"%s\"", first ? "" : ", ", md->group[g].name);
			first = 0;
		}
	printf("]");
}

/*
 * A view as JSON.  Metrics keep the module's units (percentages 0..100):
 * {"value": 21.37 or null when undefined, "unit": ..., "selected": whether
 * the module collects it (its group is selected)}; "hidden_events" (a
 * string, the status line's) before "metrics" when some are; "composed": true
 * after "selected" when the value is composed (not exact: its events
 * counted apart); an exact metric has no "composed" member.
 */
static void json_view(const struct tree *t, const struct view *v, const struct selection *sel)
{
	const struct model *md = view_model(t, v);
	char val[VALUE_BUF];
	int first = 1;

	if (v->cpu >= 0)
		printf("{\"cpu\": %d, \"model\": \"%s\", \"state\": \"%s\", ", v->cpu, md->name,
		       v->state[0] ? v->state : "unknown");
	else
		printf("{\"model\": \"%s\", ", md->name);
	printf("\"seq\": %" PRIu64 ", \"end_ns\": %" PRIu64 ", \"interval_ns\": %" PRIu64
	       ", \"lost_slices\": %" PRIu64 ",", v->seq, v->end_ns, v->interval_ns, v->lost);
	/* the events' names are [A-Z0-9_] and commas: nothing to escape */
	if (v->hidden[0])
		printf(" \"hidden_events\": \"%s\",", v->hidden);
	printf("\n   \"metrics\": {");
	for (int m = 0; m < md->nr_metrics; m++) {
		if (!want_metric(sel, md, m))
			continue;
		fmt_metric(val, sizeof(val), t, v, m);
		printf("%s\n    \"%s\": {\"value\": %s, \"unit\": \"%s\", \"selected\": %s%s}",
		       first ? "" : ",", md->metric[m].name, strcmp(val, "nan") ? val : "null",
		       md->metric[m].unit, md->selected[m] ? "true" : "false",
		       metric_composed(t, v, m) ? ", \"composed\": true" : "");
		first = 0;
	}
	printf("}");
	if (v->have_events) {
		first = 1;
		printf(",\n   \"events\": {");
		for (int e = 0; e < md->nr_events; e++) {
			if (!v->listed[e])
				continue;
			char c[U128_BUF], ns[U128_BUF];

			printf("%s\"%s\": {\"count\": %s, \"ns\": %s}",
			       first ? "" : ", ", md->event[e], fmt_u128(c, v->count[e]),
			       fmt_u128(ns, v->ns[e]));
			first = 0;
		}
		printf("}");
	}
	printf("}");
}

static void json_str(const char *s)
{
	json_put(stdout, s);
}

/*
 * --by-cgroup in JSON: "cgroups_error" (null, or why they could not be
 * read), "cgroups_past_limit", and "cgroups", each container or pool with
 * its labels, CPUs and "sum" (a view, as "system"), or "why" it has none.
 * False when they could not be read.
 */
static bool json_cgroups(struct tree *t, const struct selection *sel)
{
	struct cgroups cgs = { 0 };
	int past = 0;

	if (!find_cgroups(t, sel->cgroot, sel->max_cgroups, &cgs)) {
		printf(",\n \"cgroups_error\": ");
		json_str(cgs.error);
		warn_cgroups(&cgs);
		return false;
	}
	for (int i = 0; i < cgs.nr; i++)
		past += cgs.cg[i].nr_summed;
	printf(",\n \"cgroups_error\": null, \"cgroups_past_limit\": %d,\n \"cgroups\": [", past);
	for (int i = 0; i < cgs.nr; i++) {
		const struct cgroup *c = &cgs.cg[i];

		printf("%s\n  {\"cgroup\": ", i ? "," : "");
		json_str(c->path);
		if (c->id)
			printf(", \"cgroup_id\": %" PRIu64, c->id);
		if (c->pod[0])
			printf(", \"pod_uid\": \"%s\"", c->pod);	/* hex and dashes */
		if (c->container[0])
			printf(", \"container_id\": \"%s\"", c->container);
		if (c->unit[0]) {
			printf(", \"unit\": ");
			json_str(c->unit);
		}
		printf(", \"cpus\": \"%s\", \"nr_cpus\": %d, \"counted_cpus\": %d,\n   ",
		       c->cpu_list, c->nr_cpus, c->nr_counted);
		if (c->why || c->v.model < 0) {
			printf("\"why\": ");
			json_str(c->why ? c->why : "no interval yet");
		} else {
			printf("\"sum\": ");
			json_view(t, &c->v, sel);
		}
		printf("}");
	}
	printf("\n ]");
	free_cgroups(&cgs);
	return true;
}

bool export_json(struct tree *t, const struct selection *sel)
{
	bool ok = true;

	static const char *const scope[] = { "", "system", "cpu", "all" };
	bool first = true;

	/* slots and groups of the first model (system/'s), all in models */
	printf("{\"source\": \"%s\", \"scope\": \"%s\", \"slots\": %u, \"interval_ms\": %u, \"groups\": ",
	       t->source, scope[sel->scope], t->model[0].slots, t->interval_ms);
	json_groups(&t->model[0]);
	printf(", \"events_readable\": %s,\n \"models\": {",
	       events_readable(t, sel) ? "true" : "false");
	for (int m = 0; m < t->nr_models; m++) {
		printf("%s\"%s\": {\"slots\": %u, \"groups\": ", m ? ", " : "", t->model[m].name,
		       t->model[m].slots);
		json_groups(&t->model[m]);
		printf("}");
	}
	printf("}");
	for (int i = 0; i < t->nr; i++)
		if (t->v[i].cpu < 0 && in_scope(sel, &t->v[i])) {
			printf(",\n \"system\": ");
			json_view(t, &t->v[i], sel);
		}
	if (sel->scope & SCOPE_CPU) {
		printf(",\n \"cpus\": [");
		for (int i = 0; i < t->nr; i++) {
			if (t->v[i].cpu < 0 || !in_scope(sel, &t->v[i]))
				continue;
			printf("%s\n  ", first ? "" : ",");
			json_view(t, &t->v[i], sel);
			first = false;
		}
		printf("\n ]");
	}
	if (sel->by_cgroup)
		ok = json_cgroups(t, sel);
	printf("\n}\n");
	return ok;
}

/*
 * CSV, one row per scope, CPU and metric, in the module's units (like
 * JSON): scope,cpu,model,metric,value,unit,selected,composed; cpu is empty
 * for system, value nan when undefined, selected 1 when the module collects
 * it, composed 1 when its value is composed (not exact), else 0.  With
 * --by-cgroup two more columns, cgroup,cgroup_id (empty on the host's
 * rows), and a row per container's or pool's metric, scope "cgroup"; false
 * when the containers could not be read (the host's rows are written).
 */
static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

bool export_csv(struct tree *t, const struct selection *sel)
{
	struct cgroups cgs = { 0 };
	char val[VALUE_BUF];

	printf("scope,cpu,model,metric,value,unit,selected,composed%s\n",
	       sel->by_cgroup ? ",cgroup,cgroup_id" : "");
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->nr; i++) {
			const struct view *v = &t->v[i];
			const struct model *md = view_model(t, v);

			if ((v->cpu < 0) != !pass || !in_scope(sel, v))
				continue;	/* system first, then the CPUs */
			for (int m = 0; m < md->nr_metrics; m++) {
				if (!want_metric(sel, md, m))
					continue;
				if (v->cpu < 0)
					printf("system,,");
				else
					printf("cpu,%d,", v->cpu);
				printf("%s,%s,%s,%s,%d,%d%s\n", md->name, md->metric[m].name,
				       fmt_metric(val, sizeof(val), t, v, m), md->metric[m].unit,
				       md->selected[m], metric_composed(t, v, m),
				       sel->by_cgroup ? ",," : "");
			}
		}
	if (!sel->by_cgroup)
		return true;
	if (!find_cgroups(t, sel->cgroot, sel->max_cgroups, &cgs)) {
		warn_cgroups(&cgs);
		return false;
	}
	for (int i = 0; i < cgs.nr; i++) {
		const struct cgroup *c = &cgs.cg[i];
		const struct model *md = view_model(t, &c->v);

		for (int m = 0; md && m < md->nr_metrics; m++) {
			if (!want_metric(sel, md, m))
				continue;
			printf("cgroup,,%s,%s,%s,%s,%d,%d,", md->name, md->metric[m].name,
			       fmt_metric(val, sizeof(val), t, &c->v, m), md->metric[m].unit,
			       md->selected[m], metric_composed(t, &c->v, m));
			csv_field(c->path);
			if (c->id)
				printf(",%" PRIu64 "\n", c->id);
			else
				printf(",\n");
		}
	}
	free_cgroups(&cgs);
	return true;
}
