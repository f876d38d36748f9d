// SPDX-License-Identifier: GPL-2.0
/*
 * n3telemetry: the binary snapshot, /dev/n3telemetry (layout in
 * uapi/linux/n3telemetry.h, ABI in Documentation/ABI/testing/dev-n3telemetry),
 * the pause lease on it (N3T_IOC_PAUSE: n3tel pause) and the sums of CPUs
 * it gives (N3T_IOC_SUM: n3tel's containers).
 *
 * Each open file has its own snapshot: a read at offset 0 takes a new one,
 * reads at later offsets continue it, and nothing another reader does can
 * change it.  A character device is used because a sysfs file has no open
 * and release of its own and hands out at most a page per read.
 *
 * A front-end: reads the configuration (config.c), the core types
 * (coretype.c), the sampler through its read API only (n3t_read_cpu(),
 * n3t_group_age()) and sums through views (view.c: n3t_view_sum()), takes
 * and gives back leases (n3t_lease()), and calls nothing else of the
 * module but the engine; includes n3telemetry.h, snapshot.h and view.h.
 * Nothing calls it but main.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cpumask.h>
#include <linux/error-injection.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/n3telemetry.h>

#include "n3telemetry.h"
#include "snapshot.h"
#include "view.h"

static_assert(N3T_SNAP_MAX_EVENTS == N3T_MAX_EVENTS);
static_assert(N3T_SNAP_MAX_METRICS == N3T_MAX_METRICS);
static_assert(N3T_SNAP_MAX_GROUPS == N3T_MAX_GROUPS);

/**
 * struct n3t_snap_file - one open file's snapshot
 * @lock: serialises reads on this file (they may share the file)
 * @buf: header and records, NULL before the first read at offset 0
 * @len: bytes in @buf
 * @lease: the CPUs of this file's pause lease (N3T_IOC_PAUSE), under @lock
 * @leased: @lease is in force, under @lock
 *
 * Allocated at open, freed at release with @buf, the lease given back.
 */
struct n3t_snap_file {
	struct mutex lock;	/* see above */
	char *buf;
	size_t len;
	cpumask_var_t lease;
	bool leased;
};

static void n3t_fill_record(struct n3t_snapshot_record *r, unsigned int cpu,
			    const struct n3t_core_type *dom, const struct n3t_result *res,
			    const struct n3t_pub_set *sets)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->flags = res->seq ? N3T_REC_VALID : 0;
	r->seq = res->seq;
	r->end_ns = res->end_ns;
	r->interval_ns = res->interval_ns;
	r->nr_sets = res->nr_sets;
	r->lost_slices = min_t(u64, res->lost, U32_MAX);	/* saturates: never wraps */
	r->lost_slices_total = res->lost;
	r->slices_ns = res->slices_ns;
	r->model = dom ? dom - n3t_cfg.type : ~0U;
	r->nr_events = dom ? dom->model->nr_events : 0;
	r->nr_metrics = dom ? dom->model->nr_metrics : 0;
	for (i = 0; i < r->nr_metrics; i++) {
		if (res->seq && test_bit(i, res->valid)) {
			r->valid[i / 64] |= 1ULL << (i % 64);
			r->value[i] = res->value[i];
		}
		if (test_bit(i, dom->plan->composed))
			r->composed[i / 64] |= 1ULL << (i % 64);
	}
	for (i = 0; i < r->nr_events; i++) {
		if (test_bit(i, res->counted))
			r->counted[i / 64] |= 1ULL << (i % 64);
		r->event_count[i] = res->ev_count[i];
		r->event_ns[i] = res->ev_ns[i];
		r->event_slice_count[i] = res->ev_slice[i];
		r->event_slice_ns[i] = res->ev_slice_ns[i];
	}
	for (i = 0; res->seq && i < dom->model->nr_groups; i++)
		if (dom->plan->groups & BIT(i))
			n3t_group_age(dom->plan, sets, i, &r->group_seq[i], &r->group_end_ns[i]);
}

