#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of n3tel and the fleet integration: fixture sysfs trees with
# golden outputs, error handling, promtool, node_exporter, tmux.
# Prints ok / not ok lines.  usage: n3tel.sh BUILDDIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}/n3tel-host
golden=$top/selftests/host/golden
rm -rf "$out" && mkdir -p "$out"
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
# errors: one clear line on stderr, nonzero exit, no stdout
err() {	# err NAME PATTERN CMD...
	local name=$1 pat=$2
	shift 2
	"$@" > "$out/err.out" 2> "$out/err.txt"
	local rc=$?
	if [ $rc != 0 ] && [ ! -s "$out/err.out" ] && [ "$(wc -l < "$out/err.txt")" = 1 ] &&
	   grep -q -e "$pat" "$out/err.txt"; then
		ok "error-$name"
	else
		echo "# rc=$rc: $(cat "$out/err.txt")"
		nok "error-$name"
	fi
}

make -s -C "$top/tools/n3tel" n3tel > "$out/build.log" 2>&1
t n3tel-builds test -x "$top/tools/n3tel/n3tel" || exit 0
N3TEL=$top/tools/n3tel/n3tel
# n3tel compiles in no core's tables (it reads them from the tree), only the
# engine's formatter
t n3tel-no-tables sh -c "! nm '$N3TEL' | grep -q 'n3t_models\\|n3t_neoverse' && nm '$N3TEL' | grep -q n3t_format"

# fixtures are made from Arm's descriptions, like the module's tables
ref=${N3T_ARM_TELEMETRY:-$top/../shared/reference/arm-telemetry}
t arm-descriptions test -r "$ref/neoverse-n3.json" || exit 1
fx() {	# fx NAME [VARIANT [MODEL...]]
	local name=$1 variant=${2:-good}
	shift
	[ $# -gt 0 ] && shift
	rm -rf "$out/$name"
	N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" "$out/$name" "$variant" "$@"
}
fx good
fx nosnap no-snapshot
fx v2 all-groups neoverse-v2
fx n1 good neoverse-n1
fx hetero good neoverse-n3 neoverse-v2
fx rotate rotate

# golden outputs (UPDATE_GOLDEN=1 rewrites them)
gold() {	# gold NAME CMD...
	local name=$1
	shift
	"$@" > "$out/$name.out" 2> "$out/$name.err"
	local rc=$?
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$out/$name.out" "$golden/$name"
	fi
	if [ $rc = 0 ] && diff -u "$golden/$name" "$out/$name.out" > "$out/$name.diff"; then
		ok "golden-$name"
	else
		cat "$out/$name.diff" "$out/$name.err" | head -20
		nok "golden-$name"
	fi
}
gold show "$N3TEL" --sysfs "$out/good" show
gold show-cpu1-l1d "$N3TEL" --sysfs "$out/good" show --cpu 1,3 --group l1d_cache --group ll_cache
gold show-system "$N3TEL" --sysfs "$out/good" show --cpu system --group topdown_l1
# diagnose: the topdown method's path on each CPU's values (each step the
# largest part of its level; the fixtures' values checked by hand: cpu1
# backend 60.00 > retiring 20.13, backend_mem 26.00 > core 22.00, tlb 32.00
# > store 30.00 > cache 28.00: dtlb next), a core without the frontend and
# backend breakdown (V2: level 1, then its stage 2 groups), one without level
# 1 (N1: cycle accounting), and JSON
gold diagnose "$N3TEL" --sysfs "$out/good" diagnose --cpu 0-3
gold diagnose-v2 "$N3TEL" --sysfs "$out/v2" diagnose --cpu 0,1,3
gold diagnose-n1 "$N3TEL" --sysfs "$out/n1" diagnose
gold diagnose-json "$N3TEL" --sysfs "$out/good" diagnose --cpu 1,3 --format json
t diagnose-json-parses python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
steps = [s['largest'] for s in d[0]['steps']]
sys.exit(steps != ['backend_bound', 'backend_mem_bound', 'backend_mem_tlb_bound'] or
         d[1]['scope'] != 'cpu3')" "$out/diagnose-json.out"
# the rotating schedule: show says which interval an older group is from
gold show-rotate "$N3TEL" --sysfs "$out/rotate" show --cpu 1,2

# system/events' 128-bit sums (past 2^64 - 1) are exported exactly
cp -r "$out/good" "$out/sum128"
sed -i '1s/.*/L1D_CACHE_REFILL 36893488147419103237 18446744073709551626/' "$out/sum128/system/events"
t sum128-prometheus sh -c "'$N3TEL' --sysfs '$out/sum128' export --format prometheus > '$out/sum128.prom' &&
	grep -q '^n3telemetry_event_l1d_cache_refill_total{[^}]*} 36893488147419103237\$' '$out/sum128.prom' &&
	grep -q '^n3telemetry_event_l1d_cache_refill_counted_seconds_total{[^}]*} 18446744073.709551626\$' '$out/sum128.prom'"
t sum128-json sh -c "'$N3TEL' --sysfs '$out/sum128' export --format json > '$out/sum128.json' &&
	grep -q '\"L1D_CACHE_REFILL\": {\"count\": 36893488147419103237, \"ns\": 18446744073709551626}' '$out/sum128.json'"
sed -i '1s/.*/L1D_CACHE_REFILL 340282366920938463463374607431768211456 1/' "$out/sum128/system/events"
t sum128-past-2-128-refused sh -c "! '$N3TEL' --sysfs '$out/sum128' export --format prometheus > /dev/null 2> '$out/sum128.err' &&
	grep -q 'malformed line in .*system/events' '$out/sum128.err'"
t rotate-text-equals-snapshot sh -c "'$N3TEL' --sysfs '$out/rotate' --text show > '$out/rot-text.txt' &&
	'$N3TEL' --sysfs '$out/rotate' show > '$out/rot-snap.txt' && cmp '$out/rot-text.txt' '$out/rot-snap.txt'"
# top: the age of a row's oldest shown value (L1D-MPKI: l1d_cache, the
# fifth selected group after topdown_l1, 5 s before); none for a CPU
# without an interval, and no column for a module without ages
t rotate-top-age sh -c "'$N3TEL' --sysfs '$out/rotate' top --iterations 1 > '$out/rot-top.txt' &&
	grep -q ' age\$' '$out/rot-top.txt' && grep -q '^cpu1 .* 5.0s\$' '$out/rot-top.txt' &&
	grep -q '^cpu2 .*  *-\$' '$out/rot-top.txt'"
t good-top-no-age sh -c "! '$N3TEL' --sysfs '$out/good' top --iterations 1 | grep -q ' age\$'"
gold export-prometheus "$N3TEL" --sysfs "$out/good" export --format prometheus
gold export-prometheus-all "$N3TEL" --sysfs "$out/good" export --format prometheus --scope all
gold export-json "$N3TEL" --sysfs "$out/good" export --format json --scope all
gold export-json-text "$N3TEL" --sysfs "$out/nosnap" export --format json --scope all
gold export-csv "$N3TEL" --sysfs "$out/good" export --format csv --scope all
gold show-v2 "$N3TEL" --sysfs "$out/v2" show --cpu 0
gold export-prometheus-hetero "$N3TEL" --sysfs "$out/hetero" export --format prometheus --scope all

# the snapshot and the text files give the same numbers
"$N3TEL" --sysfs "$out/good" --text export --format prometheus --scope all > "$out/text.prom"
t snapshot-equals-text diff -q "$out/text.prom" "$golden/export-prometheus-all"
"$N3TEL" --sysfs "$out/good" --text export --format prometheus > "$out/text-system.prom"
t snapshot-equals-text-system diff -q "$out/text-system.prom" "$golden/export-prometheus"
t json-parses python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['cpus']) == 4 and d['scope'] == 'all'" "$out/export-json.out"
# JSON: the module's units, null when undefined, and whether the module collects it
t json-units-selected python3 - "$out/export-json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, s = d['cpus'], d['system']
assert c[0]['metrics']['frontend_bound'] == {'value': 21.37, 'unit': 'percent of slots', 'selected': True}
assert c[0]['metrics']['ipc'] == {'value': 44.002, 'unit': 'per cycle', 'selected': True}
# undefined: selected, value null (an idle CPU; a 0/0 on a live one)
assert c[2]['metrics']['ipc'] == {'value': None, 'unit': 'per cycle', 'selected': True}
assert c[3]['metrics']['ll_cache_read_hit_ratio']['value'] is None
assert c[3]['metrics']['ll_cache_read_hit_ratio']['selected'] is True
# not selected: listed, selected false, value null
assert c[0]['metrics']['branch_mpki'] == {'value': None, 'unit': 'MPKI', 'selected': False}
assert len(c[0]['metrics']) == 67 and sum(m['selected'] for m in c[0]['metrics'].values()) == 31
assert s['metrics']['backend_bound']['value'] == 34.02 and 'cpu' not in s
assert d['events_readable'] is True and c[2]['state'] == 'collecting'
# system counts are the sums over the CPUs
for e, v in s['events'].items():
    assert v['count'] == sum(x['events'][e]['count'] for x in c), e
    assert v['ns'] == sum(x['events'][e]['ns'] for x in c), e
