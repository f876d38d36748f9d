// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: the /sys/kernel/n3telemetry ABI (see
 * Documentation/ABI/testing/sysfs-kernel-n3telemetry).
 *
 * A front-end: reads the configuration (config.c, under n3t_cfg.lock), the
 * core types (coretype.c), the latest intervals through views (view.c:
 * n3t_view_cpu(), n3t_view_sum()), the sampler otherwise only through its
 * read API (n3t_group_age(), n3t_cpu_state(), n3t_cpu_seq()); the
 * configuration writes go to control.c (n3t_collect_reconfigure(),
 * n3t_collect_enable()).
 * Calls nothing else of the module but the engine and the tables; includes
 * control.h, models.h, n3telemetry.h, sysfs.h and view.h.  Nothing calls it but
 * main.c (and its own hotplug callbacks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "control.h"
#include "models.h"
#include "n3telemetry.h"
#include "sysfs.h"
#include "view.h"

#define N3T_SYSTEM	(-1)
#define N3T_WRITE_MAX	512

/*
 * show() prints into one page.  The longest text of each file for every
 * table is computed by tools/models/gen_models.py (models.h) and checked
 * beside its show(); here, that the limits it assumed are the module's.
 */
static_assert(N3T_TEXT_VALUE_BUF == N3T_VALUE_BUF,
	      "gen_models.py VALUE_BUF differs from N3T_VALUE_BUF: update and regenerate");
static_assert(N3T_TEXT_CORE_TYPES == N3T_MAX_CORE_TYPES,
	      "gen_models.py MAX_CORE_TYPES differs from N3T_MAX_CORE_TYPES: update and regenerate");
static_assert(N3T_TEXT_PLAN_SETS == N3T_MAX_SETS,
	      "gen_models.py MAX_SETS differs from N3T_MAX_SETS: update and regenerate");
static_assert(N3T_TEXT_MAX <= PAGE_SIZE, "a sysfs file's text does not fit in a page");

static struct kobject *n3t_kobj;
static enum cpuhp_state n3t_sysfs_hp;

/**
 * struct n3t_dir - a cpuN or system directory
 * @kobj: its kobject
 * @cpu: the CPU, or N3T_SYSTEM
 * @files: the core type whose group files the directory has (NULL: none),
 *	set when it is made, before its files exist
 *
 * Made and removed by the hotplug callbacks (system/: by n3t_sysfs_init()
 * and n3t_sysfs_exit()); freed with the last reference to @kobj.
 */
struct n3t_dir {
	struct kobject kobj;
	int cpu;
	const struct n3t_core_type *files;
};

static struct n3t_dir *n3t_system;
static struct n3t_dir *n3t_cpu_dirs[NR_CPUS];

/* A view of a cpuN or system directory; the caller holds n3t_cfg.lock. */
static struct n3t_view *n3t_view_get(int cpu)
{
	if (cpu == N3T_SYSTEM)
		return n3t_view_sum(&n3t_cfg.type[0], cpu_possible_mask);
	return n3t_view_cpu(cpu);
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

/*
 * The data files (the group files and events of cpuN/ and system/) are
 * binary attributes, because a show() is not handed the file: their read()
 * is, so that whether the data are given is decided by the file's opener
 * (n3t_data_allowed()), not by whoever reads the descriptor.  Each read()
 * prints the whole text into a page, as a show() would, and copies what
 * was asked for from its offset: a read of a page or more (cat, n3tel)
 * gets the whole text at once; a read at a later offset prints the text
 * anew, from the values of the moment.
 */
#ifdef N3T_HAVE_CONST_BIN_READ	/* 6.16+, see Kbuild */
#define N3T_BIN_CONST	const
#else
#define N3T_BIN_CONST
#endif

/**
 * struct n3t_group_attr - a metric group file
 * @attr: the attribute; its name is the group's file name
 *
 * One per group name any table has (n3t_group_attrs), allocated at init and
 * freed at exit after the directories are gone.  A directory has the files
 * of its CPU's core (n3t_dir_add()).
 */
struct n3t_group_attr {
	struct bin_attribute attr;
};

static struct n3t_group_attr *n3t_group_attrs;
static unsigned int n3t_nr_group_attrs;

/* The group of @dom's model named like @attr, or -ENOENT. */
static int n3t_attr_group(const struct n3t_core_type *dom, const struct attribute *attr)
{
	if (!dom)
		return -ENOENT;
	return n3t_group_by_name(dom->model, attr->name, strlen(attr->name));
}

static_assert(N3T_TEXT_MAX_GROUP_FILE <= PAGE_SIZE,
	      "cpuN/<group>: the largest group's text does not fit in a page");

/*
 * A group file's text into @buf (a page); its length, or a negative errno.
 * A CPU isolated since its directory was made has not been asked what core
 * it is: its files are the one core type's, every value nan.
 */
static int n3t_group_text(struct kobject *kobj, const struct attribute *attr, char *buf)
{
	const struct n3t_core_type *dom;
	const struct n3t_group_desc *grp;
	char val[N3T_VALUE_BUF];
	const struct n3t_model *model;
	struct n3t_view *v;
	unsigned int i, m;
	int len = 0, g;
	bool ok;

	v = n3t_dir_view(kobj);
	if (!v)
		return -ENOMEM;
	dom = v->dom ?: container_of(kobj, struct n3t_dir, kobj)->files;
	g = n3t_attr_group(dom, attr);
	if (g < 0) {
		kvfree(v);
		return -ENODEV;
	}
	model = dom->model;
	grp = &model->groups[g];
	for (i = 0; i < grp->nr; i++) {
		m = grp->metrics[i];
		ok = v->ok && test_bit(m, v->res.valid);
		n3t_format(val, sizeof(val), n3t_unit_decimals(model->metrics[m].unit),
			   v->res.value[m], ok);
		/* a value from rates counted apart says so (n3t_eval_composed()) */
		len += sysfs_emit_at(buf, len, "%s %s%s\n", model->metrics[m].name, val,
				     test_bit(m, v->composed) ? " composed" : "");
	}
	kvfree(v);
	return len;
}

static_assert(N3T_TEXT_MAX_EVENTS <= PAGE_SIZE, "cpuN/events does not fit in a page");
/*
 * system/events: sums over up to N3T_TEXT_SUM_CPUS CPUs (22 digits) fit in
 * a page; with more CPUs, a text that would not is refused (EOVERFLOW).
 */
static_assert(N3T_TEXT_MAX_SYSTEM_EVENTS <= PAGE_SIZE, "system/events does not fit in a page");

#define N3T_U128_DIGITS	40	/* 2^128 - 1 has 39, and the NUL */

/* The decimal of @hi * 2^64 + @lo, exactly, into @buf (N3T_U128_DIGITS). */
static void n3t_u128_decimal(char *buf, u64 hi, u64 lo)
{
	u32 limb[4] = { upper_32_bits(hi), lower_32_bits(hi),
			upper_32_bits(lo), lower_32_bits(lo) };
	u32 part[5];	/* base 10^9, least significant first: 45 digits */
	unsigned int n = 0, i;
	bool more;
	int len;

	/* long division by 10^9, 32 bits at a time: each step fits in a u64 */
	do {
		u32 rem = 0;

		more = false;
		for (i = 0; i < ARRAY_SIZE(limb); i++) {
			limb[i] = div_u64_rem(((u64)rem << 32) | limb[i], 1000000000, &rem);
			more |= limb[i] != 0;
		}
		part[n++] = rem;
	} while (more);
	len = scnprintf(buf, N3T_U128_DIGITS, "%u", part[--n]);
	while (n)
		len += scnprintf(buf + len, N3T_U128_DIGITS - len, "%09u", part[--n]);
}

/* The events file's text into @buf (a page); its length, or a negative errno. */
static int n3t_events_text(struct kobject *kobj, char *buf)
{
	char count[N3T_U128_DIGITS], ns[N3T_U128_DIGITS];
	struct n3t_view *v;
	unsigned int e;
	int len = 0;

	v = n3t_dir_view(kobj);
	if (!v)
		return -ENOMEM;
	for_each_set_bit(e, v->events, N3T_MAX_EVENTS) {
		const char *name = v->dom->model->events[e].name;

		n3t_u128_decimal(count, v->ev_count_hi[e], v->res.ev_count[e]);
		n3t_u128_decimal(ns, v->ev_ns_hi[e], v->res.ev_ns[e]);
		/* only sums of more than N3T_TEXT_SUM_CPUS CPUs can fill the page */
		if (len + strlen(name) + strlen(count) + strlen(ns) + 3 >= PAGE_SIZE) {
			len = -EOVERFLOW;
			break;
		}
		len += sysfs_emit_at(buf, len, "%s %s %s\n", name, count, ns);
	}
	kvfree(v);
	return len;
}

static ssize_t n3t_data_read(struct file *file, struct kobject *kobj,
			     N3T_BIN_CONST struct bin_attribute *attr, char *buf, loff_t off,
			     size_t count);

static struct bin_attribute events_attr = {
	.attr = { .name = "events", .mode = 0444 },
	.read = n3t_data_read,
};

/*
 * read() of a data file: @count is at most a page (kernfs), the text too
 * (the static_asserts above).
 */
static ssize_t n3t_data_read(struct file *file, struct kobject *kobj,
			     N3T_BIN_CONST struct bin_attribute *attr, char *buf, loff_t off,
			     size_t count)
{
	char *text;
	int len;

	if (!n3t_data_allowed(file))
		return -EACCES;
	text = (char *)__get_free_page(GFP_KERNEL);	/* sysfs_emit_at() wants a page */
	if (!text)
		return -ENOMEM;
	if (attr == &events_attr)
		len = n3t_events_text(kobj, text);
	else
		len = n3t_group_text(kobj, &attr->attr, text);
	if (len >= 0)
		len = memory_read_from_buffer(buf, count, &off, text, len);
	free_page((unsigned long)text);
	return len;
}

static_assert(N3T_TEXT_MAX_DIR_CPU_MODEL <= PAGE_SIZE, "cpuN/cpu_model does not fit in a page");

static ssize_t cpu_model_dir_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	const struct n3t_core_type *dom = n3t_dir_cpu(kobj) == N3T_SYSTEM ? &n3t_cfg.type[0] :
				       n3t_cpu_core_type(n3t_dir_cpu(kobj));

	if (dom)
		return sysfs_emit(buf, "%s\n", dom->model->name);
	/* an isolated CPU is not asked what it is (n3t_cpu_wanted()) */
	return sysfs_emit(buf, "%s\n",
			  n3t_cpu_wanted(n3t_dir_cpu(kobj)) ? "unsupported" : "isolated");
}

/* two lines per set, N3T_MAX_SETS at most: per-set ages are in ages */
static_assert(N3T_TEXT_MAX_STATUS <= PAGE_SIZE, "cpuN/status does not fit in a page");
static ssize_t status_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct n3t_view *v;
	unsigned int s, e;
	char sep;
	int len;

	v = n3t_dir_view(kobj);
	if (!v)
		return -ENOMEM;
	len = sysfs_emit(buf, "seq %llu\nend_ns %llu\ninterval_ns %llu\nlost_slices %llu\n",
			 v->res.seq, v->res.end_ns, v->res.interval_ns, v->res.lost);
	len += sysfs_emit_at(buf, len, "sets_per_interval %u\n", v->res.nr_sets);
	if (n3t_dir_cpu(kobj) != N3T_SYSTEM)
		len += sysfs_emit_at(buf, len, "state %s\n", n3t_cpu_state_name(v->state));
	else
		len += sysfs_emit_at(buf, len,
				     "state %s\ncpus_collecting %u\ncpus_isolated %u\ncpus_failed %u\ncpus_unsupported %u\ncpus_aside %u\n",
				     READ_ONCE(n3t_cfg.paused) ? "paused" : "collecting",
				     v->nr_state[N3T_CPU_COLLECTING],
				     v->nr_state[N3T_CPU_ISOLATED],
				     v->nr_state[N3T_CPU_NO_MEMORY] +
				     v->nr_state[N3T_CPU_NO_COUNTERS],
				     v->nr_state[N3T_CPU_UNSUPPORTED],
				     v->nr_state[N3T_CPU_ASIDE]);
	/* events counted but never counting (a hypervisor's filter): n3t_end_slice() */
	len += sysfs_emit_at(buf, len, "hidden_events");
	sep = ' ';
	for_each_set_bit(e, v->res.hidden, v->dom ? v->dom->model->nr_events : 0) {
		len += sysfs_emit_at(buf, len, "%c%s", sep, v->dom->model->events[e].name);
		sep = ',';
	}
	len += sysfs_emit_at(buf, len, sep == ' ' ? " none\n" : "\n");
	for (s = 0; s < v->nr_sets; s++) {
		const struct n3t_pub_set *ps = &v->sets[s];
		/* system/: good_ns sums over CPUs; coverage is per CPU on average */
		u64 good = ps->good_ns;
		u64 ppm = 0;

		if (n3t_dir_cpu(kobj) == N3T_SYSTEM && v->nr_cpus)
			good = div_u64(good, v->nr_cpus);
		if (ps->interval_ns)
			ppm = min_t(u64, mul_u64_u64_div_u64(good, 10000, ps->interval_ns), 10000);
		len += sysfs_emit_at(buf, len, "set%u_coverage %llu.%02llu\nset%u_lost %llu\n",
				     s, ppm / 100, ppm % 100, s, ps->lost);
	}
	kvfree(v);
	return len;
}

