#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of n3tel and the fleet integration: fixture sysfs trees with
# golden outputs, error handling, promtool, node_exporter, tmux, dashboard.
# Prints ok / not ok lines.  usage: n3tel.sh BUILDDIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}/n3tel-host
golden=$top/selftests/host/golden
rm -rf "$out" && mkdir -p "$out"
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

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
gold export-prometheus "$N3TEL" --sysfs "$out/good" export --format prometheus
gold export-json "$N3TEL" --sysfs "$out/good" export --format json
gold export-json-text "$N3TEL" --sysfs "$out/nosnap" export --format json
gold show-v2 "$N3TEL" --sysfs "$out/v2" show --cpu 0
gold export-prometheus-hetero "$N3TEL" --sysfs "$out/hetero" export --format prometheus

# the snapshot and the text files give the same numbers
"$N3TEL" --sysfs "$out/good" --text export --format prometheus > "$out/text.prom"
t snapshot-equals-text diff -q "$out/text.prom" "$golden/export-prometheus"
t json-parses python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['cpus']) == 4" "$out/export-json.out"
t json-nan-is-null python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['cpus']; assert c[2]['metrics']['ipc'] is None and c[3]['metrics']['ll_cache_read_hit_ratio'] is None and c[0]['metrics']['frontend_bound'] == 21.37" "$out/export-json.out"
t promtool-check-metrics sh -c "promtool check metrics < '$out/export-prometheus.out'"
t no-cpu-all sh -c "! grep -q 'cpu=\"all\"' '$out/export-prometheus.out'"

# other cores: names, groups and units come from the tree
t v2-16-groups sh -c "test \$(grep -c '^  [a-zA-Z]' '$out/show-v2.out') = 16"
t v2-no-topdown-frontend sh -c "! grep -q 'topdown_frontend\|frontend_core_bound' '$out/show-v2.out'"
t v2-text-equals-snapshot sh -c "'$N3TEL' --sysfs '$out/v2' --text show --cpu 0 | cmp -s - '$out/show-v2.out'"
t v2-slots sh -c "'$N3TEL' --sysfs '$out/v2' export --format prometheus | grep -qx 'n3telemetry_slots 8'"
for src in --snapshot --text; do
	t n1-show$src sh -c "'$N3TEL' --sysfs '$out/n1' $src show > '$out/n1-show.txt' &&
		! grep -q 'Topdown\|frontend_bound' '$out/n1-show.txt' &&
		grep -q '^  cycle_accounting\$' '$out/n1-show.txt'"
	t n1-top$src sh -c "'$N3TEL' --sysfs '$out/n1' $src top --sort retiring --iterations 1 > '$out/n1-top.txt' &&
		grep -q '^cpu0   \[ no topdown level 1 on neoverse-n1 *\]       -       -       -       - 16.002' '$out/n1-top.txt'"
	t n1-export$src sh -c "'$N3TEL' --sysfs '$out/n1' $src export --format prometheus > '$out/n1.prom' &&
		promtool check metrics < '$out/n1.prom' && ! grep -q frontend_bound_ratio '$out/n1.prom' &&
		grep -qx 'n3telemetry_cpu_info{cpu=\"3\",model=\"neoverse-n1\"} 1' '$out/n1.prom'"
	t n1-json$src sh -c "'$N3TEL' --sysfs '$out/n1' $src export --format json |
		python3 -c 'import json,sys; d=json.load(sys.stdin); c=d[\"cpus\"][0]; assert c[\"model\"] == \"neoverse-n1\" and \"retiring\" not in c[\"metrics\"] and c[\"metrics\"][\"frontend_stalled_cycles\"] == 14.0'"
done
t hetero-text-equals-snapshot sh -c "'$N3TEL' --sysfs '$out/hetero' --text export --format prometheus | cmp -s - '$golden/export-prometheus-hetero'"
t hetero-model-labels sh -c "grep -qx 'n3telemetry_cpu_info{cpu=\"1\",model=\"neoverse-n3\"} 1' '$out/export-prometheus-hetero.out' &&
	grep -qx 'n3telemetry_cpu_info{cpu=\"2\",model=\"neoverse-v2\"} 1' '$out/export-prometheus-hetero.out'"
t hetero-promtool sh -c "promtool check metrics < '$out/export-prometheus-hetero.out'"
# a metric only N3 has is exported for the N3 CPUs only
t hetero-per-model-series sh -c "grep -c '^n3telemetry_frontend_core_bound_ratio{' '$out/export-prometheus-hetero.out' | grep -qx 2"
t hetero-show sh -c "'$N3TEL' --sysfs '$out/hetero' show --group topdown_frontend > '$out/hetero-show.txt' &&
	grep -q '^cpu2  neoverse-v2  no complete interval yet' '$out/hetero-show.txt' &&
	test \$(grep -c frontend_core_bound '$out/hetero-show.txt') = 2"
