// SPDX-License-Identifier: GPL-2.0
/*
 * kvmguest: a KVM guest whose virtual PMU counts, for the kvmguest.sh
 * kselftest: the smallest VMM that gives a guest KVM's PMUv3 emulation.
 *
 *   kvmguest [-A | -e EVENT]... [-n SPIN] [-s SECS] [-r REPORTS] [-c CPU] [-b] [-v]
 *   kvmguest -L IMAGE -i INITRAMFS [-a BOOTARGS] [-p VCPUS] [-s SECS] [-c CPU] [-b] [-v]
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
 *   -N N      give the guest's PMU N event counters (PMCR_EL0.N; KVM lets
 *             a VMM lower it from Linux 6.7 on: exit status 4 before, 3
 *             when KVM keeps another count), as a cloud instance's
 *   -F EVENT  deny EVENT to the guest with KVM's PMU event filter (it
 *             leaves the guest's PMCEID and counts nothing); repeatable
 * Prints the guest's PMU size, report lines (each counter's advance since
 * the previous report: +N, FROZEN:0 or BAD:N), a summary per counter and
 * the vCPU thread's involuntary context switches.
 * Exit status: 0 every counter advanced plausibly at every report; 1 one did
 * not (a frozen counter is reported as such); 2 bad usage, or the VMM or
 * guest failed; 4 no usable KVM with a PMU here (KSFT_SKIP).
 *
 * With -L, the guest is Linux instead: the arm64 kernel IMAGE with
 * INITRAMFS, whose /init is kvmperf (kvmperf.c: the guest's own
 * perf_event_open, judged by the guest), on the same VM with 256 MiB, PSCI
 * and a UART (run_linux() below).  The guest's console goes to stdout (-v:
 * its whole boot; else a quiet one), BOOTARGS are added to its command line
 * (N3TG_* there are kvmperf's settings), N3TG_EVENTS is set to the guest
 * PMU's counters, the cycle counter included, N3TG_COUNTERS to its event
 * counters, N3TG_CPUS to its vCPUs (guestmod-init reads them).  -p VCPUS
 * (default 1, at most 4): that many vCPUs, each with KVM's PMU and a thread
 * of its own, the second and later powered off until the guest brings them
 * up (PSCI CPU_ON, which KVM answers); the guest takes them down and up
 * again the same way (CPU hotplug).  -s SECS bounds the whole run
 * (default 300);
 * -b starts the busy loop when kvmperf says "n3tg: start"; -m FILE writes
 * each guest line with "n3tg: mark" to FILE as the vCPU thread takes it
 * from the UART (the host's tracefs trace_marker: a guest's window in the
 * host's trace, in order with the traps of its PMU accesses, kvmtraps.sh).
 * Exit status: 0
 * kvmperf said PASS, 1 it said FAIL, 2 it said neither (the guest did not
 * boot, or crashed, or SECS passed), 4 as above.
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
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "advance.h"

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

/*
 * What the guest's PMU is given, as a cloud's VMM gives it: -N, the event
 * counters (PMCR_EL0.N, which KVM lets the VMM lower from Linux 6.7 on),
 * -1 for the host's; -F, events KVM's PMU event filter denies (they leave
 * the guest's PMCEID and never count)
 */
static int pmu_counters = -1;
static uint16_t denied[MAX_EV];
static unsigned int nr_denied;
/* -m: where the Linux guest's "n3tg: mark" lines are copied (or -1) */
static int mark_fd = -1;
#define MAX_REPORTS	100000

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
	uint64_t last;
	struct advance a;
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
	int bad;

	if (!wide)	/* a 32-bit event counter (PMCR_EL0.LP is 0) */
		d &= 0xffffffffULL;
	c->last = val;
	bad = advance_judge(&c->a, d, lo);
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

/* a vCPU: its fd, its kvm_run, the thread that runs it */
struct vcpu {
	int fd;
	struct kvm_run *run;
	pthread_t thread;
};

#define MAX_VCPUS	4

/*
 * The VM: memory with the guest, nr vCPUs with a PMU each (the first
 * running, the others powered off until the guest's PSCI CPU_ON), a vGICv3
 */