static_assert(N3T_TEXT_MAX_AGES <= PAGE_SIZE, "cpuN/ages does not fit in a page");

/*
 * How old each selected group's values are: its oldest set's latest
 * interval (sets not counted yet: seq 0, age nan).
 */
static ssize_t ages_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const struct n3t_model *model;
	const struct n3t_plan *plan;
	char age[N3T_VALUE_BUF];
	u64 now = ktime_get_ns();
	struct n3t_view *v;
	unsigned int g;
	int len = 0;

	mutex_lock(&n3t_cfg.lock);
	v = n3t_view_get(n3t_dir_cpu(kobj));
	if (v && v->dom) {
		plan = v->dom->plan;
		model = v->dom->model;
		for (g = 0; g < model->nr_groups; g++) {
			u64 seq = 0, end_ns = 0;

			if (!(plan->groups & BIT(g)))
				continue;
			if (v->ok)
				n3t_group_age(plan, v->sets, g, &seq, &end_ns);
			/* milliseconds, like interval_ms */
			n3t_format(age, sizeof(age), 0,
				   div_u64(now - min(end_ns, now), NSEC_PER_MSEC) * N3T_FIXED_SCALE,
				   seq && now - min(end_ns, now) < (u64)S64_MAX / N3T_FIXED_SCALE);
			len += sysfs_emit_at(buf, len, "%s seq %llu end_ns %llu age_ms %s\n",
					     model->groups[g].name, seq, end_ns, age);
		}
	}
	mutex_unlock(&n3t_cfg.lock);
	if (!v)
		return -ENOMEM;
	kvfree(v);
	return len;
}

