#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of n3tel's containers (--by-cgroup) on a fixture tree
# (mkfixture.py cgroup): a cgroup v2 hierarchy with a Kubernetes pod's
# container on CPUs 2-3 (systemd driver), one on CPU 5 (cgroupfs driver), a
# systemd unit on CPU 4, cgroups that share CPUs 0-1 and 7, one without
# processes on 6, and the module's sums of CPUs (sums/<list>).  Which
# cgroups are containers, their CPUs, ids and labels, the pools and every
# value exported, against the series mkfixture.py wrote from its own
# definitions (cgroup-expect*.prom, cgroup ids read with os.stat); the
# limit; show; a container made and removed between two exports; each
# error one line and a nonzero exit.
# Prints ok / not ok lines.  usage: cgroup.sh BUILDDIR
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}/cgroup-host
rm -rf "$out" && mkdir -p "$out"
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

make -s -C "$top/tools/n3tel" n3tel > "$out/build.log" 2>&1
t n3tel-builds test -x "$top/tools/n3tel/n3tel" || exit 0
N3TEL=$top/tools/n3tel/n3tel
ref=${N3T_ARM_TELEMETRY:-$top/../shared/reference/arm-telemetry}
t arm-descriptions test -r "$ref/neoverse-n3.json" || exit 1
fx=$out/fx
cg=$fx/cgroup
N3T_ARM_TELEMETRY=$ref python3 "$top/selftests/host/mkfixture.py" --cpus 8 "$fx" cgroup ||
	{ nok fixture; exit 0; }

# prom ARGS...: the containers' series of one export, sorted
prom() {
	"$N3TEL" --sysfs "$fx" export --format prometheus --by-cgroup --cgroup-root "$cg" \
		--max-series 10000 "$@" > "$out/prom.all" 2> "$out/prom.err" || return 1
	grep -E '^n3telemetry_cgroup' "$out/prom.all" | sort
}
# same NAME EXPECTED GOT: the files equal, else the difference shown
same() {
	if diff "$2" "$3" > "$out/$1.diff"; then
		ok "$1"
	else
		head -6 "$out/$1.diff" "$out/prom.err" | sed 's/^/# /'
		nok "$1"
	fi
}

prom > "$out/by-cgroup.prom"
same containers-exact "$fx/cgroup-expect.prom" "$out/by-cgroup.prom"
# the host's own series are those of an export without --by-cgroup
"$N3TEL" --sysfs "$fx" export --format prometheus --max-series 10000 > "$out/plain.prom"
grep -v '^n3telemetry_cgroup\|^# [A-Z]* n3telemetry_cgroup' "$out/prom.all" > "$out/host.prom"
same host-series-unchanged "$out/plain.prom" "$out/host.prom"
prom --max-cgroups 1 > "$out/max1.prom"
same limit-sums-the-rest "$fx/cgroup-expect-max1.prom" "$out/max1.prom"
# without --max-series, the default leaves room for the containers' default
# series: the guide's 300 + (--max-cgroups + 2) x 24 + 2 (seen in the
# refusal of an export past it: --scope all with one container)
t default-max-series-fits "$N3TEL" --sysfs "$fx" export --format prometheus --by-cgroup \
	--cgroup-root "$cg" > /dev/null
t default-max-series-formula bash -c "! '$N3TEL' --sysfs '$fx' export --format prometheus \
	--by-cgroup --cgroup-root '$cg' --max-cgroups 1 --scope all > /dev/null 2> '$out/max.err' &&
	grep -q 'more than --max-series $((300 + (1 + 2) * 24 + 2)) allows' '$out/max.err'"
# --max-series counts the containers' series too
t max-series-counts-containers bash -c "! '$N3TEL' --sysfs '$fx' export --format prometheus \
	--by-cgroup --cgroup-root '$cg' --max-series \$(grep -cv '^#' '$out/prom.all' | \
	awk '{print \$1 - 1}') > /dev/null 2>&1"

# JSON and CSV: the same containers and values as the Prometheus series
"$N3TEL" --sysfs "$fx" export --format json --by-cgroup --cgroup-root "$cg" > "$out/cg.json" \
	2> "$out/cg.json.err"
"$N3TEL" --sysfs "$fx" export --format csv --by-cgroup --cgroup-root "$cg" > "$out/cg.csv" \
	2> "$out/cg.csv.err"
