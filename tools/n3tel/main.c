// SPDX-License-Identifier: GPL-2.0
/*
 * n3tel - read n3telemetry: a table or tree for people (show), a live view
 * (top), one scrape as Prometheus text, JSON or CSV (export), the
 * node_exporter textfile collector (textfile), the topdown method's path
 * (diagnose), a pause of the module
 * while a command runs (pause: perf on the same machine), and the metrics
 * of a command's run (stat).
 *
 * The command line: the options, which command takes which, and
 * the call to the command: show() and top() (views.h); prom_text(), or
 * load() (model.h) and export_json() or export_csv(), textfile()
 * (export.h), pause_run() (pause.h) and stat_run() (stat.h).  Nothing
 * calls it.
 *
 * The model n3tel reads the module into is model.h; the binary snapshot
 * layout is uapi/linux/n3telemetry.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/n3telemetry.h>

#include "cgroup.h"
#include "export.h"
#include "pause.h"
#include "read.h"
#include "stat.h"
#include "util.h"
#include "views.h"

#define MAX_SERIES	300		/* default --max-series */

#ifndef N3TEL_VERSION
#define N3TEL_VERSION	"unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: n3tel [--sysfs PATH] [--text|--snapshot] COMMAND [options]\n"
		"  show [--cpu LIST|system] [--group G]...      metrics as a table (topdown as a tree)\n"
		"  show --by-cgroup [--group G]... [CGROUPS]   per container: the sums of its CPUs\n"
		"  top [--sort cpu|retiring|frontend|backend|bad|ipc] [--iterations N] [--delay S]\n"
		"  diagnose [--cpu LIST|system] [--format text|json]   the topdown method's path\n"
		"  export --format prometheus|json|csv [SELECTION]   one scrape\n"
		"  textfile --dir DIR [--every SECONDS] [SELECTION]   n3telemetry.prom for node_exporter\n"
		"  pause [--cpu LIST] -- COMMAND [ARG]...   free the PMU for COMMAND (e.g. perf)\n"
		"  stat [--cpu LIST] [--group G]... [--format text|json|csv] [--output FILE]\n"
		"       -- COMMAND [ARG]...   the metrics of COMMAND's run (on LIST's CPUs) and the\n"
		"       system's, from the module's counts (no perf event opened); its exit status\n"
		"SELECTION: [--scope system|cpu|all] [--group G]... [--metric M]... [--max-series N]\n"
		"  (default: system/, the metrics of the module's groups, at most %d series)\n"
		"  and --by-cgroup [CGROUPS] (export, textfile): the containers too\n"
		"CGROUPS: [--max-cgroups N] [--cgroup-root DIR]: containers are the cgroup v2\n"
		"  cgroups with processes whose CPUs no other has (default at most %d; the rest\n"
		"  summed as \"other\", the remaining CPUs as \"shared\")\n"
		"A composed value (its events do not fit in the counters together: computed from\n"
		"their rates counted apart, a number but not an exact one) is marked: show and top\n"
		"print ~ before it (~21.37, ~nan); Prometheus: label composed=\"1\"; JSON:\n"
		"\"composed\": true; CSV: composed column 1.  Exact values carry no mark.\n"
		"PATH defaults to " DEFAULT_SYSFS "; n3tel --version prints the version.\n",
		MAX_SERIES, DEFAULT_MAX_CGROUPS);
}

/* a whole number in [min, max], else one line and exit */
static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		die("%s wants a whole number from %ld to %ld, not \"%s\"", opt, min, max, s);
	return v;
}

/* @name, one more of --group or --metric (@opt): at most @max of them */
static void add_name(const char **names, int *nr, int max, const char *opt, const char *name)
{
	if (*nr == max)
		die("too many %s options", opt);
	names[(*nr)++] = name;
}

/* the options each command takes (bits: 1 << option letter index) */
enum {
	O_CPU = 1 << 0, O_GROUP = 1 << 1, O_FORMAT = 1 << 2, O_DIR = 1 << 3, O_EVERY = 1 << 4,
	O_SORT = 1 << 5, O_ITER = 1 << 6, O_DELAY = 1 << 7, O_SCOPE = 1 << 8,
	O_METRIC = 1 << 9, O_MAX = 1 << 10, O_OUTPUT = 1 << 11, O_BYCG = 1 << 12,
	O_MAXCG = 1 << 13, O_CGROOT = 1 << 14,
};

