// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel stat [--cpu LIST] [--group G]... [--format text|json|csv]
 * [--output FILE] -- COMMAND [ARG]...: runs COMMAND and prints the metrics
 * of its run, from the counters the module keeps counting anyway: no perf
 * event is opened.
 *
 * The module publishes, per CPU and event, the count of the complete slices
 * the event was counted in and the time of those slices (the snapshot's
 * event_slice_count and event_slice_ns, since the module was loaded).
 * Their differences between a snapshot taken just before COMMAND starts
 * and one just after it ends give each event's rate over the run, where it
 * was counted.  A metric's formula (models/<model>/formulas, the module's
 * own, evaluated by the module's engine) is a ratio of like counts (every
 * table's is: tools/models checks), so its value from the rates is its
 * value from the counts of the run: each event's count is scaled to the
 * longest time among the metric's events.  A metric whose events were all
 * counted for the same time (in the same slices: the members of a set) is
 * exact, a ratio of counts counted together; otherwise it is composed from
 * rates counted apart, marked ~ as the module marks its own.  For each
 * group, the least share of the run's counted time its events were counted
 * in; under MIN_COVERAGE the value would rest on too little and is not
 * given.
 *
 * The CPUs: --cpu LIST (COMMAND runs there: its affinity is set), else those
 * n3tel may run on (COMMAND inherits them); and system, every CPU.  Their
 * busy time (/proc/stat) less COMMAND's CPU time (its rusage, children it
 * waited for included) is what else ran there meanwhile.
 *
 * Owns: nothing of the module's data.  Calls the model (model.h: load(),
 * load_formulas(), lookups), the engine (n3t_eval(), n3t_format(),
 * n3t_metric_homogeneous()) and util.h; main.c calls it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "stat.h"
#include "util.h"

#define MAX_CPUS	4096

_Static_assert(MAX_TERMS == N3T_MAX_MONOS && FORMULA_FACTORS == N3T_MONO_FACTORS,
	       "the formulas n3tel parses are the engine's");
#define MIN_COVERAGE	1	/* percent of the counted time a group needs */
#define MAX_COLUMNS	(2 * MAX_MODELS)

/* one column of the report: the CPUs of a scope (cpus or system) of one model */
struct column {
	const char *scope;	/* "cpus" or "system" */
	int model;
	int nr_cpus;
	u128 slice[MAX_EVENTS], slice_ns[MAX_EVENTS];
	u128 count[MAX_EVENTS], ns[MAX_EVENTS];
	u128 slices_ns;		/* the time of every complete slice */
	DECLARE_BITMAP(hidden, N3T_MAX_EVENTS);
	/* per metric: defined, its value, exact; per group: coverage (percent x 100) */
	bool valid[MAX_METRICS], exact[MAX_METRICS];
	int64_t value[MAX_METRICS];
	int64_t cover[MAX_GROUPS];
	const char *why[MAX_METRICS];
};

struct stat_run {
	char **cmd;
	int status;		/* as waitpid() gives it */
	double seconds;		/* wall time of COMMAND */
	double cmd_cpu;		/* its user + system time, children included */
	double busy;		/* the busy time of the cpus scope's CPUs */
	bool cpus[MAX_CPUS];	/* the cpus scope */
	char cpu_text[256];	/* the same, as a list */
	int nr_col;
	struct column col[MAX_COLUMNS];
	char left_out[256];	/* CPUs that went offline or online during the run */
	/* the latest publication of the cpus scope before, after the run (ns) */
	uint64_t pub0, pub1, start_ns, end_ns;
};

/* the engine's view of a model n3tel read from the module */
struct engine_model {
	struct n3t_model m;
	struct n3t_event_desc ev[MAX_EVENTS];
	struct n3t_metric_desc me[MAX_METRICS];
	struct n3t_mono *mono;
};