python3 "$top/selftests/host/cgroup_formats.py" "$fx/cgroup-expect.prom" "$out/cg.json" "$out/cg.csv" ||
	nok "cgroup-formats (the checker failed: $(head -c 200 "$out/cg.json.err"))"
# without --by-cgroup, the host's CSV is as it was: the same rows, no more columns
"$N3TEL" --sysfs "$fx" export --format csv > "$out/plain.csv"
t csv-host-rows-unchanged bash -c "diff <(sed 's/,,\$//' '$out/cg.csv' | grep -v '^cgroup,' |
	sed '1s/,cgroup,cgroup_id\$//') '$out/plain.csv'"

# show: the titles, in order, and a value
"$N3TEL" --sysfs "$fx" show --by-cgroup --cgroup-root "$cg" > "$out/show" 2> "$out/show.err"
grep -E '^(cgroup |shared|other)' "$out/show" | sed 's/  interval.*//' > "$out/show.titles"
h1=$(printf '3f%.0s' $(seq 32)) h2=$(printf 'a9%.0s' $(seq 32))
cat > "$out/show.expect" <<EOT
cgroup /kubepods.slice/kubepods-pod0f1e2d3c_4b5a_6978_8695_a4b3c2d1e0f9.slice/cri-containerd-$h1.scope  cpus 2-3  pod 0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9  container 3f3f3f3f3f3f  (1 of its CPUs counted)
cgroup /kubepods/burstable/pod11223344-5566-7788-99aa-bbccddeeff00/$h2  cpus 5  pod 11223344-5566-7788-99aa-bbccddeeff00  container a9a9a9a9a9a9
cgroup /system.slice/bench.service  cpus 4  unit bench.service
shared  cpus 0-1,6-7
EOT
same show-titles "$out/show.expect" "$out/show.titles"
# bench.service's backend_bound: the sum's value, printed with 2 decimals
v=$(awk '/^cgroup \/system.slice\/bench.service/ {f = 1} f && $1 == "backend_bound" {print $2; exit}' \
	"$out/show")
want=$(awk '/cgroup="\/system.slice\/bench.service"/ && /^n3telemetry_cgroup_backend_bound_ratio/ {
	printf "%.2f", $2 * 100 }' "$fx/cgroup-expect.prom")
t show-value bash -c "[ -n '$v' ] && [ '$v' = '$want' ]"
t show-composed-mark grep -q '^    frontend_bound *~3' "$out/show"

# a container made on the idle CPU 6, then removed: in, then out
mkdir -p "$cg/new.slice/job.service"
echo 6 > "$cg/new.slice/job.service/cpuset.cpus.effective"
echo 777 > "$cg/new.slice/job.service/cgroup.procs"
id=$(stat -c %i "$cg/new.slice/job.service")
prom > "$out/made.prom"
t made-container-exported grep -q "^n3telemetry_cgroup_cpus{cgroup=\"/new.slice/job.service\",cgroup_id=\"$id\",cpus=\"6\",unit=\"job.service\",model=\"neoverse-n3\"} 1\$" "$out/made.prom"
t made-shared-shrinks grep -q '^n3telemetry_cgroup_cpus{cgroup="shared",cpus="0-1,7",model="neoverse-n3"} 3$' \
	"$out/made.prom"
# cgroups n3tel cannot name or does not walk still use their CPUs: with
# processes on CPU 6 below the depth walked (32), or at a path longer than
# a label holds, job.service is no container
deep=$cg/deep
mkdir -p "$deep"
echo 6 > "$deep/cpuset.cpus.effective"
d=$deep
for _ in $(seq 34); do d=$d/d; done
mkdir -p "$d"
echo 779 > "$d/cgroup.procs"
prom > "$out/deep.prom"
t deep-cgroup-shares-cpu bash -c "! grep -q job.service '$out/deep.prom' &&
	grep -q '^n3telemetry_cgroup_cpus{cgroup=\"shared\",cpus=\"0-1,6-7\",' '$out/deep.prom'"
rm -rf "$deep"
# the boundary: with job.service emptied, processes 32 levels down make a
# container (read, nothing below), 33 levels down none (not read, but a user)
: > "$cg/new.slice/job.service/cgroup.procs"
mkdir -p "$deep"
echo 6 > "$deep/cpuset.cpus.effective"
d=$deep
for _ in $(seq 31); do d=$d/d; done
mkdir -p "$d"
echo 781 > "$d/cgroup.procs"
prom > "$out/level32.prom"
t level-32-read grep -q "^n3telemetry_cgroup_cpus{cgroup=\"${d#"$cg"}\",cgroup_id=\"[0-9]*\",cpus=\"6\"" \
	"$out/level32.prom"
