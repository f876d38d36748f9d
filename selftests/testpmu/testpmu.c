// SPDX-License-Identifier: GPL-2.0
/*
 * n3t_testpmu: a CPU-bound perf PMU for tests, with a configurable number of
 * counters, whose counts are set by the test.
 *
 * Writing "cpu=2 CPU_CYCLES=1000000 STALL_SLOT=2100000" (event names or
 * numbers, e.g. 0x3f=5) to /sys/kernel/debug/n3t_testpmu/inject adds each
 * delta to the events of that number *currently counting* on CPU 2, as the
 * hardware would.  An event that finds no free counter fails to schedule, so
 * a pinned event ends in the error state, exactly as on a real PMU.
 * /sys/kernel/debug/n3t_testpmu/counters changes the number of programmable
 * counters at run time (as if another user held the others), 0 included;
 * cycle_counter takes the cycle counter away and gives it back.
 *
 * /sys/kernel/debug/n3t_testpmu/standin stands in for the perf hard-lockup
 * detector: writing "hw" (the CPU PMU, as kernel/watchdog_perf.c does) or
 * "tp" (this PMU) creates a pinned cycles event on every online CPU, after
 * whatever already holds counters; reading says per CPU whether it got a
 * counter ("running") or not ("starved"); writing "off" releases them.
 *
 * Per-task events are accepted, so that a test can stand in for KVM's vPMU
 * or perf stat of a command.  Before 6.2 they need a CPU PMU, whose
 * contexts this PMU shares, and a task whose hardware context that PMU made
 * (tp_shares_hw_context(), tp_task_ctx_ok()).
 *
 * /sys/kernel/debug/n3t_testpmu/active says per online CPU how many of this
 * PMU's counters are held by an event now ("cpu2 3").
 *
 * /sys/kernel/debug/n3t_testpmu/events says per online CPU how many
 * CPU-wide events of this PMU exist now, counting or not (what perf's
 * lists hold and walk at every reschedule), and the most since the last
 * write of "0" ("cpu2 7 peak 12").
 *
 * /sys/kernel/debug/n3t_testpmu/hog is another pinned user wanting N
 * programmable counters: writing "tp N" (this PMU) or "hw N" (the CPU PMU,
 * raw event 0x08) creates N pinned events on every online CPU ("tp N 0-2":
 * on those CPUs only); reading says
 * per CPU how many of them run ("cpu2 4/6"); writing "off" releases them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "engine.h"

#define TP_MAX		31
#define TP_CYCLES	0x11

static unsigned int counters = 6;
module_param(counters, uint, 0444);
MODULE_PARM_DESC(counters, "Programmable counters per CPU (0..31)");

static bool cycle_counter = true;
module_param(cycle_counter, bool, 0444);
MODULE_PARM_DESC(cycle_counter, "A dedicated counter for CPU_CYCLES (0x11)");

/**
 * struct tp_cpu - one CPU's counters
 * @slot: events holding the programmable counters
 * @cyc: event holding the cycle counter
 *
 * Changed only on the CPU itself with interrupts off (pmu add/del and the
 * injection IPI).
 */
struct tp_cpu {
	struct perf_event *slot[TP_MAX];
	struct perf_event *cyc;
};

static DEFINE_PER_CPU(struct tp_cpu, tp_cpus);
/* CPU-wide events of this PMU that exist, per CPU, and their peak */
static DEFINE_PER_CPU(atomic_t, tp_alive);
static DEFINE_PER_CPU(atomic_t, tp_peak);

static void tp_destroy(struct perf_event *event)
{
	atomic_dec(per_cpu_ptr(&tp_alive, event->cpu));
}

static struct dentry *tp_dir;
static struct pmu tp_pmu;

#ifdef N3T_HAVE_PMU_CONTEXT
static bool tp_task_ctx_ok(struct perf_event *event)
{
	return true;
}
#else
/*
 * Before 6.2 a task's context has one struct pmu, that of the event that
 * made it, and keeps it until the task exits: every switch to the task then
 * calls into that PMU (perf_event_context_sched_in()).  This PMU may be
 * unloaded, so it takes a task's events only where the task's hardware
 * context is another PMU's (the CPU PMU's, built in): one this PMU's own
 * events never made, since they are refused until one exists.  A child
 * inherits its parent's context's PMU.  pmuuser makes the context with a
 * CPU PMU event first.
 */
static bool tp_task_ctx_ok(struct perf_event *event)
{
	struct perf_event_context *ctx;
	bool ok;

	rcu_read_lock();
	ctx = rcu_dereference(event->hw.target->perf_event_ctxp[perf_hw_context]);
	ok = ctx && ctx->pmu != &tp_pmu;
	rcu_read_unlock();
	if (!ok)
		pr_notice_once("a task's events need its hardware context made by the CPU PMU before 6.2\n");
	return ok;
}
#endif