PY
# CSV: what perf -x and topdown-tool users script against
t csv-parses python3 - "$out/export-csv.out" "$out/export-json.out" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
# the columns of old, then composed (0: every value of this tree is exact)
assert list(rows[0]) == ['scope', 'cpu', 'model', 'metric', 'value', 'unit', 'selected', 'composed']
assert all(x['composed'] == '0' for x in rows)
assert len(rows) == 5 * 67
sysrows = [r for r in rows if r['scope'] == 'system']
assert len(sysrows) == 67 and all(r['cpu'] == '' for r in sysrows)
r = {(x['scope'], x['cpu'], x['metric']): x for x in rows}
assert r[('cpu', '0', 'frontend_bound')]['value'] == '21.37'
assert r[('cpu', '0', 'frontend_bound')]['unit'] == 'percent of slots'
assert r[('cpu', '2', 'ipc')]['value'] == 'nan' and r[('cpu', '2', 'ipc')]['selected'] == '1'
assert r[('cpu', '0', 'branch_mpki')]['value'] == 'nan' and r[('cpu', '0', 'branch_mpki')]['selected'] == '0'
# every value the same as in JSON
for x in rows:
    v = d['system'] if x['scope'] == 'system' else d['cpus'][int(x['cpu'])]
    m = v['metrics'][x['metric']]
    assert (m['value'] is None) == (x['value'] == 'nan')
    assert m['value'] is None or float(x['value']) == m['value'], x
    assert m['unit'] == x['unit'] and m['selected'] == (x['selected'] == '1')
PY
for scope in system cpu all; do
	t promtool-check-metrics-$scope sh -c "'$N3TEL' --sysfs '$out/good' export --format prometheus --scope $scope --max-series 1000 > '$out/scope-$scope.prom' && promtool check metrics < '$out/scope-$scope.prom'"
	t promtool-check-metrics-hetero-$scope sh -c "'$N3TEL' --sysfs '$out/hetero' export --format prometheus --scope $scope --max-series 1000 | promtool check metrics"
done
t no-cpu-all sh -c "! grep -q 'cpu=\"all\"\|cpu=\"system\"\|cpu=\"-1\"' '$out/scope-all.prom'"
# default scope: system/ only, no cpu label, no per-CPU series
t default-scope-system sh -c "! grep -q 'cpu=' '$out/export-prometheus.out' &&
	grep -qx 'n3telemetry_frontend_bound_ratio{model=\"neoverse-n3\"} 0.21370000' '$out/export-prometheus.out' &&
	grep -qx 'n3telemetry_up 1' '$out/export-prometheus.out' &&
	grep -qx 'n3telemetry_events_readable 1' '$out/export-prometheus.out' &&
	grep -qx 'n3telemetry_cpus{model=\"neoverse-n3\",state=\"collecting\"} 4' '$out/export-prometheus.out'"
# one family per event: the system total is the sum over the CPUs
t event-families python3 - "$out/scope-all.prom" "$out/good" <<'PY'
import re, sys
prom, root = open(sys.argv[1]).read(), sys.argv[2]
types = dict(re.findall(r'^# TYPE (\S+) (\S+)$', prom, re.M))
events = [l.split()[0] for l in open(root + '/system/events')]
assert 'n3telemetry_event_count_total' not in types
for e in events:
    for fam in (f'n3telemetry_event_{e.lower()}_total', f'n3telemetry_event_{e.lower()}_counted_seconds_total'):
        assert types.get(fam) == 'counter', fam
        vals = dict(re.findall(r'^' + fam + r'(\{[^}]*\}) (\S+)$', prom, re.M))
        total = float(vals.pop('{model="neoverse-n3"}'))
        assert len(vals) == 4 and abs(sum(map(float, vals.values())) - total) < 1e-6, fam
PY
# --group and --metric select the metric families; Arm's group names work
"$N3TEL" --sysfs "$out/good" export --format prometheus --group Branch_Effectiveness --metric ipc > "$out/sel.prom"
t select-group-metric sh -c "grep '^n3telemetry_' '$out/sel.prom' | grep -v '^n3telemetry_\(up\|events_readable\|slots\|cpus\|interval_seconds\|lost_slices_total\|event_\)' |
	sed 's/{.*//' | tr '\n' ' ' | grep -qx 'n3telemetry_branch_direct_ratio n3telemetry_branch_indirect_ratio n3telemetry_branch_misprediction_ratio n3telemetry_branch_mpki n3telemetry_branch_return_ratio n3telemetry_ipc '"
t show-arm-group-name sh -c "'$N3TEL' --sysfs '$out/good' show --group Topdown_L1 > '$out/arm.txt' &&
	'$N3TEL' --sysfs '$out/good' show --group topdown_l1 | cmp -s - '$out/arm.txt' && grep -q '^    retiring ' '$out/arm.txt'"
t json-group-filter sh -c "'$N3TEL' --sysfs '$out/good' export --format json --group Topdown_L1 |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert sorted(d[\"system\"][\"metrics\"]) == [\"backend_bound\", \"bad_speculation\", \"frontend_bound\", \"retiring\"]'"

