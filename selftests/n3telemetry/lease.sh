#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# n3tel pause: a pause lease for perf users.  "n3tel pause [--cpu LIST] --
# COMMAND" frees the PMU on those CPUs before COMMAND starts (a perf stat
# of 6 events there counts the whole time) and gives it back when COMMAND
# ends, with COMMAND's exit status; leases compose (a CPU counts again once
# no lease names it); a killed n3tel leaves nothing paused (the lease is its
# open file); without CAP_PERFMON there is no lease; a bad --cpu changes
# nothing; the enabled file works as before, beside leases.  Default
# settings on the test PMU (6 counters and a cycle counter).
. ./lib.sh
need_testpmu
for p in n3tel pmuuser; do
	command -v $p > /dev/null || PATH=$PATH:$N3T_HERE
	command -v $p > /dev/null || skip_all "$p not built"
done
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 3 ] || skip_all "needs 3 CPUs"
insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko" counters=6 || exit 1
TP=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
IVL=100
check load n3t_load force=1 pmu_type="$TP" interval_ms=$IVL
sleep 0.5
st() { value $N3T/cpu$1/status state; }
# wait_state CPU STATE: until CPU's state is STATE, 2 s at most
wait_state() {
	_t=0
	getv _ws $N3T/cpu$1/status state
	while [ "$_ws" != "$2" ] && [ $_t -lt 40 ]; do
		sleep 0.05
		_t=$((_t + 1))
		getv _ws $N3T/cpu$1/status state
	done
	[ "$_ws" = "$2" ]
}
EV6="0x08 0x08 0x08 0x08 0x08 0x08"
# held NAME: a command that runs until "go NAME" (timing-proof leases)
held() { echo "while [ ! -e /tmp/lease.$1 ]; do sleep 0.05; done"; }
go() { touch "/tmp/lease.$1"; }
rm -f /tmp/lease.a /tmp/lease.b /tmp/lease.c /tmp/lease.d /tmp/lease.e

# CPU-wide, 6 programmable counters and the cycle counter, on CPU 1 for 1 s
# under a lease: every one counts the whole time
check lease-cpu1-whole-pmu diag_run lease /tmp/lease.out \
	n3tel pause --cpu 1 -- pmuuser -t "$TP" -c 1 -s 1 0x11 $EV6
check lease-cpu1-100-percent awk '{ if ($5 != "100.0%") bad = 1 } END { exit bad || NR != 7 }' /tmp/lease.out
check cpu1-back-after-lease wait_state 1 collecting

# during a lease: CPU 1 paused, CPU 2 collecting; after it, CPU 1 again
n3tel pause --cpu 1 -- sh -c "$(held a)" &
p=$!
check cpu1-paused-under-lease wait_state 1 paused
expect_eq cpu2-collecting-beside collecting "$(st 2)"
expect_eq cpu1-nan-under-lease nan "$(value $N3T/cpu1/topdown_l1 retiring)"
expect_eq cpu1-holds-nothing 0 "$(awk '$1 == "cpu1" { print $2 }' $TPDBG/active)"
go a
wait $p
check lease-exit-0 test $? = 0
check cpu1-back-within-5-intervals wait_state 1 collecting
# counting again: topdown_l1's values from an interval after the lease
# (something runs on CPU 1, as the values need; the test PMU counts only
# what is injected, so the values are nan)
s0=$(value $N3T/cpu1/status seq)
pmuuser -t 1 -a 1 -s 0.6 0 > /dev/null
check cpu1-counts-again test "$(awk '$1 == "topdown_l1" { print $3 }' $N3T/cpu1/ages)" -gt "$s0"

# two leases compose: B (CPUs 1-2) ends first, A (CPU 1) still holds CPU 1
n3tel pause --cpu 1 -- sh -c "$(held b)" &
a=$!
n3tel pause --cpu 1-2 -- sh -c "$(held c)" &
b=$!
check compose-cpu1-paused wait_state 1 paused
check compose-cpu2-paused wait_state 2 paused
go c
wait $b
check compose-cpu2-back wait_state 2 collecting
expect_eq compose-cpu1-still-paused paused "$(st 1)"
go b
wait $a
check compose-cpu1-back wait_state 1 collecting

# a killed n3tel: the lease goes with its file
n3tel pause -- sleep 30 &
k=$!
sleep 0.5
expect_eq all-paused paused "$(st 0)"
kill -9 $k
wait $k 2> /dev/null
check killed-n3tel-gives-back-cpu0 wait_state 0 collecting
check killed-n3tel-gives-back-cpu2 wait_state 2 collecting
pkill -f 'sleep 30' 2> /dev/null