static void engine_model(const struct model *md, struct engine_model *em)
{
	const struct formulas *fx = md->fx;

	memset(em, 0, sizeof(*em));
	em->mono = calloc(fx->nr_terms ? fx->nr_terms : 1, sizeof(*em->mono));
	if (!em->mono)
		die("out of memory");
	for (int i = 0; i < fx->nr_terms; i++) {
		em->mono[i].coef = fx->term[i].coef;
		em->mono[i].nr = fx->term[i].nr;
		for (int k = 0; k < fx->term[i].nr; k++)
			em->mono[i].f[k] = fx->term[i].f[k] == FACTOR_SLOTS ? N3T_F_SLOTS :
					   fx->term[i].f[k];
	}
	for (int e = 0; e < md->nr_events; e++) {
		em->ev[e].name = md->event[e];
		em->ev[e].code = md->code[e];
	}
	for (int m = 0; m < md->nr_metrics; m++) {
		em->me[m].name = md->metric[m].name;
		em->me[m].num = fx->num[m];
		em->me[m].nr_num = fx->nr_num[m];
		em->me[m].den = fx->den[m];
		em->me[m].nr_den = fx->nr_den[m];
	}
	em->m.name = md->name;
	em->m.nr_events = md->nr_events;
	em->m.nr_metrics = md->nr_metrics;
	em->m.events = em->ev;
	em->m.metrics = em->me;
	em->m.mono = em->mono;
	em->m.slots = md->slots;
}

/* the busy time of every CPU (/proc/stat), in seconds; false if unreadable */
static bool read_busy(double *busy, int max)
{
	long hz = sysconf(_SC_CLK_TCK);
	char *s = slurp("/proc/stat", NULL), *p = s, *line;

	if (!s || hz <= 0) {
		free(s);
		return false;
	}
	for (int i = 0; i < max; i++)
		busy[i] = -1;
	while ((line = next_line(&p))) {
		unsigned long long v[8] = { 0 };
		int cpu;

		/* cpuN user nice system idle iowait irq softirq steal ... ("cpu " is all) */
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9' ||
		    sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 8 ||
		    cpu < 0 || cpu >= max)
			continue;
		busy[cpu] = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
	}
	free(s);
	return true;
}

static const struct view *find_cpu(const struct tree *t, int cpu)
{
	for (int i = 0; i < t->nr; i++)
		if (t->v[i].cpu == cpu)
			return &t->v[i];
	return NULL;
}

static struct column *column_of(struct stat_run *r, const char *scope, int model)
{
	for (int i = 0; i < r->nr_col; i++)
		if (r->col[i].scope == scope && r->col[i].model == model)
			return &r->col[i];
	if (r->nr_col == MAX_COLUMNS)
		die("more than %d columns", MAX_COLUMNS);
	r->col[r->nr_col].scope = scope;
	r->col[r->nr_col].model = model;
	return &r->col[r->nr_col++];
}

/* the events named in a "hidden_events" line ("none", or names with commas) */
static void mark_hidden(const struct model *md, const char *list, unsigned long *hidden)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		die("out of memory");
	for (char *n = strtok_r(copy, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
		int e = event_by_name(md, n);

		if (e >= 0)
			__set_bit(e, hidden);
	}
	free(copy);
}

static void append_cpu(char *buf, size_t size, int cpu)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%d", len ? "," : "", cpu);
}

