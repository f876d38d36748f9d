// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel - read n3telemetry: a table or tree for people (show), a live view
 * (top), one scrape as Prometheus text or JSON (export), and the
 * node_exporter textfile collector (textfile).
 *
 * Nothing about a core is compiled in: the models (names, slot counts,
 * events, metrics, units, print precision, groups) come from the module,
 * from the snapshot's names section or from the models/<model>/ files, so
 * a core the module learns needs no new n3tel.  The binary snapshot layout
 * is uapi/linux/n3telemetry.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/n3telemetry.h>

#include "engine.h"	/* n3t_format(): values printed as the module prints them */

#define DEFAULT_SYSFS	"/sys/kernel/n3telemetry"
#define DEFAULT_DEVICE	"/dev/n3telemetry"	/* the binary snapshot */
#define MAX_FILE	(1 << 20)
#define FIXED_SCALE	1000000LL
#define MAX_EVENTS	N3T_SNAP_MAX_EVENTS
#define MAX_METRICS	N3T_SNAP_MAX_METRICS
#define MAX_GROUPS	32
#define MAX_MODELS	16
#define NAME_LEN	64
#define VALUE_BUF	48

struct metric {
	char name[NAME_LEN];
	char unit[NAME_LEN];
	int decimals;
};

struct group {
	char name[NAME_LEN];
	char arm[NAME_LEN];
	int nr;
	int metrics[MAX_METRICS];
};

/* One core's tables, as the module describes them. */
struct model {
	char name[NAME_LEN];
	unsigned int slots;
	uint32_t groups;		/* selected groups */
	int nr_events, nr_metrics, nr_groups;
	char event[MAX_EVENTS][NAME_LEN];
	unsigned int code[MAX_EVENTS];
	struct metric metric[MAX_METRICS];
	struct group group[MAX_GROUPS];
	bool selected[MAX_METRICS];	/* metric of a selected group */
};

struct view {
	int cpu;			/* -1: system */
	int model;			/* index into tree.model, -1: none */
	bool have;			/* an interval was published */
	uint64_t seq, end_ns, interval_ns;
	uint32_t lost;
	int64_t value[MAX_METRICS];
	bool valid[MAX_METRICS];
	bool have_events;
	bool listed[MAX_EVENTS];
	uint64_t count[MAX_EVENTS], ns[MAX_EVENTS];
};

struct tree {
	const char *root;
	const char *source;		/* "snapshot" or "text" */
	unsigned int interval_ms;
	int nr_models;
	struct model *model;
	int nr;
	struct view *v;
};

static const char *prog = "n3tel";

static void __attribute__((format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Read a whole file; NULL with errno set on failure. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		free(buf);
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			char *nb;

			if (cap >= MAX_FILE) {
				errno = EFBIG;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				break;
			buf = nb;
		}
	}
	if (r < 0) {
		int e = errno;

		close(fd);
		free(buf);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static char *must_slurp(const struct tree *t, const char *rel)
{
	char path[4096];
	char *s;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	s = slurp(path, NULL);
	if (!s)
		die("cannot read %s: %s", path, strerror(errno));
	return s;
}

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

/* "21.37" / "-0.0300" / "nan" -> fixed point (millionths); false if malformed */
static bool parse_value(const char *s, int64_t *v, bool *valid)
{
	int64_t ip = 0, frac = 0;
	int digits = 0;
	bool neg = false;

	if (!strcmp(s, "nan")) {
		*valid = false;
		*v = 0;
		return true;
	}
	if (*s == '-') {
		neg = true;
		s++;
	}
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		if (ip > INT64_MAX / 10 / FIXED_SCALE)
			return false;
		ip = ip * 10 + (*s++ - '0');
	}
	if (*s != '.')
		return false;
	s++;
	while (*s >= '0' && *s <= '9' && digits < 6) {
		frac = frac * 10 + (*s++ - '0');
		digits++;
	}
	if (*s || !digits)
		return false;
	while (digits++ < 6)
		frac *= 10;
	*v = (ip * FIXED_SCALE + frac) * (neg ? -1 : 1);
	*valid = true;
	return true;
}

/* --- models --- */

static int metric_by_name(const struct model *md, const char *name)
{
	for (int m = 0; md && m < md->nr_metrics; m++)
		if (!strcmp(md->metric[m].name, name))
			return m;
	return -1;
}

static int event_by_name(const struct model *md, const char *name)
{
	for (int e = 0; e < md->nr_events; e++)
		if (!strcmp(md->event[e], name))
			return e;
	return -1;
}

/* the file name ("branch") or Arm's name ("Branch_Effectiveness") */
static int group_by_name(const struct model *md, const char *name)
{
	for (int g = 0; g < md->nr_groups; g++)
		if (!strcmp(md->group[g].name, name) || !strcmp(md->group[g].arm, name))
			return g;
	return -1;
}

static int model_by_name(const struct tree *t, const char *name)
{
	for (int i = 0; i < t->nr_models; i++)
		if (!strcmp(t->model[i].name, name))
			return i;
	return -1;
}

static const struct model *view_model(const struct tree *t, const struct view *v)
{
	return v->model >= 0 ? &t->model[v->model] : NULL;
}

static void mark_selected(struct model *md)
{
	memset(md->selected, 0, sizeof(md->selected));
	for (int g = 0; g < md->nr_groups; g++)
		if (md->groups & (1u << g))
			for (int k = 0; k < md->group[g].nr; k++)
				md->selected[md->group[g].metrics[k]] = true;
}

/* copy a token that must fit a name; false if it does not */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= NAME_LEN)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

static struct model *add_model(struct tree *t, const char *name)
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

