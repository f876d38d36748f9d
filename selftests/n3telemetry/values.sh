#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Scripted counts through the real perf core on the test PMU: exact values
# for every default-selection metric on two CPUs at once, and in system/.
. ./lib.sh
need_testpmu
. ./vectors.sh
tp_setup 6 || exit 1
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
check_values cpu1 $N3T/cpu1 "$VEC_A"
check_values cpu2 $N3T/cpu2 "$VEC_B"
check_values system $N3T/system "$(vec_sum "$VEC_A" "$VEC_B")"
expect_eq cpu1-seq "2" "$(value $N3T/cpu1/status seq)"
expect_eq cpu1-lost "0" "$(value $N3T/cpu1/status lost_slices)"
# cumulative counts: CPU_CYCLES is in two sets, so it counted twice
expect_eq cpu1-events-cycles "$(( 1000000000 * $(grep -c CPU_CYCLES $N3T/sets) ))" \
	"$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/cpu1/events)"
cp $N3T/cpu1/topdown_l1 /tmp/values-cpu1-topdown_l1

# A hidden event (implemented and accepted, never counting: a hypervisor's
# filter): INST_RETIRED counts nothing on CPU 1 while its cycles advance.
# Every metric of INST_RETIRED (its value moves with INST_RETIRED's count)
# is nan there and in system/ (the sum would be CPU 2's alone), status
# names it, the other metrics are exact; CPU 2 is untouched.  Once it
# counts again the values are back.  A slice of fewer than 10 million
# cycles judges nothing: its 0 is a true 0.
HID=$(echo "$VEC_A" | sed 's/INST_RETIRED=[0-9]*/INST_RETIRED=0/')
HALF=$(echo "$VEC_A" | sed 's/INST_RETIRED=[0-9]*/INST_RETIRED=900000000/')
scripted_interval 1 "$HID" 2 "$VEC_B"
expect_eq hidden-cpu1-status INST_RETIRED "$(st $N3T/cpu1 hidden_events)"
expect_eq hidden-cpu2-status none "$(st $N3T/cpu2 hidden_events)"
expect_eq hidden-system-status INST_RETIRED "$(st $N3T/system hidden_events)"
bad=0 uses=0
slurp expect_awk ./expect.awk
for g in $DEFAULT_GROUPS; do
	# one awk a group: nan where the value moves with INST_RETIRED, else
	# the value over the counts of the interval
	awk -v a="$VEC_A" -v h="$HALF" -v d="$HID" -v g="$g" "$expect_awk"'
	{
		got = rest()
		setvec(a)
		w = expect($1)
		setvec(h)
		if (w != expect($1)) {
			w = "nan"
			uses++
		} else {
			setvec(d)
			w = expect($1)
		}
		if (got != w) {
			print "# hidden: cpu1 " g "/" $1 " " got ", want " w
			bad++
		}
	}
	END { print "n3t-count", bad + 0, uses + 0 }' $N3T/cpu1/$g > /tmp/values-hidden
	while read -r _a _b _c; do
		if [ "$_a" = n3t-count ]; then
			bad=$((bad + _b))
			uses=$((uses + _c))
		else
			echo "$_a $_b $_c"
		fi
	done < /tmp/values-hidden
done
expect_eq hidden-cpu1-its-metrics-nan-others-exact 0 "$bad"
echo "# $uses metrics of the default groups use INST_RETIRED"
check hidden-metrics-use-it test "$uses" -ge 5
check_values hidden-cpu2 $N3T/cpu2 "$VEC_B"
expect_eq hidden-system-ipc nan "$(value $N3T/system/general ipc)"
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
expect_eq hidden-counts-again none "$(st $N3T/cpu1 hidden_events)"
check_values hidden-counts-again $N3T/cpu1 "$VEC_A"
check_values hidden-counts-again-system $N3T/system "$(vec_sum "$VEC_A" "$VEC_B")" general
FEW="CPU_CYCLES=9999999 INST_RETIRED=0"
scripted_interval 1 "$FEW"
expect_eq hidden-few-cycles-judge-nothing none "$(st $N3T/cpu1 hidden_events)"
expect_eq hidden-few-cycles-true-zero "$(want "$FEW" ipc)" "$(value $N3T/cpu1/general ipc)"
# only cycles: an idle CPU's slice still holds the sampler's instructions,
# so INST_RETIRED (and OP_RETIRED and OP_SPEC) counting nothing beside 10^9
# cycles is hidden there too; a slice of few cycles then leaves it so
CYC_ONLY="CPU_CYCLES=1000000000"
scripted_interval 1 "$CYC_ONLY"
expect_eq hidden-cycles-alone INST_RETIRED,OP_RETIRED,OP_SPEC "$(st $N3T/cpu1 hidden_events)"
scripted_interval 1 "$FEW"
expect_eq hidden-few-cycles-keep-it INST_RETIRED,OP_RETIRED,OP_SPEC "$(st $N3T/cpu1 hidden_events)"
expect_eq hidden-few-cycles-kept-nan nan "$(value $N3T/cpu1/general ipc)"

