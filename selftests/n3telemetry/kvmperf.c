// SPDX-License-Identifier: GPL-2.0
/*
 * kvmperf: the /init of the Linux guest kvmguest -L boots (kvmguest.sh):
 * the guest's own perf_event_open, judged from inside the guest.
 *
 * Opens N3TG_EVENTS (default 2) pinned counting events on itself (pid 0,
 * cpu -1): the generic cycles and instructions events, then the raw
 * CPU_CYCLES (0x11) and INST_RETIRED (0x08) alternately, so that every
 * counter of the guest's PMU is used.  Then, for at least N3TG_ROUNDS
 * rounds (default 10) and N3TG_MS milliseconds (default 1000) of the
 * guest's clock, spins N3TG_SPIN loop iterations (subs, b.ne: two
 * instructions each) and reads every event with its enabled and running
 * times.  A round is good when every event ran the whole time it was
 * enabled (its total running time equals its total enabled time) and
 * advanced by at least what the spin takes (instructions: 2 * SPIN; cycles:
 * SPIN, at least one per iteration) and at most PLAUSIBLE_FACTOR times
 * that.  Then the same again with the events on the guest's CPU 0 (pid -1,
 * cpu 0: whatever runs there, which is mostly this loop; the first round
 * there must count, its size is not judged: see the loop).  The first
 * rounds, the first bad ones, a summary per event and the verdict
 * ("n3tg: PASS" or "n3tg: FAIL") go to the kernel log (/dev/kmsg, at a
 * level the quiet console prints: the VMM reads the guest's console), then
 * the guest powers off.  "n3tg: start" marks the end of the boot.  Run
 * as any other process (kvmguest.sh's check of the judge on the host, with
 * more events than counters), it prints to stdout and exits 1 on FAIL.
 * The kernel passes the N3TG_* settings of its command line as environment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "advance.h"

#define MAX_EV		32

static int out = 1, kmsg;

/* one line to the kernel log at level 2, which a quiet console prints */
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%sn3tg: ", kmsg ? "<2>" : "");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (write(out, buf, strlen(buf)) < 0)
		return;
}

static unsigned long env(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 0) : dflt;
}

