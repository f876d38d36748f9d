// SPDX-License-Identifier: GPL-2.0
/*
 * The binary snapshot (/dev/n3telemetry, or a tree's file
 * named snapshot; layout in uapi/linux/n3telemetry.h): its checks, its
 * names section into the models' tables, its records into one view per CPU;
 * and the module's sums of CPUs (load_sum(), N3T_IOC_SUM), as views too.
 *
 * Calls model.c (building the tables) and util.h.  read.c calls it, and
 * cgroup.c (load_sum()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "read.h"
#include "util.h"

/*
 * The module's snapshot is its device; a tree given with --sysfs (a copy,
 * a test fixture) carries it as a file named snapshot.
 */
void snapshot_path(const struct tree *t, char *path, size_t size)
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

/*
 * Whether a record of @record_size bytes has @field: fields appended in a
 * later version (lost_slices_total, the group ages, composed, the slice
 * counts) are not in an older module's records
 */
#define REC_HAS(record_size, field) \
	((record_size) >= offsetof(struct n3t_snapshot_record, field) + \
			  sizeof(((struct n3t_snapshot_record *)NULL)->field))

static uint32_t bswap32(uint32_t x)
{
	return __builtin_bswap32(x);
}

/*
 * A record of @record_size bytes into @v, whose cpu, lost and model the
 * caller set (the model checked against the record's sizes): fields
 * appended in a later version are read only from records that have them
 */
static void record_view(const struct tree *t, const struct n3t_snapshot_record *r,
			size_t record_size, struct view *v)
{
	const struct model *md = &t->model[v->model];

	v->have = r->flags & N3T_REC_VALID;
	v->seq = r->seq;
	v->end_ns = r->end_ns;
	v->interval_ns = r->interval_ns;
	/* an older module's record ends before the group ages */
	v->have_ages = REC_HAS(record_size, group_end_ns);
	for (int g = 0; v->have_ages && g < md->nr_groups && g < N3T_SNAP_MAX_GROUPS; g++) {
		v->group_seq[g] = r->group_seq[g];
		v->group_end_ns[g] = r->group_end_ns[g];
	}
	for (int m = 0; m < md->nr_metrics; m++) {
		v->valid[m] = v->have && (r->valid[m / 64] >> (m % 64) & 1);
		v->value[m] = r->value[m];
		/* an older module's record ends before composed: all exact */
		v->composed[m] = REC_HAS(record_size, composed) &&
				 (r->composed[m / 64] >> (m % 64) & 1);
	}
	v->have_events = true;
	/* an older module's record ends before the slice counts */
	v->have_slices = REC_HAS(record_size, slices_ns);
	v->slices_ns = v->have_slices ? r->slices_ns : 0;
	for (int e = 0; v->have_slices && e < md->nr_events; e++) {
		v->slice[e] = r->event_slice_count[e];
		v->slice_ns[e] = r->event_slice_ns[e];
	}
	for (int e = 0; e < md->nr_events; e++) {
		v->count[e] = r->event_count[e];
		v->ns[e] = r->event_ns[e];
		v->listed[e] = r->event_count[e] || r->event_ns[e] ||
			       (r->counted[e / 64] >> (e % 64) & 1);
	}
}

/*
 * 1 loaded, 0 not there or refused (t->snapshot_errno says which; fall back
 * to the text files, which refuse the same readers), exits on a bad
 * snapshot
 */
int load_snapshot(struct tree *t)
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
		v->lost = REC_HAS(h->record_size, lost_slices_total) ? r->lost_slices_total :
								       r->lost_slices;
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
		record_view(t, r, h->record_size, v);
	}
	free(buf);
	t->source = "snapshot";
	return 1;
}

/* @fmt into @err (@n bytes); false, for load_sum() to return */
static bool __attribute__((format(printf, 3, 4))) sum_fail(char *err, size_t n, const char *fmt,
							   ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * The module's sum of some CPUs (N3T_IOC_SUM on the device; a tree given
 * with --sysfs carries each sum as a file sums/<cpu list>: a 32-bit count
 * of the CPUs summed, 32 bits of zeros, then the record).
 */
bool load_sum(const struct tree *t, const uint64_t *cpus, const char *cpu_list, struct view *v,
	      int *nr_cpus, char *err, size_t n)
{
	static struct n3t_snapshot_record r;
	struct n3t_sum_request req = {
		.cpus = (uintptr_t)cpus,
		.nr_words = CPU_WORDS,
		.record = (uintptr_t)&r,
		.record_size = sizeof(r),
	};
	const char *label = v->label;
	const struct model *md;
	char path[4096];

	memset(&r, 0, sizeof(r));
	memset(v, 0, sizeof(*v));
	v->label = label;
	v->cpu = -1;
	v->model = -1;
	if (strcmp(t->root, DEFAULT_SYSFS)) {
		size_t len;
		char *buf;

		snprintf(path, sizeof(path), "%s/sums/%s", t->root, cpu_list);
		buf = slurp(path, &len);
		if (!buf)
			return sum_fail(err, n, "cannot read %s: %s", path, strerror(errno));
		if (len != 8 + sizeof(r)) {
			free(buf);
			return sum_fail(err, n, "%s: %zu bytes, a sum is %zu", path, len,
					8 + sizeof(r));
		}
		memcpy(&req.nr_cpus, buf, 4);
		memcpy(&r, buf + 8, sizeof(r));
		free(buf);
	} else {
		int fd = open(DEFAULT_DEVICE, O_RDONLY | O_CLOEXEC);

		snprintf(path, sizeof(path), "%s", DEFAULT_DEVICE);
		/*
		 * the device's nr_words must not pass the kernel's CPUs: the
		 * words past the highest CPU asked for are left out
		 */
		while (req.nr_words > 1 && !cpus[req.nr_words - 1])
			req.nr_words--;
		if (fd < 0)
			return sum_fail(err, n, "cannot open %s: %s", path, strerror(errno));
		if (ioctl(fd, N3T_IOC_SUM, &req)) {
			int e = errno;

			close(fd);
			if (e == ENOTTY)
				return sum_fail(err, n, "%s: this module gives no sums of CPUs (N3T_IOC_SUM): load a newer n3telemetry",
						path);
			return sum_fail(err, n, "%s: sum of CPUs %s: %s", path, cpu_list,
					strerror(e));
		}
		close(fd);
	}
	*nr_cpus = req.nr_cpus;
	if (r.model == ~0U)
		return true;
	if (r.model >= (unsigned int)t->nr_models)
		return sum_fail(err, n, "%s: the sum of CPUs %s has model %u, the snapshot describes %d",
				path, cpu_list, r.model, t->nr_models);
	md = &t->model[r.model];
	if ((int)r.nr_events != md->nr_events || (int)r.nr_metrics != md->nr_metrics)
		return sum_fail(err, n, "%s: the sum of CPUs %s has %u events and %u metrics, its model %s has %d and %d",
				path, cpu_list, r.nr_events, r.nr_metrics, md->name,
				md->nr_events, md->nr_metrics);
	v->model = r.model;
	v->lost = r.lost_slices_total;
	record_view(t, &r, sizeof(r), v);
	return true;
}
