// SPDX-License-Identifier: GPL-2.0
/*
 * The longest text each sysfs file prints, recomputed from the engine's own
 * tables and packer (module/engine.c and module/models.c, unchanged): the
 * show() formats of module/sysfs.c, each conversion at its widest (20-digit
 * u64, system/events' sums of N3T_TEXT_SUM_CPUS CPUs, 10-digit u32, the widest value n3t_format() prints for the metric's
 * unit), over the sets n3t_pack() really makes for every capacity, with and
 * without the cycle counter, for "all", "default", every group alone and
 * pseudo-random selections.  Prints
 *   real FILE MODEL BYTES [how]
 *   bound FILE BYTES          (the generated N3T_TEXT_MAX_* of models.h)
 * and exits 0; textmax.sh compares them.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "models.h"

#define U64_WIDE	18446744073709551615ULL
#define U32_WIDE	4294967295U
#define NR_RANDOM	400

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/*
 * The decimal of N3T_TEXT_SUM_CPUS * (2^64 - 1), the widest sum system/events
 * prints in its page (unsigned __int128, as the module's 128-bit sums).
 */
static const char *sum_wide(void)
{
	static char buf[48];
	unsigned __int128 x = (unsigned __int128)N3T_TEXT_SUM_CPUS * U64_WIDE;
	int n = sizeof(buf) - 1;

	buf[n] = 0;
	do {
		buf[--n] = '0' + (int)(x % 10);
		x /= 10;
	} while (x);
	return buf + n;
}

/* snprintf()'s length: what sysfs_emit_at() appends */
static int tlen(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	return n;
}

/* the widest text n3t_format() makes with @decimals */
static int value_len(unsigned int decimals)
{
	char buf[N3T_VALUE_BUF];
	int a = n3t_format(buf, sizeof(buf), decimals, -S64_MAX, true);
	int b = n3t_format(buf, sizeof(buf), decimals, S64_MAX, true);
	int c = n3t_format(buf, sizeof(buf), decimals, 0, false);

	return imax(imax(a, b), c);
}

static const char *const cpu_states[] = {
	"stopped", "collecting", "isolated", "failed-no-memory", "failed-no-counters",
	"unsupported-core", "paused", "unknown",
};

struct worst {
	int sets, status;
	char sets_how[64], status_how[64];
	unsigned int max_sets;
};

/* models/<model>/sets and sets: n3t_emit_sets() */
static int sets_len(const struct n3t_model *model, const struct n3t_plan *p)
{
	unsigned int s, e;
	int len = 0;

	for (s = 0; s < p->nr_sets; s++) {
		len += tlen("set%u", s);
		for_each_set_bit(e, p->set[s].events, N3T_MAX_EVENTS)
			len += tlen(" %s", model->events[e].name);
		len += tlen("\n");
	}
	return len;
}

/* cpuN/status and system/status: status_show(), the longer of the two */
static int status_len(const struct n3t_model *model, const struct n3t_plan *p)
{
	int len, cpu = 0, sys, i, hidden = 0;
	unsigned int s, e;

	len = tlen("seq %llu\nend_ns %llu\ninterval_ns %llu\nlost_slices %llu\n",
		   U64_WIDE, U64_WIDE, U64_WIDE, U64_WIDE);
	len += tlen("sets_per_interval %u\n", U32_WIDE);
	for (i = 0; i < (int)ARRAY_SIZE(cpu_states); i++)
		cpu = imax(cpu, tlen("state %s\n", cpu_states[i]));
	sys = tlen("state %s\ncpus_collecting %u\ncpus_isolated %u\n", "collecting",
		   U32_WIDE, U32_WIDE);
	sys += tlen("cpus_failed %u\ncpus_unsupported %u\n", U32_WIDE, U32_WIDE);
	len += imax(cpu, sys);
	/* every event of those every running core counts hidden (coretype.c) */
	for (e = 0; e < model->nr_events; e++) {
		switch (model->events[e].code) {
		case 0x08: case 0x1b: case 0x3a: case 0x3b:
			hidden += tlen(" %s", model->events[e].name);
		}
	}
	len += tlen("hidden_events") + imax(hidden, tlen(" none")) + tlen("\n");
	for (s = 0; s < p->nr_sets; s++) {
		len += tlen("set%u_coverage %llu.%02llu\nset%u_lost %llu\n", s, 100ULL, 0ULL, s,
			    U64_WIDE);
	}
	return len;
}