: > "$d/cgroup.procs"
mkdir "$d/d"
echo 782 > "$d/d/cgroup.procs"
prom > "$out/level33.prom"
t level-33-not-read-but-a-user bash -c "! grep -q 'cgroup=\"/deep' '$out/level33.prom' &&
	grep -q '^n3telemetry_cgroup_cpus{cgroup=\"shared\",cpus=\"0-1,6-7\",' '$out/level33.prom'"
rm -rf "$deep"
echo 777 > "$cg/new.slice/job.service/cgroup.procs"
long=$cg/long.slice/$(printf 'x%.0s' $(seq 200))/$(printf 'y%.0s' $(seq 200))/$(printf 'z%.0s' $(seq 200))
mkdir -p "$long"
echo 6 > "$long/cpuset.cpus.effective"
echo 780 > "$long/cgroup.procs"
prom > "$out/long.prom"
t long-path-cgroup-shares-cpu bash -c "! grep -q job.service '$out/long.prom' &&
	! grep -q xxxxx '$out/long.prom' &&
	grep -q '^n3telemetry_cgroup_cpus{cgroup=\"shared\",cpus=\"0-1,6-7\",' '$out/long.prom'"
rm -rf "$cg/long.slice"
prom > "$out/back.prom"
t job-container-again grep -q job.service "$out/back.prom"
# a name with a comma, quotes and a byte that is no UTF-8: CSV quotes it
# (the byte as it is), JSON escapes the quotes and gives the byte as U+FFFD
odd=$(printf 'odd,"q"\xff.slice')
mkdir -p "$cg/new.slice/$odd"
echo 6 > "$cg/new.slice/$odd/cpuset.cpus.effective"
echo 778 > "$cg/new.slice/$odd/cgroup.procs"
rm -rf "$cg/new.slice/job.service"
"$N3TEL" --sysfs "$fx" export --format csv --by-cgroup --cgroup-root "$cg" > "$out/odd.csv"
"$N3TEL" --sysfs "$fx" export --format json --by-cgroup --cgroup-root "$cg" > "$out/odd.json"
t odd-name-csv python3 -c "
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline='', encoding='latin-1')) if r[0] == 'cgroup']
sys.exit(not any(r[8] == '/new.slice/odd,\"q\"\xff.slice' for r in rows))" "$out/odd.csv"
t odd-name-json python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(c['cgroup'] == '/new.slice/odd,\"q\"\ufffd.slice' for c in d['cgroups']))" "$out/odd.json"
# Prometheus: UTF-8 throughout (node_exporter refuses a file that is not),
# the byte as U+FFFD, the quotes escaped
prom > "$out/odd.prom"
t odd-name-prometheus-utf8 python3 -c "
import sys
text = open(sys.argv[1], 'rb').read().decode('utf-8')
sys.exit('cgroup=\"/new.slice/odd,\\\\\"q\\\\\"\ufffd.slice\"' not in text)" "$out/odd.prom"
rm -rf "$cg/new.slice"
prom > "$out/removed.prom"
same removed-container-gone "$fx/cgroup-expect.prom" "$out/removed.prom"
# a cgroup whose processes left is no container: its CPU goes back to shared
: > "$cg/system.slice/bench.service/cgroup.procs"
prom > "$out/left.prom"
t emptied-cgroup-not-container bash -c "! grep -q bench.service '$out/left.prom' &&
	grep -q '^n3telemetry_cgroup_cpus{cgroup=\"shared\",cpus=\"0-1,4,6-7\",model=\"neoverse-n3\"} 5\$' '$out/left.prom'"
echo 4242 > "$cg/system.slice/bench.service/cgroup.procs"

# errors: one line, nonzero
err() {
	local name=$1; shift
	if "$N3TEL" --sysfs "$fx" "$@" > "$out/err.out" 2> "$out/err.txt"; then
		nok "$name (exit 0)"
	elif [ "$(wc -l < "$out/err.txt")" -ne 1 ] || ! grep -q -- "$ERR" "$out/err.txt"; then
		sed 's/^/# /' "$out/err.txt"
		nok "$name"
	else
		ok "$name"
	fi
}
ERR='not a cgroup v2 hierarchy' err no-hierarchy show --by-cgroup --cgroup-root "$out/none"
ERR='--text does not apply' err text-source --text show --by-cgroup --cgroup-root "$cg"
ERR='applies with --by-cgroup only' err max-without-by-cgroup show --max-cgroups 3
ERR='applies with --by-cgroup only' err root-without-by-cgroup export --format prometheus \
	--cgroup-root "$cg"
