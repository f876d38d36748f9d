#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every table's plans, running, on PMUs as small as clouds rent: each table
# (force=<table>) on the test PMU with 0..5 programmable counters, the
# cycle counter free and taken.  Loaded with the default groups, the
# sampler runs (interval_ms=10) until every CPU has published two more
# intervals.  On 1 and 2 counters, where plans differ most from a whole
# PMU's, also all groups; on 1 without the cycle counter (each rate per
# second) and 2 with it, a pause and resume through the enabled file and
# one under a pause lease too; on 3, all groups.  (The selection that once
# wedged the sampler, a first group none of whose metrics fits, such as
# topdown_l1 on one counter, is now composed and counted.)  spare 1 and 2 on one table per size,
# each table in turn (what spare does is the probe's, the same for every
# table).  Each case is a working plan or the refusal the oracle
# (fits/<table>.txt, from Arm's spec) gives, never a splat (results.py
# reads the console).  Then exact values on 1 counter and the cycle
# counter, 2 and the cycle counter, and 3 without it (composed.sh does
# topdown_l1's other small shapes): every metric of every group of cpu1,
# after one scripted interval, is the value computed on the host from
# Arm's formulas (cores/<table>.expect): exact when its events fit the
# counters (cores/<table>.events), else, its formula a ratio of like counts
# (cores/<table>.scales), marked composed, the same value (every slice the
# same rates, over 1, 2 or 4 times the counts: composing scales them); in a
# plan of N3T_MAX_SETS (64) sets, nan where it has no room left (the
# packer's list).
# N3T_PLANS_TRACE=1 (on the VM's kernel command line) traces each step.
. ./lib.sh
F=./fits
C=./cores
[ -d $F ] && [ -d $C ] || skip_all "no fits/ or cores/ (made by selftests/vm/check.sh from Arm's spec)"
need_testpmu
command -v n3tel > /dev/null || PATH=$PATH:$N3T_HERE
command -v n3tel > /dev/null || skip_all "n3tel not built"
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
NCPU=$(grep -c ^processor /proc/cpuinfo)
TABLES=$(cd $F && ls | sed 's/\.txt$//')

# oracle TABLE C CYC SELECTION: ok, nospc or busy (fits.py)
oracle() {
	awk -v c="$2" -v y="$3" -v s="$4" '$1 == c && $2 == y && $3 == s { print $4 }' "$F/$1.txt"
}

# trace WHAT: with N3T_PLANS_TRACE set, WHAT and the uptime
trace() { [ -z "$N3T_PLANS_TRACE" ] || echo "# $(cut -d' ' -f1 /proc/uptime) $*"; }

# seqs VAR: VAR set to "SEQ:STATE" of every CPU, in the order of cpu*/
# (read in the shell: a process costs tens of milliseconds on the debug
# kernel, and running polls many times per case)
seqs() {
	_ss=
	for _f in $N3T/cpu*/status; do
		_sq=
		_st=
		while read -r _k _v _; do
			case $_k in
			seq) _sq=$_v ;;
			state) _st=$_v ;;
			esac
		done < "$_f"
		_ss="$_ss $_sq:$_st"
	done
	eval "$1=\$_ss"
}

