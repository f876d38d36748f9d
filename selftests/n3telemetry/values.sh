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
tp_teardown
ktap_finish
