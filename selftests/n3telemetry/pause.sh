#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sharing the PMU, on the test PMU with scripted counts.  Cumulative counts
# never go backwards: a CPU going offline keeps what it counted in system/,
# and continues from there when it comes back.  enabled 0 releases every
# counter (another pinned user then gets all of them), keeps the counts and
# stops the counting time; writes while paused are stored; hotplug and
# rmmod while paused work; enabled 1 resumes with exact values, the counts
# continuing; a resume that cannot allocate fails and stays paused.
. ./lib.sh
need_testpmu
. ./vectors.sh
CPUS=/sys/devices/system/cpu
FF=/sys/kernel/debug/fail_function
NCPU=$(grep -c ^processor /proc/cpuinfo)

# ev DIR EVENT [3]: the cumulative count (or, with 3, the counting ns)
ev() { awk -v e="$2" -v f="${3:-2}" '$1 == e { print $f }' "$1/events"; }
# active: CPUs on which some test PMU counter is held
active() { awk '$2 != 0' $TPDBG/active | wc -l; }
# the states of all CPUs, each once
# uptime in centiseconds
up() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; }
states() { cat $N3T/cpu*/status | awk '$1 == "state" { print $2 }' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

tp_setup 6 || exit 1
# one interval's CPU_CYCLES and INST_RETIRED: each set that has the event counts it
KC=$(grep -c ' CPU_CYCLES' $N3T/sets)
KI=$(grep -c ' INST_RETIRED' $N3T/sets)
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
expect_eq cpu1-cycles "$((1000000000 * KC))" "$(ev $N3T/cpu1 CPU_CYCLES)"
expect_eq system-cycles "$((3000000000 * KC))" "$(ev $N3T/system CPU_CYCLES)"

# CPU hotplug while collecting: the totals stay, exactly, and cpu2 continues
bad=0
for i in 1 2 3; do
	for c in 2 3; do
		echo 0 > $CPUS/cpu$c/online
		[ "$(ev $N3T/system CPU_CYCLES)" = "$((3000000000 * KC))" ] || bad=$((bad + 1))
		[ "$(ev $N3T/system INST_RETIRED)" = "$((2500000000 * KI))" ] || bad=$((bad + 1))
		echo 1 > $CPUS/cpu$c/online
		[ "$(ev $N3T/system CPU_CYCLES)" = "$((3000000000 * KC))" ] || bad=$((bad + 1))
	done
done
expect_eq system-total-across-offline-online 0 "$bad"
expect_eq system-total-after-offline "$((3000000000 * KC))" "$(ev $N3T/system CPU_CYCLES)"
expect_eq cpu2-continues-after-online "$((2000000000 * KC))" "$(ev $N3T/cpu2 CPU_CYCLES)"
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
check_values online-again-cpu2 $N3T/cpu2 "$VEC_B"
expect_eq cpu2-cycles-two-intervals "$((4000000000 * KC))" "$(ev $N3T/cpu2 CPU_CYCLES)"
expect_eq system-cycles-two-intervals "$((6000000000 * KC))" "$(ev $N3T/system CPU_CYCLES)"

# what readers see while CPUs' counts are folded (offline, pause): always the
# same total, never twice a CPU's counts or none of them; the test build's
# delay holds each reader between finding a CPU's state and reading it
[ -e $DBG/delay_us_read ] && echo 2000 > $DBG/delay_us_read
rm -f /tmp/pause.stop
(while [ ! -e /tmp/pause.stop ]; do ev $N3T/system CPU_CYCLES; done > /tmp/pause.reads) &
for i in 1 2 3 4 5; do
	for c in 2 3; do
		echo 0 > $CPUS/cpu$c/online
		echo 1 > $CPUS/cpu$c/online
	done
	echo 0 > $N3T/enabled
	echo 1 > $N3T/enabled
done
touch /tmp/pause.stop
wait
[ -e $DBG/delay_us_read ] && echo 0 > $DBG/delay_us_read
echo "# $(wc -l < /tmp/pause.reads) reads of system/events during 10 offline and 5 pause cycles"
expect_eq reads-during-folds-exact "" \
	"$(grep -v "^$((6000000000 * KC))\$" /tmp/pause.reads | sort -u | tr '\n' ' ')"
check reads-during-folds-many test "$(wc -l < /tmp/pause.reads)" -ge 10

# the enabled file
expect_eq enabled-at-load 1 "$(cat $N3T/enabled)"
expect_eq enabled-mode 644 "$(stat -c %a $N3T/enabled)"
check collecting-holds-counters test "$(active)" -eq "$NCPU"
n=0
for w in 2 x '\n' ' 1' -1 nonsense yes 10 1x on; do
	n=$((n + 1))
	expect_eq "bad-write-$n" EINVAL "$(errno_of $N3T/enabled "$w")"
done
expect_eq bad-writes-change-nothing 1 "$(cat $N3T/enabled)"
expect_eq enable-when-enabled OK "$(errno_of $N3T/enabled 1)"
expect_eq still-collecting collecting "$(states)"

C2=$(ev $N3T/cpu2 CPU_CYCLES)
S2=$(ev $N3T/system CPU_CYCLES)
expect_eq pause OK "$(errno_of $N3T/enabled 0)"
expect_eq enabled-0 0 "$(cat $N3T/enabled)"
expect_eq no-counter-held 0 "$(active)"
expect_eq cpus-paused paused "$(states)"
expect_eq system-state-paused paused "$(value $N3T/system/status state)"
expect_eq system-cpus-collecting 0 "$(value $N3T/system/status cpus_collecting)"
expect_eq paused-ipc-nan nan "$(value $N3T/cpu2/general ipc)"
expect_eq paused-system-ipc-nan nan "$(value $N3T/system/general ipc)"
expect_eq paused-keeps-cpu2 "$C2" "$(ev $N3T/cpu2 CPU_CYCLES)"
expect_eq paused-keeps-system "$S2" "$(ev $N3T/system CPU_CYCLES)"
expect_eq pause-when-paused OK "$(errno_of $N3T/enabled 0)"
expect_eq bad-write-paused EINVAL "$(errno_of $N3T/enabled 'x')"
check logged-pause sh -c "dmesg | grep -q 'n3telemetry: paused: every counter released'"

# really free: a pinned user gets all 6 counters on every CPU, and a
# resume then finds none and stays paused
echo "tp 6" > $TPDBG/hog
expect_eq hog-gets-all-counters "$NCPU" "$(grep -c ' 6/6$' $TPDBG/hog)"
check resume-without-counters-fails fails sh -c "echo 1 > $N3T/enabled 2> /dev/null"
expect_eq stays-paused 0 "$(cat $N3T/enabled)"
expect_eq stays-paused-state paused "$(states)"
check logged-busy sh -c "dmesg | grep -q 'could not resume (error -16'"
echo off > $TPDBG/hog

# hotplug while paused: no counter comes with the CPU; its counts stay
NS2=$(ev $N3T/cpu2 CPU_CYCLES 3)
echo 0 > $CPUS/cpu2/online
expect_eq paused-offline-keeps-system "$S2" "$(ev $N3T/system CPU_CYCLES)"
echo 1 > $CPUS/cpu2/online
expect_eq paused-online-no-counter 0 "$(active)"
expect_eq paused-online-state paused "$(value $N3T/cpu2/status state)"
expect_eq paused-online-keeps-cpu2 "$C2" "$(ev $N3T/cpu2 CPU_CYCLES)"
sleep 2
expect_eq paused-time-not-counted "$NS2" "$(ev $N3T/cpu2 CPU_CYCLES 3)"

# resume: exact values again, counts continue from before the pause
T0=$(up)
expect_eq resume OK "$(errno_of $N3T/enabled 1)"
expect_eq enabled-1 1 "$(cat $N3T/enabled)"
expect_eq resumed-states collecting "$(states)"
expect_eq resumed-system-state collecting "$(value $N3T/system/status state)"
check resumed-holds-counters test "$(active)" -eq "$NCPU"
expect_eq resumed-same-sets "$NSETS" "$(wc -l < $N3T/sets)"
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
check_values resumed-cpu1 $N3T/cpu1 "$VEC_A"
expect_eq resumed-cpu2-continues "$((C2 + 2000000000 * KC))" "$(ev $N3T/cpu2 CPU_CYCLES)"
expect_eq resumed-system-continues "$((S2 + 3000000000 * KC))" "$(ev $N3T/system CPU_CYCLES)"
expect_eq resumed-system-inst "$((3 * 2500000000 * KI))" "$(ev $N3T/system INST_RETIRED)"
# the counting time since the pause is at most the time since the resume,
# whereas the pause lasted more than 2 s
NSD=$(($(ev $N3T/cpu2 CPU_CYCLES 3) - NS2))
T1=$(up)
echo "# cpu2 CPU_CYCLES counted $NSD ns in the $((T1 - T0 + 1)) cs since the resume"
check resumed-ns-not-paused-time test "$NSD" -le "$(((T1 - T0 + 1) * 10000000))"


# writes while paused are checked, stored, and applied by the resume
echo 0 > $N3T/enabled
S3=$(ev $N3T/system CPU_CYCLES)
expect_eq paused-groups-write OK "$(errno_of $N3T/groups 'topdown_l1')"
expect_eq paused-groups-stored topdown_l1 "$(cat $N3T/groups)"
expect_eq paused-groups-bad EINVAL "$(errno_of $N3T/groups 'nosuch')"
expect_eq paused-interval-write OK "$(errno_of $N3T/interval_ms 30000)"
expect_eq paused-interval-range ERANGE "$(errno_of $N3T/interval_ms 5)"
expect_eq paused-interval-stored 30000 "$(cat $N3T/interval_ms)"
expect_eq paused-after-writes 0 "$(active)"
expect_eq paused-after-writes-state paused "$(states)"
expect_eq resume-2 OK "$(errno_of $N3T/enabled 1)"
expect_eq groups-applied 1 "$(wc -l < $N3T/sets)"
NSETS=1
scripted_interval 1 "$VEC_A"
expect_eq topdown-l1-retiring "$(echo "$VEC_A" | awk -v m=retiring -f ./expect.awk)" \
	"$(value $N3T/cpu1/topdown_l1 retiring)"
expect_eq groups-change-system-continues "$((S3 + 1000000000))" "$(ev $N3T/system CPU_CYCLES)"

# a resume whose allocation fails: an error, still paused, one log line
echo 0 > $N3T/enabled
if [ -d $FF ]; then
	echo > $FF/inject
	echo n3t_cpu_alloc > $FF/inject
	echo 100 > $FF/probability
	echo 0 > $FF/interval
	echo -1 > $FF/times
	echo 0 > $FF/verbose
	dmesg -c > /dev/null
	expect_eq resume-enomem ENOMEM "$(errno_of $N3T/enabled 1)"
	echo > $FF/inject
	expect_eq enomem-stays-paused 0 "$(cat $N3T/enabled)"
	expect_eq enomem-state paused "$(states)"
	expect_eq enomem-no-counter 0 "$(active)"
	expect_eq enomem-one-log-line 1 "$(dmesg | grep -c 'n3telemetry: ')"
	expect_eq enomem-log "could not resume (error -12); still paused" \
		"$(dmesg | sed -n 's/.*n3telemetry: //p')"
	expect_eq resume-after-enomem OK "$(errno_of $N3T/enabled 1)"
	expect_eq collects-after-enomem collecting "$(states)"
	echo 0 > $N3T/enabled
else
	echo "# no fail_function: allocation failure on resume not tested"
fi

# unload while paused
check rmmod-while-paused n3t_unload
check tree-gone test ! -e $N3T
rmmod n3t_testpmu
ktap_finish