static void make_vm(struct vcpu *v, unsigned int nr, void **ram_p, uint64_t ram_size,
		    uint32_t features)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	struct kvm_userspace_memory_region mem;
	struct kvm_vcpu_init pref, init;
	int kvm, vm, run_size, irq = PMU_IRQ;
	uint64_t addr;
	unsigned int i;
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

	ram = mmap(NULL, ram_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap");
	/* not into the busy loop's fork (-b) */
	madvise(ram, ram_size, MADV_DONTFORK);
	mem = (struct kvm_userspace_memory_region) {
		.slot = 0, .guest_phys_addr = GUEST_RAM,
		.memory_size = ram_size, .userspace_addr = (uintptr_t)ram,
	};
	xioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem, "KVM_SET_USER_MEMORY_REGION");

	/* every vCPU before the vGIC's init, which sizes it for them */
	xioctl(vm, KVM_ARM_PREFERRED_TARGET, &pref, "KVM_ARM_PREFERRED_TARGET");
	for (i = 0; i < nr; i++) {
		v[i].fd = ioctl(vm, KVM_CREATE_VCPU, i);
		if (v[i].fd < 0)
			die("KVM_CREATE_VCPU");
		init = pref;
		init.features[0] |= 1U << KVM_ARM_VCPU_PMU_V3 | features;
		if (i)
			init.features[0] |= 1U << KVM_ARM_VCPU_POWER_OFF;
		xioctl(v[i].fd, KVM_ARM_VCPU_INIT, &init, "KVM_ARM_VCPU_INIT (PMU_V3)");
	}

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
	/* the filter is the VM's: set once, through the first vCPU */
	for (i = 0; i < nr_denied; i++) {
		struct kvm_pmu_event_filter filter = {
			.base_event = denied[i], .nevents = 1,
			.action = KVM_PMU_EVENT_DENY,
		};

		set_attr(v[0].fd, KVM_SET_DEVICE_ATTR, KVM_ARM_VCPU_PMU_V3_CTRL,
			 KVM_ARM_VCPU_PMU_V3_FILTER, &filter, "KVM_ARM_VCPU_PMU_V3_FILTER (deny)");
	}
	for (i = 0; i < nr; i++) {
		set_attr(v[i].fd, KVM_SET_DEVICE_ATTR, KVM_ARM_VCPU_PMU_V3_CTRL,
			 KVM_ARM_VCPU_PMU_V3_IRQ, &irq, "KVM_ARM_VCPU_PMU_V3_IRQ");
		set_attr(v[i].fd, KVM_SET_DEVICE_ATTR, KVM_ARM_VCPU_PMU_V3_CTRL,
			 KVM_ARM_VCPU_PMU_V3_INIT, NULL, "KVM_ARM_VCPU_PMU_V3_INIT");
	}
	for (i = 0; pmu_counters >= 0 && i < nr; i++) {
		struct kvm_one_reg reg = { .id = ARM64_SYS_REG(3, 3, 9, 12, 0) };
		struct utsname u;
		unsigned int major = 0, minor = 0;
		uint64_t pmcr;

		/*
		 * Before 6.7 KVM stores the value written but keeps its own
		 * count of counters (and resets the register): not a PMU of
		 * fewer counters, so not tried
		 */
		uname(&u);
		if (sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
		    major * 1000 + minor < 6007) {
			printf("kvmguest: Linux %s cannot give a guest fewer counters (PMCR_EL0.N: 6.7 and later)\n",
			       u.release);
			exit(4);
		}

		reg.addr = (uintptr_t)&pmcr;
		xioctl(v[i].fd, KVM_GET_ONE_REG, &reg, "KVM_GET_ONE_REG PMCR_EL0");
		pmcr = (pmcr & ~(0x1fULL << 11)) | (uint64_t)pmu_counters << 11;
		xioctl(v[i].fd, KVM_SET_ONE_REG, &reg, "KVM_SET_ONE_REG PMCR_EL0");
		xioctl(v[i].fd, KVM_GET_ONE_REG, &reg, "KVM_GET_ONE_REG PMCR_EL0");
		/*
		 * from 6.7 on KVM takes it, up to the host's counters: a
		 * failure, not a host without the feature (exit 4)
		 */
		if (((pmcr >> 11) & 0x1f) != (uint64_t)pmu_counters) {
			printf("kvmguest: KVM kept PMCR_EL0.N at %u, not %d (the host's counters are fewer?)\n",
			       (unsigned int)((pmcr >> 11) & 0x1f), pmu_counters);
			exit(3);
		}
	}

	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(struct kvm_run))
		die("KVM_GET_VCPU_MMAP_SIZE");
	for (i = 0; i < nr; i++) {
		v[i].run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v[i].fd, 0);
		if (v[i].run == MAP_FAILED)
			die("mmap kvm_run");
	}
	*ram_p = ram;
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

