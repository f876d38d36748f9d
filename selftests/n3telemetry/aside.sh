#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stepping aside, per CPU (test PMU with N3's counters, 6 and a cycle
# counter; slices end on "advance").  With its default spare counter the
# module packs for 5 of the 6.  Another user that takes counters on CPU 2
# alone, so many that the sets of every interval do not fit, makes CPU 2
# step aside: it holds no counter, its files say so and its values read
# nan, never a wrong number; every other CPU counts on uninterrupted (no
# restart, no re-pack, exact values, seq and ages one interval at a time).
# CPU 2 looks now and then without ever taking a counter from the other
# user, and is back within 5 intervals after the user leaves, exact again.
# A user that leaves the sets of every interval room (a CPU-wide perf stat
# of two events) costs CPU 2 only the rotating slices whose sets do not
# fit.  Then: only what counts is in perf's lists (the first set's events
# and, during its slice, a rotating set's), whatever the selection.
. ./lib.sh
need_testpmu
. ./vectors.sh
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 3 ] || skip_all "needs 3 CPUs"

# cpu_events CPU: the test PMU's CPU-wide events that exist on CPU now
cpu_events() { awk -v c="cpu$1" '$1 == c { print $2 }' $TPDBG/events; }
cpu_peak() { awk -v c="cpu$1" '$1 == c { print $4 }' $TPDBG/events; }

TP_SPARE= tp_setup 6 || exit 1
expect_eq spare-default 1 "$(value $N3T/counters spare)"
expect_eq packs-for-5 5 "$(value $N3T/counters programmable)"
echo "# $NSETS sets on 5 counters and the cycle counter"
scripted_interval 1 "$VEC_A" 2 "$VEC_A"
check_values before-cpu1 $N3T/cpu1 "$VEC_A"
check_values before-cpu2 $N3T/cpu2 "$VEC_A"
check one-counter-left-free sh -c "[ \$(awk '\$1 == \"cpu1\" { print \$2 }' $TPDBG/active) -le 6 ]"

seq1=$(st $N3T/cpu1 seq)
lost1=$(st $N3T/cpu1 lost_slices)
echo "n3t-kselftest: aside contention" > /dev/kmsg
# a pinned user of 3 counters on CPU 2 alone: set 1 (topdown_l1's second
# half: 4 and the cycle counter) no longer fits there
echo "tp 3 2" > $TPDBG/hog
scripted_interval 1 "$VEC_A" 2 "$VEC_A"
expect_eq cpu2-stepped-aside stepped-aside "$(st $N3T/cpu2 state)"
expect_eq cpu1-collecting collecting "$(st $N3T/cpu1 state)"
expect_eq system-cpus-aside 1 "$(value $N3T/system/status cpus_aside)"
expect_eq cpu2-holds-nothing 3 "$(cpu_events 2)"	# the 3 are the user's
expect_eq hog-runs "cpu2 3/3" "$(grep '^cpu2 ' $TPDBG/hog)"
for g in $DEFAULT_GROUPS; do
	group_is "cpu2-$g-nan" $N3T/cpu2 $g nan
done
check cpu2-ages-nan sh -c "! awk '\$7 != \"nan\"' $N3T/cpu2/ages | grep -q ."

# ten intervals of it: every other CPU uninterrupted, CPU 2 looking
i=0
while [ $i -lt 10 ]; do
	scripted_interval 1 "$VEC_A" 2 "$VEC_A"
	i=$((i + 1))
done
expect_eq cpu1-seq-one-a-interval $((seq1 + 11)) "$(st $N3T/cpu1 seq)"
expect_eq cpu1-no-lost-slice "$lost1" "$(st $N3T/cpu1 lost_slices)"
expect_eq cpu1-ages-current "$(st $N3T/cpu1 seq)" \
	"$(awk '{ print $3 }' $N3T/cpu1/ages | sort -u)"
check_values during-cpu1 $N3T/cpu1 "$VEC_A"
expect_eq cpu1-never-stepped-aside 0 "$(cost 1 asides)"
expect_eq cpu3-never-stepped-aside 0 "$(cost 3 asides)"
expect_eq same-counters 5 "$(value $N3T/counters programmable)"
check no-repack-no-restart sh -c "! dmesg | sed -n '/n3t-kselftest: aside contention/,\$p' |
	grep -q 're-packed\|resumed\|paused'"
