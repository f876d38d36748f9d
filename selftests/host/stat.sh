#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of n3tel stat on a fixture tree (mkfixture.py stat): the
# command run between the two snapshots is the one that puts the second
# snapshot in place, so the run's counts are the fixture's deltas.  Every
# value, composed mark and coverage against the ones worked out in Python
# from Arm's formula strings with exact fractions (stat-expect.csv), for
# the CPUs of --cpu and the system; the text and JSON reports; the exit
# status passed through; each error one line and a nonzero exit.
# Prints ok / not ok lines.  usage: stat.sh BUILDDIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}/stat-host
rm -rf "$out" && mkdir -p "$out"
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

make -s -C "$top/tools/n3tel" n3tel > "$out/build.log" 2>&1
t n3tel-builds test -x "$top/tools/n3tel/n3tel" || exit 0
N3TEL=$top/tools/n3tel/n3tel
ref=${N3T_ARM_TELEMETRY:-$top/../shared/reference/arm-telemetry}
t arm-descriptions test -r "$ref/neoverse-n3.json" || exit 1

# run_stat NAME MODEL [STAT-ARGS...]: n3tel stat on a fresh fixture of
# MODEL, the command swapping in the snapshot after the run
fx=
run_stat() {
	local name=$1 model=$2
	shift 2
	fx=$out/$name
	N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$fx" stat "$model" ||
		return 1
	"$N3TEL" --sysfs "$fx" stat "$@" -- cp "$fx/snapshot.after" "$fx/snapshot" \
		> "$fx/stdout" 2> "$fx/stderr"
}

# every table's metrics: values, marks, coverage as computed independently
for m in neoverse-n1 neoverse-n2 neoverse-n2-r0p3 neoverse-v1 neoverse-v2 neoverse-v3 \
	neoverse-n3; do
	if run_stat "$m" "$m" --cpu 0 --format csv --output "$out/$m.csv" &&
		diff "$fx/stat-expect.csv" "$out/$m.csv" > "$out/$m.diff"; then
		ok "stat-csv-exact/$m"
	else
		head -5 "$out/$m.diff" "$fx/stderr" | sed 's/^/# /'
		nok "stat-csv-exact/$m"
	fi
done
# the fixtures' formulas (mkfixture.py, from gen_models.py's compiled
# formulas) are the module's own text (engine.c n3t_format_formula(), run
# on the generated tables), which n3tel parsed above
if gcc -O2 -I"$top/module" -I"$top/tools/include" -I"$top/uapi" -o "$out/engine-tables" \
	"$top/selftests/host/engine_test.c" "$top/module/engine.c" "$top/module/models.c" \
	2> "$out/cc.err"; then
	for m in neoverse-n1 neoverse-n2 neoverse-n2-r0p3 neoverse-v1 neoverse-v2 neoverse-v3 \
		neoverse-n3; do
		"$out/engine-tables" formulas "$m" > "$out/$m.formulas" &&
			t "stat-fixture-formulas-are-the-modules/$m" \
				cmp -s "$out/$m.formulas" "$out/$m/models/$m/formulas"
	done
else
	sed 's/^/# /' "$out/cc.err"
	nok stat-engine-tables-builds
fi
# the expectation is not empty, and has each kind of line
t stat-expect-has-composed grep -q ',1,[0-9.]*$' "$out/neoverse-n3.csv"
t stat-expect-has-exact grep -q ',0,[0-9.]*$' "$out/neoverse-n3.csv"
t stat-expect-has-too-little grep -q ',nan,[^,]*,0,0.39$' "$out/neoverse-n3.csv"