/*
 * -L: a Linux guest.  The kernel Image at GUEST_RAM + its text_offset, the
 * initramfs at GUEST_INITRD, a device tree this VMM writes at the top 2 MiB
 * of the guest's memory (GUEST_DTB): one CPU (PSCI 0.2 by HVC), the vGICv3,
 * the architected timer, the PMU (PPI 23) and an ns16550a UART at GUEST_UART
 * that this VMM emulates on MMIO exits (transmit only, no interrupt: Linux
 * polls it), the guest's console, which goes to stdout line by line.
 */
#define GUEST_UART	0x09000000UL
#define GUEST_INITRD	(GUEST_RAM + 0x08000000UL)
#define LINUX_RAM_MB	256
#define GIC_PHANDLE	1

/* a flattened device tree, built in order (Documentation/devicetree/usage-model) */
#define FDT_WORDS	1024

struct fdt {
	uint32_t st[FDT_WORDS];	/* structure block, big endian words */
	unsigned int nst;
	char str[512];		/* strings block */
	unsigned int nstr;
};

static void fdt_word(struct fdt *f, uint32_t w)
{
	if (f->nst == FDT_WORDS) {
		fprintf(stderr, "kvmguest: device tree too big\n");
		exit(2);
	}
	f->st[f->nst++] = htobe32(w);
}

static void fdt_bytes(struct fdt *f, const void *p, size_t len)
{
	uint32_t w;

	while (len) {
		size_t n = len < 4 ? len : 4;

		w = 0;
		memcpy(&w, p, n);
		fdt_word(f, be32toh(w));	/* bytes in order */
		p = (const char *)p + n;
		len -= n;
	}
}

static void fdt_begin(struct fdt *f, const char *name)
{
	fdt_word(f, 1);			/* FDT_BEGIN_NODE */
	fdt_bytes(f, name, strlen(name) + 1);
}

static void fdt_end(struct fdt *f)
{
	fdt_word(f, 2);			/* FDT_END_NODE */
}

static void fdt_prop(struct fdt *f, const char *name, const void *val, size_t len)
{
	unsigned int off = 0;

	while (off < f->nstr && strcmp(f->str + off, name))
		off += strlen(f->str + off) + 1;
	if (off == f->nstr) {
		size_t len = strlen(name) + 1;

		if (f->nstr + len > sizeof(f->str)) {
			fprintf(stderr, "kvmguest: device tree strings too big\n");
			exit(2);
		}
		memcpy(f->str + off, name, len);
		f->nstr += len;
	}
	fdt_word(f, 3);			/* FDT_PROP */
	fdt_word(f, len);
	fdt_word(f, off);
	fdt_bytes(f, val, len);
}

static void fdt_str(struct fdt *f, const char *name, const char *s)
{
	fdt_prop(f, name, s, strlen(s) + 1);
}

/* a property of N cells */
static void fdt_cells(struct fdt *f, const char *name, unsigned int n, ...)
{
	uint32_t c[16];
	unsigned int i;
	va_list ap;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		c[i] = htobe32(va_arg(ap, uint32_t));
	va_end(ap);
	fdt_prop(f, name, c, n * 4);
}

/* the blob at dst: header, an empty memory reservation map, the blocks */
static size_t fdt_finish(struct fdt *f, void *dst)
{
	uint32_t hdr[10], rsv[4] = {};
	size_t st = sizeof(hdr) + sizeof(rsv), len;

	fdt_word(f, 9);			/* FDT_END */
	len = st + f->nst * 4 + f->nstr;
	hdr[0] = htobe32(0xd00dfeed);
	hdr[1] = htobe32(len);
	hdr[2] = htobe32(st);			/* off_dt_struct */
	hdr[3] = htobe32(st + f->nst * 4);	/* off_dt_strings */
	hdr[4] = htobe32(sizeof(hdr));		/* off_mem_rsvmap */
	hdr[5] = htobe32(17);
	hdr[6] = htobe32(16);
	hdr[7] = 0;				/* boot CPU */
	hdr[8] = htobe32(f->nstr);
	hdr[9] = htobe32(f->nst * 4);
	memcpy(dst, hdr, sizeof(hdr));
	memcpy((char *)dst + sizeof(hdr), rsv, sizeof(rsv));
	memcpy((char *)dst + st, f->st, f->nst * 4);
	memcpy((char *)dst + st + f->nst * 4, f->str, f->nstr);
	return len;
}

