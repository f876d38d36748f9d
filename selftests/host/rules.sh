#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the Prometheus recording rules and their generated test are what
# tools/prometheus/gen_rules.py and gen_rules_test.py make from Arm's
# descriptions today, promtool accepts them and their tests pass, and the
# generator refuses formulas it cannot translate.  Prints ok / not ok lines.
# usage: rules.sh [BUILDDIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
prom=$top/tools/prometheus
specdir=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}
# Arm's descriptions, and the project's own generic one (tools/models)
specs=("$specdir"/neoverse-*.json "$top/tools/models/generic.json")
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
mkdir -p "$out"
tmp=$(mktemp -d "$out/rules.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -r "${specs[0]}" ]; then
	echo "# SKIP generators: no descriptions in $specdir (set N3T_SPEC_DIR)"
	ok rules-generator-skipped
else
	# no drift: the committed files are what the generators make today
	nodrift() {	# nodrift NAME GENERATOR FILE
		if ! python3 "$prom/$2" -o "$tmp/$3" "${specs[@]}" 2> "$tmp/$1.err"; then
			sed 's/^/# /' "$tmp/$1.err"
			nok "$1-generator-runs"
			return
		fi
		ok "$1-generator-runs"
		if cmp -s "$tmp/$3" "$prom/$3"; then
			ok "$1-no-drift"
		else
			diff -u "$prom/$3" "$tmp/$3" | head -20 | sed 's/^/# /'
			echo "# regenerate: python3 tools/prometheus/$2 -o tools/prometheus/$3 $specdir/neoverse-*.json tools/models/generic.json"
			nok "$1-no-drift"
		fi
	}
	nodrift rules gen_rules.py n3telemetry.rules.yml
	nodrift rules-test gen_rules_test.py n3telemetry.rules.models.test.yml
	# the order of the descriptions does not matter
	mapfile -t rev < <(printf '%s\n' "${specs[@]}" | sort -r)
	python3 "$prom/gen_rules.py" "${rev[@]}" > "$tmp/rev.yml" 2> /dev/null
	t rules-order-independent cmp -s "$tmp/rev.yml" "$prom/n3telemetry.rules.yml"

	# formulas it cannot translate are refused, naming the metric
	bad() {	# bad NAME MESSAGE FORMULA [EVENTS]
		local name=$1 msg=$2 formula=$3 events=${4:-}
		python3 - "${specs[0]}" "$tmp/neoverse-bad.json" "$formula" "$events" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
m = next(iter(spec['metrics'].values()))
m['formula'] = sys.argv[3]
if sys.argv[4]:
    m['events'] = sys.argv[4].split()
else:
    m.pop('events', None)
spec['metrics'] = {'bad_metric': m}
json.dump(spec, open(sys.argv[2], 'w'))
PY
		if python3 "$prom/gen_rules.py" "$tmp/neoverse-bad.json" > /dev/null 2> "$tmp/bad.err"; then
			nok "rules-refuses-$name"
		elif [ "$(wc -l < "$tmp/bad.err")" = 1 ] && grep -q "bad_metric.*$msg" "$tmp/bad.err"; then
			ok "rules-refuses-$name"
		else
			sed 's/^/# /' "$tmp/bad.err"
			nok "rules-refuses-$name"
		fi
	}
	slots=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['product_configuration']['num_slots'])" "${specs[0]}")
	bad operator "unexpected '%'" "STALL_SLOT % CPU_CYCLES"
	bad parentheses "unbalanced" "(STALL_SLOT / CPU_CYCLES"
	bad trailing "trailing" "STALL_SLOT / CPU_CYCLES )"
	# (a / CPU_CYCLES) * S is not a / (S * CPU_CYCLES): not a slot count
	bad slot-after-divide "slot count $slots" "STALL_SLOT / CPU_CYCLES * $slots"
	bad slot-elsewhere "slot count $slots" "STALL_SLOT / $slots / CPU_CYCLES"
	bad event-list "differ from the listed" "STALL_SLOT / CPU_CYCLES" "CPU_CYCLES"
	bad division-by-zero "division" "CPU_CYCLES / (STALL_SLOT - STALL_SLOT)"
fi

# promtool: the rules load, lint clean, and both tests pass
if ! command -v promtool > /dev/null; then
	echo "# promtool not installed (selftests/vm/deps.sh installs it)"
	nok rules-promtool
	exit 0