static int tp_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* CPU-wide events, and per-task ones where the perf core allows them */
	if ((event->cpu < 0 && !(event->attach_state & PERF_ATTACH_TASK)) ||
	    is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->attr.config > 0xffff)
		return -EINVAL;
	if ((event->attach_state & PERF_ATTACH_TASK) && !tp_task_ctx_ok(event))
		return -EOPNOTSUPP;
	if (event->cpu >= 0) {
		int n = atomic_inc_return(per_cpu_ptr(&tp_alive, event->cpu));
		atomic_t *peak = per_cpu_ptr(&tp_peak, event->cpu);
		int p = atomic_read(peak);

		while (n > p && !atomic_try_cmpxchg(peak, &p, n))
			;
		event->destroy = tp_destroy;
	}
	return 0;
}

static void tp_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void tp_stop(struct perf_event *event, int flags)
{
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int tp_add(struct perf_event *event, int flags)
{
	struct tp_cpu *tc = this_cpu_ptr(&tp_cpus);
	unsigned int i, n = READ_ONCE(counters);

	if (READ_ONCE(cycle_counter) && event->attr.config == TP_CYCLES && !tc->cyc) {
		tc->cyc = event;
		event->hw.idx = TP_MAX;
	} else {
		for (i = 0; i < n && i < TP_MAX; i++)
			if (!tc->slot[i])
				break;
		if (i >= n || i >= TP_MAX)
			return -EAGAIN;
		tc->slot[i] = event;
		event->hw.idx = i;
	}
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tp_start(event, 0);
	return 0;
}

static void tp_del(struct perf_event *event, int flags)
{
	struct tp_cpu *tc = this_cpu_ptr(&tp_cpus);

	tp_stop(event, PERF_EF_UPDATE);
	if (event->hw.idx == TP_MAX)
		tc->cyc = NULL;
	else
		tc->slot[event->hw.idx] = NULL;
}

static void tp_read(struct perf_event *event)
{
	/* the count lives in event->count; injection updates it */
}

static struct pmu tp_pmu = {
	.module		= THIS_MODULE,
	/*
	 * Per-task events too, so that perf's order (CPU pinned, task
	 * pinned, CPU flexible, task flexible) is exercised for real.  Before
	 * 6.2 (no struct perf_event_pmu_context, see Kbuild) tp_init() keeps
	 * this only where it can share the CPU PMU's contexts.
	 */
	.task_ctx_nr	= perf_hw_context,
	.event_init	= tp_event_init,
	.add		= tp_add,
	.del		= tp_del,
	.start		= tp_start,
	.stop		= tp_stop,
	.read		= tp_read,
};

#define TP_INJECT_MAX	N3T_MAX_EVENTS

/**
 * struct tp_inject - one injection request
 * @nr: entries used
 * @code: event numbers
 * @delta: counts to add
 */
struct tp_inject {
	unsigned int nr;
	u16 code[TP_INJECT_MAX];
	u64 delta[TP_INJECT_MAX];
};

static void tp_add_counts(struct perf_event *event, const struct tp_inject *req)
{
	unsigned int i;

	if (!event || (event->hw.state & PERF_HES_STOPPED))
		return;
	for (i = 0; i < req->nr; i++)
		if (event->attr.config == req->code[i])
			local64_add(req->delta[i], &event->count);
}

static void tp_inject_local(void *arg)
{
	struct tp_cpu *tc = this_cpu_ptr(&tp_cpus);
	unsigned int i;

	for (i = 0; i < TP_MAX; i++)
		tp_add_counts(tc->slot[i], arg);
	tp_add_counts(tc->cyc, arg);
}

static int tp_parse(char *line, unsigned int *cpu, struct tp_inject *req)
{
	char *tok, *val;
	bool have_cpu = false;
	unsigned int code, m;
	int ev;

	req->nr = 0;
	while ((tok = strsep(&line, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "cpu")) {
			if (kstrtouint(val, 0, cpu))
				return -EINVAL;
			have_cpu = true;
			continue;
		}
		for (m = 0, ev = -ENOENT; ev < 0 && m < n3t_nr_models; m++)
			ev = n3t_event_by_name(n3t_models[m], tok);
		if (ev >= 0)
			code = n3t_models[m - 1]->events[ev].code;
		else if (kstrtouint(tok, 0, &code) || code > 0xffff)
			return -EINVAL;
		if (req->nr == TP_INJECT_MAX || kstrtou64(val, 0, &req->delta[req->nr]))
			return -EINVAL;
		req->code[req->nr++] = code;
	}
	return have_cpu ? 0 : -EINVAL;
}

static ssize_t tp_inject_write(struct file *f, const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	struct tp_inject *req;
	unsigned int cpu;
	char *buf;
	int ret;

	if (len > 4096)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	ret = req ? tp_parse(buf, &cpu, req) : -ENOMEM;
	if (!ret && (cpu >= nr_cpu_ids || !cpu_online(cpu)))
		ret = -EINVAL;
	if (!ret)
		ret = smp_call_function_single(cpu, tp_inject_local, req, 1);
	kfree(req);
	kfree(buf);
	return ret ? ret : len;
}

static const struct file_operations tp_inject_fops = {
	.owner = THIS_MODULE,
	.write = tp_inject_write,
	.llseek = noop_llseek,
};

static int tp_counters_set(void *data, u64 val)
{
	if (val > TP_MAX)
		return -EINVAL;
	WRITE_ONCE(counters, val);
	return 0;
}

static int tp_counters_get(void *data, u64 *val)
{
	*val = READ_ONCE(counters);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(tp_counters_fops, tp_counters_get, tp_counters_set, "%llu\n");

/*
 * cycle_counter as debugfs_create_bool() would show it (Y/N), but written
 * with WRITE_ONCE(): tp_add() reads it on any CPU without a lock
 */
static ssize_t tp_cycle_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(cycle_counter) ? 'Y' : 'N', '\n' };

	return simple_read_from_buffer(ubuf, len, ppos, buf, sizeof(buf));
}

