// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel - read n3telemetry: a table or tree for people (show), a live view
 * (top), one scrape as Prometheus text, JSON or CSV (export), and the
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
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/n3telemetry.h>

#include "engine.h"	/* n3t_format(): values printed as the module prints them */

#define DEFAULT_SYSFS	"/sys/kernel/n3telemetry"
#define DEFAULT_DEVICE	"/dev/n3telemetry"	/* the binary snapshot */
#define MAX_FILE	(64 << 20)	/* a snapshot of 4096 CPUs is about 10 MiB */
#define FIXED_SCALE	1000000LL
#define MAX_EVENTS	N3T_SNAP_MAX_EVENTS
#define MAX_METRICS	N3T_SNAP_MAX_METRICS
#define MAX_GROUPS	32
#define MAX_MODELS	16
#define NAME_LEN	64
#define VALUE_BUF	48
#define MAX_SERIES	300		/* default --max-series */

#ifndef N3TEL_VERSION
#define N3TEL_VERSION	"unknown"
#endif

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
	uint64_t lost;
	int64_t value[MAX_METRICS];
	bool valid[MAX_METRICS];
	bool have_ages;			/* group_seq, group_end_ns known (ages file) */
	uint64_t group_seq[MAX_GROUPS];	/* the interval a group's values come from, 0: none yet */
	uint64_t group_end_ns[MAX_GROUPS];
	bool have_events;		/* events readable */
	char state[64];			/* cpuN/status "state": collecting, isolated, ... */
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
	struct view *v;			/* CPUs by number, then system/ (cpu -1) if loaded */
	int events_errno;		/* why an events file could not be read, 0 if it could */
	char events_path[256];
	int snapshot_errno;		/* why the snapshot could not be read, 0 if it could */
};

static const char *prog = "n3tel";

/* textfile catches errors to write n3telemetry_up 0 instead of exiting */
static jmp_buf *die_jmp;
static char die_msg[1024];

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(die_msg, sizeof(die_msg), fmt, ap);
	va_end(ap);
	if (die_jmp)
		longjmp(*die_jmp, 1);
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", prog, die_msg);
	exit(1);
}

/* Read a whole file; NULL with errno set on failure (EFBIG beyond MAX_FILE). */
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

			/* never a silently truncated file: grow, or fail */
			if (cap >= MAX_FILE) {
				errno = EFBIG;
				r = -1;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				errno = ENOMEM;
				r = -1;
				break;
			}
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
static void __attribute__((noreturn)) die_access(const struct tree *t, const char *path)
{
	if (!strcmp(t->root, DEFAULT_SYSFS) && module_param_set("root_only"))
		die("reading %s needs root: n3telemetry is loaded with root_only=1", path);
	die("reading %s needs CAP_PERFMON: run as root, or load n3telemetry with world_readable=1",
	    path);
}

static bool refused(int err)
{
	return err == EACCES || err == EPERM;
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

/*
 * A CPU going offline or online changes its cpuN directory under a reader:
 * its group files appear after the directory and go before it (ENOENT with
 * the directory there), a file being removed gives ENODEV, and at last the
 * directory is gone.  vanished(): whether @dir went away, or is going.
 */
static bool vanished(const struct tree *t, const char *dir, int err)
{
	char path[4096];
	struct stat st;

	if (!strcmp(dir, "system"))
		return false;
	if (err == ENODEV)
		return true;
	if (err != ENOENT)
		return false;
	snprintf(path, sizeof(path), "%s/%s", t->root, dir);
	return stat(path, &st) && errno == ENOENT;
}

/*
 * Read a file of a cpuN or system directory.  A file missing from a cpuN
 * directory that is there is looked for again for about 100 ms (the CPU
 * may be coming online or going offline).  NULL with *gone if the directory
 * went away meanwhile, NULL with errno set on any other failure.
 */
static char *dir_read(const struct tree *t, const char *dir, const char *name, bool *gone)
{
	char path[4096];
	char *s;

	*gone = false;
	snprintf(path, sizeof(path), "%s/%s/%s", t->root, dir, name);
	for (int tries = 0;; tries++) {
		int err;

		s = slurp(path, NULL);
		if (s)
			return s;
		err = errno;
		if (vanished(t, dir, err)) {
			*gone = true;
			return NULL;
		}
		errno = err;
		if (err != ENOENT || !strcmp(dir, "system") || tries == 5)
			return NULL;
		usleep(20000);
	}
}

/*
 * A file of a cpuN or system directory; NULL if the directory vanished
 * (see vanished()), exits on any other error.
 */
static char *dir_slurp(const struct tree *t, const char *dir, const char *name)
{
	bool gone;
	char *s = dir_read(t, dir, name, &gone);

	if (!s && !gone && refused(errno)) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s/%s", t->root, dir, name);
		die_access(t, path);
	}
	if (!s && !gone)
		die("cannot read %s/%s/%s: %s", t->root, dir, name, strerror(errno));
	return s;
}

#define DIR_UNSUPPORTED	-1	/* a CPU of a core no table describes */
#define DIR_VANISHED	-2

/*
 * The model of a directory: its cpu_model file ("unsupported" for a core
 * no table describes); system/ has the first model.
 */
