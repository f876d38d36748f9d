#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A re-pack pending when the module is unloaded must not run afterwards:
# the test build delays the re-pack work, the sets starve so that it is
# queued, and the module is removed meanwhile.  CPU hotplug afterwards would
# call into freed module code if collection had been restarted.
. ./lib.sh
need_testpmu
CPUS=/sys/devices/system/cpu
tp_setup 6 || exit 1
check hooks-present test -e $DBG/delay_us_repack
echo 3000000 > $DBG/delay_us_repack
n0=$(dmesg | grep -c 're-packed for')
echo 2 > $TPDBG/counters
advance_interval -1
advance_interval -1
advance_interval -1	# third starved interval: the re-pack is queued, delayed 3 s
check unload-with-repack-pending n3t_unload
sleep 1
check hotplug-after-unload sh -c "echo 0 > $CPUS/cpu1/online && echo 1 > $CPUS/cpu1/online"
dmesg | grep n3telemetry | tail -4 | sed 's/^/# /'
expect_eq no-restart-after-exit "$n0" "$(dmesg | grep -c 're-packed for')"
rmmod n3t_testpmu
ktap_finish