static ssize_t tp_cycle_write(struct file *f, const char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	bool v;
	int ret = kstrtobool_from_user(ubuf, len, &v);

	if (ret)
		return ret;
	WRITE_ONCE(cycle_counter, v);
	return len;
}

static const struct file_operations tp_cycle_fops = {
	.owner = THIS_MODULE,
	.read = tp_cycle_read,
	.write = tp_cycle_write,
	.llseek = default_llseek,
};

static DEFINE_MUTEX(tp_standin_lock);	/* protects tp_standin, tp_standin_run */
static struct perf_event *tp_standin[NR_CPUS];
static u64 tp_standin_run[NR_CPUS];

static void tp_standin_off(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (tp_standin[cpu])
			perf_event_release_kernel(tp_standin[cpu]);
		tp_standin[cpu] = NULL;
	}
}

static ssize_t tp_standin_write(struct file *f, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.pinned = 1,
		.disabled = 1,
	};
	char buf[8] = {};
	unsigned int cpu;
	int ret = 0;

	if (len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	strim(buf);
	if (!strcmp(buf, "hw")) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else if (!strcmp(buf, "tp")) {
		attr.type = tp_pmu.type;
		attr.config = TP_CYCLES;
	} else if (strcmp(buf, "off")) {
		return -EINVAL;
	}
	mutex_lock(&tp_standin_lock);
	tp_standin_off();
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *pe;

		if (!strcmp(buf, "off"))
			break;
		pe = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(pe)) {
			ret = PTR_ERR(pe);
			break;
		}
		tp_standin[cpu] = pe;
		perf_event_enable(pe);
	}
	cpus_read_unlock();
	if (ret)
		tp_standin_off();
	mutex_unlock(&tp_standin_lock);
	return ret ? ret : len;
}

/*
 * A pinned event that lost its counter sits in the error state, where its
 * times stop: it is running if its running time still grows.
 */
static int tp_standin_show(struct seq_file *m, void *v)
{
	unsigned int cpu;
	u64 enabled;

	mutex_lock(&tp_standin_lock);
	for_each_possible_cpu(cpu)
		if (tp_standin[cpu])
			perf_event_read_value(tp_standin[cpu], &enabled, &tp_standin_run[cpu]);
	msleep(50);
	for_each_possible_cpu(cpu) {
		u64 now = 0;

		if (!tp_standin[cpu])
			continue;
		perf_event_read_value(tp_standin[cpu], &enabled, &now);
		seq_printf(m, "cpu%u %s\n", cpu, now > tp_standin_run[cpu] ? "running" : "starved");
	}
	mutex_unlock(&tp_standin_lock);
	return 0;
}

static int tp_standin_open(struct inode *inode, struct file *file)
{
	return single_open(file, tp_standin_show, NULL);
}

