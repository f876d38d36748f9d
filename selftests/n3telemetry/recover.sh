#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Taking the counters back: another user holds all but 2 counters, the
# module re-packs down; while the PMU stays busy it keeps looking (between
# its last set and its first, every fourth interval) without losing a
# slice or re-packing, and a look that finds the counters taken costs perf
# one expiry of its multiplexing timer (two if the look outlasts it), never
# a timer that keeps running; once every
# counter is free it re-packs up on its own, within a bounded number of
# intervals, with no write to groups.  Values exact (or nan) throughout.
. ./lib.sh
need_testpmu
. ./vectors.sh

# never_wrong LABEL: every default metric of cpu1 is VEC_A's value or nan
never_wrong() {
	_bad=0
	for g in $DEFAULT_GROUPS; do
		while read -r m got; do
			want=$(echo "$VEC_A" | awk -v m="$m" -f ./expect.awk)
			[ "$got" = nan ] || [ "$got" = "$want" ] ||
				{ echo "# $1 $m: $got, want $want or nan"; _bad=$((_bad + 1)); }
		done < $N3T/cpu1/$g
	done
	expect_eq "$1-never-wrong" 0 "$_bad"
}
cnt() { value $N3T/counters "$1"; }
# wait_counters N: until the re-pack work has packed for N counters
wait_counters() {
	_t=0
	while [ "$(cnt programmable)" != "$1" ] && [ $_t -lt 50 ]; do sleep 0.1; _t=$((_t + 1)); done
	[ "$(cnt programmable)" = "$1" ]
}

tp_setup 6 || exit 1
scripted_interval 1 "$VEC_A"
check_values before $N3T/cpu1 "$VEC_A"
expect_eq load-programmable 6 "$(cnt load_programmable)"

# another user takes 4 counters: starved sets, re-pack down to 2
echo 2 > $TPDBG/counters
i=0
while [ $i -lt 4 ] && ! wait_counters 2; do advance_interval -1; i=$((i + 1)); done
check repacked-down-to-2 wait_counters 2
sleep 0.5
expect_eq repacks-down 1 "$(cnt repacks_down)"
check no-second-repack sh -c "! dmesg | grep -q 'although 2 are free'"
NSETS=$(wc -l < $N3T/sets)
echo "# at 2 counters: $NSETS sets"

# the PMU stays busy: looks every fourth interval, no re-pack, no lost
# slice; perf's multiplexing timer traced on CPU 1
tracing=
trace_on timer/hrtimer_expire_entry && tracing=1
lost0=$(value $N3T/system/status lost_slices)
looks0=$(awk '$1 == "cpu1" { print $9 }' $DBG/cost)
i=0
while [ $i -lt 8 ]; do scripted_interval 1 "$VEC_A"; i=$((i + 1)); done
if [ -n "$tracing" ]; then
	mux=$(grep '\[001\].*function=perf_mux_hrtimer_handler' $TRACEFS/trace | grep -c .)
	trace_off timer/hrtimer_expire_entry
fi
looks1=$(awk '$1 == "cpu1" { print $9 }' $DBG/cost)
expect_eq looked-every-fourth-interval 2 $((looks1 - looks0))
if [ -n "$tracing" ]; then
	# once a look that found the counters taken; twice when the look
	# itself outlasts the timer's 4 ms (an emulated debug kernel)
	echo "# perf's multiplexing timer expired $mux times on cpu1 in 8 intervals, 2 looks"
	check mux-timer-at-most-twice-a-look test "$mux" -le 4
else
	ktap_test_skip "mux-timer-at-most-twice-a-look (no timer tracepoints)"
fi

# every counter free again: full capacity within 5 intervals, on its own
echo 6 > $TPDBG/counters
n=0
while [ $n -lt 5 ] && [ "$(cnt programmable)" != 6 ]; do
	advance_interval -1
	n=$((n + 1))
	wait_counters 6 > /dev/null 2>&1
done
echo "# full capacity again after $n intervals"
check back-to-6-within-5-intervals wait_counters 6
expect_eq repacks-up 1 "$(cnt repacks_up)"
expect_eq groups-unchanged "$(echo $DEFAULT_GROUPS)" "$(cat $N3T/groups)"
NSETS=$(wc -l < $N3T/sets)
expect_eq sets-back 7 "$NSETS"
# to the start of an interval (the loop above ran on the old plan's count)
s0=$(value $N3T/cpu1/status seq)
while [ "$(value $N3T/cpu1/status seq)" = "$s0" ]; do advance -1; done
scripted_interval 1 "$VEC_A"
check_values after $N3T/cpu1 "$VEC_A"
tp_teardown
ktap_finish