static void try_plan(const struct n3t_model *model, u32 groups, struct worst *w)
{
	static struct n3t_plan p;
	unsigned int cap, cyc;
	int n;

	for (cap = 1; cap <= N3T_MAX_CAPACITY; cap++) {
		for (cyc = 0; cyc <= 1; cyc++) {
			if (n3t_pack(model, groups, cap, cyc, &p))
				continue;
			if (p.nr_sets > w->max_sets)
				w->max_sets = p.nr_sets;
			n = sets_len(model, &p);
			if (n > w->sets) {
				w->sets = n;
				snprintf(w->sets_how, sizeof(w->sets_how),
					 "capacity %u cycles %u groups 0x%x", cap, cyc, groups);
			}
			n = status_len(model, &p);
			if (n > w->status) {
				w->status = n;
				snprintf(w->status_how, sizeof(w->status_how),
					 "capacity %u cycles %u groups 0x%x sets %u",
					 cap, cyc, groups, p.nr_sets);
			}
		}
	}
}

static void one_model(const struct n3t_model *model)
{
	const char *name = model->name;
	struct worst w = { 0 };
	int len, g, i, m, most = 0;
	u64 seed = 1;

	/* models/<model>/events, metrics, groups */
	len = 0;
	for (i = 0; i < model->nr_events; i++)
		len += tlen("%s 0x%04x\n", model->events[i].name, model->events[i].code);
	printf("real model_events %s %d\n", name, len);
	len = 0;
	for (m = 0; m < model->nr_metrics; m++)
		len += tlen("%s %u %s\n", model->metrics[m].name,
			    n3t_unit_decimals(model->metrics[m].unit),
			    n3t_unit_name(model->metrics[m].unit));
	printf("real model_metrics %s %d\n", name, len);
	len = 0;
	for (g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		len += tlen("%s %s", grp->name, grp->spec_name);
		for (i = 0; i < grp->nr; i++)
			len += tlen(" %s", model->metrics[grp->metrics[i]].name);
		len += tlen("\n");
	}
	printf("real model_groups %s %d\n", name, len);
	len = 0;
	for (m = 0; m < model->nr_metrics; m++)
		len += n3t_format_formula(NULL, 0, model, m);
	printf("real model_formulas %s %d\n", name, len);

	/*
	 * cpuN/<group>: "metric value" per metric of the group, and " composed"
	 * after each metric that can be (on one counter without the cycle
	 * counter every one that scales is: n3t_pack())
	 */
	for (g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		len = 0;
		for (i = 0; i < grp->nr; i++) {
			const struct n3t_metric_desc *md = &model->metrics[grp->metrics[i]];

			len += tlen("%s ", md->name) + value_len(n3t_unit_decimals(md->unit)) + 1;
			if (n3t_metric_homogeneous(model, grp->metrics[i]))
				len += tlen(" composed");
		}
		most = imax(most, len);
	}
	printf("real group %s %d\n", name, most);

	/* cpuN/events: every event of the sets in use (all of them: groups=all) */
	len = 0;
	for (i = 0; i < model->nr_events; i++)
		len += tlen("%s %llu %llu\n", model->events[i].name, U64_WIDE, U64_WIDE);
	printf("real events %s %d\n", name, len);

	/* system/events: the 128-bit sums of N3T_TEXT_SUM_CPUS CPUs' widest counts */
	len = 0;
	for (i = 0; i < model->nr_events; i++)
		len += tlen("%s %s %s\n", model->events[i].name, sum_wide(), sum_wide());
	printf("real system_events %s %d\n", name, len);

	/* cpuN/ages: every group selected; the age in milliseconds, 0 decimals */
	len = 0;
	for (g = 0; g < model->nr_groups; g++)
		len += tlen("%s seq %llu end_ns %llu age_ms ", model->groups[g].name,
			    U64_WIDE, U64_WIDE) + value_len(0) + 1;
	printf("real ages %s %d\n", name, len);

	/* cpuN/cpu_model */
	len = imax(tlen("%s\n", name), imax(tlen("%s\n", "unsupported"), tlen("%s\n", "isolated")));
	printf("real dir_cpu_model %s %d\n", name, len);

	/* sets and status over the packer's plans */
	try_plan(model, N3T_ALL_GROUPS(model), &w);
	try_plan(model, model->default_groups, &w);
	for (g = 0; g < model->nr_groups; g++)
		try_plan(model, BIT(g), &w);
	for (i = 0; i < NR_RANDOM; i++) {
		u32 sel;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		sel = (u32)(seed >> 32) & N3T_ALL_GROUPS(model);
		if (sel)
			try_plan(model, sel, &w);
	}
	printf("real sets %s %d %s\n", name, w.sets, w.sets_how);
	printf("real status %s %d %s\n", name, w.status, w.status_how);
	printf("real max_sets %s %u\n", name, w.max_sets);
}