fi
quiet() {	# quiet CMD...: its output only when it fails
	"$@" > "$tmp/cmd.log" 2>&1 || { head -40 "$tmp/cmd.log" | sed 's/^/# /'; return 1; }
}
t rules-promtool-check quiet promtool check rules "$prom/n3telemetry.rules.yml"
t rules-promtool-test-models quiet sh -c "cd '$prom' && promtool test rules n3telemetry.rules.models.test.yml"
t rules-promtool-test-hand quiet sh -c "cd '$prom' && promtool test rules n3telemetry.rules.test.yml"

# a host with containers: n3tel --by-cgroup on the cgroup fixture
# (mkfixture.py), whose families the rules and the dashboard read too
cgprom=()
if [ -r "${specs[0]}" ]; then
	make -s -C "$top/tools/n3tel" n3tel > "$tmp/n3tel-build.log" 2>&1 &&
	N3T_ARM_TELEMETRY=$specdir python3 "$top/selftests/host/mkfixture.py" --cpus 8 \
		"$tmp/fx" cgroup > "$tmp/fx.log" 2>&1 &&
	"$top/tools/n3tel/n3tel" --sysfs "$tmp/fx" export --format prometheus --by-cgroup \
		--cgroup-root "$tmp/fx/cgroup" --max-series 10000 > "$tmp/by-cgroup.prom" &&
	grep -q '^n3telemetry_cgroup_event_cpu_cycles_total{' "$tmp/by-cgroup.prom" &&
	cgprom=("$tmp/by-cgroup.prom")
	t rules-by-cgroup-export test ${#cgprom[@]} = 1
fi

# the rules read only series n3tel exports (every golden export: one model,
# a mixed host, per-CPU scopes, composed values), the per-event families
# (the host's and, with --by-cgroup, the containers') by their pattern
# (and every one exported is read); a metric's value family (n3tel's name of a description's
# metric) only as the marker of its composed system series, never its value
t rules-inputs python3 - "$prom/n3telemetry.rules.yml" "$top"/selftests/host/golden/export-prometheus* \
	"${cgprom[@]}" -- "${specs[@]}" <<'PY'
import json, os, re, sys
args = sys.argv[1:]
sep = args.index('--')
rules = open(args[0]).read()
prom = ''.join(open(p).read() for p in args[1:sep])
specs = [p for p in args[sep + 1:] if os.path.exists(p)]
recorded = set(re.findall(r'^\s*- record: (\S+)', rules, re.M))
exported = set(re.findall(r'^# TYPE (\S+) ', prom, re.M))
# the expressions: the lines at 10 columns but the rule labels' (event, metric)
lines = ''.join(l for l in re.findall(r'^ {10}.*\n', rules, re.M)
                if not re.match(r' {10}(event|metric): ', l))
body = re.sub(r'"[^"]*"', '', lines)
names = set(re.findall(r'(?<![\w:])([a-z_]*:[a-z0-9_:]+|n3telemetry_[a-z0-9_]+)', body))
per_event = re.compile(r'n3telemetry_(cgroup_)?event_[a-z0-9_]+?(_counted_seconds)?_total$')
# n3tel's value family of each metric: percentages as ..._ratio
values = set()
for p in specs:
    for name, m in json.load(open(p))['metrics'].items():
        values.add('n3telemetry_' + (re.sub(r'_percentage$', '', name) + '_ratio'
                                     if m['units'].startswith('percent') else name))
# (and a container's value family, the host's with cgroup_: its marker's)
cg_values = {v.replace('n3telemetry_', 'n3telemetry_cgroup_', 1) for v in values}
missing = sorted(n for n in names if n not in recorded and n not in exported
                 and not per_event.match(n) and n not in values and n not in cg_values)
# a value family is read only as a marker: the system's series with composed="1"
misread = sorted(set(f for f, m in re.findall(r'(?<![\w:"])(n3telemetry_[a-z0-9_]+)(\{[^}]*\})?', lines)
                     if f in values and not re.fullmatch(r'\{[^}]*cpu="", composed="1"\}', m or '')
                     or f in cg_values and not re.fullmatch(r'\{[^}]*composed="1"\}', m or '')))
marks = len(re.findall(r'^\s*- record: instance_model_metric:n3telemetry_composed:group$', rules, re.M))
# every exported event family is one the rules read
unread = sorted(n for n in exported if per_event.match(n) and n not in names)
needs = {'n3telemetry_slots'}
# the model labels the rules select on are the ones the exporter writes
labels = set(re.findall(r'^n3telemetry_slots\{[^}]*model="([^"]+)"', prom, re.M))
sel = set(m for s in re.findall(r'model=~?"([^"]+)"', rules) for m in s.split('|'))
# the golden composed export's value families are among those computed
# (a container's value family is the host's with cgroup_ after n3telemetry_)
comp = set(re.sub(r'^n3telemetry_cgroup_', 'n3telemetry_', f) for f in
           re.findall(r'^(n3telemetry_[a-z0-9_]+)\{[^}]*composed="1"', prom, re.M))
if missing or unread or misread or not needs <= exported or not labels or not labels <= sel \
        or not comp or (specs and not comp <= values) \
        or marks != len(re.findall(r'^\s*- record: instance:', rules, re.M)):
    print('# missing:', missing, 'unread:', unread, 'needs:', sorted(needs - exported),
          'models:', sorted(labels - sel), 'misread:', misread, 'composed:', sorted(comp - values),
          'markers:', marks)
    sys.exit(1)
PY

# the dashboard is what its generator makes, and queries only series the
# exporter or the rules produce
dash=$top/tools/grafana
if python3 "$dash/gen_dashboard.py" -o "$tmp/dashboard.json" 2> "$tmp/dash.err" &&
   cmp -s "$tmp/dashboard.json" "$dash/n3telemetry-dashboard.json"; then
	ok dashboard-no-drift
else
	sed 's/^/# /' "$tmp/dash.err"
	echo "# regenerate: python3 tools/grafana/gen_dashboard.py -o tools/grafana/n3telemetry-dashboard.json"
	nok dashboard-no-drift
fi
t dashboard-series python3 - "$dash/n3telemetry-dashboard.json" "$prom/n3telemetry.rules.yml" \
	"$top"/selftests/host/golden/export-prometheus* "${cgprom[@]}" <<'PY'
import json, re, sys
dash, rules = sys.argv[1:3]
known = set(re.findall(r'^\s*- record: (\S+)', open(rules).read(), re.M))
for p in sys.argv[3:]:
    known |= set(re.findall(r'^# TYPE (\S+) ', open(p).read(), re.M))
d = json.load(open(dash))
exprs = []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == 'expr' and isinstance(v, str):
                exprs.append(v)
            if k == 'query' and o.get('type') == 'query':
                exprs.append(v)
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(d)
words = {'sum', 'avg', 'min', 'max', 'rate', 'by', 'on', 'without', 'ignoring', 'group_left',
         'group_right', 'topk', 'bottomk', 'label_values', 'round', 'label_replace',
         'label_join', 'or'}
bad = []
for e in exprs:
    e = re.sub(r'"[^"]*"', '', e)
    e = re.sub(r'\[[^]]*\]', '', re.sub(r'\{[^}]*\}', '', e))
    e = re.sub(r'\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)', r'\1', e)
    e = re.sub(r'label_values\(([^,]*),[^)]*\)', r'\1', e)
    for name in re.findall(r'(?<![$\w])[A-Za-z_:][A-Za-z0-9_:]*', e):
        if name not in words and name not in known:
            bad.append(name)
# the variables match everything with "All"
tv = {v['name']: v for v in d['templating']['list']}
allv = all(tv[n].get('includeAll') and tv[n].get('allValue') == '.*' for n in ('instance', 'model'))
# a metric's values (the rules' instance: and fleet : series, the per-CPU
# gauges) are shown composed apart: the legend's label "shown" ends in
# ~composed for a composed series, an aggregation keeps composed, a
# timeseries panel draws them dashed
value = re.compile(r'(?<![\w:])(instance:n3telemetry_|:n3telemetry_|n3telemetry_\w+_ratio\{)')
unmarked = []
for p in [q for q in d['panels'] if q['type'] != 'row']:
    dashed = any(o['matcher'] == {'id': 'byRegexp', 'options': '.*~composed.*'}
                 for o in p['fieldConfig']['overrides'])
    for tg in p['targets']:
        e = tg['expr']
        if not value.search(e):
            continue
        aggs = re.findall(r'\b(?:sum|avg|min|max) by \(([^)]*)\)', e)
        if ('label_replace(' not in e or '"mark", "~composed", "composed", "1")' not in e
                or '{{shown}}' not in tg['legendFormat']
                or any('composed' not in a for a in aggs)
                or (p['type'] == 'timeseries' and not dashed)):
            unmarked.append(p['title'])
if bad or len(exprs) < 20 or not allv or unmarked:
    print('# unknown series:', sorted(set(bad)), 'queries:', len(exprs), 'allValue:', allv,
          'composed not shown apart:', sorted(set(unmarked)))
    sys.exit(1)
PY