static const char *n3t_sched_word(unsigned int i)
{
	return i < N3T_NR_SCHEDULES ? n3t_schedule_names[i] : "";
}

static ssize_t schedule_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int cur = READ_ONCE(n3t_cfg.schedule), i;
	int len = 0;

	/* like a block queue's scheduler file: the one in use in brackets */
	for (i = 0; i < N3T_NR_SCHEDULES; i++)
		len += sysfs_emit_at(buf, len, i == cur ? "%s[%s]" : "%s%s", i ? " " : "",
				     n3t_sched_word(i));
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t schedule_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	int i, ret;

	if (count > N3T_WRITE_MAX || memchr(buf, 0, count))
		return -EINVAL;
	i = sysfs_match_string(n3t_schedule_names, buf);
	if (i < 0)
		return -EINVAL;
	ret = n3t_collect_reconfigure(NULL, N3T_KEEP, i);
	return ret ? ret : count;
}

static struct kobj_attribute ages_attr = __ATTR(ages, 0444, ages_show, NULL);
static struct kobj_attribute status_attr = __ATTR(status, 0444, status_show, NULL);
static struct kobj_attribute cpu_model_dir_attr = __ATTR(cpu_model, 0444, cpu_model_dir_show,
							 NULL);

/* root_only=1 takes read access from everyone but root (writes are root's anyway). */
static umode_t n3t_is_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	return n3t_root_only ? attr->mode & 0600 : attr->mode;
}

