#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# n3tel stat on the module and the test PMU: the command it runs is a
# script that counts two intervals of every set on CPU 1 (manual mode,
# each slice given cores/<table>.vec times 1, 2 or 4: the same rates), so
# that the run's counts are known.  Every metric whose events were
# counted in the same slices (exact, no ~) must be the value worked out on
# the host from Arm's formulas (cores/<table>.expect), on CPU 1 and in
# system (the other CPUs count nothing in manual mode); a composed one
# (its events in different slices: rates per second of slices whose
# length is the shell's pace) must be a number.  One set (topdown_l1 on a
# whole PMU): every metric exact.  Several sets: the module's plans for
# all groups on 6 counters and the cycle counter, and on 2 and 3.  Then:
# the exit status passed through, no perf event opened (the test PMU's
# peak event count), nothing counted meanwhile (not a number, never 0),
# CPU 2 offline during the run (left out, said).
. ./lib.sh
C=./cores
[ -d $C ] || skip_all "no cores/ (made by selftests/vm/check.sh from Arm's spec)"
need_testpmu
command -v n3tel > /dev/null || PATH=$PATH:$N3T_HERE
command -v n3tel > /dev/null || skip_all "n3tel not built"
TPI=/sys/bus/event_source/devices/n3t_testpmu/type

# setup TABLE C CYC GROUPS: loaded, manual, at the end of cpu1's first interval
setup() {
	insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters="$2" cycle_counter="$3" || return 1
	# shellcheck disable=SC2046
	n3t_load force="$1" pmu_type="$(cat $TPI)" interval_ms=60000 schedule=all \
		yield_pct=0 spare=0 groups="$4" $(cat "$C/$1.load") || return 1
	echo 1 > $DBG/manual
	NSETS=$(wc -l < $N3T/sets)
	first_interval_end 1
}

teardown() {
	n3t_unload
	rmmod n3t_testpmu
}

# run_script TABLE FILE: FILE counts two intervals of every set on cpu1
run_script() {
	scaled "$C/$1.vec"
	: > "$2"
	_i=0
	while [ $_i -lt 2 ]; do
		_s=0
		while [ $_s -lt "$NSETS" ]; do
			case $((_s % 3)) in
			0) _v=$_v1 ;;
			1) _v=$_v2 ;;
			*) _v=$_v4 ;;
			esac
			echo "echo 'cpu=1 $_v' > $TPDBG/inject; echo 1 > $DBG/advance" >> "$2"
			_s=$((_s + 1))
		done
		_i=$((_i + 1))
	done
}

# check_csv TABLE CSV WHAT: every exact value of cpus 1 and system is
# .expect's, every composed one a number (a plan of small sets may have no
# exact one), unless its group was counted too little; prints the counts
check_csv() {
	awk -F, -v what="$3" 'FILENAME ~ /expect$/ { split($0, w, " "); want[w[1] "," w[2]] = w[3]; next }
		FNR == 1 { next }
		$1 != "cpus 1" && $1 != "system" { next }
		{
			k = $3 "," $4
			if (!(k in want)) { printf "# %s: %s not in expect\n", what, k; bad++; next }
			# counted in under 1 % of the time: no value (slices in manual
			# mode last as long as the shell takes)
			if ($5 == "nan" && $8 + 0 < 1) { little++; next }
			if ($7 == "1") {
				if ($5 == "nan") { printf "# %s: %s composed nan\n", what, k; bad++ }
				composed++
			} else if ($5 != want[k]) {
				printf "# %s: %s %s: %s, want %s\n", what, $1, k, $5, want[k]; bad++
			} else {
				exact++
			}
		}
		END { printf "# %s: %d exact, %d composed, %d too little\n", what, exact, composed, little
		      exit (bad > 0 || exact + composed == 0) }' "$C/$1.expect" "$2"
}

# stat_case TABLE C CYC GROUPS [ALL-EXACT]
stat_case() {
	_what="$1 $2/$3 $4"
	setup "$1" "$2" "$3" "$4" || { echo "# $_what: no setup"; return 1; }
	run_script "$1" /tmp/stat-run.sh
	n3tel stat --cpu 1 --format csv --output /tmp/stat.csv -- sh /tmp/stat-run.sh
	_rc=$?
	teardown
	[ $_rc = 0 ] || { echo "# $_what: stat exited $_rc"; return 1; }
	check_csv "$1" /tmp/stat.csv "$_what" || return 1
	if [ -n "$5" ] && grep -q ',1,[0-9.]*$' /tmp/stat.csv; then
		echo "# $_what: composed values in one set"
		return 1
	fi
}

for m in $(cd $C && ls *.expect | sed 's/\.expect$//'); do
	grep -q '^topdown_l1 ' "$C/$m.expect" || continue
	check "one-set-all-exact/$m" stat_case "$m" 6 1 topdown_l1 all-exact
done
check "sets/neoverse-n3-6/1-all" stat_case neoverse-n3 6 1 all
check "sets/neoverse-v2-2/1-default" stat_case neoverse-v2 2 1 default
check "sets/neoverse-n1-3/0-all" stat_case neoverse-n1 3 0 all

# the text report of such a run, shown (the guide's example)
if setup neoverse-n3 6 1 topdown_l1,general; then
	run_script neoverse-n3 /tmp/stat-run.sh
	n3tel stat --cpu 1 --output /tmp/stat-text.txt -- sh /tmp/stat-run.sh
	sed 's/^/# /' /tmp/stat-text.txt
	check text-report-values grep -Eq '^  ipc +~?[0-9]+\.[0-9]{3} +~?[0-9]+\.[0-9]{3}  per cycle$' /tmp/stat-text.txt
	teardown
fi

# the exit status; no perf event of its own (the test PMU's peak count of
# events per CPU, reset before, is the module's alone after)
setup neoverse-n3 6 1 default
echo 0 > $TPDBG/events
cat $TPDBG/events > /tmp/stat-events0
n3tel stat --output /tmp/stat.txt -- sh -c 'exit 7'
expect_eq exit-status-passed-through 7 $?
check no-perf-event-opened sh -c "cat $TPDBG/events | cmp -s - /tmp/stat-events0"
check text-report grep -q '^n3tel stat: sh -c exit 7: exited 7 after' /tmp/stat.txt
# nothing counted during the run (no interval ends in manual mode): no
# number, never 0
n3tel stat --cpu 1 --format csv --output /tmp/stat.csv -- true
check nothing-counted-nan sh -c "awk -F, 'NR > 1 { n++; if (\$5 != \"nan\") bad++ } END { exit bad || !n }' /tmp/stat.csv"
# the counts of the torn-down states (a pause, a write of groups) stay
# in the cumulative ones: a run across them finds none gone back
n3tel stat --output /tmp/stat.txt -- sh -c "echo 0 > $N3T/enabled; echo 1 > $N3T/enabled; echo all > $N3T/groups"
expect_eq counts-kept-across-teardowns 0 $?
# CPU 2 offline during the run: left out, and said
n3tel stat --output /tmp/stat.txt -- sh -c "echo 0 > /sys/devices/system/cpu/cpu2/online"
check offline-left-out grep -q '^left out (offline or online during the run): cpu 2$' /tmp/stat.txt
echo 1 > /sys/devices/system/cpu/cpu2/online
teardown
ktap_finish
