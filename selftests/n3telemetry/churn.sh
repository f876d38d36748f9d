#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Another user's demand changing at every set switch: a value is exact or
# nan, always, in the default mode and with pinned=1.
#  - the case found by hand: groups=all on 6 counters, sets 0 and 1 share
#    STALL_FRONTEND_FLUSH; one counter taken during set 0's slice; set 1's
#    frontend_core_flush_bound must be its exact value or nan (a counter
#    kept across the switch that lost its hardware counter there gave 0.00);
#  - a search, with the default groups: before every slice the other user
#    takes some counters (leaves 1..5 free) one time in four, none
#    otherwise, for many slices; the CPU steps aside at each slice spoiled
#    and comes back when a look finds its first set fits; after every
#    interval each value of cpu1 must be the one computed on the host from
#    Arm's formulas (cores/neoverse-n3.*) or nan, and some must be defined.
. ./lib.sh
C=./cores
[ -r $C/neoverse-n3.expect ] ||
	skip_all "no expectations (made by selftests/host/core_expect.py from Arm's spec)"
need_testpmu
VEC=$(cat $C/neoverse-n3.vec)
SLICES=${N3T_CHURN_SLICES:-300}

# exact_or_nan LABEL: every value of cpu1's group files is the expected one
# or nan; prints how many values were defined
# (one awk for every group file: a process costs tens of milliseconds on the
# debug kernel)
exact_or_nan() {
	_files=
	read -r _gs < $N3T/groups
	for _g in $_gs; do _files="$_files $N3T/cpu1/$_g"; done
	# shellcheck disable=SC2086
	awk -v l="$1" '
		NR == FNR { want[$1 "/" $2] = $3; next }
		FNR == 1 { n = split(FILENAME, p, "/"); g = p[n] }
		$2 == "nan" { next }
		$2 == want[g "/" $1] { def++; next }
		{ print "# " l ": " g "/" $1 " is " $2 ", want " want[g "/" $1] " or nan"; bad++ }
		END { print "n3t-count", def + 0, bad + 0 }' $C/neoverse-n3.expect $_files > /tmp/churn
	while read -r _a _b _c; do
		if [ "$_a" = n3t-count ]; then
			CHURN_DEF=$((CHURN_DEF + _b))
			CHURN_BAD=$((CHURN_BAD + _c))
		else
			echo "$_a $_b $_c"
		fi
	done < /tmp/churn
}

for mode in default pinned; do
	p=
	[ $mode = pinned ] && p=pinned=1
	CHURN_BAD=0
	CHURN_DEF=0
	# shellcheck disable=SC2086
	tp_setup 6 groups=all $p || { check $mode-load false; continue; }
	# the shared event of sets 0 and 1, and a counter taken during set 0
	expect_eq $mode-sets-0-1-share-flush 2 "$(sed -n 1,2p $N3T/sets | grep -c STALL_FRONTEND_FLUSH)"
	inject 1 "$VEC"
	echo 5 > $TPDBG/counters
	advance 1
	inject 1 "$VEC"
	advance 1
	echo 6 > $TPDBG/counters
	scripted_slices 2 1 "$VEC"
	v=$(value $N3T/cpu1/topdown_frontend frontend_core_flush_bound)
	w=$(awk '$2 == "frontend_core_flush_bound" { print $3 }' $C/neoverse-n3.expect)
	echo "# $mode: frontend_core_flush_bound after the switch: $v (exact $w)"
	check $mode-flush-bound-exact-or-nan test "$v" = nan -o "$v" = "$w"

	# the search: free counters drawn before every slice
	check $mode-default-groups sh -c "echo default > $N3T/groups"
	NSETS=$(wc -l < $N3T/sets)
	i=0
	while [ $i -lt "$SLICES" ]; do
		if [ $((RANDOM % 4)) = 0 ]; then
			echo $((RANDOM % 5 + 1)) > $TPDBG/counters
		else
			echo 6 > $TPDBG/counters
		fi
		inject 1 "$VEC"
		advance 1
		i=$((i + 1))
		[ $((i % NSETS)) = 0 ] && exact_or_nan "$mode-slice-$i"
	done
	echo "# $mode: $SLICES slices, $CHURN_DEF values defined, $CHURN_BAD wrong," \
		"$(awk '$1 == "cpu1" { for (i = 2; i < NF; i += 2) if ($i == "asides") print $(i + 1) }' $DBG/cost) steps aside"
	expect_eq $mode-random-capacity-never-wrong 0 "$CHURN_BAD"
	check $mode-random-capacity-some-values test "$CHURN_DEF" -gt 0
	tp_teardown
done
ktap_finish