/* status, ages, cpu_model; the data files are added by n3t_dir_add() */
static struct attribute *n3t_dir_attrs[] = {
	&status_attr.attr,
	&ages_attr.attr,
	&cpu_model_dir_attr.attr,
	NULL,
};

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

/*
 * kobject_init_and_add() takes a const kobj_type from 6.2 on (Kbuild's
 * probe); before, a pointer it never writes through.
 */
#ifdef N3T_HAVE_CONST_KOBJ_TYPE
#define n3t_ktype(t)	(t)
#else
#define n3t_ktype(t)	((void *)(t))
#endif

static const struct kobj_type n3t_dir_ktype = {
	.release = n3t_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = n3t_dir_groups,
};

static void n3t_dir_del(struct n3t_dir *d)
{
	/* files go now, whenever the last reference goes */
	kobject_del(&d->kobj);
	kobject_put(&d->kobj);
}

/*
 * A directory's data files: events and the group files of its CPU's core
 * (system/: the first core type's).  They go with the directory.  An
 * isolated CPU is not asked what core it is (n3t_cpu_wanted()): on a
 * system of one core type it gets that type's files, which read nan while
 * it is isolated and its values once its isolation ends and it is
 * collected on; on a mixed one, none (its type is not known).  A CPU of no
 * known core type has none.
 */
static int n3t_dir_add_data(struct n3t_dir *d)
{
	const struct n3t_core_type *dom = d->cpu == N3T_SYSTEM ? &n3t_cfg.type[0] :
					  n3t_cpu_core_type(d->cpu);
	unsigned int i;
	int ret;

	if (!dom && !n3t_cpu_wanted(d->cpu) && n3t_cfg.nr_types == 1)
		dom = &n3t_cfg.type[0];
	d->files = dom;
	ret = sysfs_create_bin_file(&d->kobj, &events_attr);
	for (i = 0; i < n3t_nr_group_attrs && !ret; i++)
		if (n3t_attr_group(dom, &n3t_group_attrs[i].attr.attr) >= 0)
			ret = sysfs_create_bin_file(&d->kobj, &n3t_group_attrs[i].attr);
	return ret;
}

static struct n3t_dir *n3t_dir_add(int cpu)
{
	struct n3t_dir *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int ret;

