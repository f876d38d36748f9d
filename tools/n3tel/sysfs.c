// SPDX-License-Identifier: GPL-2.0
/*
 * The module's sysfs tree (t->root): the rule every read of it
 * follows when refused (die_access), and the models' tables from its text
 * files (cpu_model, slots, interval_ms, groups, models/<model>/) when there
 * is no snapshot; the formulas (models/<model>/formulas) for the commands
 * that evaluate them.
 *
 * Calls model.c (building the tables) and util.h.  read.c calls it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"
#include "util.h"

/* whether the live module's boolean parameter @name is set */
static bool module_param_set(const char *name)
{
	char path[256];
	char *s;
	bool on;

	snprintf(path, sizeof(path), "/sys/module/n3telemetry/parameters/%s", name);
	s = slurp(path, NULL);
	on = s && (s[0] == 'Y' || s[0] == '1');
	free(s);
	return on;
}

/*
 * A file n3tel needs was refused (EACCES, EPERM).  The module gives its
 * data (the metric files, events, /dev/n3telemetry) to CAP_PERFMON (or
 * CAP_SYS_ADMIN) only, unless it is loaded with world_readable=1; with
 * root_only=1 every file is root's.  Never a fallback: one line, exit 1.
 */
void __attribute__((noreturn)) die_access(const struct tree *t, const char *path)
{
	if (!strcmp(t->root, DEFAULT_SYSFS) && module_param_set("root_only"))
		die("reading %s needs root: n3telemetry is loaded with root_only=1", path);
	die("reading %s needs CAP_PERFMON: run as root, or load n3telemetry with world_readable=1",
	    path);
}

static char *must_slurp(const struct tree *t, const char *rel)
{
	char path[4096];
	char *s;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	s = slurp(path, NULL);
	if (!s && refused(errno))
		die_access(t, path);
	if (!s)
		die("cannot read %s: %s", path, strerror(errno));
	return s;
}

/* models/<model>/{events,metrics,groups}: the tables of one model */
static void load_model_text(const struct tree *t, struct model *md)
{
	char rel[256], *s, *p, *line;

	snprintf(rel, sizeof(rel), "models/%s/events", md->name);
	p = s = must_slurp(t, rel);
	while ((line = next_line(&p))) {
		char name[NAME_LEN], extra;
		unsigned int code;

		if (md->nr_events == MAX_EVENTS ||
		    sscanf(line, "%63s 0x%x %c", name, &code, &extra) != 2 || !name_ok(name))
			die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		snprintf(md->event[md->nr_events], NAME_LEN, "%s", name);
		md->code[md->nr_events++] = code;
	}
	free(s);

	snprintf(rel, sizeof(rel), "models/%s/metrics", md->name);
	p = s = must_slurp(t, rel);
	while ((line = next_line(&p))) {
		struct metric *m = &md->metric[md->nr_metrics];
		char name[NAME_LEN];
		int dec, at = 0;

		if (md->nr_metrics == MAX_METRICS ||
		    sscanf(line, "%63s %d %n", name, &dec, &at) != 2 || !at || !name_ok(name) ||
		    dec < 0 || dec > 6 || !line[at] || strlen(line + at) >= NAME_LEN)
			die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		snprintf(m->name, NAME_LEN, "%s", name);
		snprintf(m->unit, NAME_LEN, "%s", line + at);
		m->decimals = dec;
		md->nr_metrics++;
	}
	free(s);

	snprintf(rel, sizeof(rel), "models/%s/groups", md->name);
	p = s = must_slurp(t, rel);
	while ((line = next_line(&p))) {
		struct group *g = &md->group[md->nr_groups];
		char *save = NULL, *tok;
		int n = 0;

		if (md->nr_groups == MAX_GROUPS)
			die("malformed line in %s/%s: \"%s\" (more than %d groups)", t->root, rel,
			    line, MAX_GROUPS);
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), n++) {
			if (!name_ok(tok))
				break;
			if (n == 0) {
				snprintf(g->name, NAME_LEN, "%s", tok);
			} else if (n == 1) {
				snprintf(g->arm, NAME_LEN, "%s", tok);
			} else {
				int m = metric_by_name(md, tok);

				if (m < 0 || g->nr == MAX_METRICS)
					break;
				g->metrics[g->nr++] = m;
			}
		}
		if (tok || n < 3)
			die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		md->nr_groups++;
	}
	free(s);
}

/*
 * One polynomial of a formulas line (module/engine.c n3t_format_formula()):
 * terms "+100*e3*slots" up to "/" or the end; false if malformed
 */
