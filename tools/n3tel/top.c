// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel top: a live view, one row per CPU (and system/) with the
 * topdown level 1 bar and the key metrics (a composed value marked with a
 * ~, its column one wider, the mark said in the title), sorted as --sort
 * says, redrawn every interval and when the terminal is resized; as wide
 * and tall as the terminal.
 *
 * Calls the model (model.h: load(), lookups, fmt_metric_marked(), free_tree())
 * and util.h; main.c calls it.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "views.h"

struct row {
	const struct view *v;
	double key;
};

/* a metric of the view's model by name: its index, -1 if the model has none */
static int vmetric(const struct tree *t, const struct view *v, const char *name)
{
	return metric_by_name(view_model(t, v), name);
}

static double fixed(const struct tree *t, const struct view *v, const char *name)
{
	int m = vmetric(t, v, name);

	return m >= 0 && v->have && v->valid[m] ? (double)v->value[m] / FIXED_SCALE : -1;
}

static const char *sort_key = "cpu";

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->v->cpu - y->v->cpu;
}

static const char *const l1_names[4] = { "retiring", "bad_speculation", "frontend_bound",
					 "backend_bound" };

/* the topdown level 1 bar: exactly @width + 2 columns */
static void bar(const struct tree *t, const struct view *v, bool color, int width)
{
	static const char ch[4] = { 'R', 'S', 'F', 'B' };
	static const char *bg[4] = { "\033[42m", "\033[45m", "\033[44m", "\033[41m" };
	const struct model *md = view_model(t, v);
	int used = 0;

	putchar('[');
	if (!md || vmetric(t, v, "retiring") < 0) {
		/* no topdown level 1 on this core (Neoverse N1) */
		char msg[96];

		snprintf(msg, sizeof(msg), " no topdown level 1%s%s", md ? " on " : "",
			 md ? md->name : "");
		used = printf("%.*s", width, msg);
		for (; used < width; used++)
			putchar(' ');
		putchar(']');
		return;
	}
	for (int i = 0; i < 4; i++) {
		double p = fixed(t, v, l1_names[i]);
		int n = p > 0 ? (int)(p * width / 100 + 0.5) : 0;

		if (n > width - used)
			n = width - used;
		if (color && n)
			fputs(bg[i], stdout);
		for (int k = 0; k < n; k++)
			putchar(color ? ' ' : ch[i]);
		if (color && n)
			fputs("\033[0m", stdout);
		used += n;
	}
	for (; used < width; used++)
		putchar(v->have ? ' ' : '.');
	putchar(']');
}

/* the value columns, dropped from the right when the terminal is narrow */
static const struct { const char *title, *metric; int width; } top_cols[] = {
	{ "retire", "retiring", 7 }, { "badspec", "bad_speculation", 7 },
	{ "front", "frontend_bound", 7 }, { "back", "backend_bound", 7 }, { "IPC", "ipc", 6 },
	{ "L1D-MPKI", "l1d_cache_mpki", 8 }, { "L2-MPKI", "l2_cache_mpki", 8 },
	{ "LLC-MPKI", "ll_cache_read_mpki", 8 },
};
#define NR_TOP_COLS ((int)(sizeof(top_cols) / sizeof(*top_cols)))

static volatile sig_atomic_t top_winch;
static bool top_tty;

static void top_resized(int sig)
{
	(void)sig;
	top_winch = 1;
}

/* SIGINT, SIGTERM: leave the terminal as it was, exit 0 */
static void top_quit(int sig)
{
	static const char restore[] = "\033[0m\033[?25h\n";

	(void)sig;
	if (top_tty && write(STDOUT_FILENO, restore, sizeof(restore) - 1) < 0)
		_exit(0);
	_exit(0);
}

/* an error ends top: the cursor comes back */
static void top_show_cursor(void)
{
	fputs("\033[0m\033[?25h", stdout);
	fflush(stdout);
}