/*
 * The names section (uapi/linux/n3telemetry.h): every core type's model, its
 * events, metrics and groups.  With @size 0 only measures.  The caller
 * holds n3t_cfg.lock (the selected groups).
 * Return: the length of the text.
 */
static size_t n3t_snapshot_names(char *buf, size_t size)
{
	size_t len = 0;
	unsigned int d, i, k;

#define N3T_EMIT(...)	(len += snprintf(buf ? buf + len : NULL, \
					 buf && len < size ? size - len : 0, __VA_ARGS__))
	for (d = 0; d < n3t_cfg.nr_types; d++) {
		const struct n3t_core_type *dom = &n3t_cfg.type[d];
		const struct n3t_model *model = dom->model;

		N3T_EMIT("model %u %s %u 0x%x %s\n", d, model->name, dom->slots,
			 dom->plan->groups, model->title);
		for (i = 0; i < model->nr_events; i++)
			N3T_EMIT("event %u %u %s 0x%04x\n", d, i, model->events[i].name,
				 model->events[i].code);
		for (i = 0; i < model->nr_metrics; i++)
			N3T_EMIT("metric %u %u %s %u %s\n", d, i, model->metrics[i].name,
				 n3t_unit_decimals(model->metrics[i].unit),
				 n3t_unit_name(model->metrics[i].unit));
		for (i = 0; i < model->nr_groups; i++) {
			const struct n3t_group_desc *g = &model->groups[i];

			N3T_EMIT("group %u %u %s %s", d, i, g->name, g->spec_name);
			for (k = 0; k < g->nr; k++)
				N3T_EMIT(" %u", g->metrics[k]);
			N3T_EMIT("\n");
		}
	}
#undef N3T_EMIT
	return len;
}

/* Global and not inlined, so that fault injection can fail it (fail_function). */
noinline char *n3t_snapshot_alloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}
ALLOW_ERROR_INJECTION(n3t_snapshot_alloc, NULL);

/*
 * Take a snapshot into @sf: a header, the names and one record per online
 * CPU.  CPUs going online meanwhile are left out, CPUs going offline give
 * an invalid record: the header always counts the records that follow.
 */
static int n3t_snapshot_take(struct n3t_snap_file *sf)
{
	struct n3t_snapshot_header *h;
	struct n3t_snapshot_record *rec;
	unsigned int cpu, n = 0, max = num_online_cpus();
	size_t names, names_size, off_rec;
	struct n3t_pub_set *sets;
	struct n3t_result *res;
	char *snap;

	/* the names do not change while the module is loaded but for groups */
	mutex_lock(&n3t_cfg.lock);
	names = n3t_snapshot_names(NULL, 0);
	mutex_unlock(&n3t_cfg.lock);
	names_size = names + 32;	/* room for a wider group mask */
	off_rec = ALIGN(sizeof(*h) + names_size, 8);
	res = kmalloc(sizeof(*res), GFP_KERNEL);
	sets = kmalloc_array(N3T_MAX_SETS, sizeof(*sets), GFP_KERNEL);
	snap = n3t_snapshot_alloc(size_add(off_rec, array_size(max, sizeof(*rec))));
	if (!res || !sets || !snap) {
		kfree(res);
		kfree(sets);
		kvfree(snap);
		return -ENOMEM;
	}
	h = (struct n3t_snapshot_header *)snap;
	rec = (struct n3t_snapshot_record *)(snap + off_rec);
	mutex_lock(&n3t_cfg.lock);
	names = n3t_snapshot_names(snap + sizeof(*h), names_size);
	if (names >= names_size)
		names = names_size - 1;	/* cannot happen: a wider group mask needs < 32 */
	for_each_online_cpu(cpu) {
		const struct n3t_core_type *dom = n3t_cpu_core_type(cpu);

		if (n == max)
			break;
		/* not collecting: no interval, but what it counted before */
		if (!dom)
			memset(res, 0, sizeof(*res));
		else
			n3t_read_cpu(cpu, dom->plan, res, sets, NULL);
		n3t_fill_record(&rec[n++], cpu, dom, res, sets);
	}
	h->magic = N3T_SNAP_MAGIC;
	h->abi_version = N3T_SNAP_ABI_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(*rec);
	h->nr_records = n;
	h->nr_models = n3t_cfg.nr_types;
	h->max_events = N3T_SNAP_MAX_EVENTS;
	h->max_metrics = N3T_SNAP_MAX_METRICS;
	h->interval_ms = n3t_cfg.interval_ms;
	h->names_offset = sizeof(*h);
	h->names_size = names;
	h->records_offset = off_rec;
	h->fixed_scale = N3T_FIXED_SCALE;
	mutex_unlock(&n3t_cfg.lock);
	kfree(sets);
	kfree(res);

	kvfree(sf->buf);
	sf->buf = snap;
	sf->len = off_rec + n * sizeof(*rec);
	return 0;
}

