// SPDX-License-Identifier: GPL-2.0
/*
 * make bench only: the price of the exported perf calls the sampler is made
 * of, on the running kernel, so that its cost per slice can be set against
 * the least those calls can cost (selftests/bench/table.py does the sums).
 *
 * On one CPU, in a kworker as the sampler runs: with n pinned counting
 * events in the CPU's context, k of them enabled, the time of
 * perf_event_enable() and perf_event_disable() on one more, and of
 * perf_event_read_value() on it while it counts and once it is disabled.
 * Under qemu -icount shift=0 a guest nanosecond is one guest instruction.
 * Each figure is the median of @reps calls (an interrupt that lands in one
 * call does not count), less the cost of reading the clock.
 * Results go to the kernel log, one line per (n, k), while the module loads;
 * every event is released before loading completes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

static int pmu_type = PERF_TYPE_RAW;
module_param(pmu_type, int, 0444);
MODULE_PARM_DESC(pmu_type, "perf type number of the CPU PMU (default PERF_TYPE_RAW)");

static unsigned int reps = 64;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "calls per figure, 1 to 4096 (default 64)");

#define PC_MAX_EVENTS	48
#define PC_MAX_ON	5	/* below the 6 programmable counters of QEMU and N3 */

static const unsigned int pc_events[] = { 1, 8, 16, 32, PC_MAX_EVENTS };

/* common PMUv3 event numbers, without CPU_CYCLES (0x11) and CHAIN (0x1e) */
static u64 pc_code(unsigned int i)
{
	if (i >= 0x11)
		i++;
	if (i >= 0x1e)
		i++;
	return i;
}

static struct perf_event *pc_create(unsigned int cpu, unsigned int i)
{
	struct perf_event_attr attr = {
		.type = pmu_type,
		.size = sizeof(attr),
		.config = pc_code(i),
		.pinned = 1,
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

static u64 pc_clock_cost(void)
{
	u64 t0 = local_clock();
	unsigned int r;

	for (r = 0; r < 1024; r++)
		local_clock();
	return div_u64(local_clock() - t0, 1025);
}

static int pc_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* the median of @reps times, less the clock's own cost */
static u64 pc_median(u64 *t, u64 clk)
{
	u64 m;

	sort(t, reps, sizeof(*t), pc_cmp, NULL);
	m = t[reps / 2];
	return m > clk ? m - clk : 0;
}

/*
 * One (n, k) point: the costs of the calls on ev[n - 1] with ev[0..k) on;
 * @t has room for 4 * @reps times.
 */
static int pc_point(struct perf_event **ev, unsigned int n, unsigned int k, u64 clk, u64 *t)
{
	u64 *en = t, *dis = t + reps, *ron = t + 2 * reps, *roff = t + 3 * reps;
	u64 t0, enabled, running, ran[PC_MAX_ON + 1];
	struct perf_event *tgt = ev[n - 1];
	unsigned int i, r;
	bool full;

	for (i = 0; i < k; i++)
		perf_event_read_value(ev[i], &enabled, &ran[i]);
	perf_event_read_value(tgt, &enabled, &ran[k]);
	for (i = 0; i < k; i++)
		perf_event_enable(ev[i]);
	for (r = 0; r < reps; r++) {
		t0 = local_clock();
		perf_event_enable(tgt);
		en[r] = local_clock() - t0;
		t0 = local_clock();
		perf_event_read_value(tgt, &enabled, &running);
		ron[r] = local_clock() - t0;
		t0 = local_clock();
		perf_event_disable(tgt);
		dis[r] = local_clock() - t0;
		t0 = local_clock();
		perf_event_read_value(tgt, &enabled, &running);
		roff[r] = local_clock() - t0;
	}
	/* a pinned event that found no counter does not run */
	full = running == ran[k];
	for (i = 0; i < k; i++) {
		perf_event_disable(ev[i]);
		perf_event_read_value(ev[i], &enabled, &running);
		full |= running == ran[i];
	}
	if (full) {
		pr_info("events %u on %u: no counter left for one more\n", n, k);
		return -ENOSPC;
	}
	pr_info("events %u on %u enable %llu disable %llu read_on %llu read_off %llu\n",
		n, k, pc_median(en, clk), pc_median(dis, clk), pc_median(ron, clk),
		pc_median(roff, clk));
	return 0;
}

/* on @arg, the CPU: in one of its bound kworkers */
static long pc_run(void *arg)
{
	unsigned int cpu = (unsigned long)arg, a, i, k, made = 0;
	struct perf_event **ev;
	long ret = 0;
	u64 clk, *t;

	ev = kcalloc(PC_MAX_EVENTS, sizeof(*ev), GFP_KERNEL);
	t = kvcalloc(4 * reps, sizeof(*t), GFP_KERNEL);
	if (!ev || !t) {
		ret = -ENOMEM;
		goto out;
	}
	clk = pc_clock_cost();
	pr_info("cpu %u clock %llu reps %u\n", cpu, clk, reps);
	for (a = 0; a < ARRAY_SIZE(pc_events) && !ret; a++) {
		unsigned int n = pc_events[a];

		for (; made < n; made++) {
			ev[made] = pc_create(cpu, made);
			if (IS_ERR(ev[made])) {
				ret = PTR_ERR(ev[made]);
				pr_err("cannot create event 0x%llx on cpu %u: %ld\n",
				       pc_code(made), cpu, ret);
				goto out;
			}
		}
		for (k = 0; k <= PC_MAX_ON && k < n; k++) {
			if (pc_point(ev, n, k, clk, t))
				break;
			cond_resched();
		}
	}
out:
	for (i = 0; i < made; i++)
		perf_event_release_kernel(ev[i]);
	kvfree(t);
	kfree(ev);
	return ret;
}

static int __init pc_init(void)
{
	unsigned int cpu = cpumask_first(cpu_online_mask);
	long ret;

	if (!reps || reps > 4096)
		return -EINVAL;
	/*
	 * What work_on_cpu_safe() did (gone in 7.2): -ENODEV if the CPU went
	 * offline meanwhile, and it stays online while pc_run() runs there
	 */
	cpus_read_lock();
	ret = cpu_online(cpu) ? work_on_cpu(cpu, pc_run, (void *)(unsigned long)cpu) : -ENODEV;
	cpus_read_unlock();
	return ret;
}
module_init(pc_init);

static void __exit pc_exit(void)
{
}
module_exit(pc_exit);

MODULE_DESCRIPTION("make bench: the cost of the exported perf calls on this kernel");
MODULE_LICENSE("GPL");
