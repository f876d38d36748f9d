#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The default, rotating schedule on the test PMU, slice by slice: the set of
# topdown_l1 counts in every interval and the other sets one per interval in
# turn.  Exact values from one set's complete slices, never mixed; a group
# whose set has not been counted yet is nan with seq 0 in ages; the ages
# (status, ages, the snapshot, n3tel) name the interval each value comes
# from; a pause or a CPU going offline in the middle of a rotation, and a
# reconfiguration between two rotations, go on with the set whose turn it
# was; the schedule file switches to every set in every interval and back.
#
# N3's default groups on 6 counters and the cycle counter pack into 7 sets
# (engine-host-test sets neoverse-n3 6 1 default): set 0 topdown_l1, set 1
# frontend core, set 2 backend core and frontend memory, set 3 backend busy
# and rename and ipc, set 4 backend memory, set 5 L1 caches, set 6 L2 and LLC.
# Interval n (from load, n = 1, 2, ...) counts set 0 and set 1 + (n - 1) % 6.
. ./lib.sh
need_testpmu
. ./vectors.sh
CPUS=/sys/devices/system/cpu

# ages_seq DIR GROUP: the interval GROUP's values come from
ages_seq() { awk -v g="$2" '$1 == g { print $3 }' "$1/ages"; }
# all_ages, st, want, group_is: lib.sh

tp_setup 6 schedule=rotate || exit 1
check schedule-file-rotate grep -qx '\[rotate\] all' $N3T/schedule
expect_eq sets 7 "$(wc -l < $N3T/sets)"
# tp_setup ended interval 1 (sets 0 and 1, nothing injected)
expect_eq slices-per-interval 2 "$NSETS"
expect_eq status-sets-per-interval 2 "$(st $N3T/cpu1 sets_per_interval)"
expect_eq after-1-seq 1 "$(st $N3T/cpu1 seq)"
expect_eq after-1-ages " 1 0 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"

# interval 2: sets 0 and 2, VEC_A on cpu1
scripted_interval 1 "$VEC_A"
expect_eq i2-seq 2 "$(st $N3T/cpu1 seq)"
expect_eq i2-ages " 2 1 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"
expect_eq i2-l1-end-is-interval-end "$(st $N3T/cpu1 end_ns)" \
	"$(awk '$1 == "topdown_l1" { print $5 }' $N3T/cpu1/ages)"
group_is i2-topdown_l1 $N3T/cpu1 topdown_l1 "$VEC_A"
# set 3 (ipc) and set 6 (L2, LLC) have not had their turn: nan, seq 0
group_is i2-general-nan $N3T/cpu1 general nan
group_is i2-l2-nan $N3T/cpu1 l2_cache nan
expect_eq i2-age-l1 2 "$(ages_seq $N3T/cpu1 topdown_l1)"
expect_eq i2-age-frontend-oldest-set 1 "$(ages_seq $N3T/cpu1 topdown_frontend)"
expect_eq i2-age-backend-not-yet 0 "$(ages_seq $N3T/cpu1 topdown_backend)"
check i2-age-backend-nan grep -qx 'topdown_backend seq 0 end_ns 0 age_ms nan' $N3T/cpu1/ages
expect_eq i2-frontend_mem_cache_bound "$(want "$VEC_A" frontend_mem_cache_bound)" \
	"$(value $N3T/cpu1/topdown_frontend frontend_mem_cache_bound)"
# set 1 counted nothing in interval 1: its frontend metric stays nan
expect_eq i2-frontend_core_bound-nan nan "$(value $N3T/cpu1/topdown_frontend frontend_core_bound)"

# intervals 3 to 7: sets 3, 4, 5, 6, then 1 again; VEC_A throughout
for i in 3 4 5 6 7; do scripted_interval 1 "$VEC_A"; done
expect_eq i7-seq 7 "$(st $N3T/cpu1 seq)"
check_values i7-cpu1 $N3T/cpu1 "$VEC_A"
check_values i7-system $N3T/system "$VEC_A"
expect_eq i7-group-ages " 7 2 2 3 5 5 6 6" "$(all_ages $N3T/cpu1)"
check i7-age-ms-number grep -q '^general seq 3 end_ns [0-9]* age_ms [0-9][0-9]*$' $N3T/cpu1/ages
# system/: the same turns on every CPU
expect_eq i7-system-ages "$(cut -d' ' -f1-3 $N3T/cpu1/ages)" "$(cut -d' ' -f1-3 $N3T/system/ages)"