/*
 * The snapshot is data (see n3t_data_allowed()): checked at open, with the
 * opener's credentials; the node is 0444 so that a task with CAP_PERFMON
 * but not root gets here (0400 with root_only=1).
 */
static int n3t_snap_open(struct inode *inode, struct file *file)
{
	struct n3t_snap_file *sf;

	if (!n3t_data_allowed(file))
		return -EACCES;
	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&sf->lease, GFP_KERNEL)) {
		kfree(sf);
		return -ENOMEM;
	}
	mutex_init(&sf->lock);
	file->private_data = sf;
	return 0;
}

static ssize_t n3t_snap_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct n3t_snap_file *sf = file->private_data;
	ssize_t ret = 0;

	mutex_lock(&sf->lock);
	if (!*ppos || !sf->buf)
		ret = n3t_snapshot_take(sf);
	if (!ret)
		ret = simple_read_from_buffer(ubuf, count, ppos, sf->buf, sf->len);
	mutex_unlock(&sf->lock);
	return ret;
}

static int n3t_snap_release(struct inode *inode, struct file *file)
{
	struct n3t_snap_file *sf = file->private_data;

	if (sf->leased)
		n3t_lease(sf->lease, false);
	free_cpumask_var(sf->lease);
	kvfree(sf->buf);
	mutex_destroy(&sf->lock);
	kfree(sf);
	return 0;
}

/*
 * The CPUs of a user bitmap of @nr_words words at @uaddr (struct
 * n3t_pause_lease, struct n3t_sum_request), into @cpus: 0 words for every
 * possible CPU.
 */
static int n3t_user_cpus(u64 uaddr, u32 nr_words, u32 flags, struct cpumask *cpus)
{
	const u64 __user *words = u64_to_user_ptr(uaddr);
	unsigned int w, b;
	u64 word;

	if (flags)
		return -EINVAL;
	if (!nr_words) {
		cpumask_copy(cpus, cpu_possible_mask);
		return 0;
	}
	if (nr_words > DIV_ROUND_UP(nr_cpu_ids, 64))
		return -EINVAL;
	for (w = 0; w < nr_words; w++) {
		if (get_user(word, words + w))
			return -EFAULT;
		for (b = 0; b < 64; b++) {
			if (!(word & BIT_ULL(b)))
				continue;
			/* a CPU that can never exist is a bad bitmap, as one past the last */
			if (w * 64 + b >= nr_cpu_ids || !cpu_possible(w * 64 + b))
				return -EINVAL;
			cpumask_set_cpu(w * 64 + b, cpus);
		}
	}
	return cpumask_empty(cpus) ? -EINVAL : 0;
}

/*
 * N3T_IOC_SUM: the sum of some CPUs' latest intervals as one record, for
 * n3tel's containers (struct n3t_sum_request).  Data, as the snapshot: the
 * open already checked the opener.
 */
