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
tp_teardown
ktap_finish