# other cores: names, groups and units come from the tree
t v2-16-groups sh -c "test \$(grep -c '^  [a-zA-Z]' '$out/show-v2.out') = 16"
t v2-no-topdown-frontend sh -c "! grep -q 'topdown_frontend\|frontend_core_bound' '$out/show-v2.out'"
t v2-text-equals-snapshot sh -c "'$N3TEL' --sysfs '$out/v2' --text show --cpu 0 | cmp -s - '$out/show-v2.out'"
t v2-slots sh -c "'$N3TEL' --sysfs '$out/v2' export --format prometheus | grep -qx 'n3telemetry_slots{model=\"neoverse-v2\"} 8'"
for src in --snapshot --text; do
	t n1-show$src sh -c "'$N3TEL' --sysfs '$out/n1' $src show > '$out/n1-show.txt' &&
		! grep -q 'Topdown\|frontend_bound' '$out/n1-show.txt' &&
		grep -q '^  cycle_accounting\$' '$out/n1-show.txt'"
	t n1-top$src sh -c "'$N3TEL' --sysfs '$out/n1' $src top --sort retiring --iterations 1 > '$out/n1-top.txt' &&
		grep -q '^cpu0   \[ no topdown level 1 on neoverse-n1 *\]       -       -       -       - 16.002' '$out/n1-top.txt'"
	t n1-export$src sh -c "'$N3TEL' --sysfs '$out/n1' $src export --format prometheus --scope all > '$out/n1.prom' &&
		promtool check metrics < '$out/n1.prom' && ! grep -q frontend_bound_ratio '$out/n1.prom' &&
		grep -qx 'n3telemetry_cpu_info{cpu=\"3\",model=\"neoverse-n1\"} 1' '$out/n1.prom'"
	t n1-json$src sh -c "'$N3TEL' --sysfs '$out/n1' $src export --format json --scope cpu |
		python3 -c 'import json,sys; d=json.load(sys.stdin); c=d[\"cpus\"][0]; assert c[\"model\"] == \"neoverse-n1\" and \"retiring\" not in c[\"metrics\"] and c[\"metrics\"][\"frontend_stalled_cycles\"][\"value\"] == 14.0 and \"system\" not in d'"
done
t hetero-text-equals-snapshot sh -c "'$N3TEL' --sysfs '$out/hetero' --text export --format prometheus --scope all | cmp -s - '$golden/export-prometheus-hetero'"
t hetero-model-labels sh -c "grep -qx 'n3telemetry_cpu_info{cpu=\"1\",model=\"neoverse-n3\"} 1' '$out/export-prometheus-hetero.out' &&
	grep -qx 'n3telemetry_cpu_info{cpu=\"2\",model=\"neoverse-v2\"} 1' '$out/export-prometheus-hetero.out' &&
	grep -qx 'n3telemetry_slots{model=\"neoverse-v2\"} 8' '$out/export-prometheus-hetero.out' &&
	grep -qx 'n3telemetry_cpus{model=\"neoverse-v2\",state=\"collecting\"} 2' '$out/export-prometheus-hetero.out'"
# a metric only N3 has is exported for the N3 CPUs (and system/, N3's) only
t hetero-per-model-series sh -c "grep -c '^n3telemetry_frontend_core_bound_ratio{cpu=' '$out/export-prometheus-hetero.out' | grep -qx 2 &&
	grep -qx 'n3telemetry_frontend_core_bound_ratio{model=\"neoverse-n3\"} 0.36000000' '$out/export-prometheus-hetero.out'"
t hetero-show sh -c "'$N3TEL' --sysfs '$out/hetero' show --group topdown_frontend > '$out/hetero-show.txt' &&
	grep -q '^cpu2  neoverse-v2  no complete interval yet' '$out/hetero-show.txt' &&
	test \$(grep -c frontend_core_bound '$out/hetero-show.txt') = 2"
t hetero-json sh -c "'$N3TEL' --sysfs '$out/hetero' export --format json --scope all |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert [c[\"model\"] for c in d[\"cpus\"]] == [\"neoverse-n3\"] * 2 + [\"neoverse-v2\"] * 2 and d[\"models\"][\"neoverse-v2\"][\"slots\"] == 8 and d[\"system\"][\"model\"] == \"neoverse-n3\"'"

# composed metrics (a PMU too small for their events together): marked in
# every format, from the text files ("<metric> <value> composed") and from
# the snapshot's composed bitmap alike; nan ones too; exact ones unmarked.
# An older module (no word, records ending before the bitmap) reads as all
# exact, its group ages still read.
fx composed composed
fx composedold composed-old
gold show-composed "$N3TEL" --sysfs "$out/composed" show --cpu 0,2,3 --group topdown_l1 --group general --group ll_cache
gold show-composed-system "$N3TEL" --sysfs "$out/composed" show --cpu system --group topdown_l1
gold top-composed sh -c "'$N3TEL' --sysfs '$out/composed' top --iterations 1 | sed 's|$out/|OUT/|'"
gold export-prometheus-composed "$N3TEL" --sysfs "$out/composed" export --format prometheus --scope all
gold export-json-composed "$N3TEL" --sysfs "$out/composed" export --format json --scope all
gold export-csv-composed "$N3TEL" --sysfs "$out/composed" export --format csv --scope all
# diagnose's JSON lists, per step and next group, the values that are
# composed (mkfixture.py's COMPOSED), as its text marks them ~
"$N3TEL" --sysfs "$out/composed" diagnose --cpu 0 --format json > "$out/diagnose-composed.json" 2>&1
t diagnose-json-composed python3 - "$out/diagnose-composed.json" <<'PY'
import json, sys
composed = {'frontend_bound', 'bad_speculation', 'retiring', 'ipc', 'll_cache_read_hit_ratio'}
d = json.load(open(sys.argv[1]))[0]
parts = d['steps'] + [g for g in d['next'] if g['collected']]
bad = [p for p in parts if p['composed'] != [m for m in p['values'] if m in composed]]
sys.exit(bad or not any(p['composed'] for p in parts))
PY
# the text files and the snapshot give the same outputs (JSON: but "source")
same() {	# same TREE CMD...: --text and --snapshot outputs are identical
	local tree=$1
	shift
	"$N3TEL" --sysfs "$tree" --text "$@" | sed 's/^{"source": "text",/{"source": "X",/' > "$out/same-text.out" &&
	"$N3TEL" --sysfs "$tree" --snapshot "$@" | sed 's/^{"source": "snapshot",/{"source": "X",/' > "$out/same-snap.out" &&
	test -s "$out/same-text.out" && cmp -s "$out/same-text.out" "$out/same-snap.out"
}
for tree in composed composedold; do
	t $tree-text-equals-snapshot-show same "$out/$tree" show
	t $tree-text-equals-snapshot-top same "$out/$tree" top --iterations 1
	t $tree-text-equals-snapshot-prometheus same "$out/$tree" export --format prometheus --scope all
	t $tree-text-equals-snapshot-json same "$out/$tree" export --format json --scope all
	t $tree-text-equals-snapshot-csv same "$out/$tree" export --format csv --scope all
