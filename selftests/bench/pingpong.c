// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: other perf users' context switches beside the module, for make
 * bench (issue 27 item 3).
 *
 *   pingpong ROUNDS ev|noev [PMU_TYPE [CONFIG [BURSTS GAP_MS]]]
 *
 * Two processes pinned to CPU 0 pass one byte back and forth over two pipes:
 * ROUNDS round trips, timed on CLOCK_MONOTONIC after 1000 untimed ones, in
 * BURSTS bursts (default 1) GAP_MS apart (the timing process sleeps
 * between them, untimed, then runs 100 untimed round trips, in which the
 * work that fell due meanwhile runs): spread over the module's rotation,
 * the bursts see each of its sets in turn, as a long run would, at the
 * cost of a short one (under -icount an idle guest's time passes at once).
 * Every round trip is two context switches: the one process in, then the
 * other.  With "ev" the timing process holds one counting event of its own,
 * a task event (pid 0, any CPU) pinned as KVM's vPMU creates its guest's
 * (default: raw event 0x08, INST_RETIRED, on PMU type 4, PERF_TYPE_RAW;
 * make bench passes the CPU PMU's type); the other process holds none.
 * With "noev" neither has one.  Under qemu -icount shift=0 a guest ns is a
 * guest instruction, so the difference per round trip between two runs is
 * the instructions one sched-in (and sched-out) of the task with the event
 * costs more.  One line on stdout:
 *   "rounds N ns T per_round P count C enabled E running R bursts B"
 * (count and times of the event: running equals enabled when it counted the
 * whole time; 0 without an event).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP	1000
#define LEAD_IN	100	/* untimed round trips after each gap */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int xfer(int in, int out, char *c)
{
	if (out >= 0 && write(out, c, 1) != 1)
		return -1;
	if (in >= 0 && read(in, c, 1) != 1)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	uint64_t rounds, i, ns = 0, t0, val[3] = { 0, 0, 0 };
	unsigned long bursts = 1, gap_ms = 0, k;
	int ab[2], ba[2], ev = -1, st;
	char c = 'x';
	pid_t p;

	if (argc < 3 || (strcmp(argv[2], "ev") && strcmp(argv[2], "noev"))) {
		fprintf(stderr, "usage: pingpong ROUNDS ev|noev [PMU_TYPE [CONFIG [BURSTS GAP_MS]]]\n");
		return 2;
	}
	rounds = strtoull(argv[1], NULL, 0);
	if (argc > 6) {
		bursts = strtoul(argv[5], NULL, 0);
		gap_ms = strtoul(argv[6], NULL, 0);
		if (!bursts)
			bursts = 1;
	}
	pin0();
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	p = fork();
	if (p < 0) {
		perror("fork");
		return 1;
	}
	if (!p) {	/* the other process: no event, echoes until EOF */
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	if (!strcmp(argv[2], "ev")) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = argc > 3 ? strtoul(argv[3], NULL, 0) : PERF_TYPE_RAW;
		attr.config = argc > 4 ? strtoull(argv[4], NULL, 0) : 0x08;
		attr.pinned = 1;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		ev = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (ev < 0) {
			perror("perf_event_open");
			return 1;
		}
	}
	for (i = 0; i < WARMUP; i++)
		if (xfer(ba[0], ab[1], &c))
			goto broken;
	for (k = 0; k < bursts; k++) {
		uint64_t n = rounds / bursts + (k < rounds % bursts);

		if (k && gap_ms) {
			struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };

			nanosleep(&gap, NULL);
			/* untimed: the work that fell due while asleep runs first */
			for (i = 0; i < LEAD_IN; i++)
				if (xfer(ba[0], ab[1], &c))
					goto broken;
		}
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (xfer(ba[0], ab[1], &c))
				goto broken;
		ns += now_ns() - t0;
	}
	if (ev >= 0 && read(ev, val, sizeof(val)) != sizeof(val)) {
		perror("read");
		return 1;
	}
	close(ab[1]);
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("rounds %llu ns %llu per_round %llu count %llu enabled %llu running %llu bursts %lu\n",
	       (unsigned long long)rounds, (unsigned long long)ns,
	       (unsigned long long)(rounds ? ns / rounds : 0),
	       (unsigned long long)val[0], (unsigned long long)val[1],
	       (unsigned long long)val[2], bursts);
	return 0;
broken:
	fprintf(stderr, "pingpong: the pipe broke\n");
	return 1;
}
