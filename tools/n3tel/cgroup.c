// SPDX-License-Identifier: GPL-2.0
/*
 * The containers: cgroup v2 leaves with CPUs of their own.  A cgroup that
 * has processes (cgroup.procs not empty; the root's kernel threads run
 * everywhere and are left out) runs on its effective cpuset
 * (cpuset.cpus.effective, or its nearest ancestor's).  A container is one
 * whose CPUs no other such cgroup has: what those CPUs counted is its
 * work and nobody else's (but for the kernel's threads and interrupts),
 * so its metrics are exactly the sum of its CPUs, which the module
 * computes as it does system/ (load_sum()).  The other CPUs form one
 * pool, "shared".  Past --max-cgroups the smallest containers are summed
 * together as "other".  Each container is known by its cgroup id (its
 * directory's inode number), so one removed and another created under the
 * same name are two; its labels are parsed from its path: a Kubernetes pod
 * UID (kubepods...pod<uid>), a container ID (cri-containerd-, crio-,
 * docker-, libpod-<id>.scope, or a bare 64-digit ID), else a systemd unit.
 *
 * Calls the model (model.h: load_sum()) and util.h; show.c and
 * prometheus.c call it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "util.h"

#define MAX_DEPTH	32

/* the last error said (warn_cgroups()); "" after a reading that worked */
static char said[sizeof(((struct cgroups *)0)->error)];

void warn_cgroups(const struct cgroups *c)
{
	if (!strcmp(said, c->error))
		return;
	snprintf(said, sizeof(said), "%s", c->error);
	fprintf(stderr, "%s: --by-cgroup: %s\n", prog, c->error);
}

/* the first error of a reading, in @out->error; what went on is dropped */
static void __attribute__((format(printf, 2, 3))) fail(struct cgroups *out, const char *fmt, ...)
{
	va_list ap;

	if (out->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
}

static void set_cpu(uint64_t *m, int c)
{
	m[c / 64] |= 1ULL << (c % 64);
}

static bool has_cpu(const uint64_t *m, int c)
{
	return m[c / 64] >> (c % 64) & 1;
}

/* a cpuset list ("0-3,8", "" for none) into @m; false if it is not one */
static bool parse_cpuset(const char *s, uint64_t *m)
{
	memset(m, 0, CPU_WORDS * sizeof(*m));
	while (*s && *s != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*s))
			return false;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return false;
			b = strtol(end + 1, &end, 10);
		}
		if (a > b || b >= MAX_CPUS)
			return false;
		for (long c = a; c <= b; c++)
			set_cpu(m, c);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return true;
}

/* @m as a list, "0-3,8" */
static void fmt_cpus(const uint64_t *m, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (int c = 0; c < MAX_CPUS; c++) {
		int e = c;

		if (!has_cpu(m, c))
			continue;
		while (e + 1 < MAX_CPUS && has_cpu(m, e + 1))
			e++;
		len += snprintf(buf + len, len < n ? n - len : 0, "%s%d", len ? "," : "", c);
		if (e > c)
			len += snprintf(buf + len, len < n ? n - len : 0, "-%d", e);
		c = e;
	}
	if (len >= n)
		die("a CPU list longer than %zu characters", n - 1);
}

static int count_cpus(const uint64_t *m)
{
	int n = 0;

	for (int w = 0; w < CPU_WORDS; w++)
		n += __builtin_popcountll(m[w]);
	return n;
}

