#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'make demo': n3telemetry on QEMU's emulated PMU, then on the scripted test
# PMU.  Runs as the VM's /init payload; prints between the demo markers.
cd /selftests || exit 1
. ./lib.sh
. ./vectors.sh
say() { printf '\n### %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; sh -c "$*"; }

echo N3T-DEMO-BEGIN
say "Part 1: QEMU's own PMU (-cpu max, -icount). Real emulated counts."
echo "QEMU is not a Neoverse N3, so the module needs force=1. QEMU counts"
echo "CPU_CYCLES and INST_RETIRED; it does not implement the N3 stall, slot"
echo "and cache events, so every metric that needs one reads nan (undefined),"
echo "never a made-up 0."
run "insmod /lib/n3t/n3telemetry.ko force=1 interval_ms=500"
run "dmesg | grep n3telemetry: | sed 's/^\[[ 0-9.]*\] //'"
# a workload on every CPU
for c in 1 2 3 4; do
	(i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done) &
done
for n in 1 2 3; do
	sleep 1
	say "interval reading $n"
	run "grep -E '^(seq|interval_ns) ' $N3T/cpu0/status"
	run "grep -E '^(CPU_CYCLES|INST_RETIRED) ' $N3T/cpu0/events"
	run "cat $N3T/cpu0/general"
	run "cat $N3T/system/general"
done
wait
echo "(With -icount shift=0 QEMU's clock advances one tick per instruction,"
echo " so CPU_CYCLES equals INST_RETIRED over the same window: IPC is 1.000.)"
run "cat $N3T/cpu0/topdown_l1"
run "n3tel show --cpu 0 --group general --group l1d_cache"
echo "The sampler's own cost per CPU (emulated, KASAN+lockdep kernel: far slower than hardware):"
run "cat /sys/kernel/debug/n3telemetry/cost"
run "rmmod n3telemetry"

say "Part 2: SYNTHETIC - the scripted test PMU, so every group shows numbers"
echo "These counts are scripted by the test PMU (selftests/testpmu), not"
echo "measured: cpu1 runs a balanced profile, cpu2 a memory-bound one."
run "insmod /lib/n3t/n3t_testpmu.ko counters=6"
TP=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
run "insmod /lib/n3t/n3telemetry.ko force=1 pmu_type=$TP interval_ms=60000"
echo 1 > $DBG/manual
NSETS=$(wc -l < $N3T/sets)
run "cat $N3T/counters $N3T/sets"
advance_interval -1
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
run "cat $N3T/cpu1/topdown_l1"
run "cat $N3T/cpu2/topdown_l1"
run "n3tel show --cpu 2"
run "n3tel show --cpu system --group topdown_l1 --group general"
run "n3tel top --iterations 1 --sort backend | cat"
run "n3tel export --format prometheus | grep -E '^n3telemetry_(frontend_bound|backend_bound|retiring|bad_speculation)_ratio'"
run "rmmod n3telemetry"
run "rmmod n3t_testpmu"
echo N3T-DEMO-END
