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
specs=("$specdir"/neoverse-*.json)
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
			echo "# regenerate: python3 tools/prometheus/$2 -o tools/prometheus/$3 $specdir/neoverse-*.json"
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

# the rules read only series n3tel exports, on a host of one model and a mixed one
for g in export-prometheus export-prometheus-hetero; do
	t "rules-inputs-$g" python3 - "$prom/n3telemetry.rules.yml" "$top/selftests/host/golden/$g" <<'PY'
import re, sys
rules, prom = open(sys.argv[1]).read(), open(sys.argv[2]).read()
recorded = set(re.findall(r'^\s*- record: (\S+)', rules, re.M))
exported = set(re.findall(r'^# TYPE (\S+) ', prom, re.M))
body = re.sub(r'"[^"]*"', '', ''.join(re.findall(r'^ {10}.*\n', rules, re.M)))
names = set(re.findall(r'(?<![\w:])([a-z_]*:[a-z0-9_:]+|n3telemetry_[a-z0-9_]+)', body))
missing = sorted(n for n in names if n not in recorded and n not in exported)
needs = {'n3telemetry_cpu_info', 'n3telemetry_slots', 'n3telemetry_event_count_total',
         'n3telemetry_event_counted_seconds_total'}
# the model label the rules select on is the one n3telemetry_cpu_info carries
labels = set(re.findall(r'^n3telemetry_cpu_info\{[^}]*model="([^"]+)"', prom, re.M))
sel = set(m for s in re.findall(r'model=~?"([^"]+)"', rules) for m in s.split('|'))
if missing or not needs <= exported or not labels or not labels <= sel:
    print('# missing:', missing, 'needs:', sorted(needs - exported), 'models:', sorted(labels - sel))
    sys.exit(1)
PY
done