/* where cgroup2 is mounted (/proc/self/mountinfo), into @buf; false if nowhere */
static bool cgroup2_mount(char *buf, size_t n, struct cgroups *out)
{
	char *text = slurp("/proc/self/mountinfo", NULL), *p = text, *line;

	if (!text) {
		fail(out, "cannot read /proc/self/mountinfo: %s", strerror(errno));
		return false;
	}
	while ((line = next_line(&p))) {
		char *sep = strstr(line, " - "), *f[5], *save = NULL;
		int k = 0;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		*sep = 0;
		for (char *tok = strtok_r(line, " ", &save); tok && k < 5;
		     tok = strtok_r(NULL, " ", &save))
			f[k++] = tok;
		if (k < 5)
			continue;
		/* the mount point, its octal escapes (\040: a space) decoded */
		size_t o = 0;

		for (const char *q = f[4]; *q && o + 1 < n; q++) {
			if (q[0] == '\\' && q[1] >= '0' && q[1] <= '3' && q[2] >= '0' &&
			    q[2] <= '7' && q[3] >= '0' && q[3] <= '7') {
				buf[o++] = (q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0');
				q += 3;
			} else {
				buf[o++] = *q;
			}
		}
		buf[o] = 0;
		free(text);
		return true;
	}
	free(text);
	fail(out, "no cgroup v2 hierarchy is mounted (see /proc/self/mountinfo): --by-cgroup reads cgroup v2 only");
	return false;
}

/*
 * A cgroup with processes, and the CPUs it may run on; user_only: one that shares its CPUs with the
 * others but is no container (a path longer than a label holds, or the
 * cgroups below the depth walked, which may have processes)
 */
struct found {
	uint64_t id;
	char path[512];
	uint64_t cpus[CPU_WORDS];
	bool user_only;
};

struct walk {
	const char *root;
	struct found *f;
	int nr, cap;
	struct cgroups *out;		/* its error ends the walk */
};

/* whether the cgroup at @dir has processes of its own; a gone one has none */
static bool has_procs(const char *dir)
{
	char path[4300];
	char c;
	FILE *f;
	bool any;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	any = fread(&c, 1, 1, f) == 1;
	fclose(f);
	return any;
}

/* one more cgroup found: @path (NULL: a user only), @id, its @cpus */
static void found(struct walk *w, const char *path, uint64_t id, const uint64_t *cpus)
{
	struct found *f;

	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->f = realloc(w->f, w->cap * sizeof(*w->f));
		if (!w->f)
			die("out of memory");
	}
	f = &w->f[w->nr++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->user_only = !path;
	snprintf(f->path, sizeof(f->path), "%s", path ? path : "");
	memcpy(f->cpus, cpus, sizeof(f->cpus));
}

/* whether @d, an entry of @dp, is a directory (a cgroup) */
static bool is_dir(DIR *dp, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return !fstatat(dirfd(dp), d->d_name, &st, 0) && S_ISDIR(st.st_mode);
}

/* whether @dir has a directory in it (a cgroup below it) */
static bool has_subdir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *d;
	bool any = false;

	while (dp && !any && (d = readdir(dp)))
		any = d->d_name[0] != '.' && is_dir(dp, d);
	if (dp)
		closedir(dp);
	return any;
}

/*
 * The cgroups below @rel (relative to w->root, "" for the root).  A
 * cgroup it cannot name in a label (too long a path), or whose cgroups
 * below lie past MAX_DEPTH, still counts as using its CPUs: it or they
 * may have processes there, so no other cgroup has those CPUs alone.
 */
