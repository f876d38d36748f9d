#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The perf hard-lockup detector's counter, on the test PMU (6 counters and
# the cycle counter): with reserve=1 the module uses 6 of the 7 and a
# pinned cycles event created afterwards, as the detector creates when
# nmi_watchdog is switched on, keeps counting through every set; with
# reserve=0 the module fills the PMU and that event starves.
. ./lib.sh
need_testpmu
ncpu=$(grep -c ^processor /proc/cpuinfo)
tp_setup 6 reserve=1 || exit 1
expect_eq reserved-1 "programmable 5 cycle_counter free reserved 1" "$(head -3 $N3T/counters | tr '\n' ' ' | sed 's/ $//')"
echo all > $N3T/groups
NSETS=$(wc -l < $N3T/sets)
echo tp > $TPDBG/standin
advance_interval -1
advance_interval -1
expect_eq standin-counts-everywhere "$ncpu" "$(grep -c running $TPDBG/standin)"
expect_eq no-lost-slices 0 "$(value $N3T/system/status lost_slices)"
echo off > $TPDBG/standin
tp_teardown

tp_setup 6 reserve=0 || exit 1
expect_eq reserved-0 "programmable 6 cycle_counter free reserved 0" "$(head -3 $N3T/counters | tr '\n' ' ' | sed 's/ $//')"
echo tp > $TPDBG/standin
advance_interval -1
check standin-starves-without-reserve grep -q starved $TPDBG/standin
echo off > $TPDBG/standin
tp_teardown
ktap_finish
