// SPDX-License-Identifier: GPL-2.0
/*
 * kvmguest: a KVM guest whose virtual PMU counts, for the kvmguest.sh
 * kselftest: the smallest VMM that gives a guest KVM's PMUv3 emulation.
 *
 *   kvmguest [-A | -e EVENT]... [-n SPIN] [-s SECS] [-r REPORTS] [-c CPU] [-b] [-v]
 *
 * One vCPU with KVM_ARM_VCPU_PMU_V3, an in-kernel vGICv3 (the PMU's
 * overflow interrupt is PPI 23, as on QEMU's virt machine) and 64 KiB of
 * memory holding a bare-metal guest (the assembly below, EL1, MMU off).
 * The guest enables its cycle counter (PMCCNTR_EL0, 64-bit) and one event
 * counter per EVENT (-A: every event counter its PMCR_EL0.N offers,
 * alternately INST_RETIRED 0x08 and CPU_CYCLES 0x11), then forever: spins
 * SPIN loop iterations (two instructions each: subs, b.ne), reads every
 * counter and reports the values by MMIO writes, which exit to this VMM.
 *
 * KVM backs each guest counter with a host perf event of its own: a
 * task-pinned kernel counter of the vCPU thread (arch/arm64/kvm/pmu-emul.c,
 * pinned, exclude_host).  One that perf cannot give a counter goes to the
 * error state and stays there; the guest then reads a frozen value.  So the
 * guest's counts are the proof: every report must show every counter
 * advanced by at least what the spin between two reports takes (INST_RETIRED:
 * 2 * SPIN instructions; CPU_CYCLES and the cycle counter: SPIN cycles, at
 * least one per iteration), and by at most PLAUSIBLE_FACTOR times that.
 *
 *   -c CPU    run the vCPU on CPU only (sched_setaffinity)
 *   -b        and fork a busy loop on that CPU, so that the vCPU thread is
 *             switched out and in all the time (perf schedules its pinned
 *             events in again at every switch, beside whatever others hold)
 *   -s SECS   how long to run (default 3, CLOCK_MONOTONIC of the host)
 *   -r N      reports needed at least (default 5)
 *   -n SPIN   loop iterations between two reports (default 2000000)
 *   -v        print every report (default: the first three, the first ten
 *             bad ones)
 * Prints the guest's PMU size, report lines (each counter's advance since
 * the previous report: +N, FROZEN:0 or BAD:N), a summary per counter and
 * the vCPU thread's involuntary context switches.
 * Exit status: 0 every counter advanced plausibly at every report; 1 one did
 * not (a frozen counter is reported as such); 2 bad usage, or the VMM or
 * guest failed; 4 no usable KVM with a PMU here (KSFT_SKIP).
 */
#define _GNU_SOURCE
#include <stdio.h>

#ifndef __aarch64__
/* KVM's arm64 interface and an arm64 guest: nothing to do elsewhere */
int main(void)
{
	printf("kvmguest: arm64 only\n");
	return 4;
}
#else
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUEST_RAM	0x40000000UL	/* guest physical: code */
#define GUEST_RAM_SIZE	0x10000UL
#define GUEST_MMIO	0x10000000UL	/* no memory there: writes exit */
#define GIC_DIST	0x08000000UL	/* as on QEMU's virt machine */
#define GIC_REDIST	0x080a0000UL
#define PMU_IRQ		23		/* PPI 7 */

/* MMIO offsets the guest writes */
#define MMIO_PMCR	0x00		/* PMCR_EL0 as the guest read it */
#define MMIO_DONE	0x08		/* report number: the report is complete */
#define MMIO_CYCLES	0x10		/* PMCCNTR_EL0 */
#define MMIO_EVCNT	0x18		/* PMEVCNTR<n>_EL0 at 0x18 + 8 * n */

#define MAX_EV		31
#define MAX_REPORTS	100000
#define PLAUSIBLE_FACTOR 16

#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11

/*
 * The guest, position independent.  In: x0 event counters to use (at most
 * PMCR_EL0.N are), x1
 * SPIN, x2 MMIO base, x3 the address of the event type table (x0 16-bit
 * entries).
 */