/* next line of a buffer, NUL-terminated in place; NULL at the end */
static char *next_line(char **p)
{
	char *s = *p, *nl;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
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
 * cpu_model: one line per model in use, its name first ("neoverse-v2
 * (forced)").  slots: one number for every model, or "<model> <slots>" lines.
 * groups: the selected groups by name; each model selects those it has.
 */
static void load_models_text(struct tree *t)
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

/* The model of a directory: its cpu_model file; system/ has the first model. */
static int dir_model(const struct tree *t, const char *dir)
{
	char path[4096], name[NAME_LEN];
	char *s;
	int m;

	snprintf(path, sizeof(path), "%s/%s/cpu_model", t->root, dir);
	s = slurp(path, NULL);
	if (!s) {
		if (errno != ENOENT)
			die("cannot read %s: %s", path, strerror(errno));
		if (!strcmp(dir, "system")) {
			/* the first line of the top-level cpu_model */
			snprintf(path, sizeof(path), "%s/cpu_model", t->root);
			s = slurp(path, NULL);
			if (!s || sscanf(s, "%63s", name) != 1 || (m = model_by_name(t, name)) < 0)
				m = 0;
			free(s);
			return m;
		}
		if (t->nr_models == 1)
			return 0;
		die("cannot read %s: %s", path, strerror(ENOENT));
	}
	if (sscanf(s, "%63s", name) != 1 || (m = model_by_name(t, name)) < 0)
		die("%s names \"%s\", a model not described by the module", path,
		    strtok(s, "\n") ? s : "");
	free(s);
	return m;
}

/* One directory (cpuN or system) from its text files. */
static void load_text_dir(const struct tree *t, struct view *v, const char *dir)
{
	const struct model *md;
	char rel[256], path[4096];
	char *s, *p, *line;

	v->model = dir_model(t, dir);
	md = &t->model[v->model];
	for (int g = 0; g < md->nr_groups; g++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, md->group[g].name);
		p = s = must_slurp(t, rel);
		while ((line = next_line(&p))) {
			char name[64], val[64], extra;
			int m;

			if (sscanf(line, "%63s %63s %c", name, val, &extra) != 2 ||
			    (m = metric_by_name(md, name)) < 0 ||
			    !parse_value(val, &v->value[m], &v->valid[m]))
				die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		}
		free(s);
	}
	snprintf(rel, sizeof(rel), "%s/status", dir);
	p = s = must_slurp(t, rel);
	while ((line = next_line(&p))) {
		char name[64], word[64];
		unsigned long long n = 0;

		/* "name number", or "state word" (whether the CPU collects) */
		if (sscanf(line, "%63s %63s", name, word) != 2 ||
		    (strcmp(name, "state") && sscanf(word, "%llu", &n) != 1))
			die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		if (!strcmp(name, "seq"))
			v->seq = n;
		else if (!strcmp(name, "end_ns"))
			v->end_ns = n;
		else if (!strcmp(name, "interval_ns"))
			v->interval_ns = n;
		else if (!strcmp(name, "lost_slices"))
			v->lost = n;
	}
	free(s);
	v->have = v->seq > 0;

	snprintf(path, sizeof(path), "%s/%s/events", t->root, dir);
	s = slurp(path, NULL);
	if (!s) {
		if (errno != EACCES)
			die("cannot read %s: %s", path, strerror(errno));
		return;		/* raw counts are root-only */
	}
	v->have_events = true;
	p = s;
	while ((line = next_line(&p))) {
		char name[64], extra;
		unsigned long long c, ns;
		int e;

		if (sscanf(line, "%63s %llu %llu %c", name, &c, &ns, &extra) != 3 ||
		    (e = event_by_name(md, name)) < 0)
			die("malformed line in %s: \"%s\"", path, line);
		v->listed[e] = true;
		v->count[e] = c;
		v->ns[e] = ns;
	}
	free(s);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void load_text(struct tree *t, bool with_system)
{
	DIR *d = opendir(t->root);
	struct dirent *de;
	int cpus[4096], n = 0;
	char dir[32];

	if (!d)
		die("cannot open %s: %s", t->root, strerror(errno));
	while ((de = readdir(d))) {
		int c;
		char extra;

		if (sscanf(de->d_name, "cpu%d%c", &c, &extra) == 1 && n < 4096)
			cpus[n++] = c;
	}
	closedir(d);
	qsort(cpus, n, sizeof(int), cmp_int);
	t->v = calloc(n + 1, sizeof(*t->v));
	if (!t->v)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		t->v[i].cpu = cpus[i];
		snprintf(dir, sizeof(dir), "cpu%d", cpus[i]);
		load_text_dir(t, &t->v[i], dir);
	}
	t->nr = n;
	if (with_system) {
		t->v[n].cpu = -1;
		load_text_dir(t, &t->v[n], "system");
		t->nr++;
	}
	t->source = "text";
}

/*
 * The module's snapshot is its device; a tree given with --sysfs (a copy,
 * a test fixture) carries it as a file named snapshot.
 */
static void snapshot_path(const struct tree *t, char *path, size_t size)
{
	if (!strcmp(t->root, DEFAULT_SYSFS))
		snprintf(path, size, "%s", DEFAULT_DEVICE);
	else
		snprintf(path, size, "%s/snapshot", t->root);
}

/* parse a decimal index below @max; false if it is not one */
static bool parse_index(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v >= max)
		return false;
	*out = v;
	return true;
}

static bool parse_hex(const char *s, unsigned long *out)
{
	char *end;

	if (!s || strncmp(s, "0x", 2) || !s[2])
		return false;
	errno = 0;
	*out = strtoul(s + 2, &end, 16);
	return !*end && !errno && s[2] != '-' && s[2] != '+';
}

