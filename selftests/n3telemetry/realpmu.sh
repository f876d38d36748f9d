#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# QEMU's own PMU (-cpu max, run with -icount so instructions count): cycles
# and instructions are real emulated counts; events QEMU does not implement
# (per PMCEID) leave their metrics undefined instead of posing as 0 (every
# set every interval, so that ipc is fresh within the 2 s).
. ./lib.sh
need_testpmu
check load n3t_load force=1 interval_ms=100 schedule=all
i=0
while [ $i -lt 100000 ]; do i=$((i + 1)); done &
sleep 2
wait
# any CPU: the busy loop may have run anywhere
cyc=$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/system/events)
check cycles-counted test "${cyc:-0}" -gt 0
ipc=$(value $N3T/system/general ipc)
echo "# system ipc $ipc"
check ipc-positive awk -v v="$ipc" 'BEGIN { exit !(v != "nan" && v > 0 && v <= 8) }'
expect_eq retiring-nan nan "$(value $N3T/cpu0/topdown_l1 retiring)"
expect_eq l2-mpki-nan nan "$(value $N3T/cpu0/l2_cache l2_cache_mpki)"
check logged-unusable sh -c "dmesg | grep -q 'events not implemented or rejected'"
check unload n3t_unload

# pmu_type= naming the CPU PMU itself (its number, as perf's sysfs gives
# it) is the default in all but name: the events QEMU does not implement
# are still nan, and pinned=1 holds back the same counter for the watchdog
CPUPMU=$(cat "$(ls -d /sys/bus/event_source/devices/armv[89]_* | head -1)/type")
check load-pmu-type-cpu n3t_load force=1 interval_ms=100 schedule=all pmu_type="$CPUPMU"
sleep 0.5
expect_eq named-cpu-pmu-retiring-nan nan "$(value $N3T/cpu0/topdown_l1 retiring)"
expect_eq named-cpu-pmu-l2-mpki-nan nan "$(value $N3T/cpu0/l2_cache l2_cache_mpki)"
check named-cpu-pmu-logged sh -c "dmesg | grep -q 'pmu_type=$CPUPMU is the CPU PMU'"
check unload-named n3t_unload
n3t_load force=1 pinned=1 && r1=$(sed -n 3p $N3T/counters) && n3t_unload
n3t_load force=1 pinned=1 pmu_type="$CPUPMU" && r2=$(sed -n 3p $N3T/counters) && n3t_unload
echo "# pinned=1: $r1; with pmu_type=$CPUPMU: $r2"
expect_eq named-cpu-pmu-same-reserve "$r1" "$r2"

# The perf hard-lockup detector's counter (this kernel has it): the
# module's counters are flexible, so the detector's pinned cycles event (the
# stand-in creates exactly that event on every CPU) counts with no counter
# held back for it.
insmod $N3T_TEST_MODDIR/n3t_testpmu.ko
check load-default n3t_load force=1 interval_ms=20
expect_eq none-reserved "reserved 0" "$(sed -n 3p $N3T/counters)"
echo hw > $TPDBG/standin
sleep 1
echo "# $(cat $N3T/counters | tr '\n' ' ')"
expect_eq watchdog-standin-counts "" "$(grep -v running $TPDBG/standin)"
check standin-on-every-cpu test "$(grep -c running $TPDBG/standin)" -eq "$(grep -c ^processor /proc/cpuinfo)"
echo off > $TPDBG/standin

# Other perf users of QEMU's PMU beside the module: a task's pinned counters
# (as KVM's vPMU opens a guest's) and a CPU's run the whole time; a task's
# flexible ones (perf stat ./prog) all count.
command -v pmuuser > /dev/null || PATH=$PATH:$N3T_HERE
# u NAME ARGS...: pmuuser on the CPU PMU (raw events), output as diagnostics
u() {
	_u=$1
	shift
	diag_run "$_u" "/tmp/pmuuser.$_u" pmuuser "$@"
}
# as many as the PMU has: the cycle counter and every programmable one
# (those the module packs for, and the one it leaves spare)
NPROG=$(($(value $N3T/counters programmable) + $(value $N3T/counters spare)))
ALL="0x11$(seq "$NPROG" | sed 's/.*/ 0x08/' | tr -d '\n')"
echo "# events: $ALL"
check task-pinned-runs-whole-time u task-pinned -a 1 -p -s 2 $ALL
check cpu-pinned-runs-whole-time u cpu-pinned -c 2 -p -s 2 $ALL
check task-flexible-all-counted u task-flexible -a 1 -s 2 $ALL
check unload-default n3t_unload

