#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A good neighbour: beside the module with its default settings, every other
# perf user of the test PMU (6 programmable counters and a cycle counter,
# all of which the module's sets use) gets what perf promises it:
#   - a task-pinned user (what KVM's vPMU creates for a guest's counters)
#     and a CPU-pinned one (perf -e ...:D) run the whole time they are
#     enabled: never the error state;
#   - a task's flexible events (perf stat ./prog) all count (no
#     "<not counted>"); their share of the time is printed;
# and the module is back at its full capacity within 5 intervals once they
# leave, with no write.  With pinned=1 (dedicated monitoring hosts) the
# pinned users are starved, as documented: the control that shows this test
# can fail.
. ./lib.sh
need_testpmu
command -v pmuuser > /dev/null || PATH=$PATH:$N3T_HERE
command -v pmuuser > /dev/null || skip_all "pmuuser not built (make -C selftests/n3telemetry)"
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 3 ] || skip_all "needs 3 CPUs"
insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko" counters=6 || exit 1
TP=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
# task events of this PMU need the 6.2 perf core (testpmu.c)
if ! pmuuser -t "$TP" -s 0.01 0x08 > /dev/null 2>&1; then
	rmmod n3t_testpmu
	skip_all "the test PMU takes no per-task events on $(uname -r)"
fi
IVL=100
check load n3t_load force=1 pmu_type="$TP" interval_ms=$IVL
load_counters=$(head -2 $N3T/counters | tr '\n' ' ')
echo "# module: $load_counters, $(wc -l < $N3T/sets) sets"
sleep 0.5

# u NAME ARGS...: pmuuser on the test PMU, its lines as diagnostics
u() {
	_u=$1
	shift
	diag_run "$_u" "/tmp/pmuuser.$_u" pmuuser -t "$TP" "$@"
}
EV4="0x08 0x08 0x08 0x08"
EV6="0x08 0x08 0x08 0x08 0x08 0x08"
check task-pinned-runs-whole-time u task-pinned -a 1 -p -s 2 $EV4
check task-pinned-6-runs-whole-time u task-pinned-6 -a 2 -p -s 1 0x11 $EV6
check cpu-pinned-runs-whole-time u cpu-pinned -c 2 -p -s 2 $EV4
check cpu-pinned-cycles-runs-whole-time u cpu-pinned-cycles -c 1 -p -s 1 0x11
# perf stat of a program: task, flexible, every event counted
check task-flexible-all-counted u task-flexible -a 1 -s 2 $EV4
check task-flexible-6-all-counted u task-flexible-6 -a 1 -s 2 $EV6
# both at once: the pinned user still has every counter it wants.  The
# task's flexible events get what the pinned user and the module leave,
# which can be nothing (see "Sharing the PMU" in the guide): shown, not
# asserted
u cpu-pinned-bg -c 3 -p -s 3 $EV4 > /tmp/bg.out 2>&1 &
bg=$!
u task-flexible-bp -a 3 -s 2 0x08 0x08
check cpu-pinned-beside-flexible wait $bg
cat /tmp/bg.out

# They are gone: back at the load-time capacity within 5 intervals (looks,
# then a re-pack), with no write
t=0
while [ "$(head -2 $N3T/counters | tr '\n' ' ')" != "$load_counters" ] && [ $t -lt 50 ]; do
	sleep 0.1
	t=$((t + 1))
done
echo "# back to '$load_counters' after $((t * 100)) ms"
expect_eq back-to-load-capacity "$load_counters" "$(head -2 $N3T/counters | tr '\n' ' ')"
check back-within-5-intervals test $((t * 100)) -le $((5 * IVL + IVL))
n3t_unload

# pinned=1: today's behaviour, for hosts dedicated to monitoring: the module's
# CPU-pinned counters outrank every task's pinned events, which starve
check load-pinned n3t_load force=1 pmu_type="$TP" interval_ms=$IVL pinned=1
sleep 0.5
check pinned-mode-starves-task-pinned fails u task-pinned-vs-pinned -a 1 -p -s 1 $EV6
n3t_unload
rmmod n3t_testpmu
ktap_finish
