// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel - read n3telemetry: a table or tree for people (show), a live view
 * (top), one scrape as Prometheus text or JSON (export), and the
 * node_exporter textfile collector (textfile).
 *
 * Metric names, units and print precision come from the module's own engine
 * source (module/engine.c), compiled in; the binary snapshot layout from
 * uapi/linux/n3telemetry.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/n3telemetry.h>

#include "engine.h"

#define DEFAULT_SYSFS	"/sys/kernel/n3telemetry"
#define DEFAULT_DEVICE	"/dev/n3telemetry"	/* the binary snapshot */
#define MAX_FILE	(1 << 20)

struct view {
	int cpu;			/* -1: system */
	bool have;			/* an interval was published */
	uint64_t seq, end_ns, interval_ns;
	uint32_t lost;
	int64_t value[N3T_NR_METRICS];
	bool valid[N3T_NR_METRICS];
	bool have_events;
	bool listed[N3T_NR_EVENTS];
	uint64_t count[N3T_NR_EVENTS], ns[N3T_NR_EVENTS];
};

struct tree {
	const char *root;
	const char *source;		/* "snapshot" or "text" */
	unsigned int slots, interval_ms;
	uint32_t groups;
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
		int e = errno;

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
		if (ip > INT64_MAX / 10 / N3T_FIXED_SCALE)
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
	*v = (ip * N3T_FIXED_SCALE + frac) * (neg ? -1 : 1);
	*valid = true;
	return true;
}

static int metric_by_name(const char *name)
{
	for (int m = 0; m < N3T_NR_METRICS; m++)
		if (!strcmp(n3t_metrics[m].name, name))
			return m;
	return -1;
}

static uint32_t parse_groups(const char *s)
{
	uint32_t g = 0;
	char *dup = strdup(s), *save = NULL;

	for (char *tok = strtok_r(dup, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		int id = n3t_group_by_name(tok, strlen(tok));

		if (id >= 0)
			g |= 1u << id;
	}
	free(dup);
	return g;
}

/* One directory (cpuN or system) from its text files. */
static void load_text_dir(const struct tree *t, struct view *v, const char *dir)
{
	char rel[256], path[4096];
	char *s, *line, *save;

	for (int g = 0; g < N3T_NR_GROUPS; g++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, n3t_groups[g].name);
		s = must_slurp(t, rel);
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64], val[64], extra;
			int m;

			if (sscanf(line, "%63s %63s %c", name, val, &extra) != 2 ||
			    (m = metric_by_name(name)) < 0 ||
			    !parse_value(val, &v->value[m], &v->valid[m]))
				die("malformed line in %s/%s: \"%s\"", t->root, rel, line);
		}
		free(s);
	}
	snprintf(rel, sizeof(rel), "%s/status", dir);
	s = must_slurp(t, rel);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], extra;
		unsigned long long c, ns;
		int e;

		if (sscanf(line, "%63s %llu %llu %c", name, &c, &ns, &extra) != 3 ||
		    (e = n3t_event_by_name(name)) < 0)
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