static void write_dtb(void *dst, uint64_t ram_size, const char *bootargs,
		      uint64_t initrd, uint64_t initrd_size, unsigned int nr_cpus)
{
	static struct fdt f;
	char name[64];

	fdt_begin(&f, "");
	fdt_cells(&f, "#address-cells", 1, 2);
	fdt_cells(&f, "#size-cells", 1, 2);
	fdt_str(&f, "compatible", "linux,dummy-virt");
	fdt_cells(&f, "interrupt-parent", 1, GIC_PHANDLE);

	fdt_begin(&f, "chosen");
	fdt_str(&f, "bootargs", bootargs);
	snprintf(name, sizeof(name), "/uart@%lx", GUEST_UART);
	fdt_str(&f, "stdout-path", name);
	fdt_cells(&f, "linux,initrd-start", 2, (uint32_t)(initrd >> 32), (uint32_t)initrd);
	fdt_cells(&f, "linux,initrd-end", 2, (uint32_t)((initrd + initrd_size) >> 32),
		  (uint32_t)(initrd + initrd_size));
	fdt_end(&f);

	snprintf(name, sizeof(name), "memory@%lx", GUEST_RAM);
	fdt_begin(&f, name);
	fdt_str(&f, "device_type", "memory");
	fdt_cells(&f, "reg", 4, 0, (uint32_t)GUEST_RAM, (uint32_t)(ram_size >> 32),
		  (uint32_t)ram_size);
	fdt_end(&f);

	fdt_begin(&f, "cpus");
	fdt_cells(&f, "#address-cells", 1, 1);
	fdt_cells(&f, "#size-cells", 1, 0);
	for (unsigned int i = 0; i < nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu@%u", i);
		fdt_begin(&f, name);
		fdt_str(&f, "device_type", "cpu");
		fdt_str(&f, "compatible", "arm,armv8");
		fdt_cells(&f, "reg", 1, i);	/* MPIDR_EL1 Aff0: KVM's vCPU id */
		fdt_str(&f, "enable-method", "psci");
		fdt_end(&f);
	}
	fdt_end(&f);

	fdt_begin(&f, "psci");
	fdt_str(&f, "compatible", "arm,psci-0.2");
	fdt_str(&f, "method", "hvc");
	fdt_end(&f);

	snprintf(name, sizeof(name), "intc@%lx", GIC_DIST);
	fdt_begin(&f, name);
	fdt_str(&f, "compatible", "arm,gic-v3");
	fdt_cells(&f, "#interrupt-cells", 1, 3);
	fdt_prop(&f, "interrupt-controller", NULL, 0);
	fdt_cells(&f, "reg", 8, 0, (uint32_t)GIC_DIST, 0, 0x10000,
		  0, (uint32_t)GIC_REDIST, 0, 0x20000 * nr_cpus);	/* one per CPU */
	fdt_cells(&f, "phandle", 1, GIC_PHANDLE);
	fdt_end(&f);

	/* PPIs, level high: secure and non-secure physical, virtual, hyp timer */
	fdt_begin(&f, "timer");
	fdt_str(&f, "compatible", "arm,armv8-timer");
	fdt_cells(&f, "interrupts", 12, 1, 13, 4, 1, 14, 4, 1, 11, 4, 1, 10, 4);
	fdt_end(&f);

	fdt_begin(&f, "pmu");
	fdt_str(&f, "compatible", "arm,armv8-pmuv3");
	fdt_cells(&f, "interrupts", 3, 1, PMU_IRQ - 16, 4);
	fdt_end(&f);

	snprintf(name, sizeof(name), "uart@%lx", GUEST_UART);
	fdt_begin(&f, name);
	fdt_str(&f, "compatible", "ns16550a");
	fdt_cells(&f, "reg", 4, 0, (uint32_t)GUEST_UART, 0, 0x1000);
	fdt_cells(&f, "clock-frequency", 1, 1843200);
	fdt_end(&f);

	fdt_end(&f);
	fdt_finish(&f, dst);
}