# the command's exit status; a command that cannot run
n3tel pause -- sh -c 'exit 3'
expect_eq exit-status-passed 3 "$?"
n3tel pause -- /nonexistent 2> /tmp/lease.err
expect_eq no-such-command 127 "$?"
check no-such-command-says-so grep -q 'cannot run /nonexistent' /tmp/lease.err
n3tel pause -- /proc/version 2> /tmp/lease.err
expect_eq not-executable-126 126 "$?"
# a bad --cpu: refused, one line, nothing paused
n3tel pause --cpu 4000 -- true 2> /tmp/lease.err
check bad-cpu-fails test $? != 0
check bad-cpu-one-line test "$(grep -c . /tmp/lease.err)" = 1
expect_eq bad-cpu-nothing-paused 0 "$(grep -c 'state paused' $N3T/cpu[0-9]*/status | awk -F: '{ s += $2 } END { print s }')"

# the enabled file beside a lease: a pause and a resume during it
n3tel pause --cpu 1 -- sh -c "$(held d)" &
p=$!
check enabled-lease-in-force wait_state 1 paused
expect_eq enabled-0-under-lease OK "$(errno_of $N3T/enabled 0)"
expect_eq enabled-1-under-lease OK "$(errno_of $N3T/enabled 1)"
expect_eq lease-held-across-resume paused "$(st 1)"
check others-resumed wait_state 2 collecting
go d
wait $p
check back-after-lease-and-resume wait_state 1 collecting
# a resume while a lease's command holds its CPU's whole PMU (pinned, six
# counters and the cycle counter): the leased CPU is lent, not probed, so
# the resume succeeds with the counters the others have, and the CPU comes
# back when the lease ends (it failed with EBUSY, every CPU re-packed for
# what CPU 1 had left)
c0=$(head -1 $N3T/counters)
n3tel pause --cpu 1 -- sh -c "pmuuser -t $TP -c 1 -p -s 30 0x11 $EV6 > /dev/null & \
	$(held e); kill \$!" &
p=$!
check whole-pmu-lease-in-force wait_state 1 paused
sleep 0.5
expect_eq enabled-0-beside-whole-pmu-lease OK "$(errno_of $N3T/enabled 0)"
expect_eq enabled-1-beside-whole-pmu-lease OK "$(errno_of $N3T/enabled 1)"
expect_eq resume-keeps-counters "$c0" "$(head -1 $N3T/counters)"
check others-resumed-beside-whole-pmu-lease wait_state 2 collecting
go e
wait $p
check back-after-whole-pmu-lease wait_state 1 collecting
# a resume with every CPU under a lease: no CPU to probe, the counters are
# kept (it failed with ENODEV)
check resume-every-cpu-leased n3tel pause -- sh -c "echo 0 > $N3T/enabled && echo 1 > $N3T/enabled"
expect_eq resume-every-cpu-leased-counters "$c0" "$(head -1 $N3T/counters)"
check back-after-every-cpu-lease wait_state 1 collecting
n3t_unload
# without CAP_PERFMON: no lease (EPERM), even where everyone may read
# (world_readable=1); with it, a lease
CAPUSER=$(command -v capuser)
if [ -z "$CAPUSER" ] && command -v cc > /dev/null &&
   cc -O2 -o /tmp/capuser "$N3T_HERE/capuser.c" 2> /dev/null; then
	CAPUSER=/tmp/capuser
fi
if [ -n "$CAPUSER" ]; then
	check load-world-readable n3t_load force=1 pmu_type="$TP" interval_ms=$IVL world_readable=1
	sleep 0.3
	"$CAPUSER" 65534 none "$(command -v n3tel)" pause -- true 2> /tmp/lease.err
	check unprivileged-refused test $? != 0
	sed 's/^/# /' /tmp/lease.err
	check unprivileged-eperm grep -q 'Operation not permitted' /tmp/lease.err
	expect_eq unprivileged-nothing-paused collecting "$(st 1)"
	"$CAPUSER" 65534 38 "$(command -v n3tel)" pause --cpu 1 -- true
	expect_eq perfmon-may 0 "$?"
	n3t_unload
else
	ktap_test_skip "unprivileged-refused (no capuser: needs a C compiler)"
fi
rmmod n3t_testpmu
ktap_finish