expect_eq still-aside stepped-aside "$(st $N3T/cpu2 state)"
looks=$(cost 2 looks)
echo "# cpu2: $looks looks in 11 intervals of $NSETS slices, $(cost 2 asides) steps aside"
check cpu2-looked test "$looks" -gt 0
expect_eq hog-never-lost-a-counter "cpu2 3/3" "$(grep '^cpu2 ' $TPDBG/hog)"

# the user leaves: back within 5 intervals, and exact
echo off > $TPDBG/hog
n=0
while [ "$(st $N3T/cpu2 state)" != collecting ] && [ $n -lt 5 ]; do
	advance 2
	n=$((n + 1))
done
echo "# cpu2 back after $n intervals"
expect_eq cpu2-back-within-5 collecting "$(st $N3T/cpu2 state)"
expect_eq system-cpus-aside-0 0 "$(value $N3T/system/status cpus_aside)"
scripted_interval 1 "$VEC_A" 2 "$VEC_A"
check_values after-cpu2 $N3T/cpu2 "$VEC_A"
check_values after-cpu1 $N3T/cpu1 "$VEC_A"
tp_teardown

# The default schedule (sets 0 and 1, topdown_l1, in every interval, the
# others in turn) and a CPU-wide user of spare + 1 counters on CPU 2
# (pmuuser -c 2, flexible: perf stat -a -C 2 -e cycles,instructions),
# started at an interval's start (set 0 or 1 counting): 4 programmable
# counters are left, where sets 0 and 1 fit.  The rotating sets of 5
# without CPU_CYCLES fit too (the user's cycles takes the cycle counter
# when the module's is off); set 3 (ipc), 5 and CPU_CYCLES, does not.
# CPU 2 goes on collecting topdown_l1, exact; a rotating slice that finds
# at its start that its set does not fit releases it at once and is lost
# (set_busy), and CPU 2 never steps aside; the user counts the whole
# time.  (Before,
# the rotating slice took counters from the user until it ended, CPU 2
# stepped aside, and its looks tried the largest set, which never fitted:
# aside for as long as the user ran.)
TP_SPARE= tp_setup 6 schedule=rotate || exit 1
scripted_interval 1 "$VEC_A" 2 "$VEC_A"
if command -v pmuuser > /dev/null || PATH=$PATH:$N3T_HERE command -v pmuuser > /dev/null; then
	command -v pmuuser > /dev/null || PATH=$PATH:$N3T_HERE
	a0=$(cost 2 asides)
	b0=$(cost 2 set_busy)
	lost0=$(st $N3T/cpu2 lost_slices)
	pmuuser -t n3t_testpmu -c 2 -s 120 0x11 0x08 > /tmp/aside.user 2>&1 &
	upid=$!
	sleep 1
	i=0
	while [ $i -lt 8 ]; do
		scripted_interval 1 "$VEC_B" 2 "$VEC_B"
		i=$((i + 1))
	done
	check user-outlived-the-intervals kill -USR1 $upid
	check user-exit-0 wait $upid
	sed 's/^/# pmuuser: /' /tmp/aside.user
	# CONFIG count enabled running share: running the whole time enabled
	check user-counted-the-whole-time awk '{ n++; if ($4 != $3 || !$3) bad = 1 } END { exit bad || n != 2 }' /tmp/aside.user
	expect_eq small-user-cpu2-collecting collecting "$(st $N3T/cpu2 state)"
	# never aside, but for one look's worth where the host starved the
	# worker: between a rotating set's enable and its fit check, perf's
	# rotation (a few ms) can take set 0's counters for the user (seen
	# once, the debug VM beside three others on two cores); the state,
	# the values and the user's whole time below hold either way
	check small-user-cpu2-aside-at-most-once test "$(($(cost 2 asides) - a0))" -le 1
	group_is small-user-cpu2-topdown_l1 $N3T/cpu2 topdown_l1 "$VEC_B"
	busy=$(($(cost 2 set_busy) - b0))
	echo "# cpu2: $busy rotating slices lost to the user in 8 intervals"
	# 8 turns: set 3's is among them
	check small-user-rotating-slices-lost test "$busy" -ge 1
	expect_eq small-user-lost-slices-counted $((lost0 + busy)) "$(st $N3T/cpu2 lost_slices)"
	check_values small-user-cpu1 $N3T/cpu1 "$VEC_B"
