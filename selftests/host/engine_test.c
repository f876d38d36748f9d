// SPDX-License-Identifier: GPL-2.0
/*
 * Host build of the engine (module/engine.c, unchanged) with its tests:
 *   engine-host-test           packer invariants, uapi layout; ok/not ok lines
 *   engine-host-test eval      read "slots c0 .. c65" lines, print the metrics
 *   engine-host-test tables    print events, metrics and groups
 */
#include <stddef.h>
#include <stdlib.h>
#include <linux/n3telemetry.h>

#include "engine.h"

static int failed;

static void result(int ok, const char *name)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
}

static int eval_lines(void)
{
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	u64 c[N3T_NR_EVENTS];
	unsigned int slots;
	char buf[N3T_VALUE_BUF];

	memset(counted, 0xff, sizeof(counted));
	while (scanf("%u", &slots) == 1) {
		for (int i = 0; i < N3T_NR_EVENTS; i++)
			if (scanf("%llu", (unsigned long long *)&c[i]) != 1)
				return 1;
		for (int m = 0; m < N3T_NR_METRICS; m++) {
			s64 v = 0;
			bool ok = n3t_eval(m, c, counted, slots, &v);

			n3t_format(buf, sizeof(buf), m, v, ok);
			printf("%s%s", m ? " " : "", buf);
		}
		printf("\n");
	}
	return 0;
}

static void tables(void)
{
	for (int i = 0; i < N3T_NR_EVENTS; i++)
		printf("event %s 0x%04x\n", n3t_events[i].name, n3t_events[i].code);
	for (int m = 0; m < N3T_NR_METRICS; m++) {
		DECLARE_BITMAP(ev, N3T_NR_EVENTS);
		unsigned int e;

		bitmap_zero(ev, N3T_NR_EVENTS);
		n3t_metric_events(m, ev);
		printf("metric %s %s|", n3t_metrics[m].name, n3t_unit_name(n3t_metrics[m].unit));
		for_each_set_bit(e, ev, N3T_NR_EVENTS)
			printf(" %s", n3t_events[e].name);
		printf("\n");
	}
	for (int g = 0; g < N3T_NR_GROUPS; g++) {
		printf("group %s %s", n3t_groups[g].name, n3t_groups[g].spec_name);
		for (int i = 0; i < n3t_groups[g].nr; i++)
			printf(" %s", n3t_metrics[n3t_groups[g].metrics[i]].name);
		printf("\n");
	}
}

/* Packer invariants over every group, C = 1..31, with and without PMCCNTR. */
static void packer(void)
{
	static struct n3t_plan a, b;
	int bad = 0;

	for (unsigned int cap = 1; cap <= N3T_MAX_CAPACITY; cap++) {
		for (int cyc = 0; cyc <= 1; cyc++) {
			for (unsigned int g = 0; g <= N3T_NR_GROUPS; g++) {
				u32 groups = g == N3T_NR_GROUPS ? N3T_ALL_GROUPS : BIT(g);

				int ra = n3t_pack(groups, cap, cyc, &a);
				int rb = n3t_pack(groups, cap, cyc, &b);

				/* nothing fits: every selected metric is unschedulable */
				if (ra == -ENOSPC && rb == -ENOSPC && !a.nr_sets &&
				    bitmap_equal(a.selected, a.unschedulable, N3T_NR_METRICS))
					continue;
				if (ra || rb || memcmp(&a, &b, sizeof(a))) {
					bad++;
					continue;
				}
				for (unsigned int s = 0; s < a.nr_sets; s++) {
					unsigned int w = bitmap_weight(a.set[s].events, N3T_NR_EVENTS);

					if (cyc && test_bit(N3T_EV_CPU_CYCLES, a.set[s].events))
						w--;
					if (w > cap)
						bad++;
				}
				for (int m = 0; m < N3T_NR_METRICS; m++) {
					DECLARE_BITMAP(ev, N3T_NR_EVENTS);

					if (!test_bit(m, a.selected))
						continue;
					bitmap_zero(ev, N3T_NR_EVENTS);
					n3t_metric_events(m, ev);
					if (test_bit(m, a.unschedulable)) {
						unsigned int w = bitmap_weight(ev, N3T_NR_EVENTS);

						w -= cyc && test_bit(N3T_EV_CPU_CYCLES, ev);
						bad += w <= cap;	/* must really not fit */
						continue;
					}
					if (a.metric_set[m] < 0 ||
					    !bitmap_subset(ev, a.set[a.metric_set[m]].events,
							   N3T_NR_EVENTS))
						bad++;
				}
			}
		}
	}
	result(!bad, "packer-invariants-host");
	n3t_pack(N3T_DEFAULT_GROUPS, 6, true, &a);
	result(a.metric_set[N3T_M_frontend_bound] == a.metric_set[N3T_M_backend_bound] &&
	       a.metric_set[N3T_M_frontend_bound] == a.metric_set[N3T_M_retiring] &&
	       a.metric_set[N3T_M_frontend_bound] == a.metric_set[N3T_M_bad_speculation],
	       "packer-topdown-l1-one-set-at-c6");
}

static void layout(void)
{
	result(sizeof(struct n3t_snapshot_header) == 48 &&
	       offsetof(struct n3t_snapshot_header, fixed_scale) == 40,
	       "uapi-header-no-holes");
	result(sizeof(struct n3t_snapshot_record) ==
	       8 + 3 * 8 + 8 + 4 * 8 + 8 * (N3T_SNAP_NR_METRICS + 2 * N3T_SNAP_NR_EVENTS) &&
	       offsetof(struct n3t_snapshot_record, value) == 72,
	       "uapi-record-no-holes");
	result(N3T_SNAP_NR_EVENTS == N3T_NR_EVENTS && N3T_SNAP_NR_METRICS == N3T_NR_METRICS &&
	       N3T_SNAP_FIXED_SCALE == N3T_FIXED_SCALE, "uapi-matches-engine");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return eval_lines();
	if (argc > 1 && !strcmp(argv[1], "tables")) {
		tables();
		return 0;
	}
	packer();
	layout();
	return failed;
}