/* the differences of the two snapshots, summed into the columns */
static void accumulate(struct stat_run *r, const struct tree *t0, const struct tree *t1)
{
	const char *scopes[2] = { "cpus", "system" };

	for (int i = 0; i < t1->nr; i++) {
		const struct view *b = &t1->v[i], *a = find_cpu(t0, b->cpu);
		const struct model *md = b->model >= 0 ? &t1->model[b->model] : NULL;

		if (!md)
			continue;	/* no tables: nothing counted */
		if (!a || a->model != b->model) {
			append_cpu(r->left_out, sizeof(r->left_out), b->cpu);
			continue;
		}
		if (!a->have_slices || !b->have_slices)
			die("the module publishes no slice counts (a module older than n3tel stat: install both of one version)");
		for (int e = 0; e < md->nr_events; e++)
			if (b->slice[e] < a->slice[e] || b->slice_ns[e] < a->slice_ns[e] ||
			    b->count[e] < a->count[e] || b->ns[e] < a->ns[e])
				die("cpu%d's cumulative counts went back: the module was reloaded during the run",
				    b->cpu);
		if (b->slices_ns < a->slices_ns)
			die("cpu%d's cumulative counts went back: the module was reloaded during the run",
			    b->cpu);
	}
	for (int i = 0; i < t0->nr; i++)
		if (t0->v[i].model >= 0 && !find_cpu(t1, t0->v[i].cpu))
			append_cpu(r->left_out, sizeof(r->left_out), t0->v[i].cpu);
	/* the cpus scope's columns first, then system's */
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < t1->nr; i++) {
			const struct view *b = &t1->v[i], *a = find_cpu(t0, b->cpu);
			const struct model *md = b->model >= 0 ? &t1->model[b->model] : NULL;
			struct column *c;

			if (!md || !a || a->model != b->model)
				continue;
			if (s == 0 && (b->cpu >= MAX_CPUS || !r->cpus[b->cpu]))
				continue;
			if (s == 0) {
				r->pub0 = a->end_ns > r->pub0 ? a->end_ns : r->pub0;
				r->pub1 = b->end_ns > r->pub1 ? b->end_ns : r->pub1;
			}
			c = column_of(r, scopes[s], b->model);
			c->nr_cpus++;
			c->slices_ns += b->slices_ns - a->slices_ns;
			for (int e = 0; e < md->nr_events; e++) {
				c->slice[e] += b->slice[e] - a->slice[e];
				c->slice_ns[e] += b->slice_ns[e] - a->slice_ns[e];
				c->count[e] += b->count[e] - a->count[e];
				c->ns[e] += b->ns[e] - a->ns[e];
			}
			mark_hidden(md, b->hidden, c->hidden);
		}
	}
}

/*
 * Each metric of a column: its events' counts over their complete slices
 * scaled to the longest time among them (slice * longest / slice_ns), the
 * formula of those; exact when they were all counted for the same time.
 */
static void evaluate(const struct tree *t, struct column *c)
{
	const struct model *md = &t->model[c->model];
	struct engine_model em;

	engine_model(md, &em);
	em.m.cycles = event_by_name(md, "CPU_CYCLES");
	for (int m = 0; m < md->nr_metrics; m++) {
		DECLARE_BITMAP(ev, N3T_MAX_EVENTS) = { 0 };
		DECLARE_BITMAP(counted, N3T_MAX_EVENTS) = { 0 };
		uint64_t counts[N3T_MAX_EVENTS] = { 0 };
		u128 longest = 0;
		bool exact = true;
		unsigned int e;

		n3t_metric_events(&em.m, m, ev);
		for_each_set_bit(e, ev, N3T_MAX_EVENTS) {
			if (test_bit(e, c->hidden))
				c->why[m] = "hidden";
			else if (!c->slice_ns[e] && !c->why[m])
				c->why[m] = "not counted";
			if (longest && c->slice_ns[e] != longest)
				exact = false;
			if (c->slice_ns[e] > longest)
				longest = c->slice_ns[e];
		}
		if (c->why[m])
			continue;
		for_each_set_bit(e, ev, N3T_MAX_EVENTS) {
			u128 v = c->slice[e] * longest / c->slice_ns[e];

			if (v > UINT64_MAX)
				break;
			counts[e] = v;
			__set_bit(e, counted);
		}
		if (!n3t_eval(&em.m, m, counts, counted, md->slots, &c->value[m])) {
			c->why[m] = "undefined";
			continue;
		}
		c->valid[m] = true;
		/* ratios of like counts only (n3t_metric_homogeneous()), else scaled */
		c->exact[m] = exact && n3t_metric_homogeneous(&em.m, m);
	}
	/* each group's coverage: the least share of the time counted of its events */
	for (int g = 0; g < md->nr_groups; g++) {
		DECLARE_BITMAP(ev, N3T_MAX_EVENTS) = { 0 };
		u128 least = c->slices_ns;
		unsigned int e;

		/* of its metrics with a value: an event the PMU lacks takes none */
		for (int k = 0; k < md->group[g].nr; k++)
			if (c->valid[md->group[g].metrics[k]])
				n3t_metric_events(&em.m, md->group[g].metrics[k], ev);
		if (bitmap_empty(ev, N3T_MAX_EVENTS))
			least = 0;
		for_each_set_bit(e, ev, N3T_MAX_EVENTS)
			if (c->slice_ns[e] < least)
				least = c->slice_ns[e];
		c->cover[g] = c->slices_ns ? (int64_t)(least * 10000 / c->slices_ns) : 0;
	}
	free(em.mono);
}