extern const unsigned char guest_start[], guest_end[];
asm(
"	.pushsection .rodata\n"
"	.balign	4\n"
"	.globl	guest_start\n"
"guest_start:\n"
"	mrs	x9, pmcr_el0\n"
"	str	x9, [x2, #0x00]\n"		/* MMIO_PMCR */
"	ubfx	x10, x9, #11, #5\n"		/* PMCR_EL0.N */
"	cmp	x0, x10\n"
"	csel	x0, x0, x10, ls\n"		/* at most N */
"	mov	x4, #0\n"
"	mov	x5, #0\n"			/* PMCNTENSET mask */
"1:	cmp	x4, x0\n"
"	b.hs	2f\n"
"	ldrh	w6, [x3, x4, lsl #1]\n"
"	msr	pmselr_el0, x4\n"
"	isb\n"
"	msr	pmxevtyper_el0, x6\n"		/* EL0 and EL1 counted */
"	mov	x6, #1\n"
"	lsl	x6, x6, x4\n"
"	orr	x5, x5, x6\n"
"	add	x4, x4, #1\n"
"	b	1b\n"
"2:	msr	pmccfiltr_el0, xzr\n"
"	orr	x5, x5, #0x80000000\n"		/* the cycle counter */
"	msr	pmcntenset_el0, x5\n"
"	mov	x6, #0x47\n"			/* LC, C, P, E: reset and enable */
"	msr	pmcr_el0, x6\n"
"	isb\n"
"	mov	x7, #0\n"			/* report number */
"3:	mov	x4, x1\n"
"4:	subs	x4, x4, #1\n"
"	b.ne	4b\n"
"	mrs	x6, pmccntr_el0\n"
"	str	x6, [x2, #0x10]\n"		/* MMIO_CYCLES */
"	mov	x4, #0\n"
"5:	cmp	x4, x0\n"
"	b.hs	6f\n"
"	msr	pmselr_el0, x4\n"
"	isb\n"
"	mrs	x6, pmxevcntr_el0\n"
"	add	x8, x2, x4, lsl #3\n"
"	str	x6, [x8, #0x18]\n"		/* MMIO_EVCNT + 8 * n */
"	add	x4, x4, #1\n"
"	b	5b\n"
"6:	add	x7, x7, #1\n"
"	str	x7, [x2, #0x08]\n"		/* MMIO_DONE */
"	b	3b\n"
"	.balign	8\n"
"	.globl	guest_end\n"
"guest_end:\n"
"	.popsection\n");

struct counter {
	unsigned int event;	/* 0x11 for the cycle counter */
	uint64_t last, min, max, total;
	unsigned int frozen, low, high;
};

static void die(const char *what)
{
	fprintf(stderr, "kvmguest: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	int r = ioctl(fd, req, arg);

	if (r < 0)
		die(what);
	return r;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_reg(int vcpu, uint64_t id, uint64_t val, const char *what)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	xioctl(vcpu, KVM_SET_ONE_REG, &reg, what);
}

#define CORE_REG(x)	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
			 (offsetof(struct kvm_regs, x) / sizeof(__u32)))

static void set_attr(int fd, unsigned int req, uint32_t group, uint64_t attr,
		     void *addr, const char *what)
{
	struct kvm_device_attr a = {
		.group = group, .attr = attr, .addr = (uintptr_t)addr,
	};

	xioctl(fd, req, &a, what);
}

static void on_alarm(int sig)
{
	(void)sig;	/* only interrupts KVM_RUN */
}

/* the advance of counter c from the previous report, judged; 0: plausible */
static int account(struct counter *c, uint64_t val, uint64_t lo, int wide,
		   char *line, size_t len)
{
	uint64_t d = val - c->last;
	int bad = 1;

	if (!wide)	/* a 32-bit event counter (PMCR_EL0.LP is 0) */
		d &= 0xffffffffULL;
	c->last = val;
	if (d < c->min)
		c->min = d;
	if (d > c->max)
		c->max = d;
	c->total += d;
	if (!d)
		c->frozen++;
	else if (d < lo)
		c->low++;
	else if (d > lo * PLAUSIBLE_FACTOR)
		c->high++;
	else
		bad = 0;
	snprintf(line + strlen(line), len - strlen(line), " %s%" PRIu64,
		 !d ? "FROZEN:" : bad ? "BAD:" : "+", d);
	return bad;
}

