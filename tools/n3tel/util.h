/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3tel's shared helpers, in one place: errors (die, warn_once),
 * reading a whole file (slurp) and walking its lines (next_line), --cpu
 * lists (parse_cpu_list), the 128-bit decimals of system/events
 * (parse_u128, fmt_u128), running a command (run_command, exit_status),
 * UTF-8 and JSON strings (utf8_len, json_put).
 *
 * Owns: nothing of the module's data.  Calls: only the C library.  Every
 * other file of n3tel may call it; it calls none of them.
 */
#ifndef N3TEL_UTIL_H
#define N3TEL_UTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#define DIE_MSG_LEN	1024

extern const char *prog;

/* textfile catches errors to write n3telemetry_up 0 instead of exiting */
extern jmp_buf *die_jmp;
extern char die_msg[DIE_MSG_LEN];

/* one line "n3tel: message" on stderr, exit 1; or longjmp to *die_jmp if set */
void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...);
/* a warning on stderr, once per distinct message */
void __attribute__((format(printf, 1, 2))) warn_once(const char *fmt, ...);

/*
 * The length of the UTF-8 character @s starts with (1 for ASCII), 0 if it
 * is none (malformed, overlong, a surrogate, past U+10FFFF)
 */
size_t utf8_len(const char *s);
/*
 * @s to @f as a JSON string: quoted, escaped, each byte that is no UTF-8
 * as U+FFFD (a cgroup's name, a command's arguments may hold any)
 */
void json_put(FILE *f, const char *s);

/* --cpu, parsed once: a list of CPU numbers and ranges (0-3,8), or system */
struct cpu_list {
	bool given, system;
	int nr;
	int *lo, *hi;
};
void parse_cpu_list(const char *list, struct cpu_list *l);

/*
 * Run @cmd (argv, NULL-terminated) and wait for it, on the CPUs of
 * @affinity if not NULL; the terminal's ^C and ^\ are its, n3tel ignores
 * them meanwhile.  Its wait status, and its resource use (with its
 * children's it waited for) in @ru if not NULL.  When it cannot be run the
 * child says why and exits 127 (not found) or 126.
 */
struct rusage;
int run_command(char **cmd, const void *affinity, size_t affinity_size, struct rusage *ru);
/* a wait status as the shell gives it: the exit status, 128 + N for signal N */
int exit_status(int status);

char *slurp(const char *path, size_t *len);
/* a cpuN/ or system/ file: one read() (printed anew at each) */
char *slurp_sysfs(const char *path);
bool refused(int err);
char *next_line(char **p);

/* system/events sums are 128-bit: up to 39 digits */
typedef unsigned __int128 u128;
#define U128_BUF	40
bool parse_u128(const char *s, u128 *v);
char *fmt_u128(char *buf, u128 v);

#endif
