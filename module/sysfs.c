// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: the /sys/kernel/n3telemetry ABI (see
 * Documentation/ABI/testing/sysfs-kernel-n3telemetry).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/error-injection.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "n3telemetry.h"

#define N3T_SYSTEM	(-1)
#define N3T_WRITE_MAX	512

static struct kobject *n3t_kobj;
static enum cpuhp_state n3t_sysfs_hp;

/**
 * struct n3t_dir - a cpuN or system directory
 * @kobj: its kobject
 * @cpu: the CPU, or N3T_SYSTEM
 */
struct n3t_dir {
	struct kobject kobj;
	int cpu;
};

static struct n3t_dir *n3t_system;
static struct n3t_dir *n3t_cpu_dirs[NR_CPUS];

/**
 * struct n3t_view - a consistent copy of one directory's latest interval
 * @res: the result (for system/: sums over the CPUs that collect)
 * @ok: whether any data was published
 * @state: cpuN/: whether the CPU collects
 * @nr_state: system/: online CPUs in each state
 * @nr_sets: sets in @sets
 * @nr_ev: counts in @delta
 * @events: every event of the sets in use
 * @sets: per-set data
 * @delta: the sets' counts, set after set
 * @data: storage of @sets and @delta
 *
 * Allocated per read, freed by the reader.
 */
struct n3t_view {
	struct n3t_result res;
	bool ok;
	enum n3t_cpu_state state;
	unsigned int nr_state[N3T_NR_CPU_STATES];
	unsigned int nr_sets;
	unsigned int nr_ev;
	DECLARE_BITMAP(events, N3T_NR_EVENTS);
	struct n3t_pub_set *sets;
	u64 *delta;
	u64 data[];
};

/* Global and not inlined, so that fault injection can fail it (fail_function). */
noinline struct n3t_view *n3t_view_alloc(unsigned int nr_sets, unsigned int nr_ev)
{
	size_t sets = ALIGN(array_size(nr_sets, sizeof(struct n3t_pub_set)), 8);
	struct n3t_view *v;

	v = kvzalloc(size_add(struct_size(v, data, 0),
			      size_add(sets, array_size(nr_ev, sizeof(u64)))), GFP_KERNEL);
	if (!v)
		return NULL;
	v->nr_sets = nr_sets;
	v->nr_ev = nr_ev;
	v->sets = (void *)v->data;
	v->delta = (void *)v->data + sets;
	return v;
}
ALLOW_ERROR_INJECTION(n3t_view_alloc, NULL);

/* Fill a view; the caller holds n3t_cfg.lock. */
static struct n3t_view *n3t_view_get(int cpu)
{
	const struct n3t_plan *plan = n3t_cfg.plan;
	unsigned int nr = plan->nr_sets, nr_ev = n3t_plan_nr_events(plan);
	unsigned int c, s, i, e, first;
	struct n3t_view *v, *one = NULL;
	DECLARE_BITMAP(counted, N3T_NR_EVENTS);
	u64 *counts;

	v = n3t_view_alloc(nr, nr_ev);
	if (!v)
		return NULL;
	for (s = 0; s < nr; s++)
		bitmap_or(v->events, v->events, plan->set[s].events, N3T_NR_EVENTS);
	if (cpu != N3T_SYSTEM) {
		v->state = n3t_cpu_state(cpu);
		v->ok = n3t_read_cpu(cpu, &v->res, v->sets, v->delta, nr, nr_ev) && v->res.seq;
		return v;
	}

	/* system: sum the latest interval's per-set deltas of every online CPU */
	one = n3t_view_alloc(nr, nr_ev);
	counts = kcalloc(N3T_NR_EVENTS, sizeof(*counts), GFP_KERNEL);
	if (!one || !counts)
		goto fail;
	/* no cpus_read_lock(): CPUs going offline simply stop publishing */
	for_each_possible_cpu(c) {
		if (cpu_online(c))
			v->nr_state[n3t_cpu_state(c)]++;
		if (!n3t_read_cpu(c, &one->res, one->sets, one->delta, nr, nr_ev) ||
		    !one->res.seq)
			continue;
		v->ok = true;
		v->res.seq = max(v->res.seq, one->res.seq);
		v->res.end_ns = max(v->res.end_ns, one->res.end_ns);
		v->res.interval_ns = max(v->res.interval_ns, one->res.interval_ns);
		v->res.lost += one->res.lost;
		for (e = 0; e < N3T_NR_EVENTS; e++) {
			v->res.ev_count[e] += one->res.ev_count[e];
			v->res.ev_ns[e] += one->res.ev_ns[e];
		}
		for (s = 0, first = 0; s < nr; s++) {
			unsigned int w = bitmap_weight(plan->set[s].events, N3T_NR_EVENTS);

			v->sets[s].lost += one->sets[s].lost;
			if (one->sets[s].good_ns) {
				for (i = 0; i < w; i++)
					v->delta[first + i] += one->delta[first + i];
				v->sets[s].good_ns += one->sets[s].good_ns;
			}
			first += w;
		}
	}
	v->res.nr_sets = nr;
	for (s = 0, i = 0; s < nr; s++) {
		bitmap_zero(counted, N3T_NR_EVENTS);
		for_each_set_bit(e, plan->set[s].events, N3T_NR_EVENTS) {
			counts[e] = v->delta[i++];
			if (v->sets[s].good_ns && test_bit(e, n3t_cfg.usable))
				__set_bit(e, counted);
		}
		bitmap_or(v->res.counted, v->res.counted, counted, N3T_NR_EVENTS);
		n3t_eval_set(plan, s, counts, counted, n3t_cfg.slots, v->res.value,
			     v->res.valid);
	}
	kfree(counts);
	kvfree(one);
	return v;
fail:
	kfree(counts);
	kvfree(one);
	kvfree(v);
	return NULL;
}

