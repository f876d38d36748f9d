#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rest (yield_pct=10; the default is 0, no rest) on the test PMU, slice
# by slice: the
# end of an interval's last slice publishes the interval and switches every
# counter of the module off; during the rest the module holds no counter
# (the test PMU's own count of held counters says 0), counts nothing
# (counts injected then reach no set, nor the cumulative counts) and adds
# no counting time; the next "advance" ends the rest and enables the first
# set.  Values stay exact, the ages as in
# schedule.sh.  A pause, a CPU going offline, an interval_ms write and a
# yield_pct write made during the rest: the rotation goes on with the next
# interval's turn.
#
# N3's default groups on 6 counters and the cycle counter: 7 sets, interval
# n (from load) counts set 0 and set 1 + (n - 1) % 6 (schedule.sh).
. ./lib.sh
need_testpmu
. ./vectors.sh
CPUS=/sys/devices/system/cpu

# held CPU: the test PMU's counters held on CPU now (anyone's)
held() { awk -v c="cpu$1" '$1 == c { print $2 }' $TPDBG/active; }
# one_interval CPU VECTOR: the interval's slices only, leaving the CPU resting
one_interval() {
	_s=0
	while [ $_s -lt "$NSETS" ]; do
		inject "$1" "$2"
		advance -1
		_s=$((_s + 1))
	done
}

TP_YIELD=yield_pct=10 tp_setup 6 schedule=rotate || exit 1
expect_eq yield-pct-10 10 "$(cat $N3T/yield_pct)"
expect_eq tp_setup-saw-a-rest 1 "$REST"
expect_eq slices-per-interval 2 "$NSETS"
SET0=$(($(sed -n 1p $N3T/sets | wc -w) - 1))
echo "# set 0 has $SET0 events"
# tp_setup ended interval 1 and its rest: set 0 counts
expect_eq after-1-seq 1 "$(st $N3T/cpu1 seq)"
expect_eq after-1-held-set0 "$SET0" "$(held 1)"

# interval 2 (sets 0 and 2) with VEC_A: published when its last slice
# ends, at the start of the rest
one_interval 1 "$VEC_A"
expect_eq i2-seq-at-rest 2 "$(st $N3T/cpu1 seq)"
expect_eq i2-rest-cpu1-holds-nothing 0 "$(held 1)"
expect_eq i2-rest-cpu2-holds-nothing 0 "$(held 2)"
group_is i2-l1 $N3T/cpu1 topdown_l1 "$VEC_A"
expect_eq i2-ages " 2 1 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"
# the rest is nobody's time: counts offered then are counted by no set,
# and no event's counting time grows, however long it lasts (1 s here)
cyc() { awk -v f="$1" '$1 == "CPU_CYCLES" { print $f }' $N3T/cpu1/events; }
c0=$(cyc 2)
t0=$(cyc 3)
inject 1 "$VEC_B"
sleep 1
inject 1 "$VEC_B"
expect_eq i2-rest-seq-unchanged 2 "$(st $N3T/cpu1 seq)"
# the rest ends: set 0 holds its counters again
advance -1
expect_eq i3-held-set0 "$SET0" "$(held 1)"
# interval 3 (sets 0 and 3, both with CPU_CYCLES) with VEC_A: its
# cumulative counts have its two slices' cycles only, and well under the
# rest's second of counting time
one_interval 1 "$VEC_A"
expect_eq i3-rest-not-counted $((c0 + 2 * 1000000000)) "$(cyc 2)"
check i3-rest-no-counting-time test $(($(cyc 3) - t0)) -lt 1000000000
expect_eq i3-no-lost-slice 0 "$(st $N3T/cpu1 lost_slices)"
group_is i3-l1-exact $N3T/cpu1 topdown_l1 "$VEC_A"
group_is i3-general-exact $N3T/cpu1 general "$VEC_A"
expect_eq i3-ages " 3 1 0 3 0 0 0 0" "$(all_ages $N3T/cpu1)"
expect_eq i3-rest-holds-nothing 0 "$(held 1)"

