// SPDX-License-Identifier: GPL-2.0
/*
 * spin: one busy loop pinned to each online CPU, for make bench.
 *
 *   spin START_NS SECONDS
 *   spin now                   print CLOCK_MONOTONIC in ns
 *   spin time CMD [ARGS]       run CMD, output to /dev/null; print the ns it took
 *
 * Every child pins itself to its CPU, waits until CLOCK_MONOTONIC reaches
 * START_NS, then counts loop iterations until START_NS + SECONDS.  The inner
 * loop is exactly two instructions per iteration (subs, b.ne); the clock is
 * read once per chunk of SPIN_CHUNK iterations, and once per SPIN_FINE
 * iterations while waiting and in the window's last SPIN_NEAR ns, so that
 * the iterations counted are the ones run inside the window to within
 * SPIN_FINE at either end, on every CPU: under -icount with several vCPUs,
 * QEMU runs them round robin on one clock, and a vCPU that started a big
 * chunk just before the end may finish it long after (counting a chunk it
 * mostly ran outside the window), as one that was waiting at the start
 * loses the rest of its waiting chunk.  One line per CPU on stdout:
 * "cpu N iters I ns T", T the time from its first to its last chunk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPIN_CHUNK	50000ULL	/* 100 000 instructions */
#define SPIN_FINE	500ULL		/* 1 000 instructions */
#define SPIN_NEAR	100000000ULL	/* the last 100 ms: fine chunks */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void chunk(uint64_t n)
{
#ifdef __aarch64__
	asm volatile("1:	subs %0, %0, #1\n"
		     "	b.ne 1b\n" : "+r"(n) : : "cc");
#else
	for (volatile uint64_t i = n; i; i--)
		;
#endif
}

static void spin(int cpu, uint64_t start, uint64_t end, int out)
{
	uint64_t iters = 0, n, t0, t;
	cpu_set_t set;
	char line[96];
	int len;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		_exit(1);
	}
	while ((t0 = now_ns()) < start)
		chunk(SPIN_FINE);	/* spin, do not sleep: keep the CPU out of idle */
	t = t0;
	do {
		n = end - t > SPIN_NEAR ? SPIN_CHUNK : SPIN_FINE;
		chunk(n);
		iters += n;
		t = now_ns();
	} while (t < end);
	len = snprintf(line, sizeof(line), "cpu %d iters %llu ns %llu\n", cpu,
		       (unsigned long long)iters, (unsigned long long)(t - t0));
	if (write(out, line, len) != len)
		_exit(1);
	_exit(0);
}

static int timed(char **argv)
{
	uint64_t t0 = now_ns();
	pid_t p = fork();
	int st;

	if (p < 0)
		return 1;
	if (!p) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t start, end;
	long ncpu, cpu;
	int fail = 0, st;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return timed(argv + 2);
	if (argc != 3) {
		fprintf(stderr, "usage: spin START_NS SECONDS\n");
		return 2;
	}
	start = strtoull(argv[1], NULL, 0);
	end = start + (uint64_t)(strtod(argv[2], NULL) * 1e9);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (!p)
			spin(cpu, start, end, STDOUT_FILENO);
	}
	while (wait(&st) > 0)
		fail |= !WIFEXITED(st) || WEXITSTATUS(st);
	return fail;
}
