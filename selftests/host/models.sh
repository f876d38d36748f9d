#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the generated tables are what tools/models/gen_models.py makes from
# Arm's descriptions today (no hand edits, no stale tables), and the
# generator refuses bad input with a message naming the problem.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
specdir=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}
gen=$top/tools/models/gen_models.py
# Arm's descriptions, and the project's own generic one (tools/models)
specs=("$specdir"/neoverse-*.json "$top/tools/models/generic.json")
if [ ! -r "${specs[0]}" ]; then
	echo "# SKIP: no descriptions in $specdir (set N3T_SPEC_DIR)"
	echo "ok models-generator-skipped"
	exit 0
fi
tmp=$(mktemp -d "$out/models.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. no drift: every file the generator writes equals the committed one
mkdir "$tmp/gen"
if python3 "$gen" "$tmp/gen/models.c" "$tmp/gen/models_midr.h" "${specs[@]}" \
	2> "$tmp/gen.err"; then
	echo "ok models-generator-runs"
	drift=
	for f in "$tmp"/gen/*; do
		[ -f "$f" ] || continue
		if ! cmp -s "$f" "$top/module/$(basename "$f")"; then
			diff -u "$top/module/$(basename "$f")" "$f" | head -20 | sed 's/^/# /'
			drift="$drift $(basename "$f")"
		fi
	done
	if [ -z "$drift" ]; then
		echo "ok models-no-drift"
	else
		echo "# regenerate:$drift (see tools/models/gen_models.py)"
		echo "not ok models-no-drift"
	fi
	# the order of the descriptions on the command line does not matter
	mkdir "$tmp/rev"
	mapfile -t rev < <(printf '%s\n' "${specs[@]}" | sort -r)
	if python3 "$gen" "$tmp/rev/models.c" "$tmp/rev/models_midr.h" "${rev[@]}" 2> /dev/null &&
	   diff -r -q "$tmp/gen" "$tmp/rev" > /dev/null; then
		echo "ok models-generator-order-independent"
	else
		echo "not ok models-generator-order-independent"
	fi
else
	sed 's/^/# /' "$tmp/gen.err"
	echo "not ok models-generator-runs"
fi

# 2. bad descriptions: exit status non-zero, a message naming the problem,
# and the outputs untouched.  mutate NAME PYTHON-EXPRESSION-ON-spec MESSAGE
n3=$specdir/neoverse-n3.json
mutate() {
	local name=$1 code=$2 want=$3 d=$tmp/$1
	mkdir "$d"
	echo "keep" > "$d/models.c"
	echo "keep" > "$d/models_midr.h"
	python3 - "$n3" "$d/neoverse-n3.json" "$code" <<'PY' || return 1
import json
import re
import sys
spec = json.load(open(sys.argv[1]))
if sys.argv[3] == 'TRUNCATE':
    open(sys.argv[2], 'w').write(open(sys.argv[1]).read()[:5000])
else:
    exec(sys.argv[3])
    json.dump(spec, open(sys.argv[2], 'w'))
PY
	python3 "$gen" "$d/models.c" "$d/models_midr.h" "$d/neoverse-n3.json" \
		> "$d/out" 2> "$d/err"
	rc=$?
	if [ $rc != 0 ] && grep -q -- "$want" "$d/err" && ! grep -q Traceback "$d/err" &&
	   [ "$(cat "$d/models.c")" = keep ] && [ "$(cat "$d/models_midr.h")" = keep ]; then
		echo "# $(head -1 "$d/err")"
		echo "ok models-generator-rejects-$name"
	else
		sed 's/^/# /' "$d/err" | tail -5
		echo "not ok models-generator-rejects-$name (exit $rc)"
	fi
}
mutate unknown-unit "spec['metrics']['ipc']['units'] = 'furlongs per fortnight'" "unknown unit"
mutate malformed-json TRUNCATE "neoverse-n3.json"
mutate bad-formula "spec['metrics']['ipc']['formula'] = 'INST_RETIRED / / CPU_CYCLES'" "ipc"
mutate unknown-event "spec['metrics']['ipc']['formula'] = 'INST_RETIRED / CPU_CYCLE'" "ipc"
mutate event-list "spec['metrics']['ipc']['events'] = ['CPU_CYCLES']" "ipc"
mutate unknown-group-metric "spec['groups']['metrics']['General']['metrics'].append('no_such_metric')" "no_such_metric"
mutate missing-slots "del spec['product_configuration']['num_slots']" "num_slots"
mutate bad-code "spec['events']['CPU_CYCLES']['code'] = 'zz'" "'zz'"
# a table whose text would not fit a sysfs file's page (textmax.sh checks
# the bounds): 40 more characters per metric name passes
# models/<model>/metrics; 7 more per event name but CPU_CYCLES passes
# cpuN/events (3740 bytes for neoverse-n3 with 20-digit counts) and
# system/events (4004 with 22-digit sums), nothing else: the first is named
mutate long-metric-names "
ren = {m: m + '_' + 'x' * 39 for m in spec['metrics']}
spec['metrics'] = {ren[m]: v for m, v in spec['metrics'].items()}
for g in spec['groups']['metrics'].values():
    g['metrics'] = [ren[m] for m in g['metrics']]
" "models/<model>/metrics can print [0-9]* bytes, more than a page"
mutate long-event-names "
used = {e for m in spec['metrics'].values() for e in m['events']} - {'CPU_CYCLES'}
ren = {e: e + '_LONGER' for e in used}
spec['events'] = {ren.get(e, e): v for e, v in spec['events'].items()}
for m in spec['metrics'].values():
    m['events'] = [ren.get(e, e) for e in m['events']]
    m['formula'] = re.sub(r'\b[A-Z][A-Z0-9_]*\b', lambda x: ren.get(x.group(0), x.group(0)),
                          m['formula'])
" "sets, models/<model>/sets can print [0-9]* bytes, more than a page"