static void walk(struct walk *w, const char *rel, const uint64_t *parent, int depth)
{
	char dir[4096];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s%s", w->root, rel);
	dp = opendir(dir);
	if (!dp) {
		if (errno != ENOENT)	/* else removed meanwhile */
			fail(w->out, "cannot read %s: %s", dir, strerror(errno));
		return;
	}
	while (!w->out->error[0] && (d = readdir(dp))) {
		char child[4096], file[4200], *eff;
		uint64_t cpus[CPU_WORDS];
		struct stat st;

		bool named;

		if (d->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", rel, d->d_name) >=
		    sizeof(child) - 64) {
			/* not even a file name: a cgroup there may use @parent */
			if (is_dir(dp, d))
				found(w, NULL, 0, parent);
			continue;
		}
		/* longer than a label holds: a user, no container */
		named = strlen(child) < sizeof(w->f->path);
		snprintf(file, sizeof(file), "%s%s", w->root, child);
		if (stat(file, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(file, sizeof(file), "%s%s/cpuset.cpus.effective", w->root, child);
		eff = slurp(file, NULL);
		if (!eff || !parse_cpuset(eff, cpus))
			memcpy(cpus, parent, sizeof(cpus));
		free(eff);
		snprintf(file, sizeof(file), "%s%s", w->root, child);
		if (has_procs(file))
			found(w, named ? child : NULL, st.st_ino, cpus);
		if (depth + 1 < MAX_DEPTH)
			walk(w, child, cpus, depth + 1);
		else if (has_subdir(file))
			found(w, NULL, 0, cpus);	/* cgroups below, not walked */
	}
	closedir(dp);
}

/* "pod" and 36 characters of a UID (systemd writes its dashes as _) */
static void parse_pod(const char *path, char *pod, size_t n)
{
	for (const char *p = strstr(path, "pod"); p; p = strstr(p + 1, "pod")) {
		size_t k = 0;

		while (k < 36 && (isxdigit((unsigned char)p[3 + k]) || p[3 + k] == '-' ||
				  p[3 + k] == '_'))
			k++;
		if (k != 36 || (p[39] && p[39] != '.' && p[39] != '/'))
			continue;
		snprintf(pod, n, "%.36s", p + 3);
		for (char *c = pod; *c; c++)
			if (*c == '_')
				*c = '-';
		return;
	}
}

static bool all_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return len > 0;
}

/* the labels of a container from its path */
static void parse_labels(struct cgroup *c)
{
	static const char *const runtimes[] = { "cri-containerd-", "crio-", "docker-", "libpod-" };
	const char *last = strrchr(c->path, '/');
	size_t len;

	parse_pod(c->path, c->pod, sizeof(c->pod));
	last = last ? last + 1 : c->path;
	len = strlen(last);
	for (unsigned int k = 0; k < sizeof(runtimes) / sizeof(*runtimes); k++) {
		size_t pre = strlen(runtimes[k]);

		if (len > pre + 6 && !strncmp(last, runtimes[k], pre) &&
		    !strcmp(last + len - 6, ".scope") && all_hex(last + pre, len - pre - 6) &&
		    len - pre - 6 < sizeof(c->container)) {
			snprintf(c->container, sizeof(c->container), "%.*s", (int)(len - pre - 6),
				 last + pre);
			return;
		}
	}
	if (len == 64 && all_hex(last, len)) {
		snprintf(c->container, sizeof(c->container), "%s", last);
		return;
	}
	if (((len > 8 && !strcmp(last + len - 8, ".service")) ||
	     (len > 6 && !strcmp(last + len - 6, ".scope"))) && len < sizeof(c->unit))
		memcpy(c->unit, last, len + 1);
}

/* biggest first, then by path */
static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int nx = count_cpus(x->cpus), ny = count_cpus(y->cpus);

	if (nx != ny)
		return ny - nx;
	return strcmp(x->path, y->path);
}

/* printf at the end of the string in @buf of @size bytes, cut to fit */
static void __attribute__((format(printf, 3, 4))) append(char *buf, size_t size,
							 const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* a container or pool of CPUs @cpus, with its sum */
static void add(struct tree *t, struct cgroups *out, const char *path, uint64_t id,
		const uint64_t *cpus)
{
	struct cgroup *c = &out->cg[out->nr++];
	int model = -1, summed;
	char err[DIE_MSG_LEN];

	memset(c, 0, sizeof(*c));
	c->id = id;
	snprintf(c->path, sizeof(c->path), "%s", path);
	memcpy(c->cpus, cpus, sizeof(c->cpus));
	c->nr_cpus = count_cpus(cpus);
	fmt_cpus(cpus, c->cpu_list, sizeof(c->cpu_list));
	if (id)
		parse_labels(c);
	append(c->title, sizeof(c->title), "%s%s  cpus %s", id ? "cgroup " : "", path,
	       c->cpu_list);
	if (c->pod[0])
		append(c->title, sizeof(c->title), "  pod %s", c->pod);
	if (c->container[0])
		append(c->title, sizeof(c->title), "  container %.12s", c->container);
	if (c->unit[0])
		append(c->title, sizeof(c->title), "  unit %s", c->unit);
	c->v.label = c->title;
	c->v.cpu = -1;
	c->v.model = -1;
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = &t->v[i];

		if (v->cpu < 0 || v->cpu >= MAX_CPUS || !has_cpu(cpus, v->cpu) || v->model < 0)
			continue;
		if (model >= 0 && v->model != model) {
			c->why = "its CPUs are of several core types: no sum";
			return;
		}
		model = v->model;
	}
	if (model < 0) {
		c->why = "no telemetry tables for its CPUs";
		return;
	}
	if (!load_sum(t, cpus, c->cpu_list, &c->v, &summed, err, sizeof(err))) {
		fail(out, "%s", err);
		return;
	}
	c->nr_counted = summed;
	if (summed < c->nr_cpus)
		append(c->title, sizeof(c->title), "  (%d of its CPUs counted)", summed);
}

