// SPDX-License-Identifier: GPL-2.0
/*
 * One scrape as Prometheus text (n3tel export --format
 * prometheus, and what textfile writes): families, names, labels and
 * values, and the --max-series check; with --by-cgroup the containers'
 * families (cgroup.c).
 *
 * Calls export.c (the selection), the model (model.h), the containers
 * (cgroup.h) and util.h;
 * textfile.c and main.c call it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgroup.h"
#include "export.h"
#include "util.h"

/* v / 10^k as a decimal string */
static void put_fixed(FILE *o, int64_t v, int k)
{
	uint64_t p = 1, mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	for (int i = 0; i < k; i++)
		p *= 10;
	fprintf(o, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", mag / p, k, mag % p);
}

static bool is_percent(const struct metric *m)
{
	return !strncmp(m->unit, "percent", 7);
}

/* Prometheus family name: percentages become 0..1 ratios */
static void prom_name(char *buf, size_t n, const struct metric *m)
{
	size_t len = strlen(m->name);

	if (is_percent(m)) {
		if (len > 11 && !strcmp(m->name + len - 11, "_percentage"))
			len -= 11;
		snprintf(buf, n, "n3telemetry_%.*s_ratio", (int)len, m->name);
	} else {
		snprintf(buf, n, "n3telemetry_%s", m->name);
	}
}

/* an event's family: n3telemetry_event_<lower-case name><suffix> */
static void prom_event_name(char *buf, size_t n, const char *event, const char *suffix)
{
	size_t k = snprintf(buf, n, "n3telemetry_event_");

	for (; *event && k + 1 < n; event++, k++)
		buf[k] = (*event >= 'A' && *event <= 'Z') ? *event - 'A' + 'a' :
			 ((*event >= 'a' && *event <= 'z') || (*event >= '0' && *event <= '9')) ?
			 *event : '_';
	buf[k] = 0;
	snprintf(buf + k, n - k, "%s", suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_str_nocase(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* sort and keep each name once; returns how many are left */
static int uniq(const char **names, int n, int (*cmp)(const void *, const void *))
{
	int k = 0;

	qsort(names, n, sizeof(*names), cmp);
	for (int i = 0; i < n; i++)
		if (!k || cmp(&names[k - 1], &names[i]))
			names[k++] = names[i];
	return k;
}

/* the views in export order: system/ first, then the CPUs */
static const struct view *view_at(const struct tree *t, int i)
{
	if (!t->nr || t->v[t->nr - 1].cpu >= 0)
		return &t->v[i];
	return i ? &t->v[i - 1] : &t->v[t->nr - 1];
}

/*
 * A view's labels; a composed metric's sample has composed="1" too (an
 * exact one has no such label, so its series is the same as before)
 */
static void prom_labels_composed(FILE *o, const struct tree *t, const struct view *v,
				 bool composed)
{
	if (v->cpu >= 0)
		fprintf(o, "{cpu=\"%d\",model=\"%s\"", v->cpu, t->model[v->model].name);
	else
		fprintf(o, "{model=\"%s\"", t->model[v->model].name);
	fprintf(o, "%s} ", composed ? ",composed=\"1\"" : "");
}

static void prom_labels(FILE *o, const struct tree *t, const struct view *v)
{
	prom_labels_composed(o, t, v, false);
}

static void prom_family(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* states cpuN/status names; each model gets all of them, 0 or not */
static const char *const known_states[] = {
	"collecting", "isolated", "paused", "failed-no-memory", "failed-no-counters",
};
#define NR_KNOWN_STATES ((int)(sizeof(known_states) / sizeof(*known_states)))

/* n3telemetry_cpus{model,state}: online CPUs by model and state */
static void prom_cpus(FILE *o, const struct tree *t)
{
	struct { const char *model, *state; int n; } *extra;
	int nr_extra = 0;

	extra = calloc(t->nr + 1, sizeof(*extra));
	if (!extra)
		die("out of memory");
	prom_family(o, "n3telemetry_cpus", "gauge",
		    "Online CPUs by model and state (cpuN/status), 0 for a state none is in.");
	for (int m = 0; m < t->nr_models; m++)
		for (int k = 0; k < NR_KNOWN_STATES; k++) {
			int n = 0;

			for (int i = 0; i < t->nr; i++)
				n += t->v[i].cpu >= 0 && t->v[i].model == m &&
				     !strcmp(t->v[i].state, known_states[k]);
			fprintf(o, "n3telemetry_cpus{model=\"%s\",state=\"%s\"} %d\n",
				t->model[m].name, known_states[k], n);
		}
	/* CPUs no table describes, and states this n3tel does not know */
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = &t->v[i];
		const char *model = v->model >= 0 ? t->model[v->model].name : "unsupported";
		const char *state = v->state[0] ? v->state : "unknown";
		bool known = false;
		int x;

		if (v->cpu < 0)
			continue;
		for (int k = 0; k < NR_KNOWN_STATES && v->model >= 0; k++)
			known |= !strcmp(state, known_states[k]);
		if (known)
			continue;
		for (x = 0; x < nr_extra; x++)
			if (!strcmp(extra[x].model, model) && !strcmp(extra[x].state, state))
				break;
		if (x == nr_extra) {
			extra[nr_extra].model = model;
			extra[nr_extra++].state = state;
		}
		extra[x].n++;
	}
	for (int x = 0; x < nr_extra; x++)
		fprintf(o, "n3telemetry_cpus{model=\"%s\",state=\"%s\"} %d\n", extra[x].model,
			extra[x].state, extra[x].n);
	free(extra);
}

/*
 * One scrape as Prometheus text.  System series (system/: the first core
 * type, cumulative totals) carry a model label, per-CPU series cpu and
 * model; both share a family.  A composed metric's sample has composed="1"
 * as well, whatever its value (NaN too); an exact one has no composed label.
 * See Documentation/n3telemetry.rst.
 */
static void export_prom(FILE *o, const struct tree *t, const struct selection *sel)
{
	int max_names = MAX_MODELS * (MAX_METRICS > MAX_EVENTS ? MAX_METRICS : MAX_EVENTS);
	/* room for every model's names, and one more view's before uniq() */
	const char **names = calloc(max_names + MAX_EVENTS, sizeof(*names));
	bool events = events_readable(t, sel);
	char name[160], help[256];
	int n = 0;

	if (!names)
		die("out of memory");
	prom_family(o, "n3telemetry_up", "gauge",
		    "Whether n3tel could read the module's data (1) or not (0: see its standard error).");
	fprintf(o, "n3telemetry_up 1\n");
	prom_family(o, "n3telemetry_events_readable", "gauge",
		    "Whether the cumulative counts could be read; without them no n3telemetry_event_* series.");
	fprintf(o, "n3telemetry_events_readable %d\n", events);
	prom_family(o, "n3telemetry_slots", "gauge",
		    "Rename slots per cycle used by the topdown formulas, per model.");
	for (int m = 0; m < t->nr_models; m++)
		fprintf(o, "n3telemetry_slots{model=\"%s\"} %u\n", t->model[m].name,
			t->model[m].slots);
	prom_cpus(o, t);
	if (sel->scope & SCOPE_CPU) {
		prom_family(o, "n3telemetry_cpu_info", "gauge",
			    "The CPU's model: the tables its metrics are computed with.");
		for (int i = 0; i < t->nr; i++)
			if (in_scope(sel, &t->v[i]) && t->v[i].cpu >= 0)
				fprintf(o, "n3telemetry_cpu_info{cpu=\"%d\",model=\"%s\"} 1\n",
					t->v[i].cpu, t->model[t->v[i].model].name);
	}
	prom_family(o, "n3telemetry_interval_seconds", "gauge",
		    "Length of the latest interval (system: the longest of its CPUs').");
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = view_at(t, i);

		if (!in_scope(sel, v))
			continue;
		fprintf(o, "n3telemetry_interval_seconds");
		prom_labels(o, t, v);
		if (v->have)
			put_fixed(o, v->interval_ns, 9);
		else
			fprintf(o, "NaN");
		fputc('\n', o);
	}
	prom_family(o, "n3telemetry_lost_slices_total", "counter",
		    "Slices discarded because a set did not count for all of it (system: summed over its CPUs).");
	for (int i = 0; i < t->nr; i++)
		if (in_scope(sel, view_at(t, i))) {
			fprintf(o, "n3telemetry_lost_slices_total");
			prom_labels(o, t, view_at(t, i));
			fprintf(o, "%" PRIu64 "\n", view_at(t, i)->lost);
		}

	/* metrics: one family per name, over the models that have it */
	for (int x = 0; x < t->nr_models; x++) {
		const struct model *md = &t->model[x];
		bool used = false;

		for (int i = 0; i < t->nr && !used; i++)
			used = in_scope(sel, &t->v[i]) && t->v[i].model == x;
		for (int m = 0; used && m < md->nr_metrics; m++)
			if (want_metric(sel, md, m))
				names[n++] = md->metric[m].name;
	}
	n = uniq(names, n, cmp_str);
	for (int k = 0; k < n; k++) {
		bool head = false;

		for (int i = 0; i < t->nr; i++) {
			const struct view *v = view_at(t, i);
			const struct model *md = view_model(t, v);
			int m = in_scope(sel, v) ? metric_by_name(md, names[k]) : -1;

			if (m < 0 || !want_metric(sel, md, m))
				continue;	/* not measured on this CPU's core */
			prom_name(name, sizeof(name), &md->metric[m]);
			if (!head) {
				snprintf(help, sizeof(help),
					 "%s (%s%s) over the latest interval; NaN when undefined.",
					 md->metric[m].name, md->metric[m].unit,
					 is_percent(&md->metric[m]) ? ", as a 0..1 ratio" : "");
				prom_family(o, name, "gauge", help);
				head = true;
			}
			fprintf(o, "%s", name);
			prom_labels_composed(o, t, v, metric_composed(t, v, m));
			if (v->have && v->valid[m])
				put_fixed(o, v->value[m], is_percent(&md->metric[m]) ? 8 : 6);
			else
				fprintf(o, "NaN");
			fputc('\n', o);
		}
	}

	/* cumulative counts: two families per event */
	n = 0;
	for (int i = 0; events && i < t->nr; i++) {
		const struct view *v = view_at(t, i);
		const struct model *md = view_model(t, v);

		if (!in_scope(sel, v))
			continue;
		for (int e = 0; e < md->nr_events; e++)
			if (v->listed[e])
				names[n++] = md->event[e];
		n = uniq(names, n, cmp_str_nocase);
	}
	for (int k = 0; k < n; k++) {
		for (int ns = 0; ns <= 1; ns++) {
			prom_event_name(name, sizeof(name), names[k],
					ns ? "_counted_seconds_total" : "_total");
			snprintf(help, sizeof(help), ns ?
				 "Cumulative time %s was counting (system: summed over its CPUs)." :
				 "Cumulative count of PMU event %s while counted (system: summed over its CPUs).",
				 names[k]);
			prom_family(o, name, "counter", help);
			for (int i = 0; i < t->nr; i++) {
				const struct view *v = view_at(t, i);
				const struct model *md = view_model(t, v);
				int e = in_scope(sel, v) ? event_by_name(md, names[k]) : -1;
				char num[U128_BUF];

				if (e < 0 || !v->listed[e])
					continue;
				fprintf(o, "%s", name);
				prom_labels(o, t, v);
				if (ns)
					fprintf(o, "%s.%09u", fmt_u128(num, v->ns[e] / 1000000000),
						(unsigned int)(v->ns[e] % 1000000000));
				else
					fprintf(o, "%s", fmt_u128(num, v->count[e]));
				fputc('\n', o);
			}
		}
	}
	free(names);
}

/*
 * A label value: backslash, double quote and newline escaped, a byte that
 * is no UTF-8 (a cgroup's name may hold any) as U+FFFD, which Prometheus's
 * text format requires (node_exporter refuses a file that is not UTF-8)
 */
static void put_label(FILE *o, const char *sep, const char *name, const char *value)
{
	size_t n;

	fprintf(o, "%s%s=\"", sep, name);
	for (; *value; value += n ? n : 1) {
		n = utf8_len(value);
		if (!n)
			fputs("\xef\xbf\xbd", o);
		else if (*value == '\\' || *value == '"')
			fprintf(o, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", o);
		else
			fwrite(value, 1, n, o);
	}
	fputc('"', o);
}

static void prom_cgroup_labels(FILE *o, const struct tree *t, const struct cgroup *c,
			       bool composed)
{
	fputc('{', o);
	put_label(o, "", "cgroup", c->path);
	if (c->id)
		fprintf(o, ",cgroup_id=\"%" PRIu64 "\"", c->id);
	fprintf(o, ",cpus=\"%s\"", c->cpu_list);
	if (c->pod[0])
		put_label(o, ",", "pod_uid", c->pod);
	if (c->container[0])
		put_label(o, ",", "container_id", c->container);
	if (c->unit[0])
		put_label(o, ",", "unit", c->unit);
	if (c->v.model >= 0)
		put_label(o, ",", "model", t->model[c->v.model].name);
	fprintf(o, "%s} ", composed ? ",composed=\"1\"" : "");
}

/*
 * A container's metrics: those --group and --metric name, else its
 * model's first group (topdown level 1) if the module collects it, else
 * the module's groups
 */
static bool want_cgroup_metric(const struct selection *sel, const struct model *md, int m)
{
	if (sel->nr_groups || sel->nr_metrics || !(md->groups & 1u))
		return want_metric(sel, md, m);
	for (int i = 0; i < md->group[0].nr; i++)
		if (md->group[0].metrics[i] == m)
			return true;
	return false;
}

/* n3telemetry_<rest> becomes n3telemetry_cgroup_<rest> in @name (@size bytes) */
static void cgroup_family(char *name, size_t size)
{
	size_t len = strlen(name);

	if (len < 12 || len + 7 >= size)
		die("internal: family %s too long for a container's", name);
	memmove(name + 19, name + 12, len - 12 + 1);
	memcpy(name + 12, "cgroup_", 7);
}

/*
 * The events the exported metrics of a model read (its formulas' factors):
 * the cumulative counts a container's rules need
 */
static void cgroup_events(const struct selection *sel, const struct model *md, bool *need)
{
	memset(need, 0, MAX_EVENTS * sizeof(*need));
	for (int m = 0; m < md->nr_metrics; m++) {
		const struct formulas *fx = md->fx;

		if (!want_cgroup_metric(sel, md, m))
			continue;
		for (int k = fx->num[m]; k < fx->num[m] + fx->nr_num[m]; k++)
			for (int f = 0; f < fx->term[k].nr; f++)
				if (fx->term[k].f[f] < MAX_EVENTS)
					need[fx->term[k].f[f]] = true;
		for (int k = fx->den[m]; k < fx->den[m] + fx->nr_den[m]; k++)
			for (int f = 0; f < fx->term[k].nr; f++)
				if (fx->term[k].f[f] < MAX_EVENTS)
					need[fx->term[k].f[f]] = true;
	}
}

/*
 * Each container's and pool's cumulative counts and counted times of the
 * events its metrics read, summed over its CPUs by the module: the input
 * of the container level's recording rules.  The cpus label keeps a sum
 * over other CPUs (a cpuset changed, a pool grown) a series of its own,
 * never a counter that jumps.
 */
static void export_cgroup_events(FILE *o, struct tree *t, const struct selection *sel,
				 const struct cgroups *cgs, const char **names)
{
	static bool need[MAX_MODELS][MAX_EVENTS];
	char name[160], help[256];
	int n = 0;

	load_formulas(t);
	for (int x = 0; x < t->nr_models && x < MAX_MODELS; x++) {
		cgroup_events(sel, &t->model[x], need[x]);
		for (int e = 0; e < t->model[x].nr_events; e++)
			if (need[x][e])
				names[n++] = t->model[x].event[e];
	}
	n = uniq(names, n, cmp_str_nocase);
	for (int k = 0; k < n; k++) {
		for (int ns = 0; ns <= 1; ns++) {
			bool head = false;

			prom_event_name(name, sizeof(name), names[k],
					ns ? "_counted_seconds_total" : "_total");
			cgroup_family(name, sizeof(name));
			for (int i = 0; i < cgs->nr; i++) {
				const struct cgroup *c = &cgs->cg[i];
				const struct model *md = view_model(t, &c->v);
				int e = md ? event_by_name(md, names[k]) : -1;
				char num[U128_BUF];

				if (e < 0 || !need[c->v.model][e] || !c->v.have_events ||
				    !c->v.listed[e])
					continue;
				if (!head) {
					snprintf(help, sizeof(help), ns ?
						 "Cumulative time %s was counting, summed over a container's or pool's CPUs." :
						 "Cumulative count of PMU event %s while counted, summed over a container's or pool's CPUs.",
						 names[k]);
					prom_family(o, name, "counter", help);
					head = true;
				}
				fprintf(o, "%s", name);
				prom_cgroup_labels(o, t, c, false);
				if (ns)
					fprintf(o, "%s.%09u", fmt_u128(num, c->v.ns[e] / 1000000000),
						(unsigned int)(c->v.ns[e] % 1000000000));
				else
					fprintf(o, "%s", fmt_u128(num, c->v.count[e]));
				fputc('\n', o);
			}
		}
	}
}

/*
 * --by-cgroup: each container's and pool's CPUs and metrics (cgroup.c), in
 * families of their own (n3telemetry_cgroup_...), so that the host's
 * series and the rules that read them are the same with or without.  When
 * the containers cannot be read (no cgroup2, an older module without sums)
 * n3telemetry_cgroups_error says so, the host's series still there, and
 * the message goes to stderr once: false.
 */
static bool export_cgroups(FILE *o, struct tree *t, const struct selection *sel)
{
	int max_names = MAX_MODELS * (MAX_METRICS > MAX_EVENTS ? MAX_METRICS : MAX_EVENTS);
	const char **names = calloc(max_names, sizeof(*names));
	struct cgroups cgs = { 0 };
	char name[160], help[256];
	int n = 0, past = 0;
	bool ok;

	if (!names)
		die("out of memory");
	ok = find_cgroups(t, sel->cgroot, sel->max_cgroups, &cgs);
	prom_family(o, "n3telemetry_cgroups_error", "gauge",
		    "1 when n3tel could not read the containers (its message on stderr, the textfile unit's journal); their series are then absent, the host's there.");
	fprintf(o, "n3telemetry_cgroups_error %d\n", !ok);
	if (!ok) {
		warn_cgroups(&cgs);
		free(names);
		return false;
	}
	prom_family(o, "n3telemetry_cgroup_cpus", "gauge",
		    "CPUs of a container (a cgroup whose CPUs no other cgroup with processes has) or pool (shared: the other CPUs; other: the containers past --max-cgroups).");
	for (int i = 0; i < cgs.nr; i++) {
		fprintf(o, "n3telemetry_cgroup_cpus");
		prom_cgroup_labels(o, t, &cgs.cg[i], false);
		fprintf(o, "%d\n", cgs.cg[i].nr_cpus);
		past += cgs.cg[i].nr_summed;
	}
	prom_family(o, "n3telemetry_cgroup_counted_cpus", "gauge",
		    "CPUs of a container or pool whose latest interval is in its sums (those that collect).");
	for (int i = 0; i < cgs.nr; i++) {
		fprintf(o, "n3telemetry_cgroup_counted_cpus");
		prom_cgroup_labels(o, t, &cgs.cg[i], false);
		fprintf(o, "%d\n", cgs.cg[i].nr_counted);
	}
	prom_family(o, "n3telemetry_cgroups_past_limit", "gauge",
		    "Containers past --max-cgroups, summed in the pool cgroup=\"other\".");
	fprintf(o, "n3telemetry_cgroups_past_limit %d\n", past);
	for (int x = 0; x < t->nr_models; x++)
		for (int m = 0; m < t->model[x].nr_metrics; m++)
			if (want_cgroup_metric(sel, &t->model[x], m))
				names[n++] = t->model[x].metric[m].name;
	n = uniq(names, n, cmp_str);
	for (int k = 0; k < n; k++) {
		bool head = false;

		for (int i = 0; i < cgs.nr; i++) {
			const struct cgroup *c = &cgs.cg[i];
			const struct model *md = view_model(t, &c->v);
			int m = md ? metric_by_name(md, names[k]) : -1;

			if (m < 0 || !want_cgroup_metric(sel, md, m))
				continue;
			prom_name(name, sizeof(name), &md->metric[m]);
			cgroup_family(name, sizeof(name));
			if (!head) {
				snprintf(help, sizeof(help),
					 "%s (%s%s) of a container's or pool's CPUs together over their latest interval; NaN when undefined.",
					 md->metric[m].name, md->metric[m].unit,
					 is_percent(&md->metric[m]) ? ", as a 0..1 ratio" : "");
				prom_family(o, name, "gauge", help);
				head = true;
			}
			fprintf(o, "%s", name);
			prom_cgroup_labels(o, t, c, metric_composed(t, &c->v, m));
			if (c->v.have && c->v.valid[m])
				put_fixed(o, c->v.value[m], is_percent(&md->metric[m]) ? 8 : 6);
			else
				fprintf(o, "NaN");
			fputc('\n', o);
		}
	}
	export_cgroup_events(o, t, sel, &cgs, names);
	free_cgroups(&cgs);
	free(names);
	return true;
}

/* the samples (lines that are not comments) in Prometheus text */
static long count_series(const char *text)
{
	long n = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != '#' && *p != '\n';
	return n;
}

/*
 * One scrape as Prometheus text in memory, at most @max series; dies with
 * one line otherwise.  @t is the caller's: textfile frees it after an error.
 * @cgroup_failed: with --by-cgroup, the containers could not be read (the
 * text has the host's series and n3telemetry_cgroups_error 1).
 */
char *prom_text(struct tree *t, enum source src, const struct selection *sel,
		       long max, size_t *len, bool *too_many, bool *cgroup_failed)
{
	char *buf = NULL;
	FILE *o;
	long n;

	load(t, src, export_loads(sel));
	check_selection(sel, t);
	o = open_memstream(&buf, len);
	if (!o)
		die("out of memory");
	export_prom(o, t, sel);
	*cgroup_failed = sel->by_cgroup && !export_cgroups(o, t, sel);
	if (fclose(o))
		die("out of memory");
	n = count_series(buf);
	if (n > max) {
		free(buf);
		*too_many = true;
		die("%ld series, more than --max-series %ld allows (scope %s); select less (--scope, --group, --metric) or raise --max-series",
		    n, max, sel->scope == SCOPE_SYSTEM ? "system" :
		    sel->scope == SCOPE_CPU ? "cpu" : "all");
	}
	warn_events(t, sel);
	return buf;
}