/* FILE into guest memory at off; its size */
static size_t load(const char *file, void *ram, uint64_t off, uint64_t room)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		die(file);
	while ((n = read(fd, (char *)ram + off + len, room - len)) > 0)
		len += n;
	if (n < 0)
		die(file);
	if (len == room) {
		fprintf(stderr, "kvmguest: %s does not fit in the guest's memory\n", file);
		exit(2);
	}
	close(fd);
	return len;
}

struct uart {
	uint8_t reg[8];		/* as written; [0], [1] with LCR.DLAB: the divisor */
	char line[1024];
	unsigned int len;
};

/*
 * An access to the UART; a complete line of output is returned (else
 * NULL).  Reads: LSR says the transmitter is empty, MSR carrier and
 * clear to send, IIR no interrupt, RBR no data; the rest what was written.
 */
static const char *uart_access(struct uart *u, struct kvm_run *run)
{
	unsigned int off = (run->mmio.phys_addr - GUEST_UART) & 7;
	uint8_t *data = run->mmio.data;
	int dlab = u->reg[3] & 0x80;

	if (!run->mmio.is_write) {
		memset(data, 0, run->mmio.len);
		data[0] = off == 5 ? 0x60 : off == 6 ? 0xb0 : off == 2 ? 0x01 :
			  off == 0 && !dlab ? 0 : u->reg[off];
		return NULL;
	}
	if (off || dlab) {
		u->reg[off] = data[0];
		return NULL;
	}
	if (data[0] == '\r')
		return NULL;
	if (data[0] != '\n' && u->len < sizeof(u->line) - 1) {
		u->line[u->len++] = data[0];
		return NULL;
	}
	u->line[u->len] = 0;
	u->len = 0;
	return u->line;
}

/*
 * A Linux guest's vCPUs, each run by a thread of its own; what they share
 * (the UART, the verdict, the end) under lock.  SIGALRM (the 200 ms tick)
 * goes to the first vCPU's thread only, which ends the run when its time
 * is up; a vCPU that ends it (the guest powered off, or crashed) kicks the
 * others out of KVM_RUN (immediate_exit, then SIGUSR1).
 */
static struct {
	pthread_mutex_t lock;
	struct vcpu vcpu[MAX_VCPUS];
	unsigned int nr;
	struct uart uart;
	int verdict, done, busy, unknown;
	double end, t_start;
	pid_t child;
} lg = { .lock = PTHREAD_MUTEX_INITIALIZER, .verdict = 2 };

/* under lg.lock: the run ends, every other vCPU thread told */
static void linux_end(const struct vcpu *self)
{
	lg.done = 1;
	for (unsigned int i = 0; i < lg.nr; i++) {
		if (&lg.vcpu[i] == self)
			continue;
		lg.vcpu[i].run->immediate_exit = 1;
		pthread_kill(lg.vcpu[i].thread, SIGUSR1);
	}
}

/* under lg.lock: one exit of a vCPU */
static void linux_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	const char *line;

	switch (run->exit_reason) {
	case KVM_EXIT_MMIO:
		if (run->mmio.phys_addr - GUEST_UART < 0x1000) {
			line = uart_access(&lg.uart, run);
			if (!line)
				break;
			printf("guest: %s\n", line);
			fflush(stdout);
			if (mark_fd >= 0 && strstr(line, "n3tg: mark") &&
			    write(mark_fd, line, strlen(line)) < 0)
				die("write the mark");
			if (strstr(line, "n3tg: start")) {
				lg.t_start = now();
				if (lg.busy && !lg.child)
					lg.child = busy_loop();
			} else if (strstr(line, "n3tg: PASS")) {
				lg.verdict = 0;
			} else if (strstr(line, "n3tg: FAIL")) {
				lg.verdict = 1;
			}
			break;
		}
		if (lg.unknown++ < 5)
			printf("kvmguest: guest %s 0x%llx (len %u): no device there\n",
			       run->mmio.is_write ? "wrote" : "read",
			       (unsigned long long)run->mmio.phys_addr, run->mmio.len);
		if (!run->mmio.is_write)
			memset(run->mmio.data, 0, sizeof(run->mmio.data));
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		printf("kvmguest: guest %s\n",
		       run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN ?
		       "powered off" : "reset or crashed");
		linux_end(v);
		break;
	default:
		printf("kvmguest: unexpected exit %u\n", run->exit_reason);
		linux_end(v);
		break;
	}
}