bool find_cgroups(struct tree *t, const char *cgroot, long max, struct cgroups *out)
{
	uint64_t online[CPU_WORDS] = { 0 }, mine[CPU_WORDS] = { 0 }, rest[CPU_WORDS] = { 0 };
	uint64_t all[CPU_WORDS];
	static char mount[4096];
	struct walk w = { 0 };
	unsigned short *users;
	char file[4200], *eff;
	int nr_excl = 0, nr_rest = 0;

	memset(out, 0, sizeof(*out));
	if (!cgroot) {
		if (!cgroup2_mount(mount, sizeof(mount), out))
			return false;
		cgroot = mount;
	}
	out->root = cgroot;
	for (int i = 0; i < t->nr; i++)
		if (t->v[i].cpu >= 0 && t->v[i].cpu < MAX_CPUS)
			set_cpu(online, t->v[i].cpu);
	snprintf(file, sizeof(file), "%s/cgroup.controllers", cgroot);
	eff = slurp(file, NULL);
	if (!eff) {
		fail(out, "%s is not a cgroup v2 hierarchy (no cgroup.controllers: %s)", cgroot,
		     strerror(errno));
		return false;
	}
	free(eff);
	/* no cpuset controller: every cgroup may run everywhere */
	snprintf(file, sizeof(file), "%s/cpuset.cpus.effective", cgroot);
	eff = slurp(file, NULL);
	if (!eff || !parse_cpuset(eff, all))
		memcpy(all, online, sizeof(all));
	free(eff);
	w.root = cgroot;
	w.out = out;
	walk(&w, "", all, 0);
	if (out->error[0]) {
		free(w.f);
		return false;
	}

	/* how many cgroups with processes may run on each CPU */
	users = calloc(MAX_CPUS, sizeof(*users));
	if (!users)
		die("out of memory");
	for (int k = 0; k < w.nr; k++)
		for (int c = 0; c < MAX_CPUS; c++)
			if (has_cpu(w.f[k].cpus, c) && has_cpu(online, c) && users[c] < 0xffff)
				users[c]++;
	/* containers: their online CPUs are theirs alone (and they have one) */
	for (int k = 0; k < w.nr; k++) {
		bool alone = false;

		for (int x = 0; x < CPU_WORDS; x++)
			w.f[k].cpus[x] &= online[x];
		for (int c = 0; c < MAX_CPUS && !w.f[k].user_only; c++) {
			if (!has_cpu(w.f[k].cpus, c))
				continue;
			alone = users[c] == 1;
			if (!alone)
				break;
		}
		if (alone)
			w.f[nr_excl++] = w.f[k];
	}
	free(users);
	qsort(w.f, nr_excl, sizeof(*w.f), cmp_found);
	out->cg = calloc((nr_excl < max ? nr_excl : max) + 2, sizeof(*out->cg));
	if (!out->cg)
		die("out of memory");
	for (int k = 0; k < nr_excl; k++) {
		for (int x = 0; x < CPU_WORDS; x++)
			mine[x] |= w.f[k].cpus[x];
		if (k < max) {
			add(t, out, w.f[k].path, w.f[k].id, w.f[k].cpus);
			continue;
		}
		for (int x = 0; x < CPU_WORDS; x++)
			rest[x] |= w.f[k].cpus[x];
		nr_rest++;
	}
	if (nr_rest) {
		struct cgroup *o = &out->cg[out->nr];

		add(t, out, "other", 0, rest);
		o->nr_summed = nr_rest;
		o->title[0] = 0;
		append(o->title, sizeof(o->title), "other (%d containers past --max-cgroups)  cpus %s",
		       nr_rest, o->cpu_list);
	}
	for (int x = 0; x < CPU_WORDS; x++)
		rest[x] = online[x] & ~mine[x];
	if (count_cpus(rest))
		add(t, out, "shared", 0, rest);
	free(w.f);
	if (out->error[0]) {
		free_cgroups(out);
		return false;
	}
	said[0] = 0;
	return true;
}

void free_cgroups(struct cgroups *c)
{
	free(c->cg);
	c->cg = NULL;
	c->nr = 0;
}
