#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Topdown level 1 on PMUs as small as clouds rent.  Every table with
# topdown_l1, that group alone (spare=0), on the test PMU with 1, 2, 3 and 5
# programmable counters, the cycle counter free and taken (but for 2/1 and
# 3/0, which plans.sh checks in cpu1/ for every group, with the same
# scaled slices): the four metrics print four numbers,
# each exact where its events fit in the counters together
# (cores/<table>.events, from Arm's spec) and marked "composed" where they
# do not.  With the cycle counter, or two counters or more, each event's
# rate is counted beside CPU_CYCLES; every slice is scripted with the same
# rates (cores/<table>.vec, times 1, 2 or 4: composing scales them), so a
# composed value is the exact one (cores/<table>.expect), per CPU and in
# system/.  On one counter without
# the cycle counter the base is each set's counting time: numbers, marked
# composed (their arithmetic: engine-host-test).  The tables run four at a
# time, one per CPU (test_models=).
# Then what composing costs when the workload changes under the rotation,
# measured: on one counter and the cycle counter, the slices of the events
# listed in cores/<table>.phases run in phase A (frontend bound) and the
# others in phase B (backend bound); each value must be the one the host
# computed from those slices' rates, and the same interval on six counters
# (one set: the interval's counts) the exact one; the difference is printed.
# Last, spare on a PMU of 2 counters, what each side gets (below).
. ./lib.sh
C=./cores
[ -d $C ] || skip_all "no cores/ (made by selftests/vm/check.sh from Arm's spec)"
need_testpmu
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
NCPU=$(grep -c ^processor /proc/cpuinfo)
[ "$NCPU" -ge 4 ] || skip_all "needs 4 CPUs, one table each"
L1="frontend_bound backend_bound retiring bad_speculation"