static int n3t_dir_cpu(struct kobject *kobj)
{
	return container_of(kobj, struct n3t_dir, kobj)->cpu;
}

/* The view of a cpuN or system directory; kvfree() it after use. */
static struct n3t_view *n3t_dir_view(struct kobject *kobj)
{
	struct n3t_view *v;

	mutex_lock(&n3t_cfg.lock);
	v = n3t_view_get(n3t_dir_cpu(kobj));
	mutex_unlock(&n3t_cfg.lock);
	return v;
}

/**
 * struct n3t_group_attr - a metric group file
 * @attr: the attribute
 * @group: enum n3t_group_id
 */
struct n3t_group_attr {
	struct kobj_attribute attr;
	unsigned int group;
};

static ssize_t n3t_group_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int g = container_of(attr, struct n3t_group_attr, attr)->group;
	const struct n3t_group_desc *grp = &n3t_groups[g];
	char val[N3T_VALUE_BUF];
	struct n3t_view *v;
	unsigned int i, m;
	int len = 0;
	bool ok;

	v = n3t_dir_view(kobj);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < grp->nr; i++) {
		m = grp->metrics[i];
		ok = v->ok && test_bit(m, v->res.valid);
		n3t_format(val, sizeof(val), m, v->res.value[m], ok);
		len += sysfs_emit_at(buf, len, "%s %s\n", n3t_metrics[m].name, val);
	}
	kvfree(v);
	return len;
}

static ssize_t events_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct n3t_view *v = n3t_dir_view(kobj);
	unsigned int e;
	int len = 0;

	if (!v)
		return -ENOMEM;
	for_each_set_bit(e, v->events, N3T_NR_EVENTS)
		len += sysfs_emit_at(buf, len, "%s %llu %llu\n", n3t_events[e].name,
				     v->res.ev_count[e], v->res.ev_ns[e]);
	kvfree(v);
	return len;
}

static ssize_t status_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct n3t_view *v;
	unsigned int s;
	int len;

	v = n3t_dir_view(kobj);
	if (!v)
		return -ENOMEM;
	len = sysfs_emit(buf, "seq %llu\nend_ns %llu\ninterval_ns %llu\nlost_slices %u\n",
			 v->res.seq, v->res.end_ns, v->res.interval_ns, v->res.lost);
	if (n3t_dir_cpu(kobj) != N3T_SYSTEM)
		len += sysfs_emit_at(buf, len, "state %s\n", n3t_cpu_state_name(v->state));
	else
		len += sysfs_emit_at(buf, len,
				     "cpus_collecting %u\ncpus_isolated %u\ncpus_failed %u\n",
				     v->nr_state[N3T_CPU_COLLECTING],
				     v->nr_state[N3T_CPU_ISOLATED],
				     v->nr_state[N3T_CPU_NO_MEMORY] +
				     v->nr_state[N3T_CPU_NO_COUNTERS]);
	for (s = 0; s < v->nr_sets; s++) {
		u64 ivl = v->res.interval_ns;
		/* system/: good_ns sums over CPUs; coverage is per CPU on average */
		u64 good = v->sets[s].good_ns;
		u64 ppm = 0;

		if (n3t_dir_cpu(kobj) == N3T_SYSTEM && v->nr_state[N3T_CPU_COLLECTING])
			good = div_u64(good, v->nr_state[N3T_CPU_COLLECTING]);
		if (ivl)
			ppm = min_t(u64, mul_u64_u64_div_u64(good, 10000, ivl), 10000);
		len += sysfs_emit_at(buf, len, "set%u_coverage %llu.%02llu\nset%u_lost %u\n",
				     s, ppm / 100, ppm % 100, s, v->sets[s].lost);
	}
	kvfree(v);
	return len;
}