static void *linux_vcpu(void *arg)
{
	struct vcpu *v = arg;

	pthread_mutex_lock(&lg.lock);
	while (!lg.done) {
		if (v == lg.vcpu && now() > lg.end) {
			printf("kvmguest: the guest did not finish in time\n");
			linux_end(v);
			break;
		}
		pthread_mutex_unlock(&lg.lock);
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			if (errno != EINTR)
				die("KVM_RUN");
			pthread_mutex_lock(&lg.lock);
			continue;
		}
		pthread_mutex_lock(&lg.lock);
		linux_exit(v);
	}
	pthread_mutex_unlock(&lg.lock);
	return NULL;
}

/* what a Linux guest's console said: 0 PASS, 1 FAIL, 2 neither */
static int run_linux(const char *image, const char *initrd, const char *args,
		     int busy, double secs, int verbose, unsigned int nr_cpus)
{
	uint64_t ram_size = (uint64_t)LINUX_RAM_MB << 20, text_offset, image_size, dtb, pmcr;
	struct kvm_one_reg reg = { .id = ARM64_SYS_REG(3, 3, 9, 12, 0) };
	struct sigaction sa = { .sa_handler = on_alarm };
	double start = now();
	sigset_t alrm, old;
	size_t klen, ilen;
	char bootargs[1024];
	unsigned int i;
	void *ram;

	lg.nr = nr_cpus;
	lg.busy = busy;
	lg.end = start + secs;
	make_vm(lg.vcpu, nr_cpus, &ram, ram_size, 1U << KVM_ARM_VCPU_PSCI_0_2);
	/* the guest's PMU as KVM made it: every counter used (kvmperf.c) */
	reg.addr = (uintptr_t)&pmcr;
	xioctl(lg.vcpu[0].fd, KVM_GET_ONE_REG, &reg, "KVM_GET_ONE_REG PMCR_EL0");

	/* arm64 boot protocol (Documentation/arm64/booting.rst) */
	klen = load(image, ram, 0, GUEST_INITRD - GUEST_RAM);
	if (klen < 64 || memcmp((char *)ram + 56, "ARM\x64", 4)) {
		fprintf(stderr, "kvmguest: %s is no arm64 Image (gzip? decompress it)\n", image);
		return 2;
	}
	memcpy(&text_offset, (char *)ram + 8, 8);
	memcpy(&image_size, (char *)ram + 16, 8);	/* bss included */
	if (text_offset + image_size > GUEST_INITRD - GUEST_RAM) {
		fprintf(stderr, "kvmguest: %s needs more than the %lu MiB below the initramfs\n",
			image, (GUEST_INITRD - GUEST_RAM) >> 20);
		return 2;
	}
	if (text_offset) {
		memmove((char *)ram + text_offset, ram, klen);
		memset(ram, 0, text_offset);
	}
	ilen = load(initrd, ram, GUEST_INITRD - GUEST_RAM,
		    ram_size - (2 << 20) - (GUEST_INITRD - GUEST_RAM));
	dtb = GUEST_RAM + ram_size - (2 << 20);
	/*
	 * Every character of the console is two exits to this VMM (the
	 * transmitter's status, the character), each costly under QEMU's
	 * emulated EL2: a quiet console (-v: the whole boot, from earlycon on)
	 */
	snprintf(bootargs, sizeof(bootargs),
		 "console=ttyS0 %s printk.devkmsg=on panic=-1 rdinit=/init N3TG_EVENTS=%u N3TG_COUNTERS=%u N3TG_CPUS=%u %s",
		 verbose ? "earlycon" : "quiet printk.time=0",
		 (unsigned int)((pmcr >> 11) & 0x1f) + 1, (unsigned int)((pmcr >> 11) & 0x1f),
		 nr_cpus, args);
	write_dtb((char *)ram + (dtb - GUEST_RAM), ram_size, bootargs, GUEST_INITRD, ilen,
		  nr_cpus);
	printf("kvmguest: Linux guest: %s (%zu bytes, text_offset 0x%" PRIx64 "),",
	       image, klen, text_offset);
	printf(" initramfs %s (%zu bytes), %u MiB, %u vCPUs, PMCR_EL0 0x%" PRIx64 "\n",
	       initrd, ilen, LINUX_RAM_MB, nr_cpus, pmcr);
	printf("kvmguest: bootargs: %s\n", bootargs);
	fflush(stdout);
	set_reg(lg.vcpu[0].fd, CORE_REG(regs.pc), GUEST_RAM + text_offset, "set PC");
	set_reg(lg.vcpu[0].fd, CORE_REG(regs.regs[0]), dtb, "set x0");

	/* SIGUSR1 kicks a vCPU thread out of KVM_RUN; SIGALRM the first's only */
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	lg.vcpu[0].thread = pthread_self();
	for (i = 1; i < nr_cpus; i++)
		if (pthread_create(&lg.vcpu[i].thread, NULL, linux_vcpu, &lg.vcpu[i]))
			die("pthread_create");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	linux_vcpu(&lg.vcpu[0]);
	for (i = 1; i < nr_cpus; i++)
		pthread_join(lg.vcpu[i].thread, NULL);

	setitimer(ITIMER_REAL, &(struct itimerval){}, NULL);
	if (lg.child) {
		kill(lg.child, SIGKILL);
		waitpid(lg.child, NULL, 0);
	}
	if (lg.uart.len) {
		lg.uart.line[lg.uart.len] = 0;
		printf("guest: %s\n", lg.uart.line);
	}
	if (lg.t_start)
		printf("kvmguest: guest booted to its init in %.1f s, ran it %.1f s\n",
		       lg.t_start - start, now() - lg.t_start);
	printf("vcpu thread: %ld involuntary context switches\n", switches());
	printf("kvmguest: Linux guest %s\n", lg.verdict == 0 ? "PASS" : lg.verdict == 1 ?
	       "FAIL: a guest event did not count the whole time" :
	       "gave no verdict");
	return lg.verdict;
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
	int secs_given = 0, nr_cpus = 1;
	struct kvm_run *run;
	char line[1024];
	const char *image = NULL, *initrd = NULL, *args = "";
	struct vcpu v;
	pid_t child = 0;
	int opt, vcpu;
	void *ram;

	while ((opt = getopt(argc, argv, "Ae:n:s:r:c:bvL:i:a:N:F:m:p:")) != -1) {
		switch (opt) {
		case 'p':
			nr_cpus = atoi(optarg);
			if (nr_cpus < 1 || nr_cpus > MAX_VCPUS)
				return 2;
			break;
		case 'N':
			pmu_counters = atoi(optarg);
			if (pmu_counters < 0 || pmu_counters > 31)
				return 2;
			break;
		case 'F':
			if (nr_denied == MAX_EV)
				return 2;
			denied[nr_denied++] = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mark_fd = open(optarg, O_WRONLY);
			if (mark_fd < 0)
				die(optarg);
			break;
		case 'L':
			image = optarg;
			break;
		case 'i':
			initrd = optarg;
			break;
		case 'a':
			args = optarg;
			break;
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
			secs_given = 1;
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
	if (optind != argc || spin < 1000 || (busy && cpu < 0) || !image != !initrd ||
	    (nr_cpus > 1 && !image)) {
		fprintf(stderr, "usage: kvmguest [-A | -e EVENT]... [-n SPIN>=1000] [-s SECS] [-r REPORTS] [-c CPU [-b]] [-N COUNTERS] [-F EVENT]... [-v]\n");
		fprintf(stderr, "       kvmguest -L IMAGE -i INITRAMFS [-a BOOTARGS] [-p VCPUS] [-s SECS] [-c CPU [-b]] [-N COUNTERS] [-F EVENT]... [-m FILE] [-v]\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	if (image) {
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &tick, NULL);
		return run_linux(image, initrd, args, busy, secs_given ? secs : 300, verbose,
				 nr_cpus);
	}
	make_vm(&v, 1, &ram, GUEST_RAM_SIZE, 0);
	vcpu = v.fd;
	run = v.run;
	memcpy(ram, guest_start, guest_end - guest_start);

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
				ctr[i].a.min = UINT64_MAX;
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
		       i ? "counter" : "cycle-counter", c->event, reports - 1, c->a.min, c->a.max,
		       c->a.total, c->a.frozen, c->a.low, c->a.high);
		if (c->a.frozen || c->a.low || c->a.high)
			bad = 1;
	}
	printf("kvmguest: %s\n", bad ? "FAIL: a guest counter did not count the whole time" :
	       "every guest counter counted at every report");
	return bad;
}
#endif
