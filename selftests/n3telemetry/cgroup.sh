#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# n3tel's containers (--by-cgroup) on real cgroup v2 cpusets and the test
# PMU in manual mode: a systemd-like unit on CPU 1 and a Kubernetes pod's
# container on CPU 2 (their cgroups hold a sleep each), nobody's CPUs 0
# and 3 the shared pool.  One scripted interval gives each CPU its own
# vector; every default metric of each container must then be the value
# expect.awk works out from its CPU's vector, the shared pool's from the
# sum of CPUs 0's and 3's vectors, and a container on CPUs 1-2 the sum of
# 1's and 2's (neither CPU's alone: a sum, not a pick).  Their labels and
# cgroup ids on the Prometheus export; two cgroups on one CPU are no
# container.  Then the textfile collector running while a container is
# made (its series come), removed (they go) and made again under the same
# name (a new cgroup id: the two never mix).
. ./lib.sh
need_testpmu
. ./vectors.sh
command -v n3tel > /dev/null || PATH=$PATH:$N3T_HERE
command -v n3tel > /dev/null || skip_all "n3tel not built"
[ "$(nproc)" -ge 4 ] || skip_all "needs 4 CPUs"
CG=/sys/fs/cgroup
mkdir -p $CG
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
grep -qw cpuset $CG/cgroup.controllers || skip_all "no cpuset controller"
echo +cpuset > $CG/cgroup.subtree_control
POD=0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9
HEX=3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f
K8S=kubepods.slice/kubepods-pod$(echo $POD | tr - _).slice
CTR=$K8S/cri-containerd-$HEX.scope
PIDS=

# container PATH CPUS: a cgroup on CPUS holding a sleep
container() {
	_d=$CG
	for _c in $(echo "$1" | tr / ' '); do
		_d=$_d/$_c
		mkdir -p "$_d"
		[ -f "$_d/cgroup.subtree_control" ] && [ "$_d" != "$CG/$1" ] &&
			echo +cpuset > "$_d/cgroup.subtree_control"
	done
	echo "$2" > "$CG/$1/cpuset.cpus"
	sleep 1000 &
	PIDS="$PIDS $!"
	echo $! > "$CG/$1/cgroup.procs"
}

# remove PATH: its processes killed, the cgroup and its empty parents gone
remove() {
	for _p in $(cat "$CG/$1/cgroup.procs"); do
		kill "$_p"
		wait "$_p" 2> /dev/null
	done
	_d=$1
	while [ -n "$_d" ] && [ "$_d" != . ]; do
		rmdir "$CG/$_d" 2> /dev/null || break
		_d=$(dirname "$_d")
	done
}

cleanup() {
	for _p in $PIDS; do kill "$_p" 2> /dev/null; done
	wait 2> /dev/null
	for _d in system.slice/bench.service system.slice "$CTR" "$K8S" kubepods.slice duo.scope \
		share/a share/b share new.slice/job.service new.slice; do
		rmdir "$CG/$_d" 2> /dev/null
	done
}
trap cleanup EXIT

# cg_values LABEL TITLE VECTOR: every metric n3tel show prints for the
# container or pool whose title starts with TITLE (31: N3's default groups')
# as expect.awk works it out from VECTOR
cg_values() {
	# shellcheck disable=SC2046,SC2086
	n3tel show --by-cgroup $(printf -- '--group %s ' $DEFAULT_GROUPS) > /tmp/cg.show 2>&1
	awk -v t="$2" 'index($0, t) == 1 { f = 1; next } /^[^ ]/ { f = 0 }
		f && NF >= 3 && $2 ~ /^~?-?[0-9.]+$|^~?nan$/ { print $1, $2 }' /tmp/cg.show > /tmp/cg.vals
	[ -s /tmp/cg.vals ] || { sed 's/^/# /' /tmp/cg.show; expect_eq "$1/found" found none; return; }
	# one awk: "file metric want got" for every line
	awk -v grp=1 -v vec="$3" -v pairs=1 -f ./expect.awk /tmp/cg.vals > /tmp/cg.want
	_rc=$?
	_bad=0
	_end=
	while read -r _f _m _w _got; do
		[ "$_f" = n3t-lines ] && { _end=$_m; continue; }
		[ "$_got" = "$_w" ] || { echo "# $1: $_m $_got, want $_w"; _bad=$((_bad + 1)); }
	done < /tmp/cg.want
	# awk stopped early: what it did not print was never judged
	[ $_rc = 0 ] && [ -n "$_end" ] || { echo "# $1: expect.awk exit $_rc, n3t-lines ${_end:-missing}"; _bad=$((_bad + 1)); }
	nlines _n /tmp/cg.vals
	expect_eq "$1/metrics" "${4:-31}" "$_n"
	expect_eq "$1/values" 0 $_bad
}

