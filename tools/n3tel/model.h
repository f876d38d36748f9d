/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one in-memory model n3tel reads the module into, and its
 * reader: every command reads the module through load() and nothing else.
 *
 * Nothing about a core is compiled in: the models (names, slot counts,
 * events, metrics, units, print precision, groups) come from the module,
 * from the snapshot's names section or from the models/<model>/ files, so
 * a core the module learns needs no new n3tel.  A struct tree holds them
 * and one view per CPU (and system/): load() (read.c) fills it from
 * /dev/n3telemetry (snapshot.c) or the sysfs text files (sysfs.c,
 * read.c), free_tree() empties it.  read.h is between those files only.
 *
 * The model (model.c, sysfs.c, snapshot.c, read.c) calls util.h and the
 * engine's n3t_format() only; it does not know the views (show.c, top.c)
 * nor the formats (export.c, prometheus.c, textfile.c), which call it.
 */
#ifndef N3TEL_MODEL_H
#define N3TEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/n3telemetry.h>

#include "util.h"

#define DEFAULT_SYSFS	"/sys/kernel/n3telemetry"
#define FIXED_SCALE	1000000LL
#define MAX_EVENTS	N3T_SNAP_MAX_EVENTS
#define MAX_METRICS	N3T_SNAP_MAX_METRICS
#define MAX_GROUPS	32
#define MAX_MODELS	16
#define NAME_LEN	64
#define VALUE_BUF	48
#define MAX_CPUS	4096
#define CPU_WORDS	(MAX_CPUS / 64)

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

/*
 * A model's formulas (models/<model>/formulas): metric i is the sum of
 * terms num[i] .. num[i] + nr_num[i] - 1 over the sum of terms den[i] ..
 * den[i] + nr_den[i] - 1, each term a coefficient times its factors,
 * event indices or FACTOR_SLOTS (the model's slot count).  Loaded by the
 * commands that need them (stat evaluates them; the containers' export
 * takes their events) only: load_formulas().
 */
#define FORMULA_FACTORS	3
#define FACTOR_SLOTS	0xff
#define MAX_TERMS	16		/* of a polynomial: the engine's N3T_MAX_MONOS */
struct term {
	int32_t coef;
	int nr;
	unsigned int f[FORMULA_FACTORS];
};

struct formulas {
	int nr_terms;
	struct term *term;
	int num[MAX_METRICS], nr_num[MAX_METRICS];
	int den[MAX_METRICS], nr_den[MAX_METRICS];
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
	struct formulas *fx;		/* load_formulas(); NULL until then */
};

struct view {
	int cpu;			/* -1: system, or a sum of CPUs (label) */
	const char *label;		/* a sum's name for people (show), NULL: system */
	int model;			/* index into tree.model, -1: none */
	bool have;			/* an interval was published */
	uint64_t seq, end_ns, interval_ns;
	uint64_t lost;
	int64_t value[MAX_METRICS];
	bool valid[MAX_METRICS];
	/*
	 * composed, not exact: the metric's events do not fit in the counters
	 * together, so the module evaluated it from each event's rate counted
	 * apart (a number, or nan, but never an exact one).  A property of the
	 * model's plan, set whether the value is valid or not.
	 */
	bool composed[MAX_METRICS];
	bool have_ages;			/* group_seq, group_end_ns known (ages file) */
	uint64_t group_seq[MAX_GROUPS];	/* the interval a group's values come from, 0: none yet */
	uint64_t group_end_ns[MAX_GROUPS];
	bool have_events;		/* events readable */
	char state[64];			/* cpuN/status "state": collecting, isolated, ... */
	/*
	 * status "hidden_events": the events that counted nothing while the
	 * CPU ran (a hypervisor's filter), comma separated; their metrics are
	 * nan.  Empty: none, or not known (the snapshot, an older module).
	 */
	char hidden[256];
	bool listed[MAX_EVENTS];
	u128 count[MAX_EVENTS], ns[MAX_EVENTS];	/* system/'s sums pass 2^64 */
	/*
	 * The snapshot's cumulative counts in complete slices and the time of
	 * those slices (have_slices: a module that publishes them); n3tel
	 * stat's input
	 */
	bool have_slices;
	uint64_t slice[MAX_EVENTS], slice_ns[MAX_EVENTS];
	uint64_t slices_ns;		/* the time of every complete slice */
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

enum source { SRC_AUTO, SRC_TEXT, SRC_SNAPSHOT };

/* what load() reads */
#define LOAD_SYSTEM	0x1	/* system/, as the last view (cpu -1) */
#define LOAD_CPUS	0x2	/* every CPU's metrics and events */
#define LOAD_STATES	0x4	/* every CPU's model and state only */

/* the module's data from root (t->root) into @t, or one line and exit */
void load(struct tree *t, enum source src, unsigned int what);
void free_tree(struct tree *t);
/* models/<model>/formulas of every model of @t into its fx, or one line and exit */
void load_formulas(struct tree *t);
/*
 * The module's sum of the CPUs of bitmap @cpus (N3T_IOC_SUM; a tree given
 * with --sysfs: its file sums/<cpu list>) into @v, as a view of cpu -1
 * (its label kept), and the CPUs it summed into @nr_cpus; @t loaded from
 * the snapshot.  False on an error, its one line in @err (@n bytes).
 */
bool load_sum(const struct tree *t, const uint64_t *cpus, const char *cpu_list, struct view *v,
	      int *nr_cpus, char *err, size_t n);

int metric_by_name(const struct model *md, const char *name);
int event_by_name(const struct model *md, const char *name);
int group_by_name(const struct model *md, const char *name);
const struct model *view_model(const struct tree *t, const struct view *v);
/* metric @m of a view as the module prints it; "-" without model or metric */
const char *fmt_metric(char *buf, size_t n, const struct tree *t, const struct view *v, int m);
/* whether metric @m of a view is composed (false without model or metric) */
bool metric_composed(const struct tree *t, const struct view *v, int m);
/*
 * For people (show, top): fmt_metric() with COMPOSED_MARK before a composed
 * value ("~21.37", "~nan")
 */
#define COMPOSED_MARK	"~"
const char *fmt_metric_marked(char *buf, size_t n, const struct tree *t, const struct view *v,
			      int m);

#endif
