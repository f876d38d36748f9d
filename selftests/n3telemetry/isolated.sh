#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Isolated CPUs (booted with nohz_full=3, or CPU 3 in a cpuset isolated
# partition): left alone by default, their status says so; isolated=1
# includes them.  On QEMU's PMU.  Every operation (load, interval and group
# writes, pause and resume, the other CPUs stepping aside and back, unload)
# is watched from CPU 3: the
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
mkdir -p /sys/fs/cgroup
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
if [ $mode = nohz_full ]; then
	# nohz_full alone does not keep tasks off CPU 3: this test's own
	# processes (and their IPIs) stay on CPUs 0-2
	mkdir -p /sys/fs/cgroup/house
	echo 0-2 > /sys/fs/cgroup/house/cpuset.cpus
	echo $$ > /sys/fs/cgroup/house/cgroup.procs
fi
if [ $mode = cpuset ]; then
	mkdir -p /sys/fs/cgroup/iso
	echo 3 > /sys/fs/cgroup/iso/cpuset.cpus
	echo isolated > /sys/fs/cgroup/iso/cpuset.cpus.partition
	expect_eq cpuset-partition-isolated isolated "$(cat /sys/fs/cgroup/iso/cpuset.cpus.partition)"
fi

# cpu3_events: inter-processor interrupts CPU 3 took (/proc/interrupts'
# IPI lines: function calls, reschedules, IRQ work, wake-ups...), and
# how often its hotplug thread cpuhp/3 ran
CPUHP3=$(for _p in /proc/[0-9]*; do
	[ "$(cat "$_p/comm" 2>/dev/null)" = cpuhp/3 ] && echo "$_p"; done)
