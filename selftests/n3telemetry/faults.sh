#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault injection (failslab, fail_function): allocations and counter
# creation fail at load, at CPU online, in reconfiguration and in readers.
# Each gives a clean error (or a CPU left uncollected that is online
# regardless), nothing half-configured; kmemleak checks nothing leaked at
# the end of the run.
. ./lib.sh
FS=/sys/kernel/debug/failslab
FF=/sys/kernel/debug/fail_function
CPUS=/sys/devices/system/cpu
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
[ -d $FS ] && [ -d $FF ] || skip_all "kernel without failslab/fail_function"
need_testpmu
echo N > $FS/ignore-gfp-wait
echo 0 > $FS/verbose
# fail-nth drives the failures of the task that sets it; a probability
# limited to tasks that ask (task-filter) keeps failslab switched on
echo Y > $FS/task-filter
echo 100 > $FS/probability
echo -1 > $FS/times
echo 0 > $FF/verbose

insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=6 || exit 1
TP=$(cat $TPI)

# Load: the n-th fault-injectable call of the loading task fails (loadnth:
# one finit_module, no retry), at points spread over all of a load's calls
# (the module loader's come first, then the module's own: the probe
# creates hundreds of counters), half of them over the last half.  Each
# load refused cleanly or working; every point's failure injected.
command -v loadnth > /dev/null || PATH=$PATH:$N3T_HERE
command -v loadnth > /dev/null || skip_all "loadnth not built (make -C selftests/n3telemetry)"
KO=$N3T_TEST_MODDIR/n3telemetry.ko
r=$(loadnth 100000000 $KO force=1 pmu_type=$TP)
case $r in
"loaded "*) rmmod n3telemetry ;;
*) bail "a load with no failure: $r" ;;
esac
total=$((100000000 - ${r#loaded }))
echo "# load: $r of 100000000: $total calls that can fail"
# try N: a load whose N-th call fails; r its line
try() {
	if r=$(loadnth "$1" $KO force=1 pmu_type=$TP); then
		oks=$((oks + 1))
		dd if=$N3T/system/general of=/dev/null 2> /dev/null || bad=$((bad + 1))
		rmmod n3telemetry || bad=$((bad + 1))
	else
		fails=$((fails + 1))
		[ -d $N3T ] && { echo "# n=$1: load failed but the tree is there"; bad=$((bad + 1)); }
		lsmod | grep -q '^n3telemetry ' && { echo "# n=$1: load failed but module listed"; bad=$((bad + 1)); rmmod n3telemetry; }
	fi
}
NPTS=${N3T_FAULT_POINTS:-48}
fails=0
oks=0
bad=0
missed=0
i=0
while [ $i -lt "$NPTS" ]; do
	if [ $i -lt $((NPTS / 2)) ]; then
		n=$((1 + i * total / (NPTS / 2)))
	else
		n=$((total / 2 + 1 + (i - NPTS / 2) * (total - total / 2) / (NPTS - NPTS / 2)))
	fi
	i=$((i + 1))
	# the last point is the last call, and a load may make a few calls
	# fewer than the first (the caches its allocations refill): a point
	# past this load's end is tried again at its last call
	[ $i = "$NPTS" ] && n=$total
	try $n
	case $r in
	*" 0") ;;
	*)
		_m=$((n - ${r##* }))
		echo "# n=$n: $r: this load made $_m calls; its last fails"
		try $_m
		case $r in
		*" 0") ;;
		*) echo "# n=$_m: $r: no failure injected"; missed=$((missed + 1)) ;;
		esac ;;
	esac
done
probe=$(dmesg | grep -c 'n3telemetry: probing the PMU failed (error -12)')
echo "# load: $NPTS failure points of $total, $fails loads refused, $oks worked, $probe failed in the probe"
check load-calls-counted test "$total" -gt 0
expect_eq load-faults-clean 0 "$bad"
expect_eq load-faults-all-injected 0 "$missed"
check load-faults-some-refused test "$fails" -gt 0
check faults-reached-the-probe test "$probe" -gt 0

check load n3t_load force=1 pmu_type=$TP interval_ms=20

# CPU online: the CPU's allocation fails, then its counters
inject() {	# inject FUNCTION TIMES
	echo > $FF/inject
	grep -q "^$1" $FF/injectable || echo "# $1 is not injectable"
	echo "$1" > $FF/inject
	echo 100 > $FF/probability
	echo 0 > $FF/interval
	echo "$2" > $FF/times
	echo 0 > $FF/space 2> /dev/null
}
clear_inject() { echo > $FF/inject; }
for f in n3t_cpu_alloc:failed-no-memory n3t_create:failed-no-counters; do
	fn=${f%%:*}
	st=${f#*:}
	inject "$fn" -1
	echo 0 > $CPUS/cpu2/online
	check "$fn-cpu-online" sh -c "echo 1 > $CPUS/cpu2/online"
	expect_eq "$fn-cpu2-state" "$st" "$(value $N3T/cpu2/status state)"
	expect_eq "$fn-cpu1-collects" collecting "$(value $N3T/cpu1/status state)"
	expect_eq "$fn-system-failed" 1 "$(value $N3T/system/status cpus_failed)"
	expect_eq "$fn-cpu2-nan" nan "$(value $N3T/cpu2/general ipc)"
	clear_inject
	echo 0 > $CPUS/cpu2/online
	echo 1 > $CPUS/cpu2/online
	expect_eq "$fn-cpu2-recovers" collecting "$(value $N3T/cpu2/status state)"
done
check one-log-line-per-start test "$(dmesg | grep -c 'not collecting (failed-no-memory')" -ge 1

# Reconfiguration: every CPU fails; the write still succeeds, all say so
inject n3t_cpu_alloc -1
expect_eq reconf-write-ok OK "$(errno_of $N3T/groups 'all')"
expect_eq reconf-all-failed "$(grep -c ^processor /proc/cpuinfo)" "$(value $N3T/system/status cpus_failed)"
clear_inject
expect_eq reconf-recovers OK "$(errno_of $N3T/groups 'default')"
expect_eq reconf-all-collect 0 "$(value $N3T/system/status cpus_failed)"

# Readers: the view and the snapshot allocations fail
inject n3t_view_alloc 1
# (dd: busybox cat tries sendfile first and reads again when it fails)
check view-enomem fails dd if=$N3T/cpu1/topdown_l1 of=/dev/null
check view-next-read-ok dd if=$N3T/cpu1/topdown_l1 of=/dev/null
inject n3t_snapshot_alloc 1
check snapshot-enomem fails dd if=/dev/n3telemetry of=/dev/null
check snapshot-next-read-ok dd if=/dev/n3telemetry of=/dev/null
clear_inject

# Writes and reads under failslab: the n-th allocation of the writer fails
bad=0
for n in $(seq 1 40); do
	sh -c "echo $n > /proc/self/fail-nth && echo all > $N3T/groups" 2> /dev/null
	sh -c "echo $n > /proc/self/fail-nth && echo 35 > $N3T/interval_ms" 2> /dev/null
	sh -c "echo $n > /proc/self/fail-nth && exec cat $N3T/system/general" > /dev/null 2>&1
	sh -c "echo $n > /proc/self/fail-nth && exec cat /dev/n3telemetry" > /dev/null 2>&1
	[ -d $N3T/cpu1 ] || bad=$((bad + 1))
done
expect_eq writes-under-faults-keep-tree 0 "$bad"
expect_eq works-after-faults OK "$(errno_of $N3T/groups 'default')"
sleep 1
grep -E '^(seq|state)' $N3T/cpu1/status | sed 's/^/# /'
check collects-after-faults test "$(value $N3T/cpu1/status seq)" -ge 1
check unload n3t_unload
rmmod n3t_testpmu
ktap_finish