static void spin(uint64_t n)
{
#ifdef __aarch64__
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n" : "+r"(n) : : "cc");
#else
	while (n--)
		asm volatile("" : "+r"(n));
#endif
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ev {
	const char *name;
	int fd, inst;
	uint64_t val, ena, run;		/* the last read */
	unsigned int notrun;		/* rounds running != enabled, or error state */
	struct advance a;
};

static int read_ev(struct ev *e, uint64_t v[3])
{
	return read(e->fd, v, 3 * sizeof(*v)) == 3 * sizeof(*v) ? 0 : -1;
}

static void finish(int rc)
{
	sync();
	if (getpid() == 1)
		reboot(RB_POWER_OFF);
	exit(rc);
}

/*
 * One scope: the events on this task (cpu < 0) or on the guest's CPU cpu;
 * 0 every event counted the whole time, 1 one did not
 */
static int run_scope(int cpu, unsigned int nev, unsigned int rounds, uint64_t spin_n,
		     double secs)
{
	const char *scope = cpu < 0 ? "task" : "cpu";
	unsigned int bad_rounds = 0, i, r;
	struct ev ev[MAX_EV] = {};
	char line[1024];
	double t0;
	int bad = 0;

	for (i = 0; i < nev; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a), .pinned = 1,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};
		struct ev *e = &ev[i];

		if (i < 2) {
			a.type = PERF_TYPE_HARDWARE;
			a.config = i ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
			e->name = i ? "instructions" : "cycles";	/* generic */
			e->inst = i;
		} else {
			a.type = PERF_TYPE_RAW;
			a.config = i % 2 ? 0x08 : 0x11;
			e->name = i % 2 ? "r08" : "r11";	/* raw */
			e->inst = i % 2;
		}
		e->fd = syscall(SYS_perf_event_open, &a, cpu < 0 ? 0 : -1, cpu, -1, 0);
		if (e->fd < 0) {
			say("%s: FAIL: perf_event_open %s: %s\n", scope, e->name, strerror(errno));
			return 1;
		}
		e->a.min = UINT64_MAX;
	}
	line[0] = 0;
	for (i = 0; i < nev; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s", ev[i].name);
	say("%s: %u pinned events (pid %d cpu %d):%s\n", scope, nev, cpu < 0 ? 0 : -1, cpu,
	    line);
	for (i = 0; i < nev; i++) {
		uint64_t v[3] = {};

		/* a pinned event perf could not schedule: error state, EOF */
		if (read_ev(&ev[i], v))
			say("%s: %s: in error state already (read: EOF)\n", scope, ev[i].name);
		ev[i].val = v[0];
		ev[i].ena = v[1];
		ev[i].run = v[2];
	}
	t0 = now();
	for (r = 1; r <= rounds || now() - t0 < secs; r++) {
		/*
		 * On the CPU, the first round also holds what the guest did
		 * before it: its console's last lines, which a printk thread
		 * writes out later (7.x), boot's leftovers.  It must count, but
		 * its size is not judged.
		 */
		int rbad = 0, warm_up = cpu >= 0 && r == 1;

		spin(spin_n);
		snprintf(line, sizeof(line), "%s: round %u:", scope, r);
		for (i = 0; i < nev; i++) {
			struct ev *e = &ev[i];
			uint64_t v[3] = {}, d, lo = e->inst ? 2 * spin_n : spin_n;
			int ebad = 1;

			if (read_ev(e, v)) {	/* error state: EOF */
				e->notrun++;
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 " NOT-RUNNING(error-state)");
				rbad = 1;
				continue;
			}
			d = v[0] - e->val;
			if (v[1] != v[2]) {
				e->notrun++;
			} else if (warm_up) {
				ebad = !d;
				e->a.frozen += ebad;
			} else {
				ebad = advance_judge(&e->a, d, lo);
			}
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %s%" PRIu64 "%s", !d ? "FROZEN:" : ebad ? "BAD:" : "+", d,
				 v[1] != v[2] ? "(running<enabled)" : "");
			e->val = v[0];
			e->ena = v[1];
			e->run = v[2];
			rbad |= ebad;
		}
		bad_rounds += rbad;
		if (r == 1 || (rbad && bad_rounds <= 3))
			say("%s\n", line);
		if (r > 100000)
			break;
	}
	say("%s: %u rounds of %" PRIu64 " iterations in %.2f s of guest time, %u bad\n",
	    scope, r - 1, spin_n, now() - t0, bad_rounds);
	/* every event: its advance per round min-max, its ns enabled == running */
	line[0] = 0;
	for (i = 0; i < nev; i++) {
		struct ev *e = &ev[i];

		if (e->a.min == UINT64_MAX)	/* no round judged */
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " none");
		else
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %" PRIu64 "-%" PRIu64, e->a.min, e->a.max);
		if (e->ena != e->run)
			bad = 1;
		close(e->fd);
	}
	say("%s: per round:%s\n", scope, line);
	line[0] = 0;
	for (i = 0; i < nev; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %" PRIu64 "%s%" PRIu64,
			 ev[i].ena, ev[i].ena == ev[i].run ? "=" : "!=", ev[i].run);
	say("%s: ns enabled=running:%s\n", scope, line);
	for (i = 0; i < nev; i++) {
		struct ev *e = &ev[i];

		if (!e->notrun && !e->a.frozen && !e->a.low && !e->a.high)
			continue;
		say("%s: %s: BAD rounds: not running %u frozen %u too little %u too much %u\n",
		    scope, e->name, e->notrun, e->a.frozen, e->a.low, e->a.high);
		bad = 1;
	}
	return bad;
}

int main(void)
{
	unsigned int nev = env("N3TG_EVENTS", 2), rounds = env("N3TG_ROUNDS", 10);
	uint64_t spin_n = env("N3TG_SPIN", 2000000);
	double secs = env("N3TG_MS", 1000) / 1000.0;
	int bad;

	if (getpid() == 1) {	/* the guest's init: else stdout */
		mkdir("/dev", 0755);
		mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
		out = open("/dev/kmsg", O_WRONLY);
		kmsg = out >= 0;
		if (!kmsg)
			out = 2;
	}
	if (nev < 1 || nev > MAX_EV || spin_n < 1000) {
		say("FAIL: bad N3TG_EVENTS %u or N3TG_SPIN %" PRIu64 "\n", nev, spin_n);
		finish(2);
	}
	say("start\n");
	bad = run_scope(-1, nev, rounds, spin_n, secs);
	bad |= run_scope(0, nev, rounds, spin_n, secs);
	say("%s\n", bad ? "FAIL: an event did not count the whole time" :
	    "PASS: every event counted the whole time");
	finish(bad);
	return bad;
}