/*
 * The names section (see uapi/linux/n3telemetry.h):
 *   model <m> <name> <slots> <groups> <title>
 *   event <m> <i> <name> <code>
 *   metric <m> <i> <name> <decimals> <unit>
 *   group <m> <g> <name> <arm_name> <metric index>...
 * Lines may come in any order; every model's events, metrics and groups
 * must be numbered 0.. without gaps.  Returns NULL or what is wrong.
 */
static const char *parse_names(struct tree *t, char *names, unsigned int nr_models,
			       int *bad_line)
{
	static char why[128];
	uint32_t seen_ev[MAX_MODELS][MAX_EVENTS / 32] = { { 0 } };
	uint32_t seen_m[MAX_MODELS][MAX_METRICS / 32] = { { 0 } };
	uint32_t seen_g[MAX_MODELS] = { 0 };
	bool seen_model[MAX_MODELS] = { 0 };
	char *p = names, *line, *copy;
	int lineno = 0;

	if (nr_models > MAX_MODELS) {
		snprintf(why, sizeof(why), "%u models, this n3tel reads at most %d", nr_models,
			 MAX_MODELS);
		return why;
	}
	t->model = calloc(MAX_MODELS, sizeof(*t->model));
	if (!t->model)
		die("out of memory");
	t->nr_models = nr_models;
	/* pass 1: models and metrics (groups refer to metric indices) */
	for (int pass = 1; pass <= 2; pass++) {
		char *text = strdup(names);

		if (!text)
			die("out of memory");
		p = text;
		lineno = 0;
		while ((line = next_line(&p))) {
			char *f[8 + MAX_METRICS], *save = NULL;
			unsigned int m, i;
			unsigned long num;
			int n = 0;
			struct model *md;

			lineno++;
			*bad_line = lineno;
			copy = strdup(line);
			if (!copy)
				die("out of memory");
			for (char *tok = strtok_r(copy, " ", &save); tok && n < (int)(sizeof(f) / sizeof(*f));
			     tok = strtok_r(NULL, " ", &save))
				f[n++] = tok;
			if (n < 2 || !parse_index(f[1], nr_models, &m)) {
				free(copy);
				return n < 2 ? "not a names line" : "model index out of range";
			}
			md = &t->model[m];
			if (!strcmp(f[0], "model")) {
				if (pass == 2)
					goto next;
				if (n < 6 || seen_model[m] || !name_ok(f[2]) ||
				    !parse_index(f[3], 256, &md->slots) || !md->slots ||
				    !parse_hex(f[4], &num) || num > UINT32_MAX) {
					free(copy);
					return "bad model line";
				}
				seen_model[m] = true;
				snprintf(md->name, NAME_LEN, "%s", f[2]);
				md->groups = num;
			} else if (!strcmp(f[0], "event")) {
				if (pass == 2)
					goto next;
				if (n != 5 || !parse_index(f[2], MAX_EVENTS, &i) ||
				    seen_ev[m][i / 32] >> (i % 32) & 1 || !name_ok(f[3]) ||
				    !parse_hex(f[4], &num) || num > 0xffff) {
					free(copy);
					return "bad event line";
				}
				seen_ev[m][i / 32] |= 1u << (i % 32);
				snprintf(md->event[i], NAME_LEN, "%s", f[3]);
				md->code[i] = num;
				if ((int)i >= md->nr_events)
					md->nr_events = i + 1;
			} else if (!strcmp(f[0], "metric")) {
				unsigned int dec;
				const char *unit;

				if (pass == 2)
					goto next;
				if (n < 6 || !parse_index(f[2], MAX_METRICS, &i) ||
				    seen_m[m][i / 32] >> (i % 32) & 1 || !name_ok(f[3]) ||
				    !parse_index(f[4], 7, &dec)) {
					free(copy);
					return "bad metric line";
				}
				unit = line + (f[5] - copy);
				if (strlen(unit) >= NAME_LEN) {
					free(copy);
					return "bad metric line";
				}
				seen_m[m][i / 32] |= 1u << (i % 32);
				snprintf(md->metric[i].name, NAME_LEN, "%s", f[3]);
				snprintf(md->metric[i].unit, NAME_LEN, "%s", unit);
				md->metric[i].decimals = dec;
				if ((int)i >= md->nr_metrics)
					md->nr_metrics = i + 1;
			} else if (!strcmp(f[0], "group")) {
				struct group *g;

				if (pass == 1)
					goto next;
				if (n < 5 || n - 5 > MAX_METRICS || !parse_index(f[2], MAX_GROUPS, &i) ||
				    seen_g[m] >> i & 1 || !name_ok(f[3]) || !name_ok(f[4])) {
					free(copy);
					return "bad group line";
				}
				g = &md->group[i];
				for (int k = 5; k < n; k++) {
					unsigned int x;

					if (!parse_index(f[k], md->nr_metrics, &x)) {
						free(copy);
						return "group names a metric the model does not have";
					}
					g->metrics[g->nr++] = x;
				}
				seen_g[m] |= 1u << i;
				snprintf(g->name, NAME_LEN, "%s", f[3]);
				snprintf(g->arm, NAME_LEN, "%s", f[4]);
				if ((int)i >= md->nr_groups)
					md->nr_groups = i + 1;
			} else {
				free(copy);
				return "not a names line";
			}
next:
			free(copy);
		}
		free(text);
	}
	*bad_line = 0;
	for (unsigned int m = 0; m < nr_models; m++) {
		struct model *md = &t->model[m];

		snprintf(why, sizeof(why), "model %u: ", m);
		if (!seen_model[m]) {
			strcat(why, "no model line");
			return why;
		}
		for (int i = 0; i < md->nr_events; i++)
			if (!(seen_ev[m][i / 32] >> (i % 32) & 1)) {
				strcat(why, "events not numbered 0..");
				return why;
			}
		for (int i = 0; i < md->nr_metrics; i++)
			if (!(seen_m[m][i / 32] >> (i % 32) & 1)) {
				strcat(why, "metrics not numbered 0..");
				return why;
			}
		if (md->nr_groups < 32 && seen_g[m] != (1u << md->nr_groups) - 1) {
			strcat(why, "groups not numbered 0..");
			return why;
		}
		if (md->nr_groups < 32 && md->groups >> md->nr_groups) {
			strcat(why, "selects a group it does not have");
			return why;
		}
		for (unsigned int k = 0; k < m; k++)
			if (!strcmp(t->model[k].name, md->name)) {
				strcat(why, "described twice");
				return why;
			}
		mark_selected(md);
	}
	return NULL;
}