static bool parse_poly(struct formulas *fx, const struct model *md, char **save, int *first,
		       int *nr, bool num)
{
	char *tok;

	*first = fx->nr_terms;
	*nr = 0;
	while ((tok = strtok_r(NULL, " ", save))) {
		struct term *tm;
		char *end, *f;
		long coef;

		if (!strcmp(tok, "/"))
			return num && *nr;
		/* the engine's limits: N3T_MAX_MONOS a polynomial, u16 indices */
		if (*nr == MAX_TERMS || fx->nr_terms == 65535)
			return false;
		if (fx->nr_terms % 64 == 0) {
			struct term *more = realloc(fx->term, (fx->nr_terms + 64) * sizeof(*more));

			if (!more)
				die("out of memory");
			fx->term = more;
		}
		tm = &fx->term[fx->nr_terms];
		if ((*tok != '+' && *tok != '-') || tok[1] < '0' || tok[1] > '9')
			return false;
		errno = 0;
		coef = strtol(tok, &end, 10);
		if (errno || coef < INT32_MIN || coef > INT32_MAX)
			return false;
		tm->coef = coef;
		tm->nr = 0;
		for (f = end; *f; ) {
			unsigned long e;

			if (*f++ != '*' || tm->nr == FORMULA_FACTORS)
				return false;
			if (!strncmp(f, "slots", 5)) {
				tm->f[tm->nr++] = FACTOR_SLOTS;
				f += 5;
				continue;
			}
			if (*f++ != 'e' || *f < '0' || *f > '9')
				return false;
			errno = 0;
			e = strtoul(f, &end, 10);
			if (errno || e >= (unsigned long)md->nr_events)
				return false;
			tm->f[tm->nr++] = e;
			f = end;
		}
		fx->nr_terms++;
		(*nr)++;
	}
	return !num && *nr;
}

void load_formulas(struct tree *t)
{
	for (int k = 0; k < t->nr_models; k++) {
		struct model *md = &t->model[k];
		char rel[256], *s, *p, *line;
		struct formulas *fx;
		int n = 0;

		if (md->fx)
			continue;
		snprintf(rel, sizeof(rel), "models/%s/formulas", md->name);
		{
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", t->root, rel);
			s = slurp(path, NULL);
			if (!s && errno == ENOENT)
				die("%s: no formulas: the module is older than this n3tel (stat and --by-cgroup need both of one version)",
				    path);
		}
		if (!s)
			s = must_slurp(t, rel);
		fx = calloc(1, sizeof(*fx));
		if (!fx)
			die("out of memory");
		p = s;
		while ((line = next_line(&p))) {
			char *copy = strdup(line), *save = NULL, *name;

			if (!copy)
				die("out of memory");
			name = strtok_r(copy, " ", &save);
			if (n == md->nr_metrics || !name || strcmp(name, md->metric[n].name) ||
			    !parse_poly(fx, md, &save, &fx->num[n], &fx->nr_num[n], true) ||
			    !parse_poly(fx, md, &save, &fx->den[n], &fx->nr_den[n], false))
				die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
			free(copy);
			n++;
		}
		free(s);
		if (n != md->nr_metrics)
			die("%s/%s: %d formulas for %d metrics", t->root, rel, n, md->nr_metrics);
		md->fx = fx;
	}
}

/*
 * cpu_model: one line per model in use, its name first ("neoverse-v2
 * (forced)").  slots: one number for every model, or "<model> <slots>" lines.
 * groups: the selected groups by name; each model selects those it has.
 */
void load_models_text(struct tree *t)
{
	char *s, *p, *line;

	p = s = must_slurp(t, "cpu_model");
	while ((line = next_line(&p))) {
		char name[NAME_LEN];

		if (sscanf(line, "%63s", name) != 1 || !name_ok(name))
			die("malformed line in %s/cpu_model: \"%s\"", t->root, line);
		if (model_by_name(t, name) < 0)
			load_model_text(t, add_model(t, name));
	}
	free(s);
	if (!t->nr_models)
		die("%s/cpu_model names no CPU model", t->root);

	p = s = must_slurp(t, "slots");
	while ((line = next_line(&p))) {
		char name[NAME_LEN], extra;
		unsigned int n;
		int m;

		if (sscanf(line, "%u %c", &n, &extra) == 1) {
			for (m = 0; m < t->nr_models; m++)
				t->model[m].slots = n;
		} else if (sscanf(line, "%63s %u %c", name, &n, &extra) == 2 &&
			   (m = model_by_name(t, name)) >= 0) {
			t->model[m].slots = n;
		} else {
			die("malformed line in %s/slots: \"%s\"", t->root, line);
		}
	}
	free(s);

	s = must_slurp(t, "interval_ms");
	t->interval_ms = atoi(s);
	free(s);

	s = must_slurp(t, "groups");
	for (char *save = NULL, *tok = strtok_r(s, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		for (int m = 0; m < t->nr_models; m++) {
			int g = group_by_name(&t->model[m], tok);

			if (g >= 0)
				t->model[m].groups |= 1u << g;
		}
	free(s);
	for (int m = 0; m < t->nr_models; m++)
		mark_selected(&t->model[m]);
}

