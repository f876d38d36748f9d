// SPDX-License-Identifier: GPL-2.0
/*
 * capuser: run a command as another user with exactly the given
 * capabilities, for the access kselftest (access.sh); busybox has neither
 * setpriv nor capsh.  Run as root.
 *
 *   capuser UID CAPS COMMAND [ARG]...
 *
 * CAPS is "none" or capability numbers separated by commas (38 is
 * CAP_PERFMON, 21 CAP_SYS_ADMIN).  The command runs with uid and gid UID,
 * no supplementary groups, and CAPS permitted, effective and ambient (so
 * that they survive the exec); every other capability is dropped from the
 * bounding set, so that UID 0 gets no more than CAPS either.
 * Exit status: the command's, or 125 when it could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_RAISE	2
#endif

static void fail(const char *what)
{
	fprintf(stderr, "capuser: %s: %s\n", what, strerror(errno));
	exit(125);
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned long long caps = 0;
	char *end, *tok, *save = NULL;
	long uid;
	int c;

	if (argc < 4) {
		fprintf(stderr, "usage: capuser UID none|CAP[,CAP]... COMMAND [ARG]...\n");
		return 125;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || uid < 0) {
		fprintf(stderr, "capuser: bad UID \"%s\"\n", argv[1]);
		return 125;
	}
	if (strcmp(argv[2], "none")) {
		for (tok = strtok_r(argv[2], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			c = strtol(tok, &end, 10);
			if (*end || c < 0 || c > 63) {
				fprintf(stderr, "capuser: bad capability \"%s\"\n", tok);
				return 125;
			}
			caps |= 1ULL << c;
		}
	}
	for (c = 0; c <= 63; c++) {
		if (caps & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			fail("PR_CAPBSET_DROP");
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		fail("PR_SET_KEEPCAPS");
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		fail("setting the user");
	memset(data, 0, sizeof(data));
	for (c = 0; c < 2; c++) {
		data[c].permitted = caps >> (32 * c);
		data[c].effective = data[c].permitted;
		data[c].inheritable = data[c].permitted;
	}
	if (syscall(SYS_capset, &hdr, data))
		fail("capset");
	for (c = 0; c <= 63; c++)
		if ((caps & (1ULL << c)) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0))
			fail("PR_CAP_AMBIENT_RAISE");
	execvp(argv[3], argv + 3);
	fail(argv[3]);
	return 125;
}
