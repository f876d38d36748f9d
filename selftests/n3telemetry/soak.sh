#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Soak: interval_ms=10 on QEMU's PMU for N3T_SOAK_SECONDS (default 90) with
# readers of every file: intervals keep advancing, slab does not grow
# (where no KASAN quarantine holds freed objects: see below); kmemleak is
# checked at the end of the run.
. ./lib.sh
need_module
SECS=${N3T_SOAK_SECONDS:-90}
# unreclaimable slab: what kmalloc holds (a leak of the module's would show
# there); the reclaimable caches (dentries, inodes) grow with the readers
# and shrink under pressure, and after race.sh's CPU storms they still
# drained on a slow host (Slab grew 1044 kB in 30 s there, no leak)
slab() { awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo; }
check load n3t_load force=1 interval_ms=10
rm -f /tmp/soak.stop
loop() { while [ ! -e /tmp/soak.stop ]; do "$@"; done; }
loop sh -c "cat $N3T/cpu*/* $N3T/system/* > /dev/null" &
loop sh -c "cat /dev/n3telemetry > /dev/null" &
sleep 10
s0=$(value $N3T/cpu1/status seq)
k0=$(slab)
sleep $((SECS - 10))
s1=$(value $N3T/cpu1/status seq)
k1=$(slab)
touch /tmp/soak.stop
wait
echo "# ${SECS} s: cpu1 seq $s0 -> $s1, slab ${k0} kB -> ${k1} kB"
check seq-advances test "$s1" -gt $((s0 + 100))
# KASAN keeps freed objects in its quarantine (up to 1/32 of memory)
# before they go back to the slab, and they are counted in SUnreclaim: on
# the debug kernel SUnreclaim is about 66 MB, on the KCSAN kernel, the same
# but without KASAN, 3.5 MB; there it grows and shrinks with how full the
# quarantine is (2.4 MB in 20 s once, after race.sh), whatever the module
# does.  The kernels without KASAN (make check's KCSAN one) measure it.
if grep -qw kasan_quarantine_put /proc/kallsyms; then
	ktap_test_skip "slab-flat (freed objects wait in the address sanitizer's quarantine here: measured on the KCSAN kernel)"
else
	check slab-flat test $((k1 - k0)) -lt 1024
fi
check unload n3t_unload
ktap_finish