# the text report: the same values, ~ before a composed one, - for too little
run_stat text neoverse-n3 --cpu 0
t stat-text-to-stderr test ! -s "$fx/stdout"
t stat-text-header grep -q '^n3tel stat: cp .*: exited 0 after' "$fx/stderr"
t stat-text-window grep -Eq '^measured: the intervals that ended from [0-9.]+ s before the start to [0-9.]+ s before the end$' "$fx/stderr"
t stat-text-columns grep -Eq '^ +cpus 0 +system$' "$fx/stderr"
t stat-text-composed grep -Eq '^  retiring +~[0-9.-]+ +~[0-9.-]+  percent of slots$' "$fx/stderr"
t stat-text-too-little grep -Eq '^  backend_core_bound +- +-  percent of cycles$' "$fx/stderr"
t stat-text-coverage grep -Eq '^topdown_l1 +25.00 % +25.00 %  counted$' "$fx/stderr"
# each value of the text is the CSV's
python3 - "$fx/stderr" "$out/neoverse-n3.csv" > "$out/text-vs-csv" <<'PY'
import sys
rows = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
want = {}
for scope, _, g, m, v, unit, comp, cov in rows:
    want.setdefault(m, []).append('-' if v == 'nan' else ('~' if comp == '1' else '') + v)
bad = 0
for line in open(sys.argv[1]):
    w = line.split()
    if line.startswith('  ') and w and w[0] in want:
        if w[1:3] != want[w[0]]:
            print(f'# {w[0]}: {w[1:3]} want {want[w[0]]}')
            bad += 1
print(bad)
PY
t stat-text-values-are-the-csvs test "$(tail -1 "$out/text-vs-csv")" = 0

# JSON: parses, and its values are the CSV's
run_stat json neoverse-n3 --cpu 0 --format json --output "$out/n3.json"
python3 - "$out/n3.json" "$out/neoverse-n3.csv" > "$out/json-vs-csv" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
got = []
for s in j['scopes']:
    for m in s['metrics']:
        v = 'nan' if m['value'] is None else m['value']
        got.append([s['label'], s['model'], m['group'], m['metric'], v, m['unit'],
                    '1' if m.get('composed') else '0', f"{m['coverage_percent']:.2f}"])
want = [[r[0], r[1], r[2], r[3], r[4] if r[4] == 'nan' else float(r[4]), r[5], r[6], r[7]]
        for r in rows]
print(0 if got == want and j['exit_status'] == 0 and j['cpus'] == '0' else 1)
PY
t stat-json-values-are-the-csvs test "$(tail -1 "$out/json-vs-csv")" = 0

# an argument with a quote, a backslash and a byte that is no UTF-8: JSON
# escapes the first two and gives the byte as U+FFFD (it parses as UTF-8)
fx=$out/oddarg
N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$fx" stat neoverse-n3
"$N3TEL" --sysfs "$fx" stat --cpu 0 --format json --output "$out/odd.json" -- \
	sh -c 'cp "$1" "$2"' "$(printf 'x\377"y\\')" "$fx/snapshot.after" "$fx/snapshot" 2> /dev/null
t stat-json-odd-argument python3 - "$out/odd.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1], encoding='utf-8'))
sys.exit(j['command'][3] != 'x\ufffd"y\\')
PY

# a CPU list with a comma: the CSV quotes the label, every row 8 fields
run_stat comma neoverse-n3 --cpu 0,2 --format csv --output "$out/comma.csv"
t stat-csv-quotes-a-comma python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
sys.exit(not rows or any(len(r) != 8 for r in rows) or rows[0][0] != 'cpus 0,2')" "$out/comma.csv"

# the groups asked for, by file or Arm name
run_stat groups neoverse-n3 --cpu 0 --format csv --group general --group L1D_Cache_Effectiveness
t stat-group-selection test "$(cut -d, -f3 "$fx/stderr" | sort -u | tr '\n' ' ')" = \
	"general group l1d_cache "

# the command's exit status, as the shell's
fx=$out/status
N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$fx" stat
"$N3TEL" --sysfs "$fx" stat --output "$out/st" -- sh -c 'exit 3'
t stat-exit-status test $? = 3
"$N3TEL" --sysfs "$fx" stat --output "$out/st" -- sh -c 'kill -TERM $$'
t stat-killed-status test $? = 143
t stat-killed-said grep -q 'killed by signal 15' "$out/st"
"$N3TEL" --sysfs "$fx" stat --output "$out/st" -- /no/such/command 2> "$out/err"
t stat-not-found-127 test $? = 127
t stat-not-found-said grep -q 'cannot run /no/such/command: No such file' "$out/err"
"$N3TEL" --sysfs "$fx" stat --output "$out/st" -- "$fx/version" 2> "$out/err"
t stat-not-executable-126 test $? = 126