static uint32_t bswap32(uint32_t x)
{
	return __builtin_bswap32(x);
}

/* 1 loaded, 0 not readable (fall back to text), exits on a bad snapshot */
static int load_snapshot(struct tree *t)
{
	const struct n3t_snapshot_header *h;
	const char *why;
	char path[4096], *names;
	size_t len, names_end, recs_end;
	char *buf;
	int bad_line;

	snapshot_path(t, path, sizeof(path));
	buf = slurp(path, &len);
	if (!buf) {
		if (errno == EACCES || errno == ENOENT || errno == EPERM)
			return 0;
		die("cannot read %s: %s", path, strerror(errno));
	}
	h = (const void *)buf;
	if (len < 8)
		die("%s: truncated snapshot (%zu bytes)", path, len);
	if (h->magic == bswap32(N3T_SNAP_MAGIC))
		die("%s: snapshot written with the other byte order (magic 0x%08x); read it on a machine of the writer's byte order",
		    path, h->magic);
	if (h->magic != N3T_SNAP_MAGIC)
		die("%s: not an n3telemetry snapshot (magic 0x%08x, want 0x%08x)", path,
		    h->magic, N3T_SNAP_MAGIC);
	if (h->abi_version != N3T_SNAP_ABI_VERSION)
		die("%s: snapshot ABI version %u, this n3tel reads version %u; use a matching n3tel",
		    path, h->abi_version, N3T_SNAP_ABI_VERSION);
	if (len < sizeof(*h))
		die("%s: truncated snapshot (%zu bytes, the header alone is %zu)", path, len,
		    sizeof(*h));
	if (h->header_size < sizeof(*h) || h->record_size < sizeof(struct n3t_snapshot_record) ||
	    h->max_events != N3T_SNAP_MAX_EVENTS || h->max_metrics != N3T_SNAP_MAX_METRICS ||
	    h->fixed_scale != N3T_SNAP_FIXED_SCALE)
		die("%s: snapshot sizes do not match (header %u, record %u, arrays of %u events and %u metrics, scale %llu; want >= %zu, >= %zu, %d, %d, %d)",
		    path, h->header_size, h->record_size, h->max_events, h->max_metrics,
		    (unsigned long long)h->fixed_scale, sizeof(*h),
		    sizeof(struct n3t_snapshot_record), N3T_SNAP_MAX_EVENTS, N3T_SNAP_MAX_METRICS,
		    N3T_SNAP_FIXED_SCALE);
	names_end = (size_t)h->names_offset + h->names_size;
	recs_end = (size_t)h->records_offset + (size_t)h->nr_records * h->record_size;
	if (h->names_offset < h->header_size || h->records_offset < names_end ||
	    h->records_offset % 8)
		die("%s: snapshot sections overlap or are misplaced (header %u bytes, names at %u, %u bytes, records at %u)",
		    path, h->header_size, h->names_offset, h->names_size, h->records_offset);
	if (recs_end > len)
		die("%s: truncated snapshot (%zu bytes, header says %u records of %u bytes at %u)",
		    path, len, h->nr_records, h->record_size, h->records_offset);
	if (recs_end < len)
		die("%s: snapshot is %zu bytes, header says %u records of %u bytes at %u", path,
		    len, h->nr_records, h->record_size, h->records_offset);

	names = strndup(buf + h->names_offset, h->names_size);
	if (!names)
		die("out of memory");
	if (strlen(names) != h->names_size)
		die("%s: malformed names section: a NUL byte", path);
	why = parse_names(t, names, h->nr_models, &bad_line);
	if (why) {
		if (bad_line) {
			char *p = strndup(buf + h->names_offset, h->names_size), *q = p, *l = NULL;

			for (int i = 0; i < bad_line; i++)
				l = next_line(&q);
			die("%s: malformed names section, line %d (%s): \"%s\"", path, bad_line, why,
			    l ? l : "");
		}
		die("%s: malformed names section: %s", path, why);
	}
	free(names);

	t->interval_ms = h->interval_ms;
	t->nr = h->nr_records;
	t->v = calloc(t->nr + 1, sizeof(*t->v));
	if (!t->v)
		die("out of memory");
	for (int i = 0; i < t->nr; i++) {
		const struct n3t_snapshot_record *r =
			(const void *)(buf + h->records_offset + (size_t)i * h->record_size);
		struct view *v = &t->v[i];
		const struct model *md;

		v->cpu = r->cpu;
		v->lost = r->lost_slices;
		v->model = -1;
		if (r->model == ~0U)
			continue;	/* a CPU without tables: nothing collected */
		if (r->model >= h->nr_models)
			die("%s: record %d (cpu%u) has model %u, the snapshot describes %u", path,
			    i, r->cpu, r->model, h->nr_models);
		if (r->nr_events > N3T_SNAP_MAX_EVENTS || r->nr_metrics > N3T_SNAP_MAX_METRICS)
			die("%s: record %d (cpu%u) has %u events and %u metrics, at most %d and %d fit",
			    path, i, r->cpu, r->nr_events, r->nr_metrics, N3T_SNAP_MAX_EVENTS,
			    N3T_SNAP_MAX_METRICS);
		md = &t->model[r->model];
		if ((int)r->nr_events != md->nr_events || (int)r->nr_metrics != md->nr_metrics)
			die("%s: record %d (cpu%u) has %u events and %u metrics, its model %s has %d and %d",
			    path, i, r->cpu, r->nr_events, r->nr_metrics, md->name, md->nr_events,
			    md->nr_metrics);
		v->model = r->model;
		v->have = r->flags & N3T_REC_VALID;
		v->seq = r->seq;
		v->end_ns = r->end_ns;
		v->interval_ns = r->interval_ns;
		for (int m = 0; m < md->nr_metrics; m++) {
			v->valid[m] = v->have && (r->valid[m / 64] >> (m % 64) & 1);
			v->value[m] = r->value[m];
		}
		v->have_events = true;
		for (int e = 0; e < md->nr_events; e++) {
			v->count[e] = r->event_count[e];
			v->ns[e] = r->event_ns[e];
			v->listed[e] = r->event_count[e] || r->event_ns[e] ||
				       (r->counted[e / 64] >> (e % 64) & 1);
		}
	}
	free(buf);
	t->source = "snapshot";
	return 1;
}

