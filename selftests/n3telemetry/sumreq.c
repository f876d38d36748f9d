// SPDX-License-Identifier: GPL-2.0
/*
 * sumreq: one N3T_IOC_SUM request on /dev/n3telemetry, as asked, for
 * badinput.sh: a bitmap of one word (or none), its flags, its record size,
 * bad addresses.  Prints "OK nr_cpus=N cpu=0x... model=M valid=V canary=
 * intact|overwritten" (the byte after record_size) or "ERR <errno name>".
 *
 * usage: sumreq [-w WORDS] [-f FLAGS] [-s RECORD_SIZE] [-m] [-n] [-b] HEXWORD
 *   -w: nr_words (default 1; the others are zero), -f: flags, -s: record
 *   size (default the whole record), -m: the record's fixed part only (up
 *   to event_count), -n: a NULL record, -b: a bad bitmap address
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
/*
 * The uapi header: installed, or this source tree's (make -C
 * selftests/n3telemetry, selftests/vm/guest-progs.sh); copied into a
 * kernel tree's selftests (the kernel's lib.mk) this directory has neither,
 * and uses the ABI as released: a record's fixed part and its size then
 */
#if __has_include(<linux/n3telemetry.h>)
#include <linux/n3telemetry.h>
#elif __has_include("../../uapi/linux/n3telemetry.h")
#include "../../uapi/linux/n3telemetry.h"
#else
#include <linux/ioctl.h>
#include <linux/types.h>
#define N3T_REC_VALID	0x1U
struct n3t_snapshot_record {
	__u32 cpu, flags;
	__u64 seq, end_ns, interval_ns;
	__u32 nr_sets, lost_slices, model, nr_events, nr_metrics, reserved;
	__u64 valid[2], counted[2];
	__s64 value[96];
	__u64 event_count[96];
	__u64 rest[(4472 - 856 - 768) / 8];
};
struct n3t_sum_request {
	__u64 cpus;
	__u32 nr_words, flags;
	__u64 record;
	__u32 record_size, nr_cpus;
};
#define N3T_IOC_SUM	_IOWR(0xb3, 0x02, struct n3t_sum_request)
#endif

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	static unsigned char buf[sizeof(struct n3t_snapshot_record) + 1];
	struct n3t_snapshot_record *r = (void *)buf;
	uint64_t words[64];
	struct n3t_sum_request req = { 0 };
	unsigned int nr_words = 1, size = sizeof(*r);
	int c, fd, null_record = 0, bad_cpus = 0;
	uint64_t word;

	while ((c = getopt(argc, argv, "w:f:s:mnb")) != -1) {
		switch (c) {
		case 'w': nr_words = strtoul(optarg, NULL, 0); break;
		case 'f': req.flags = strtoul(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'm': size = offsetof(struct n3t_snapshot_record, event_count); break;
		case 'n': null_record = 1; break;
		case 'b': bad_cpus = 1; break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || nr_words > 64 || size > sizeof(*r)) {
		fprintf(stderr, "usage: sumreq [-w WORDS] [-f FLAGS] [-s SIZE] [-m] [-n] [-b] HEXWORD\n");
		return 2;
	}
	word = strtoull(argv[optind], NULL, 16);
	memset(words, 0, sizeof(words));
	words[0] = word;
	memset(buf, 0xa5, sizeof(buf));
	req.cpus = bad_cpus ? 8 : (uintptr_t)words;
	req.nr_words = nr_words;
	req.record = null_record ? 0 : (uintptr_t)buf;
	req.record_size = size;
	fd = open("/dev/n3telemetry", O_RDONLY);
	if (fd < 0) {
		printf("ERR %s\n", errname(errno));
		return 1;
	}
	if (ioctl(fd, N3T_IOC_SUM, &req)) {
		printf("ERR %s\n", errname(errno));
		return 1;
	}
	printf("OK nr_cpus=%u cpu=%#x model=%u valid=%u canary=%s\n", req.nr_cpus, r->cpu,
	       r->model, r->flags & N3T_REC_VALID, buf[size] == 0xa5 ? "intact" : "overwritten");
	close(fd);
	return 0;
}