/* the involuntary context switches of this (the vCPU) thread so far */
static long switches(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char l[256];
	long n = -1;

	while (f && fgets(l, sizeof(l), f))
		if (sscanf(l, "nonvoluntary_ctxt_switches: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* the VM: memory with the guest, one vCPU with a PMU, a vGICv3 */
static struct kvm_run *make_vm(int *vcpu_fd, void **ram_p)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	struct kvm_userspace_memory_region mem;
	struct kvm_vcpu_init init;
	int kvm, vm, vcpu, run_size, irq = PMU_IRQ;
	struct kvm_run *run;
	uint64_t addr;
	void *ram;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		printf("kvmguest: no /dev/kvm: %s\n", strerror(errno));
		exit(4);
	}
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		printf("kvmguest: KVM API version is not %d\n", KVM_API_VERSION);
		exit(4);
	}
	if (ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_ARM_PMU_V3) <= 0) {
		printf("kvmguest: KVM has no PMUv3 for guests (KVM_CAP_ARM_PMU_V3)\n");
		exit(4);
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");

	ram = mmap(NULL, GUEST_RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap");
	memcpy(ram, guest_start, guest_end - guest_start);
	mem = (struct kvm_userspace_memory_region) {
		.slot = 0, .guest_phys_addr = GUEST_RAM,
		.memory_size = GUEST_RAM_SIZE, .userspace_addr = (uintptr_t)ram,
	};
	xioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem, "KVM_SET_USER_MEMORY_REGION");

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	xioctl(vm, KVM_ARM_PREFERRED_TARGET, &init, "KVM_ARM_PREFERRED_TARGET");
	init.features[0] |= 1U << KVM_ARM_VCPU_PMU_V3;
	xioctl(vcpu, KVM_ARM_VCPU_INIT, &init, "KVM_ARM_VCPU_INIT (PMU_V3)");

	/* the PMU needs an initialised in-kernel GIC before its own init */
	xioctl(vm, KVM_CREATE_DEVICE, &dev, "KVM_CREATE_DEVICE (vgic-v3)");
	addr = GIC_DIST;
	set_attr(dev.fd, KVM_SET_DEVICE_ATTR, KVM_DEV_ARM_VGIC_GRP_ADDR,
		 KVM_VGIC_V3_ADDR_TYPE_DIST, &addr, "vgic-v3 distributor address");
	addr = GIC_REDIST;
	set_attr(dev.fd, KVM_SET_DEVICE_ATTR, KVM_DEV_ARM_VGIC_GRP_ADDR,
		 KVM_VGIC_V3_ADDR_TYPE_REDIST, &addr, "vgic-v3 redistributor address");
	set_attr(dev.fd, KVM_SET_DEVICE_ATTR, KVM_DEV_ARM_VGIC_GRP_CTRL,
		 KVM_DEV_ARM_VGIC_CTRL_INIT, NULL, "KVM_DEV_ARM_VGIC_CTRL_INIT");
	set_attr(vcpu, KVM_SET_DEVICE_ATTR, KVM_ARM_VCPU_PMU_V3_CTRL,
		 KVM_ARM_VCPU_PMU_V3_IRQ, &irq, "KVM_ARM_VCPU_PMU_V3_IRQ");
	set_attr(vcpu, KVM_SET_DEVICE_ATTR, KVM_ARM_VCPU_PMU_V3_CTRL,
		 KVM_ARM_VCPU_PMU_V3_INIT, NULL, "KVM_ARM_VCPU_PMU_V3_INIT");

	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(*run))
		die("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap kvm_run");
	*vcpu_fd = vcpu;
	*ram_p = ram;
	return run;
}

/* a busy loop on this CPU that dies with its parent */
static pid_t busy_loop(void)
{
	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (!child) {
		volatile unsigned long sink = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			sink++;
	}
	return child;
}

