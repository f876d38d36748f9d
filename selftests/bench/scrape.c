// SPDX-License-Identifier: GPL-2.0
/*
 * scrape: one persistent Prometheus-style client for make bench.
 *
 *   scrape PERIOD [PORT [PATH]]
 *
 * One process and one TCP connection to 127.0.0.1:PORT (default 9100) kept
 * alive (HTTP/1.1), as Prometheus keeps its connection to a target: GET
 * PATH (default /metrics) now and then every PERIOD seconds (absolute
 * CLOCK_MONOTONIC deadlines, so the scrapes do not drift), reading each
 * whole response (Content-Length or chunked) into a buffer it throws away.
 * Nothing is started per scrape.  The first connection waits up to 5 s for
 * the server to listen; if the server closes the connection later, the
 * next scrape reconnects (counted).  On SIGTERM or SIGINT one line on
 * stdout: "scrapes N failed F reconnects R bytes B".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static char buf[1 << 16];
static size_t have, pos;	/* buf[pos..have) not consumed yet */
static int fd = -1;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int fill(void)
{
	ssize_t n;

	if (pos == have)
		pos = have = 0;
	else if (pos) {
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		pos = 0;
	}
	if (have == sizeof(buf))
		return -1;	/* a header line longer than the buffer */
	do
		n = read(fd, buf + have, sizeof(buf) - have);
	while (n < 0 && errno == EINTR && !stop);
	if (n <= 0)
		return -1;
	have += n;
	return 0;
}

/* one line without its CRLF, NUL-terminated in place */
static char *line(void)
{
	char *nl, *l;

	while (!(nl = memchr(buf + pos, '\n', have - pos)))
		if (fill())
			return NULL;
	l = buf + pos;
	*nl = 0;
	if (nl > l && nl[-1] == '\r')
		nl[-1] = 0;
	pos = nl + 1 - buf;
	return l;
}

/* skip n body bytes */
static int skip(uint64_t n, uint64_t *bytes)
{
	while (n) {
		size_t k;

		if (pos == have && fill())
			return -1;
		k = have - pos < n ? have - pos : n;
		pos += k;
		n -= k;
		*bytes += k;
	}
	return 0;
}

static int connect_local(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		fd = -1;
		return -1;
	}
	pos = have = 0;
	return 0;
}

/* one request and its whole response on the open connection; 0 if 200 */
static int get(const char *req, uint64_t *bytes, int *keep)
{
	size_t len = strlen(req), off = 0;
	int64_t clen = -1;
	int chunked = 0, status;
	char *l;

	while (off < len) {
		ssize_t n = write(fd, req + off, len - off);

		if (n <= 0)
			return -1;
		off += n;
	}
	l = line();
	if (!l || sscanf(l, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	*keep = 1;
	while ((l = line()) && *l) {
		if (!strncasecmp(l, "content-length:", 15))
			clen = strtoll(l + 15, NULL, 10);
		else if (!strncasecmp(l, "transfer-encoding:", 18) && strcasestr(l, "chunked"))
			chunked = 1;
		else if (!strncasecmp(l, "connection:", 11) && strcasestr(l, "close"))
			*keep = 0;
	}
	if (!l)
		return -1;
	if (chunked) {
		for (;;) {
			uint64_t n;

			l = line();
			if (!l)
				return -1;
			n = strtoull(l, NULL, 16);
			if (!n)
				break;
			if (skip(n, bytes) || !(l = line()))
				return -1;
		}
		while ((l = line()) && *l)	/* trailers */
			;
		if (!l)
			return -1;
	} else if (clen >= 0) {
		if (skip(clen, bytes))
			return -1;
	} else {
		*keep = 0;		/* body up to the close */
		while (!fill())
			*bytes += have, pos = have;
	}
	return status == 200 ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t scrapes = 0, failed = 0, reconnects = 0, bytes = 0;
	int port = argc > 2 ? atoi(argv[2]) : 9100;
	const char *path = argc > 3 ? argv[3] : "/metrics";
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec next, now;
	double period;
	char req[512];

	if (argc < 2 || (period = strtod(argv[1], NULL)) <= 0) {
		fprintf(stderr, "usage: scrape PERIOD [PORT [PATH]]\n");
		return 2;
	}
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: n3t-bench-scrape\r\n"
		 "Accept: text/plain\r\nConnection: keep-alive\r\n\r\n", path, port);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		int keep = 0, r;

		if (fd < 0) {
			if (scrapes)
				reconnects++;
			r = connect_local(port);
			/* the first time, give the server up to 5 s to listen */
			for (int i = 0; r && !scrapes && !stop && i < 50; i++) {
				usleep(100000);
				r = connect_local(port);
			}
		} else {
			r = 0;
		}
		if (!r)
			r = get(req, &bytes, &keep);
		if (stop)		/* a signal in the middle: not counted */
			break;
		scrapes++;
		if (r) {
			failed++;
			fprintf(stderr, "scrape: request %llu failed\n",
				(unsigned long long)scrapes);
		}
		if ((r || !keep) && fd >= 0) {
			close(fd);
			fd = -1;
		}
		/* the next deadline still ahead (a slow scrape skips, never bunches) */
		clock_gettime(CLOCK_MONOTONIC, &now);
		do {
			next.tv_sec += (time_t)period;
			next.tv_nsec += (long)((period - (time_t)period) * 1e9);
			if (next.tv_nsec >= 1000000000L) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000L;
			}
		} while (next.tv_sec < now.tv_sec ||
			 (next.tv_sec == now.tv_sec && next.tv_nsec <= now.tv_nsec));
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	printf("scrapes %llu failed %llu reconnects %llu bytes %llu\n",
	       (unsigned long long)scrapes, (unsigned long long)failed,
	       (unsigned long long)reconnects, (unsigned long long)bytes);
	return failed ? 1 : 0;
}
