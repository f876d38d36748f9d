#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke: the module loads, publishes its sysfs directory, and unloads cleanly.
. ./lib.sh
need_module
ktap_plan 5
check load n3t_load force=1
check version_nonempty test -n "$(cat $N3T/version 2>/dev/null)"
expect_eq version "$(cat /sys/module/n3telemetry/version 2>/dev/null)" "$(cat $N3T/version 2>/dev/null)"
check unload n3t_unload
check sysfs_gone test ! -e $N3T
ktap_finish