# a pause in the rest after interval 3: interval 4 counts set 4's turn
echo 0 > $N3T/enabled
echo 1 > $N3T/enabled
expect_eq resume-held-set0 "$SET0" "$(held 1)"
one_interval 1 "$VEC_A"
expect_eq resume-seq-goes-on 4 "$(st $N3T/cpu1 seq)"
# the values start over: only sets 0 and 4 (backend memory) have one
expect_eq resume-ages " 4 0 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"
group_is resume-l1 $N3T/cpu1 topdown_l1 "$VEC_A"
expect_eq resume-next-turn-set4 "$(want "$VEC_A" backend_mem_cache_bound)" \
	"$(value $N3T/cpu1/topdown_backend backend_mem_cache_bound)"
expect_eq resume-set3-not-counted nan "$(value $N3T/cpu1/topdown_backend backend_busy_bound)"
expect_eq resume-rest-holds-nothing 0 "$(held 1)"

# cpu1 offline in the rest after interval 4: back online, set 5's turn
echo 0 > $CPUS/cpu1/online
echo 1 > $CPUS/cpu1/online
expect_eq online-held-set0 "$SET0" "$(held 1)"
# cpu2 ends its rest (cpu1 starts at set 0), then interval 5 everywhere
advance 2
one_interval 1 "$VEC_B"
expect_eq hotplug-seq 5 "$(st $N3T/cpu1 seq)"
expect_eq hotplug-next-turn-set5 " 5 0 0 0 5 5 0 0" "$(all_ages $N3T/cpu1)"
expect_eq hotplug-cpu2-same-turn " 5 0 0 0 5 5 0 0" "$(all_ages $N3T/cpu2)"
group_is hotplug-l1d $N3T/cpu1 l1d_cache "$VEC_B"

# an interval_ms write in the rest after interval 5: set 6's turn
echo 59000 > $N3T/interval_ms
one_interval 1 "$VEC_A"
expect_eq reconf-seq 6 "$(st $N3T/cpu1 seq)"
expect_eq reconf-next-turn-set6 " 6 0 0 0 0 0 6 6" "$(all_ages $N3T/cpu1)"
group_is reconf-l2 $N3T/cpu1 l2_cache "$VEC_A"

# yield_pct 0 written in the rest after interval 6: this rest ends as
# planned, the next intervals have none (set 0 counts right after the
# last slice); 10 again: rests again.  The turn goes on: sets 1, then 2
advance -1
expect_eq yield-0-write OK "$(errno_of $N3T/yield_pct '0')"
one_interval 1 "$VEC_B"
expect_eq yield-0-seq 7 "$(st $N3T/cpu1 seq)"
expect_eq yield-0-no-rest "$SET0" "$(held 1)"
expect_eq yield-0-turn-set1 " 7 0 0 0 0 0 6 6" "$(all_ages $N3T/cpu1)"
expect_eq yield-10-write OK "$(errno_of $N3T/yield_pct '10')"
one_interval 1 "$VEC_B"
expect_eq yield-10-seq 8 "$(st $N3T/cpu1 seq)"
expect_eq yield-10-rests-again 0 "$(held 1)"
expect_eq yield-10-turn-set2 " 8 7 0 0 0 0 6 6" "$(all_ages $N3T/cpu1)"
group_is yield-10-l1 $N3T/cpu1 topdown_l1 "$VEC_B"
expect_eq no-slice-lost 0 "$(st $N3T/system lost_slices)"
# the rests begun, as the cost file counts them: one per interval that
# ended with one; cpu1's state, restarted by the interval_ms write, saw
# intervals 6 (a rest), 7 (none) and 8 (a rest)
expect_eq cpu1-rests 2 "$(awk '$1 == "cpu1" { print $11 }' $DBG/cost)"
tp_teardown
ktap_finish
