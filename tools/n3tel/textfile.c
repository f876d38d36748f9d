// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel textfile: the scrape written as DIR/n3telemetry.prom
 * for node_exporter's textfile collector, atomically, once or every N
 * seconds; n3telemetry_up 0 alone when it cannot be made.
 *
 * Calls prometheus.c (prom_text()), the model (free_tree()) and util.h
 * (it catches die() with die_jmp); main.c calls it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "util.h"

/* the temporary file being written, removed if a signal ends n3tel */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_armed;

static void textfile_signal(int sig)
{
	if (tmp_armed)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* write @text as DIR/n3telemetry.prom, atomically (a temporary file renamed) */
static void write_textfile(const char *dir, const char *text, size_t len)
{
	char dst[4096];
	int fd;

	snprintf(dst, sizeof(dst), "%s/n3telemetry.prom", dir);
	snprintf(tmp_path, sizeof(tmp_path), "%s/.n3telemetry.prom.%d", dir, (int)getpid());
	tmp_armed = 1;
	fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		tmp_armed = 0;
		die("cannot create %s: %s", tmp_path, strerror(errno));
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			unlink(tmp_path);
			tmp_armed = 0;
			die("cannot write %s: %s", tmp_path, strerror(e));
		}
		off += w;
	}
	if (fsync(fd) || close(fd)) {
		int e = errno;

		unlink(tmp_path);
		tmp_armed = 0;
		die("cannot write %s: %s", tmp_path, strerror(e));
	}
	if (rename(tmp_path, dst)) {
		int e = errno;

		unlink(tmp_path);
		tmp_armed = 0;
		die("cannot rename %s to %s: %s", tmp_path, dst, strerror(e));
	}
	tmp_armed = 0;
}

static const char up0[] =
	"# HELP n3telemetry_up Whether n3tel could read the module's data (1) or not (0: see its standard error).\n"
	"# TYPE n3telemetry_up gauge\n"
	"n3telemetry_up 0\n";

/*
 * textfile: the scrape, or when it cannot be made (module not loaded,
 * unreadable, too many series) a file with only n3telemetry_up 0, so
 * nothing stale stays behind; the error goes to stderr.  A one-shot run
 * then exits 1; with --every a read error is retried the next round, too
 * many series ends n3tel (exit 1).  Containers that cannot be read
 * (--by-cgroup) leave the host's series in the file, with
 * n3telemetry_cgroups_error 1: a one-shot run exits 1 after writing it.
 */
int textfile(const char *root, enum source src, const char *dir,
		    const struct selection *sel, long max, unsigned int every)
{
	static struct tree t;	/* static: still valid after a longjmp from die() */
	static char last[sizeof(die_msg)];
	struct sigaction sa = { .sa_handler = textfile_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (;;) {
		static jmp_buf jb;
		static bool too_many, cg_failed;
		static char *text;
		static size_t len;

		text = NULL;
		too_many = false;
		memset(&t, 0, sizeof(t));
		t.root = root;
		die_jmp = &jb;
		if (!setjmp(jb)) {
			text = prom_text(&t, src, sel, max, &len, &too_many, &cg_failed);
			last[0] = 0;
		}
		die_jmp = NULL;
		free_tree(&t);
		if (!text) {
			if (!every || strcmp(last, die_msg))
				fprintf(stderr, "%s: %s\n", prog, die_msg);
			snprintf(last, sizeof(last), "%s", die_msg);
			write_textfile(dir, up0, sizeof(up0) - 1);
			if (!every || too_many)
				return 1;
		} else {
			write_textfile(dir, text, len);
			free(text);
		}
		if (!every)
			return cg_failed;	/* the host's series written */
		sleep(every);
	}
}
