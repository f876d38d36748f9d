#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Contention: when fewer counters are free than a set needs, that set's
# slices are lost and its metrics read nan; nothing is ever wrong.  When the
# counters come back, collection recovers without a reload.
. ./lib.sh
. ./vectors.sh

one_interval() {	# one_interval CPU VECTOR
	_s=0
	while [ $_s -lt "$NSETS" ]; do
		inject "$1" "$2"
		advance "$1"
		_s=$((_s + 1))
	done
}

tp_setup 6 || exit 1
echo 5 > $TPDBG/counters
advance_interval 1	# sets re-enabled from now on get at most 5 counters
lost0=$(value $N3T/cpu1/status lost_slices)
one_interval 1 "$VEC_A"
check slices-lost test "$(value $N3T/cpu1/status lost_slices)" -gt "$lost0"
expect_eq set0-lost-nan nan "$(value $N3T/cpu1/topdown_l1 retiring)"
bad=0
nans=0
for g in $DEFAULT_GROUPS; do
	while read -r m got; do
		want=$(echo "$VEC_A" | awk -v m="$m" -f ./expect.awk)
		if [ "$got" = nan ]; then
			nans=$((nans + 1))
		elif [ "$got" != "$want" ]; then
			echo "# $m: $got, want $want or nan"
			bad=$((bad + 1))
		fi
	done < $N3T/cpu1/$g
done
expect_eq never-wrong 0 "$bad"
check some-nan test "$nans" -gt 0
expect_eq ipc-still-counted "1.800" "$(value $N3T/cpu1/general ipc)"

echo 6 > $TPDBG/counters
advance_interval 1
one_interval 1 "$VEC_A"
check_values recovered $N3T/cpu1 "$VEC_A"
tp_teardown
ktap_finish