done
# the snapshot's bitmap alone marks (the CPUs' files without the word)
cp -r "$out/composed" "$out/composed-bits"
sed -i 's/ composed$//' "$out"/composed-bits/cpu*/*
t composed-from-snapshot-bitmap sh -c "'$N3TEL' --sysfs '$out/composed' --text show --cpu 0-3 > '$out/cb-text.txt' &&
	grep -q '~' '$out/cb-text.txt' &&
	'$N3TEL' --sysfs '$out/composed-bits' --snapshot show --cpu 0-3 | cmp -s - '$out/cb-text.txt' &&
	! '$N3TEL' --sysfs '$out/composed-bits' --text show --cpu 0-3 | grep -q '~'"
t composed-prometheus-labels python3 - "$out/export-prometheus-composed.out" <<'PY'
import re, sys
prom = open(sys.argv[1]).read()
composed = {'frontend_bound_ratio', 'bad_speculation_ratio', 'retiring_ratio', 'ipc',
            'll_cache_read_hit_ratio'}
samples = re.findall(r'^n3telemetry_(\w+)\{([^}]*)\} (\S+)$', prom, re.M)
seen = set()
for fam, labels, value in samples:
    if fam in composed:
        # system and every CPU, nan ones (the idle cpu2, cpu3's hit ratio) too
        assert labels.endswith(',composed="1"'), (fam, labels)
        seen.add((fam, labels.split(',composed')[0]))
    else:
        assert 'composed' not in labels, (fam, labels)
assert len(seen) == 5 * 5, sorted(seen)
assert 'n3telemetry_ipc{cpu="2",model="neoverse-n3",composed="1"} NaN' in prom.split('\n')
assert 'n3telemetry_ll_cache_read_hit_ratio{cpu="3",model="neoverse-n3",composed="1"} NaN' in prom.split('\n')
assert 'n3telemetry_frontend_bound_ratio{model="neoverse-n3",composed="1"} 0.21370000' in prom.split('\n')
assert 'n3telemetry_backend_bound_ratio{model="neoverse-n3"} 0.34020000' in prom.split('\n')
PY
t composed-promtool sh -c "promtool check metrics < '$out/export-prometheus-composed.out'"
# JSON: "composed": true on the composed metrics, no such member on the others
t composed-json python3 - "$out/export-json-composed.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
composed = {'frontend_bound', 'bad_speculation', 'retiring', 'ipc', 'll_cache_read_hit_ratio'}
for v in [d['system']] + d['cpus']:
    for name, m in v['metrics'].items():
        if name in composed:
            assert m['composed'] is True and list(m)[-1] == 'composed', (name, m)
        else:
            assert 'composed' not in m, (name, m)
c = d['cpus']
assert c[0]['metrics']['frontend_bound'] == {'value': 21.37, 'unit': 'percent of slots', 'selected': True, 'composed': True}
assert c[2]['metrics']['ipc'] == {'value': None, 'unit': 'per cycle', 'selected': True, 'composed': True}
assert c[3]['metrics']['ll_cache_read_hit_ratio'] == {'value': None, 'unit': 'per cache access', 'selected': True, 'composed': True}
assert c[0]['metrics']['backend_bound'] == {'value': 34.02, 'unit': 'percent of slots', 'selected': True}
PY
t composed-csv python3 - "$out/export-csv-composed.out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
composed = {'frontend_bound', 'bad_speculation', 'retiring', 'ipc', 'll_cache_read_hit_ratio'}
assert list(rows[0])[-1] == 'composed' and len(rows) == 5 * 67
for x in rows:
    assert x['composed'] == ('1' if x['metric'] in composed else '0'), x
r = {(x['scope'], x['cpu'], x['metric']): x for x in rows}
assert r[('cpu', '3', 'll_cache_read_hit_ratio')]['value'] == 'nan'
assert r[('system', '', 'frontend_bound')]['value'] == '21.37'
PY
# show and top: "~" before a composed value (nan too), a line saying what it means
t composed-show-marks sh -c "grep -qx '    frontend_bound  *~21.37  percent of slots' '$out/show-composed.out' &&
	grep -qx '    backend_bound  *34.02  percent of slots' '$out/show-composed.out' &&
	grep -qx '    ipc  *~nan  per cycle' '$out/show-composed.out' &&
	test \$(grep -c '^~ composed: ' '$out/show-composed.out') = 1 &&
	! grep -q '~' '$golden/show'"
t composed-top-marks sh -c "grep -q '^n3tel top - .*  ~composed (not exact)' '$out/top-composed.out' &&
	grep -q '^cpu3 .*  ~40.00 .*  ~-1.25   55.00  *~79.002 ' '$out/top-composed.out' &&
	! '$N3TEL' --sysfs '$out/good' top --iterations 1 | grep -q '~'"
# in an 80-column terminal the wider columns still fit
t composed-top-80-columns sh -c "script -q -e -c \"stty cols 80 rows 24; TERM=dumb '$N3TEL' --sysfs '$out/composed' top --iterations 1\" /dev/null |
	tr -d '\r' > '$out/top-composed-80.txt' && awk 'length(\$0) > 80 { bad = 1 } END { exit bad }' '$out/top-composed-80.txt' &&
	grep -q '^cpu0 .* ~21.37' '$out/top-composed-80.txt'"
# an older module: nothing marked, the same values, the group ages read
t composed-old-all-exact sh -c "'$N3TEL' --sysfs '$out/composedold' --snapshot export --format prometheus --scope all > '$out/cold.prom' &&
	! grep -q composed '$out/cold.prom' &&
	sed 's/,composed=\"1\"//' '$out/export-prometheus-composed.out' | cmp -s - '$out/cold.prom' &&
	'$N3TEL' --sysfs '$out/composedold' --snapshot export --format json --scope all > '$out/cold.json' &&
	! grep -q composed '$out/cold.json' &&
	sed 's/, \"composed\": true//' '$out/export-json-composed.out' | cmp -s - '$out/cold.json' &&
	'$N3TEL' --sysfs '$out/composedold' --snapshot export --format csv --scope all > '$out/cold.csv' &&
	test \$(grep -vc ',0\$' '$out/cold.csv') = 1 && head -1 '$out/cold.csv' | grep -q ',selected,composed\$'"
t composed-old-show sh -c "'$N3TEL' --sysfs '$out/composedold' --snapshot show --cpu 0,2,3 --group topdown_l1 --group general --group ll_cache > '$out/cold-show.txt' &&
	sed 's/~/ /' '$golden/show-composed' | head -n -3 | cmp -s - '$out/cold-show.txt' &&
	'$N3TEL' --sysfs '$out/composedold' --snapshot top --iterations 1 > '$out/cold-top.txt' &&
	! grep -q '~' '$out/cold-top.txt' && grep -q ' age\$' '$out/cold-top.txt' && grep -q '^cpu1 .* 0.0s\$' '$out/cold-top.txt'"
# a third field other than "composed", or a fourth, is malformed
cp -r "$out/composed" "$out/composed-bad"
sed -i 's/^ipc \(.*\) composed$/ipc \1 composite/' "$out/composed-bad/cpu1/general"
err composed-bad-word "malformed line in .*cpu1/general: \"ipc 88.002 composite\"" "$N3TEL" --sysfs "$out/composed-bad" --text show
sed -i 's/^ipc \(.*\) composite$/ipc \1 composed composed/' "$out/composed-bad/cpu1/general"
err composed-extra-field "malformed line in .*cpu1/general" "$N3TEL" --sysfs "$out/composed-bad" --text export --format json --scope all

# a fleet host: 192 CPUs.  The default export is system/ only, and its size
# does not depend on the CPU count: 2 series per counted event, one per
# selected metric, and the fixed ones.
fxn() {	# fxn NAME CPUS [VARIANT [MODEL...]]
	local name=$1 n=$2
	shift 2
	rm -rf "$out/$name"
	N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" --cpus "$n" "$out/$name" "${@:-good}"
}
fxn big 192
"$N3TEL" --sysfs "$out/big" export --format prometheus > "$out/big.prom"
"$N3TEL" --sysfs "$out/big" export --format prometheus --scope all --max-series 100000 > "$out/big-all.prom"
expected() {	# expected TREE SCOPE: the series n3tel must export, from the tree's files
	python3 - "$1" "$2" <<'PY'
import os, sys
root, scope = sys.argv[1:3]
rd = lambda *p: open(os.path.join(root, *p)).read().split('\n')[:-1]
model = rd('cpu_model')[0].split()[0]
sel = set(rd('groups')[0].split())
metrics = {m for l in rd('models', model, 'groups') for m in l.split()[2:] if l.split()[0] in sel}
events = len(rd('system', 'events'))
cpus = [d for d in os.listdir(root) if d.startswith('cpu') and d[3:].isdigit()]
# up, events_readable; per model slots and 5 states of n3telemetry_cpus;
# system/'s interval and lost slices
fixed = 2 + 6 * len(rd('cpu_model')) + 2
view = 2 * events + len(metrics)
n = fixed
if scope in ('system', 'all'):
    n += view
if scope in ('cpu', 'all'):   # per CPU: cpu_info, interval, lost slices too
    n += len(cpus) * (view + 3)
print(n)
PY
}
series() { grep -c '^n3telemetry_' "$1"; }
want=$(expected "$out/big" system)
t big-default-series-exact test "$(series "$out/big.prom")" = "$want"
t big-default-series-bounded test "$(series "$out/big.prom")" -le 300
t big-all-series-exact test "$(series "$out/big-all.prom")" = "$(expected "$out/big" all)"
t big-default-equals-4cpu-size test "$(series "$out/big.prom")" = "$(series "$golden/export-prometheus")"
echo "# 192 CPUs: $(series "$out/big.prom") series by default (expected $want), $(series "$out/big-all.prom") with --scope all"
t hetero-default-series-exact sh -c "test \$('$N3TEL' --sysfs '$out/hetero' export --format prometheus | grep -c '^n3telemetry_') = $(expected "$out/hetero" system)"
t big-promtool sh -c "promtool check metrics < '$out/big.prom' && promtool check metrics < '$out/big-all.prom'"
# every selectable group, system scope: still within the bound
fxn bigall 192 all-groups
"$N3TEL" --sysfs "$out/bigall" export --format prometheus > "$out/bigall.prom"
t big-all-groups-series-exact test "$(series "$out/bigall.prom")" = "$(expected "$out/bigall" system)"
t big-all-groups-bounded test "$(series "$out/bigall.prom")" -le 300
# a snapshot beyond 1 MiB (512 CPUs) is read whole, not truncated
fxn huge 512
t snapshot-over-1mib sh -c "test \$(stat -c %s '$out/huge/snapshot') -gt 1048576 &&
	'$N3TEL' --sysfs '$out/huge' --snapshot export --format csv --scope cpu > '$out/huge-snap.csv' &&
	'$N3TEL' --sysfs '$out/huge' --text export --format csv --scope cpu | cmp -s - '$out/huge-snap.csv' &&
	test \$(grep -c '^cpu,511,' '$out/huge-snap.csv') = 67"
# an older module's tree (no cpuN/ages; this fixture has none) is read
# without waiting for the file: the wait is for a CPU coming online (its
# cpu_model not there yet), and cost 100 ms per CPU and read (51 s here)
t no-ages-no-wait sh -c "strace -f -qq -e trace=nanosleep,clock_nanosleep -o '$out/huge.strace' \
	'$N3TEL' --sysfs '$out/huge' --text export --format csv --scope cpu > /dev/null &&
	! test -e '$out/huge/cpu0/ages' && ! test -e '$out/huge/system/ages' &&
	! grep -q sleep '$out/huge.strace'"
# a module with ages files (system/ages there) whose cpuN/ages is missing:
# a CPU going offline (its files removed one by one, status and ages
# before cpu_model) or coming online, waited for, as before
cp -r "$out/rotate" "$out/rotate-noages1"
rm "$out/rotate-noages1/cpu1/ages"
t ages-missing-one-cpu-waits sh -c "strace -f -qq -e trace=nanosleep,clock_nanosleep -o '$out/noages1.strace' \
	'$N3TEL' --sysfs '$out/rotate-noages1' --text export --format csv --scope cpu > /dev/null;
	test -e '$out/rotate-noages1/system/ages' && test \$(grep -c sleep '$out/noages1.strace') -ge 5"

# errors: err() above
err module-missing "not loaded" "$N3TEL" --sysfs "$out/nonexistent" show
err diagnose-format 'diagnose takes --format text or json' "$N3TEL" --sysfs "$out/good" diagnose --format csv
err diagnose-no-cpu 'no CPU 9 in' "$N3TEL" --sysfs "$out/good" diagnose --cpu 9
err diagnose-not-loaded "not loaded" "$N3TEL" --sysfs "$out/nonexistent" diagnose
fx malformed malformed
err malformed "malformed line" "$N3TEL" --sysfs "$out/malformed" --text show
# hidden events (status hidden_events): shown and exported where some are,
# nothing where none are; a name other than [A-Z0-9_,] is malformed
fx hidden hidden
t hidden-show sh -c "'$N3TEL' --sysfs '$out/hidden' --text show --cpu 1 |
	grep -q '^  hidden events (counted nothing while the CPU ran; their metrics nan): INST_RETIRED,OP_SPEC\$'"
t hidden-show-system sh -c "'$N3TEL' --sysfs '$out/hidden' --text show --cpu system | grep -q 'hidden events.*: INST_RETIRED,OP_SPEC\$'"
t hidden-show-snapshot sh -c "'$N3TEL' --sysfs '$out/hidden' show --cpu 1 | grep -q 'hidden events.*: INST_RETIRED,OP_SPEC\$'"
t hidden-none-not-shown sh -c "! '$N3TEL' --sysfs '$out/hidden' --text show --cpu 0 | grep -q hidden"
t hidden-json python3 -c "
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], '--sysfs', sys.argv[2], '--text', 'export', '--format', 'json', '--scope', 'all'],
                              capture_output=True, check=True).stdout)
h = {c['cpu']: c.get('hidden_events') for c in d['cpus']}
assert h == {0: None, 1: 'INST_RETIRED,OP_SPEC', 2: None, 3: None}, h
assert d['system']['hidden_events'] == 'INST_RETIRED,OP_SPEC', d['system']
" "$N3TEL" "$out/hidden"
fx malformed-hidden malformed-hidden
err malformed-hidden "malformed line in .*cpu1/status" "$N3TEL" --sysfs "$out/malformed-hidden" --text show
for h in ',' 'A,,B' 'A,' ''; do
	sed -i "s/^hidden_events .*/hidden_events $h/" "$out/malformed-hidden/cpu1/status"
	err "malformed-hidden-'$h'" "malformed line in .*cpu1/status" "$N3TEL" --sysfs "$out/malformed-hidden" --text show
