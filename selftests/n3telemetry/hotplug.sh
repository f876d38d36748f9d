#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug: cpuN/ follows the CPU while readers keep reading; a CPU that
# was offline at load joins when it comes online.  Runs on the QEMU PMU.
. ./lib.sh
need_module
CPUS=/sys/devices/system/cpu

wait_seq() {	# wait_seq CPU: until the CPU has published an interval
	_t=0
	while [ $_t -lt 100 ]; do
		s=$(value $N3T/cpu$1/status seq 2>/dev/null)
		[ -n "$s" ] && [ "$s" -gt 0 ] && return 0
		sleep 0.1
		_t=$((_t + 1))
	done
	return 1
}

check load n3t_load force=1 interval_ms=20
(while :; do cat $N3T/cpu*/* $N3T/system/* > /dev/null 2>&1; done) &
reader=$!
for c in 1 2 3; do
	check cpu$c-offline sh -c "echo 0 > $CPUS/cpu$c/online"
	check cpu$c-dir-gone test ! -e $N3T/cpu$c
	check cpu$c-online sh -c "echo 1 > $CPUS/cpu$c/online"
	check cpu$c-dir-back test -d $N3T/cpu$c
	check cpu$c-collects wait_seq $c
done
kill $reader
wait $reader 2>/dev/null
check unload n3t_unload
check offline-before-load sh -c "echo 0 > $CPUS/cpu2/online"
check load-with-cpu2-offline n3t_load force=1 interval_ms=20
check no-cpu2-dir test ! -e $N3T/cpu2
check cpu2-online-later sh -c "echo 1 > $CPUS/cpu2/online"
check cpu2-appears test -d $N3T/cpu2
check cpu2-collects wait_seq 2
check unload-2 n3t_unload
ktap_finish