ERR='--cpu does not apply' err cpu-with-by-cgroup show --by-cgroup --cpu 1
ERR='does not apply to' err stat-by-cgroup stat --by-cgroup -- true
ERR='whole number' err bad-max show --by-cgroup --max-cgroups -1 --cgroup-root "$cg"
rm "$fx/sums/5"
ERR='cannot read .*sums/5' err sum-missing show --by-cgroup --cgroup-root "$cg"

# containers that cannot be read (a sum missing, as from a module without
# N3T_IOC_SUM; no hierarchy): the host's series still written, the error
# gauge 1, no container series, one line on stderr, exit 1 after writing
# degraded NAME WHY ARGS...: export ARGS...
degraded() {
	local name=$1 why=$2 rc=0
	shift 2
	"$N3TEL" --sysfs "$fx" export --format prometheus --by-cgroup --max-series 10000 "$@" \
		> "$out/$name.prom" 2> "$out/$name.err" || rc=$?
	t "$name-exits-1" test $rc = 1
	t "$name-one-line" bash -c "[ \$(wc -l < '$out/$name.err') = 1 ] &&
		grep -q -- '$why' '$out/$name.err'"
	grep -v '^n3telemetry_cgroups_error\|^# [A-Z]* n3telemetry_cgroups_error' "$out/$name.prom" \
		> "$out/$name.host"
	same "$name-host-series-kept" "$out/plain.prom" "$out/$name.host"
	t "$name-error-gauge" grep -qx 'n3telemetry_cgroups_error 1' "$out/$name.prom"
}
degraded sum-missing-export 'cannot read .*sums/5' --cgroup-root "$cg"
# JSON: its host part as without --by-cgroup, "cgroups_error" the reason
rc=0
"$N3TEL" --sysfs "$fx" export --format json --by-cgroup --cgroup-root "$cg" > "$out/err.json" \
	2> /dev/null || rc=$?
"$N3TEL" --sysfs "$fx" export --format json > "$out/plain.json"
t sum-missing-json python3 -c "
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
why = a.pop('cgroups_error')
sys.exit(not (a == b and 'sums/5' in why and sys.argv[3] == '1'))" "$out/err.json" "$out/plain.json" "$rc"
# CSV: the host's rows alone (with the two empty columns), exit 1
rc=0
"$N3TEL" --sysfs "$fx" export --format csv --by-cgroup --cgroup-root "$cg" > "$out/err.csv" \
	2> "$out/err.csv.err" || rc=$?
t sum-missing-csv bash -c "[ $rc = 1 ] && [ \$(wc -l < '$out/err.csv.err') = 1 ] &&
	diff <(sed '1s/,cgroup,cgroup_id\$//; 2,\$s/,,\$//' '$out/err.csv') '$out/plain.csv' > /dev/null"
# the textfile every second: the reason said once, not each round, though
# the containers stay unreadable
timeout 3.5 "$N3TEL" --sysfs "$fx" textfile --dir "$out/tf" --every 1 --by-cgroup \
	--max-series 10000 --cgroup-root "$cg" 2> "$out/tf-every.err"
t textfile-every-says-it-once test "$(grep -c 'sums/5' "$out/tf-every.err")" = 1
degraded no-hierarchy-export 'not a cgroup v2 hierarchy' --cgroup-root "$out/none"
# the textfile, once: the same file, exit 1; node_exporter's n3telemetry_up 1
mkdir -p "$out/tf"
rc=0
"$N3TEL" --sysfs "$fx" textfile --dir "$out/tf" --by-cgroup --max-series 10000 \
	--cgroup-root "$cg" 2> "$out/tf.err" || rc=$?
t textfile-sum-missing-exits-1 test $rc = 1
t textfile-sum-missing-host-series bash -c "grep -qx 'n3telemetry_up 1' '$out/tf/n3telemetry.prom' &&
	grep -qx 'n3telemetry_cgroups_error 1' '$out/tf/n3telemetry.prom' &&
	! grep -q '^n3telemetry_cgroup_' '$out/tf/n3telemetry.prom' &&
	[ \$(grep -cv '^#' '$out/tf/n3telemetry.prom') = \$(( \$(grep -cv '^#' '$out/plain.prom') + 1 )) ]"
exit 0
