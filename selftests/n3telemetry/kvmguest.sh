#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real KVM guest beside the module: its virtual PMU counts the whole time.
#
# KVM backs each counter of a guest's PMU with a host perf event of its own,
# a task-pinned kernel counter of the vCPU thread (arch/arm64/kvm/pmu-emul.c:
# pinned, exclude_host); one that finds no counter goes to perf's error state
# for good and the guest reads a frozen count.  kvmguest (kvmguest.c) is a
# tiny VMM: one vCPU with KVM's PMUv3 and an in-kernel vGICv3, and a
# bare-metal guest (not Linux: a loop of a few instructions at EL1) that
# enables its cycle counter and every event counter its PMCR_EL0.N offers
# (INST_RETIRED, CPU_CYCLES alternately: the whole PMU, what the module
# wants too), spins 2 * SPIN instructions, reads all its counters and reports
# them by MMIO, again and again.  The vCPU runs on CPU 1 beside a busy loop,
# so that the host switches it out and in all the time: at every switch perf
# schedules the guest's pinned events in again, beside the module's.
#
# Then a Linux guest: kvmguest -L boots Debian's kernel (the one this VM
# runs) with its own device tree and UART, and kvmperf (kvmperf.c), its
# /init, uses the guest's perf_event_open as any guest's tools would:
# pinned events, one per counter of the guest's PMU, on its task and then on
# its CPU, each round of a known loop judged inside the guest (running ==
# enabled, a plausible advance).  With pinned=1 the guest's kernel still
# says its events ran the whole time; their counts freeze.
#
# What passing proves: with the module loaded with its default sharing
# (pinned=0), at every report of a few seconds' run every guest counter
# advanced by at least what the guest executed between two reports (under
# QEMU's -icount exactly that, 2 * SPIN + the report code) -- none of KVM's
# pinned host events was ever left without a counter, across hundreds of
# vCPU switches and the module's set switches and re-packs.  The same run
# without the module is the baseline (the VMM, KVM and the emulated PMU
# work), and with pinned=1 (the module's old behaviour, kept for dedicated
# monitoring hosts) the same guest must see counters freeze: the control
# that shows this test can fail.  The kprobe on
# perf_event_create_kernel_counter shows the host side: the events KVM
# created for the guest are pinned, per task (cpu -1) and exclude the host.
#
# Needs a host with KVM and a PMU for guests (in make check: Debian's 6.1
# kernel, and in its matrix trixie-backports' 7.3, under qemu-system-aarch64
# -M virt,virtualization=on -cpu max -icount shift=0, where QEMU emulates
# EL2 and the kernel runs KVM); INST_RETIRED
# counts only under -icount, so without it the test is skipped.  The Linux
# guest needs its kernel and initramfs in N3T_MODDIR (selftests/vm/
# mkinitramfs.sh with N3T_GUEST_KERNEL puts them there) or N3T_GUEST_IMAGE
# and N3T_GUEST_INITRD; without them its tests are skipped.
. ./lib.sh
need_module
command -v kvmguest > /dev/null || PATH=$PATH:$N3T_HERE
command -v kvmguest > /dev/null || skip_all "kvmguest not built (make -C selftests/n3telemetry)"
[ -e /dev/kvm ] || skip_all "no /dev/kvm (on QEMU: -M virt,virtualization=on)"
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || skip_all "needs 2 CPUs"
SPIN=2000000
SECS=${N3T_KVM_SECS:-2}

# g NAME ARGS...: kvmguest, its lines as diagnostics
g() {
	_g=$1
	shift
	diag_run "$_g" "/tmp/kvmguest.$_g" kvmguest "$@"
}

# Baseline, without the module: the guest's counters all count
g probe -e 0x08 -n $SPIN -s 0.2 -r 1
case $? in
0) ;;
4) skip_all "$(cat /tmp/kvmguest.probe)" ;;
*)	# QEMU counts instructions only with -icount
	grep -q '^cycle-counter .* frozen 0,' /tmp/kvmguest.probe &&
		grep -q '^counter 0x08: \([0-9]*\) advances .* frozen \1,' /tmp/kvmguest.probe &&
		skip_all "the guest's INST_RETIRED never counts here (QEMU without -icount?)"
	bail "kvmguest failed without the module" ;;
esac