# errors: one line, exit 1 (2 for the usage), nothing run
err() {	# err NAME WANT-PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	rm -f "$out/ran"
	"$N3TEL" "$@" > /dev/null 2> "$out/err"
	local rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l < "$out/err")" = 1 ] && grep -q -- "$pat" "$out/err" &&
		[ ! -e "$out/ran" ]; then
		ok "stat-error/$name"
	else
		echo "# rc $rc: $(cat "$out/err")"
		nok "stat-error/$name"
	fi
}
err no-command 'stat needs a command' --sysfs "$fx" stat
err not-loaded 'n3telemetry is not loaded' --sysfs "$out/none" stat -- touch "$out/ran"
err bad-format 'stat takes --format text, json or csv' --sysfs "$fx" stat --format xml -- \
	touch "$out/ran"
err unknown-group 'unknown group "nope"' --sysfs "$fx" stat --group nope -- touch "$out/ran"
err cpu-system 'stat takes --cpu LIST' --sysfs "$fx" stat --cpu system -- touch "$out/ran"
err text-source '--text does not apply' --sysfs "$fx" --text stat -- touch "$out/ran"
err not-for-stat '--every does not apply to stat' --sysfs "$fx" stat --every 5 -- \
	touch "$out/ran"
err output-unwritable 'cannot write /no/such/dir/x' --sysfs "$fx" stat --output /no/such/dir/x \
	-- touch "$out/ran"
# an older module: no formulas, or records without the slice counts
cp -r "$fx" "$out/old1" && rm "$out/old1/models/neoverse-n3/formulas"
err no-formulas 'no formulas: the module is older' --sysfs "$out/old1" stat -- touch "$out/ran"
cp -r "$fx" "$out/old2" && rm -f "$out/old2/snapshot" &&
	N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$out/old2b" composed &&
	cp "$out/old2b/snapshot" "$out/old2/snapshot"
err no-slice-counts 'publishes no slice counts' --sysfs "$out/old2" stat -- touch "$out/ran"
# a malformed formula line
cp -r "$fx" "$out/bad" && sed -i '2s/ \/ / \/ \/ /' "$out/bad/models/neoverse-n3/formulas"
err malformed-formula 'malformed line in' --sysfs "$out/bad" stat -- touch "$out/ran"
cp -r "$fx" "$out/bad2" && sed -i '3s/\*e[0-9]*/*e99/' "$out/bad2/models/neoverse-n3/formulas"
err formula-bad-event 'malformed line in' --sysfs "$out/bad2" stat -- touch "$out/ran"
cp -r "$fx" "$out/bad3" && sed -i '3s/\*e[0-9]*/*e18446744069414584520/' "$out/bad3/models/neoverse-n3/formulas"
err formula-event-overflow 'malformed line in' --sysfs "$out/bad3" stat -- touch "$out/ran"
cp -r "$fx" "$out/bad4" &&
	sed -i "3s|/|$(printf '+1*e0 %.0s' $(seq 16))/|" "$out/bad4/models/neoverse-n3/formulas"
err formula-too-many-terms 'malformed line in' --sysfs "$out/bad4" stat -- touch "$out/ran"
cp -r "$fx" "$out/bad5" && sed -i '3s/ +\([0-9]\)/ +x\1/' "$out/bad5/models/neoverse-n3/formulas"
err formula-bad-coefficient 'malformed line in' --sysfs "$out/bad5" stat -- touch "$out/ran"
# the module reloaded meanwhile: the counts go back
fx=$out/reload
N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$fx" stat
cp "$fx/snapshot.after" "$out/after" && cp "$fx/snapshot" "$out/before"
cp "$out/after" "$fx/snapshot"
"$N3TEL" --sysfs "$fx" stat -- cp "$out/before" "$fx/snapshot" > /dev/null 2> "$out/err"
t stat-error/reloaded sh -c "[ $? = 1 ] && grep -q 'went back: the module was reloaded' '$out/err'"