t hetero-json sh -c "'$N3TEL' --sysfs '$out/hetero' export --format json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert [c[\"model\"] for c in d[\"cpus\"]] == [\"neoverse-n3\"] * 2 + [\"neoverse-v2\"] * 2 and d[\"models\"][\"neoverse-v2\"][\"slots\"] == 8'"

# errors: one clear line on stderr, nonzero exit, no stdout
err() {	# err NAME PATTERN CMD...
	local name=$1 pat=$2
	shift 2
	"$@" > "$out/err.out" 2> "$out/err.txt"
	local rc=$?
	if [ $rc != 0 ] && [ ! -s "$out/err.out" ] && [ "$(wc -l < "$out/err.txt")" = 1 ] &&
	   grep -q "$pat" "$out/err.txt"; then
		ok "error-$name"
	else
		echo "# rc=$rc: $(cat "$out/err.txt")"
		nok "error-$name"
	fi
}
err module-missing "not loaded" "$N3TEL" --sysfs "$out/nonexistent" show
fx malformed malformed
err malformed "malformed line" "$N3TEL" --sysfs "$out/malformed" --text show
fx missing missing-file
err missing-file "cannot read .*l2_cache" "$N3TEL" --sysfs "$out/missing" --text export --format json
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
err bad-format "prometheus or --format json" "$N3TEL" --sysfs "$out/good" export --format xml
err bad-group "unknown group" "$N3TEL" --sysfs "$out/good" show --group nosuch
err bad-cpu "bad --cpu" "$N3TEL" --sysfs "$out/good" show --cpu x
t usage-exit-2 sh -c "'$N3TEL' bogus-command 2>/dev/null; test \$? = 2"

# textfile: atomic, and a failure keeps the previous file
tf=$out/textfile
mkdir -p "$tf"
t textfile-writes "$N3TEL" --sysfs "$out/good" textfile --dir "$tf"
t textfile-content cmp -s "$tf/n3telemetry.prom" "$golden/export-prometheus"
"$N3TEL" --sysfs "$out/malformed" --text textfile --dir "$tf" 2> /dev/null
t textfile-failure-keeps-old cmp -s "$tf/n3telemetry.prom" "$golden/export-prometheus"
t textfile-no-temp-left sh -c "! ls -A '$tf' | grep -v '^n3telemetry.prom\$'"
err textfile-bad-dir "cannot create" "$N3TEL" --sysfs "$out/good" textfile --dir "$out/no/such/dir"

# Prometheus rules
t promtool-check-rules promtool check rules "$top/tools/prometheus/n3telemetry.rules.yml"
t promtool-test-rules sh -c "cd '$top/tools/prometheus' && promtool test rules n3telemetry.rules.test.yml"

# the dashboard queries only series the exporter or the rules produce
t dashboard-series python3 - "$top/tools/grafana/n3telemetry-dashboard.json" \
	"$top/tools/prometheus/n3telemetry.rules.yml" "$golden/export-prometheus" <<'PY'
import json, re, sys
dash, rules, prom = sys.argv[1:4]
known = set(re.findall(r'^\s*- record: (\S+)', open(rules).read(), re.M))
known |= set(re.findall(r'^# TYPE (\S+) ', open(prom).read(), re.M))
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
walk(json.load(open(dash)))
funcs = {'sum', 'avg', 'rate', 'by', 'label_values', 'instance', 'event', 'model', 'round'}
bad = []
for e in exprs:
    e = re.sub(r'\[[^]]*\]', '', re.sub(r'\{[^}]*\}', '', re.sub(r'"[^"]*"', '', e)))
    for name in re.findall(r'[A-Za-z_:][A-Za-z0-9_:]*', e):
        if name in funcs or name.startswith('$'):
            continue
        if name not in known:
            bad.append(name)
if bad or not exprs:
    print('# unknown series:', sorted(set(bad)))
    sys.exit(1)
PY

# node_exporter's textfile collector serves the file
port=$((20000 + RANDOM % 20000))
prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tf" > "$out/node_exporter.log" 2>&1 &
ne=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$port/metrics" > "$out/metrics.txt" 2>/dev/null && break
	sleep 0.1
done
kill $ne 2>/dev/null
wait $ne 2>/dev/null
t node-exporter-serves grep -q '^n3telemetry_frontend_bound_ratio{cpu="0"} 0.2137$' "$out/metrics.txt"
t node-exporter-counters grep -q '^n3telemetry_event_count_total{cpu="1",event="CPU_CYCLES"} 2.00009876e+09$' "$out/metrics.txt"
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
t top-sorted-backend sh -c "grep '^cpu[0-9]' '$out/top.pane' | head -1 | grep -q '^cpu1 '"
"$N3TEL" --sysfs "$out/good" top --iterations 1 > "$out/top.txt"
t top-plain-when-piped sh -c "! grep -q $'\033' '$out/top.txt' && grep -q '^cpu0  *\[RRRRRRRRRRRRRRRRRSFFFFFFFFFBBBBBBBBBBBBB\]' '$out/top.txt'"