static int dir_model(const struct tree *t, const char *dir)
{
	char path[4096], name[NAME_LEN];
	char *s;
	int m;

	snprintf(path, sizeof(path), "%s/%s/cpu_model", t->root, dir);
	s = slurp(path, NULL);
	if (!s) {
		if (vanished(t, dir, errno))
			return DIR_VANISHED;
		if (refused(errno))
			die_access(t, path);
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
	if (sscanf(s, "%63s", name) == 1 &&
	    (!strcmp(name, "unsupported") || !strcmp(name, "isolated")))
		m = DIR_UNSUPPORTED;
	else if (sscanf(s, "%63s", name) != 1 || (m = model_by_name(t, name)) < 0)
		die("%s names \"%s\", a model not described by the module", path,
		    strtok(s, "\n") ? s : "");
	free(s);
	return m;
}

/* The state line of a cpuN/status; false if the directory vanished. */
static bool load_state(const struct tree *t, struct view *v, const char *dir)
{
	char *s = dir_slurp(t, dir, "status"), *p = s, *line;

	if (!s)
		return false;
	while ((line = next_line(&p)))
		if (sscanf(line, "state %63s", v->state) == 1)
			break;
	free(s);
	return true;
}

/*
 * One directory (cpuN or system) from its text files: its model and status,
 * and with @full its metrics and events.  False if it vanished meanwhile (a
 * CPU going offline), so the caller skips it this round.
 */
static bool load_text_dir(struct tree *t, struct view *v, const char *dir, bool full)
{
	const struct model *md;
	bool gone;
	char rel[256];
	char *s, *p, *line;

	v->model = dir_model(t, dir);
	if (v->model == DIR_VANISHED)
		return false;
	md = v->model >= 0 ? &t->model[v->model] : NULL;
	for (int g = 0; full && md && g < md->nr_groups; g++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, md->group[g].name);
		p = s = dir_slurp(t, dir, md->group[g].name);
		if (!s)
			return false;
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
	p = s = dir_slurp(t, dir, "status");
	if (!s)
		return false;
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
		else if (!strcmp(name, "state"))
			snprintf(v->state, sizeof(v->state), "%s", word);
	}
	free(s);
	v->have = v->seq > 0;
	if (!full || !md)
		return true;

	/* how old each group's values are; an older module has no ages file */
	snprintf(rel, sizeof(rel), "%s/%s/ages", t->root, dir);
	s = dir_read(t, dir, "ages", &gone);
	if (!s && gone)
		return false;
	if (!s && errno != ENOENT)
		die("cannot read %s: %s", rel, strerror(errno));
	v->have_ages = s != NULL;
	p = s;
	while (s && (line = next_line(&p))) {
		char name[64];
		unsigned long long seq, end;
		int g;

		if (sscanf(line, "%63s seq %llu end_ns %llu age_ms ", name, &seq, &end) != 3 ||
		    (g = group_by_name(md, name)) < 0)
			die("malformed line in %s: \"%s\"", rel, line);
		v->group_seq[g] = seq;
		v->group_end_ns[g] = end;
	}
	free(s);

	snprintf(rel, sizeof(rel), "%s/%s/events", t->root, dir);
	s = dir_read(t, dir, "events", &gone);
	if (!s) {
		if (gone)
			return false;
		if (!refused(errno))
			die("cannot read %s: %s", rel, strerror(errno));
		/*
		 * an older module: the metric files world-readable, the raw
		 * counts root-only (this one refuses both or neither)
		 */
		t->events_errno = errno;
		snprintf(t->events_path, sizeof(t->events_path), "%s", rel);
		return true;
	}
	v->have_events = true;
	p = s;
	while ((line = next_line(&p))) {
		char name[64], extra;
		unsigned long long c, ns;
		int e;

		if (sscanf(line, "%63s %llu %llu %c", name, &c, &ns, &extra) != 3 ||
		    (e = event_by_name(md, name)) < 0)
			die("malformed line in %s: \"%s\"", rel, line);
		v->listed[e] = true;
		v->count[e] = c;
		v->ns[e] = ns;
	}
	free(s);
	return true;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* what load() reads */
#define LOAD_SYSTEM	0x1	/* system/, as the last view (cpu -1) */
#define LOAD_CPUS	0x2	/* every CPU's metrics and events */
#define LOAD_STATES	0x4	/* every CPU's model and state only */

/* the CPUs listed in the tree, sorted; returns how many */
static int list_cpus(const struct tree *t, int **cpus)
{
	DIR *d = opendir(t->root);
	struct dirent *de;
	int n = 0, cap = 64;

	if (!d)
		die("cannot open %s: %s", t->root, strerror(errno));
	*cpus = malloc(cap * sizeof(**cpus));
	if (!*cpus)
		die("out of memory");
	while ((de = readdir(d))) {
		int c;
		char extra;

		if (sscanf(de->d_name, "cpu%d%c", &c, &extra) != 1 || c < 0)
			continue;
		if (n == cap) {
			int *nc = realloc(*cpus, (cap *= 2) * sizeof(**cpus));

			if (!nc)
				die("out of memory");
			*cpus = nc;
		}
		(*cpus)[n++] = c;
	}
	closedir(d);
	qsort(*cpus, n, sizeof(int), cmp_int);
	return n;
}

static void load_text(struct tree *t, unsigned int what)
{
	int *cpus, n = list_cpus(t, &cpus);
	char dir[32];

	t->v = calloc(n + 1, sizeof(*t->v));
	if (!t->v)
		die("out of memory");
	t->nr = 0;
	if (what & (LOAD_CPUS | LOAD_STATES))
		for (int i = 0; i < n; i++) {
			struct view *v = &t->v[t->nr];

			memset(v, 0, sizeof(*v));
			v->cpu = cpus[i];
			snprintf(dir, sizeof(dir), "cpu%d", cpus[i]);
			/* a CPU that went offline since the listing is left out */
			if (load_text_dir(t, v, dir, what & LOAD_CPUS))
				t->nr++;
		}
	free(cpus);
	if (what & LOAD_SYSTEM) {
		memset(&t->v[t->nr], 0, sizeof(t->v[t->nr]));
		t->v[t->nr].cpu = -1;
		load_text_dir(t, &t->v[t->nr], "system", true);
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

/*
 * 1 loaded, 0 not there or refused (t->snapshot_errno says which; fall back
 * to the text files, which refuse the same readers), exits on a bad
 * snapshot
 */
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
		t->snapshot_errno = errno;
		if (refused(errno) || errno == ENOENT)
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
	/* an older module's record ends before lost_slices_total */
	if (h->header_size < sizeof(*h) ||
	    h->record_size < offsetof(struct n3t_snapshot_record, lost_slices_total) ||
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
		v->lost = h->record_size >= sizeof(*r) ? r->lost_slices_total : r->lost_slices;
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
		/* an older module's record ends before the group ages */
		v->have_ages = h->record_size >= sizeof(*r);
		for (int g = 0; v->have_ages && g < md->nr_groups && g < N3T_SNAP_MAX_GROUPS; g++) {
			v->group_seq[g] = r->group_seq[g];
			v->group_end_ns[g] = r->group_end_ns[g];
		}
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

static void load(struct tree *t, enum source src, unsigned int what)
{
	char path[4096];
	char *s;

	snprintf(path, sizeof(path), "%s/version", t->root);
	s = slurp(path, NULL);
	if (!s && refused(errno))
		die_access(t, path);	/* root_only=1 */
	if (!s)
		die("n3telemetry is not loaded (cannot read %s: %s); load it with 'modprobe n3telemetry'",
		    path, strerror(errno));
	free(s);
	if (src != SRC_TEXT && load_snapshot(t)) {
		int k = 0;

		/* the snapshot has no state: cpuN/status has (offline: left out) */
		for (int i = 0; i < t->nr; i++) {
			char dir[32];

			snprintf(dir, sizeof(dir), "cpu%d", t->v[i].cpu);
			if (!(what & LOAD_STATES) || load_state(t, &t->v[i], dir))
				t->v[k++] = t->v[i];
		}
		t->nr = k;
		if (!(what & (LOAD_CPUS | LOAD_STATES)))
			t->nr = 0;
		if (what & LOAD_SYSTEM) {
			/* the module publishes system/ as text only */
			struct view *v = &t->v[t->nr];

			memset(v, 0, sizeof(*v));
			v->cpu = -1;
			load_text_dir(t, v, "system", true);
			t->nr++;
		}
		return;
	}
	if (src == SRC_SNAPSHOT) {
		snapshot_path(t, path, sizeof(path));
		if (refused(t->snapshot_errno))
			die_access(t, path);
		die("cannot read %s: %s", path, strerror(t->snapshot_errno));
	}
	load_models_text(t);
	load_text(t, what);
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

/* --cpu, parsed once: a list of CPU numbers and ranges (0-3,8), or system */
struct cpu_list {
	bool given, system;
	int nr;
	int *lo, *hi;
};

static void parse_cpu_list(const char *list, struct cpu_list *l)
{
	char *dup, *save = NULL;
	size_t n = 1;

	memset(l, 0, sizeof(*l));
	if (!list)
		return;
	l->given = true;
	if (!strcmp(list, "system")) {
		l->system = true;
		return;
	}
	for (const char *p = list; *p; p++) {
		if (!strchr("0123456789,-", *p))
			die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
		n += *p == ',';
	}
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
	dup = strdup(list);
	l->lo = malloc(n * sizeof(*l->lo));
	l->hi = malloc(n * sizeof(*l->hi));
	if (!dup || !l->lo || !l->hi)
		die("out of memory");
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int a, b, k = 0;

		if (sscanf(tok, "%d-%d%n", &a, &b, &k) == 2 && !tok[k] && a <= b)
			;
		else if (sscanf(tok, "%d%n", &a, &k) == 1 && !tok[k])
			b = a;
		else
			die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
		l->lo[l->nr] = a;
		l->hi[l->nr++] = b;
	}
	free(dup);
}

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

static void show_metric(const struct tree *t, const struct view *v, int m, int indent)
{
	const struct model *md = view_model(t, v);
	char val[VALUE_BUF];

	printf("%*s%-*s %10s  %s\n", indent, "", 36 - indent, md->metric[m].name,
	       fmt_metric(val, sizeof(val), t, v, m), md->metric[m].unit);
}

/*
 * With the rotating schedule a group's values may come from an earlier
 * interval than the latest: say which, and how much earlier it ended.
 */
static void show_age(const struct view *v, int g, int indent)
{
	uint64_t ago;

	if (!v->have_ages || !v->have || v->group_seq[g] == v->seq)
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

/* --- export --- */

enum { SCOPE_SYSTEM = 1, SCOPE_CPU = 2, SCOPE_ALL = 3 };

/* what an export holds: --scope, --group, --metric */
struct selection {
	unsigned int scope;
	bool every_metric;		/* no --group/--metric: every metric (JSON, CSV) */
	int nr_groups, nr_metrics;
	const char *group[MAX_GROUPS * 2];
	const char *metric[MAX_METRICS * 2];
};

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

/* --group and --metric name groups and metrics some model has */
static void check_selection(const struct selection *sel, const struct tree *t)
{
	for (int k = 0; k < sel->nr_groups; k++) {
		bool known = false;

		for (int m = 0; m < t->nr_models && !known; m++)
			known = group_by_name(&t->model[m], sel->group[k]) >= 0;
		if (!known)
			die("unknown group \"%s\" (see available_groups)", sel->group[k]);
	}
	for (int k = 0; k < sel->nr_metrics; k++) {
		bool known = false;

		for (int m = 0; m < t->nr_models && !known; m++)
			known = metric_by_name(&t->model[m], sel->metric[k]) >= 0;
		if (!known)
			die("unknown metric \"%s\" (see models/<model>/metrics)", sel->metric[k]);
	}
}

/*
 * Whether metric @m of @md is exported: the named groups' and metrics, or
 * by default the metrics the module collects (its selected groups'), or
 * every metric (JSON and CSV, which say which are selected).
 */
static bool want_metric(const struct selection *sel, const struct model *md, int m)
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
static bool in_scope(const struct selection *sel, const struct view *v)
{
	if (v->model < 0)
		return false;
	return v->cpu < 0 ? sel->scope & SCOPE_SYSTEM : sel->scope & SCOPE_CPU;
}

/* whether every exported view's cumulative counts could be read */
static bool events_readable(const struct tree *t, const struct selection *sel)
{
	for (int i = 0; i < t->nr; i++)
		if (in_scope(sel, &t->v[i]) && !t->v[i].have_events)
			return false;
	return true;
}

/* once per distinct message: textfile --every would repeat it each round */
static void warn_once(const char *fmt, ...)
{
	static char last[512];
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strcmp(msg, last))
		return;
	snprintf(last, sizeof(last), "%s", msg);
	fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

static void warn_events(const struct tree *t, const struct selection *sel)
{
	if (!events_readable(t, sel))
		warn_once("cannot read %s: %s; the cumulative counts (n3telemetry_event_*) are left out: they are root-only",
			  t->events_path[0] ? t->events_path : "the events files",
			  strerror(t->events_errno ? t->events_errno : EACCES));
}

/* the views in export order: system/ first, then the CPUs */
static const struct view *view_at(const struct tree *t, int i)
{
	if (!t->nr || t->v[t->nr - 1].cpu >= 0)
		return &t->v[i];
	return i ? &t->v[i - 1] : &t->v[t->nr - 1];
}

static void prom_labels(FILE *o, const struct tree *t, const struct view *v)
{
	if (v->cpu >= 0)
		fprintf(o, "{cpu=\"%d\",model=\"%s\"} ", v->cpu, t->model[v->model].name);
	else
		fprintf(o, "{model=\"%s\"} ", t->model[v->model].name);
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
 * model; both share a family.  See Documentation/n3telemetry.rst.
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
			prom_labels(o, t, v);
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

				if (e < 0 || !v->listed[e])
					continue;
				fprintf(o, "%s", name);
				prom_labels(o, t, v);
				if (ns)
					put_fixed(o, v->ns[e], 9);
				else
					fprintf(o, "%" PRIu64, v->count[e]);
				fputc('\n', o);
			}
		}
	}
	free(names);
}

/* the samples (lines that are not comments) in Prometheus text */
static long count_series(const char *text)
{
	long n = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != '#' && *p != '\n';
	return n;
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
 * the module collects it (its group is selected)}.
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
	       ", \"lost_slices\": %" PRIu64 ",\n   \"metrics\": {", v->seq, v->end_ns, v->interval_ns,
	       v->lost);
	for (int m = 0; m < md->nr_metrics; m++) {
		if (!want_metric(sel, md, m))
			continue;
		fmt_metric(val, sizeof(val), t, v, m);
		printf("%s\n    \"%s\": {\"value\": %s, \"unit\": \"%s\", \"selected\": %s}",
		       first ? "" : ",", md->metric[m].name, strcmp(val, "nan") ? val : "null",
		       md->metric[m].unit, md->selected[m] ? "true" : "false");
		first = 0;
	}
	printf("}");
	if (v->have_events) {
		first = 1;
		printf(",\n   \"events\": {");
		for (int e = 0; e < md->nr_events; e++) {
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

static void export_json(const struct tree *t, const struct selection *sel)
{
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
	printf("\n}\n");
}

/*
 * CSV, one row per scope, CPU and metric, in the module's units (like
 * JSON): scope,cpu,model,metric,value,unit,selected; cpu is empty for
 * system, value nan when undefined, selected 1 when the module collects it.
 */
static void export_csv(const struct tree *t, const struct selection *sel)
{
	char val[VALUE_BUF];

	printf("scope,cpu,model,metric,value,unit,selected\n");
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
				printf("%s,%s,%s,%s,%d\n", md->name, md->metric[m].name,
				       fmt_metric(val, sizeof(val), t, v, m), md->metric[m].unit,
				       md->selected[m]);
			}
		}
}

/* --- textfile --- */

static void free_tree(struct tree *t)
{
	free(t->v);
	free(t->model);
	t->v = NULL;
	t->model = NULL;
	t->nr = t->nr_models = 0;
}

static unsigned int export_loads(const struct selection *sel)
{
	return LOAD_STATES | (sel->scope & SCOPE_SYSTEM ? LOAD_SYSTEM : 0) |
	       (sel->scope & SCOPE_CPU ? LOAD_CPUS : 0);
}

/*
 * One scrape as Prometheus text in memory, at most @max series; dies with
 * one line otherwise.  @t is the caller's: textfile frees it after an error.
 */
static char *prom_text(struct tree *t, enum source src, const struct selection *sel,
		       long max, size_t *len, bool *too_many)
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

/* the temporary file being written, removed if a signal ends n3tel */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_armed;

static void textfile_signal(int sig)
{
	if (tmp_armed)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* write @text as DIR/n3telemetry.prom, atomically (a temporary file renamed) */
static void write_textfile(const char *dir, const char *text, size_t len)
{
	char dst[4096];
	int fd;

	snprintf(dst, sizeof(dst), "%s/n3telemetry.prom", dir);
	snprintf(tmp_path, sizeof(tmp_path), "%s/.n3telemetry.prom.%d", dir, (int)getpid());
	tmp_armed = 1;
	fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		tmp_armed = 0;
		die("cannot create %s: %s", tmp_path, strerror(errno));
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			unlink(tmp_path);
			tmp_armed = 0;
			die("cannot write %s: %s", tmp_path, strerror(e));
		}
		off += w;
	}
	if (fsync(fd) || close(fd)) {
		int e = errno;

		unlink(tmp_path);
		tmp_armed = 0;
		die("cannot write %s: %s", tmp_path, strerror(e));
	}
	if (rename(tmp_path, dst)) {
		int e = errno;

		unlink(tmp_path);
		tmp_armed = 0;
		die("cannot rename %s to %s: %s", tmp_path, dst, strerror(e));
	}
	tmp_armed = 0;
}