# the snapshot and n3tel name the same intervals
n3tel show --cpu 1 > /tmp/sched.snap
n3tel --text show --cpu 1 > /tmp/sched.text
check n3tel-snapshot-equals-text cmp /tmp/sched.snap /tmp/sched.text
check n3tel-show-general-age grep -qx '    (from interval 3, [0-9]*\.[0-9]* s before the latest)' /tmp/sched.snap
check n3tel-show-l1-fresh sh -c "! sed -n '/^  Topdown/{n;p}' /tmp/sched.snap | grep -q 'from interval'"
roff=$(od -A n -t u4 -j 44 -N 4 /dev/n3telemetry | tr -d ' ')
rsize=$(od -A n -t u4 -j 12 -N 4 /dev/n3telemetry | tr -d ' ')
# record 1 (cpu1): group_seq[] after lost_slices_total (offset 2400), by
# group bit: topdown_l1, _frontend, _backend, cycle_accounting (not
# selected), general, mpki .. dtlb (not selected), l1i, l1d, l2, ll
got=$(od -A n -t u8 -v -j $((roff + rsize + 2400)) -N 112 /dev/n3telemetry | xargs)
expect_eq snapshot-group-seq "7 2 2 0 3 0 0 0 0 0 5 5 6 6" "$got"

# interval 8 (sets 0, 2) with VEC_B: those two sets' metrics change, the
# others keep interval 3..7's values: no mixing across sets or intervals
scripted_interval 1 "$VEC_B"
group_is i8-l1-new $N3T/cpu1 topdown_l1 "$VEC_B"
expect_eq i8-backend_core_bound-set2-new "$(want "$VEC_B" backend_core_bound)" \
	"$(value $N3T/cpu1/topdown_backend backend_core_bound)"
expect_eq i8-backend_busy_bound-set3-kept "$(want "$VEC_A" backend_busy_bound)" \
	"$(value $N3T/cpu1/topdown_backend backend_busy_bound)"
group_is i8-general-kept $N3T/cpu1 general "$VEC_A"
group_is i8-l2-kept $N3T/cpu1 l2_cache "$VEC_A"
# sets 0..6 were last counted in intervals 8 7 8 3 4 5 6
expect_eq i8-ages " 8 7 3 3 5 5 6 6" "$(all_ages $N3T/cpu1)"

# a pause in the middle of interval 9 (sets 0, 3): the resume starts that
# turn again; the values start over (nan, seq 0) and seq goes on
inject 1 "$VEC_A"
advance -1
echo 0 > $N3T/enabled
echo 1 > $N3T/enabled
expect_eq resume-nothing-yet " 0 0 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"
scripted_interval 1 "$VEC_A"
expect_eq resume-seq-goes-on 9 "$(st $N3T/cpu1 seq)"
expect_eq resume-turn-again-set3 " 9 0 0 9 0 0 0 0" "$(all_ages $N3T/cpu1)"
group_is resume-general $N3T/cpu1 general "$VEC_A"
group_is resume-l2-nan $N3T/cpu1 l2_cache nan

# cpu1 offline in the middle of interval 10 (sets 0, 4): back online, it
# counts set 4 in its next interval; cpu2 went on without it
inject 1 "$VEC_B"
advance -1
echo 0 > $CPUS/cpu1/online
echo 1 > $CPUS/cpu1/online
scripted_interval 1 "$VEC_B"
expect_eq hotplug-cpu1-seq 10 "$(st $N3T/cpu1 seq)"
# cpu1 started over: set 4 (backend memory) is its only deeper set so far
expect_eq hotplug-cpu1-ages " 10 0 0 0 0 0 0 0" "$(all_ages $N3T/cpu1)"
expect_eq hotplug-cpu2-seq 10 "$(st $N3T/cpu2 seq)"
expect_eq hotplug-cpu2-ages " 10 0 0 9 0 0 0 0" "$(all_ages $N3T/cpu2)"
expect_eq hotplug-cpu1-backend_mem_cache_bound "$(want "$VEC_B" backend_mem_cache_bound)" \
	"$(value $N3T/cpu1/topdown_backend backend_mem_cache_bound)"

