#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The perf hard-lockup detector's counter, on the test PMU (6 counters and
# the cycle counter), stood in for by a pinned cycles event created after
# the module's counters, as the detector creates it when nmi_watchdog is
# switched on:
#  - by default the module's counters are flexible and it holds none back:
#    it fills the PMU, and the stand-in still counts through every set;
#  - pinned=1 reserve=1: the module uses 6 of the 7, the stand-in counts
#    and the module loses no slice;
#  - pinned=1 reserve=0: the module fills the PMU and the stand-in starves
#    (what pinned=1 costs others, as documented).
. ./lib.sh
need_testpmu
ncpu=$(grep -c ^processor /proc/cpuinfo)
counters() { head -3 $N3T/counters | tr '\n' ' ' | sed 's/ $//'; }

tp_setup 6 groups=all || exit 1
expect_eq default-reserves-none "programmable 6 cycle_counter free reserved 0" "$(counters)"
NSETS=$(wc -l < $N3T/sets)
echo tp > $TPDBG/standin
advance_interval -1
advance_interval -1
expect_eq default-standin-counts-everywhere "$ncpu" "$(grep -c running $TPDBG/standin)"
echo off > $TPDBG/standin
tp_teardown

tp_setup 6 pinned=1 reserve=1 || exit 1
expect_eq reserved-1 "programmable 5 cycle_counter free reserved 1" "$(counters)"
echo all > $N3T/groups
NSETS=$(wc -l < $N3T/sets)
echo tp > $TPDBG/standin
advance_interval -1
advance_interval -1
expect_eq pinned-standin-counts-everywhere "$ncpu" "$(grep -c running $TPDBG/standin)"
expect_eq pinned-no-lost-slices 0 "$(value $N3T/system/status lost_slices)"
grep -H 'lost' $N3T/cpu*/status | grep -v ' 0$' | sed 's/^/# /' 
echo off > $TPDBG/standin
tp_teardown

tp_setup 6 pinned=1 reserve=0 || exit 1
expect_eq reserved-0 "programmable 6 cycle_counter free reserved 0" "$(counters)"
echo tp > $TPDBG/standin
advance_interval -1
check pinned-standin-starves-without-reserve grep -q starved $TPDBG/standin
echo off > $TPDBG/standin
tp_teardown
ktap_finish
