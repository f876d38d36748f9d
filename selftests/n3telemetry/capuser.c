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
 *
 *   capuser --opened-by UID CAPS FILE
 *
 * A descriptor passed on: a child process becomes UID with CAPS, as above,
 * opens FILE and capuser takes the descriptor (pidfd_getfd()) and reads
 * it to its end with its own credentials and copies it to standard output.
 * Exit status 0 when the whole file was read, 1 when a read failed (its
 * error on standard error: "capuser: reading FILE: Permission denied"),
 * 125 when it could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open		/* the same number on every architecture */
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_RAISE	2
#endif

static void fail(const char *what)
{
	fprintf(stderr, "capuser: %s: %s\n", what, strerror(errno));
	exit(125);
}

/* Become @uid with exactly the capabilities @spec says ("none" or "N,N..."). */
static void become(const char *uid_arg, char *spec)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned long long caps = 0;
	char *end, *tok, *save = NULL;
	long uid;
	int c;

	uid = strtol(uid_arg, &end, 10);
	if (*end || uid < 0) {
		fprintf(stderr, "capuser: bad UID \"%s\"\n", uid_arg);
		exit(125);
	}
	if (strcmp(spec, "none")) {
		for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			c = strtol(tok, &end, 10);
			if (*end || c < 0 || c > 63) {
				fprintf(stderr, "capuser: bad capability \"%s\"\n", tok);
				exit(125);
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
}

/*
 * --opened-by: the child opens @path as @uid/@spec, this process takes the
 * descriptor (pidfd_getfd(), which needs no socket family in the kernel)
 * and reads it.
 */
static int opened_by(const char *uid_arg, char *spec, const char *path)
{
	int ready[2], done[2], fd, pidfd, status;
	char buf[4096];
	ssize_t r;
	pid_t pid;

	if (pipe(ready) || pipe(done))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (!pid) {
		close(ready[0]);
		close(done[1]);
		become(uid_arg, spec);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			fail(path);
		/* its number to the parent, then wait until it has taken it */
		if (write(ready[1], &fd, sizeof(fd)) != sizeof(fd))
			fail("write");
		r = read(done[0], buf, 1);
		exit(0);
	}
	close(ready[1]);
	close(done[0]);
	r = read(ready[0], &fd, sizeof(fd));
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (r == sizeof(fd) && pidfd >= 0)
		fd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	else
		fd = -1;
	if (fd < 0 && r == sizeof(int))
		fprintf(stderr, "capuser: taking the descriptor: %s\n", strerror(errno));
	close(done[1]);
	waitpid(pid, &status, 0);
	if (fd < 0) {
		if (r != sizeof(int))
			fprintf(stderr, "capuser: no descriptor from the opener\n");
		return 125;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, r, stdout) != (size_t)r)
			fail("writing");
	if (r < 0) {
		fprintf(stderr, "capuser: reading %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--opened-by"))
		return opened_by(argv[2], argv[3], argv[4]);
	if (argc < 4) {
		fprintf(stderr, "usage: capuser UID none|CAP[,CAP]... COMMAND [ARG]...\n"
			"       capuser --opened-by UID none|CAP[,CAP]... FILE\n");
		return 125;
	}
	become(argv[1], argv[2]);
	execvp(argv[3], argv + 3);
	fail(argv[3]);
	return 125;
}