tp_setup 6 || exit 1
container system.slice/bench.service 1
container "$CTR" 2
scripted_interval 0 "$VEC_B" 1 "$VEC_A" 2 "$VEC_B" 3 "$VEC_A"
cg_values unit-cpu1 "cgroup /system.slice/bench.service  cpus 1  unit bench.service" "$VEC_A"
cg_values pod-container-cpu2 "cgroup /$CTR  cpus 2  pod $POD  container 3f3f3f3f3f3f" "$VEC_B"
cg_values shared-cpus-0-and-3 "shared  cpus 0,3" "$(vec_sum "$VEC_B" "$VEC_A")"

# N3T_IOC_SUM itself (sumreq.c): a bad request gets one errno and nothing
# is written; the record up to the size asked for, no byte more
# (sumreq: the test VM's /bin, or built here by make run_tests)
command -v sumreq > /dev/null || PATH=$PATH:$N3T_HERE
if command -v sumreq > /dev/null; then
	expect_eq sum-flags "ERR EINVAL" "$(sumreq -f 1 2)"
	# 64 words (the first names CPU 1): more than the kernel's CPUs take
	expect_eq sum-words-past-cpus "ERR EINVAL" "$(sumreq -w 64 2)"
	expect_eq sum-empty-bitmap "ERR EINVAL" "$(sumreq 0)"
	# CPU 63, which a machine of fewer possible CPUs cannot have
	[ "$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)" -ge 63 ] ||
		expect_eq sum-impossible-cpu "ERR EINVAL" "$(sumreq 8000000000000000)"
	expect_eq sum-record-too-small "ERR EINVAL" "$(sumreq -s 8 2)"
	expect_eq sum-null-record "ERR EFAULT" "$(sumreq -n 2)"
	expect_eq sum-bad-bitmap "ERR EFAULT" "$(sumreq -b 2)"
	expect_eq sum-one-cpu "OK nr_cpus=1 cpu=0xffffffff model=0 valid=1 canary=intact" "$(sumreq 2)"
	expect_eq sum-fixed-part "OK nr_cpus=1 cpu=0xffffffff model=0 valid=1 canary=intact" \
		"$(sumreq -m 2)"
	expect_eq sum-every-cpu \
		"OK nr_cpus=$(st $N3T/system cpus_collecting) cpu=0xffffffff model=0 valid=1 canary=intact" \
		"$(sumreq -w 0 0)"
else
	expect_eq sumreq-built yes no
fi

# the Prometheus export: labels, cgroup ids, the level-1 values
n3tel export --format prometheus --by-cgroup > /tmp/cg.prom 2> /tmp/cg.err
check export-exits-0 test -s /tmp/cg.prom
ID1=$(stat -c %i "$CG/system.slice/bench.service")
ID2=$(stat -c %i "$CG/$CTR")
check unit-labels grep -qx "n3telemetry_cgroup_cpus{cgroup=\"/system.slice/bench.service\",cgroup_id=\"$ID1\",cpus=\"1\",unit=\"bench.service\",model=\"neoverse-n3\"} 1" /tmp/cg.prom
check pod-labels grep -qx "n3telemetry_cgroup_cpus{cgroup=\"/$CTR\",cgroup_id=\"$ID2\",cpus=\"2\",pod_uid=\"$POD\",container_id=\"$HEX\",model=\"neoverse-n3\"} 1" /tmp/cg.prom
check shared-pool grep -qx 'n3telemetry_cgroup_cpus{cgroup="shared",cpus="0,3",model="neoverse-n3"} 2' /tmp/cg.prom
check unit-backend-bound-number grep -Eq "^n3telemetry_cgroup_backend_bound_ratio\\{cgroup=\"/system.slice/bench.service\",.*\\} 0\\.[0-9]{8}\$" /tmp/cg.prom
check level-1-only-by-default sh -c "! grep -q '^n3telemetry_cgroup_ipc' /tmp/cg.prom"
check cgroups-read grep -qx "n3telemetry_cgroups_error 0" /tmp/cg.prom
check host-series-still-there grep -qx 'n3telemetry_up 1' /tmp/cg.prom
# the containers' cumulative counts (the rules' input): the module's sum
# over their CPUs is each CPU's own count added (n3tel's per-CPU series)
n3tel export --format prometheus --by-cgroup --scope all --max-series 100000 > /tmp/cg-all.prom
# count FAMILY MATCH: the sum of the samples of FAMILY whose labels MATCH,
# in its last unit (seconds with 9 decimals as nanoseconds: whole numbers
# below 2^53, which awk adds exactly)
count() {
	awk -v f="$1" -v m="$2" 'index($1, f "{") == 1 && $1 ~ m { v = $2; sub(/\./, "", v); s += v; n++ }
		END { if (n) printf "%.0f\n", s; else print "none" }' /tmp/cg-all.prom
}
# same NAME A B: A equals B, and is there ("none": no such series)
same() {
	expect_eq "$1" "$2" "$3"
	expect_eq "$1-there" yes "$([ "$2" != none ] && echo yes || echo no)"
}
for _e in cpu_cycles stall_slot_backend; do
	for _k in _total _counted_seconds_total; do
		same "unit-$_e$_k" "$(count "n3telemetry_event_$_e$_k" 'cpu="1"')" \
			"$(count "n3telemetry_cgroup_event_$_e$_k" 'cgroup="/system.slice/bench.service"')"
		same "shared-$_e$_k" "$(count "n3telemetry_event_$_e$_k" 'cpu="[03]"')" \
			"$(count "n3telemetry_cgroup_event_$_e$_k" 'cgroup="shared"')"
	done