/* whether a metric's value is given: defined, its group @g covered enough */
static bool shown(const struct column *c, int g, int m)
{
	return c->valid[m] && c->cover[g] >= MIN_COVERAGE * 100;
}

static const char *col_label(const struct stat_run *r, const struct tree *t,
			     const struct column *c, char *buf, size_t size)
{
	bool several = false;

	for (int i = 0; i < r->nr_col; i++)
		several |= r->col[i].model != c->model;
	if (!strcmp(c->scope, "cpus"))
		snprintf(buf, size, "cpus %s", r->cpu_text);
	else
		snprintf(buf, size, "system");
	if (several) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, " %s", t->model[c->model].name);
	}
	return buf;
}

static void print_command(FILE *f, char **cmd, bool json)
{
	for (int i = 0; cmd[i]; i++) {
		if (json) {
			fputs(i ? ", " : "", f);
			json_put(f, cmd[i]);
		} else {
			fprintf(f, "%s%s", i ? " " : "", cmd[i]);
		}
	}
}

static const char *exit_text(int status, char *buf, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "exited %d", WEXITSTATUS(status));
	return buf;
}

static void report_text(FILE *f, const struct stat_run *r, const struct tree *t,
			const uint32_t *groups)
{
	char buf[320], val[N3T_VALUE_BUF + 2];
	bool composed = false, little = false;

	fprintf(f, "n3tel stat: ");
	print_command(f, r->cmd, false);
	fprintf(f, ": %s after %.3f s\n", exit_text(r->status, buf, sizeof(buf)), r->seconds);
	if (r->busy >= 0) {
		double others = r->busy - r->cmd_cpu;

		fprintf(f, "cpus %s: busy %.3f CPU-s, %.3f of them the command's, %.3f others' (%.1f %%)\n",
			r->cpu_text, r->busy, r->cmd_cpu, others > 0 ? others : 0,
			r->busy > 0 && others > 0 ? 100 * others / r->busy : 0.0);
	}
	if (r->left_out[0])
		fprintf(f, "left out (offline or online during the run): cpu %s\n", r->left_out);
	/*
	 * The counts are those of the intervals the module published between
	 * the two snapshots: from the latest before COMMAND started (the
	 * first may have begun before it) to the latest before it ended (what
	 * followed is not in them)
	 */
	if (r->pub1 > r->pub0)
		fprintf(f, "measured: the intervals that ended from %.3f s before the start to %.3f s before the end\n",
			((double)r->start_ns - (double)r->pub0) / 1e9,
			((double)r->end_ns - (double)r->pub1) / 1e9);
	else
		fprintf(f, "measured: no interval ended during the run\n");
	for (int i = 0; i < r->nr_col; i++) {
		const struct column *c = &r->col[i];

		fprintf(f, "%s: %d CPU%s, counted in full %.3f CPU-s (the intervals published during the run)\n",
			col_label(r, t, c, buf, sizeof(buf)), c->nr_cpus, c->nr_cpus == 1 ? "" : "s",
			(double)c->slices_ns / 1e9);
	}
	fputc('\n', f);
	fprintf(f, "%-36s", "");
	for (int i = 0; i < r->nr_col; i++)
		fprintf(f, " %14.14s", col_label(r, t, &r->col[i], buf, sizeof(buf)));
	fputc('\n', f);
	for (int mi = 0; mi < t->nr_models; mi++) {
		const struct model *md = &t->model[mi];

		for (int g = 0; g < md->nr_groups; g++) {
			if (!(groups[mi] & (1u << g)))
				continue;
			fprintf(f, "%-36s", md->group[g].name);
			for (int i = 0; i < r->nr_col; i++) {
				const struct column *c = &r->col[i];

				if (c->model != mi) {
					fprintf(f, " %14s", "");
					continue;
				}
				snprintf(buf, sizeof(buf), "%" PRId64 ".%02" PRId64 " %%",
					 c->cover[g] / 100, c->cover[g] % 100);
				fprintf(f, " %14s", buf);
			}
			fprintf(f, "  counted\n");
			for (int k = 0; k < md->group[g].nr; k++) {
				int m = md->group[g].metrics[k];

				fprintf(f, "  %-34s", md->metric[m].name);
				for (int i = 0; i < r->nr_col; i++) {
					const struct column *c = &r->col[i];
					char num[N3T_VALUE_BUF];

					if (c->model != mi) {
						snprintf(val, sizeof(val), " ");
					} else if (c->valid[m] && !shown(c, g, m)) {
						snprintf(val, sizeof(val), "-");
						little = true;
					} else {
						n3t_format(num, sizeof(num), md->metric[m].decimals,
							   c->value[m], c->valid[m]);
						snprintf(val, sizeof(val), "%s%s",
							 c->valid[m] && !c->exact[m] ? COMPOSED_MARK : "",
							 num);
						composed |= c->valid[m] && !c->exact[m];
					}
					fprintf(f, " %14s", val);
				}
				fprintf(f, "  %s\n", md->metric[m].unit);
			}
		}
	}
	if (composed)
		fprintf(f, "\n%s composed: the metric's events were counted in different slices;\n"
			"  the value comes from each event's rate where it was counted\n",
			COMPOSED_MARK);
	if (little)
		fprintf(f, "%s- too little: its group was counted in under %d %% of the time counted\n",
			composed ? "" : "\n", MIN_COVERAGE);
}

