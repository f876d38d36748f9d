#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Race stress on the test PMU with slices running on their own: CPUs go
# offline and online 150 times (at least 100 within 10 minutes, however
# loaded the host) while 5 readers read every file
# (system/ and the snapshot with odd block sizes included), a writer changes
# groups and interval_ms, another the counters other users hold, another
# pauses and resumes collection (enabled).  The test build's delays widen the reader's copy and the sampler's switch so
# that the races are hit, not left to luck.  Then load/unload cycles while
# readers hold files open.  The kernel log must stay clean (KASAN, lockdep).
. ./lib.sh
need_testpmu
CPUS=/sys/devices/system/cpu
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
CYCLES=${N3T_RACE_CYCLES:-150}
LIMIT=${N3T_RACE_SECONDS:-600}

insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=6 || exit 1
check load n3t_load force=1 pmu_type="$(cat $TPI)" interval_ms=20
check hooks-present test -e $DBG/delay_us_read
echo 2000 > $DBG/delay_us_read
echo 2000 > $DBG/delay_us_switch

rm -f /tmp/race.stop
loop() { while [ ! -e /tmp/race.stop ]; do "$@"; done; }
loop sh -c "cat $N3T/cpu*/* > /dev/null 2>&1" &
loop sh -c "cat $N3T/system/* > /dev/null 2>&1" &
loop sh -c "dd if=/dev/n3telemetry bs=777 of=/dev/null 2> /dev/null" &
loop sh -c "dd if=/dev/n3telemetry bs=100 skip=3 of=/dev/null 2> /dev/null" &
loop sh -c "cat $N3T/groups $N3T/sets $N3T/counters $N3T/interval_ms $N3T/system/status > /dev/null 2>&1" &
loop sh -c "for g in all default general 'l1d_cache topdown_l1'; do echo \$g > $N3T/groups; done 2> /dev/null" &
loop sh -c "for m in 20 35 10 50; do echo \$m > $N3T/interval_ms; done 2> /dev/null" &
loop sh -c "for c in 6 3 5 1 6 0 4 6; do echo \$c > $TPDBG/counters; sleep 0.05; done" &
# a resume may find no counter (0 above) and stay paused: the next one retries
loop sh -c "echo 0 > $N3T/enabled; sleep 0.1; echo 1 > $N3T/enabled; sleep 0.2" 2> /dev/null &

t0=$(date +%s)
n=0
fail=0
while [ $n -lt "$CYCLES" ] && [ $(($(date +%s) - t0)) -lt "$LIMIT" ]; do
	c=$((n % 3 + 1))
	echo 0 > $CPUS/cpu$c/online || fail=$((fail + 1))
	echo 1 > $CPUS/cpu$c/online || fail=$((fail + 1))
	n=$((n + 1))
done
touch /tmp/race.stop
wait
echo "# $n offline/online cycles in $(($(date +%s) - t0)) s with 8 concurrent readers and writers"
check at-least-100-cycles test "$n" -ge 100
expect_eq every-cpu-came-online 0 "$fail"
expect_eq all-online "0-3" "$(cat $CPUS/online)"
echo 0 > $DBG/delay_us_read
echo 0 > $DBG/delay_us_switch
echo 6 > $TPDBG/counters
check still-writable sh -c "echo default > $N3T/groups"
check resumes-after-race sh -c "echo 1 > $N3T/enabled"
expect_eq enabled-after-race 1 "$(cat $N3T/enabled)"
check unload n3t_unload

# load/unload cycles while readers hold sysfs files open and keep reading
# (12: 6 unloads while collecting, 6 while paused; each is a full load and
# teardown of every CPU, about 3 s on the debug kernel beside the other
# lane, and KCSAN's boot runs 12 more)
rm -f /tmp/race.stop
loop sh -c "cat $N3T/cpu1/topdown_l1 $N3T/system/status > /dev/null 2>&1" &
loop sh -c "cat /dev/n3telemetry > /dev/null 2>&1" &
n=0
bad=0
while [ $n -lt 12 ]; do
	n3t_load force=1 pmu_type="$(cat $TPI)" interval_ms=10 || bad=$((bad + 1))
	exec 3< $N3T/cpu1/general
	exec 4< $N3T/system/topdown_l1
	[ $((n % 2)) = 1 ] && echo 0 > $N3T/enabled	# unload paused, every other time
	# the snapshot device pins the module while open: rmmod waits for it
	_t=0
	while ! rmmod n3telemetry 2> /dev/null && [ $_t -lt 100 ]; do sleep 0.05; _t=$((_t + 1)); done
	[ -d $N3T ] && bad=$((bad + 1))
	cat <&3 > /dev/null 2>&1 && bad=$((bad + 1))	# a removed file reads ENODEV
	exec 3<&- 4<&-
	n=$((n + 1))
done
touch /tmp/race.stop
wait
expect_eq load-unload-12-cycles-clean 0 "$bad"
rmmod n3t_testpmu
ktap_finish
