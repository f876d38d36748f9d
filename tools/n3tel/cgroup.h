/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The containers (cgroup.c): the cgroup v2 leaves that have CPUs of their
 * own, their labels (Kubernetes pod and container, systemd unit), the pool
 * of the other CPUs, and each one's metrics as the module's sum of its
 * CPUs (load_sum(), model.h).  show.c and prometheus.c call it; it calls
 * the model (model.h) and util.h.
 */
#ifndef N3TEL_CGROUP_H
#define N3TEL_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define DEFAULT_MAX_CGROUPS	64	/* --max-cgroups */

/*
 * One container, or a pool: "shared" (the CPUs no container has to itself),
 * "other" (the containers past --max-cgroups, summed together).
 */
struct cgroup {
	uint64_t id;			/* its directory's inode number: the cgroup id; 0: a pool */
	char path[512];			/* below the cgroup2 mount ("/a/b"), or the pool's name */
	char pod[48];			/* Kubernetes pod UID, "" if none */
	char container[80];		/* container ID (containerd, CRI-O, Docker, Podman), "" */
	char unit[128];			/* systemd unit (.service, .scope), "" */
	int nr_cpus;
	int nr_summed;			/* containers in the "other" pool */
	int nr_counted;			/* CPUs whose latest intervals are in the sum */
	uint64_t cpus[CPU_WORDS];
	char cpu_list[4 * MAX_CPUS + 16];	/* the CPUs as a list, 0-3,8 (any MAX_CPUS fit) */
	const char *why;		/* why it has no values, NULL if it has */
	char title[800];		/* for people: the path, CPUs and labels (show) */
	struct view v;			/* the sum; v.model -1: none */
};

struct cgroups {
	int nr;
	struct cgroup *cg;		/* containers (biggest first), then other, then shared */
	const char *root;		/* the cgroup2 mount read */
	char error[1024];		/* why it could not be read, "" if it could */
};

/*
 * The containers of the cgroup2 hierarchy at @cgroot (NULL: where
 * /proc/self/mountinfo says it is mounted), at most @max of them (the rest
 * summed into one "other"), and the shared pool of the CPUs of @t; each
 * one's values from the module (@t loaded from the snapshot).  False on
 * an error: no cgroup2 hierarchy, one that cannot be read, a sum the module
 * does not give (an older module), its one line in @out->error, nothing
 * else kept (out of memory still ends n3tel).
 */
bool find_cgroups(struct tree *t, const char *cgroot, long max, struct cgroups *out);
void free_cgroups(struct cgroups *c);
/*
 * @c's error on stderr, unless it is the one said last with no reading
 * that worked since (textfile --every would repeat it each round)
 */
void warn_cgroups(const struct cgroups *c);

#endif