	if (!d)
		return NULL;
	d->cpu = cpu;
	if (cpu == N3T_SYSTEM)
		ret = kobject_init_and_add(&d->kobj, n3t_ktype(&n3t_dir_ktype), n3t_kobj, "system");
	else
		ret = kobject_init_and_add(&d->kobj, n3t_ktype(&n3t_dir_ktype), n3t_kobj,
					   "cpu%d", cpu);
	if (ret) {
		kobject_put(&d->kobj);
		return NULL;
	}
	if (n3t_dir_add_data(d)) {
		n3t_dir_del(d);
		return NULL;
	}
	return d;
}

/*
 * Never fails: a CPU must come online even if its directory cannot.  Runs
 * on the CPU coming online (its hotplug callback); an isolated CPU is not
 * asked what core it is (it is collected on nowhere, see n3t_cpu_wanted()).
 */
static int n3t_sysfs_online(unsigned int cpu)
{
	if (n3t_cpu_wanted(cpu))
		n3t_cpu_identify();	/* its group files depend on its core */
	n3t_cpu_dirs[cpu] = n3t_dir_add(cpu);
	if (!n3t_cpu_dirs[cpu])
		pr_warn_ratelimited("cpu%u: could not create its directory; the CPU is online regardless\n",
				    cpu);
	return 0;
}

static int n3t_sysfs_offline(unsigned int cpu)
{
	if (n3t_cpu_dirs[cpu])
		n3t_dir_del(n3t_cpu_dirs[cpu]);
	n3t_cpu_dirs[cpu] = NULL;
	return 0;
}

/* Top-level files */

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", N3T_VERSION);
}

static_assert(N3T_TEXT_MAX_CPU_MODEL <= PAGE_SIZE, "cpu_model does not fit in a page");

static ssize_t cpu_model_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int d;
	int len = 0;

	for (d = 0; d < n3t_cfg.nr_types; d++)
		len += sysfs_emit_at(buf, len, "%s%s\n", n3t_cfg.type[d].model->name,
				     n3t_cfg.type[d].forced ? " (forced)" : "");
	return len;
}

static ssize_t slots_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", n3t_cfg.type[0].slots);
}

static int n3t_emit_counters(const struct n3t_core_type *d, char *buf)
{
	int len;

	mutex_lock(&n3t_cfg.lock);
	len = sysfs_emit(buf, "programmable %u\ncycle_counter %s\nreserved %u\n",
			 d->capacity, d->cycle_counter ? "free" : "busy", d->reserved);
	len += sysfs_emit_at(buf, len, "load_programmable %u\nload_cycle_counter %s\n",
			     d->load_capacity, d->load_cycle_counter ? "free" : "busy");
	len += sysfs_emit_at(buf, len, "spare %u\n", n3t_param_spare);
	mutex_unlock(&n3t_cfg.lock);
	return len;
}

static ssize_t counters_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return n3t_emit_counters(&n3t_cfg.type[0], buf);
}

static ssize_t interval_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(n3t_cfg.interval_ms));
}

/* A decimal number in @min..@max, alone: -EINVAL for garbage, -ERANGE out of range. */
static int n3t_parse_decimal(const char *buf, size_t count, unsigned int min,
			     unsigned int max, unsigned int *v)
{
	int ret;

	if (count > N3T_WRITE_MAX || memchr(buf, 0, count))
		return -EINVAL;
	ret = kstrtouint(buf, 10, v);
	if (ret)
		return ret;
	return *v < min || *v > max ? -ERANGE : 0;
}

static ssize_t interval_ms_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	unsigned int ms;
	int ret;

	ret = n3t_parse_decimal(buf, count, N3T_INTERVAL_MIN, N3T_INTERVAL_MAX, &ms);
	if (!ret)
		ret = n3t_collect_reconfigure(NULL, ms, N3T_KEEP);
	return ret ? ret : count;
}

static ssize_t yield_pct_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(n3t_cfg.yield_pct));
}

/* applied from each CPU's next slice end, no restart (struct n3t_config) */
static ssize_t yield_pct_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	unsigned int pct;
	int ret = n3t_parse_decimal(buf, count, 0, N3T_YIELD_MAX, &pct);

	if (ret)
		return ret;
	WRITE_ONCE(n3t_cfg.yield_pct, pct);
	return count;
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", !READ_ONCE(n3t_cfg.paused));
}

/* 0 pauses (every counter released), 1 resumes; see n3t_collect_enable() */
static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	size_t len = count;
	int ret;

	/*
	 * exactly "0" or "1" with an optional newline, nothing else: a stray
	 * word, or anything after a NUL, must not pause a fleet's telemetry
	 * (sysfs_streq() would stop at the NUL)
	 */
	if (len == 2 && buf[1] == '\n')
		len = 1;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	ret = n3t_collect_enable(buf[0] == '1');
	return ret ? ret : count;
}

static_assert(N3T_TEXT_MAX_GROUP_LIST <= PAGE_SIZE,
	      "groups, available_groups: the names do not fit in a page");

