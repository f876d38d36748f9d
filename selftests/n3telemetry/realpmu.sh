#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# QEMU's own PMU (-cpu max, run with -icount so instructions count): cycles
# and instructions are real emulated counts; events QEMU does not implement
# (per PMCEID) leave their metrics undefined instead of posing as 0.
. ./lib.sh
check load n3t_load force=1 interval_ms=100
i=0
while [ $i -lt 100000 ]; do i=$((i + 1)); done &
sleep 2
wait
cyc=$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/cpu0/events)
check cycles-counted test "${cyc:-0}" -gt 0
ipc=$(value $N3T/system/general ipc)
echo "# system ipc $ipc"
check ipc-positive awk -v v="$ipc" 'BEGIN { exit !(v != "nan" && v > 0 && v <= 8) }'
expect_eq retiring-nan nan "$(value $N3T/cpu0/topdown_l1 retiring)"
expect_eq l2-mpki-nan nan "$(value $N3T/cpu0/l2_cache l2_cache_mpki)"
check logged-unusable sh -c "dmesg | grep -q 'events not implemented or rejected'"
check unload n3t_unload
ktap_finish
