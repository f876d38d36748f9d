#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Co-scheduling: counts arriving while a set is not counting never reach a
# metric; with 4 counters the module packs more sets and is still exact.
. ./lib.sh
need_testpmu
. ./vectors.sh
BOGUS="STALL_BACKEND=999999999999 STALL_BACKEND_CPUBOUND=1 INST_RETIRED=1 \
L1I_CACHE_REFILL=777777777 LL_CACHE_MISS_RD=123456789 STALL_FRONTEND=5"

tp_setup 6 || exit 1
# set0 (topdown L1) counts: give it the vector; events of other sets get
# bogus counts that must be ignored.
_s=0
while [ $_s -lt "$NSETS" ]; do
	if [ $_s = 0 ]; then
		inject 1 "$VEC_A"
		inject 1 "$BOGUS"
	else
		inject 1 "$VEC_A"
	fi
	advance 1
	_s=$((_s + 1))
done
check_values c6 $N3T/cpu1 "$VEC_A"
tp_teardown

tp_setup 4 || exit 1
expect_eq c4-counters "programmable 4" "$(head -1 $N3T/counters)"
check sets_grew test "$NSETS" -gt 7
scripted_interval 3 "$VEC_B"
check_values c4 $N3T/cpu3 "$VEC_B"
tp_teardown
ktap_finish