/* The group names of every core type, @sel's (or all), each name once. */
static int n3t_emit_groups(char *buf, const u32 *sel)
{
	const char *seen[N3T_MAX_GROUPS * N3T_MAX_CORE_TYPES];
	unsigned int d, g, i, n = 0;
	int len = 0;

	for (d = 0; d < n3t_cfg.nr_types; d++) {
		const struct n3t_model *model = n3t_cfg.type[d].model;

		for (g = 0; g < model->nr_groups; g++) {
			if (sel && !(sel[d] & BIT(g)))
				continue;
			for (i = 0; i < n; i++)
				if (!strcmp(seen[i], model->groups[g].name))
					break;
			if (i < n)
				continue;
			seen[n++] = model->groups[g].name;
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     model->groups[g].name);
		}
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t groups_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u32 sel[N3T_MAX_CORE_TYPES];
	unsigned int d;

	mutex_lock(&n3t_cfg.lock);
	for (d = 0; d < n3t_cfg.nr_types; d++)
		sel[d] = n3t_cfg.type[d].plan->groups;
	mutex_unlock(&n3t_cfg.lock);
	return n3t_emit_groups(buf, sel);
}

static ssize_t groups_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	u32 sel[N3T_MAX_CORE_TYPES];
	int ret = n3t_parse_selection(buf, count, sel);

	if (ret)
		return ret;
	ret = n3t_collect_reconfigure(sel, N3T_KEEP, N3T_KEEP);
	return ret ? ret : count;
}

static ssize_t available_groups_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	return n3t_emit_groups(buf, NULL);
}

static_assert(N3T_TEXT_MAX_SETS <= PAGE_SIZE, "sets: a plan's sets do not fit in a page");

static int n3t_emit_sets(const struct n3t_core_type *d, char *buf)
{
	const struct n3t_plan *plan;
	unsigned int s, e;
	int len = 0;

	mutex_lock(&n3t_cfg.lock);
	plan = d->plan;
	for (s = 0; s < plan->nr_sets; s++) {
		len += sysfs_emit_at(buf, len, "set%u", s);
		for_each_set_bit(e, plan->set[s].events, N3T_MAX_EVENTS)
			len += sysfs_emit_at(buf, len, " %s", d->model->events[e].name);
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&n3t_cfg.lock);
	return len;
}

static ssize_t sets_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return n3t_emit_sets(&n3t_cfg.type[0], buf);
}

static struct kobj_attribute version_attr = __ATTR_RO(version);
static struct kobj_attribute cpu_model_attr = __ATTR_RO(cpu_model);
static struct kobj_attribute slots_attr = __ATTR_RO(slots);
static struct kobj_attribute counters_attr = __ATTR_RO(counters);
static struct kobj_attribute interval_ms_attr = __ATTR_RW(interval_ms);
static struct kobj_attribute groups_attr = __ATTR_RW(groups);
static struct kobj_attribute available_groups_attr = __ATTR_RO(available_groups);
static struct kobj_attribute sets_attr = __ATTR_RO(sets);
static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute schedule_attr = __ATTR_RW(schedule);
static struct kobj_attribute yield_pct_attr = __ATTR_RW(yield_pct);

static struct attribute *n3t_top_attrs[] = {
	&version_attr.attr,
	&cpu_model_attr.attr,
	&slots_attr.attr,
	&counters_attr.attr,
	&interval_ms_attr.attr,
	&groups_attr.attr,
	&available_groups_attr.attr,
	&sets_attr.attr,
	&enabled_attr.attr,
	&schedule_attr.attr,
	&yield_pct_attr.attr,
	NULL,
};

static const struct attribute_group n3t_top_group = {
	.attrs = n3t_top_attrs,
	.is_visible = n3t_is_visible,
};

/*
 * models/<model>/: what each core type in use is and how it is counted:
 * its CPUs, slots, counters and sets, and its tables (events, metrics with
 * units, groups) so that readers need no tables of their own.
 */

/**
 * struct n3t_model_dir - a models/<model> directory
 * @kobj: its kobject
 * @dom: the core type it describes (part of n3t_cfg, outlives the directory)
 */
struct n3t_model_dir {
	struct kobject kobj;
	const struct n3t_core_type *dom;
};

static struct kobject *n3t_models_kobj;
static struct n3t_model_dir *n3t_model_dirs[N3T_MAX_CORE_TYPES];

static const struct n3t_core_type *n3t_kobj_dom(struct kobject *kobj)
{
	return container_of(kobj, struct n3t_model_dir, kobj)->dom;
}

static ssize_t model_cpus_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	/*
	 * The mask only grows, by set_bit() in the online callbacks
	 * (n3t_cpu_identify()); printed beside one, each word is read whole,
	 * with or without the CPU coming online, both true: a race intended.
	 */
	return data_race(sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&n3t_kobj_dom(kobj)->cpus)));
}