int main(int argc, char **argv)
{
	unsigned int nev = 0, i, n_pmu = 0, reports = 0, want_reports = 5;
	int cpu = -1, busy = 0, all = 0, verbose = 0, bad_reports = 0, bad = 0;
	uint64_t spin = 2000000, vals[MAX_EV + 1] = {}, addr;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval tick = { { 0, 200000 }, { 0, 200000 } };
	struct counter ctr[MAX_EV + 1] = {};
	uint16_t events[MAX_EV];
	double secs = 3, end;
	struct kvm_run *run;
	char line[1024];
	pid_t child = 0;
	int opt, vcpu;
	void *ram;

	while ((opt = getopt(argc, argv, "Ae:n:s:r:c:bv")) != -1) {
		switch (opt) {
		case 'A':
			all = 1;
			break;
		case 'e':
			if (nev == MAX_EV)
				return 2;
			events[nev++] = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			spin = strtoull(optarg, NULL, 0);
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'r':
			want_reports = atoi(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'b':
			busy = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc || spin < 1000 || (busy && cpu < 0)) {
		fprintf(stderr, "usage: kvmguest [-A | -e EVENT]... [-n SPIN>=1000] [-s SECS] [-r REPORTS] [-c CPU [-b]] [-v]\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	run = make_vm(&vcpu, &ram);

	/*
	 * The event table follows the code; -A: as many as the guest's
	 * PMCR_EL0.N, which the guest caps it to (and reports).
	 */
	if (all) {
		nev = MAX_EV;
		for (i = 0; i < nev; i++)
			events[i] = i % 2 ? EV_CPU_CYCLES : EV_INST_RETIRED;
	}
	addr = (guest_end - guest_start + 7) & ~7UL;
	memcpy((char *)ram + addr, events, sizeof(events));
	set_reg(vcpu, CORE_REG(regs.pc), GUEST_RAM, "set PC");
	set_reg(vcpu, CORE_REG(regs.regs[0]), nev, "set x0");
	set_reg(vcpu, CORE_REG(regs.regs[1]), spin, "set x1");
	set_reg(vcpu, CORE_REG(regs.regs[2]), GUEST_MMIO, "set x2");
	set_reg(vcpu, CORE_REG(regs.regs[3]), GUEST_RAM + addr, "set x3");

	if (busy)
		child = busy_loop();
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);

	end = now() + secs;
	while (now() < end && reports < MAX_REPORTS) {
		uint64_t off, val = 0;
		int rbad = 0;

		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			die("KVM_RUN");
		}
		if (run->exit_reason != KVM_EXIT_MMIO || !run->mmio.is_write ||
		    run->mmio.len != 8 || run->mmio.phys_addr < GUEST_MMIO ||
		    run->mmio.phys_addr >= GUEST_MMIO + MMIO_EVCNT + 8 * MAX_EV) {
			fprintf(stderr, "kvmguest: unexpected exit %u (mmio 0x%llx len %u write %u)\n",
				run->exit_reason, (unsigned long long)run->mmio.phys_addr,
				run->mmio.len, run->mmio.is_write);
			bad = 2;
			break;
		}
		memcpy(&val, run->mmio.data, 8);
		off = run->mmio.phys_addr - GUEST_MMIO;
		if (off == MMIO_CYCLES) {
			vals[0] = val;
		} else if (off >= MMIO_EVCNT) {
			if ((off - MMIO_EVCNT) / 8 < nev)
				vals[(off - MMIO_EVCNT) / 8 + 1] = val;
		} else if (off == MMIO_PMCR) {
			n_pmu = (val >> 11) & 0x1f;
			if (all)
				nev = n_pmu;
			if (nev > n_pmu) {
				fprintf(stderr, "kvmguest: %u events, the guest's PMU has %u counters\n",
					nev, n_pmu);
				bad = 2;
				break;
			}
			ctr[0].event = EV_CPU_CYCLES;
			for (i = 0; i < nev; i++)
				ctr[i + 1].event = events[i];
			for (i = 0; i <= nev; i++)
				ctr[i].min = UINT64_MAX;
			printf("guest PMU: PMCR_EL0 0x%" PRIx64 ", %u event counters and the cycle counter; guest uses the cycle counter and %u:",
			       val, n_pmu, nev);
			for (i = 0; i < nev; i++)
				printf(" 0x%02x", events[i]);
			printf("\n");
		} else if (off == MMIO_DONE) {
			/* report 1 is the baseline: every later one must advance */
			snprintf(line, sizeof(line), "report %" PRIu64 ":", val);
			for (i = 0; i <= nev; i++) {
				uint64_t lo = ctr[i].event == EV_INST_RETIRED ? 2 * spin : spin;

				if (val == 1)
					ctr[i].last = vals[i];
				else
					rbad |= account(&ctr[i], vals[i], lo, !i, line,
							sizeof(line));
			}
			/* the first few, and the first few bad ones */
			bad_reports += rbad;
			if (val > 1 && (verbose || val <= 4 || (rbad && bad_reports <= 10)))
				printf("%s\n", line);
			reports = val;
		}
	}
	setitimer(ITIMER_REAL, &(struct itimerval){}, NULL);
	if (child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (bad)
		return bad;
	if (bad_reports > 10 && !verbose)
		printf("(%d more bad reports not shown)\n", bad_reports - 10);
	printf("vcpu thread: %ld involuntary context switches\n", switches());
	if (reports < want_reports + 1) {
		printf("kvmguest: %u reports in %.1f s, %u needed: raise -s or lower -n\n",
		       reports ? reports - 1 : 0, secs, want_reports);
		return 2;
	}
	for (i = 0; i <= nev; i++) {
		struct counter *c = &ctr[i];

		printf("%s 0x%02x: %u advances min %" PRIu64 " max %" PRIu64 " total %" PRIu64 ", frozen %u, too little %u, too much %u\n",
		       i ? "counter" : "cycle-counter", c->event, reports - 1, c->min, c->max,
		       c->total, c->frozen, c->low, c->high);
		if (c->frozen || c->low || c->high)
			bad = 1;
	}
	printf("kvmguest: %s\n", bad ? "FAIL: a guest counter did not count the whole time" :
	       "every guest counter counted at every report");
	return bad;
}
#endif
