#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Isolated CPUs (booted with nohz_full=3): left alone by default, their
# status says so; isolated=1 includes them.  On QEMU's PMU.
. ./lib.sh
grep -q 'nohz_full=3' /proc/cmdline || skip_all "not booted with nohz_full=3"
need_testpmu
check load n3t_load force=1 interval_ms=20
sleep 1
expect_eq cpu3-isolated isolated "$(value $N3T/cpu3/status state)"
expect_eq cpu3-no-interval 0 "$(value $N3T/cpu3/status seq)"
expect_eq cpu3-nan nan "$(value $N3T/cpu3/general ipc)"
check cpu3-no-sampler sh -c "! grep -q '^cpu3 ' $DBG/cost"
check cpu2-collects test "$(value $N3T/cpu2/status seq)" -ge 1
expect_eq system-isolated 1 "$(value $N3T/system/status cpus_isolated)"
expect_eq system-collecting 3 "$(value $N3T/system/status cpus_collecting)"
echo 0 > /sys/devices/system/cpu/cpu3/online
echo 1 > /sys/devices/system/cpu/cpu3/online
expect_eq cpu3-isolated-after-hotplug isolated "$(value $N3T/cpu3/status state)"
check unload n3t_unload
check load-isolated n3t_load force=1 interval_ms=20 isolated=1
sleep 1
expect_eq cpu3-collects-when-asked collecting "$(value $N3T/cpu3/status state)"
check cpu3-interval test "$(value $N3T/cpu3/status seq)" -ge 1
check unload-isolated n3t_unload
ktap_finish