static const struct file_operations tp_standin_fops = {
	.owner = THIS_MODULE,
	.open = tp_standin_open,
	.read = seq_read,
	.write = tp_standin_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void tp_count_local(void *arg)
{
	struct tp_cpu *tc = this_cpu_ptr(&tp_cpus);
	unsigned int *n = arg, i;

	*n = !!tc->cyc;
	for (i = 0; i < TP_MAX; i++)
		*n += !!tc->slot[i];
}

static int tp_active_show(struct seq_file *m, void *v)
{
	unsigned int cpu, n;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, tp_count_local, &n, 1))
			continue;
		seq_printf(m, "cpu%u %u\n", cpu, n);
	}
	cpus_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tp_active);

static int tp_events_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		seq_printf(m, "cpu%u %d peak %d\n", cpu, atomic_read(per_cpu_ptr(&tp_alive, cpu)),
			   atomic_read(per_cpu_ptr(&tp_peak, cpu)));
	return 0;
}

static int tp_events_open(struct inode *inode, struct file *file)
{
	return single_open(file, tp_events_show, NULL);
}

/* "0": every CPU's peak is what exists now */
static ssize_t tp_events_write(struct file *file, const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	unsigned int cpu, v;
	int ret = kstrtouint_from_user(ubuf, len, 10, &v);

	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		atomic_set(per_cpu_ptr(&tp_peak, cpu), atomic_read(per_cpu_ptr(&tp_alive, cpu)));
	return len;
}

static const struct file_operations tp_events_fops = {
	.owner		= THIS_MODULE,
	.open		= tp_events_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= tp_events_write,
};

#define TP_HOG_EVENT	0x08	/* INST_RETIRED: a programmable counter */

static DEFINE_MUTEX(tp_hog_lock);	/* protects tp_hog, tp_hog_nr */
static struct perf_event **tp_hog;	/* nr_cpu_ids x tp_hog_nr */
static unsigned int tp_hog_nr;

static void tp_hog_off(void)
{
	unsigned int i;

	for (i = 0; tp_hog && i < nr_cpu_ids * tp_hog_nr; i++)
		if (tp_hog[i])
			perf_event_release_kernel(tp_hog[i]);
	kfree(tp_hog);
	tp_hog = NULL;
	tp_hog_nr = 0;
}

static ssize_t tp_hog_write(struct file *f, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.config = TP_HOG_EVENT,
		.pinned = 1,
		.disabled = 1,
	};
	unsigned int cpu, i, n = 0;
	cpumask_var_t cpus;
	char buf[32] = {}, *list;
	int ret = 0;

	if (len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	strim(buf);
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	cpumask_setall(cpus);
	list = strchr(buf + 3, ' ');
	if (list) {
		*list++ = 0;
		if (cpulist_parse(list, cpus)) {
			free_cpumask_var(cpus);
			return -EINVAL;
		}
	}
	if (!strncmp(buf, "hw ", 3))
		attr.type = PERF_TYPE_RAW;
	else if (!strncmp(buf, "tp ", 3))
		attr.type = tp_pmu.type;
	else if (strcmp(buf, "off"))
		ret = -EINVAL;
	if (!ret && strcmp(buf, "off") && (kstrtouint(buf + 3, 10, &n) || !n || n > TP_MAX))
		ret = -EINVAL;
	if (ret) {
		free_cpumask_var(cpus);
		return ret;
	}
	mutex_lock(&tp_hog_lock);
	tp_hog_off();
	if (n) {
		tp_hog = kcalloc(nr_cpu_ids * n, sizeof(*tp_hog), GFP_KERNEL);
		ret = tp_hog ? 0 : -ENOMEM;
		tp_hog_nr = tp_hog ? n : 0;
	}
	cpus_read_lock();
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		for (i = 0; !ret && i < tp_hog_nr; i++) {
			struct perf_event *pe;

			pe = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
			if (IS_ERR(pe)) {
				ret = PTR_ERR(pe);
				break;
			}
			tp_hog[cpu * tp_hog_nr + i] = pe;
			perf_event_enable(pe);
		}
	}
	cpus_read_unlock();
	if (ret)
		tp_hog_off();
	mutex_unlock(&tp_hog_lock);
	free_cpumask_var(cpus);
	return ret ? ret : len;
}

