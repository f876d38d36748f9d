// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel pause [--cpu LIST] -- COMMAND [ARG]...: the module frees the PMU on
 * those CPUs (every CPU without --cpu) while COMMAND runs, and counts there
 * again when it ends.  The lease is this process's open /dev/n3telemetry
 * (N3T_IOC_PAUSE), close-on-exec so that COMMAND does not hold it: however
 * n3tel ends, killed included, the kernel gives the lease back as the file
 * goes, and the module is never left paused.  Leases compose: the module
 * counts on a CPU again once no lease names it.
 *
 * Owns: nothing of the module's data.  Calls: util (die, parse_cpu_list,
 * run_command)
 * and the C library; main.c calls it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/n3telemetry.h>

#include "pause.h"
#include "util.h"

#define MAX_CPUS	4096

int pause_run(const char *device, const char *cpus, char **cmd)
{
	uint64_t words[MAX_CPUS / 64] = { 0 };
	struct n3t_pause_lease lease = { 0 };
	struct cpu_list cl;
	int fd, status;

	if (!cmd || !cmd[0])
		die("pause needs a command: n3tel pause [--cpu LIST] -- COMMAND [ARG]...");
	parse_cpu_list(cpus, &cl);
	if (cl.system)
		die("pause takes --cpu LIST (CPU numbers), not system");
	for (int i = 0; i < cl.nr; i++) {
		if (cl.hi[i] >= MAX_CPUS)
			die("--cpu %d: n3tel pause takes CPUs below %d", cl.hi[i], MAX_CPUS);
		for (int c = cl.lo[i]; c <= cl.hi[i]; c++)
			words[c / 64] |= 1ULL << (c % 64);
		lease.nr_words = (uint32_t)(cl.hi[i] / 64 + 1) > lease.nr_words ?
				 (uint32_t)(cl.hi[i] / 64 + 1) : lease.nr_words;
	}
	lease.cpus = (uintptr_t)words;
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open %s: %s (is the module loaded? pausing it needs CAP_PERFMON)",
		    device, strerror(errno));
	if (ioctl(fd, N3T_IOC_PAUSE, &lease)) {
		if (errno == ENOTTY)
			die("%s takes no pause lease (a module older than n3tel pause)", device);
		if (errno == EINVAL)
			die("the module refused --cpu %s: no such CPU", cpus ? cpus : "(all)");
		die("cannot pause the module: %s%s", strerror(errno),
		    errno == EPERM ? " (pausing it needs CAP_PERFMON)" : "");
	}
	status = run_command(cmd, NULL, 0, NULL);
	close(fd);	/* the lease ends here at the latest */
	return exit_status(status);
}