static const char up0[] =
	"# HELP n3telemetry_up Whether n3tel could read the module's data (1) or not (0: see its standard error).\n"
	"# TYPE n3telemetry_up gauge\n"
	"n3telemetry_up 0\n";

/*
 * textfile: the scrape, or when it cannot be made (module not loaded,
 * unreadable, too many series) a file with only n3telemetry_up 0, so
 * nothing stale stays behind; the error goes to stderr.  A one-shot run
 * then exits 1; with --every a read error is retried the next round, too
 * many series ends n3tel (exit 1).
 */
static int textfile(const char *root, enum source src, const char *dir,
		    const struct selection *sel, long max, unsigned int every)
{
	static struct tree t;	/* static: still valid after a longjmp from die() */
	static char last[sizeof(die_msg)];
	struct sigaction sa = { .sa_handler = textfile_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (;;) {
		static jmp_buf jb;
		static bool too_many;
		static char *text;
		static size_t len;

		text = NULL;
		too_many = false;
		memset(&t, 0, sizeof(t));
		t.root = root;
		die_jmp = &jb;
		if (!setjmp(jb)) {
			text = prom_text(&t, src, sel, max, &len, &too_many);
			last[0] = 0;
		}
		die_jmp = NULL;
		free_tree(&t);
		if (!text) {
			if (!every || strcmp(last, die_msg))
				fprintf(stderr, "%s: %s\n", prog, die_msg);
			snprintf(last, sizeof(last), "%s", die_msg);
			write_textfile(dir, up0, sizeof(up0) - 1);
			if (!every || too_many)
				return 1;
		} else {
			write_textfile(dir, text, len);
			free(text);
		}
		if (!every)
			return 0;
		sleep(every);
	}
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

/* the topdown level 1 bar: exactly @width + 2 columns */
static void bar(const struct tree *t, const struct view *v, bool color, int width)
{
	static const char ch[4] = { 'R', 'S', 'F', 'B' };
	static const char *bg[4] = { "\033[42m", "\033[45m", "\033[44m", "\033[41m" };
	const struct model *md = view_model(t, v);
	int used = 0;

	putchar('[');
	if (!md || vmetric(t, v, "retiring") < 0) {
		/* no topdown level 1 on this core (Neoverse N1) */
		char msg[96];

		snprintf(msg, sizeof(msg), " no topdown level 1%s%s", md ? " on " : "",
			 md ? md->name : "");
		used = printf("%.*s", width, msg);
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

/* the value columns, dropped from the right when the terminal is narrow */
static const struct { const char *title, *metric; int width; } top_cols[] = {
	{ "retire", "retiring", 7 }, { "badspec", "bad_speculation", 7 },
	{ "front", "frontend_bound", 7 }, { "back", "backend_bound", 7 }, { "IPC", "ipc", 6 },
	{ "L1D-MPKI", "l1d_cache_mpki", 8 }, { "L2-MPKI", "l2_cache_mpki", 8 },
	{ "LLC-MPKI", "ll_cache_read_mpki", 8 },
};
#define NR_TOP_COLS ((int)(sizeof(top_cols) / sizeof(*top_cols)))

static volatile sig_atomic_t top_winch;
static bool top_tty;

static void top_resized(int sig)
{
	(void)sig;
	top_winch = 1;
}

/* SIGINT, SIGTERM: leave the terminal as it was, exit 0 */
static void top_quit(int sig)
{
	static const char restore[] = "\033[0m\033[?25h\n";

	(void)sig;
	if (top_tty && write(STDOUT_FILENO, restore, sizeof(restore) - 1) < 0)
		_exit(0);
	_exit(0);
}

/* an error ends top: the cursor comes back */
static void top_show_cursor(void)
{
	fputs("\033[0m\033[?25h", stdout);
	fflush(stdout);
}

/* the terminal's size; 0 (no limit) when stdout is not a terminal */
static void term_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = *rows = 0;
	if (top_tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/*
 * The age column: how long before the row's latest interval the oldest of
 * its shown values was counted ("-": one not counted yet, or no ages).
 */
static void top_age(const struct tree *t, const struct view *v, int ncol)
{
	const struct model *md = view_model(t, v);
	uint64_t oldest = 0;
	char buf[32];

	for (int c = 0; md && v->have && v->have_ages && c < ncol; c++) {
		int m = vmetric(t, v, top_cols[c].metric);

		for (int g = 0; m >= 0 && g < md->nr_groups; g++) {
			bool in = false;

			for (int i = 0; i < md->group[g].nr; i++)
				in |= md->group[g].metrics[i] == m;
			if (!in || !(md->groups & (1u << g)))
				continue;
			if (!v->group_seq[g]) {
				printf(" %6s", "-");
				return;
			}
			if (v->end_ns > v->group_end_ns[g] && v->end_ns - v->group_end_ns[g] > oldest)
				oldest = v->end_ns - v->group_end_ns[g];
		}
	}
	if (!md || !v->have || !v->have_ages) {
		printf(" %6s", "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%01" PRIu64 "s", oldest / 1000000000,
		 oldest / 100000000 % 10);
	printf(" %6s", buf);
}

static void top_row(const struct tree *t, const struct view *v, bool color, int nw, int bw,
		    int ncol, bool ages)
{
	char val[VALUE_BUF], name[32];

	if (v->cpu < 0)
		snprintf(name, sizeof(name), "system");
	else
		snprintf(name, sizeof(name), "cpu%d", v->cpu);
	printf("%-*s", nw, name);
	if (bw > 0) {
		putchar(' ');
		bar(t, v, color, bw);
	}
	for (int c = 0; c < ncol; c++)
		printf(" %*s", top_cols[c].width,
		       fmt_metric(val, sizeof(val), t, v, vmetric(t, v, top_cols[c].metric)));
	if (ages)
		top_age(t, v, ncol);
	putchar('\n');
}

/*
 * One screen: a title, the column heads, the system row and as many CPU
 * rows as fit, every line at most as wide as the terminal (the bar
 * shrinks to 10, then columns go from the right).
 */
static void top_once(const char *root, enum source src, bool color)
{
	static const struct { const char *key, *metric; } keys[] = {
		{ "retiring", "retiring" }, { "frontend", "frontend_bound" },
		{ "backend", "backend_bound" }, { "bad", "bad_speculation" }, { "ipc", "ipc" },
	};
	static const char *const legend[4][2] = {
		{ "\033[42m", "R retiring" }, { "\033[45m", "S bad speculation" },
		{ "\033[44m", "F frontend" }, { "\033[41m", "B backend" },
	};
	struct tree t = { .root = root };
	const struct view *sys = NULL;
	struct row *rows;
	int n = 0, cols, lines, nw = 6, bw = 40, ncol = NR_TOP_COLS, budget, width;
	bool ages = false;
	char title[512];

	term_size(&cols, &lines);
	load(&t, src, LOAD_CPUS | LOAD_SYSTEM);
	rows = calloc(t.nr + 1, sizeof(*rows));
	if (!rows)
		die("out of memory");
	/* a module with a rotating schedule tells how old values are: a column */
	for (int i = 0; i < t.nr; i++)
		ages |= t.v[i].have_ages;
	for (int i = 0; i < t.nr; i++) {
		char name[32];

		if (t.v[i].cpu < 0) {
			sys = &t.v[i];
			continue;
		}
		rows[n].v = &t.v[i];
		rows[n].key = -t.v[i].cpu;
		for (unsigned int k = 0; k < sizeof(keys) / sizeof(*keys); k++)
			if (!strcmp(sort_key, keys[k].key))
				rows[n].key = fixed(&t, &t.v[i], keys[k].metric);
		snprintf(name, sizeof(name), "cpu%d", t.v[i].cpu);
		if ((int)strlen(name) > nw)
			nw = strlen(name);
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_row);

	/* layout: name, space, [bar], then " value" columns */
	for (;;) {
		int used = nw + 3 + (ages ? 7 : 0);

		for (int c = 0; c < ncol; c++)
			used += top_cols[c].width + 1;
		if (!cols || used + 10 <= cols) {
			if (cols && cols - used < bw)
				bw = cols - used;
			break;
		}
		if (!ncol) {
			bw = cols - used;	/* a very narrow terminal: little or no bar */
			if (bw < 1)
				bw = 0;
			break;
		}
		ncol--;
	}
	width = nw + (bw ? bw + 3 : 0) + (ages ? 7 : 0);
	for (int c = 0; c < ncol; c++)
		width += top_cols[c].width + 1;
	budget = lines ? lines - 1 : -1;	/* the last line stays empty: no scrolling */

	if (color)
		fputs("\033[H\033[2J", stdout);
	if (budget) {
		int len = snprintf(title, sizeof(title), "n3tel top - %s, interval %u ms, sorted by %s",
				   root, t.interval_ms, sort_key);

		if (len > (int)sizeof(title) - 1)
			len = sizeof(title) - 1;
		if (cols && len > cols)
			len = cols;
		printf("%.*s", len, title);
		for (int i = 0; i < 4; i++) {
			int w = strlen(legend[i][1]) + (color ? 4 : 2);

			if (cols && len + w > cols)
				break;
			if (color)
				printf("  %s %c \033[0m%s", legend[i][0], legend[i][1][0],
				       legend[i][1] + 1);
			else
				printf("  %s", legend[i][1]);
			len += w;
		}
		putchar('\n');
		budget--;
	}
	if (budget) {
		printf("%-*s", nw, "CPU");
		if (bw)
			printf(" %-*.*s", bw + 2, bw + 2, "topdown level 1");
		for (int c = 0; c < ncol; c++)
			printf(" %*s", top_cols[c].width, top_cols[c].title);
		if (ages)
			printf(" %6s", "age");
		putchar('\n');
		budget--;
	}
	if (sys && budget) {
		top_row(&t, sys, color, nw, bw, ncol, ages);
		budget--;
	}
	for (int i = 0; i < n && budget; i++, budget--) {
		if (budget == 1 && i < n - 1) {
			char more[96];

			snprintf(more, sizeof(more), "(%d more CPUs: a taller terminal shows them)",
				 n - i);
			printf("%.*s\n", cols ? cols : (int)sizeof(more), more);
			break;
		}
		top_row(&t, rows[i].v, color, nw, bw, ncol, ages);
	}
	fflush(stdout);
	free(rows);
	free_tree(&t);
}

/* sleep @secs; a terminal resize redraws at once */
static void top_sleep(double secs, const char *root, enum source src, bool color)
{
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	for (;;) {
		struct timespec left;

		if (top_winch) {
			top_winch = 0;
			top_once(root, src, color);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		if (left.tv_sec < 0)
			return;
		if (!nanosleep(&left, NULL))
			return;
	}
}

/* --- command line --- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: n3tel [--sysfs PATH] [--text|--snapshot] COMMAND [options]\n"
		"  show [--cpu LIST|system] [--group G]...      metrics as a table (topdown as a tree)\n"
		"  top [--sort cpu|retiring|frontend|backend|bad|ipc] [--iterations N] [--delay S]\n"
		"  export --format prometheus|json|csv [SELECTION]   one scrape\n"
		"  textfile --dir DIR [--every SECONDS] [SELECTION]   n3telemetry.prom for node_exporter\n"
		"SELECTION: [--scope system|cpu|all] [--group G]... [--metric M]... [--max-series N]\n"
		"  (default: system/, the metrics of the module's groups, at most %d series)\n"
		"PATH defaults to " DEFAULT_SYSFS "; n3tel --version prints the version.\n",
		MAX_SERIES);
}

/* a whole number in [min, max], else one line and exit */
static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		die("%s wants a whole number from %ld to %ld, not \"%s\"", opt, min, max, s);
	return v;
}

/* the options each command takes (bits: 1 << option letter index) */
enum {
	O_CPU = 1 << 0, O_GROUP = 1 << 1, O_FORMAT = 1 << 2, O_DIR = 1 << 3, O_EVERY = 1 << 4,
	O_SORT = 1 << 5, O_ITER = 1 << 6, O_DELAY = 1 << 7, O_SCOPE = 1 << 8,
	O_METRIC = 1 << 9, O_MAX = 1 << 10,
};

static const struct { int bit; const char *name; } opt_names[] = {
	{ O_CPU, "--cpu" }, { O_GROUP, "--group" }, { O_FORMAT, "--format" },
	{ O_DIR, "--dir" }, { O_EVERY, "--every" }, { O_SORT, "--sort" },
	{ O_ITER, "--iterations" }, { O_DELAY, "--delay" }, { O_SCOPE, "--scope" },
	{ O_METRIC, "--metric" }, { O_MAX, "--max-series" },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "text", no_argument, NULL, 't' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "group", required_argument, NULL, 'g' },
		{ "metric", required_argument, NULL, 'm' },
		{ "scope", required_argument, NULL, 'p' },
		{ "max-series", required_argument, NULL, 'x' },
		{ "format", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ "every", required_argument, NULL, 'e' },
		{ "sort", required_argument, NULL, 'o' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static struct selection sel = { .scope = SCOPE_SYSTEM };
	const char *root = DEFAULT_SYSFS, *cpus = NULL, *format = NULL, *dir = NULL, *cmd;
	enum source src = SRC_AUTO;
	int iterations = 0, c, given = 0, allowed;
	long every = 0, max_series = MAX_SERIES;
	double delay = 0;
	struct tree t = { 0 };

	/* one pass: options may stand before or after the command */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': root = optarg; break;
		case 't': src = SRC_TEXT; break;
		case 'S': src = SRC_SNAPSHOT; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("n3tel %s (snapshot ABI %d)\n", N3TEL_VERSION, N3T_SNAP_ABI_VERSION);
			return 0;
		case 'c': cpus = optarg; given |= O_CPU; break;
		case 'g':
			if (sel.nr_groups == MAX_GROUPS * 2)
				die("too many --group options");
			sel.group[sel.nr_groups++] = optarg;
			given |= O_GROUP;
			break;
		case 'm':
			if (sel.nr_metrics == MAX_METRICS * 2)
				die("too many --metric options");
			sel.metric[sel.nr_metrics++] = optarg;
			given |= O_METRIC;
			break;
		case 'p':
			if (!strcmp(optarg, "system"))
				sel.scope = SCOPE_SYSTEM;
			else if (!strcmp(optarg, "cpu"))
				sel.scope = SCOPE_CPU;
			else if (!strcmp(optarg, "all"))
				sel.scope = SCOPE_ALL;
			else
				die("--scope wants system, cpu or all, not \"%s\"", optarg);
			given |= O_SCOPE;
			break;
		case 'x':
			max_series = parse_long("--max-series", optarg, 1, 100000000);
			given |= O_MAX;
			break;
		case 'f': format = optarg; given |= O_FORMAT; break;
		case 'd': dir = optarg; given |= O_DIR; break;
		case 'e': every = parse_long("--every", optarg, 1, 86400); given |= O_EVERY; break;
		case 'o': sort_key = optarg; given |= O_SORT; break;
		case 'n':
			iterations = parse_long("--iterations", optarg, 1, INT32_MAX);
			given |= O_ITER;
			break;
		case 'D': {
			char *end;

			errno = 0;
			delay = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(delay >= 0.1 && delay <= 3600))
				die("--delay wants seconds from 0.1 to 3600, not \"%s\"", optarg);
			given |= O_DELAY;
			break;
		}
		case ':':
			die("%s needs an argument", argv[optind - 1]);
		default:
			die("unknown option \"%s\" (see n3tel --help)", argv[optind - 1]);
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

	if (!strcmp(cmd, "show"))
		allowed = O_CPU | O_GROUP;
	else if (!strcmp(cmd, "top"))
		allowed = O_SORT | O_ITER | O_DELAY;
	else if (!strcmp(cmd, "export"))
		allowed = O_FORMAT | O_SCOPE | O_GROUP | O_METRIC | O_MAX;
	else if (!strcmp(cmd, "textfile"))
		allowed = O_DIR | O_EVERY | O_SCOPE | O_GROUP | O_METRIC | O_MAX;
	else {
		fprintf(stderr, "%s: unknown command \"%s\"\n", prog, cmd);
		usage(stderr);
		return 2;
	}
	for (unsigned int k = 0; k < sizeof(opt_names) / sizeof(*opt_names); k++)
		if (given & ~allowed & opt_names[k].bit)
			die("%s does not apply to %s (see n3tel --help)", opt_names[k].name, cmd);

	if (!strcmp(cmd, "show")) {
		uint32_t groups[MAX_MODELS] = { 0 };
		struct cpu_list cl;

		parse_cpu_list(cpus, &cl);
		load(&t, src, cl.system ? LOAD_SYSTEM : LOAD_CPUS);
		check_cpus_exist(&cl, &t);
		/* --group names a group of any model; each CPU shows those its model has */
		for (int k = 0; k < sel.nr_groups; k++) {
			bool known = false;

			for (int m = 0; m < t.nr_models; m++) {
				int g = group_by_name(&t.model[m], sel.group[k]);

				if (g >= 0) {
					groups[m] |= 1u << g;
					known = true;
				}
			}
			if (!known)
				die("unknown group \"%s\" (see available_groups)", sel.group[k]);
		}
		for (int m = 0; m < t.nr_models && !sel.nr_groups; m++)
			groups[m] = t.model[m].groups;
		for (int i = 0, shown = 0; i < t.nr; i++) {
			if (!want_cpu(&cl, t.v[i].cpu))
				continue;
			if (shown++)
				putchar('\n');
			show_view(&t, &t.v[i], t.v[i].model >= 0 ? groups[t.v[i].model] : 0);
		}
		free(cl.lo);
		free(cl.hi);
	} else if (!strcmp(cmd, "export")) {
		if (!format || (strcmp(format, "prometheus") && strcmp(format, "json") &&
				strcmp(format, "csv")))
			die("export needs --format prometheus, --format json or --format csv");
		if ((given & O_MAX) && strcmp(format, "prometheus"))
			die("--max-series applies to --format prometheus only");
		if (!strcmp(format, "prometheus")) {
			bool too_many = false;
			size_t len;
			char *text = prom_text(&t, src, &sel, max_series, &len, &too_many);

			fwrite(text, 1, len, stdout);
			free(text);
		} else {
			sel.every_metric = true;
			load(&t, src, export_loads(&sel));
			check_selection(&sel, &t);
			warn_events(&t, &sel);
			if (!strcmp(format, "json"))
				export_json(&t, &sel);
			else
				export_csv(&t, &sel);
		}
	} else if (!strcmp(cmd, "textfile")) {
		if (!dir)
			die("textfile needs --dir DIR (node_exporter's --collector.textfile.directory)");
		return textfile(root, src, dir, &sel, max_series, every);
	} else {
		struct sigaction quit = { .sa_handler = top_quit }, winch = { .sa_handler = top_resized };
		bool color;

		if (strcmp(sort_key, "cpu") && strcmp(sort_key, "retiring") &&
		    strcmp(sort_key, "frontend") && strcmp(sort_key, "backend") &&
		    strcmp(sort_key, "bad") && strcmp(sort_key, "ipc"))
			die("unknown --sort \"%s\" (cpu, retiring, frontend, backend, bad or ipc)",
			    sort_key);
		top_tty = isatty(STDOUT_FILENO);
		color = top_tty && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
		sigemptyset(&quit.sa_mask);
		sigemptyset(&winch.sa_mask);
		sigaction(SIGINT, &quit, NULL);
		sigaction(SIGTERM, &quit, NULL);
		sigaction(SIGWINCH, &winch, NULL);	/* no SA_RESTART: wakes the sleep */
		if (color) {
			fputs("\033[?25l", stdout);	/* no cursor; top_quit() restores it */
			atexit(top_show_cursor);
		}
		for (int i = 0; !iterations || i < iterations; i++) {
			unsigned int interval_ms = 1000;

			top_once(root, src, color);
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
			top_sleep(delay ? delay : (interval_ms < 1000 ? 1000 : interval_ms) / 1000.0,
				  root, src, color);
		}
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	free_tree(&t);
	return 0;
}