enum source { SRC_AUTO, SRC_TEXT, SRC_SNAPSHOT };

static void load(struct tree *t, enum source src, bool with_system)
{
	char path[4096];
	char *s;

	snprintf(path, sizeof(path), "%s/version", t->root);
	s = slurp(path, NULL);
	if (!s)
		die("n3telemetry is not loaded (cannot read %s: %s); load it with 'modprobe n3telemetry'",
		    path, strerror(errno));
	free(s);
	if (src != SRC_TEXT && load_snapshot(t)) {
		if (with_system) {
			/* the module publishes system/ as text only */
			struct view *v = &t->v[t->nr];

			v->cpu = -1;
			load_text_dir(t, v, "system");
			t->nr++;
		}
		return;
	}
	if (src == SRC_SNAPSHOT) {
		snapshot_path(t, path, sizeof(path));
		die("cannot read %s (root only)", path);
	}
	load_models_text(t);
	load_text(t, with_system);
}

static const char *fmt_metric(char *buf, size_t n, const struct tree *t,
			      const struct view *v, int m)
{
	const struct model *md = view_model(t, v);

	if (!md || m < 0)
		return "-";
	return fmt_fixed(buf, n, md->metric[m].decimals, v->value[m], v->have && v->valid[m]);
}

/* --- show --- */

static bool want_cpu(const char *list, int cpu)
{
	char *dup, *save = NULL;
	bool ok = false;

	if (!list)
		return cpu >= 0;
	if (!strcmp(list, "system"))
		return cpu < 0;
	dup = strdup(list);
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int a, b;

		if (sscanf(tok, "%d-%d", &a, &b) == 2 ? (cpu >= a && cpu <= b) :
		    (sscanf(tok, "%d", &a) == 1 && cpu == a))
			ok = true;
	}
	free(dup);
	return ok;
}

static void check_cpu_list(const char *list)
{
	if (!list || !strcmp(list, "system"))
		return;
	for (const char *p = list; *p; p++)
		if (!strchr("0123456789,-", *p))
			die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
}

static void show_metric(const struct tree *t, const struct view *v, int m, int indent)
{
	const struct model *md = view_model(t, v);
	char val[VALUE_BUF];

	printf("%*s%-*s %10s  %s\n", indent, "", 36 - indent, md->metric[m].name,
	       fmt_metric(val, sizeof(val), t, v, m), md->metric[m].unit);
}