#define N3T_GROUP_ATTR(g) \
	static struct n3t_group_attr n3t_attr_##g = { \
		.attr = __ATTR(g, 0444, n3t_group_show, NULL), .group = N3T_G_##g }

N3T_GROUP_ATTR(topdown_l1);
N3T_GROUP_ATTR(topdown_frontend);
N3T_GROUP_ATTR(topdown_backend);
N3T_GROUP_ATTR(cycle_accounting);
N3T_GROUP_ATTR(general);
N3T_GROUP_ATTR(mpki);
N3T_GROUP_ATTR(miss_ratio);
N3T_GROUP_ATTR(branch);
N3T_GROUP_ATTR(itlb);
N3T_GROUP_ATTR(dtlb);
N3T_GROUP_ATTR(l1i_cache);
N3T_GROUP_ATTR(l1d_cache);
N3T_GROUP_ATTR(l2_cache);
N3T_GROUP_ATTR(ll_cache);
N3T_GROUP_ATTR(operation_mix);
N3T_GROUP_ATTR(sve);
N3T_GROUP_ATTR(fp_arithmetic);
N3T_GROUP_ATTR(fp_precision);

static struct kobj_attribute events_attr = __ATTR(events, 0400, events_show, NULL);
static struct kobj_attribute status_attr = __ATTR(status, 0444, status_show, NULL);

static struct attribute *n3t_dir_attrs[] = {
	&n3t_attr_topdown_l1.attr.attr,
	&n3t_attr_topdown_frontend.attr.attr,
	&n3t_attr_topdown_backend.attr.attr,
	&n3t_attr_cycle_accounting.attr.attr,
	&n3t_attr_general.attr.attr,
	&n3t_attr_mpki.attr.attr,
	&n3t_attr_miss_ratio.attr.attr,
	&n3t_attr_branch.attr.attr,
	&n3t_attr_itlb.attr.attr,
	&n3t_attr_dtlb.attr.attr,
	&n3t_attr_l1i_cache.attr.attr,
	&n3t_attr_l1d_cache.attr.attr,
	&n3t_attr_l2_cache.attr.attr,
	&n3t_attr_ll_cache.attr.attr,
	&n3t_attr_operation_mix.attr.attr,
	&n3t_attr_sve.attr.attr,
	&n3t_attr_fp_arithmetic.attr.attr,
	&n3t_attr_fp_precision.attr.attr,
	&events_attr.attr,
	&status_attr.attr,
	NULL,
};

/* root_only=1 takes read access from everyone but root. */
static umode_t n3t_is_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	return n3t_root_only ? attr->mode & 0600 : attr->mode;
}

static const struct attribute_group n3t_dir_group = {
	.attrs = n3t_dir_attrs,
	.is_visible = n3t_is_visible,
};

static const struct attribute_group *n3t_dir_groups[] = {
	&n3t_dir_group,
	NULL,
};

static void n3t_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct n3t_dir, kobj));
}

static const struct kobj_type n3t_dir_ktype = {
	.release = n3t_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = n3t_dir_groups,
};

static struct n3t_dir *n3t_dir_add(int cpu)
{
	struct n3t_dir *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int ret;

	if (!d)
		return NULL;
	d->cpu = cpu;
	if (cpu == N3T_SYSTEM)
		ret = kobject_init_and_add(&d->kobj, &n3t_dir_ktype, n3t_kobj, "system");
	else
		ret = kobject_init_and_add(&d->kobj, &n3t_dir_ktype, n3t_kobj, "cpu%d", cpu);
	if (ret) {
		kobject_put(&d->kobj);
		return NULL;
	}
	return d;
}

/* Never fails: a CPU must come online even if its directory cannot. */
static int n3t_sysfs_online(unsigned int cpu)
{
	n3t_cpu_dirs[cpu] = n3t_dir_add(cpu);
	if (!n3t_cpu_dirs[cpu])
		pr_warn_ratelimited("cpu%u: could not create its directory; the CPU is online regardless\n",
				    cpu);
	return 0;
}

static int n3t_sysfs_offline(unsigned int cpu)
{
	if (n3t_cpu_dirs[cpu])
		kobject_put(&n3t_cpu_dirs[cpu]->kobj);
	n3t_cpu_dirs[cpu] = NULL;
	return 0;
}

/* Top-level files */

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", N3T_VERSION);
}

static ssize_t cpu_model_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", n3t_cfg.model);
}

static ssize_t slots_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", n3t_cfg.slots);
}

