#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# When the metrics do not fit: a rejected write changes nothing; a
# selection none of whose metrics fits the counters together is composed
# from rates rather than refused (every table's formulas allow it), on one
# counter even without the cycle counter, where loading was refused before
# (it said ENOSPC, with one line); with no counter at all the load is
# refused; and when others take the counters every CPU steps aside, keeping
# its plan.  (Once a NULL dereference in the CPU online callback.)
. ./lib.sh
need_testpmu
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
state() { cat $N3T/interval_ms $N3T/groups $N3T/sets | md5sum; }
fits_msg() { dmesg | grep -c 'no metric of the selected groups fits'; }

# One programmable counter and the cycle counter: ipc (general) fits,
# every l1d_cache metric needs two programmable counters (composed).
tp_setup 1 || exit 1
expect_eq c1-programmable "programmable 1" "$(head -1 $N3T/counters)"
before=$(state)
# A rejected write, half-way through an interval, changes nothing: not the
# configuration, the counters, the collection (the sampler was not
# restarted: its slice count goes on), nor the interval under way
. ./vectors.sh
slices() { awk '$1 == "cpu1" { print $3 }' $DBG/cost; }
seq0=$(value $N3T/cpu1/status seq)
counters0=$(cat $N3T/counters)
inject 1 "$VEC_A"
advance 1
sl0=$(slices)
# what a reader sees but the time going by: values, ages' intervals, status,
# cumulative counts (not age_ms, nor the counting times, which grow)
data() {
	{ cat $N3T/cpu1/general $N3T/cpu1/status; awk '{ print $1, $3, $5 }' $N3T/cpu1/ages
	  awk '{ print $1, $2 }' $N3T/cpu1/events; } | md5sum
}
data0=$(data)
expect_eq write-interval-erange ERANGE "$(errno_of $N3T/interval_ms '5')"
expect_eq write-groups-einval EINVAL "$(errno_of $N3T/groups 'nosuchgroup')"
expect_eq write-unchanged "$before" "$(state)"
expect_eq write-counters-unchanged "$counters0" "$(cat $N3T/counters)"
expect_eq write-not-restarted "$sl0" "$(slices)"
expect_eq write-still-collecting collecting "$(value $N3T/cpu1/status state)"
# values, ages, seq, status and counts as they were
expect_eq write-data-unchanged "$data0" "$(data)"
# writing what is already there restarts nothing either
expect_eq write-same-groups OK "$(errno_of $N3T/groups "$(cat $N3T/groups)")"
expect_eq write-same-interval OK "$(errno_of $N3T/interval_ms "$(cat $N3T/interval_ms)")"
expect_eq write-same-schedule OK "$(errno_of $N3T/schedule all)"
expect_eq write-same-not-restarted "$sl0" "$(slices)"
expect_eq write-same-data-unchanged "$data0" "$(data)"
expect_eq write-same-unchanged "$before" "$(state)"
scripted_slices 1 1 "$VEC_A"
expect_eq write-interval-continues $((seq0 + 1)) "$(value $N3T/cpu1/status seq)"
expect_eq write-interval-values "1.800" "$(value $N3T/cpu1/general ipc)"
# l1d_cache, none of whose metrics fits: composed, each rate beside CPU_CYCLES
expect_eq write-l1d-composed OK "$(errno_of $N3T/groups 'l1d_cache')"
expect_eq l1d-sets "set0 L1D_CACHE_REFILL CPU_CYCLES
set1 INST_RETIRED CPU_CYCLES
set2 L1D_CACHE CPU_CYCLES" "$(cat $N3T/sets)"
NSETS=3
advance_interval -1
expect_eq l1d-marked "l1d_cache_mpki composed
l1d_cache_miss_ratio composed" "$(awk '{ print $1, $3 }' $N3T/cpu1/l1d_cache)"
expect_eq write-all-ok OK "$(errno_of $N3T/groups 'all')"
NSETS=$(wc -l < $N3T/sets)
check all-has-sets test "$NSETS" -gt 0
advance_interval -1
check still-collects test "$(value $N3T/cpu1/status seq)" -ge 1
tp_teardown

# One counter without the cycle counter, where loading was refused: loaded,
# no line logged, every metric composed from rates per second of counting.
insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=1 cycle_counter=0
n0=$(fits_msg)
check load-one-counter n3t_load force=1 pmu_type="$(cat $TPI)" groups=general
expect_eq load-not-logged "$n0" "$(fits_msg)"
expect_eq one-counter-sets "set0 INST_RETIRED
set1 CPU_CYCLES" "$(cat $N3T/sets)"
expect_eq one-counter-ipc-composed composed "$(awk '$1 == "ipc" { print $3 }' $N3T/cpu1/general)"
n3t_unload
rmmod n3t_testpmu

# No counters at all: refused with the probe's message.
insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=0 cycle_counter=0
check load-no-counters-refused fails n3t_load force=1 pmu_type="$(cat $TPI)"
check not-loaded-0 test ! -d $N3T
rmmod n3t_testpmu

# Others take all but one counter and the cycle counter while the default
# groups run: every CPU steps aside (nothing re-packs, nothing is logged),
# the plan and the counters stay as they were, the files read nan; once the
# counters are free again every CPU is back on its own, with no write.
tp_setup 6 || exit 1
before=$(state)
n0=$(fits_msg)
nlog=$(dmesg | grep -c 'n3telemetry: ')
echo 1 > $TPDBG/counters
echo N > $TPDBG/cycle_counter
advance_interval -1
advance_interval -1
ncpu=$(grep -c ^processor /proc/cpuinfo)
expect_eq all-stepped-aside "$ncpu" "$(value $N3T/system/status cpus_aside)"
expect_eq aside-kept-plan "$before" "$(state)"
expect_eq aside-no-log "$nlog" "$(dmesg | grep -c 'n3telemetry: ')"
expect_eq aside-kept-capacity "programmable 6" "$(head -1 $N3T/counters)"
expect_eq aside-nan nan "$(value $N3T/cpu1/topdown_l1 retiring)"
check files-read cat $N3T/cpu1/topdown_l1 $N3T/system/general
echo 6 > $TPDBG/counters
echo Y > $TPDBG/cycle_counter
n=0
while [ "$(value $N3T/system/status cpus_aside)" != 0 ] && [ $n -lt 5 ]; do
	advance -1
	n=$((n + 1))
done
expect_eq all-back-within-5 0 "$(value $N3T/system/status cpus_aside)"
expect_eq no-fits-message "$n0" "$(fits_msg)"
expect_eq back-6 "programmable 6" "$(head -1 $N3T/counters)"
tp_teardown
ktap_finish