static void show_group(const struct tree *t, const struct view *v, int g, int indent)
{
	const struct model *md = view_model(t, v);

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

	if (v->cpu < 0)
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
	if (l1 >= 0 && (groups & (1u << l1))) {
		static const char *const sub[][2] = {
			{ "frontend_bound", "topdown_frontend" },
			{ "backend_bound", "topdown_backend" },
		};

		printf("  Topdown\n");
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

/* --- export --- */

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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The selected metrics of every model, by name, sorted, each once. */
static int selected_names(const struct tree *t, const char **names)
{
	int n = 0, k = 0;

	for (int m = 0; m < t->nr_models; m++)
		for (int i = 0; i < t->model[m].nr_metrics; i++)
			if (t->model[m].selected[i])
				names[n++] = t->model[m].metric[i].name;
	qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++)
		if (!k || strcmp(names[k - 1], names[i]))
			names[k++] = names[i];
	return k;
}

static void export_prom(FILE *o, const struct tree *t)
{
	const char **names = calloc(MAX_MODELS * MAX_METRICS, sizeof(*names));
	char name[128];
	bool events = false;
	int nr_names;

	if (!names)
		die("out of memory");
	fprintf(o, "# HELP n3telemetry_slots Rename slots per cycle used by the topdown formulas.\n");
	fprintf(o, "# TYPE n3telemetry_slots gauge\n");
	if (t->nr_models == 1)
		fprintf(o, "n3telemetry_slots %u\n", t->model[0].slots);
	else
		for (int m = 0; m < t->nr_models; m++)
			fprintf(o, "n3telemetry_slots{model=\"%s\"} %u\n", t->model[m].name,
				t->model[m].slots);
	fprintf(o, "# HELP n3telemetry_cpu_info The CPU's model: the tables its metrics are computed with.\n");
	fprintf(o, "# TYPE n3telemetry_cpu_info gauge\n");
	for (int i = 0; i < t->nr; i++)
		if (t->v[i].model >= 0)
			fprintf(o, "n3telemetry_cpu_info{cpu=\"%d\",model=\"%s\"} 1\n", t->v[i].cpu,
				t->model[t->v[i].model].name);
	fprintf(o, "# HELP n3telemetry_interval_seconds Length of the CPU's latest interval.\n");
	fprintf(o, "# TYPE n3telemetry_interval_seconds gauge\n");
	for (int i = 0; i < t->nr; i++) {
		fprintf(o, "n3telemetry_interval_seconds{cpu=\"%d\"} ", t->v[i].cpu);
		if (t->v[i].have)
			put_fixed(o, t->v[i].interval_ns, 9);
		else
			fprintf(o, "NaN");
		fputc('\n', o);
	}
	fprintf(o, "# HELP n3telemetry_lost_slices_total Slices discarded because a set did not count for all of it.\n");
	fprintf(o, "# TYPE n3telemetry_lost_slices_total counter\n");
	for (int i = 0; i < t->nr; i++)
		fprintf(o, "n3telemetry_lost_slices_total{cpu=\"%d\"} %u\n", t->v[i].cpu, t->v[i].lost);
	nr_names = selected_names(t, names);
	for (int k = 0; k < nr_names; k++) {
		const struct metric *desc = NULL;

		for (int m = 0; m < t->nr_models && !desc; m++) {
			int x = metric_by_name(&t->model[m], names[k]);

			if (x >= 0 && t->model[m].selected[x])
				desc = &t->model[m].metric[x];
		}
		prom_name(name, sizeof(name), desc);
		fprintf(o, "# HELP %s %s (%s%s) over the CPU's latest interval; NaN when undefined.\n",
		       name, desc->name, desc->unit, is_percent(desc) ? ", as a 0..1 ratio" : "");
		fprintf(o, "# TYPE %s gauge\n", name);
		for (int i = 0; i < t->nr; i++) {
			const struct view *v = &t->v[i];
			const struct model *md = view_model(t, v);
			int m = metric_by_name(md, names[k]);

			if (m < 0 || !md->selected[m])
				continue;	/* not measured on this CPU's core */
			fprintf(o, "%s{cpu=\"%d\"} ", name, v->cpu);
			if (v->have && v->valid[m])
				put_fixed(o, v->value[m], is_percent(&md->metric[m]) ? 8 : 6);
			else
				fprintf(o, "NaN");
			fputc('\n', o);
		}
	}
	free(names);
	for (int i = 0; i < t->nr; i++)
		events |= t->v[i].have_events;
	if (!events)
		return;
	fprintf(o, "# HELP n3telemetry_event_count_total Cumulative PMU event count while counted.\n");
	fprintf(o, "# TYPE n3telemetry_event_count_total counter\n");
	for (int i = 0; i < t->nr; i++) {
		const struct model *md = view_model(t, &t->v[i]);

		for (int e = 0; md && e < md->nr_events; e++)
			if (t->v[i].listed[e])
				fprintf(o, "n3telemetry_event_count_total{cpu=\"%d\",event=\"%s\"} %" PRIu64 "\n",
				       t->v[i].cpu, md->event[e], t->v[i].count[e]);
	}
	fprintf(o, "# HELP n3telemetry_event_counted_seconds_total Cumulative time the event was counting.\n");
	fprintf(o, "# TYPE n3telemetry_event_counted_seconds_total counter\n");
	for (int i = 0; i < t->nr; i++) {
		const struct model *md = view_model(t, &t->v[i]);

		for (int e = 0; md && e < md->nr_events; e++)
			if (t->v[i].listed[e]) {
				fprintf(o, "n3telemetry_event_counted_seconds_total{cpu=\"%d\",event=\"%s\"} ",
				       t->v[i].cpu, md->event[e]);
				put_fixed(o, t->v[i].ns[e], 9);
				fputc('\n', o);
			}
	}
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

static void export_json(const struct tree *t)
{
	char val[VALUE_BUF];

	/* slots and groups of the first model (system/'s), all in models */
	printf("{\"source\": \"%s\", \"slots\": %u, \"interval_ms\": %u, \"groups\": ",
	       t->source, t->model[0].slots, t->interval_ms);
	json_groups(&t->model[0]);
	printf(",\n \"models\": {");
	for (int m = 0; m < t->nr_models; m++) {
		printf("%s\"%s\": {\"slots\": %u, \"groups\": ", m ? ", " : "", t->model[m].name,
		       t->model[m].slots);
		json_groups(&t->model[m]);
		printf("}");
	}
	printf("},\n \"cpus\": [");
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = &t->v[i];
		const struct model *md = view_model(t, v);
		int first = 1;

		printf("%s\n  {\"cpu\": %d, \"model\": ", i ? "," : "", v->cpu);
		if (md)
			printf("\"%s\"", md->name);
		else
			printf("null");
		printf(", \"seq\": %" PRIu64 ", \"end_ns\": %" PRIu64
		       ", \"interval_ns\": %" PRIu64 ", \"lost_slices\": %u,\n   \"metrics\": {",
		       v->seq, v->end_ns, v->interval_ns, v->lost);
		for (int m = 0; md && m < md->nr_metrics; m++) {
			fmt_metric(val, sizeof(val), t, v, m);
			printf("%s\"%s\": %s", m ? ", " : "", md->metric[m].name,
			       strcmp(val, "nan") ? val : "null");
		}
		printf("}");
		if (v->have_events) {
			printf(",\n   \"events\": {");
			for (int e = 0; md && e < md->nr_events; e++) {
				if (!v->listed[e])
					continue;
				printf("%s\"%s\": {\"count\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
				       first ? "" : ", ", md->event[e], v->count[e], v->ns[e]);
				first = 0;
			}
			printf("}");
		}
		printf("}");
	}
	printf("\n ]\n}\n");
}

/* --- textfile --- */

static void free_tree(struct tree *t)
{
	free(t->v);
	free(t->model);
	t->v = NULL;
	t->model = NULL;
}

static void write_textfile(const char *root, const char *dir)
{
	char tmp[4096], dst[4096];
	struct tree t = { .root = root };
	FILE *f;
	int fd;

	snprintf(dst, sizeof(dst), "%s/n3telemetry.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s/.n3telemetry.prom.%d", dir, (int)getpid());
	/* read everything first: a failure leaves the previous file as it was */
	load(&t, SRC_AUTO, false);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("cannot create %s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		die("cannot write %s: %s", tmp, strerror(errno));
	}
	export_prom(f, &t);
	if (fflush(f) || ferror(f) || fsync(fd)) {
		fclose(f);
		unlink(tmp);
		die("cannot write %s: %s", tmp, strerror(errno));
	}
	fclose(f);
	if (rename(tmp, dst)) {
		unlink(tmp);
		die("cannot rename %s to %s: %s", tmp, dst, strerror(errno));
	}
	free_tree(&t);
}

/* --- top --- */

struct row {
	const struct view *v;
	double key;
};

/* a metric of the view's model by name: its index, -1 if the model has none */
static int vmetric(const struct tree *t, const struct view *v, const char *name)
{
	return metric_by_name(view_model(t, v), name);
}

static double fixed(const struct tree *t, const struct view *v, const char *name)
{
	int m = vmetric(t, v, name);

	return m >= 0 && v->have && v->valid[m] ? (double)v->value[m] / FIXED_SCALE : -1;
}

static const char *sort_key = "cpu";

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->v->cpu - y->v->cpu;
}