else
	ktap_test_skip "small-user (pmuuser not built)"
fi
tp_teardown

# What perf's lists hold on a CPU: the events of the sets counted in every
# interval (the first group's: sets 0 and 1 with the spare counter), and a
# rotating set's during its slice only; the same with every group selected.
for sel in default all; do
	TP_SPARE= tp_setup 6 schedule=rotate groups=$sel || exit 1
	nsets=$(wc -l < $N3T/sets)
	# every interval rotates here (60 s): the sets of every interval and one
	k=$(($(st $N3T/cpu1 sets_per_interval) - 1))
	first=$(awk -v k=$k 'NR <= k { for (i = 2; i <= NF; i++) e[$i] = 1 } END { print length(e) }' $N3T/sets)
	most=$(awk -v k=$k 'NR > k && NF - 1 > m { m = NF - 1 } END { print m + 0 }' $N3T/sets)
	echo 0 > $TPDBG/events
	expect_eq "$sel-first-set-only" "$first" "$(cpu_events 1)"
	# one whole rotation: a slice of each set
	i=0
	while [ $i -lt $((2 * nsets)) ]; do
		advance -1
		i=$((i + 1))
	done
	echo "# groups=$sel: $nsets sets, $first events in the $k of every interval, at most $most in another; peak $(cpu_peak 1)"
	check "$sel-peak-first-plus-one-set" test "$(cpu_peak 1)" -le $((first + most))
	# to the next interval's start: the rotating set's events are gone
	q=$(st $N3T/cpu1 seq)
	while [ "$(st $N3T/cpu1 seq)" = "$q" ]; do advance -1; done
	expect_eq "$sel-back-to-first-set" "$first" "$(cpu_events 1)"
	tp_teardown
done

# pinned=1: counters taken away on every CPU (3 of the 6 left, the sets
# need more): each CPU steps aside once and stays aside while they are
# taken.  A look's pinned event that finds no counter goes to the error
# state with its times frozen at 0; taken for one that counted (it was,
# on 6.12), the CPU came back and was pushed out again every few
# intervals.  With the counters back, it collects within 5 intervals.
tp_setup 6 pinned=1 || exit 1
echo 3 > $TPDBG/counters
a0=$(cost 1 asides)
k0=$(cost 1 looks)
i=0
while [ $i -lt 12 ]; do advance_interval -1; i=$((i + 1)); done
echo "# pinned, 3 counters: cpu1 $(( $(cost 1 asides) - a0 )) steps aside, $(( $(cost 1 looks) - k0 )) looks in 12 intervals"
expect_eq pinned-aside-once $((a0 + 1)) "$(cost 1 asides)"
check pinned-looked test "$(cost 1 looks)" -gt "$k0"
expect_eq pinned-still-aside stepped-aside "$(st $N3T/cpu1 state)"
echo 6 > $TPDBG/counters
i=0
while [ $i -lt 5 ] && [ "$(st $N3T/cpu1 state)" != collecting ]; do
	advance_interval -1
	i=$((i + 1))
done
expect_eq pinned-back collecting "$(st $N3T/cpu1 state)"
tp_teardown

# Stepped aside on every CPU: a CPU going off and on meanwhile, then the
# module unloaded, then a CPU going off and on again (nothing of the
# module may run after its exit).
CPUS=/sys/devices/system/cpu
TP_SPARE= tp_setup 6 || exit 1
echo "tp 3" > $TPDBG/hog
advance_interval -1
expect_eq all-aside "$(grep -c ^processor /proc/cpuinfo)" "$(value $N3T/system/status cpus_aside)"
check hotplug-while-aside sh -c "echo 0 > $CPUS/cpu1/online && echo 1 > $CPUS/cpu1/online"
advance_interval -1
# (perf drops a CPU's events when it goes offline: the other user's may be gone there)
check set-up-again-after-hotplug grep -qE '^state (collecting|stepped-aside)$' $N3T/cpu1/status
check unload-while-aside n3t_unload
check hotplug-after-unload sh -c "echo 0 > $CPUS/cpu1/online && echo 1 > $CPUS/cpu1/online"
expect_eq hog-kept-its-counters "cpu2 3/3" "$(grep '^cpu2 ' $TPDBG/hog)"
echo off > $TPDBG/hog
rmmod n3t_testpmu
ktap_finish
