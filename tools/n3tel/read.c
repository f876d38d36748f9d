// SPDX-License-Identifier: GPL-2.0
/*
 * load(), the model's one reader (model.h): the module's data
 * into a struct tree, from the snapshot when it can be read (snapshot.c),
 * else from the text files (the tables by sysfs.c; here the cpuN/ and
 * system/ directories: metrics, status, ages, events).  The snapshot has no
 * CPU states nor system/: those are always read here, as text.
 *
 * Calls snapshot.c, sysfs.c, model.c and util.h; never a view or a format.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"
#include "util.h"

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

		s = slurp_sysfs(path);
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

/*
 * A status line "hidden_events none" or "hidden_events E1,E2" into
 * v->hidden; false for any other line.
 */
static bool parse_hidden(const struct tree *t, const char *dir, const char *line,
			 struct view *v)
{
	const char *h;
	size_t n;

	if (strncmp(line, "hidden_events ", 14))
		return false;
	h = line + 14;
	n = strlen(h);
	/* none, or names of [A-Z0-9_] joined by single commas */
	if (strcmp(h, "none") &&
	    (!n || n >= sizeof(v->hidden) || *h == ',' || h[n - 1] == ',' || strstr(h, ",,") ||
	     strspn(h, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,") != n))
		die("malformed line in %s/%s/status: \"%s\"", t->root, dir, line);
	snprintf(v->hidden, sizeof(v->hidden), "%s", strcmp(h, "none") ? h : "");
	return true;
}

/*
 * The state and hidden_events lines of a cpuN/status; false if the
 * directory vanished.
 */
static bool load_state(const struct tree *t, struct view *v, const char *dir)
{
	char *s = dir_slurp(t, dir, "status"), *p = s, *line;

	if (!s)
		return false;
	while ((line = next_line(&p)))
		if (sscanf(line, "state %63s", v->state) != 1)
			parse_hidden(t, dir, line, v);
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
			char name[64], val[64], mark[64], extra;
			int m, n;

			/*
			 * "<metric> <value>", or "<metric> <value> composed":
			 * a value from rates counted apart, not exact
			 */
			n = sscanf(line, "%63s %63s %63s %c", name, val, mark, &extra);
			if ((n != 2 && (n != 3 || strcmp(mark, "composed"))) ||
			    (m = metric_by_name(md, name)) < 0 ||
			    !parse_value(val, &v->value[m], &v->valid[m]))
				die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
			v->composed[m] = n == 3;
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

		/*
		 * "name number", "state word" (whether the CPU collects) or
		 * "hidden_events none" / "hidden_events E1,E2"
		 */
		if (parse_hidden(t, dir, line, v))
			continue;
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
	/*
	 * system/'s seq never goes down, so it stays when no CPU collects
	 * (paused): there is no interval then, and its end_ns is 0
	 */
	v->have = v->seq > 0 && v->end_ns > 0;
	if (!full || !md)
		return true;

	/*
	 * how old each group's values are.  An older module has no ages
	 * file, in system/ either (which is there as long as the module is):
	 * then no wait for a cpuN's, which is for a CPU coming online or
	 * going offline (its files made and removed one by one) and costs
	 * 100 ms per CPU and read
	 */
	snprintf(rel, sizeof(rel), "%s/%s/ages", t->root, dir);
	gone = false;
	s = slurp_sysfs(rel);
	if (!s) {
		int err = errno;
		struct stat st;
		char sys[4096];

		snprintf(sys, sizeof(sys), "%s/system/ages", t->root);
		if (err == ENOENT && stat(sys, &st) && errno == ENOENT)
			errno = ENOENT;
		else
			s = dir_read(t, dir, "ages", &gone);
	}
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
		char name[64], c[U128_BUF], ns[U128_BUF], extra;
		int e;

		/* system/'s sums are 128-bit, and may pass 2^64 */
		if (sscanf(line, "%63s %39s %39s %c", name, c, ns, &extra) != 3 ||
		    (e = event_by_name(md, name)) < 0 || !parse_u128(c, &v->count[e]) ||
		    !parse_u128(ns, &v->ns[e]))
			die("malformed line in %s: \"%s\"", rel, line);
		v->listed[e] = true;
	}
	free(s);
	return true;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

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

void load(struct tree *t, enum source src, unsigned int what)
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