static const char *const l1_names[4] = { "retiring", "bad_speculation", "frontend_bound",
					 "backend_bound" };

static void bar(const struct tree *t, const struct view *v, bool color, int width)
{
	static const char ch[4] = { 'R', 'S', 'F', 'B' };
	static const char *bg[4] = { "\033[42m", "\033[45m", "\033[44m", "\033[41m" };
	const struct model *md = view_model(t, v);
	int used = 0;

	putchar('[');
	if (!md || vmetric(t, v, "retiring") < 0) {
		/* no topdown level 1 on this core (Neoverse N1) */
		used = printf(" no topdown level 1%s%s", md ? " on " : "", md ? md->name : "");
		for (; used < width; used++)
			putchar(' ');
		putchar(']');
		return;
	}
	for (int i = 0; i < 4; i++) {
		double p = fixed(t, v, l1_names[i]);
		int n = p > 0 ? (int)(p * width / 100 + 0.5) : 0;

		if (n > width - used)
			n = width - used;
		if (color && n)
			fputs(bg[i], stdout);
		for (int k = 0; k < n; k++)
			putchar(color ? ' ' : ch[i]);
		if (color && n)
			fputs("\033[0m", stdout);
		used += n;
	}
	for (; used < width; used++)
		putchar(v->have ? ' ' : '.');
	putchar(']');
}

static const char *top_metric(char *buf, size_t n, const struct tree *t, const struct view *v,
			      const char *name)
{
	return fmt_metric(buf, n, t, v, vmetric(t, v, name));
}