static const struct { int bit; const char *name; } opt_names[] = {
	{ O_CPU, "--cpu" }, { O_GROUP, "--group" }, { O_FORMAT, "--format" },
	{ O_DIR, "--dir" }, { O_EVERY, "--every" }, { O_SORT, "--sort" },
	{ O_ITER, "--iterations" }, { O_DELAY, "--delay" }, { O_SCOPE, "--scope" },
	{ O_METRIC, "--metric" }, { O_MAX, "--max-series" }, { O_OUTPUT, "--output" },
	{ O_BYCG, "--by-cgroup" }, { O_MAXCG, "--max-cgroups" }, { O_CGROOT, "--cgroup-root" },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "text", no_argument, NULL, 't' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "group", required_argument, NULL, 'g' },
		{ "metric", required_argument, NULL, 'm' },
		{ "scope", required_argument, NULL, 'p' },
		{ "max-series", required_argument, NULL, 'x' },
		{ "format", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'O' },
		{ "every", required_argument, NULL, 'e' },
		{ "sort", required_argument, NULL, 'o' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'D' },
		{ "by-cgroup", no_argument, NULL, 'B' },
		{ "max-cgroups", required_argument, NULL, 'M' },
		{ "cgroup-root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static struct selection sel = { .scope = SCOPE_SYSTEM, .max_cgroups = DEFAULT_MAX_CGROUPS };
	const char *root = DEFAULT_SYSFS, *cpus = NULL, *format = NULL, *dir = NULL, *cmd;
	const char *output = NULL;
	const char *sort = "cpu";
	enum source src = SRC_AUTO;
	int iterations = 0, c, given = 0, allowed;
	long every = 0, max_series = MAX_SERIES;
	double delay = 0;
	struct tree t = { 0 };

	/* one pass: options may stand before or after the command */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': root = optarg; break;
		case 't': src = SRC_TEXT; break;
		case 'S': src = SRC_SNAPSHOT; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("n3tel %s (snapshot ABI %d)\n", N3TEL_VERSION, N3T_SNAP_ABI_VERSION);
			return 0;
		case 'c': cpus = optarg; given |= O_CPU; break;
		case 'g':
			add_name(sel.group, &sel.nr_groups, MAX_GROUPS * 2, "--group", optarg);
			given |= O_GROUP;
			break;
		case 'm':
			add_name(sel.metric, &sel.nr_metrics, MAX_METRICS * 2, "--metric", optarg);
			given |= O_METRIC;
			break;
		case 'p':
			if (!strcmp(optarg, "system"))
				sel.scope = SCOPE_SYSTEM;
			else if (!strcmp(optarg, "cpu"))
				sel.scope = SCOPE_CPU;
			else if (!strcmp(optarg, "all"))
				sel.scope = SCOPE_ALL;
			else
				die("--scope wants system, cpu or all, not \"%s\"", optarg);
			given |= O_SCOPE;
			break;
		case 'x':
			max_series = parse_long("--max-series", optarg, 1, 100000000);
			given |= O_MAX;
			break;
		case 'B': sel.by_cgroup = true; given |= O_BYCG; break;
		case 'M':
			sel.max_cgroups = parse_long("--max-cgroups", optarg, 0, 100000);
			given |= O_MAXCG;
			break;
		case 'R': sel.cgroot = optarg; given |= O_CGROOT; break;
		case 'f': format = optarg; given |= O_FORMAT; break;
		case 'd': dir = optarg; given |= O_DIR; break;
		case 'O': output = optarg; given |= O_OUTPUT; break;
		case 'e': every = parse_long("--every", optarg, 1, 86400); given |= O_EVERY; break;
		case 'o': sort = optarg; given |= O_SORT; break;
		case 'n':
			iterations = parse_long("--iterations", optarg, 1, INT32_MAX);
			given |= O_ITER;
			break;
		case 'D': {
			char *end;

			errno = 0;
			delay = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(delay >= 0.1 && delay <= 3600))
				die("--delay wants seconds from 0.1 to 3600, not \"%s\"", optarg);
			given |= O_DELAY;
			break;
		}
		case ':':
			die("%s needs an argument", argv[optind - 1]);
		default:
			die("unknown option \"%s\" (see n3tel --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	if (optind < argc && strcmp(cmd, "pause") && strcmp(cmd, "stat"))
		die("unexpected argument \"%s\"", argv[optind]);
	t.root = root;

	if (!strcmp(cmd, "show"))
		allowed = O_CPU | O_GROUP | O_BYCG | O_MAXCG | O_CGROOT;
	else if (!strcmp(cmd, "top"))
		allowed = O_SORT | O_ITER | O_DELAY;
	else if (!strcmp(cmd, "diagnose"))
		allowed = O_CPU | O_FORMAT;
	else if (!strcmp(cmd, "export"))
		allowed = O_FORMAT | O_SCOPE | O_GROUP | O_METRIC | O_MAX | O_BYCG | O_MAXCG |
			  O_CGROOT;
	else if (!strcmp(cmd, "textfile"))
		allowed = O_DIR | O_EVERY | O_SCOPE | O_GROUP | O_METRIC | O_MAX | O_BYCG |
			  O_MAXCG | O_CGROOT;
	else if (!strcmp(cmd, "pause"))
		allowed = O_CPU;
	else if (!strcmp(cmd, "stat"))
		allowed = O_CPU | O_GROUP | O_FORMAT | O_OUTPUT;
	else {
		fprintf(stderr, "%s: unknown command \"%s\"\n", prog, cmd);
		usage(stderr);
		return 2;
	}
	for (unsigned int k = 0; k < sizeof(opt_names) / sizeof(*opt_names); k++)
		if (given & ~allowed & opt_names[k].bit)
			die("%s does not apply to %s (see n3tel --help)", opt_names[k].name, cmd);
	if ((given & (O_MAXCG | O_CGROOT)) && !sel.by_cgroup)
		die("%s applies with --by-cgroup only", given & O_MAXCG ? "--max-cgroups" :
		    "--cgroup-root");
	if (sel.by_cgroup && (given & O_CPU))
		die("--by-cgroup shows containers, not CPUs: --cpu does not apply");
	/*
	 * the containers' series come on top of the host's: without
	 * --max-series, room for the default's (level 1: at most 6 metrics,
	 * the two CPU counts, a count and a counted time of each of at most 8
	 * events) of every container and the two pools, the count past the
	 * limit and the error gauge
	 */
	if (sel.by_cgroup && !(given & O_MAX))
		max_series = MAX_SERIES + (sel.max_cgroups + 2) * (6 + 2 + 2 * 8) + 2;
	if (sel.by_cgroup && src == SRC_TEXT)
		die("--by-cgroup reads the module's sums of CPUs from the snapshot device: --text does not apply");

	if (!strcmp(cmd, "pause")) {
		return pause_run(DEFAULT_DEVICE, cpus, argv + optind);
	} else if (!strcmp(cmd, "stat")) {
		if (src == SRC_TEXT)
			die("stat reads the snapshot: --text does not apply");
		return stat_run(root, cpus, sel.group, sel.nr_groups, format, output,
				argv + optind);
	} else if (!strcmp(cmd, "show") && sel.by_cgroup) {
		show_cgroups(&t, src, sel.group, sel.nr_groups, sel.cgroot, sel.max_cgroups);
	} else if (!strcmp(cmd, "show")) {
		show(&t, src, cpus, sel.group, sel.nr_groups);
	} else if (!strcmp(cmd, "diagnose")) {
		diagnose(&t, src, cpus, format);
	} else if (!strcmp(cmd, "export")) {
		if (!format || (strcmp(format, "prometheus") && strcmp(format, "json") &&
				strcmp(format, "csv")))
			die("export needs --format prometheus, --format json or --format csv");
		if ((given & O_MAX) && strcmp(format, "prometheus"))
			die("--max-series applies to --format prometheus only");
		if (!strcmp(format, "prometheus")) {
			bool too_many = false, cg_failed = false;
			size_t len;
			char *text = prom_text(&t, src, &sel, max_series, &len, &too_many, &cg_failed);

			fwrite(text, 1, len, stdout);
			free(text);
			/* the host's series written, the containers' error said */
			if (cg_failed) {
				free_tree(&t);
				return 1;
			}
		} else {
			bool ok;

			sel.every_metric = true;
			load(&t, src, export_loads(&sel));
			check_selection(&sel, &t);
			warn_events(&t, &sel);
			ok = !strcmp(format, "json") ? export_json(&t, &sel) : export_csv(&t, &sel);

			/* the host's written, the containers' error said */
			if (!ok) {
				free_tree(&t);
				return 1;
			}
		}
	} else if (!strcmp(cmd, "textfile")) {
		if (!dir)
			die("textfile needs --dir DIR (node_exporter's --collector.textfile.directory)");
		return textfile(root, src, dir, &sel, max_series, every);
	} else {
		top(root, src, sort, iterations, delay);
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	free_tree(&t);
	return 0;
}
