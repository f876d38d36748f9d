#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every table's plans, running, on PMUs as small as clouds rent: each table
# on the test PMU with 0..5 programmable counters, the cycle counter free
# and taken, 4 tables a load, one a CPU (test_models=; a table the oracle
# refuses alone, force=<table>).  Loaded with the default groups, the
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
# four tables a load, one a CPU (test_models=): four CPUs, four core types
[ "$NCPU" -eq 4 ] || skip_all "needs 4 CPUs"
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

# steps TABLES - - WHAT [LEASES]: loaded, the default running: all groups,
# a pause and resume, one under a lease of each CPU list of LEASES in turn
# (1 by default); WHAT names the case in messages; returns the failures
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
	for _lc in ${5:-1}; do
		if n3tel pause --cpu "$_lc" -- sh -c "echo 0 > $N3T/enabled && echo 1 > $N3T/enabled" &&
			running; then :; else
			echo "# $4: not running after a resume under a lease of cpus $_lc"
			_bad=$((_bad + 1))
		fi
	done
	return $_bad
}

# fours TABLE...: the tables in loads of up to 4, a load's tables
# space-separated, the loads comma-separated
fours() {
	_fl=
	while [ $# -gt 0 ]; do
		_g=$1
		shift
		for _k in 2 3 4; do
			[ $# -gt 0 ] || break
			_g="$_g $1"
			shift
		done
		_fl="$_fl,$_g"
	done
	echo "${_fl#,}"
}

# finish WHAT HOW TABLES [LEASES]: the default ran; then all the steps
# (HOW full; LEASES the CPU lists leased in turn, 1 by default) or all
# groups (HOW all); every file read once; unloaded
finish() {
	case $2 in
	full)
		steps "$3" - - "$1" "$4"
		bad=$((bad + $?)) ;;
	all)
		if echo all > $N3T/groups && running; then :; else
			echo "# $1: all not running"
			bad=$((bad + 1))
		fi ;;
	esac
	cat $N3T/cpu*/* $N3T/system/* /dev/n3telemetry > /dev/null
	n3t_unload
	trace unloaded
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
	finish "$_what" "$5" "$1"
}

# try_tables C CYC WHAT TABLE...: one case a table, up to 4 tables in one
# load, one a CPU (test_models=: CPU i gets the i-th, the first again
# where there are fewer), each the oracle's ok: loaded, its counters the
# capacity, the default running, then all the steps or all groups, as
# try.  (A load costs seconds on the debug kernel; every table's plan is
# its own core type's, packed and run as when it is alone.)
try_tables() {
	_c=$1 _y=$2 _how=$3
	shift 3
	cases=$((cases + $#))
	_tm=$(cpu_tables "$@")
	# the tables' load options, all of them: generic's slots=8, which
	# only the formulas use (the plans and their running do not), so it
	# changes nothing checked here (the exact values load it alone)
	_ld=
	for _t; do
		_l=
		read -r _l < "$C/$_t.load"
		_ld="$_ld $_l"
	done
	_what="$* c=$_c cyc=$_y spare=0"
	trace "$_what"
	# shellcheck disable=SC2086
	if ! n3t_load force=1 test_models="$_tm" pmu_type="$tp" interval_ms=10 spare=0 $_ld 2> /tmp/ierr; then
		echo "# $_what: load $(load_refusal), want ok"
		bad=$((bad + 1))
		return
	fi
	loaded=$((loaded + $#))
	for _t; do
		_cl=
		read -r _cl < $N3T/models/$_t/counters
		[ "$_cl" = "programmable $_c" ] || { echo "# $_t c=$_c cyc=$_y: $_cl"; bad=$((bad + 1)); }
	done
	running || { echo "# $_what: default not running"; bad=$((bad + 1)); }
	_i=0
	for _t; do
		grep -qs ' composed$' $N3T/cpu$_i/topdown_l1 && composed=$((composed + 1))
		_i=$((_i + 1))
	done
	trace default-ran
	# each table's CPU under a lease once, beside CPUs that are not
	finish "$_what" "$_how" "$*" "0,1 2,3"
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
	# alone where the oracle refuses the default (or all groups, with
	# steps to take), 4 tables a load where it does not
	okt=
	for m in $TABLES; do
		if [ "$(oracle "$m" $c $cyc default)" = ok ] &&
		   { [ -z "$what" ] || [ "$(oracle "$m" $c $cyc all)" = ok ]; }; then
			okt="$okt $m"
		else
			try "$m" $c $cyc 0 $what
		fi
	done
	# shellcheck disable=SC2086
	loads=$(fours $okt)
	_oifs=$IFS
	IFS=,
	for g in $loads; do
		IFS=$_oifs
		# shellcheck disable=SC2086
		try_tables $c $cyc "$what" $g
	done
	IFS=$_oifs
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

# exact_values C CYC TABLE...: up to 4 tables in one load, one a CPU
# (test_models=: CPU i gets the i-th), all groups, at C counters (spare=0);
# one scripted interval of every set on each of those CPUs in turn; every
# metric of each as computed on the host, or nan when its events do not
# fit.  A line "TABLE ok" or "TABLE the first differences" a table into
# /tmp/plans-exact.
exact_values() {
	_c=$1 _y=$2
	shift 2
	: > /tmp/plans-exact
	insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters="$_c" cycle_counter="$_y" || return 1
	_tm=$(cpu_tables "$@")
	_ld=
	read -r _ld < "$C/$1.load"
	# shellcheck disable=SC2086
	if ! n3t_load force=1 test_models="$_tm" pmu_type="$(cat $TPI)" interval_ms=60000 \
		schedule=all yield_pct=0 spare=0 groups=all $_ld 2> /tmp/ierr; then
		rmmod n3t_testpmu
		_r=$(load_refusal)
		for _t; do
			if [ "$(oracle "$_t" "$_c" "$_y" all)" = "$_r" ]; then
				echo "$_t ok" >> /tmp/plans-exact
			else
				echo "$_t load $_r" >> /tmp/plans-exact
			fi
		done
		return
	fi
	echo 1 > $DBG/manual
	_i=0
	for _t; do
		nlines NSETS $N3T/models/$_t/sets
		# to the end of the CPU's first interval, then an interval of
		# every set on it alone
		first_interval_end $_i
		# each slice the same rates over 1, 2 or 4 times the counts in
		# turn (cores/<table>.vec times k): an exact metric's set scales
		# whole, a composed one's rates are scaled to the largest base;
		# either way the value is the one of .vec
		scaled "$C/$_t.vec"
		_s=0
		while [ $_s -lt "$NSETS" ]; do
			case $((_s % 3)) in
			0) inject $_i "$_v1" ;;
			1) inject $_i "$_v2" ;;
			*) inject $_i "$_v4" ;;
			esac
			advance $_i
			_s=$((_s + 1))
		done
		# group metric value [composed]: exact where the metric fits,
		# composed (the same value) where its formula scales
		awk -v c="$_c" -v y="$_y" 'FILENAME ~ /scales$/ { sc[$1] = 1; next } FILENAME ~ /events$/ {
			n = NF - 1
			for (i = 2; i <= NF; i++) if (y && $i == "CPU_CYCLES") n--
			fits[$1] = n <= c
			next
		} { print $1, $2, fits[$2] ? $3 : sc[$2] ? $3 " composed" : "nan" }' \
			$C/$_t.scales $C/$_t.events $C/$_t.expect > /tmp/want
		# each group's file of the CPU, its lines prefixed with the group
		# (one awk)
		awk -v d=$N3T/cpu$_i '$1 != last { order[++n] = $1; last = $1 }
		END {
			for (i = 1; i <= n; i++) {
				f = d "/" order[i]
				while ((getline line < f) > 0)
					print order[i], line
				close(f)
			}
		}' /tmp/want > /tmp/got
		# a plan of N3T_MAX_SETS sets has no room left for some metrics:
		# which, and which it composes, is the packer's choice (its list,
		# made on the host by selftests/vm/full-plans.sh); the values
		# are still Arm's
		if [ "$NSETS" = 64 ]; then
			awk 'FILENAME ~ /plan-/ { how[$2] = $1; next }
			     { v = $3 }
			     how[$2] == "unschedulable" { print $1, $2, "nan"; next }
			     how[$2] == "composed" { print $1, $2, v, "composed"; next }
			     { print $1, $2, v }' "$C/$_t.plan-$_c-$_y" /tmp/want > /tmp/want2
			mv /tmp/want2 /tmp/want
		fi
		awk '$3 != "nan" && NF == 3 { n++ } / composed$/ { k++ } END { print n + 0, k + 0 }' \
			/tmp/want > /tmp/plans-nk
		_n= _k=
		read -r _n _k < /tmp/plans-nk
		echo "# $_t $_c/$_y (cpu$_i): $NSETS sets, $_n metrics exact, $_k composed, the rest nan"
		if ! cmp -s /tmp/want /tmp/got; then
			echo "$_t $(diff /tmp/want /tmp/got | head -5 | tr '\n' '|')" >> /tmp/plans-exact
		elif [ "$_n" -gt 0 ] || [ "$_k" -gt 0 ]; then
			echo "$_t ok" >> /tmp/plans-exact
		else
			echo "$_t no metric counted" >> /tmp/plans-exact
		fi
		_i=$((_i + 1))
	done
	n3t_unload
	rmmod n3t_testpmu
}

# the tables 4 a load, but one with load options of its own (generic's
# slots=8 would change the others' values): alone
alone=
rest=
for m in $TABLES; do
	_l=
	read -r _l < "$C/$m.load"
	if [ -n "$_l" ]; then alone="$alone $m"; else rest="$rest $m"; fi
done
for cc in "1 1" "2 1" "3 0"; do
	loads=
	for m in $alone; do loads="$loads,$m"; done
	# shellcheck disable=SC2086
	loads="$loads,$(fours $rest)"
	_oifs=$IFS
	IFS=,
	for g in ${loads#,}; do
		IFS=$_oifs
		# shellcheck disable=SC2086
		exact_values $cc $g
		for m in $g; do
			_r=
			while read -r _tt _rr; do
				[ "$_tt" = "$m" ] && _r=$_rr
			done < /tmp/plans-exact
			[ "$_r" = ok ] || echo "# exact $m $cc: ${_r:-not run}"
			check "exact-$m-$(echo $cc | tr ' ' /)" test "$_r" = ok
		done
	done
	IFS=$_oifs
done
ktap_finish
