#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the module costs a KVM guest in traps (make bench; not in make
# check's lists).  KVM emulates a guest's PMU: every guest access to a PMU
# register traps to the host, and the host's kvm_sys_access tracepoint sees
# each one (the PMU's registers: CRn 9, and CRn 14 from CRm 8 on:
# PMEVCNTRn, PMEVTYPERn, PMCCFILTR).  A Linux guest (kvmguest -L,
# guestmod-init with N3TG_HOLD) spins N3T_TRAP_SECS seconds of its own time
# (default 15: the default schedule's whole rotation) between two marks
# that kvmguest -m writes into the host's trace, after 2 s to settle, beside
#   none           nothing: the guest's own PMU accesses (none while it spins)
#   default        the module as loaded by default (test_all_events=1: every
#                  event of its sets live, as on an N3; force=neoverse-n3)
#   topdown_l1     the module with groups=topdown_l1
#   l1-spare0      the same with spare=0 (level 1 in one set: no switch)
#   perf-default   a CPU-wide perf user of the default's events, one counter
#                  each, as perf stat -a -e E1,E2,... opens them (perf
#                  multiplexes them); perf stat -I 1000 reads each once a
#                  second besides: one more access per counter in use a
#                  second, at most 7 here, left out
#   perf-l1        the same with topdown_l1's events
# The guest's PMU is the host's (QEMU's -cpu max: 6 counters and the cycle
# counter, as an N3's).  Prints per run the traps between the marks, the
# guest seconds between them and the traps per guest second, then
# "TRAPS NAME PER-SECOND" lines (bench.sh's table), and the registers most
# accessed as diagnostics.  A run fails when its guest did not PASS, a mark
# is missing or the trace buffer overflowed.
. ./lib.sh
command -v kvmguest > /dev/null || PATH=$PATH:$N3T_HERE
command -v kvmguest > /dev/null || skip_all "kvmguest not built"
[ -e /dev/kvm ] || skip_all "no /dev/kvm (on QEMU: -M virt,virtualization=on)"
GK=${N3T_GUEST_IMAGE:-$N3T_MODDIR/guest-Image}
GMI=${N3T_GUEST_MOD_INITRD:-$N3T_MODDIR/guestmod-initrd.cpio.gz}
[ -r "$GK" ] && [ -r "$GMI" ] || skip_all "no guest kernel or initramfs"
SECS=${N3T_TRAP_SECS:-15}
[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS 2> /dev/null
E=$TRACEFS/events/kvm/kvm_sys_access
[ -d $E ] || skip_all "no kvm_sys_access tracepoint"
echo 'CRn == 9 || (CRn == 14 && CRm >= 8)' > $E/filter
# perf's multiplexing makes about 15000 traps a guest second, ~50 bytes
# each: 1 MiB a second of the window and its settling, per CPU
echo $(((SECS + 5) * 1024)) > $TRACEFS/buffer_size_kb
echo 0 > $TRACEFS/events/enable
echo 1 > $TRACEFS/tracing_on	# a test before may have left it off

# traps NAME BOOTARGS...: one guest run; "TRAPS NAME PER-SECOND" to
# /tmp/kvmtraps.sum
traps() {
	_t=$1
	shift
	echo > $TRACEFS/trace
	echo 1 > $E/enable
	kvmguest -L "$GK" -i "$GMI" -s 900 -m $TRACEFS/trace_marker \
		-a "N3TG_HOLD=$SECS $*" > /tmp/kvmtraps.$_t 2>&1
	_rc=$?
	echo 0 > $E/enable
	grep -E 'n3tg|kvmguest:' /tmp/kvmtraps.$_t | grep -v bootargs | sed "s/^/# $_t: /"
	# between the marks: "n3tg: mark start UPTIME", "n3tg: mark end UPTIME"
	awk -v t="$_t" '
		/n3tg: mark start/ { on = 1; u0 = $NF; started = 1; next }
		/n3tg: mark end/ { on = 0; u1 = $NF; ended = started; next }
		# "PC: <pc> <name> (op0,op1,crn,crm,op2) read|write": the
		# register, whatever code accessed it (6.1 names it by a macro
		# expression, also dropped)
		on && /kvm_sys_access:/ {
			n++
			sub(/.*kvm_sys_access: PC: [0-9a-fx]+ /, "")
			sub(/^.*\) \(/, "(")
			reg[$0]++
		}
		/^# entries-in-buffer/ { split($3, e, "/"); lost = e[2] - e[1] }
		END {
			if (!ended || u1 <= u0 || lost) {
				printf "FAIL %s marks %s, lost %d\n", t, ended ? "found" : "missing", lost
				exit
			}
			for (r in reg)
				printf "REG %s %d %s\n", t, reg[r], r
			printf "TRAPS %s %d %.2f %.1f\n", t, n, u1 - u0, n / (u1 - u0)
		}' $TRACEFS/trace > /tmp/kvmtraps.$_t.res
	sort -k3,3nr /tmp/kvmtraps.$_t.res | awk '/^REG/ { $1 = $2 = ""; print }' | head -8 | sed "s/^/# $_t: /"
	if [ $_rc = 0 ] && grep -q '^TRAPS' /tmp/kvmtraps.$_t.res; then
		# shellcheck disable=SC2046
		set -- $(grep '^TRAPS' /tmp/kvmtraps.$_t.res)
		echo "# $_t: $3 traps in $4 guest seconds: $5 a guest second"
		echo "TRAPS $_t $5" >> /tmp/kvmtraps.sum
		_result ok "$_t-counted"
	else
		echo "# $_t: kvmguest exit $_rc; $(grep FAIL /tmp/kvmtraps.$_t.res)"
		_result fail "$_t-counted"
	fi
}

ktap_plan 6
rm -f /tmp/kvmtraps.sum
traps none N3TG_WHAT=none
traps default N3TG_WHAT=module
traps topdown_l1 N3TG_WHAT=module N3TG_PARAMS=groups=topdown_l1
traps l1-spare0 N3TG_WHAT=module N3TG_PARAMS=groups=topdown_l1,spare=0
traps perf-default N3TG_WHAT=perf
traps perf-l1 N3TG_WHAT=perf N3TG_PARAMS=groups=topdown_l1
sed 's/^/# /' /tmp/kvmtraps.sum
ktap_finish