# a reconfiguration between two rotations: cpu1 is at set 5's turn
echo 59000 > $N3T/interval_ms
scripted_interval 1 "$VEC_A"
expect_eq reconf-seq-goes-on 11 "$(st $N3T/cpu1 seq)"
expect_eq reconf-set5 " 11 0 0 0 11 11 0 0" "$(all_ages $N3T/cpu1)"
group_is reconf-l1d $N3T/cpu1 l1d_cache "$VEC_A"

# bad input changes nothing
expect_eq schedule-bad "EINVAL" "$(errno_of $N3T/schedule 'every')"
expect_eq schedule-nul "EINVAL" "$(errno_of $N3T/schedule 'all\0x')"
check schedule-still-rotate grep -qx '\[rotate\] all' $N3T/schedule
expect_eq schedule-bad-kept-seq 11 "$(st $N3T/cpu1 seq)"

# every set in every interval, and back
echo all > $N3T/schedule
check schedule-file-all grep -qx 'rotate \[all\]' $N3T/schedule
NSETS=7
scripted_interval 1 "$VEC_B"
expect_eq all-sets-per-interval 7 "$(st $N3T/cpu1 sets_per_interval)"
expect_eq all-ages " 12 12 12 12 12 12 12 12" "$(all_ages $N3T/cpu1)"
check_values all-cpu1 $N3T/cpu1 "$VEC_B"
echo rotate > $N3T/schedule
NSETS=2
scripted_interval 1 "$VEC_A"
expect_eq back-sets-per-interval 2 "$(st $N3T/cpu1 sets_per_interval)"
expect_eq back-set6-turn " 13 0 0 0 0 0 13 13" "$(all_ages $N3T/cpu1)"
tp_teardown

# A rotating slice lost (a counter of its set not created: fail_function
# on n3t_create()) keeps the set's values and age from its latest complete
# slice, as between its turns; its lost slice is counted.  Intervals 2..7
# count every set with VEC_A (set 1 twice); in interval 8 (sets 0, 2) on
# cpu1 set 2's first counter is not created: topdown_l1 takes VEC_B,
# frontend_mem_cache_bound (set 2) keeps VEC_A's value from interval 2.
FF=/sys/kernel/debug/fail_function
tp_setup 6 schedule=rotate || exit 1
# (the module's functions are injectable while it is loaded)
if [ -d $FF ] && grep -q '^n3t_create' $FF/injectable; then
	for i in 2 3 4 5 6 7; do scripted_interval 1 "$VEC_A"; done
	expect_eq lost-before-ages " 7 2 2 3 5 5 6 6" "$(all_ages $N3T/cpu1)"
	lost0=$(st $N3T/cpu1 lost_slices)
	echo n3t_create > $FF/inject
	echo 100 > $FF/probability
	echo 0 > $FF/interval
	echo 1 > $FF/times
	inject 1 "$VEC_B"
	advance 1
	echo > $FF/inject
	inject 1 "$VEC_B"
	advance 1
	expect_eq lost-seq 8 "$(st $N3T/cpu1 seq)"
	expect_eq lost-slice-counted $((lost0 + 1)) "$(st $N3T/cpu1 lost_slices)"
	group_is lost-l1-new $N3T/cpu1 topdown_l1 "$VEC_B"
	expect_eq lost-set2-value-kept "$(want "$VEC_A" frontend_mem_cache_bound)" \
		"$(value $N3T/cpu1/topdown_frontend frontend_mem_cache_bound)"
	expect_eq lost-set2-age-kept " 8 2 2 3 5 5 6 6" "$(all_ages $N3T/cpu1)"
else
	ktap_test_skip "lost-rotating-slice (no fail_function for n3t_create)"
fi
tp_teardown