static long n3t_snap_sum(struct n3t_sum_request __user *ureq)
{
	const struct n3t_core_type *dom = NULL, *t;
	struct n3t_snapshot_record *r = NULL;
	struct n3t_sum_request req;
	struct n3t_view *v = NULL;
	cpumask_var_t cpus;
	unsigned int c, e;
	loff_t pos = 0;
	size_t size;
	int ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.record_size < offsetof(struct n3t_snapshot_record, event_count))
		return -EINVAL;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = n3t_user_cpus(req.cpus, req.nr_words, req.flags, cpus);
	if (ret)
		goto out;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&n3t_cfg.lock);
	for_each_cpu(c, cpus) {
		t = n3t_cpu_core_type(c);
		if (dom && t && t != dom) {
			ret = -EINVAL;	/* one core type's formulas per sum */
			break;
		}
		dom = dom ?: t;
	}
	if (!ret)
		v = n3t_view_sum(dom, cpus);
	if (v) {
		n3t_fill_record(r, N3T_SUM_CPU, dom, &v->res, v->sets);
		for (e = 0; e < r->nr_events; e++) {
			if (v->ev_count_hi[e])
				r->event_count[e] = U64_MAX;
			if (v->ev_ns_hi[e])
				r->event_ns[e] = U64_MAX;
		}
		req.nr_cpus = v->nr_cpus;
		kvfree(v);
	} else if (!ret) {
		ret = -ENOMEM;
	}
	mutex_unlock(&n3t_cfg.lock);
	/*
	 * Out of line: copy_to_user() of a size not known at build time
	 * leaves a site of hardened usercopy's static key in the module
	 * (7.x), whose patching at load IPIs every CPU (key-sites.sh).
	 */
	size = min_t(size_t, req.record_size, sizeof(*r));
	if (!ret && (simple_read_from_buffer(u64_to_user_ptr(req.record), size,
					     &pos, r, size) != (ssize_t)size ||
		     put_user(req.nr_cpus, &ureq->nr_cpus)))
		ret = -EFAULT;
out:
	kfree(r);
	free_cpumask_var(cpus);
	return ret;
}

/*
 * N3T_IOC_PAUSE: a pause lease on some CPUs, for as long as the file
 * exists.  Pausing the module's counting is for those who may count CPU-wide
 * themselves: CAP_PERFMON (or CAP_SYS_ADMIN) with the opener's credentials.
 */
static long n3t_snap_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct n3t_snap_file *sf = file->private_data;
	struct n3t_pause_lease l;
	int ret;

	if (cmd == N3T_IOC_SUM)
		return n3t_snap_sum((struct n3t_sum_request __user *)arg);
	if (cmd != N3T_IOC_PAUSE)
		return -ENOTTY;
	if (!file_ns_capable(file, &init_user_ns, CAP_PERFMON) &&
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&l, (void __user *)arg, sizeof(l)))
		return -EFAULT;
	mutex_lock(&sf->lock);
	if (sf->leased) {
		ret = -EBUSY;
	} else {
		ret = n3t_user_cpus(l.cpus, l.nr_words, l.flags, sf->lease);
		if (!ret) {
			sf->leased = true;
			n3t_lease(sf->lease, true);
		} else {
			cpumask_clear(sf->lease);
		}
	}
	mutex_unlock(&sf->lock);
	return ret;
}

static const struct file_operations n3t_snap_fops = {
	.owner = THIS_MODULE,
	.open = n3t_snap_open,
	.read = n3t_snap_read,
	.release = n3t_snap_release,
	.unlocked_ioctl = n3t_snap_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = default_llseek,
};

static struct miscdevice n3t_snap_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "n3telemetry",
	.fops = &n3t_snap_fops,
	.mode = 0444,	/* n3t_snapshot_init(): 0400 with root_only=1 */
};

/**
 * n3t_snapshot_init() - create /dev/n3telemetry
 * Return: 0 or a negative errno.
 */
int n3t_snapshot_init(void)
{
	if (n3t_root_only)
		n3t_snap_dev.mode = 0400;
	return misc_register(&n3t_snap_dev);
}

/**
 * n3t_snapshot_exit() - remove /dev/n3telemetry
 *
 * Files still open keep the module (fops owner) until they are closed.
 */
void n3t_snapshot_exit(void)
{
	misc_deregister(&n3t_snap_dev);
}