static ssize_t model_slots_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", n3t_kobj_dom(kobj)->slots);
}

static ssize_t model_counters_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	return n3t_emit_counters(n3t_kobj_dom(kobj), buf);
}

static ssize_t model_sets_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return n3t_emit_sets(n3t_kobj_dom(kobj), buf);
}

static_assert(N3T_TEXT_MAX_MODEL_EVENTS <= PAGE_SIZE,
	      "models/<model>/events: the events do not fit in a page");

static ssize_t model_events_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const struct n3t_model *model = n3t_kobj_dom(kobj)->model;
	unsigned int e;
	int len = 0;

	for (e = 0; e < model->nr_events; e++)
		len += sysfs_emit_at(buf, len, "%s 0x%04x\n", model->events[e].name,
				     model->events[e].code);
	return len;
}

static_assert(N3T_TEXT_MAX_MODEL_METRICS <= PAGE_SIZE,
	      "models/<model>/metrics: the metrics do not fit in a page");

static ssize_t model_metrics_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	const struct n3t_model *model = n3t_kobj_dom(kobj)->model;
	unsigned int m, u;
	int len = 0;

	for (m = 0; m < model->nr_metrics; m++) {
		u = model->metrics[m].unit;
		len += sysfs_emit_at(buf, len, "%s %u %s\n", model->metrics[m].name,
				     n3t_unit_decimals(u), n3t_unit_name(u));
	}
	return len;
}

static_assert(N3T_TEXT_MAX_MODEL_GROUPS <= PAGE_SIZE,
	      "models/<model>/groups: the groups do not fit in a page");

static ssize_t model_groups_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	const struct n3t_model *model = n3t_kobj_dom(kobj)->model;
	unsigned int g, i;
	int len = 0;

	for (g = 0; g < model->nr_groups; g++) {
		const struct n3t_group_desc *grp = &model->groups[g];

		len += sysfs_emit_at(buf, len, "%s %s", grp->name, grp->spec_name);
		for (i = 0; i < grp->nr; i++)
			len += sysfs_emit_at(buf, len, " %s",
					     model->metrics[grp->metrics[i]].name);
		len += sysfs_emit_at(buf, len, "\n");
	}
	return len;
}

static_assert(N3T_TEXT_MAX_MODEL_FORMULAS <= PAGE_SIZE,
	      "models/<model>/formulas: the formulas do not fit in a page");

static ssize_t model_formulas_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	const struct n3t_model *model = n3t_kobj_dom(kobj)->model;
	unsigned int m;
	int len = 0;

	for (m = 0; m < model->nr_metrics; m++)
		len += n3t_format_formula(buf + len, PAGE_SIZE - len, model, m);
	return len;
}

static struct kobj_attribute model_cpus_attr = __ATTR(cpus, 0444, model_cpus_show, NULL);
static struct kobj_attribute model_slots_attr = __ATTR(slots, 0444, model_slots_show, NULL);
static struct kobj_attribute model_counters_attr =
	__ATTR(counters, 0444, model_counters_show, NULL);
static struct kobj_attribute model_sets_attr = __ATTR(sets, 0444, model_sets_show, NULL);
static struct kobj_attribute model_events_attr =
	__ATTR(events, 0444, model_events_show, NULL);
static struct kobj_attribute model_metrics_attr =
	__ATTR(metrics, 0444, model_metrics_show, NULL);
static struct kobj_attribute model_groups_attr =
	__ATTR(groups, 0444, model_groups_show, NULL);
static struct kobj_attribute model_formulas_attr =
	__ATTR(formulas, 0444, model_formulas_show, NULL);

static struct attribute *n3t_model_attrs[] = {
	&model_cpus_attr.attr,
	&model_slots_attr.attr,
	&model_counters_attr.attr,
	&model_sets_attr.attr,
	&model_events_attr.attr,
	&model_metrics_attr.attr,
	&model_groups_attr.attr,
	&model_formulas_attr.attr,
	NULL,
};

static const struct attribute_group n3t_model_group = {
	.attrs = n3t_model_attrs,
	.is_visible = n3t_is_visible,
};

static const struct attribute_group *n3t_model_groups[] = {
	&n3t_model_group,
	NULL,
};

static void n3t_model_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct n3t_model_dir, kobj));
}

static const struct kobj_type n3t_model_ktype = {
	.release = n3t_model_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = n3t_model_groups,
};

static void n3t_model_dirs_del(void)
{
	unsigned int d;

	for (d = 0; d < N3T_MAX_CORE_TYPES; d++) {
		if (!n3t_model_dirs[d])
			continue;
		kobject_del(&n3t_model_dirs[d]->kobj);
		kobject_put(&n3t_model_dirs[d]->kobj);
		n3t_model_dirs[d] = NULL;
	}
	kobject_put(n3t_models_kobj);
}

