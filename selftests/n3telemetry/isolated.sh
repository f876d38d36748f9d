#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Isolated CPUs (booted with nohz_full=3, or CPU 3 in a cpuset isolated
# partition): left alone by default, their status says so; isolated=1
# includes them.  On QEMU's PMU.  Every operation (load, interval and group
# writes, pause and resume, a re-pack, unload) is watched from CPU 3: the
# interrupts it took (/proc/interrupts, IPIs included) and the context
# switches of the threads bound to it (cpuhp/3, kworker/3:*); the module
# must cause none.  Loading any module makes the kernel synchronise every
# CPU's instruction cache (an IPI to each): that is measured on a module
# that does nothing at load (the test PMU, whose load registers a PMU and
# touches no CPU) and allowed to n3telemetry's load too.
. ./lib.sh
mode=
grep -q 'nohz_full=3' /proc/cmdline && mode=nohz_full
grep -q 'n3t.cpuset=3' /proc/cmdline && mode=cpuset
[ -n "$mode" ] || skip_all "not booted with nohz_full=3 or n3t.cpuset=3"
need_testpmu
if [ $mode = cpuset ]; then
	mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
	echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/iso
	echo 3 > /sys/fs/cgroup/iso/cpuset.cpus
	echo isolated > /sys/fs/cgroup/iso/cpuset.cpus.partition
	expect_eq cpuset-partition-isolated isolated "$(cat /sys/fs/cgroup/iso/cpuset.cpus.partition)"
fi

# cpu3_events: interrupts CPU 3 took, and context switches of its threads
cpu3_events() {
	_irq=$(awk 'NR > 1 && NF >= 5 && $1 ~ /:$/ { s += $5 } END { print s + 0 }' /proc/interrupts)
	_cs=0
	for _s in /proc/[0-9]*/status; do
		case "$(awk '$1 == "Cpus_allowed_list:" { print $2 }' "$_s" 2>/dev/null)" in
		3) _cs=$((_cs + $(awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' "$_s"))) ;;
		esac
	done
	echo "$_irq $_cs"
}

# quiet NAME COMMAND...: COMMAND causes no interrupt and no switch on CPU 3
# beyond ALLOW (irqs, default 0)
quiet() {
	_n=$1
	shift
	_a=$(cpu3_events)
	"$@"
	_b=$(cpu3_events)
	_di=$(( ${_b% *} - ${_a% *} ))
	_dc=$(( ${_b#* } - ${_a#* } ))
	echo "# $_n: cpu3 took $_di interrupts, its threads switched $_dc times"
	check "$_n-leaves-cpu3-alone" test "$_di" -le "${ALLOW:-0}" -a "$_dc" -eq 0
}

# the noise floor: one second of nothing
idle() { sleep 1; }
quiet idle idle
# what loading and unloading any module costs CPU 3
a=$(cpu3_events)
insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko"
rmmod n3t_testpmu
b=$(cpu3_events)
MODLOAD=$(( ${b% *} - ${a% *} ))
echo "# loading and unloading a module that touches no CPU: $MODLOAD interrupts on cpu3"
insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko"

load() { n3t_load force=1 interval_ms=20; }
ALLOW=$MODLOAD quiet load load
sleep 1
expect_eq cpu3-isolated isolated "$(value $N3T/cpu3/status state)"
expect_eq cpu3-no-interval 0 "$(value $N3T/cpu3/status seq)"
expect_eq cpu3-nan nan "$(value $N3T/cpu3/general ipc)"
check cpu3-no-sampler sh -c "! grep -q '^cpu3 ' $DBG/cost"
check cpu2-collects test "$(value $N3T/cpu2/status seq)" -ge 1
expect_eq system-isolated 1 "$(value $N3T/system/status cpus_isolated)"
expect_eq system-collecting 3 "$(value $N3T/system/status cpus_collecting)"
collecting() { sleep 1; }
quiet collecting collecting
ivl() { echo 30 > $N3T/interval_ms; }
quiet interval-write ivl
grp() { echo topdown_l1,general > $N3T/groups; }
quiet groups-write grp
pause() { echo 0 > $N3T/enabled; }
quiet pause pause
expect_eq cpu3-isolated-while-paused isolated "$(value $N3T/cpu3/status state)"
resume() { echo 1 > $N3T/enabled; }
quiet resume resume
# a re-pack down and back up: another pinned user takes 5 of QEMU's
# counters on CPUs 0-2 for a second
repack() {
	echo "hw 5 0-2" > $TPDBG/hog
	sleep 1
	echo off > $TPDBG/hog
	sleep 1
}
quiet repack-down-and-up repack
echo "# $(tr '\n' ' ' < $N3T/counters)"
unload() { n3t_unload; }
ALLOW=$MODLOAD quiet unload unload
if [ $mode = nohz_full ]; then
	check load-again n3t_load force=1 interval_ms=20
	echo 0 > /sys/devices/system/cpu/cpu3/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	expect_eq cpu3-isolated-after-hotplug isolated "$(value $N3T/cpu3/status state)"
	check unload-again n3t_unload
fi
check load-isolated n3t_load force=1 interval_ms=20 isolated=1
sleep 1
expect_eq cpu3-collects-when-asked collecting "$(value $N3T/cpu3/status state)"
check cpu3-interval test "$(value $N3T/cpu3/status seq)" -ge 1
check unload-isolated n3t_unload
rmmod n3t_testpmu
ktap_finish