static ssize_t counters_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	int len;

	len = sysfs_emit(buf, "programmable %u\ncycle_counter %s\nreserved %u\n",
			 n3t_cfg.capacity, n3t_cfg.cycle_counter ? "free" : "busy",
			 n3t_cfg.reserved);
	len += sysfs_emit_at(buf, len, "load_programmable %u\nload_cycle_counter %s\n",
			     n3t_cfg.load_capacity, n3t_cfg.load_cycle_counter ? "free" : "busy");
	return len + sysfs_emit_at(buf, len, "repacks_down %u\nrepacks_up %u\n",
				   n3t_cfg.repacks_down, n3t_cfg.repacks_up);
}

static ssize_t interval_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(n3t_cfg.interval_ms));
}

static ssize_t interval_ms_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	unsigned int ms;
	int ret;

	if (count > N3T_WRITE_MAX || memchr(buf, 0, count))
		return -EINVAL;
	ret = kstrtouint(buf, 10, &ms);
	if (ret)
		return ret;
	if (ms < N3T_INTERVAL_MIN || ms > N3T_INTERVAL_MAX)
		return -ERANGE;
	ret = n3t_collect_reconfigure(N3T_KEEP, ms);
	return ret ? ret : count;
}

static int n3t_emit_groups(char *buf, int len, u32 groups)
{
	unsigned int g;
	bool first = true;

	for (g = 0; g < N3T_NR_GROUPS; g++) {
		if (!(groups & BIT(g)))
			continue;
		len += sysfs_emit_at(buf, len, "%s%s", first ? "" : " ", n3t_groups[g].name);
		first = false;
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t groups_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u32 groups;

	mutex_lock(&n3t_cfg.lock);
	groups = n3t_cfg.plan->groups;
	mutex_unlock(&n3t_cfg.lock);
	return n3t_emit_groups(buf, 0, groups);
}

static ssize_t groups_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	u32 groups;
	int ret = n3t_parse_groups(buf, count, &groups);

	if (ret)
		return ret;
	ret = n3t_collect_reconfigure(groups, N3T_KEEP);
	return ret ? ret : count;
}

static ssize_t available_groups_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	return n3t_emit_groups(buf, 0, N3T_ALL_GROUPS);
}

static ssize_t sets_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const struct n3t_plan *plan;
	unsigned int s, e;
	int len = 0;

	mutex_lock(&n3t_cfg.lock);
	plan = n3t_cfg.plan;
	for (s = 0; s < plan->nr_sets; s++) {
		len += sysfs_emit_at(buf, len, "set%u", s);
		for_each_set_bit(e, plan->set[s].events, N3T_NR_EVENTS)
			len += sysfs_emit_at(buf, len, " %s", n3t_events[e].name);
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&n3t_cfg.lock);
	return len;
}

static struct kobj_attribute version_attr = __ATTR_RO(version);
static struct kobj_attribute cpu_model_attr = __ATTR_RO(cpu_model);
static struct kobj_attribute slots_attr = __ATTR_RO(slots);
static struct kobj_attribute counters_attr = __ATTR_RO(counters);
static struct kobj_attribute interval_ms_attr = __ATTR_RW(interval_ms);
static struct kobj_attribute groups_attr = __ATTR_RW(groups);
static struct kobj_attribute available_groups_attr = __ATTR_RO(available_groups);
static struct kobj_attribute sets_attr = __ATTR_RO(sets);

static struct attribute *n3t_top_attrs[] = {
	&version_attr.attr,
	&cpu_model_attr.attr,
	&slots_attr.attr,
	&counters_attr.attr,
	&interval_ms_attr.attr,
	&groups_attr.attr,
	&available_groups_attr.attr,
	&sets_attr.attr,
	NULL,
};

static const struct attribute_group n3t_top_group = {
	.attrs = n3t_top_attrs,
	.is_visible = n3t_is_visible,
};

int n3t_sysfs_init(void)
{
	int ret;

	n3t_kobj = kobject_create_and_add("n3telemetry", kernel_kobj);
	if (!n3t_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(n3t_kobj, &n3t_top_group);
	if (ret)
		goto err_kobj;
	n3t_system = n3t_dir_add(N3T_SYSTEM);
	if (!n3t_system) {
		ret = -ENOMEM;
		goto err_group;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "n3telemetry:sysfs",
				n3t_sysfs_online, n3t_sysfs_offline);
	if (ret < 0)
		goto err_system;
	n3t_sysfs_hp = ret;
	return 0;

err_system:
	kobject_put(&n3t_system->kobj);
err_group:
	sysfs_remove_group(n3t_kobj, &n3t_top_group);
err_kobj:
	kobject_put(n3t_kobj);
	return ret;
}

void n3t_sysfs_exit(void)
{
	cpuhp_remove_state(n3t_sysfs_hp);
	kobject_put(&n3t_system->kobj);
	sysfs_remove_group(n3t_kobj, &n3t_top_group);
	kobject_put(n3t_kobj);
}
