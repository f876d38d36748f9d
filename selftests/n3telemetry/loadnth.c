// SPDX-License-Identifier: GPL-2.0
/*
 * loadnth: load a module once with the N-th fault-injectable call of this
 * task failing (failslab's /proc/self/fail-nth), for faults.sh.
 *
 *   loadnth N MODULE.ko [PARAM...]
 *
 * Writes N (1 or more) to /proc/self/fail-nth, calls finit_module()
 * once (busybox insmod calls init_module() again when finit_module()
 * fails, so a failure of the loader's would be followed by a load that
 * works), then reads fail-nth back: 0 when the failure was injected, else
 * how many calls were left.  Prints "loaded LEFT" or "refused ERRNO LEFT"
 * (ERRNO the number) and exits 0 or 1; 2 for bad usage or an I/O error.
 * A load with N larger than the load's calls tells how many it made:
 * N - LEFT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[4096] = "", buf[32], *end;
	int nth, fd, ret, err, i;
	ssize_t r;
	long left, n;

	n = argc < 3 ? 0 : strtol(argv[1], &end, 10);
	if (n < 1 || *end) {
		fprintf(stderr, "usage: loadnth N MODULE.ko [PARAM...] (N from 1)\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (strlen(params) + strlen(argv[i]) + 2 > sizeof(params)) {
			fprintf(stderr, "loadnth: parameters too long\n");
			return 2;
		}
		if (i > 3)
			strcat(params, " ");
		strcat(params, argv[i]);
	}
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	nth = open("/proc/self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth < 0) {
		perror("loadnth: /proc/self/fail-nth");
		return 2;
	}
	if (dprintf(nth, "%ld", n) < 0) {
		perror("loadnth: writing fail-nth");
		return 2;
	}
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	r = pread(nth, buf, sizeof(buf) - 1, 0);
	if (r <= 0) {
		perror("loadnth: reading fail-nth");
		return 2;
	}
	buf[r] = '\0';
	left = strtol(buf, NULL, 10);
	/* disarm: what this process does next must not fail */
	if (left && dprintf(nth, "0") < 0)
		return 2;
	if (ret) {
		printf("refused %d %ld\n", err, left);
		return 1;
	}
	printf("loaded %ld\n", left);
	return 0;
}