static void json_string(FILE *f, const char *s)
{
	const char *one[2] = { s, NULL };

	print_command(f, (char **)one, true);
}

static void report_json(FILE *f, const struct stat_run *r, const struct tree *t,
			const uint32_t *groups)
{
	char buf[320];

	fprintf(f, "{\"command\": [");
	print_command(f, r->cmd, true);
	fprintf(f, "], \"exit_status\": %d, \"signal\": %d, \"seconds\": %.6f, ",
		WIFSIGNALED(r->status) ? 128 + WTERMSIG(r->status) : WEXITSTATUS(r->status),
		WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0, r->seconds);
	fprintf(f, "\"cpus\": \"%s\", \"command_cpu_seconds\": %.6f, ", r->cpu_text, r->cmd_cpu);
	if (r->pub1 > r->pub0)
		fprintf(f, "\"measured_from_s\": %.6f, \"measured_to_s\": %.6f, ",
			((double)r->pub0 - (double)r->start_ns) / 1e9,
			((double)r->pub1 - (double)r->start_ns) / 1e9);
	if (r->busy >= 0)
		fprintf(f, "\"busy_cpu_seconds\": %.6f, \"others_cpu_seconds\": %.6f, ", r->busy,
			r->busy > r->cmd_cpu ? r->busy - r->cmd_cpu : 0.0);
	fprintf(f, "\"left_out\": \"%s\", \"min_coverage_percent\": %d, \"scopes\": [", r->left_out,
		MIN_COVERAGE);
	for (int i = 0; i < r->nr_col; i++) {
		const struct column *c = &r->col[i];
		const struct model *md = &t->model[c->model];
		bool first = true;

		fprintf(f, "%s{\"scope\": \"%s\", \"label\": ", i ? ", " : "", c->scope);
		json_string(f, col_label(r, t, c, buf, sizeof(buf)));
		fprintf(f, ", \"model\": \"%s\", \"nr_cpus\": %d, \"counted_cpu_seconds\": %.6f, \"metrics\": [",
			md->name, c->nr_cpus, (double)c->slices_ns / 1e9);
		for (int g = 0; g < md->nr_groups; g++) {
			if (!(groups[c->model] & (1u << g)))
				continue;
			for (int k = 0; k < md->group[g].nr; k++) {
				int m = md->group[g].metrics[k];
				char num[N3T_VALUE_BUF];

				fprintf(f, "%s{\"group\": \"%s\", \"metric\": \"%s\", \"unit\": \"%s\", ",
					first ? "" : ", ", md->group[g].name, md->metric[m].name,
					md->metric[m].unit);
				first = false;
				fprintf(f, "\"coverage_percent\": %" PRId64 ".%02" PRId64 ", ",
					c->cover[g] / 100, c->cover[g] % 100);
				if (shown(c, g, m)) {
					n3t_format(num, sizeof(num), md->metric[m].decimals, c->value[m],
						   true);
					fprintf(f, "\"value\": %s, \"composed\": %s}", num,
						c->exact[m] ? "false" : "true");
				} else {
					fprintf(f, "\"value\": null, \"why\": \"%s\"}",
						c->valid[m] ? "too little" : c->why[m]);
				}
			}
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
}

static void report_csv(FILE *f, const struct stat_run *r, const struct tree *t,
		       const uint32_t *groups)
{
	char buf[320];

	fprintf(f, "scope,model,group,metric,value,unit,composed,coverage_percent\n");
	for (int i = 0; i < r->nr_col; i++) {
		const struct column *c = &r->col[i];
		const struct model *md = &t->model[c->model];

		col_label(r, t, c, buf, sizeof(buf));
		for (int g = 0; g < md->nr_groups; g++) {
			if (!(groups[c->model] & (1u << g)))
				continue;
			for (int k = 0; k < md->group[g].nr; k++) {
				int m = md->group[g].metrics[k];
				char num[N3T_VALUE_BUF];

				n3t_format(num, sizeof(num), md->metric[m].decimals, c->value[m],
					   shown(c, g, m));
				/* a label with a comma (cpus 1,3) is quoted */
				fprintf(f, "%s%s%s,%s,%s,%s,%s,%s,%d,%" PRId64 ".%02" PRId64 "\n",
					strchr(buf, ',') ? "\"" : "", buf,
					strchr(buf, ',') ? "\"" : "",
					md->name, md->group[g].name, md->metric[m].name, num,
					md->metric[m].unit, shown(c, g, m) && !c->exact[m],
					c->cover[g] / 100, c->cover[g] % 100);
			}
		}
	}
}

/* the cpus scope: --cpu, else n3tel's own affinity */
static void scope_cpus(struct stat_run *r, const char *cpus, cpu_set_t *set)
{
	struct cpu_list cl;

	CPU_ZERO(set);
	parse_cpu_list(cpus, &cl);
	if (cl.system)
		die("stat takes --cpu LIST (CPU numbers); system is always reported");
	if (cl.given) {
		for (int i = 0; i < cl.nr; i++) {
			if (cl.hi[i] >= MAX_CPUS || cl.hi[i] >= CPU_SETSIZE)
				die("--cpu %d: n3tel stat takes CPUs below %d", cl.hi[i],
				    MAX_CPUS < CPU_SETSIZE ? MAX_CPUS : CPU_SETSIZE);
			for (int c = cl.lo[i]; c <= cl.hi[i]; c++)
				CPU_SET(c, set);
		}
	} else if (sched_getaffinity(0, sizeof(*set), set)) {
		die("sched_getaffinity: %s", strerror(errno));
	}
	free(cl.lo);
	free(cl.hi);
	for (int c = 0; c < MAX_CPUS && c < CPU_SETSIZE; c++) {
		size_t len = strlen(r->cpu_text);
		int hi = c;

		if (!CPU_ISSET(c, set))
			continue;
		r->cpus[c] = true;
		while (hi + 1 < CPU_SETSIZE && hi + 1 < MAX_CPUS && CPU_ISSET(hi + 1, set))
			r->cpus[++hi] = true;
		if (hi == c)
			snprintf(r->cpu_text + len, sizeof(r->cpu_text) - len, "%s%d", len ? "," : "",
				 c);
		else
			snprintf(r->cpu_text + len, sizeof(r->cpu_text) - len, "%s%d-%d",
				 len ? "," : "", c, hi);
		c = hi;
	}
}

int stat_run(const char *root, const char *cpus, const char *const *group, int nr_groups,
	     const char *format, const char *output, char **cmd)
{
	static struct stat_run r;
	struct tree t0 = { .root = root }, t1 = { .root = root };
	static double busy0[MAX_CPUS], busy1[MAX_CPUS];
	uint32_t groups[MAX_MODELS] = { 0 };
	struct timespec a, b;
	struct rusage ru;
	cpu_set_t set;
	bool have_busy;
	FILE *f = stderr;

	if (!cmd || !cmd[0])
		die("stat needs a command: n3tel stat [--cpu LIST] [--group G]... -- COMMAND [ARG]...");
	if (format && strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "csv"))
		die("stat takes --format text, json or csv, not \"%s\"", format);
	r.cmd = cmd;
	scope_cpus(&r, cpus, &set);
	/* the tables and the first snapshot; the formulas, each group known */
	load(&t0, SRC_SNAPSHOT, LOAD_CPUS);
	for (int i = 0; i < t0.nr; i++)
		if (t0.v[i].model >= 0 && !t0.v[i].have_slices)
			die("the module publishes no slice counts (a module older than n3tel stat: install both of one version)");
	load_formulas(&t0);
	for (int k = 0; k < nr_groups; k++) {
		bool known = false;

		for (int m = 0; m < t0.nr_models; m++) {
			int g = group_by_name(&t0.model[m], group[k]);

			if (g >= 0) {
				groups[m] |= 1u << g;
				known = true;
			}
		}
		if (!known)
			die("unknown group \"%s\" (see available_groups)", group[k]);
	}
	for (int m = 0; m < t0.nr_models && !nr_groups; m++)
		groups[m] = t0.model[m].groups;
	if (output) {
		f = fopen(output, "we");	/* not COMMAND's */
		if (!f)
			die("cannot write %s: %s", output, strerror(errno));
	}
	have_busy = read_busy(busy0, MAX_CPUS);
	clock_gettime(CLOCK_MONOTONIC, &a);
	r.status = run_command(cmd, cpus ? &set : NULL, sizeof(set), &ru);
	clock_gettime(CLOCK_MONOTONIC, &b);
	have_busy &= read_busy(busy1, MAX_CPUS);
	load(&t1, SRC_SNAPSHOT, LOAD_CPUS | LOAD_STATES);
	if (t1.nr_models != t0.nr_models)
		die("the module was reloaded during the run (its models changed)");
	for (int m = 0; m < t0.nr_models; m++)
		if (strcmp(t0.model[m].name, t1.model[m].name))
			die("the module was reloaded during the run (its models changed)");
	/* the formulas are the first snapshot's models' */
	for (int m = 0; m < t1.nr_models; m++) {
		t1.model[m].fx = t0.model[m].fx;
		t0.model[m].fx = NULL;
	}

	r.seconds = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	r.start_ns = (uint64_t)a.tv_sec * 1000000000 + a.tv_nsec;
	r.end_ns = (uint64_t)b.tv_sec * 1000000000 + b.tv_nsec;
	r.cmd_cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		    ru.ru_stime.tv_usec / 1e6;
	r.busy = -1;
	if (have_busy) {
		r.busy = 0;
		for (int c = 0; c < MAX_CPUS; c++)
			if (r.cpus[c] && busy0[c] >= 0 && busy1[c] >= busy0[c])
				r.busy += busy1[c] - busy0[c];
	}
	accumulate(&r, &t0, &t1);
	for (int i = 0; i < r.nr_col; i++)
		evaluate(&t1, &r.col[i]);
	if (!format || !strcmp(format, "text"))
		report_text(f, &r, &t1, groups);
	else if (!strcmp(format, "json"))
		report_json(f, &r, &t1, groups);
	else
		report_csv(f, &r, &t1, groups);
	if (fflush(f) || ferror(f) || (output && fclose(f)))
		die("write error: %s", strerror(errno));
	free_tree(&t0);
	free_tree(&t1);
	return exit_status(r.status);
}
