// SPDX-License-Identifier: GPL-2.0
/*
 * kvmperf: the /init of the Linux guest kvmguest -L boots (kvmguest.sh):
 * the guest's own perf_event_open, judged from inside the guest.
 *
 * Opens N3TG_EVENTS (default 2) pinned counting events on itself (pid 0,
 * cpu -1; N3TG_CPU=0: on the guest's CPU 0 instead, pid -1): the generic
 * cycles and instructions events, then the raw CPU_CYCLES (0x11) and
 * INST_RETIRED (0x08) alternately, so that every counter of the guest's
 * PMU is used.  Then, for at least N3TG_ROUNDS rounds and N3TG_SECS seconds
 * of the guest's clock, spins N3TG_SPIN loop iterations (subs, b.ne: two
 * instructions each) and reads every event with its enabled and running
 * times.  A round is good when every event ran the whole time it was
 * enabled (its total running time equals its total enabled time) and
 * advanced by at least what the spin takes (instructions: 2 * SPIN; cycles:
 * SPIN, at least one per iteration) and at most PLAUSIBLE_FACTOR times
 * that.  The first rounds, the first bad ones, a summary per event and the
 * verdict ("n3tg: PASS" or "n3tg: FAIL") go to the kernel log (/dev/kmsg,
 * at a level the quiet console prints: the VMM reads the guest's console),
 * then the guest powers off.  "n3tg: start" marks the start of the rounds.
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

#define MAX_EV		32
#define PLAUSIBLE_FACTOR 16

static int out = 2;

/* one line to the kernel log at level 2, which a quiet console prints */
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "<2>n3tg: ");
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
	uint64_t min, max, unequal, frozen, low, high;
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

int main(void)
{
	unsigned int nev = env("N3TG_EVENTS", 2), rounds = env("N3TG_ROUNDS", 10), i, r;
	uint64_t spin_n = env("N3TG_SPIN", 2000000);
	int cpu = getenv("N3TG_CPU") ? (int)env("N3TG_CPU", 0) : -1;
	double secs = env("N3TG_SECS", 2), t0;
	struct ev ev[MAX_EV] = {};
	unsigned int bad_rounds = 0;
	int bad = 0;

	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	out = open("/dev/kmsg", O_WRONLY);
	if (out < 0)
		out = 2;
	if (nev < 1 || nev > MAX_EV || spin_n < 1000) {
		say("FAIL: bad N3TG_EVENTS %u or N3TG_SPIN %" PRIu64 "\n", nev, spin_n);
		finish(2);
	}
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
			e->name = i ? "instructions" : "cycles";
			e->inst = i;
		} else {
			a.type = PERF_TYPE_RAW;
			a.config = i % 2 ? 0x08 : 0x11;
			e->name = i % 2 ? "raw-0x08-inst-retired" : "raw-0x11-cpu-cycles";
			e->inst = i % 2;
		}
		e->fd = syscall(SYS_perf_event_open, &a, cpu < 0 ? 0 : -1, cpu, -1, 0);
		if (e->fd < 0) {
			say("FAIL: perf_event_open %s: %s\n", e->name, strerror(errno));
			finish(1);
		}
		e->min = UINT64_MAX;
	}
	say("%u pinned events on %s, %u+ rounds of %" PRIu64 " iterations, %.0f+ s\n",
	    nev, cpu < 0 ? "this task (pid 0, cpu -1)" : "cpu 0 (pid -1)", rounds,
	    spin_n, secs);
	say("start\n");
	for (i = 0; i < nev; i++) {
		uint64_t v[3];

		if (read_ev(&ev[i], v)) {
			say("FAIL: read %s: %s\n", ev[i].name, strerror(errno));
			finish(1);
		}
		ev[i].val = v[0];
		ev[i].ena = v[1];
		ev[i].run = v[2];
	}
	t0 = now();
	for (r = 1; r <= rounds || now() - t0 < secs; r++) {
		char line[1024];
		int rbad = 0;

		spin(spin_n);
		snprintf(line, sizeof(line), "round %u:", r);
		for (i = 0; i < nev; i++) {
			struct ev *e = &ev[i];
			uint64_t v[3] = {}, d, lo = e->inst ? 2 * spin_n : spin_n;
			int ebad = 1;

			if (read_ev(e, v))	/* a pinned event in error state: EOF */
				v[0] = e->val, v[1] = e->ena, v[2] = 0;
			d = v[0] - e->val;
			if (v[1] != v[2])
				e->unequal++;
			else if (!d)
				e->frozen++;
			else if (d < lo)
				e->low++;
			else if (d > lo * PLAUSIBLE_FACTOR)
				e->high++;
			else
				ebad = 0;
			if (d < e->min)
				e->min = d;
			if (d > e->max)
				e->max = d;
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %s%" PRIu64 "%s", !d ? "FROZEN:" : ebad ? "BAD:" : "+", d,
				 v[1] != v[2] ? "(running<enabled)" : "");
			e->val = v[0];
			e->ena = v[1];
			e->run = v[2];
			rbad |= ebad;
		}
		bad_rounds += rbad;
		if (r <= 3 || (rbad && bad_rounds <= 10))
			say("%s\n", line);
		if (r > 100000)
			break;
	}
	r--;
	say("%u rounds in %.2f s of guest time\n", r, now() - t0);
	for (i = 0; i < nev; i++) {
		struct ev *e = &ev[i];

		say("%s: value %" PRIu64 " enabled %" PRIu64 " running %" PRIu64
		    ", per round min %" PRIu64 " max %" PRIu64
		    ", running<enabled %" PRIu64 " frozen %" PRIu64 " too little %" PRIu64
		    " too much %" PRIu64 "\n", e->name, e->val, e->ena, e->run, e->min,
		    e->max, e->unequal, e->frozen, e->low, e->high);
		if (e->unequal || e->frozen || e->low || e->high || e->ena != e->run)
			bad = 1;
	}
	say("%s\n", bad ? "FAIL: a guest event did not count the whole time" :
	    "PASS: every guest event counted the whole time");
	finish(bad);
	return bad;
}