/* 1 loaded, 0 not readable (fall back to text), exits on a bad snapshot */
static int load_snapshot(struct tree *t)
{
	const struct n3t_snapshot_header *h;
	char path[4096];
	size_t len;
	char *buf;

	snapshot_path(t, path, sizeof(path));
	buf = slurp(path, &len);
	if (!buf) {
		if (errno == EACCES || errno == ENOENT || errno == EPERM)
			return 0;
		die("cannot read %s: %s", path, strerror(errno));
	}
	h = (const void *)buf;
	if (len < 16)
		die("%s: truncated snapshot (%zu bytes)", path, len);
	if (h->magic != N3T_SNAP_MAGIC)
		die("%s: not an n3telemetry snapshot (magic 0x%08x, want 0x%08x)", path,
		    h->magic, N3T_SNAP_MAGIC);
	if (h->abi_version != N3T_SNAP_ABI_VERSION)
		die("%s: snapshot ABI version %u, this n3tel reads version %u; use a matching n3tel",
		    path, h->abi_version, N3T_SNAP_ABI_VERSION);
	if (len < sizeof(*h) || h->header_size < sizeof(*h) ||
	    h->record_size < sizeof(struct n3t_snapshot_record) ||
	    h->nr_events != N3T_SNAP_NR_EVENTS || h->nr_metrics != N3T_SNAP_NR_METRICS)
		die("%s: snapshot sizes do not match (header %u, record %u, %u events, %u metrics; want >= %zu, >= %zu, %d, %d)",
		    path, h->header_size, h->record_size, h->nr_events, h->nr_metrics,
		    sizeof(*h), sizeof(struct n3t_snapshot_record), N3T_SNAP_NR_EVENTS,
		    N3T_SNAP_NR_METRICS);
	if ((uint64_t)h->header_size + (uint64_t)h->nr_records * h->record_size != len)
		die("%s: snapshot is %zu bytes, header says %u records of %u bytes", path, len,
		    h->nr_records, h->record_size);

	t->slots = h->slots;
	t->interval_ms = h->interval_ms;
	t->groups = h->groups;
	t->nr = h->nr_records;
	t->v = calloc(t->nr + 1, sizeof(*t->v));
	if (!t->v)
		die("out of memory");
	for (int i = 0; i < t->nr; i++) {
		const struct n3t_snapshot_record *r =
			(const void *)(buf + h->header_size + (size_t)i * h->record_size);
		struct view *v = &t->v[i];

		v->cpu = r->cpu;
		v->have = r->flags & N3T_REC_VALID;
		v->seq = r->seq;
		v->end_ns = r->end_ns;
		v->interval_ns = r->interval_ns;
		v->lost = r->lost_slices;
		for (int m = 0; m < N3T_NR_METRICS; m++) {
			v->valid[m] = v->have && (r->valid[m / 64] >> (m % 64) & 1);
			v->value[m] = r->value[m];
		}
		v->have_events = true;
		for (int e = 0; e < N3T_NR_EVENTS; e++) {
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
	s = must_slurp(t, "slots");
	t->slots = atoi(s);
	free(s);
	s = must_slurp(t, "interval_ms");
	t->interval_ms = atoi(s);
	free(s);
	s = must_slurp(t, "groups");
	t->groups = parse_groups(s);
	free(s);
	load_text(t, with_system);
}

static const char *fmt_metric(char *buf, size_t n, const struct view *v, int m)
{
	n3t_format(buf, n, m, v->value[m], v->have && v->valid[m]);
	return buf;
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

static void show_metric(const struct view *v, int m, int indent)
{
	char val[N3T_VALUE_BUF];

	printf("%*s%-*s %10s  %s\n", indent, "", 36 - indent, n3t_metrics[m].name,
	       fmt_metric(val, sizeof(val), v, m), n3t_unit_name(n3t_metrics[m].unit));
}

static void show_group(const struct view *v, int g, int indent)
{
	for (int i = 0; i < n3t_groups[g].nr; i++)
		show_metric(v, n3t_groups[g].metrics[i], indent);
}

static void show_view(const struct view *v, uint32_t groups)
{
	if (v->cpu < 0)
		printf("system");
	else
		printf("cpu%d", v->cpu);
	if (v->have)
		printf("  interval %" PRIu64 ", %" PRIu64 ".%03" PRIu64 " s\n", v->seq,
		       v->interval_ns / 1000000000, v->interval_ns / 1000000 % 1000);
	else
		printf("  no complete interval yet\n");
	if (groups & (1u << N3T_G_topdown_l1)) {
		printf("  Topdown\n");
		for (int i = 0; i < n3t_groups[N3T_G_topdown_l1].nr; i++) {
			int m = n3t_groups[N3T_G_topdown_l1].metrics[i];

			show_metric(v, m, 4);
			if (m == N3T_M_frontend_bound && (groups & (1u << N3T_G_topdown_frontend)))
				show_group(v, N3T_G_topdown_frontend, 8);
			if (m == N3T_M_backend_bound && (groups & (1u << N3T_G_topdown_backend)))
				show_group(v, N3T_G_topdown_backend, 8);
		}
		groups &= ~((1u << N3T_G_topdown_l1) | (1u << N3T_G_topdown_frontend) |
			    (1u << N3T_G_topdown_backend));
	}
	for (int g = 0; g < N3T_NR_GROUPS; g++) {
		if (!(groups & (1u << g)))
			continue;
		printf("  %s\n", n3t_groups[g].name);
		show_group(v, g, 4);
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

static bool is_percent(int m)
{
	enum n3t_unit u = n3t_metrics[m].unit;

	return u == N3T_U_PCT_SLOTS || u == N3T_U_PCT_CYCLES || u == N3T_U_PCT_OPS;
}

/* Prometheus family name: percentages become 0..1 ratios */
static void prom_name(char *buf, size_t n, int m)
{
	const char *name = n3t_metrics[m].name;
	size_t len = strlen(name);

	if (is_percent(m)) {
		if (len > 11 && !strcmp(name + len - 11, "_percentage"))
			len -= 11;
		snprintf(buf, n, "n3telemetry_%.*s_ratio", (int)len, name);
	} else {
		snprintf(buf, n, "n3telemetry_%s", name);
	}
}

static void export_prom(FILE *o, const struct tree *t)
{
	char name[128];
	bool events = false;

	fprintf(o, "# HELP n3telemetry_slots Rename slots per cycle used by the topdown formulas.\n");
	fprintf(o, "# TYPE n3telemetry_slots gauge\nn3telemetry_slots %u\n", t->slots);
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
	for (int m = 0; m < N3T_NR_METRICS; m++) {
		bool any = false;

		for (int g = 0; g < N3T_NR_GROUPS; g++)
			for (int k = 0; k < n3t_groups[g].nr; k++)
				any |= (t->groups & (1u << g)) && n3t_groups[g].metrics[k] == m;
		if (!any)
			continue;
		prom_name(name, sizeof(name), m);
		fprintf(o, "# HELP %s %s (%s%s) over the CPU's latest interval; NaN when undefined.\n",
		       name, n3t_metrics[m].name, n3t_unit_name(n3t_metrics[m].unit),
		       is_percent(m) ? ", as a 0..1 ratio" : "");
		fprintf(o, "# TYPE %s gauge\n", name);
		for (int i = 0; i < t->nr; i++) {
			const struct view *v = &t->v[i];

			fprintf(o, "%s{cpu=\"%d\"} ", name, v->cpu);
			if (v->have && v->valid[m])
				put_fixed(o, v->value[m], is_percent(m) ? 8 : 6);
			else
				fprintf(o, "NaN");
			fputc('\n', o);
		}
	}
	for (int i = 0; i < t->nr; i++)
		events |= t->v[i].have_events;
	if (!events)
		return;
	fprintf(o, "# HELP n3telemetry_event_count_total Cumulative PMU event count while counted.\n");
	fprintf(o, "# TYPE n3telemetry_event_count_total counter\n");
	for (int i = 0; i < t->nr; i++)
		for (int e = 0; e < N3T_NR_EVENTS; e++)
			if (t->v[i].listed[e])
				fprintf(o, "n3telemetry_event_count_total{cpu=\"%d\",event=\"%s\"} %" PRIu64 "\n",
				       t->v[i].cpu, n3t_events[e].name, t->v[i].count[e]);
	fprintf(o, "# HELP n3telemetry_event_counted_seconds_total Cumulative time the event was counting.\n");
	fprintf(o, "# TYPE n3telemetry_event_counted_seconds_total counter\n");
	for (int i = 0; i < t->nr; i++)
		for (int e = 0; e < N3T_NR_EVENTS; e++)
			if (t->v[i].listed[e]) {
				fprintf(o, "n3telemetry_event_counted_seconds_total{cpu=\"%d\",event=\"%s\"} ",
				       t->v[i].cpu, n3t_events[e].name);
				put_fixed(o, t->v[i].ns[e], 9);
				fputc('\n', o);
			}
}

static void export_json(const struct tree *t)
{
	char val[N3T_VALUE_BUF];

	printf("{\"source\": \"%s\", \"slots\": %u, \"interval_ms\": %u, \"groups\": [",
	       t->source, t->slots, t->interval_ms);
	for (int g = 0, first = 1; g < N3T_NR_GROUPS; g++)
		if (t->groups & (1u << g)) {
			printf("%s\"%s\"", first ? "" : ", ", n3t_groups[g].name);
			first = 0;
		}
	printf("],\n \"cpus\": [");
	for (int i = 0; i < t->nr; i++) {
		const struct view *v = &t->v[i];
		int first = 1;

		printf("%s\n  {\"cpu\": %d, \"seq\": %" PRIu64 ", \"end_ns\": %" PRIu64
		       ", \"interval_ns\": %" PRIu64 ", \"lost_slices\": %u,\n   \"metrics\": {",
		       i ? "," : "", v->cpu, v->seq, v->end_ns, v->interval_ns, v->lost);
		for (int m = 0; m < N3T_NR_METRICS; m++) {
			fmt_metric(val, sizeof(val), v, m);
			printf("%s\"%s\": %s", m ? ", " : "", n3t_metrics[m].name,
			       strcmp(val, "nan") ? val : "null");
		}
		printf("}");
		if (v->have_events) {
			printf(",\n   \"events\": {");
			for (int e = 0; e < N3T_NR_EVENTS; e++) {
				if (!v->listed[e])
					continue;
				printf("%s\"%s\": {\"count\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
				       first ? "" : ", ", n3t_events[e].name, v->count[e], v->ns[e]);
				first = 0;
			}
			printf("}");
		}
		printf("}");
	}
	printf("\n ]\n}\n");
}

/* --- textfile --- */

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
	free(t.v);
}

/* --- top --- */

struct row {
	const struct view *v;
	double key;
};

static double fixed(const struct view *v, int m)
{
	return v->have && v->valid[m] ? (double)v->value[m] / N3T_FIXED_SCALE : -1;
}

static const char *sort_key = "cpu";

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->v->cpu - y->v->cpu;
}

static void bar(const struct view *v, bool color, int width)
{
	static const int ms[4] = { N3T_M_retiring, N3T_M_bad_speculation,
				   N3T_M_frontend_bound, N3T_M_backend_bound };
	static const char ch[4] = { 'R', 'S', 'F', 'B' };
	static const char *bg[4] = { "\033[42m", "\033[45m", "\033[44m", "\033[41m" };
	int used = 0;

	putchar('[');
	for (int i = 0; i < 4; i++) {
		double p = fixed(v, ms[i]);
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

static void top_once(const char *root, bool color)
{
	struct tree t = { .root = root };
	struct row rows[4096];
	char val[5][N3T_VALUE_BUF];
	int n = 0;

	load(&t, SRC_AUTO, false);
	for (int i = 0; i < t.nr && n < 4096; i++) {
		rows[n].v = &t.v[i];
		if (!strcmp(sort_key, "retiring"))
			rows[n].key = fixed(&t.v[i], N3T_M_retiring);
		else if (!strcmp(sort_key, "frontend"))
			rows[n].key = fixed(&t.v[i], N3T_M_frontend_bound);
		else if (!strcmp(sort_key, "backend"))
			rows[n].key = fixed(&t.v[i], N3T_M_backend_bound);
		else if (!strcmp(sort_key, "bad"))
			rows[n].key = fixed(&t.v[i], N3T_M_bad_speculation);
		else if (!strcmp(sort_key, "ipc"))
			rows[n].key = fixed(&t.v[i], N3T_M_ipc);
		else
			rows[n].key = -t.v[i].cpu;
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
		bar(v, color, 40);
		printf(" %7s %7s", fmt_metric(val[0], sizeof(val[0]), v, N3T_M_retiring),
		       fmt_metric(val[1], sizeof(val[1]), v, N3T_M_bad_speculation));
		printf(" %7s %7s", fmt_metric(val[2], sizeof(val[2]), v, N3T_M_frontend_bound),
		       fmt_metric(val[3], sizeof(val[3]), v, N3T_M_backend_bound));
		printf(" %6s", fmt_metric(val[4], sizeof(val[4]), v, N3T_M_ipc));
		printf(" %8s", fmt_metric(val[0], sizeof(val[0]), v, N3T_M_l1d_cache_mpki));
		printf(" %8s", fmt_metric(val[1], sizeof(val[1]), v, N3T_M_l2_cache_mpki));
		printf(" %8s\n", fmt_metric(val[2], sizeof(val[2]), v, N3T_M_ll_cache_read_mpki));
	}
	fflush(stdout);
	free(t.v);
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
	enum source src = SRC_AUTO;
	uint32_t groups = 0;
	int every = 0, iterations = 0, delay = 0, c;
	struct tree t = { 0 };

	/* one pass: options may stand before or after the command */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': root = optarg; break;
		case 't': src = SRC_TEXT; break;
		case 'S': src = SRC_SNAPSHOT; break;
		case 'h': usage(stdout); return 0;
		case 'c': cpus = optarg; break;
		case 'g': {
			int g = n3t_group_by_name(optarg, strlen(optarg));

			if (g < 0)
				die("unknown group \"%s\" (see available_groups)", optarg);
			groups |= 1u << g;
			break;
		}
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
		check_cpu_list(cpus);
		load(&t, src, cpus && !strcmp(cpus, "system"));
		if (!groups)
			groups = t.groups;
		for (int i = 0, shown = 0; i < t.nr; i++) {
			if (!want_cpu(cpus, t.v[i].cpu))
				continue;
			if (shown++)
				putchar('\n');
			show_view(&t.v[i], groups);
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
			struct tree probe = { .root = root };

			top_once(root, color);
			if (iterations && i + 1 == iterations)
				break;
			if (!delay) {
				char p[4096];
				char *s;

				snprintf(p, sizeof(p), "%s/interval_ms", root);
				s = slurp(p, NULL);
				probe.interval_ms = s ? atoi(s) : 1000;
				free(s);
			}
			usleep(delay ? delay * 1000000u : (probe.interval_ms < 1000 ? 1000 : probe.interval_ms) * 1000u);
		}
	} else {
		fprintf(stderr, "%s: unknown command \"%s\"\n", prog, cmd);
		usage(stderr);
		return 2;
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	free(t.v);
	return 0;
}
