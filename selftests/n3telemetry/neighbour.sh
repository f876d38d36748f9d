#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A good neighbour: beside the module with its default settings, every other
# perf user of the test PMU (6 programmable counters and a cycle counter,
# all of which the module's sets use) gets what perf promises it:
#   - a task-pinned user (what KVM's vPMU creates for a guest's counters)
#     and a CPU-pinned one (perf -e ...:D) run the whole time they are
#     enabled: never the error state;
#   - a task's flexible events (perf stat ./prog) all count (no
#     "<not counted>"), alone and beside a CPU-pinned user that leaves the
#     module 2 counters, for at least half the module's rest (yield_pct, 10
#     by default): in the rest, at least yield_pct of every interval (12 %
#     at 100 ms and HZ=250: 3 jiffies of 25), the module holds no counter
#     and those 2 are the task's; half, for timers late on a loaded VM;
# and the module is back at its full capacity within 5 intervals once they
# leave, with no write.  Controls that show the assertions can fail: with
# yield_pct=0 the task's events beside the pinned user get less than that
# share (the module's sets take what the pinned user leaves); with pinned=1
# (dedicated monitoring hosts) the pinned users are starved, as documented.
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
YIELD=$(cat $N3T/yield_pct)
expect_eq default-yield-pct 10 "$YIELD"
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
# min_share NAME: each counter of pmuuser run NAME had at least half of
# yield_pct percent of the time it was enabled (its last field, "12.3%")
min_share() {
	awk -v min="$YIELD" '{ sub(/%$/, "", $5); if ($5 + 0 < min / 2) bad = 1 } END { exit bad || !NR }' \
		"/tmp/pmuuser.$1"
}
# perf stat of a program: task, flexible, every event counted
check task-flexible-all-counted u task-flexible -a 1 -s 2 $EV4
check task-flexible-min-share min_share task-flexible
check task-flexible-6-all-counted u task-flexible-6 -a 1 -s 2 $EV6
check task-flexible-6-min-share min_share task-flexible-6
# both at once: the pinned user still has every counter it wants, the
# module takes the 2 it leaves, except in its rest: the task's flexible
# events get those then
# beside_pinned NAME: the task's 2 flexible events beside a CPU-pinned user
# of 4 counters; fails if one of them was not counted or the pinned user
# lost a counter
beside_pinned() {
	u cpu-pinned-bg -c 3 -p -s 3 $EV4 > /tmp/bg.out 2>&1 &
	_bg=$!
	u "$1" -a 3 -s 2 0x08 0x08
	_rc=$?
	wait $_bg || _rc=3
	cat /tmp/bg.out
	return $_rc
}
check task-flexible-beside-cpu-pinned-all-counted beside_pinned task-flexible-bp
check task-flexible-beside-cpu-pinned-min-share min_share task-flexible-bp

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

# the control: without the rest the task's events beside the pinned user
# get less (or nothing: "<not counted>", pmuuser fails)
expect_eq yield-0 OK "$(errno_of $N3T/yield_pct 0)"
beside_pinned task-flexible-bp-yield-0
check yield-0-below-min-share fails min_share task-flexible-bp-yield-0
n3t_unload

# pinned=1: today's behaviour, for hosts dedicated to monitoring: the module's
# CPU-pinned counters outrank every task's pinned events, which starve
check load-pinned n3t_load force=1 pmu_type="$TP" interval_ms=$IVL pinned=1
sleep 0.5
check pinned-mode-starves-task-pinned fails u task-pinned-vs-pinned -a 1 -p -s 1 $EV6
n3t_unload
rmmod n3t_testpmu
ktap_finish
