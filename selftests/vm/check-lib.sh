#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What check.sh and check-jobs.sh share: the results file, the step lines,
# the module build, QEMU's command line.  Sourced with top, vmdir, out,
# results and t0 set (and kdir, for vm_run's default kernel).
# shellcheck disable=SC2034,SC2154

# the kselftests make check runs on the oldest and newest Debian kernels
# (detect.sh: the MIDR ranges, with their kernels' cputype.h or the
# module's own names, and from 6.15 the per-range helper)
MATRIX_CHECK_TESTS="smoke.sh detect.sh badinput.sh values.sh hotplug.sh pause.sh neighbour.sh"

# check-jobs.sh's jobs, longest first (what is left at the end is short):
# either lane takes the next one nobody has taken
CHECK_JOBS="plans-6.12 kcsan distro-6.1 sweep-6.12 race-6.12 isolated-6.12 detect-6.12 realpmu-6.12"

# the kselftests that search the module's plans and failures, in boots of
# their own (check-jobs.sh's plans-6.12: every table's plans and
# capacities; sweep-6.12: the selections at every capacity, injected
# failures), so that the two lanes share the longest runs; the 6.12 debug
# kernel's check boot runs the others but these, RACE_TESTS and
# KCSAN_ONLY_TESTS (check.sh)
PLANS_TESTS="plans.sh"
SWEEP_TESTS="sweep.sh faults.sh"
# the kselftests that race (hotplug beside readers and writers, a soak):
# a boot of their own (check-jobs.sh's race-6.12)
RACE_TESTS="race.sh soak.sh"

# the kselftests only the KCSAN kernel runs (check-jobs.sh's KCSAN_TESTS):
# snapconcur's concurrent snapshot readers, a torn record or a data race;
# on the KASAN kernel race.sh's readers of /dev/n3telemetry (odd block
# sizes, CPUs going offline) cover the reader's memory
KCSAN_ONLY_TESTS="snapconcur.sh"

step() { printf '== [%4ss] %s\n' "$(( $(date +%s) - t0 ))" "$*"; }

# record PASS|FAIL|SKIP NAME: one line per test, counted at the end
record() {
	echo "$1 $2" >> "$results"
	printf '%-4s %s\n' "$1" "$2"
}

# build_modules KDIR DEST [extra make args]: the module tree out of the
# source tree, one copy per kernel
build_modules() {
	local k=$1 dest=$2
	shift 2
	rm -rf "$dest"
	mkdir -p "$dest"
	(cd "$top" && git ls-files -co --exclude-standard -z 2>/dev/null |
		rsync -a --from0 --files-from=- "$top/" "$dest/") ||
		rsync -a --exclude build --exclude .git "$top/" "$dest/"
	make -s -C "$k" M="$dest" "$@" modules
}

# vm_limit SECONDS: a VM's time limit, which only stops a VM that hangs.
# SECONDS is about twice a run on a quiet 2-core host; a busy one (the other
# lane's VMs beside it, another job) has taken more (6.1's smoke boot ended
# mid-neighbour at 300 s), so the limit is three times that, or N3T_VM_SLOW
# times it.  CI's own limit bounds the sum.
vm_limit() {
	echo $(( $1 * ${N3T_VM_SLOW:-3} ))
}

# qemu KERNEL INITRD APPEND LOG TIMEOUT [extra]; VM_QEMU, VM_CPU, VM_SMP
# override the binary, -cpu max and -smp 4.  -cpu max with QEMU's cheap
# pointer-authentication algorithm: Debian's kernels sign every return
# address, and the architected QARMA cipher takes about 40 % of their time
# under TCG (5.10's kselftests in make matrix: 98 s, 56 s with impdef)
qemu() {
	local kernel=$1 initrd=$2 append=$3 log=$4 tmo=$5
	shift 5
	local rc=0
	# in a subshell, so that its "times" are QEMU's alone: the host CPU
	# a VM costs, which decides make check's time on a busy machine more
	# than its length does
	(
		timeout --foreground "$tmo" "${VM_QEMU:-qemu-system-aarch64}" -M virt \
			-cpu "${VM_CPU:-max,pauth-impdef=on}" -smp "${VM_SMP:-4}" -m 2G \
			-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$initrd" \
			-append "console=ttyAMA0 loglevel=4 panic=-1 $append" "$@" \
			< /dev/null > "$log" 2>&1
		r=$?
		# (times itself in this shell: in a command substitution it
		# would count that subshell's children, none)
		times > "$log.times"
		echo "   host CPU of $(basename "$log" .log): $(tail -1 "$log.times") (user, system)"
		exit $r
	) || rc=$?
	return $rc
}

# vm_run TAG MODE-AND-APPEND TIMEOUT [qemu args]: one more boot of the debug
# kernel (VM_KERNEL and VM_INITRD: another kernel, another initramfs)
vm_run() {
	local tag=$1 append=$2 tmo=$3 log=$out/console-$1.log
	shift 3
	if qemu "${VM_KERNEL:-$kdir/arch/arm64/boot/Image}" "${VM_INITRD:-$out/initramfs-6.12.cpio.gz}" \
		"$append" "$log" "$tmo" "$@" && grep -q N3T-DONE "$log"; then
		record PASS "vm-$tag-poweroff"
	else
		tail -30 "$log"
		record FAIL "vm-$tag-poweroff"
	fi
	# shellcheck disable=SC2086
	python3 "$vmdir/results.py" ${VM_RESULTS_ARGS:-} --tag "$tag" "$log" >> "$results" || true
	grep -E "^(PASS|FAIL) ${tag//./\\.}/" "$results"
}
