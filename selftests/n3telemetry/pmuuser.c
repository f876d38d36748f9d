// SPDX-License-Identifier: GPL-2.0
/*
 * pmuuser: another perf user beside n3telemetry, for the good-neighbour
 * kselftests (neighbour.sh, realpmu.sh).
 *
 *   pmuuser [-t TYPE] [-c CPU | -a CPU] [-p] [-s SECONDS] [-w] [-W SECONDS]
 *           [-S PERIOD] [-N] CONFIG...
 *
 * Opens one counter per CONFIG (numbers, e.g. 0x11), each its own group,
 * with read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, the way perf
 * and KVM's vPMU open theirs:
 *   default   per task: this process (pid 0, cpu -1), as perf stat -p / KVM
 *   -c CPU    CPU-wide on CPU (pid -1), as perf stat -a -C CPU
 *   -a CPU    per task, and the process runs on CPU only (sched_setaffinity)
 *   -p        pinned (perf's :D; KVM's guest counters are pinned)
 *   -t TYPE   perf PMU type number, or a PMU name under
 *             /sys/bus/event_source/devices (default 4, PERF_TYPE_RAW)
 *   -s SECS   how long to count (default 2), spinning for task counters,
 *             sleeping for CPU counters (-w spins for those too)
 *   -W SECS   the counts and times printed are those after the first SECS
 *             of the run (read then, and subtracted): a share "from the
 *             second interval on"
 *   -S PERIOD sampling events (sample_period PERIOD, no buffer mapped), as
 *             perf record and perf top open theirs
 * Per task, it first opens and closes a CPU PMU cycles event on itself (not
 * with -N): before 6.2 that makes the task's one hardware context the CPU
 * PMU's, which the test PMU needs to take the task's events (testpmu.c);
 * nothing on 6.2.
 * SIGUSR1 ends a run early, sleeping or spinning: the counts are read then.
 * Prints one line per counter: "CONFIG count enabled running share%".
 * Exit status: 0 when every counter counted the way its kind promises, 1
 * otherwise: a pinned one must run the whole time it is enabled (a read of
 * 0 bytes is perf's error state: it lost its counter); a flexible one must
 * have run at all (perf stat's "<not counted>" otherwise); a task's counter
 * spun for half a second or more must have been enabled for at least a
 * fifth of that wall time (a task's counters are enabled while the task
 * runs: less means perf stopped scheduling its context in, and the counts
 * stop with it).  2: bad usage or perf_event_open failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_EV	32

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pmu_type(const char *s)
{
	char path[256], *end;
	long v = strtol(s, &end, 0);
	FILE *f;
	int t;

	if (*s && !*end)
		return (int)v;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", s);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &t) != 1) {
		fprintf(stderr, "pmuuser: no PMU %s\n", s);
		exit(2);
	}
	fclose(f);
	return t;
}

/* SIGUSR1: interrupts the sleep, ends the spin */
static volatile sig_atomic_t stop;

static void wake(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = wake };
	int type = PERF_TYPE_RAW, cpu = -1, affine = -1, pinned = 0, spin_cpu = 0, prime = 1;
	int fd[MAX_EV], n = 0, i, opt, bad = 0;
	unsigned long long config[MAX_EV], period = 0;
	uint64_t base[MAX_EV][3] = {};
	double secs = 2, warm = 0, end, spun_from, spun;
	volatile unsigned long sink = 0;

	sigaction(SIGUSR1, &sa, NULL);
	while ((opt = getopt(argc, argv, "t:c:a:ps:wW:S:N")) != -1) {
		switch (opt) {
		case 't': type = pmu_type(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'a': affine = atoi(optarg); break;
		case 'p': pinned = 1; break;
		case 's': secs = atof(optarg); break;
		case 'w': spin_cpu = 1; break;
		case 'W': warm = atof(optarg); break;
		case 'S': period = strtoull(optarg, NULL, 0); break;
		case 'N': prime = 0; break;
		default: return 2;
		}
	}
	if (optind == argc || argc - optind > MAX_EV) {
		fprintf(stderr, "usage: pmuuser [-t TYPE] [-c CPU | -a CPU] [-p] [-s SECS] [-w] [-W SECS] [-S PERIOD] [-N] CONFIG...\n");
		return 2;
	}
	if (affine >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(affine, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("pmuuser: sched_setaffinity");
			return 2;
		}
	}
	if (cpu < 0 && prime) {
		struct perf_event_attr hw = {
			.type = PERF_TYPE_HARDWARE,
			.size = sizeof(hw),
			.config = PERF_COUNT_HW_CPU_CYCLES,
			.disabled = 1,
		};
		int h = syscall(SYS_perf_event_open, &hw, 0, -1, -1, 0);

		if (h >= 0)
			close(h);
	}
	for (i = optind; i < argc; i++, n++) {
		struct perf_event_attr attr = {
			.type = type,
			.size = sizeof(attr),
			.config = strtoull(argv[i], NULL, 0),
			.pinned = pinned,
			.disabled = 1,
			.sample_period = period,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};

		config[n] = attr.config;
		fd[n] = syscall(SYS_perf_event_open, &attr, cpu >= 0 ? -1 : 0, cpu, -1, 0);
		if (fd[n] < 0) {
			fprintf(stderr, "pmuuser: perf_event_open(0x%llx): %s\n",
				config[n], strerror(errno));
			return 2;
		}
	}
	for (i = 0; i < n; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	end = now() + secs;
	spun_from = now();
	if (warm > 0) {
		double w = now() + warm;

		if (cpu >= 0 && !spin_cpu)
			usleep((useconds_t)(warm * 1e6));
		else
			while (now() < w)
				for (i = 0; i < 10000; i++)
					sink += i;
		for (i = 0; i < n; i++)
			if (read(fd[i], base[i], sizeof(base[i])) != sizeof(base[i]))
				memset(base[i], 0, sizeof(base[i]));
		spun_from = now();
	}
	if (cpu >= 0 && !spin_cpu) {
		double left = end - now();

		if (left > 0)
			usleep((useconds_t)(left * 1e6));
	} else {
		while (now() < end && !stop)
			for (i = 0; i < 10000; i++)
				sink += i;
	}
	spun = now() - spun_from;
	for (i = 0; i < n; i++)
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < n; i++) {
		uint64_t v[3] = {};
		ssize_t r = read(fd[i], v, sizeof(v));

		if (r != sizeof(v)) {
			/* a pinned event in the error state reads nothing */
			printf("0x%llx error-state read=%zd\n", config[i], r);
			bad = 1;
			continue;
		}
		v[0] -= base[i][0];
		v[1] -= base[i][1];
		v[2] -= base[i][2];
		printf("0x%llx %" PRIu64 " %" PRIu64 " %" PRIu64 " %.1f%%\n", config[i], v[0], v[1],
		       v[2], v[1] ? 100.0 * v[2] / v[1] : 0.0);
		if (pinned ? (!v[1] || v[2] != v[1]) : !v[2])
			bad = 1;
		if (cpu < 0 && spun >= 0.5 && v[1] < spun * 1e9 / 5) {
			fprintf(stderr, "pmuuser: 0x%llx enabled %.0f ms of the %.0f ms its task spun: its context was not scheduled in\n",
				config[i], v[1] / 1e6, spun * 1e3);
			bad = 1;
		}
	}
	return bad;
}