done
fx missing missing-file
err missing-file "cannot read .*cpu3/l2_cache" "$N3TEL" --sysfs "$out/missing" --text export --format json --scope all
fx badmagic bad-magic
err bad-magic "not an n3telemetry snapshot" "$N3TEL" --sysfs "$out/badmagic" export --format json
fx swapped swapped
err byte-order "snapshot written with the other byte order" "$N3TEL" --sysfs "$out/swapped" show
fx badver bad-version
err bad-version "ABI version 1, this n3tel reads version 2" "$N3TEL" --sysfs "$out/badver" show
fx badsize bad-sizes
err bad-sizes "sizes do not match" "$N3TEL" --sysfs "$out/badsize" export --format prometheus
fx truncated truncated
err truncated "truncated snapshot" "$N3TEL" --sysfs "$out/truncated" export --format json
head -c 30 "$out/good/snapshot" > "$out/truncated/snapshot"
err truncated-header "truncated snapshot" "$N3TEL" --sysfs "$out/truncated" top --iterations 1
fx badnames bad-names
err bad-names "malformed names section, line 4" "$N3TEL" --sysfs "$out/badnames" show
fx badmodel bad-model-index neoverse-n3 neoverse-v2
err bad-model-index "record 3 (cpu3) has model 2, the snapshot describes 2" "$N3TEL" --sysfs "$out/badmodel" export --format prometheus
fx toomany too-many-metrics
err too-many-metrics "97 metrics, at most 96" "$N3TEL" --sysfs "$out/toomany" show
err unknown-cpu-model "not described by the module" sh -c "cp -r '$out/hetero' '$out/hetero-bad' && rm '$out/hetero-bad/snapshot' &&
	echo neoverse-x9 > '$out/hetero-bad/cpu3/cpu_model' && '$N3TEL' --sysfs '$out/hetero-bad' show"