done
_c=$(count n3telemetry_cgroup_event_cpu_cycles_total 'cgroup="shared"')
check counts-nonzero test "$_c" != 0

# one container on two CPUs: the sum of both, neither alone
remove system.slice/bench.service
remove "$CTR"
container duo.scope 1-2
scripted_interval 0 "$VEC_B" 1 "$VEC_A" 2 "$VEC_B" 3 "$VEC_A"
cg_values two-cpus-summed "cgroup /duo.scope  cpus 1-2  unit duo.scope" "$(vec_sum "$VEC_A" "$VEC_B")"
remove duo.scope

# two cgroups with processes on one CPU: neither is a container
container share/a 3
container share/b 3
n3tel export --format prometheus --by-cgroup > /tmp/cg.prom 2> /tmp/cg.err
check shared-cpu-no-container sh -c "! grep -q 'cgroup=\"/share' /tmp/cg.prom &&
	grep -qx 'n3telemetry_cgroup_cpus{cgroup=\"shared\",cpus=\"0-3\",model=\"neoverse-n3\"} 4' /tmp/cg.prom"
remove share/a
remove share/b

# the textfile collector while a container comes, goes, comes again
rm -rf /tmp/tf && mkdir -p /tmp/tf
n3tel textfile --dir /tmp/tf --every 1 --by-cgroup 2> /tmp/tf.err &
TF=$!
# wait_for WHAT GREP-ARGS...: until the textfile matches (or 15 s)
wait_for() {
	_w=$1
	shift
	_i=0
	while [ $_i -lt 30 ]; do
		grep -q "$@" /tmp/tf/n3telemetry.prom 2> /dev/null && return 0
		sleep 0.5
		_i=$((_i + 1))
	done
	echo "# $_w: not seen in 15 s"
	return 1
}
container new.slice/job.service 3
ID3=$(stat -c %i "$CG/new.slice/job.service")
check textfile-container-comes wait_for comes "cgroup=\"/new.slice/job.service\",cgroup_id=\"$ID3\""
remove new.slice/job.service
check textfile-container-goes wait_for goes -x 'n3telemetry_cgroup_cpus{cgroup="shared",cpus="0-3",model="neoverse-n3"} 4'
check textfile-no-stale-series sh -c "! grep -q job.service /tmp/tf/n3telemetry.prom"
container new.slice/job.service 3
ID4=$(stat -c %i "$CG/new.slice/job.service")
check same-name-new-id test "$ID3" != "$ID4"
check textfile-new-id wait_for again "cgroup=\"/new.slice/job.service\",cgroup_id=\"$ID4\""
check textfile-old-id-gone sh -c "! grep -q 'cgroup_id=\"$ID3\"' /tmp/tf/n3telemetry.prom"
kill $TF
wait $TF 2> /dev/null
check textfile-no-errors sh -c "! grep -q . /tmp/tf.err || { sed 's/^/# /' /tmp/tf.err; false; }"
remove new.slice/job.service
tp_teardown
