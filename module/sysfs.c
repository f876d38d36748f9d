// SPDX-License-Identifier: GPL-2.0
/* n3telemetry: the /sys/kernel/n3telemetry ABI. */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "n3telemetry.h"

static struct kobject *n3t_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", N3T_VERSION);
}

static struct kobj_attribute version_attr = __ATTR_RO(version);

static struct attribute *n3t_top_attrs[] = {
	&version_attr.attr,
	NULL,
};

static const struct attribute_group n3t_top_group = {
	.attrs = n3t_top_attrs,
};

int n3t_sysfs_init(void)
{
	int ret;

	n3t_kobj = kobject_create_and_add("n3telemetry", kernel_kobj);
	if (!n3t_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(n3t_kobj, &n3t_top_group);
	if (ret) {
		kobject_put(n3t_kobj);
		n3t_kobj = NULL;
	}
	return ret;
}

void n3t_sysfs_exit(void)
{
	sysfs_remove_group(n3t_kobj, &n3t_top_group);
	kobject_put(n3t_kobj);
	n3t_kobj = NULL;
}
