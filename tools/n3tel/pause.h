/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n3tel pause (pause.c): a pause lease on the module while a command runs.
 * main.c calls it.
 */
#ifndef N3TEL_PAUSE_H
#define N3TEL_PAUSE_H

/*
 * Run @cmd (argv, NULL-terminated) with the module paused on the CPUs of
 * the --cpu list @cpus (NULL: every CPU), through @device; its exit status
 * (128 + signal if it was killed).
 */
int pause_run(const char *device, const char *cpus, char **cmd);

#endif