static void top_once(const char *root, bool color)
{
	static const struct { const char *key, *metric; } keys[] = {
		{ "retiring", "retiring" }, { "frontend", "frontend_bound" },
		{ "backend", "backend_bound" }, { "bad", "bad_speculation" }, { "ipc", "ipc" },
	};
	struct tree t = { .root = root };
	struct row rows[4096];
	char val[VALUE_BUF];
	int n = 0;

	load(&t, SRC_AUTO, false);
	for (int i = 0; i < t.nr && n < 4096; i++) {
		rows[n].v = &t.v[i];
		rows[n].key = -t.v[i].cpu;
		for (unsigned int k = 0; k < sizeof(keys) / sizeof(*keys); k++)
			if (!strcmp(sort_key, keys[k].key))
				rows[n].key = fixed(&t, &t.v[i], keys[k].metric);
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_row);
	if (color)
		fputs("\033[H\033[2J", stdout);
	printf("n3tel top - %s, interval %u ms, sorted by %s   %s\n", root, t.interval_ms,
	       sort_key, color ? "\033[42m R \033[0m retiring \033[45m S \033[0m bad speculation \033[44m F \033[0m frontend \033[41m B \033[0m backend" :
	       "R retiring  S bad speculation  F frontend  B backend");
	printf("%-6s %-42s %7s %7s %7s %7s %6s %8s %8s %8s\n", "CPU", "topdown level 1",
	       "retire", "badspec", "front", "back", "IPC", "L1D-MPKI", "L2-MPKI", "LLC-MPKI");
	for (int i = 0; i < n; i++) {
		const struct view *v = rows[i].v;

		printf("cpu%-3d ", v->cpu);
		bar(&t, v, color, 40);
		printf(" %7s", top_metric(val, sizeof(val), &t, v, "retiring"));
		printf(" %7s", top_metric(val, sizeof(val), &t, v, "bad_speculation"));
		printf(" %7s", top_metric(val, sizeof(val), &t, v, "frontend_bound"));
		printf(" %7s", top_metric(val, sizeof(val), &t, v, "backend_bound"));
		printf(" %6s", top_metric(val, sizeof(val), &t, v, "ipc"));
		printf(" %8s", top_metric(val, sizeof(val), &t, v, "l1d_cache_mpki"));
		printf(" %8s", top_metric(val, sizeof(val), &t, v, "l2_cache_mpki"));
		printf(" %8s\n", top_metric(val, sizeof(val), &t, v, "ll_cache_read_mpki"));
	}
	fflush(stdout);
	free_tree(&t);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: n3tel [--sysfs PATH] [--text|--snapshot] COMMAND [options]\n"
		"  show [--cpu LIST|system] [--group G]...  metrics as a table (topdown as a tree)\n"
		"  top [--sort cpu|retiring|frontend|backend|bad|ipc] [--iterations N] [--delay S]\n"
		"  export --format prometheus|json           one scrape of every CPU\n"
		"  textfile --dir DIR [--every SECONDS]      n3telemetry.prom for node_exporter\n"
		"PATH defaults to " DEFAULT_SYSFS ".\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "text", no_argument, NULL, 't' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "group", required_argument, NULL, 'g' },
		{ "format", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ "every", required_argument, NULL, 'e' },
		{ "sort", required_argument, NULL, 'o' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = DEFAULT_SYSFS, *cpus = NULL, *format = NULL, *dir = NULL, *cmd;
	const char *group_opt[MAX_GROUPS * 2];
	enum source src = SRC_AUTO;
	int every = 0, iterations = 0, delay = 0, c, nr_group_opt = 0;
	struct tree t = { 0 };

	/* one pass: options may stand before or after the command */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': root = optarg; break;
		case 't': src = SRC_TEXT; break;
		case 'S': src = SRC_SNAPSHOT; break;
		case 'h': usage(stdout); return 0;
		case 'c': cpus = optarg; break;
		case 'g':
			if (nr_group_opt == MAX_GROUPS * 2)
				die("too many --group options");
			group_opt[nr_group_opt++] = optarg;
			break;
		case 'f': format = optarg; break;
		case 'd': dir = optarg; break;
		case 'e': every = atoi(optarg); if (every < 1) die("--every wants seconds >= 1"); break;
		case 'o': sort_key = optarg; break;
		case 'n': iterations = atoi(optarg); break;
		case 'D': delay = atoi(optarg); break;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	if (optind < argc)
		die("unexpected argument \"%s\"", argv[optind]);
	t.root = root;

	if (!strcmp(cmd, "show")) {
		uint32_t groups[MAX_MODELS] = { 0 };

		check_cpu_list(cpus);
		load(&t, src, cpus && !strcmp(cpus, "system"));
		/* --group names a group of any model; each CPU shows those its model has */
		for (int k = 0; k < nr_group_opt; k++) {
			bool known = false;

			for (int m = 0; m < t.nr_models; m++) {
				int g = group_by_name(&t.model[m], group_opt[k]);

				if (g >= 0) {
					groups[m] |= 1u << g;
					known = true;
				}
			}
			if (!known)
				die("unknown group \"%s\" (see available_groups)", group_opt[k]);
		}
		for (int m = 0; m < t.nr_models && !nr_group_opt; m++)
			groups[m] = t.model[m].groups;
		for (int i = 0, shown = 0; i < t.nr; i++) {
			if (!want_cpu(cpus, t.v[i].cpu))
				continue;
			if (shown++)
				putchar('\n');
			show_view(&t, &t.v[i], t.v[i].model >= 0 ? groups[t.v[i].model] : 0);
		}
	} else if (!strcmp(cmd, "export")) {
		if (!format || (strcmp(format, "prometheus") && strcmp(format, "json")))
			die("export needs --format prometheus or --format json");
		load(&t, src, false);
		if (!strcmp(format, "json"))
			export_json(&t);
		else
			export_prom(stdout, &t);
	} else if (!strcmp(cmd, "textfile")) {
		if (!dir)
			die("textfile needs --dir DIR (node_exporter's --collector.textfile.directory)");
		do {
			write_textfile(root, dir);
			if (every)
				sleep(every);
		} while (every);
	} else if (!strcmp(cmd, "top")) {
		bool color = isatty(STDOUT_FILENO) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");

		if (strcmp(sort_key, "cpu") && strcmp(sort_key, "retiring") &&
		    strcmp(sort_key, "frontend") && strcmp(sort_key, "backend") &&
		    strcmp(sort_key, "bad") && strcmp(sort_key, "ipc"))
			die("unknown --sort \"%s\"", sort_key);
		for (int i = 0; !iterations || i < iterations; i++) {
			unsigned int interval_ms = 1000;

			top_once(root, color);
			if (iterations && i + 1 == iterations)
				break;
			if (!delay) {
				char p[4096];
				char *s;

				snprintf(p, sizeof(p), "%s/interval_ms", root);
				s = slurp(p, NULL);
				interval_ms = s ? atoi(s) : 1000;
				free(s);
			}
			usleep(delay ? delay * 1000000u : (interval_ms < 1000 ? 1000 : interval_ms) * 1000u);
		}
	} else {
		fprintf(stderr, "%s: unknown command \"%s\"\n", prog, cmd);
		usage(stderr);
		return 2;
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	free_tree(&t);
	return 0;
}