# The host side, traced: the events KVM creates for the guest's counters
KP=$TRACEFS/kprobe_events
[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS 2> /dev/null
kprobe=
if echo 'p:n3tkvm/create perf_event_create_kernel_counter config=+8(%x0):u64 pinned=+40(%x0):b1@2/64 exclude_host=+40(%x0):b1@19/64 cpu=%x1:s32 task=%x2:x64' \
	>> $KP 2> /dev/null && trace_on n3tkvm/create; then
	kprobe=1
else
	echo "# no kprobe on perf_event_create_kernel_counter: the host side is not traced"
fi
# host_side PREFIX MIN: the kvmguest run since trace_on created at least
# MIN host events, every one pinned, per task (cpu -1), excluding the host
host_side() {
	grep ' kvmguest-' $TRACEFS/trace | grep -o 'config=.*' > /tmp/kvmguest.trace
	trace_off n3tkvm/create
	sort /tmp/kvmguest.trace | uniq -c | sed 's/^ */# host event created by the vCPU thread: /'
	check "$1kvm-events-created" test "$(wc -l < /tmp/kvmguest.trace)" -ge "${2:-99}"
	expect_eq "$1kvm-events-task-pinned-exclude-host" "" \
		"$(grep -v 'pinned=1 exclude_host=1 cpu=-1 task=0xf' /tmp/kvmguest.trace)"
}
check baseline-every-counter-counts g baseline -A -n $SPIN -s "$SECS" -c 1 -b
n=$(sed -n 's/.*guest uses the cycle counter and \([0-9]*\):.*/\1/p' /tmp/kvmguest.baseline)
[ -n "$kprobe" ] && host_side "" $((${n:-99} + 1))

# A Linux guest (Debian's kernel, the one this VM runs: mkinitramfs.sh with
# N3T_GUEST_KERNEL) whose own perf_event_open counts: kvmguest -L boots it
# with kvmperf (kvmperf.c) as its /init, which opens pinned events on
# itself, one per counter of the guest's PMU (cycles, instructions, raw
# CPU_CYCLES and INST_RETIRED), spins a known loop round after round and
# judges every round: running == enabled, and an advance of at least what
# the loop takes (2 * SPIN instructions, SPIN cycles), at most 16 times
# that; then the same with the events on the guest's CPU instead of its
# task.  Its rounds run on CPU 1 beside a busy loop, as the bare-metal
# guest's.  Baseline first, without the module.
GK=${N3T_GUEST_IMAGE:-$N3T_MODDIR/guest-Image}
GI=${N3T_GUEST_INITRD:-$N3T_MODDIR/guest-initrd.cpio.gz}
# lg NAME MS: the Linux guest, its rounds for MS ms (guest time) per scope,
# its console as diagnostics
lg() {
	diag_run "linux-$1" "/tmp/kvmlinux.$1" kvmguest -L "$GK" -i "$GI" -s 240 -c 1 -b \
		-a "N3TG_SPIN=$SPIN N3TG_MS=$2 N3TG_ROUNDS=10"
}
# kvmperf's judge, on this host first: with one pinned event more than the
# PMU's counters (the cycle counter and PMCR_EL0.N) one cannot run (perf
# puts it in error state, its reads say EOF), and kvmperf must say so, on
# its task and on its CPU
if command -v kvmperf > /dev/null; then
	check kvmperf-judge-catches-unrunnable-event fails \
		diag_run kvmperf-host /tmp/kvmperf.host env N3TG_EVENTS=$((${n:-99} + 2)) \
		N3TG_SPIN=$SPIN N3TG_MS=100 N3TG_ROUNDS=3 kvmperf
	check kvmperf-judge-task-not-running-seen \
		grep -q 'n3tg: task: .*BAD rounds: not running [1-9]' /tmp/kvmperf.host
	check kvmperf-judge-cpu-not-running-seen \
		grep -q 'n3tg: cpu: .*BAD rounds: not running [1-9]' /tmp/kvmperf.host
fi
linux=
if [ -r "$GK" ] && [ -r "$GI" ]; then
	linux=1
	[ -n "$kprobe" ] && trace_on n3tkvm/create
	check linux-baseline-guest-perf-counts lg baseline 500
	# an event per counter: the cycle counter and PMCR_EL0.N
	nl=$(sed -n 's/.*n3tg: task: \([0-9]*\) pinned events.*/\1/p' /tmp/kvmlinux.baseline)
	expect_eq linux-guest-uses-every-counter $((${n:-99} + 1)) "$nl"
	[ -n "$kprobe" ] && host_side linux- "${nl:-99}"
else
	ktap_test_skip "linux-baseline-guest-perf-counts (no $GK: mkinitramfs.sh without N3T_GUEST_KERNEL)"
fi
[ -n "$kprobe" ] && echo '-:n3tkvm/create' >> $KP

# The module with its default sharing: the guest's counters still count
# at every report.  interval_ms=100 instead of 1000 for more set switches.
# QEMU's CPU is no Neoverse: the N3 table then (force=1), as realpmu.sh
if n3t_load interval_ms=100 2> /dev/null; then
	check load true
else
	check load n3t_load force=1 interval_ms=100
fi
echo "# module: $(head -2 $N3T/counters | tr '\n' ' '), $(wc -l < $N3T/sets) sets"
sleep 0.5
ev() { awk '$1 == "CPU_CYCLES" { print $2, $3 }' "$N3T/$1/events"; }
sys0=$(ev system) one0=$(ev cpu1)
check module-default-every-counter-counts g default -A -n $SPIN -s "$SECS" -c 1 -b
grep -q 'involuntary' /tmp/kvmguest.default &&
	check vcpu-switched-out-and-in test "$(sed -n 's/.* \([0-9]*\) involuntary.*/\1/p' /tmp/kvmguest.default)" -ge 10
# the module's own counts meanwhile (count, ns counted): on CPU 1 only
# slices that fell whole between two of the guest's time slices count
sys1=$(ev system) one1=$(ev cpu1)
echo "# module meanwhile: CPU_CYCLES system '$sys0' -> '$sys1', cpu1 '$one0' -> '$one1';" \
	"$(head -2 $N3T/counters | tr '\n' ' ')"
check module-collected-meanwhile test "${sys1%% *}" -gt "${sys0%% *}"
check module-still-collecting grep -q 'state collecting' $N3T/system/status
if [ -n "$linux" ]; then
	check linux-module-default-guest-perf-counts lg default 1000
	check linux-vcpu-switched-out-and-in \
		test "$(sed -n 's/.* \([0-9]*\) involuntary.*/\1/p' /tmp/kvmlinux.default)" -ge 10
	check linux-module-still-collecting grep -q 'state collecting' $N3T/system/status
else
	ktap_test_skip "linux-module-default-guest-perf-counts (no guest kernel)"
fi
check unload n3t_unload

# pinned=1, the module's old behaviour: its CPU-pinned counters are
# scheduled before the vCPU thread's pinned ones, which lose their counters
# and freeze; the guest must notice
n3t_load interval_ms=100 pinned=1 2> /dev/null || n3t_load force=1 interval_ms=100 pinned=1
echo "# module pinned=1: $(head -2 $N3T/counters | tr '\n' ' '), $(wc -l < $N3T/sets) sets"
sleep 0.5
check pinned-mode-freezes-guest-counters fails g pinned -A -n $SPIN -s "$SECS" -c 1 -b
check pinned-mode-frozen-seen grep -q 'FROZEN' /tmp/kvmguest.pinned
if [ -n "$linux" ]; then
	# the guest's kernel still believes its events run (running ==
	# enabled); their counts stop
	check linux-pinned-mode-freezes-guest-events fails lg pinned 500
	check linux-pinned-mode-frozen-seen grep -q 'n3tg: .*FROZEN' /tmp/kvmlinux.pinned
	check linux-pinned-mode-guest-gave-verdict grep -q 'n3tg: FAIL' /tmp/kvmlinux.pinned
fi
n3t_unload

# The module inside the guest, on the PMU KVM gives it, as a rented
# instance's: kvmguest -L boots the guest with guestmod-init as its /init
# (mkinitramfs.sh's guestmod-initrd), which loads the module, checks it
# and prints "n3tg: ok NAME" lines, here this test's guestmod-SHAPE-NAME.
# Shapes: the host's counters, two vCPUs (the second taken down and
# brought up again inside the guest); INST_RETIRED denied by KVM's PMU event
# filter (it leaves the guest's PMCEID: ipc nan); 2 counters (PMCR_EL0.N
# set by the VMM: Linux 6.7 and later, skipped before).
GMI=${N3T_GUEST_MOD_INITRD:-$N3T_MODDIR/guestmod-initrd.cpio.gz}
# gm SHAPE KVMGUEST-ARGS...
gm() {
	_shape=$1
	shift
	diag_run "guestmod-$_shape" "/tmp/kvmmod.$_shape" kvmguest -L "$GK" -i "$GMI" -s 240 "$@"
	case $? in
	4) ktap_test_skip "guestmod-$_shape ($(grep '^kvmguest:' /tmp/kvmmod.$_shape | tail -1))"
	   return ;;
	esac
	sed -n -e 's/^guest: n3tg: not ok \([^ ]*\).*/bad \1/p' -e 's/^guest: n3tg: ok \([^ ]*\).*/ok \1/p' \
		"/tmp/kvmmod.$_shape" > /tmp/kvmmod.$_shape.res
	while read -r _r _c; do
		check "guestmod-$_shape-$_c" test "$_r" = ok
	done < /tmp/kvmmod.$_shape.res
	check "guestmod-$_shape-verdict-pass" grep -q '^guest: n3tg: PASS' "/tmp/kvmmod.$_shape"
}
if [ -r "$GK" ] && [ -r "$GMI" ]; then
	gm host -p 2
	# the hotplug rounds and perf's comparison ran (a guest that did not
	# see its second vCPU would skip them silently)
	check guestmod-host-hotplug-ran grep -q ' hotplug-cpu1-three-rounds$' /tmp/kvmmod.host.res
	check guestmod-host-guest-perf-compared grep -q ' cycles-rate-as-guest-perf$' /tmp/kvmmod.host.res
	gm deny-inst-retired -F 0x08 -a N3TG_DENIED=0x08
	gm two-counters -N 2
else
	ktap_test_skip "guestmod (no $GMI: mkinitramfs.sh without N3T_GUEST_KERNEL)"
fi
ktap_finish
