#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Contention: when fewer counters are free than a set needs, that set's
# slices are lost and its metrics read nan; nothing is ever wrong.  When it
# persists the module re-packs for the counters it can get; when they come
# back, a reconfiguration re-probes.  Never a reload.
. ./lib.sh
need_testpmu
. ./vectors.sh

tp_setup 6 || exit 1
echo 5 > $TPDBG/counters
advance_interval 1	# sets re-enabled from now on get at most 5 counters
lost0=$(value $N3T/cpu1/status lost_slices)
scripted_interval 1 "$VEC_A"
lost1=$(value $N3T/cpu1/status lost_slices)
check slices-lost test "$lost1" -gt "$lost0"
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

# Starved for a third interval in a row (the drain above was the first):
# the module re-probes and re-packs, and restarts at set 0.
scripted_interval 1 "$VEC_A"
_t=0
# (the log line comes once collection has restarted)
while ! dmesg | grep -q 're-packed for 5 counters' && [ $_t -lt 100 ]; do
	sleep 0.1
	_t=$((_t + 1))
done
expect_eq repacked-for-5 "programmable 5" "$(head -1 $N3T/counters)"
# the re-pack made the CPU's counters again: its lost slices still count
check lost-kept-across-repack test "$(value $N3T/cpu1/status lost_slices)" -ge "$lost1"
NSETS=$(wc -l < $N3T/sets)
check more-sets test "$NSETS" -gt 7
scripted_interval 1 "$VEC_A"
check_values repacked $N3T/cpu1 "$VEC_A"

# The other user is gone; a reconfiguration re-probes: back to 6, no reload.
echo 6 > $TPDBG/counters
echo default > $N3T/groups
expect_eq reprobed-6 "programmable 6" "$(head -1 $N3T/counters)"
NSETS=$(wc -l < $N3T/sets)
expect_eq sets-back 7 "$NSETS"
scripted_interval 1 "$VEC_A"
check_values recovered $N3T/cpu1 "$VEC_A"
tp_teardown
ktap_finish