# the module parameter takes the same words
check param-all sh -c "insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=6 &&
	insmod $N3T_KO force=1 pmu_type=\$(cat /sys/bus/event_source/devices/n3t_testpmu/type) schedule=all &&
	grep -qx 'rotate \[all\]' $N3T/schedule"
rmmod n3telemetry 2> /dev/null
check param-bad-refused sh -c "! insmod $N3T_KO force=1 pmu_type=\$(cat /sys/bus/event_source/devices/n3t_testpmu/type) schedule=every 2> /dev/null"
check param-bad-not-loaded test ! -d $N3T
rmmod n3t_testpmu

# With the default spare counter N3's topdown level 1 (6 programmable
# events and the cycle counter) is split over sets 0 and 1, both counted in
# every interval; every other interval takes them in reverse order, so that
# an interval starts with the set the one before ended with and no switch
# falls on the boundary; a rotating slice goes between them.  With one
# every second interval (test_every=2): [0 R 1], [1 0], [0 R 1], ...  Each
# metric exact, from its own set's slice.
# slice CPU VECTOR: that CPU's next slice, given VECTOR
slice() { inject "$1" "$2"; advance "$1"; }
TP_SPARE= tp_setup 6 schedule=rotate test_every=2 || exit 1
expect_eq split-sets 8 "$(wc -l < $N3T/sets)"
check split-l1-set0 sh -c "sed -n 1p $N3T/sets | grep -q STALL_SLOT_FRONTEND"
check split-l1-set1 sh -c "sed -n 2p $N3T/sets | grep -q OP_RETIRED"
expect_eq split-first-interval-rotates 3 "$NSETS"
# interval 2: no rotating slice, sets 1 then 0
slice 1 "$VEC_A"
slice 1 "$VEC_B"
expect_eq split-i2-two-slices 2 "$(st $N3T/cpu1 sets_per_interval)"
expect_eq split-i2-set1-first "$(want "$VEC_A" retiring)" "$(value $N3T/cpu1/topdown_l1 retiring)"
expect_eq split-i2-set0-second "$(want "$VEC_B" frontend_bound)" \
	"$(value $N3T/cpu1/topdown_l1 frontend_bound)"
# interval 3: set 0, the rotating one (set 3: ipc, INST_RETIRED over
# CPU_CYCLES, which stays on from set 0), set 1.  The switch to set 3
# takes 3 s here (delay_us_switch, before its events are created): what
# the kept CPU_CYCLES counts meanwhile (GAP, injected then: only what is on
# takes it) is not set 3's slice, and ipc is VEC_A's exactly.  (Before,
# CPU_CYCLES took GAP into set 3's slice too: ipc 1.2, not 1.8.)
GAP="CPU_CYCLES=500000000 INST_RETIRED=999"
inject 1 "$VEC_A"
echo 3000000 > $DBG/delay_us_switch
advance 1 &
apid=$!
sleep 1
inject 1 "$GAP"
wait $apid
echo 0 > $DBG/delay_us_switch
slice 1 "$VEC_A"
slice 1 "$VEC_B"
expect_eq split-i3-three-slices 3 "$(st $N3T/cpu1 sets_per_interval)"
expect_eq split-i3-rotating-ipc-not-the-switch "$(want "$VEC_A" ipc)" "$(value $N3T/cpu1/general ipc)"
expect_eq split-i3-set0-first "$(want "$VEC_A" frontend_bound)" \
	"$(value $N3T/cpu1/topdown_l1 frontend_bound)"
expect_eq split-i3-set1-second "$(want "$VEC_B" retiring)" "$(value $N3T/cpu1/topdown_l1 retiring)"
# interval 4: sets 1, 0 again
slice 1 "$VEC_B"
slice 1 "$VEC_A"
expect_eq split-i4-set1-first "$(want "$VEC_B" bad_speculation)" \
	"$(value $N3T/cpu1/topdown_l1 bad_speculation)"
expect_eq split-i4-set0-second "$(want "$VEC_A" backend_bound)" \
	"$(value $N3T/cpu1/topdown_l1 backend_bound)"
expect_eq split-i4-l1-fresh "$(st $N3T/cpu1 seq)" "$(ages_seq $N3T/cpu1 topdown_l1)"
tp_teardown
ktap_finish