static int n3t_model_dirs_add(void)
{
	struct n3t_model_dir *md;
	unsigned int d;
	int ret;

	n3t_models_kobj = kobject_create_and_add("models", n3t_kobj);
	if (!n3t_models_kobj)
		return -ENOMEM;
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		md = kzalloc(sizeof(*md), GFP_KERNEL);
		if (!md) {
			ret = -ENOMEM;
			goto err;
		}
		md->dom = &n3t_cfg.type[d];
		ret = kobject_init_and_add(&md->kobj, n3t_ktype(&n3t_model_ktype),
					   n3t_models_kobj, "%s", md->dom->model->name);
		if (ret) {
			kobject_put(&md->kobj);
			goto err;
		}
		n3t_model_dirs[d] = md;
	}
	return 0;
err:
	n3t_model_dirs_del();
	return ret;
}

/*
 * One data file attribute per group name of any table, and the events
 * file's mode.  Freed by n3t_group_attrs_free() once no directory is left.
 */
static int n3t_group_attrs_init(void)
{
	umode_t mode = n3t_root_only ? 0400 : 0444;
	unsigned int i, g, k, max = 0, n = 0;

	for (i = 0; i < n3t_nr_models; i++)
		max += n3t_models[i]->nr_groups;
	n3t_group_attrs = kcalloc(max, sizeof(*n3t_group_attrs), GFP_KERNEL);
	if (!n3t_group_attrs)
		return -ENOMEM;
	for (i = 0; i < n3t_nr_models; i++) {
		for (g = 0; g < n3t_models[i]->nr_groups; g++) {
			const char *name = n3t_models[i]->groups[g].name;
			struct bin_attribute *ba;

			for (k = 0; k < n; k++)
				if (!strcmp(n3t_group_attrs[k].attr.attr.name, name))
					break;
			if (k < n)
				continue;
			ba = &n3t_group_attrs[n++].attr;
			sysfs_bin_attr_init(ba);
			ba->attr.name = name;
			ba->attr.mode = mode;
			ba->read = n3t_data_read;
		}
	}
	n3t_nr_group_attrs = n;
	events_attr.attr.mode = mode;
	return 0;
}

static void n3t_group_attrs_free(void)
{
	kfree(n3t_group_attrs);
	n3t_group_attrs = NULL;
	n3t_nr_group_attrs = 0;
}

int n3t_sysfs_init(void)
{
	unsigned int cpu;
	int ret;

	if (n3t_root_only && n3t_world_readable)
		pr_warn("world_readable=1 ignored: root_only=1 makes every file root-only\n");
	ret = n3t_group_attrs_init();
	if (ret)
		return ret;
	n3t_kobj = kobject_create_and_add("n3telemetry", kernel_kobj);
	if (!n3t_kobj) {
		ret = -ENOMEM;
		goto err_attrs;
	}
	ret = sysfs_create_group(n3t_kobj, &n3t_top_group);
	if (ret)
		goto err_kobj;
	ret = n3t_model_dirs_add();
	if (ret)
		goto err_group;
	n3t_system = n3t_dir_add(N3T_SYSTEM);
	if (!n3t_system) {
		ret = -ENOMEM;
		goto err_models;
	}
	/*
	 * The online CPUs' directories are made here, not by their callbacks
	 * (no cpuhp thread woken on an isolated CPU); the CPUs were identified
	 * at load.
	 */
	cpus_read_lock();
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN, "n3telemetry:sysfs",
						   n3t_sysfs_online, n3t_sysfs_offline);
	if (ret >= 0) {
		n3t_sysfs_hp = ret;
		for_each_online_cpu(cpu) {
			n3t_cpu_dirs[cpu] = n3t_dir_add(cpu);
			if (!n3t_cpu_dirs[cpu])
				pr_warn_ratelimited("cpu%u: could not create its directory\n", cpu);
		}
	}
	cpus_read_unlock();
	if (ret < 0)
		goto err_system;
	return 0;

err_system:
	n3t_dir_del(n3t_system);
err_models:
	n3t_model_dirs_del();
err_group:
	sysfs_remove_group(n3t_kobj, &n3t_top_group);
err_kobj:
	kobject_put(n3t_kobj);
err_attrs:
	n3t_group_attrs_free();
	return ret;
}

void n3t_sysfs_exit(void)
{
	unsigned int cpu;

	cpus_read_lock();
	cpuhp_remove_state_nocalls_cpuslocked(n3t_sysfs_hp);
	for_each_possible_cpu(cpu)
		n3t_sysfs_offline(cpu);
	cpus_read_unlock();
	n3t_dir_del(n3t_system);
	n3t_model_dirs_del();
	sysfs_remove_group(n3t_kobj, &n3t_top_group);
	kobject_put(n3t_kobj);
	n3t_group_attrs_free();
}