rm -f "$out/unreadable" && mkdir -p "$out/unreadable" && cp -r "$out/good/." "$out/unreadable/" &&
	rm "$out/unreadable/cpu0/status" && mkdir "$out/unreadable/cpu0/status"
err unreadable "cannot read .*status" "$N3TEL" --sysfs "$out/unreadable" --text show
err bad-format "prometheus, --format json or --format csv" "$N3TEL" --sysfs "$out/good" export --format xml
err bad-group "unknown group" "$N3TEL" --sysfs "$out/good" show --group nosuch
err bad-cpu "bad --cpu" "$N3TEL" --sysfs "$out/good" show --cpu x
t usage-exit-2 sh -c "'$N3TEL' bogus-command 2>/dev/null; test \$? = 2"

# the command line: every option is checked, and belongs to its command
t version sh -c "'$N3TEL' --version | grep -qx 'n3tel [0-9][0-9.]* (snapshot ABI 2)'"
err show-format "--format does not apply to show" "$N3TEL" --sysfs "$out/good" show --format json
err export-sort "--sort does not apply to export" "$N3TEL" --sysfs "$out/good" export --format json --sort ipc
err top-dir "--dir does not apply to top" "$N3TEL" --sysfs "$out/good" top --iterations 1 --dir /tmp
err show-scope "--scope does not apply to show" "$N3TEL" --sysfs "$out/good" show --scope all
err textfile-format "--format does not apply to textfile" "$N3TEL" --sysfs "$out/good" textfile --dir "$out" --format json
err unknown-option "unknown option \"--bogus\"" "$N3TEL" --sysfs "$out/good" show --bogus
err missing-argument "--cpu needs an argument" "$N3TEL" --sysfs "$out/good" show --cpu
err cpu-missing "no CPU 99 in" "$N3TEL" --sysfs "$out/good" show --cpu 99
err cpu-range-missing "no CPU 8-9 in" "$N3TEL" --sysfs "$out/good" show --cpu 1,8-9
err cpu-bad-range "bad --cpu" "$N3TEL" --sysfs "$out/good" show --cpu 3-1
err cpu-empty-item "bad --cpu" "$N3TEL" --sysfs "$out/good" show --cpu 1,,2
# a negative CPU: refused before anything is opened (pause shifted by it)
err cpu-negative "CPU numbers are 0 or more" "$N3TEL" --sysfs "$out/good" show --cpu -3
err pause-cpu-negative "CPU numbers are 0 or more" "$N3TEL" --sysfs "$out/good" pause --cpu -3 -- true
t cpu-range-ok sh -c "'$N3TEL' --sysfs '$out/good' show --cpu 1-2 --group general | grep -c '^cpu' | grep -qx 2"
err delay-small "--delay wants seconds from 0.1 to 3600" "$N3TEL" --sysfs "$out/good" top --delay 0.05
err delay-large "--delay wants seconds from 0.1 to 3600" "$N3TEL" --sysfs "$out/good" top --delay 3601
err delay-junk "--delay wants seconds" "$N3TEL" --sysfs "$out/good" top --delay 1s
err delay-nan "--delay wants seconds" "$N3TEL" --sysfs "$out/good" top --delay nan
err iterations-zero "--iterations wants a whole number" "$N3TEL" --sysfs "$out/good" top --iterations 0
err every-junk "--every wants a whole number" "$N3TEL" --sysfs "$out/good" textfile --dir "$out" --every 1x
err scope-bad "--scope wants system, cpu or all" "$N3TEL" --sysfs "$out/good" export --format prometheus --scope cpus
err metric-unknown "unknown metric \"nosuch\"" "$N3TEL" --sysfs "$out/good" export --format prometheus --metric nosuch
err export-group-unknown "unknown group \"Topdown_L9\"" "$N3TEL" --sysfs "$out/good" export --format json --group Topdown_L9
err max-series-json "--max-series applies to --format prometheus only" "$N3TEL" --sysfs "$out/good" export --format json --max-series 10
err max-series-junk "--max-series wants a whole number" "$N3TEL" --sysfs "$out/good" export --format prometheus --max-series 0
err sort-bad "unknown --sort" "$N3TEL" --sysfs "$out/good" top --sort nosuch
# a fraction of a second: two screens 0.3 s apart
t delay-fraction sh -c "s=\$(date +%s%N); '$N3TEL' --sysfs '$out/good' top --iterations 2 --delay 0.3 > '$out/top2.txt' &&
	e=\$(date +%s%N); test \$(( (e - s) / 1000000 )) -ge 300 && test \$(( (e - s) / 1000000 )) -lt 1000 &&
	test \$(grep -c '^n3tel top' '$out/top2.txt') = 2"
# too many series: one line, nothing on stdout, never a truncated scrape
err max-series "[0-9]* series, more than --max-series 300 allows" "$N3TEL" --sysfs "$out/big" export --format prometheus --scope cpu
err max-series-small "series, more than --max-series 50 allows" "$N3TEL" --sysfs "$out/good" export --format prometheus --max-series 50
t max-series-exact sh -c "n=\$(grep -c '^n3telemetry_' '$golden/export-prometheus') &&
	'$N3TEL' --sysfs '$out/good' export --format prometheus --max-series \$n > /dev/null &&
	! '$N3TEL' --sysfs '$out/good' export --format prometheus --max-series \$((n - 1)) > /dev/null 2>&1"

