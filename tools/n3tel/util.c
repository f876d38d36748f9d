// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel's shared helpers (see util.h): die() and warn_once(),
 * slurp() a whole file, next_line() of a buffer, parse_cpu_list(),
 * parse_u128() and fmt_u128(), run_command() and exit_status().
 *
 * Calls only the C library; knows nothing of the model, the views or the
 * formats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define MAX_FILE	(64 << 20)	/* a snapshot of 4096 CPUs is about 10 MiB */

const char *prog = "n3tel";

/* set by textfile (see util.h) */
jmp_buf *die_jmp;
char die_msg[DIE_MSG_LEN];

void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(die_msg, sizeof(die_msg), fmt, ap);
	va_end(ap);
	if (die_jmp)
		longjmp(*die_jmp, 1);
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", prog, die_msg);
	exit(1);
}

/*
 * Read a whole file; NULL with errno set on failure (EFBIG beyond MAX_FILE).
 * @once: a sysfs file of the module, whose text fits in a page and is
 * printed anew at each read(): one read() of more than a page takes it
 * whole, and is the only one (a second, at its end, would print the text
 * again, and could find it longer if an interval ended in between).
 */
static char *slurp_read(const char *path, size_t *len, bool once)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		free(buf);
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (once && n < cap)
			break;
		if (n == cap) {
			char *nb;

			/* never a silently truncated file: grow, or fail */
			if (cap >= MAX_FILE) {
				errno = EFBIG;
				r = -1;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				errno = ENOMEM;
				r = -1;
				break;
			}
			buf = nb;
		}
	}
	if (r < 0) {
		int e = errno;

		close(fd);
		free(buf);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *slurp(const char *path, size_t *len)
{
	return slurp_read(path, len, false);
}

char *slurp_sysfs(const char *path)
{
	return slurp_read(path, NULL, true);
}

bool refused(int err)
{
	return err == EACCES || err == EPERM;
}

/* next line of a buffer, NUL-terminated in place; NULL at the end */
char *next_line(char **p)
{
	char *s = *p, *nl;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/* once per distinct message: textfile --every would repeat it each round */
void warn_once(const char *fmt, ...)
{
	static char last[512];
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strcmp(msg, last))
		return;
	snprintf(last, sizeof(last), "%s", msg);
	fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

size_t utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int c = *p, n, min;

	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0) {
		n = 1, c &= 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2, c &= 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 3, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (unsigned int k = 1; k <= n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;	/* a NUL ends it here too */
		c = c << 6 | (p[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n + 1;
}

void json_put(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	for (; *s; s += n ? n : 1) {
		n = utf8_len(s);
		if (!n)
			fputs("\\ufffd", f);
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

/* --cpu, parsed once (util.h) */
void parse_cpu_list(const char *list, struct cpu_list *l)
{
	char *dup, *save = NULL;
	size_t n = 1;

	memset(l, 0, sizeof(*l));
	if (!list)
		return;
	l->given = true;
	if (!strcmp(list, "system")) {
		l->system = true;
		return;
	}
	for (const char *p = list; *p; p++) {
		if (!strchr("0123456789,-", *p))
			die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
		n += *p == ',';
	}
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
	dup = strdup(list);
	l->lo = malloc(n * sizeof(*l->lo));
	l->hi = malloc(n * sizeof(*l->hi));
	if (!dup || !l->lo || !l->hi)
		die("out of memory");
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int a, b, k = 0;

		if (sscanf(tok, "%d-%d%n", &a, &b, &k) == 2 && !tok[k] && a <= b)
			;
		else if (sscanf(tok, "%d%n", &a, &k) == 1 && !tok[k])
			b = a;
		else
			die("bad --cpu list \"%s\" (want e.g. 0-3,8 or system)", list);
		if (a < 0)	/* "-3" reads as the number -3 */
			die("bad --cpu list \"%s\" (CPU numbers are 0 or more)", list);
		l->lo[l->nr] = a;
		l->hi[l->nr++] = b;
	}
	free(dup);
}

/* A decimal of digits only, at most 2^128 - 1: true and *v, else false. */
bool parse_u128(const char *s, u128 *v)
{
	u128 x = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > ((u128)-1 - (*s - '0')) / 10)
			return false;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return true;
}

/* @v in decimal into @buf (U128_BUF bytes); returns @buf. */
char *fmt_u128(char *buf, u128 v)
{
	char tmp[U128_BUF];
	int n = 0, i = 0;

	do {
		tmp[n++] = '0' + (int)(v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = 0;
	return buf;
}

int run_command(char **cmd, const void *affinity, size_t affinity_size, struct rusage *ru)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int status;
	pid_t pid;

	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		if (affinity && sched_setaffinity(0, affinity_size, affinity)) {
			fprintf(stderr, "%s: cannot run %s on those CPUs: %s\n", prog, cmd[0],
				strerror(errno));
			_exit(126);
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (wait4(pid, &status, 0, ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return status;
}

int exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