cpu3_events() {
	_irq=$(awk '$1 ~ /^IPI[0-9]+:$/ { s += $5 } END { print s + 0 }' /proc/interrupts)
	_cs=$(awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' "$CPUHP3/status")
	echo "$_irq $_cs"
}

# Work items that run on CPU 3, traced by name: none may be the module's;
# the IPIs sent to CPU 3 and why (the senders run elsewhere)
T=$TRACEFS
EVENTS="workqueue/workqueue_execute_start ipi/ipi_send_cpu ipi/ipi_send_cpumask csd/csd_queue_cpu"
WQTRACE=
# shellcheck disable=SC2086
trace_on $EVENTS && WQTRACE=1
# only what concerns CPU 3 is recorded (a filter that this kernel cannot
# take records everything: the reading below selects the same): under a
# busy host the trace of a step once had 55,000 lines of the other CPUs'
# work and of the scheduler's idle-balance kicks, and reading it three
# times took most of the run
if [ -n "$WQTRACE" ]; then
	echo 'CPU == 3' > $T/events/workqueue/workqueue_execute_start/filter 2> /dev/null
	echo 'cpu == 3' > $T/events/ipi/ipi_send_cpu/filter 2> /dev/null
	echo 'cpu == 3' > $T/events/csd/csd_queue_cpu/filter 2> /dev/null
	echo 'cpumask & CPUS{3}' > $T/events/ipi/ipi_send_cpumask/filter 2> /dev/null
fi
# ipis_to_3: "callsite>callback" of every traced IPI sent to CPU 3, and
# "csd callsite>function" of every function queued to run there (the IPI of
# smp_call_function_single() names only its generic handler)
ipis_to_3() {
	awk '/csd_queue_cpu: cpu=3 / { print "csd " $(NF - 2) ">" $(NF - 1); next }
	/ipi_send_cpu: cpu=3 / { print $(NF - 1) ">" $NF; next }
	/ipi_send_cpumask: / {
		split($0, a, "cpumask="); split(a[2], b, " "); n = split(b[1], r, ",")
		for (i = 1; i <= n; i++) {
			lo = r[i]; hi = r[i]
			if (index(r[i], "-")) { split(r[i], x, "-"); lo = x[1]; hi = x[2] }
			if (lo + 0 <= 3 && hi + 0 >= 3) { print $(NF - 1) ">" $NF; break }
		}
	}' /tmp/trace | sed 's/callsite=//; s/callback=//; s/func=//; s/[+]0x[0-9a-f]*[/]0x[0-9a-f]*//g'
}

# quiet NAME COMMAND...: COMMAND sends CPU 3 no IPI on the module's behalf
# (traced: every IPI CPU 3 took is accounted for by the trace, and none is
# the module's, perf's or a work item's; untraced: none beyond ALLOW, 0 by
# default), wakes no cpuhp/3 and runs none of the module's work there; the
# other interrupts CPU 3 took are shown
quiet() {
	_n=$1
	shift
	awk '{ print $1, $5 }' /proc/interrupts > /tmp/irq.a
	[ -n "$WQTRACE" ] && echo > $T/trace
	_a=$(cpu3_events)
	read -r _t0 _ < /proc/uptime
	"$@"
	read -r _t1 _ < /proc/uptime
	_b=$(cpu3_events)
	awk '{ print $1, $5 }' /proc/interrupts > /tmp/irq.b
	_di=$(( ${_b% *} - ${_a% *} ))
	_dc=$(( ${_b#* } - ${_a#* } ))
	_wq=0
	_mine=0
	if [ -n "$WQTRACE" ]; then
		# the trace read once, then searched
		cat $T/trace > /tmp/trace
		_wq=$(grep -E '\[003\].*function (n3t_|work_for_cpu_fn)' /tmp/trace | grep -c .)
		ipis_to_3 > /tmp/ipis
		# sent on the module's behalf: by its code, by perf's cross-calls
		# (an event created, enabled, read or released on CPU 3), or to
		# queue work on CPU 3
		_mine=$(grep -cE 'n3t|perf|remote_function|queue_work|kick_pool' /tmp/ipis)
		echo "# $_n: IPIs to cpu3 (callsite>callback): $(sort /tmp/ipis | uniq -c | tr '\n' ' ')"
	fi
	read -r _t2 _ < /proc/uptime
	echo "# $_n: ran from $_t0 to $_t1 s, accounted for at $_t2 s$([ -z "$WQTRACE" ] ||
		echo ", $(grep -vc '^#' /tmp/trace) lines traced")"
	echo "# $_n: cpu3 took $_di IPIs, cpuhp/3 ran $_dc times, module work on cpu3: $_wq," \
		"IPIs sent for the module: $_mine; all its interrupts: $(awk '
			NR == FNR { a[$1] = $2; next }
			$2 != a[$1] { printf "%s+%d ", $1, $2 - a[$1] }' /tmp/irq.a /tmp/irq.b)"
	if [ -n "$WQTRACE" ]; then
		# every IPI CPU 3 took was traced and sent for something else
		# (loading a module: up to ALLOW untraced ones, see above)
		_tr=$(grep -vc '^csd ' /tmp/ipis)
		check "$_n-leaves-cpu3-alone" test "$_mine" -eq 0 -a "$_dc" -eq 0 -a "$_wq" -eq 0 \
			-a "$_di" -le $((_tr + ${ALLOW:-0}))
	else
		check "$_n-leaves-cpu3-alone" test "$_di" -le "${ALLOW:-0}" -a "$_dc" -eq 0
	fi
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
echo "# loading and unloading a module that touches no CPU: $MODLOAD IPIs on cpu3"
insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko"

load() { n3t_load force=1 interval_ms=20; }
ALLOW=$MODLOAD quiet load load
sleep 1
expect_eq cpu3-isolated isolated "$(value $N3T/cpu3/status state)"
expect_eq cpu3-no-interval 0 "$(value $N3T/cpu3/status seq)"
# not asked what core it is (cpu_model says why): the first core type's
# group files, every value nan until it is collected on
expect_eq cpu3-model isolated "$(cat $N3T/cpu3/cpu_model)"
expect_eq cpu3-group-files-nan "ipc nan" "$(cat $N3T/cpu3/general)"
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
# the other CPUs step aside and come back: another pinned user takes 5 of
# QEMU's counters on CPUs 0-2 for a second
aside() {
	echo "hw 5 0-2" > $TPDBG/hog
	sleep 1
	echo off > $TPDBG/hog
	sleep 1
}
quiet aside-and-back aside
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
# something to run on CPU 3
if [ $mode = nohz_full ]; then
	mkdir -p /sys/fs/cgroup/iso
	echo 3 > /sys/fs/cgroup/iso/cpuset.cpus
fi
sh -c 'echo $$ > /sys/fs/cgroup/iso/cgroup.procs; while :; do :; done' &
spin=$!
sleep 1
expect_eq cpu3-collects-when-asked collecting "$(value $N3T/cpu3/status state)"
check cpu3-interval test "$(value $N3T/cpu3/status seq)" -ge 1
[ -n "$spin" ] && kill "$spin"
check unload-isolated n3t_unload

# Isolation followed live (cpuset partitions change at run time): CPU 3
# leaves its isolated partition and is collected again within a few
# intervals; it goes back in and its sampler, at its next run, releases
# everything and never runs there again.  Traced both ways.
if [ $mode = cpuset ]; then
	check load-live n3t_load force=1 interval_ms=20
	sh -c 'echo $$ > /sys/fs/cgroup/iso/cgroup.procs; while :; do :; done' &
	spin=$!
	sleep 0.5
	expect_eq live-cpu3-isolated isolated "$(value $N3T/cpu3/status state)"
	echo member > /sys/fs/cgroup/iso/cpuset.cpus.partition
	t=0
	while [ "$(value $N3T/cpu3/status state)" != collecting ] && [ $t -lt 40 ]; do
		sleep 0.05
		t=$((t + 1))
	done
	echo "# cpu3 collected again $((t * 50)) ms after leaving the partition"
	expect_eq live-cpu3-collected-again collecting "$(value $N3T/cpu3/status state)"
	check live-cpu3-back-within-10-intervals test $((t * 50)) -le 200
	s0=$(value $N3T/cpu3/status seq)
	sleep 0.3
	check live-cpu3-intervals test "$(value $N3T/cpu3/status seq)" -gt "$s0"
	# its directory was made while it was isolated: its group files are
	# there and read (before, it had none: "topdown_l1: No such file"),
	# topdown_l1's from an interval of its own
	expect_eq live-cpu3-topdown_l1-read 4 "$(wc -l < $N3T/cpu3/topdown_l1)"
	check live-cpu3-topdown_l1-published test "$(awk '$1 == "topdown_l1" { print $3 }' $N3T/cpu3/ages)" -gt 0
	# CPU 3's runs are traced: some in the 100 ms before the write
	[ -n "$WQTRACE" ] && echo > $T/trace
	sleep 0.1
	echo isolated > /sys/fs/cgroup/iso/cpuset.cpus.partition
	# the write has returned: CPU 3 is isolated from here on (the runs
	# while the write was under way, however long it took, come before)
	[ -n "$WQTRACE" ] && echo n3t-isolated > $T/trace_marker
	# a few intervals, and the sampler's one last run there
	sleep 0.1
	if [ -n "$WQTRACE" ]; then
		awk '/tracing_mark_write: n3t-isolated/ { print "marker"; m = 1; next }
			/\[003\].*function n3t_/ { print m ? $0 : "before" }' $T/trace > /tmp/live-runs
		# the marker is in the trace, and CPU 3's runs before it too: what
		# follows it was seen
		check live-write-marked grep -qx marker /tmp/live-runs
		check live-runs-traced-before-the-write grep -qx before /tmp/live-runs
		n=$(grep -c 'function n3t_' /tmp/live-runs || true)
		echo "# the module's work ran $n times on cpu3 after the write that isolated it:"
		grep 'function n3t_' /tmp/live-runs | sed 's/^ */# /' || true
		# its last run (one begun before the marker is not counted)
		check live-at-most-the-last-run-after-isolation test "$n" -le 1
	fi
	expect_eq live-cpu3-isolated-again isolated "$(value $N3T/cpu3/status state)"
	live() { sleep 1; }
	quiet live-isolated-again-stays-quiet live
	expect_eq live-cpu3-still-isolated isolated "$(value $N3T/cpu3/status state)"
	kill "$spin"
	check unload-live n3t_unload
fi
rmmod n3t_testpmu
# shellcheck disable=SC2086
[ -n "$WQTRACE" ] && trace_off $EVENTS
ktap_finish