# batches of tables with topdown_l1, one per CPU (the last one again to
# fill 4), those counted with 8 slots (slots=, the generic table's) apart
eight=
five=
for ev in $C/*.events; do
	m=$(basename "$ev" .events)
	grep -q '^topdown_l1 ' "$C/$m.expect" || continue
	if [ "$(awk '$1 == "S" { print $2 }' "$C/$m.phases")" = 8 ]; then
		eight="$eight $m"
	else
		five="$five $m"
	fi
done

# load_shape TABLES C CYC [SLOTS]: topdown_l1 alone, every set in each
# interval, slices ended by hand, every CPU's first interval ended
load_shape() {
	insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters="$2" cycle_counter="$3" || return 1
	if ! n3t_load force=1 test_models="$1" pmu_type="$(cat $TPI)" interval_ms=60000 \
		schedule=all yield_pct=0 spare=0 groups=topdown_l1 $4 2> /tmp/ierr; then
		cat /tmp/ierr
		rmmod n3t_testpmu
		return 1
	fi
	echo 1 > $DBG/manual
	# each CPU to the end of an interval (its slice timer, queued at the
	# load, may have ended a slice before manual mode)
	for _c in 0 1 2 3; do
		getv _q $N3T/cpu$_c/status seq
		getv _qn $N3T/cpu$_c/status seq
		_s=0
		while [ "$_qn" = "$_q" ] && [ $_s -le 64 ]; do
			advance $_c
			_s=$((_s + 1))
			getv _qn $N3T/cpu$_c/status seq
		done
	done
}

# interval CPU TAG: an interval of CPU alone, each slice given the counts
# of the TAG line of its table's phases file, or, with TAG vec, its .vec
# times 1, 2 or 4 in turn: the same rates in every slice, counted over
# different cycles, so that composing scales them (to 4 times the counts,
# exactly: the value is still the exact one)
interval() {
	_t=
	read -r _t < $N3T/cpu$1/cpu_model
	[ "$2" = vec ] || _v=$(awk -v t="$2" '$1 == t { $1 = ""; print }' "$C/$_t.phases")
	nlines _n $N3T/models/"$_t"/sets
	[ "$2" = vec ] && scaled "$C/$_t.vec"
	_s=0
	while [ $_s -lt "$_n" ]; do
		if [ "$2" = vec ]; then
			case $((_s % 3)) in
			0) inject "$1" "$_v1" ;;
			1) inject "$1" "$_v2" ;;
			*) inject "$1" "$_v4" ;;
			esac
		else
			inject "$1" "$_v"
		fi
		advance "$1"
		_s=$((_s + 1))
	done
}

unload_shape() {
	n3t_unload
	rmmod n3t_testpmu
}

# FITS: awk's fits(m): metric m's events (the table's .events, the first
# line for m; a metric not listed fits) fit in c counters (CPU_CYCLES on the
# cycle counter when y); the .events file is read first, into ev[]
FITS='function fits(m,   k, n, i, need) {
	if (!(m in ev))
		return 1
	n = split(ev[m], k, " ")
	need = n
	for (i = 1; i <= n; i++) if (y && k[i] == "CPU_CYCLES") need--
	return need <= c
}
FILENAME ~ /[.]events$/ { if (!($1 in ev)) { e = $0; sub(/^[^ ]+ /, "", e); ev[$1] = e } next }'

# want TABLE C CYC: "metric value [composed]" of topdown_l1 as it must be
# printed; the value "number" where only a number is known (one awk)
want() {
	awk -v c="$2" -v y="$3" -v l1="$L1" "$FITS"'
	$1 == "topdown_l1" && !($2 in v) { v[$2] = $3 }
	END {
		n = split(l1, ms, " ")
		for (i = 1; i <= n; i++) {
			m = ms[i]
			if (fits(m))
				print m, v[m]
			else if (c == 1 && y == 0)
				print m, "number composed"
			else
				print m, v[m], "composed"
		}
	}' "$C/$1.events" "$C/$1.expect"
}

# compare NAME FILE: FILE is /tmp/want, but for the values /tmp/want has
# as "number", where any number will do (one awk: the lines that differ)
compare() {
	if awk 'FILENAME == ARGV[1] { w[FNR] = $0; nw = FNR; if ($2 == "number") num[$1] = 1; next }
		{ if (($1 in num) && $2 ~ /^-?[0-9]+\.[0-9]+$/) $2 = "number"; g[FNR] = $0; ng = FNR }
		END {
			for (i = 1; i <= (nw > ng ? nw : ng); i++)
				if (w[i] != g[i]) { print "# line " i ": want \"" w[i] "\", got \"" g[i] "\""; bad = 1 }
			if (nw + 0 != ng + 0) { print "# " ng + 0 " lines, want " nw + 0; bad = 1 }
			exit bad
		}' /tmp/want "$2"; then
		_result ok "$1"
	else
		_result fail "$1"
	fi
}

# shapes BATCH [SLOTS]
shapes() {
	for cc in "1 1" "1 0" "2 0" "3 1" "5 1" "5 0"; do
		c=${cc% *}
		cyc=${cc#* }
		# shellcheck disable=SC2086
		if ! load_shape "$(cpu_tables $1)" "$c" "$cyc" $2; then
			check "load-$1-$c-$cyc" false
			continue
		fi
		for _c in 0 1 2 3; do
			interval $_c vec
		done
		_c=0
		while [ $_c -lt 4 ]; do
			m=
			read -r m < $N3T/cpu$_c/cpu_model
			want "$m" "$c" "$cyc" > /tmp/want
			while read -r _l; do
				case $_l in *composed*) nr_composed=$((nr_composed + 1)) ;; esac
			done < /tmp/want
			compare "$m-$c-$cyc-cpu$_c" $N3T/cpu$_c/topdown_l1
			# system/: the first core type's CPUs, cpu0's table
			[ $_c = 0 ] && compare "$m-$c-$cyc-system" $N3T/system/topdown_l1
			_c=$((_c + 1))
		done
		unload_shape
	done
}

nr_composed=0
# shellcheck disable=SC2086
[ -z "$eight" ] || shapes "$(echo $eight)" slots=8
# shellcheck disable=SC2086
[ -z "$five" ] || shapes "$(echo $five)"
# somewhere composed: the small shapes compose as the spec says
check some-composed test "$nr_composed" -gt 0

# phases BATCH [SLOTS]: on one counter and the cycle counter, a slice
# counts one event (and CPU_CYCLES): the slices of the events of the LA line
# run in phase A, the others in B, which the M line's counts script in every
# slice whichever set it counts; then the interval's counts on six
phases() {
	# shellcheck disable=SC2086
	if ! load_shape "$(cpu_tables $1)" 1 1 $2; then
		check "phases-$1-load-1-1" false
		return
	fi
	for _c in 0 1 2 3; do
		interval $_c M
	done
	_c=0
	while [ $_c -lt 4 ]; do
		m=
		read -r m < $N3T/cpu$_c/cpu_model
		# "composed" where the metric does not fit one counter and the
		# cycle counter (where it does, it is exact, of its set's phase)
		awk -v c=1 -v y=1 "$FITS"'
		$1 == "composed" { if (fits($2)) print $2, $3; else print $2, $3, "composed" }' \
			"$C/$m.events" "$C/$m.phases" > /tmp/want
		compare "phases-$m-cpu$_c-as-computed" $N3T/cpu$_c/topdown_l1
		cp $N3T/cpu$_c/topdown_l1 /tmp/composed$_c
		_c=$((_c + 1))
	done
	unload_shape
	# shellcheck disable=SC2086
	if ! load_shape "$(cpu_tables $1)" 6 1 $2; then
		check "phases-$1-load-6-1" false
		return
	fi
	for _c in 0 1 2 3; do
		interval $_c T
	done
	for _c in 0 1 2 3; do
		m=
		read -r m < $N3T/cpu$_c/cpu_model
		awk '$1 == "exact" { print $2, $3 }' "$C/$m.phases" > /tmp/want
		compare "phases-$m-cpu$_c-exact-on-six" $N3T/cpu$_c/topdown_l1
		echo "# $m, phases A and B by slice: composed - exact:" $(awk '
			NR == FNR { x[$1] = $2; next } { printf "%s %+.2f ", $1, $2 - x[$1] }' \
			$N3T/cpu$_c/topdown_l1 /tmp/composed$_c)
	done
	unload_shape
}

# shellcheck disable=SC2086
[ -z "$eight" ] || phases "$(echo $eight)" slots=8
# shellcheck disable=SC2086
[ -z "$five" ] || phases "$(echo $five)"

# spare on a PMU of 2 counters and the cycle counter (a Graviton4 .large's
# V2), both sides measured: with the default spare=1 the module packs for
# one counter and perf record's cycles (pmuuser, a task's, counting) gets
# a counter at least 99 % of its time; with spare=0 the module packs for
# both, more of topdown_l1 is exact, and perf record's cycles count less.
command -v pmuuser > /dev/null || PATH=$PATH:$N3T_HERE
if command -v pmuuser > /dev/null; then
	for sp in 1 0; do
		insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=2 || break
		tp=$(cat $TPI)
		check "spare$sp-load" n3t_load force=neoverse-v2 pmu_type="$tp" interval_ms=100 \
			spare=$sp
		sleep 0.3
		echo "# spare=$sp: $(head -1 $N3T/counters), $(wc -l < $N3T/sets) sets," \
			"topdown_l1 composed: $(awk '$3 == "composed" { printf "%s ", $1 }' \
			$N3T/cpu1/topdown_l1)"
		expect_eq "spare$sp-counters" "programmable $((2 - sp))" "$(head -1 $N3T/counters)"
		_ur=0
		diag_run "spare$sp-perf-record" /tmp/pmuuser.rec pmuuser -t "$tp" -a 1 -s 2 0x11 || _ur=$?
		share=$(awk '/^0x/ { sub(/%$/, "", $5); print $5 + 0 }' /tmp/pmuuser.rec)
		if [ $sp = 1 ]; then
			# counted as its kind promises (pmuuser's verdict)
			expect_eq spare1-perf-record-counted 0 "$_ur"
			check spare1-perf-record-99 awk -v s="$share" 'BEGIN { exit !(s >= 99) }'
			expect_eq spare1-l1-composed 4 "$(grep -c ' composed$' $N3T/cpu1/topdown_l1)"
		else
			check spare0-perf-record-less awk -v s="$share" 'BEGIN { exit !(s < 99) }'
			expect_eq spare0-l1-composed 2 "$(grep -c ' composed$' $N3T/cpu1/topdown_l1)"
		fi
		n3t_unload
		rmmod n3t_testpmu
	done
else
	echo "# pmuuser not built: spare on 2 counters not measured"
fi
ktap_finish
