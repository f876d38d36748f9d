// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry debugfs (/sys/kernel/debug/n3telemetry/): the sampler's cost
 * per CPU (cost), and in test builds only (make N3T_TESTS=y) the test
 * controls: manual slices (manual, advance) and the race windows
 * (delay_us_read, delay_us_switch).
 *
 * A front-end: reads the sampler through its API (n3t_read_cost()), ends
 * slices with n3t_advance_set(), and points the knobs' files at config.c's
 * variables; includes n3telemetry.h and debugfs.h.  Nothing calls it but
 * main.c.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "debugfs.h"
#include "n3telemetry.h"

static struct dentry *n3t_debugfs;

static int n3t_cost_show(struct seq_file *m, void *v)
{
	struct n3t_cost cost;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (n3t_read_cost(cpu, &cost))
			seq_printf(m, "cpu%u slices %llu total_ns %llu max_ns %llu looks %llu rests %llu asides %llu create_failed %llu set_busy %llu\n",
				   cpu, cost.slices, cost.total_ns, cost.max_ns, cost.looks,
				   cost.rests, cost.asides, cost.create_failed, cost.set_busy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(n3t_cost);

#ifdef N3T_TEST_HOOKS
/* Write a CPU number, or -1 for all: that slice ends now (tests). */
static ssize_t n3t_advance_write(struct file *f, const char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	s64 v;
	int ret = kstrtos64_from_user(ubuf, len, 10, &v);

	if (ret)
		return ret;
	if (v < -1 || v >= nr_cpu_ids)
		return -EINVAL;
	n3t_advance_set(NULL, v < 0 ? U64_MAX : v);
	return len;
}

static const struct file_operations n3t_advance_fops = {
	.owner = THIS_MODULE,
	.write = n3t_advance_write,
	.llseek = noop_llseek,
};

/*
 * The knobs are read locklessly by the samplers and readers on other CPUs
 * (READ_ONCE()), so they are written whole (WRITE_ONCE()), which
 * debugfs_create_bool() and debugfs_create_u32() do not promise.
 */
static ssize_t n3t_manual_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(n3t_manual) ? 'Y' : 'N', '\n' };

	return simple_read_from_buffer(ubuf, len, ppos, buf, sizeof(buf));
}

static ssize_t n3t_manual_write(struct file *f, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	bool v;
	int ret = kstrtobool_from_user(ubuf, len, &v);

	if (ret)
		return ret;
	WRITE_ONCE(n3t_manual, v);
	return len;
}

static const struct file_operations n3t_manual_fops = {
	.owner = THIS_MODULE,
	.read = n3t_manual_read,
	.write = n3t_manual_write,
	.llseek = default_llseek,
};

static int n3t_delay_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int n3t_delay_set(void *data, u64 val)
{
	if (val > U32_MAX)
		return -EINVAL;
	WRITE_ONCE(*(u32 *)data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(n3t_delay_fops, n3t_delay_get, n3t_delay_set, "%llu\n");

/* Test builds only: the manual slice controls and the race windows. */
static void n3t_test_debugfs(void)
{
	debugfs_create_file("advance", 0200, n3t_debugfs, NULL, &n3t_advance_fops);
	debugfs_create_file("manual", 0600, n3t_debugfs, NULL, &n3t_manual_fops);
	debugfs_create_file_unsafe("delay_us_read", 0600, n3t_debugfs,
				   &n3t_delay_us[N3T_HOOK_READ], &n3t_delay_fops);
	debugfs_create_file_unsafe("delay_us_switch", 0600, n3t_debugfs,
				   &n3t_delay_us[N3T_HOOK_SWITCH], &n3t_delay_fops);
}
#else
static void n3t_test_debugfs(void) { }
#endif

/**
 * n3t_debugfs_init() - create the debugfs files
 *
 * After the sampler is set up (n3t_collect_init()); debugfs failures are
 * not errors.
 */
void n3t_debugfs_init(void)
{
	n3t_debugfs = debugfs_create_dir("n3telemetry", NULL);
	debugfs_create_file("cost", 0400, n3t_debugfs, NULL, &n3t_cost_fops);
	n3t_test_debugfs();
}

/**
 * n3t_debugfs_exit() - remove them, before the sampler goes
 */
void n3t_debugfs_exit(void)
{
	debugfs_remove_recursive(n3t_debugfs);
}