/* running: its running time grows (a starved pinned event's does not) */
static int tp_hog_show(struct seq_file *m, void *v)
{
	unsigned int cpu, i, nr, total;
	u64 enabled, *run;

	mutex_lock(&tp_hog_lock);
	total = nr_cpu_ids * tp_hog_nr;
	run = kcalloc(total ?: 1, sizeof(*run), GFP_KERNEL);
	if (!run) {
		mutex_unlock(&tp_hog_lock);
		return -ENOMEM;
	}
	for (i = 0; i < total; i++)
		if (tp_hog[i])
			perf_event_read_value(tp_hog[i], &enabled, &run[i]);
	msleep(50);
	for_each_possible_cpu(cpu) {
		bool any = false;

		for (i = cpu * tp_hog_nr, nr = 0; i < (cpu + 1) * tp_hog_nr; i++) {
			u64 now = 0;

			if (!tp_hog[i])
				continue;
			any = true;
			perf_event_read_value(tp_hog[i], &enabled, &now);
			nr += now > run[i];
		}
		if (any)
			seq_printf(m, "cpu%u %u/%u\n", cpu, nr, tp_hog_nr);
	}
	mutex_unlock(&tp_hog_lock);
	kfree(run);
	return 0;
}

static int tp_hog_open(struct inode *inode, struct file *file)
{
	return single_open(file, tp_hog_show, NULL);
}

static const struct file_operations tp_hog_fops = {
	.owner = THIS_MODULE,
	.open = tp_hog_open,
	.read = seq_read,
	.write = tp_hog_write,
	.llseek = seq_lseek,
	.release = single_release,
};

#ifdef N3T_HAVE_PMU_CONTEXT
static void tp_context_setup(void)
{
}
#else
/*
 * Before 6.2 every PMU of a task_ctx_nr shares one per-CPU context, the
 * first registered one's (find_pmu_context()), and a task has one context
 * per task_ctx_nr.  A second PMU may take perf_hw_context only with
 * PERF_PMU_CAP_HETEROGENEOUS_CPUS (perf_pmu_register() makes it
 * perf_invalid_context and warns otherwise), as the CPU PMUs of a big.LITTLE
 * system do (arm_pmu.c).  This PMU joins the CPU PMU's contexts so: its
 * events and the CPU PMU's are scheduled in one order, CPU pinned, task
 * pinned, CPU flexible, task flexible, as on 6.2, but in shared lists (a
 * flexible group of either PMU that finds no counter ends that list's turn
 * for both) and rotated together.  Only where a CPU PMU has the hardware
 * context: alone this PMU would own the contexts, which outlive it
 * (free_pmu_context() keeps a shared one).  Otherwise CPU-wide events only.
 */
static bool tp_shares_hw_context(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *pe;
	bool ok;

	cpus_read_lock();
	pe = perf_event_create_kernel_counter(&attr, cpumask_first(cpu_online_mask), NULL,
					      NULL, NULL);
	cpus_read_unlock();
	if (IS_ERR(pe))
		return false;
	ok = pe->pmu->task_ctx_nr == perf_hw_context &&
	     (pe->pmu->capabilities & PERF_PMU_CAP_HETEROGENEOUS_CPUS);
	perf_event_release_kernel(pe);
	return ok;
}

static void tp_context_setup(void)
{
	if (tp_shares_hw_context())
		tp_pmu.capabilities |= PERF_PMU_CAP_HETEROGENEOUS_CPUS;
	else
		tp_pmu.task_ctx_nr = perf_invalid_context;
}
#endif

static int __init tp_init(void)
{
	int ret;

	if (counters > TP_MAX)
		return -EINVAL;
	tp_context_setup();
	ret = perf_pmu_register(&tp_pmu, "n3t_testpmu", -1);
	if (ret)
		return ret;
	tp_dir = debugfs_create_dir("n3t_testpmu", NULL);
	debugfs_create_file("inject", 0200, tp_dir, NULL, &tp_inject_fops);
	debugfs_create_file_unsafe("counters", 0600, tp_dir, NULL, &tp_counters_fops);
	debugfs_create_file("cycle_counter", 0600, tp_dir, NULL, &tp_cycle_fops);
	debugfs_create_file("standin", 0600, tp_dir, NULL, &tp_standin_fops);
	debugfs_create_file("active", 0400, tp_dir, NULL, &tp_active_fops);
	debugfs_create_file("events", 0600, tp_dir, NULL, &tp_events_fops);
	debugfs_create_file("hog", 0600, tp_dir, NULL, &tp_hog_fops);
	return 0;
}

static void __exit tp_exit(void)
{
	debugfs_remove_recursive(tp_dir);
	mutex_lock(&tp_standin_lock);
	tp_standin_off();
	mutex_unlock(&tp_standin_lock);
	mutex_lock(&tp_hog_lock);
	tp_hog_off();
	mutex_unlock(&tp_hog_lock);
	perf_pmu_unregister(&tp_pmu);
}

module_init(tp_init);
module_exit(tp_exit);

MODULE_DESCRIPTION("Scripted test PMU for n3telemetry selftests");
MODULE_LICENSE("GPL");