/* the terminal's size; 0 (no limit) when stdout is not a terminal */
static void term_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = *rows = 0;
	if (top_tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/*
 * The age column: how long before the row's latest interval the oldest of
 * its shown values was counted ("-": one not counted yet, or no ages).
 */
static void top_age(const struct tree *t, const struct view *v, int ncol)
{
	const struct model *md = view_model(t, v);
	uint64_t oldest = 0;
	char buf[32];

	for (int c = 0; md && v->have && v->have_ages && c < ncol; c++) {
		int m = vmetric(t, v, top_cols[c].metric);

		for (int g = 0; m >= 0 && g < md->nr_groups; g++) {
			bool in = false;

			for (int i = 0; i < md->group[g].nr; i++)
				in |= md->group[g].metrics[i] == m;
			if (!in || !(md->groups & (1u << g)))
				continue;
			if (!v->group_seq[g]) {
				printf(" %6s", "-");
				return;
			}
			if (v->end_ns > v->group_end_ns[g] && v->end_ns - v->group_end_ns[g] > oldest)
				oldest = v->end_ns - v->group_end_ns[g];
		}
	}
	if (!md || !v->have || !v->have_ages) {
		printf(" %6s", "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%01" PRIu64 "s", oldest / 1000000000,
		 oldest / 100000000 % 10);
	printf(" %6s", buf);
}

static void top_row(const struct tree *t, const struct view *v, bool color, int nw, int bw,
		    int ncol, const int *colw, bool ages)
{
	char val[VALUE_BUF], name[32];

	if (v->cpu < 0)
		snprintf(name, sizeof(name), "system");
	else
		snprintf(name, sizeof(name), "cpu%d", v->cpu);
	printf("%-*s", nw, name);
	if (bw > 0) {
		putchar(' ');
		bar(t, v, color, bw);
	}
	for (int c = 0; c < ncol; c++) {
		int m = vmetric(t, v, top_cols[c].metric);

		/* a composed value is marked ("~1.234"): its column is wider */
		printf(" %*s", colw[c], fmt_metric_marked(val, sizeof(val), t, v, m));
	}
	if (ages)
		top_age(t, v, ncol);
	putchar('\n');
}

/*
 * One screen: a title, the column heads, the system row and as many CPU
 * rows as fit, every line at most as wide as the terminal (the bar
 * shrinks to 10, then columns go from the right).
 */
static void top_once(const char *root, enum source src, bool color)
{
	static const struct { const char *key, *metric; } keys[] = {
		{ "retiring", "retiring" }, { "frontend", "frontend_bound" },
		{ "backend", "backend_bound" }, { "bad", "bad_speculation" }, { "ipc", "ipc" },
	};
	static const char *const legend[4][2] = {
		{ "\033[42m", "R retiring" }, { "\033[45m", "S bad speculation" },
		{ "\033[44m", "F frontend" }, { "\033[41m", "B backend" },
	};
	static const char composed_legend[] = COMPOSED_MARK "composed (not exact)";
	struct tree t = { .root = root };
	const struct view *sys = NULL;
	struct row *rows;
	int n = 0, cols, lines, nw = 6, bw = 40, ncol = NR_TOP_COLS, budget, width;
	int colw[NR_TOP_COLS];
	bool ages = false, composed = false;
	char title[512];

	term_size(&cols, &lines);
	load(&t, src, LOAD_CPUS | LOAD_SYSTEM);
	rows = calloc(t.nr + 1, sizeof(*rows));
	if (!rows)
		die("out of memory");
	/* a module with a rotating schedule tells how old values are: a column */
	for (int i = 0; i < t.nr; i++)
		ages |= t.v[i].have_ages;
	/* a column with a composed value is wider by its mark ("~1.234") */
	for (int c = 0; c < NR_TOP_COLS; c++) {
		bool marked = false;

		for (int i = 0; i < t.nr; i++)
			marked |= metric_composed(&t, &t.v[i],
						  vmetric(&t, &t.v[i], top_cols[c].metric));
		colw[c] = top_cols[c].width + (marked ? (int)strlen(COMPOSED_MARK) : 0);
	}
	for (int i = 0; i < t.nr; i++) {
		char name[32];

		if (t.v[i].cpu < 0) {
			sys = &t.v[i];
			continue;
		}
		rows[n].v = &t.v[i];
		rows[n].key = -t.v[i].cpu;
		for (unsigned int k = 0; k < sizeof(keys) / sizeof(*keys); k++)
			if (!strcmp(sort_key, keys[k].key))
				rows[n].key = fixed(&t, &t.v[i], keys[k].metric);
		snprintf(name, sizeof(name), "cpu%d", t.v[i].cpu);
		if ((int)strlen(name) > nw)
			nw = strlen(name);
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_row);

	/* layout: name, space, [bar], then " value" columns */
	for (;;) {
		int used = nw + 3 + (ages ? 7 : 0);

		for (int c = 0; c < ncol; c++)
			used += colw[c] + 1;
		if (!cols || used + 10 <= cols) {
			if (cols && cols - used < bw)
				bw = cols - used;
			break;
		}
		if (!ncol) {
			bw = cols - used;	/* a very narrow terminal: little or no bar */
			if (bw < 1)
				bw = 0;
			break;
		}
		ncol--;
	}
	width = nw + (bw ? bw + 3 : 0) + (ages ? 7 : 0);
	for (int c = 0; c < ncol; c++)
		width += colw[c] + 1;
	/* a composed value in a column shown: the title says what its ~ means */
	for (int c = 0; c < ncol; c++)
		composed |= colw[c] > top_cols[c].width;
	budget = lines ? lines - 1 : -1;	/* the last line stays empty: no scrolling */

	if (color)
		fputs("\033[H\033[2J", stdout);
	if (budget) {
		int len = snprintf(title, sizeof(title), "n3tel top - %s, interval %u ms, sorted by %s",
				   root, t.interval_ms, sort_key);

		if (len > (int)sizeof(title) - 1)
			len = sizeof(title) - 1;
		if (cols && len > cols)
			len = cols;
		printf("%.*s", len, title);
		if (composed && (!cols || len + 2 + (int)strlen(composed_legend) <= cols)) {
			printf("  %s", composed_legend);
			len += 2 + strlen(composed_legend);
		}
		for (int i = 0; i < 4; i++) {
			int w = strlen(legend[i][1]) + (color ? 4 : 2);

			if (cols && len + w > cols)
				break;
			if (color)
				printf("  %s %c \033[0m%s", legend[i][0], legend[i][1][0],
				       legend[i][1] + 1);
			else
				printf("  %s", legend[i][1]);
			len += w;
		}
		putchar('\n');
		budget--;
	}
	if (budget) {
		printf("%-*s", nw, "CPU");
		if (bw)
			printf(" %-*.*s", bw + 2, bw + 2, "topdown level 1");
		for (int c = 0; c < ncol; c++)
			printf(" %*s", colw[c], top_cols[c].title);
		if (ages)
			printf(" %6s", "age");
		putchar('\n');
		budget--;
	}
	if (sys && budget) {
		top_row(&t, sys, color, nw, bw, ncol, colw, ages);
		budget--;
	}
	for (int i = 0; i < n && budget; i++, budget--) {
		if (budget == 1 && i < n - 1) {
			char more[96];

			snprintf(more, sizeof(more), "(%d more CPUs: a taller terminal shows them)",
				 n - i);
			printf("%.*s\n", cols ? cols : (int)sizeof(more), more);
			break;
		}
		top_row(&t, rows[i].v, color, nw, bw, ncol, colw, ages);
	}
	fflush(stdout);
	free(rows);
	free_tree(&t);
}

/* sleep @secs; a terminal resize redraws at once */
static void top_sleep(double secs, const char *root, enum source src, bool color)
{
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	for (;;) {
		struct timespec left;

		if (top_winch) {
			top_winch = 0;
			top_once(root, src, color);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		if (left.tv_sec < 0)
			return;
		if (!nanosleep(&left, NULL))
			return;
	}
}

/* top: check --sort, then draw until @iterations or a signal */
void top(const char *root, enum source src, const char *sort, int iterations, double delay)
{
	struct sigaction quit = { .sa_handler = top_quit }, winch = { .sa_handler = top_resized };
	bool color;

	sort_key = sort;
	if (strcmp(sort_key, "cpu") && strcmp(sort_key, "retiring") &&
	    strcmp(sort_key, "frontend") && strcmp(sort_key, "backend") &&
	    strcmp(sort_key, "bad") && strcmp(sort_key, "ipc"))
		die("unknown --sort \"%s\" (cpu, retiring, frontend, backend, bad or ipc)",
		    sort_key);
	top_tty = isatty(STDOUT_FILENO);
	color = top_tty && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
	sigemptyset(&quit.sa_mask);
	sigemptyset(&winch.sa_mask);
	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGWINCH, &winch, NULL);	/* no SA_RESTART: wakes the sleep */
	if (color) {
		fputs("\033[?25l", stdout);	/* no cursor; top_quit() restores it */
		atexit(top_show_cursor);
	}
	for (int i = 0; !iterations || i < iterations; i++) {
		unsigned int interval_ms = 1000;

		top_once(root, src, color);
		if (iterations && i + 1 == iterations)
			break;
		if (!delay) {
			char p[4096];
			char *s;

			snprintf(p, sizeof(p), "%s/interval_ms", root);
			s = slurp(p, NULL);
			interval_ms = s ? atoi(s) : 1000;
			free(s);
		}
		top_sleep(delay ? delay : (interval_ms < 1000 ? 1000 : interval_ms) / 1000.0,
			  root, src, color);
	}
}