/* groups and available_groups: n3t_emit_groups() over @nr distinct models */
static int group_list_len(const struct n3t_model *const *models, unsigned int nr)
{
	const char *seen[N3T_MAX_GROUPS * N3T_TEXT_CORE_TYPES];
	unsigned int d, g, i, n = 0;
	int len = 0;

	for (d = 0; d < nr; d++) {
		for (g = 0; g < models[d]->nr_groups; g++) {
			for (i = 0; i < n; i++)
				if (!strcmp(seen[i], models[d]->groups[g].name))
					break;
			if (i < n)
				continue;
			seen[n++] = models[d]->groups[g].name;
			len += tlen("%s%s", len ? " " : "", models[d]->groups[g].name);
		}
	}
	return len + tlen("\n");
}

/* every choice of up to N3T_TEXT_CORE_TYPES distinct models (one per core type) */
static void core_types(void)
{
	const struct n3t_model *pick[N3T_TEXT_CORE_TYPES];
	unsigned int nr = n3t_nr_models, mask, d, k;
	int list = 0, names = 0, len;

	for (mask = 1; mask < (1U << nr); mask++) {
		if (__builtin_popcount(mask) > N3T_TEXT_CORE_TYPES)
			continue;
		for (d = 0, k = 0; d < nr; d++)
			if (mask & (1U << d))
				pick[k++] = n3t_models[d];
		list = imax(list, group_list_len(pick, k));
		len = 0;
		for (d = 0; d < k; d++)
			len += tlen("%s%s\n", pick[d]->name, " (forced)");
		names = imax(names, len);
	}
	printf("real group_list all %d\n", list);
	printf("real cpu_model all %d\n", names);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < n3t_nr_models; i++)
		one_model(n3t_models[i]);
	core_types();
	printf("bound model_events %d\n", N3T_TEXT_MAX_MODEL_EVENTS);
	printf("bound model_metrics %d\n", N3T_TEXT_MAX_MODEL_METRICS);
	printf("bound model_groups %d\n", N3T_TEXT_MAX_MODEL_GROUPS);
	printf("bound model_formulas %d\n", N3T_TEXT_MAX_MODEL_FORMULAS);
	printf("bound sets %d\n", N3T_TEXT_MAX_SETS);
	printf("bound group %d\n", N3T_TEXT_MAX_GROUP_FILE);
	printf("bound events %d\n", N3T_TEXT_MAX_EVENTS);
	printf("bound system_events %d\n", N3T_TEXT_MAX_SYSTEM_EVENTS);
	printf("bound ages %d\n", N3T_TEXT_MAX_AGES);
	printf("bound status %d\n", N3T_TEXT_MAX_STATUS);
	printf("bound dir_cpu_model %d\n", N3T_TEXT_MAX_DIR_CPU_MODEL);
	printf("bound group_list %d\n", N3T_TEXT_MAX_GROUP_LIST);
	printf("bound cpu_model %d\n", N3T_TEXT_MAX_CPU_MODEL);
	printf("bound max %d\n", N3T_TEXT_MAX);
	return 0;
}