# running: every CPU collects and publishes 2 intervals more, 5 s at most
running() {
	seqs _s0
	_t=0
	while [ $_t -lt 25 ]; do
		sleep 0.2
		seqs _s1
		_ok=1
		# shellcheck disable=SC2086
		set -- $_s1
		for _a in $_s0; do
			_b=${1:-none:none}
			[ $# -gt 0 ] && shift
			_sa=${_a%%:*}
			_sb=${_b%%:*}
			if [ "${_b#*:}" != collecting ] || [ -z "$_sb" ] ||
			   [ "$_sb" -lt $((${_sa:-0} + 2)) ]; then
				_ok=0
				break
			fi
		done
		[ $_ok = 1 ] && break
		_t=$((_t + 1))
	done
	if [ $_t = 25 ]; then
		echo "# from, to:$_s0 ->$_s1"
		return 1
	fi
}

# steps TABLE C CYC WHAT: loaded at C counters, the default running: all
# groups, a pause and resume, one under a lease; returns the failures
steps() {
	_bad=0
	if echo all > $N3T/groups && running; then :; else
		echo "# $4: all not running"
		_bad=$((_bad + 1))
	fi
	trace all-ran
	if echo 0 > $N3T/enabled && echo 1 > $N3T/enabled && running; then :; else
		echo "# $4: not running after enabled 0, 1"
		_bad=$((_bad + 1))
	fi
	trace enabled-ran
	if n3tel pause --cpu 1 -- sh -c "echo 0 > $N3T/enabled && echo 1 > $N3T/enabled" &&
		running; then :; else
		echo "# $4: not running after a resume under a lease"
		_bad=$((_bad + 1))
	fi
	return $_bad
}

# try TABLE C CYC SPARE [full|all]: one case: loaded or refused as the
# oracle says; loaded, the default groups running, then all the steps or
# all groups
try() {
	cases=$((cases + 1))
	_eff=$2
	[ "$2" -gt "$4" ] && _eff=$(($2 - $4))
	_want=$(oracle "$1" $_eff "$3" default)
	_what="$1 c=$2 cyc=$3 spare=$4"
	trace "$_what"
	_ld=
	read -r _ld < "$C/$1.load"
	# shellcheck disable=SC2086
	if ! n3t_load force="$1" pmu_type="$tp" interval_ms=10 spare="$4" $_ld 2> /tmp/ierr; then
		_got=$(load_refusal)
		[ "$_got" = "$_want" ] || { echo "# $_what: load $_got, want $_want"; bad=$((bad + 1)); }
		return
	fi
	loaded=$((loaded + 1))
	[ ok = "$_want" ] || { echo "# $_what: loaded, want $_want"; bad=$((bad + 1)); }
	_cl=
	read -r _cl < $N3T/counters
	[ "$_cl" = "programmable $_eff" ] || { echo "# $_what: $_cl"; bad=$((bad + 1)); }
	running || { echo "# $_what: default not running"; bad=$((bad + 1)); }
	grep -qs ' composed$' $N3T/cpu1/topdown_l1 && composed=$((composed + 1))
	trace default-ran
	case $5 in
	full)
		steps "$1" $_eff "$3" "$_what"
		bad=$((bad + $?)) ;;
	all)
		if echo all > $N3T/groups && running; then :; else
			echo "# $_what: all not running"
			bad=$((bad + 1))
		fi ;;
	esac
	cat $N3T/cpu*/* $N3T/system/* /dev/n3telemetry > /dev/null
	n3t_unload
	trace unloaded
}

# Every table with spare=0 on 0 counters (refused) and on 1..5, but for
# the whole PMUs the other tests load every table on: on 1 and 2 counters,
# where the plans differ most from a whole PMU's, all groups, the cycle
# counter free and busy, and the other steps on 1/0 and 2/1; on 3 all
# groups too, free and busy; on 4 and 5
# the default, the cycle counter busy, then free.  What spare does
# (counters left only where there are more, then the plan of that many
# fewer) does not depend on the table: spare 1 and 2 on one table per
# size, each table in turn.
bad=0
cases=0
loaded=0
composed=0
for cc in "0 1" "1 1" "1 0" "2 1" "2 0" "3 1" "3 0" "4 0" "5 1"; do
	c=${cc% *}
	cyc=${cc#* }
	insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=$c cycle_counter=$cyc || exit 1
	tp=$(cat $TPI)
	echo "# $c counters, cycle counter $cyc, $(date +%T)"
	case $cc in
	"1 0"|"2 1") what=full ;;
	"1 1"|"2 0"|3*) what=all ;;
	*) what= ;;
	esac
	for m in $TABLES; do
		try "$m" $c $cyc 0 $what
	done
	m=$(echo $TABLES | awk -v i=$(((2 * c + cyc) % $(echo $TABLES | wc -w) + 1)) '{ print $i }')
	case $cc in
	"1 1"|"2 1"|"3 1"|"4 0"|"5 1") try "$m" $c $cyc 1; try "$m" $c $cyc 2 ;;
	esac
	rmmod n3t_testpmu
done
echo "# $cases cases, $loaded loaded, $composed with topdown_l1 composed"
# 9 PMU shapes times every table, and 5 x spare 1 and 2 on one table
expect_eq plans-cases $((9 * $(echo $TABLES | wc -w) + 10)) "$cases"
# (topdown_l1 on one counter: the selection that once wedged the sampler)
check plans-some-composed test "$composed" -gt 0
expect_eq plans-run-or-refuse-as-oracle 0 "$bad"

# exact_values TABLE C CYC: one scripted interval of every set, all groups,
# at C counters (spare=0); every metric of cpu1 as computed on the host,
# or nan when its events do not fit
exact_values() {
	insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters="$2" cycle_counter="$3" || return 1
	# shellcheck disable=SC2046
	if ! n3t_load force="$1" pmu_type="$(cat $TPI)" interval_ms=60000 schedule=all \
		yield_pct=0 spare=0 groups=all $(cat "$C/$1.load") 2> /tmp/ierr; then
		rmmod n3t_testpmu
		[ "$(oracle "$1" "$2" "$3" all)" = "$(load_refusal)" ]
		return
	fi
	echo 1 > $DBG/manual
	nlines NSETS $N3T/sets
	# to the end of cpu1's first interval, then an interval of every set
	# on cpu1 alone
	first_interval_end 1
	# each slice the same rates over 1, 2 or 4 times the counts in turn
	# (cores/<table>.vec times k): an exact metric's set scales whole, a
	# composed one's rates are scaled to the largest base; either way the
	# value is the one of .vec
	scaled "$C/$1.vec"
	_s=0
	while [ $_s -lt "$NSETS" ]; do
		case $((_s % 3)) in
		0) inject 1 "$_v1" ;;
		1) inject 1 "$_v2" ;;
		*) inject 1 "$_v4" ;;
		esac
		advance 1
		_s=$((_s + 1))
	done
	# group metric value [composed]: exact where the metric fits, composed
	# (the same value) where its formula scales
	awk -v c="$2" -v y="$3" 'FILENAME ~ /scales$/ { sc[$1] = 1; next } FILENAME ~ /events$/ {
		n = NF - 1
		for (i = 2; i <= NF; i++) if (y && $i == "CPU_CYCLES") n--
		fits[$1] = n <= c
		next
	} { print $1, $2, fits[$2] ? $3 : sc[$2] ? $3 " composed" : "nan" }' \
		$C/$1.scales $C/$1.events $C/$1.expect > /tmp/want
	# each group's file of cpu1, its lines prefixed with the group (one awk)
	awk -v d=$N3T/cpu1 '$1 != last { order[++n] = $1; last = $1 }
	END {
		for (i = 1; i <= n; i++) {
			f = d "/" order[i]
			while ((getline line < f) > 0)
				print order[i], line
			close(f)
		}
	}' /tmp/want > /tmp/got
	# a plan of N3T_MAX_SETS sets has no room left for some metrics: which,
	# and which it composes, is the packer's choice (its list, made on the
	# host by selftests/vm/full-plans.sh); the values are still Arm's
	if [ "$NSETS" = 64 ]; then
		awk 'FILENAME ~ /plan-/ { how[$2] = $1; next }
		     { v = $3 }
		     how[$2] == "unschedulable" { print $1, $2, "nan"; next }
		     how[$2] == "composed" { print $1, $2, v, "composed"; next }
		     { print $1, $2, v }' "$C/$1.plan-$2-$3" /tmp/want > /tmp/want2
		mv /tmp/want2 /tmp/want
	fi
	awk '$3 != "nan" && NF == 3 { n++ } / composed$/ { k++ } END { print n + 0, k + 0 }' \
		/tmp/want > /tmp/plans-nk
	_n= _k=
	read -r _n _k < /tmp/plans-nk
	echo "# $1 $2/$3: $NSETS sets, $_n metrics exact, $_k composed, the rest nan"
	n3t_unload
	rmmod n3t_testpmu
	cmp -s /tmp/want /tmp/got || { diff /tmp/want /tmp/got | head -5; return 1; }
	[ "$_n" -gt 0 ] || [ "$_k" -gt 0 ]
}

for m in $TABLES; do
	for cc in "1 1" "2 1" "3 0"; do
		# shellcheck disable=SC2086
		check "exact-$m-$(echo $cc | tr ' ' /)" exact_values "$m" $cc
	done
done
ktap_finish