# counters not readable (not root): n3telemetry_events_readable 0, one
# warning, exit 0, everything else still there
nr=$(mktemp -d /tmp/n3tel-nonroot.XXXXXX)
chmod 755 "$nr"
cp -r "$out/good" "$nr/tree"
chmod -R a+rX "$nr/tree"
chmod 400 "$nr/tree/snapshot" "$nr"/tree/*/events
asuser() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
asuser "$N3TEL" --sysfs "$nr/tree" export --format prometheus > "$out/nonroot.prom" 2> "$out/nonroot.err"
rc=$?
t nonroot-exit-0 test $rc = 0
t nonroot-events-readable-0 sh -c "grep -qx 'n3telemetry_events_readable 0' '$out/nonroot.prom' && ! grep -q '^n3telemetry_event_' '$out/nonroot.prom' &&
	grep -qx 'n3telemetry_frontend_bound_ratio{model=\"neoverse-n3\"} 0.21370000' '$out/nonroot.prom' && promtool check metrics < '$out/nonroot.prom'"
t nonroot-warning sh -c "test \$(wc -l < '$out/nonroot.err') = 1 && grep -q 'warning: cannot read .*system/events: Permission denied.*root-only' '$out/nonroot.err'"
asuser "$N3TEL" --sysfs "$nr/tree" export --format json --scope all > "$out/nonroot.json" 2> /dev/null
t nonroot-json python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["events_readable"] is False and "events" not in d["system"] and d["source"] == "text" and "events" not in d["cpus"][0]' "$out/nonroot.json"
rm -rf "$nr"

# a CPU going offline between the listing and the reading (its directory
# listed, gone when read) is left out this round, not an error
cp -r "$out/good" "$out/hotplug"
ln -s "$out/hotplug/gone" "$out/hotplug/cpu4"
for src in --snapshot --text; do
	t hotplug-top$src sh -c "'$N3TEL' --sysfs '$out/hotplug' $src top --iterations 1 > '$out/hp-top.txt' &&
		test \$(grep -c '^cpu[0-9]' '$out/hp-top.txt') = 4"
	t hotplug-export$src sh -c "'$N3TEL' --sysfs '$out/hotplug' $src export --format prometheus --scope all > '$out/hp.prom' &&
		! grep -q 'cpu=\"4\"' '$out/hp.prom' && grep -qx 'n3telemetry_cpus{model=\"neoverse-n3\",state=\"collecting\"} 4' '$out/hp.prom'"
	t hotplug-textfile$src sh -c "mkdir -p '$out/hp-tf' && '$N3TEL' --sysfs '$out/hotplug' $src textfile --dir '$out/hp-tf' &&
		grep -qx 'n3telemetry_up 1' '$out/hp-tf/n3telemetry.prom'"
done
err hotplug-show-named "no CPU 4 in" "$N3TEL" --sysfs "$out/hotplug" --text show --cpu 4
# (a file missing from a directory that is there is still an error: error-missing-file)
# a file beyond what n3tel reads (64 MiB) is an error, never truncated
cp -r "$out/good" "$out/toobig" && truncate -s 65M "$out/toobig/snapshot"
err snapshot-too-big "cannot read .*snapshot: File too large" "$N3TEL" --sysfs "$out/toobig" export --format json

# textfile: atomic; a failure leaves only n3telemetry_up 0, never stale data
tf=$out/textfile
mkdir -p "$tf"
t textfile-writes "$N3TEL" --sysfs "$out/good" textfile --dir "$tf"
t textfile-content cmp -s "$tf/n3telemetry.prom" "$golden/export-prometheus"
"$N3TEL" --sysfs "$out/malformed" --text textfile --dir "$tf" --scope all --max-series 1000 > "$out/tf.out" 2> "$out/tf.err"
rc=$?
printf '%s\n' '# HELP n3telemetry_up Whether n3tel could read the module'"'"'s data (1) or not (0: see its standard error).' \
	'# TYPE n3telemetry_up gauge' 'n3telemetry_up 0' > "$out/up0.prom"
t textfile-failure-up-0 sh -c "test $rc = 1 && cmp -s '$tf/n3telemetry.prom' '$out/up0.prom' &&
	test \$(wc -l < '$out/tf.err') = 1 && grep -q 'malformed line' '$out/tf.err' && test ! -s '$out/tf.out'"
t textfile-up-0-promtool sh -c "promtool check metrics < '$tf/n3telemetry.prom'"
"$N3TEL" --sysfs "$out/nonexistent" textfile --dir "$tf" 2> "$out/tf.err"
t textfile-module-missing-up-0 sh -c "test $? = 1 && cmp -s '$tf/n3telemetry.prom' '$out/up0.prom' && grep -q 'not loaded' '$out/tf.err'"
"$N3TEL" --sysfs "$out/big" textfile --dir "$tf" --scope all 2> "$out/tf.err"
t textfile-max-series-up-0 sh -c "test $? = 1 && cmp -s '$tf/n3telemetry.prom' '$out/up0.prom' &&
	test \$(wc -l < '$out/tf.err') = 1 && grep -q 'more than --max-series 300' '$out/tf.err'"
t textfile-recovers sh -c "'$N3TEL' --sysfs '$out/good' textfile --dir '$tf' && cmp -s '$tf/n3telemetry.prom' '$golden/export-prometheus'"
t textfile-no-temp-left sh -c "! ls -A '$tf' | grep -v '^n3telemetry.prom\$'"
err textfile-bad-dir "cannot create" "$N3TEL" --sysfs "$out/good" textfile --dir "$out/no/such/dir"
# --every: a read error is retried (up 0 meanwhile, said once), the scrape comes back
cp -r "$out/good" "$out/flaky" && mv "$out/flaky/version" "$out/flaky/version.off"
tfe=$out/textfile-every
mkdir -p "$tfe"
"$N3TEL" --sysfs "$out/flaky" textfile --dir "$tfe" --every 1 2> "$out/tfe.err" &
tpid=$!
sleep 2.5
cmp -s "$tfe/n3telemetry.prom" "$out/up0.prom"
r1=$?
mv "$out/flaky/version.off" "$out/flaky/version"
sleep 1.5
kill -TERM $tpid
wait $tpid
t textfile-every-retries sh -c "test $r1 = 0 && test \$(wc -l < '$out/tfe.err') = 1 &&
	grep -q 'not loaded' '$out/tfe.err' && cmp -s '$tfe/n3telemetry.prom' '$golden/export-prometheus'"
# the data refused, as the module refuses it to a user without CAP_PERFMON
# (the group files, events, the snapshot; here made mode 0400 in a copy, the
# configuration and status readable): every command that reads data says in
# one line which file and what to do, exits 1 and prints nothing; the
# fallback from the snapshot to the text files hides nothing
na=$(mktemp -d /tmp/n3tel-noaccess.XXXXXX)
chmod 755 "$na"
cp -r "$out/good" "$na/tree"
chmod -R a+rX "$na/tree"
chmod 400 "$na/tree/snapshot"
find "$na/tree/system" "$na"/tree/cpu[0-9]* -type f ! -name status ! -name cpu_model -exec chmod 400 {} +
why=": run as root, or load n3telemetry with world_readable=1"
denied() {	# denied NAME FILE CMD...: one line naming FILE, exit 1, no stdout
	local name=$1 file=$2
	shift 2
	asuser "$N3TEL" --sysfs "$na/tree" "$@" > "$out/denied.out" 2> "$out/denied.err"
	local rc=$?
	if [ $rc = 1 ] && [ ! -s "$out/denied.out" ] &&
	   [ "$(cat "$out/denied.err")" = "n3tel: reading $na/tree/$file needs CAP_PERFMON$why" ]; then
		ok "denied-$name"
	else
		echo "# rc=$rc: $(cat "$out/denied.err")"
		nok "denied-$name"
	fi
}
denied show cpu0/topdown_l1 show
denied show-system system/topdown_l1 show --cpu system
denied show-text cpu0/topdown_l1 --text show --cpu 1
denied show-snapshot snapshot --snapshot show
denied top cpu0/topdown_l1 top --iterations 1
denied export-prometheus system/topdown_l1 export --format prometheus
denied export-json-cpu cpu0/topdown_l1 export --format json --scope cpu
denied export-csv cpu0/topdown_l1 export --format csv --scope all
# textfile's failure convention: only n3telemetry_up 0 is left behind
mkdir -p "$na/tf" && chmod 777 "$na/tf" && cp "$golden/export-prometheus" "$na/tf/n3telemetry.prom"
denied textfile-up-0 system/topdown_l1 textfile --dir "$na/tf"
t denied-textfile-leaves-up-0 cmp -s "$na/tf/n3telemetry.prom" "$out/up0.prom"
# --every: up 0 every round, the line said once
asuser "$N3TEL" --sysfs "$na/tree" textfile --dir "$na/tf" --every 1 2> "$out/denied-every.err" &
tpid=$!
sleep 2.5
kill -TERM $tpid
wait $tpid
t denied-textfile-every-once sh -c "test \$(wc -l < '$out/denied-every.err') = 1 &&
	grep -qx 'n3tel: reading $na/tree/system/topdown_l1 needs CAP_PERFMON$why' '$out/denied-every.err' &&
	cmp -s '$na/tf/n3telemetry.prom' '$out/up0.prom'"
# the configuration and status are not data
t denied-config-readable asuser sh -c "cat $na/tree/groups $na/tree/cpu0/status $na/tree/models/neoverse-n3/metrics > /dev/null"
rm -rf "$na"
# SIGTERM in the middle of a write leaves no temporary file: the temporary
# file is a FIFO nobody reads, so the write blocks after 64 KiB
tfs=$out/textfile-sigterm
rm -rf "$tfs" && mkdir -p "$tfs"
python3 - "$N3TEL" "$out/big" "$tfs" <<'PY' > "$out/sigterm.log" 2>&1
import os, signal, subprocess, sys, time
n3tel, tree, d = sys.argv[1:4]
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.read(r, 1)       # wait for the FIFO named after this pid
    os.execv(n3tel, [n3tel, '--sysfs', tree, 'textfile', '--dir', d, '--every', '60',
                     '--scope', 'all', '--max-series', '100000'])
fifo = os.path.join(d, f'.n3telemetry.prom.{pid}')
os.mkfifo(fifo)
rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader that never reads
os.write(w, b'x')
time.sleep(1.5)
wchan = open(f'/proc/{pid}/wchan').read()
os.kill(pid, signal.SIGTERM)
_, status = os.waitpid(pid, 0)
left = sorted(os.listdir(d))
print('wchan', wchan, 'status', status, 'left', left)
sys.exit(0 if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM and left == [] else 1)
PY
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$out/sigterm.log"
t textfile-sigterm-no-temp test $rc = 0

# (the rules and the dashboard against these exports: selftests/host/rules.sh)

# node_exporter's textfile collector serves the file of a 192-CPU host
tfb=$out/textfile-big
mkdir -p "$tfb"
"$N3TEL" --sysfs "$out/big" textfile --dir "$tfb"
port=
for _ in 1 2 3 4 5; do	# a free port
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
		port=$p
		break
	fi
done
prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tfb" > "$out/node_exporter.log" 2>&1 &
ne=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$port/metrics" > "$out/metrics.txt" 2>/dev/null && break
	sleep 0.1
done
kill $ne 2>/dev/null
wait $ne 2>/dev/null
t node-exporter-serves grep -q '^n3telemetry_frontend_bound_ratio{model="neoverse-n3"} 0.2137$' "$out/metrics.txt"
t node-exporter-counters grep -q '^n3telemetry_event_cpu_cycles_total{model="neoverse-n3"} ' "$out/metrics.txt"
t node-exporter-series-count test "$(grep -c '^n3telemetry_' "$out/metrics.txt")" = "$(expected "$out/big" system)"
t node-exporter-no-textfile-error grep -q '^node_textfile_scrape_error 0$' "$out/metrics.txt"

# n3tel top in a terminal: colour bars; piped: plain letters
tmux kill-session -t n3teltest 2>/dev/null
tmux new-session -d -s n3teltest -x 160 -y 20 \
	"TERM=xterm-256color '$N3TEL' --sysfs '$out/good' top --sort backend --delay 1; sleep 30"
sleep 1.5
tmux capture-pane -e -p -t n3teltest > "$out/top.pane"
tmux kill-session -t n3teltest 2>/dev/null
t top-tmux-bars grep -q $'\033\\[4[1-5]m' "$out/top.pane"
t top-tmux-rows sh -c "grep -c '^cpu[0-9]' '$out/top.pane' | grep -qx 4"
t top-tmux-system-row grep -q '^system \[' "$out/top.pane"
t top-sorted-backend sh -c "grep '^cpu[0-9]' '$out/top.pane' | head -1 | grep -q '^cpu1 '"
"$N3TEL" --sysfs "$out/good" top --iterations 1 > "$out/top.txt"
t top-plain-when-piped sh -c "! grep -q $'\033' '$out/top.txt' && grep -q '^cpu0  *\[RRRRRRRRRRRRRRRRRSFFFFFFFFFBBBBBBBBBBBBB\]' '$out/top.txt' &&
	grep -q '^system \[' '$out/top.txt' && test \$(grep -c '^cpu[0-9]' '$out/top.txt') = 4"
# 192 CPUs in an 80x24 terminal: no line wider than 80, the heads stay,
# as many rows as fit; resized to 120x40 it lays out again; ^C exits 0
tmux new-session -d -s n3teltest -x 80 -y 24 \
	"TERM=xterm-256color '$N3TEL' --sysfs '$out/big' top --delay 30; echo rc=\$? > '$out/top-rc'; sleep 30"
sleep 1.5
tmux capture-pane -p -t n3teltest > "$out/top80.pane"
tmux resize-window -t n3teltest -x 120 -y 40 2> /dev/null || tmux resize-pane -t n3teltest -x 120 -y 40
sleep 1
tmux capture-pane -p -t n3teltest > "$out/top120.pane"
tmux send-keys -t n3teltest C-c
sleep 1
tmux kill-session -t n3teltest 2>/dev/null
width_ok() {	# width_ok PANE COLS ROWS: lines fit, heads first, rows - 5 CPUs and a "more" line
	awk -v c="$2" 'length($0) > c { bad = 1 } END { exit bad }' "$1" &&
	head -1 "$1" | grep -q '^n3tel top - ' && sed -n 2p "$1" | grep -q '^CPU  *topdown level 1' &&
	sed -n 3p "$1" | grep -q '^system ' &&
	test "$(grep -c '^cpu[0-9]' "$1")" = $(($3 - 5)) && grep -q '^(.* more CPUs' "$1"
}
t top-80x24-fits width_ok "$out/top80.pane" 80 24
# at 80 columns the rows fill the width: a 14-column bar, LLC-MPKI left out
t top-80x24-layout sh -c "! grep -q 'LLC-MPKI' '$out/top80.pane' && grep -q 'L2-MPKI' '$out/top80.pane' &&
	sed -n 3p '$out/top80.pane' | grep -q '^system \[.\{14\}\] ' && test \$(sed -n 3p '$out/top80.pane' | wc -L) = 80"
t top-resized-120x40 width_ok "$out/top120.pane" 120 40
t top-resized-more-columns grep -q 'LLC-MPKI' "$out/top120.pane"
t top-sigint-exit-0 grep -qx 'rc=0' "$out/top-rc"
"$N3TEL" --sysfs "$out/good" top --delay 30 > /dev/null &
tp=$!
sleep 0.5
kill -TERM $tp
wait $tp
t top-sigterm-exit-0 test $? = 0
# in a terminal (script(1), 80x24): SIGTERM shows the cursor again, exit 0
rm -f "$out/top.pid"
script -q -e -c "stty cols 80 rows 24; echo \$\$ > '$out/top.pid'; TERM=xterm exec '$N3TEL' --sysfs '$out/good' top --delay 30" \
	"$out/top.typescript" > /dev/null 2>&1 &
sp=$!
for _ in $(seq 30); do [ -s "$out/top.pid" ] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$(cat "$out/top.pid")"
wait $sp
rc=$?
t top-terminal-restored python3 - "$out/top.typescript" "$rc" <<'PY'
import re, sys
ts = open(sys.argv[1], 'rb').read()
# hidden while running, shown again (colours reset) once SIGTERM ended it
assert sys.argv[2] == '0' and b'\x1b[?25l' in ts
assert ts.rindex(b'\x1b[0m\x1b[?25h') > ts.rindex(b'\x1b[?25l')
PY
t top-terminal-80-columns python3 - "$out/top.typescript" <<'PY'
import re, sys
ts = open(sys.argv[1], 'rb').read().decode()
lines = [re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', l).rstrip('\r') for l in ts.split('\n')]
lines = [l for l in lines if not l.startswith('Script ')]
assert max(map(len, lines)) <= 80 and any(len(l) == 80 for l in lines)
assert 'L2-MPKI' in ts and 'LLC-MPKI' not in ts
PY