# Sharing the PMU: another pinned user wanting every programmable counter
# the module found free (the hog: raw INST_RETIRED events) gets them all on
# every CPU, whether the module collects or is paused.  One set (general:
# cycles and INST_RETIRED), so the module wants a programmable counter all
# the time.
check load-general n3t_load force=1 interval_ms=100 groups=general
HOGN=$(value $N3T/counters programmable)
NCPU=$(grep -c ^processor /proc/cpuinfo)
sleep 0.5
echo "hw $HOGN" > $TPDBG/hog
echo "# collecting: $(cat $TPDBG/hog | tr '\n' ' ')"
expect_eq hog-runs-while-collecting "$NCPU" "$(grep -c " $HOGN/$HOGN\$" $TPDBG/hog)"
echo off > $TPDBG/hog
expect_eq pause OK "$(errno_of $N3T/enabled 0)"
echo "hw $HOGN" > $TPDBG/hog
echo "# paused: $(cat $TPDBG/hog | tr '\n' ' ')"
expect_eq hog-runs-while-paused "$NCPU" "$(grep -c " $HOGN/$HOGN\$" $TPDBG/hog)"
echo off > $TPDBG/hog
expect_eq resume OK "$(errno_of $N3T/enabled 1)"
expect_eq resumed-programmable "$HOGN" "$(value $N3T/counters programmable)"
cyc0=$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/system/events)
i=0
while [ $i -lt 100000 ]; do i=$((i + 1)); done
sleep 1
ipc=$(value $N3T/system/general ipc)
echo "# resumed: system ipc $ipc"
check resumed-ipc-positive awk -v v="$ipc" 'BEGIN { exit !(v != "nan" && v > 0 && v <= 8) }'
check resumed-cycles-grow test "$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/system/events)" -gt "$cyc0"
check unload-general n3t_unload

# As on an N3: every event of the groups live (test_all_events=1, a test
# build's switch: QEMU counts the events it does not implement as zero, but
# each takes a counter), default settings.  perf record's and perf top's
# default event (cycles, sampling; a task's and a CPU's) counts at least
# 99 % of its time; with CPU 2 idle, its sampler runs on time, and perf
# stat -a -e <6 events> on CPU 2 counts at least 99 % from its second
# second on, the module stepping aside there alone; perf stat of a program
# with 4 and 6 events: every event counts, shares printed.
echo "n3t-kselftest: realpmu all events" > /dev/kmsg
check load-all-events n3t_load force=1 interval_ms=100 test_all_events=1
live=$(awk '{ for (i = 2; i <= NF; i++) e[$i] = 1 } END { print length(e) }' $N3T/sets)
echo "# every event live: $live distinct events in $(wc -l < $N3T/sets) sets"
check all-events-live sh -c "! dmesg | sed -n '/n3t-kselftest: realpmu all events/,\$p' |
	grep -q 'events not implemented or rejected'"
sleep 0.5
min99() { awk '/^0x/ { n++; sub(/%$/, "", $5); if ($5 + 0 < 99) bad = 1 } END { exit bad || !n }' "/tmp/pmuuser.$1"; }
check record-task-counted u record-task -a 1 -S 1000000 -s 2 0x11
check record-task-99 min99 record-task
check top-cpu-counted u top-cpu -c 1 -S 1000000 -s 2 0x11
check top-cpu-99 min99 top-cpu
EV6="0x08 0x08 0x08 0x08 0x08 0x08"
# CPU 2 idle the whole time: this shell and what it starts run elsewhere
# (perf stat -a's CPU may have nothing to run; the step aside must not wait
# for it to wake)
pin_shell 0xb
# idle, CPU 2's sampler still runs on time, as it must to see another user
# come: 10 intervals of 100 ms in a second, two or three runs in each (at
# least 10 with slack; a deferrable timer, which waits for the CPU to wake
# for something else, ran once)
r0=$(cost 2 slices)
sleep 1
r1=$(cost 2 slices)
echo "# idle cpu2: its sampler ran $((r1 - r0)) times in 1 s"
check idle-cpu2-sampler-on-time test $((r1 - r0)) -ge 10
runs0=$(cost 2 slices)
u stat-a-6 -c 2 -s 3 -W 1 $EV6 > /tmp/sa6.out 2>&1 &
bg=$!
# CPU 2's state every 0.1 s, and its sampler's counts, as diagnostics
(k=0; while [ $k -lt 30 ]; do k=$((k + 1)); printf '%s ' "$(value $N3T/cpu2/status state | cut -c1-4)"; sleep 0.1; done; echo) > /tmp/sa6.states &
sleep 1.5
state2=$(value $N3T/cpu2/status state)
state1=$(value $N3T/cpu1/status state)
wait $bg
wait
cat /tmp/sa6.out
echo "# stat-a-6: cpu2 every 0.1 s: $(cat /tmp/sa6.states)"
echo "# stat-a-6: $(grep '^cpu2 ' $DBG/cost)"
echo "# stat-a-6: cpu2's sampler ran $(($(cost 2 slices) - runs0)) times while perf stat -a ran"
unpin_shell
check stat-a-6-99-from-second-1 min99 stat-a-6
expect_eq stat-a-6-cpu2-stepped-aside stepped-aside "$state2"
expect_eq stat-a-6-cpu1-collecting collecting "$state1"
check stat-4-all-counted u stat-4 -a 1 -s 2 0x08 0x08 0x08 0x08
check stat-6-all-counted u stat-6 -a 1 -s 2 $EV6
check unload-all-events n3t_unload
rmmod n3t_testpmu
ktap_finish