# system/ sums an event over the CPUs: past 2^64 in one interval it would
# wrap (here 2^63 + 5 and 2^63 refills: 5), so the set's values are nan,
# never the wrapped ratio; the other sets' sums stay exact
BIG1=$(echo "$VEC_A" | sed 's/L1D_CACHE_REFILL=[0-9]*/L1D_CACHE_REFILL=9223372036854775813/')
BIG2=$(echo "$VEC_B" | sed 's/L1D_CACHE_REFILL=[0-9]*/L1D_CACHE_REFILL=9223372036854775808/')
scripted_interval 1 "$BIG1" 2 "$BIG2"
expect_eq system-wrap-l1d-miss-ratio nan "$(value $N3T/system/l1d_cache l1d_cache_miss_ratio)"
expect_eq system-wrap-l1d-mpki nan "$(value $N3T/system/l1d_cache l1d_cache_mpki)"
# one CPU's 2^63 + 5 refills are in the engine's range: an exact value,
# 9223372036854775813 / 700000000 = 13176245766.93539... (busybox awk's
# int() stops at 2^31, so expect.awk cannot round it here)
expect_eq cpu1-huge-count-exact 13176245766.9354 "$(value $N3T/cpu1/l1d_cache l1d_cache_miss_ratio)"
check_values system-no-wrap-elsewhere $N3T/system "$(vec_sum "$VEC_A" "$VEC_B")" topdown_l1 general l2_cache

# system/events sums in 128 bits: the refills' sum over the CPUs is now
# past 2^64 (each of CPUs 1 and 2 counted 2^63 + something in every set
# that has the event), printed exactly, never wrapped.  dec_sum N...: the
# exact decimal sum (busybox awk's numbers are doubles: digit by digit)
dec_sum() {
	echo "$@" | awk '
	function add(a, b,   r, c, i, j, d) {
		r = ""; c = 0; i = length(a); j = length(b)
		while (i > 0 || j > 0 || c) {
			d = c + (i > 0 ? substr(a, i, 1) : 0) + (j > 0 ? substr(b, j, 1) : 0)
			r = (d % 10) r; c = int(d / 10); i--; j--
		}
		return r
	}
	{ s = "0"; for (k = 1; k <= NF; k++) s = add(s, $k); print s }'
}
# ev_col DIR EVENT COLUMN: the count (2) or ns (3) of EVENT in DIR/events
ev_col() { awk -v e="$2" -v c="$3" '$1 == e { print $c }' "$1/events"; }
for col in 2 3; do
	want=$(dec_sum $(for d in $N3T/cpu[0-9]*; do ev_col $d L1D_CACHE_REFILL $col; done))
	expect_eq system-events-128-bit-col$col "$want" "$(ev_col $N3T/system L1D_CACHE_REFILL $col)"
done
want=$(dec_sum $(for d in $N3T/cpu[0-9]*; do ev_col $d L1D_CACHE_REFILL 2; done))
# it is past 2^64 - 1: the test tests the carry (compared as digit strings)
check system-events-past-2-64 awk -v w="$want" -v m=18446744073709551615 \
	'BEGIN { exit !(length(w) > length(m) || (length(w) == length(m) && "" w > "" m)) }'
echo "# system L1D_CACHE_REFILL $want"

# system/status seq never goes down: it is the highest any CPU published,
# offline ones included.  CPU 3 alone ends two more intervals, so it has
# the highest; it goes offline, then collection pauses: seq stays.
advance_interval 3
advance_interval 3
hi=$(st $N3T/cpu3 seq)
check cpu3-ahead test "$hi" -gt "$(st $N3T/cpu2 seq)"
expect_eq system-seq-is-cpu3s "$hi" "$(st $N3T/system seq)"
check cpu3-offline sh -c "echo 0 > /sys/devices/system/cpu/cpu3/online"
expect_eq system-seq-stays-cpu3-offline "$hi" "$(st $N3T/system seq)"
echo 0 > $N3T/enabled
expect_eq system-seq-stays-paused "$hi" "$(st $N3T/system seq)"
echo 1 > $N3T/enabled
check cpu3-online sh -c "echo 1 > /sys/devices/system/cpu/cpu3/online"
expect_eq system-seq-stays-cpu3-back "$hi" "$(st $N3T/system seq)"
# CPU 3 numbers on from its last interval: one more makes it the highest
advance_interval 3
expect_eq cpu3-numbers-on "$((hi + 1))" "$(st $N3T/cpu3 seq)"
expect_eq system-seq-follows "$((hi + 1))" "$(st $N3T/system seq)"
tp_teardown
ktap_finish
