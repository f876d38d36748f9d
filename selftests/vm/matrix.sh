#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make matrix: every Debian suite's arm64 kernel, built against and booted.
#   selftests/vm/matrix.sh [--build-only] [SUITE...]
# For each suite (default: bullseye bookworm trixie trixie-backports sid
# experimental; suite-kernel.sh fetches its newest kernel into a chroot of
# the suite), builds the module, the test PMU and the perfcost bench helper
# with W=1 -Werror against the suite's headers with its kbuild and compiler
# (suite-build.sh), then boots the kernel in qemu-system-aarch64 -M virt
# with them and runs the kselftests that apply on any kernel (N3T_MATRIX_TESTS);
# with trixie among the suites, the packages end to end on Debian 13 too
# (e2e.sh, N3T_E2E_SUITE=trixie; its lines e2e-trixie/..., one row of the table).
# Prints a table, test x kernel: pass, FAIL or skip with the reason, into
# build/matrix/table.txt too; results (PASS|FAIL|SKIP lines) in
# build/matrix/results.txt, what each kernel was and took in kernels.txt.  Exits 1 when anything failed.
# N3T_MATRIX_RESULTS=FILE also appends the result lines there, and
# N3T_MATRIX_OUT=DIR puts the logs there instead, and
# N3T_MATRIX_GUEST_READY=1 uses the guest programs in build/ as they are
# (check.sh, which makes them), and N3T_MATRIX_KVM=0 boots no kernel as a
# KVM host.
set -euo pipefail
# read whole before it runs: an edit during a run changes nothing of it
{
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${N3T_MATRIX_OUT:-$top/build/matrix}
build_only=
# -cpu max with QEMU's cheap pointer-authentication algorithm: Debian's
# kernels sign every return address, and the architected QARMA cipher is
# most of their time under TCG
VM_CPU=${VM_CPU:-max,pauth-impdef=on}
if [ "${1:-}" = --build-only ]; then
	build_only=1
	shift
fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bullseye bookworm trixie trixie-backports sid experimental)
# the kselftests that need no boot option, no KVM and no oracle of the 6.12
# tree (detect.sh's midr-map.txt is the module's ranges, named as in any kernel)
tests=${N3T_MATRIX_TESTS:-smoke.sh detect.sh layout.sh format.sh badinput.sh access.sh values.sh \
rest.sh hotplug.sh pause.sh nofit.sh snapconcur.sh neighbour.sh consistency.sh}
mkdir -p "$out"
results=$out/results.txt
: > "$results"
t0=$(date +%s)
step() { printf '== [%4ss] %s\n' "$(( $(date +%s) - t0 ))" "$*"; }
record() {
	echo "$1 $2" >> "$results"
	[ -z "${N3T_MATRIX_RESULTS:-}" ] || echo "$1 $2" >> "$N3T_MATRIX_RESULTS"
	printf '%-4s %s\n' "$1" "$2"
}

"$here/deps.sh"
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
# N3T_MATRIX_GUEST_READY=1: check.sh has made them (build/) already
if [ -z "$build_only" ] && [ -z "${N3T_MATRIX_GUEST_READY:-}" ]; then
	step "guest programs: n3tel (arm64, static), the kselftests' helpers"
	make -s -C "$top/tools/n3tel" arm64 > "$out/n3tel-arm64.log" 2>&1
	cp "$top/tools/n3tel/n3tel-arm64" "$top/build/n3tel-arm64"
	"$here/guest-progs.sh" "$top/build/guest-bin"
	spec=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}/neoverse-n3.json
	[ -d "$top/build/cores" ] || python3 "$top/selftests/host/core_expect.py" \
		"$(dirname "$spec")" "$top/build/cores" "$top/tools/models/generic.json"
	# detect.sh's oracle, the module's MIDR ranges (Debian 12's 6.1 headers
	# name the cores, the module's own defines the newer ones)
	ddir=$("$here/distro-kernel.sh" | tail -1)
	python3 "$here/midr-map.py" "$top/module" "$(ls -d "$ddir"/root/usr/src/linux-headers-*-common)" \
		> "$top/build/midr-map.tmp" && mv "$top/build/midr-map.tmp" "$top/build/midr-map.txt"
fi

# what each kernel needed: its suite, release, compiler, timings
: > "$out/kernels.txt"
for s in "${suites[@]}"; do
	step "$s: kernel and chroot (suite-kernel.sh)"
	st=$(date +%s)
	if ! root=$("$here/suite-kernel.sh" "$s" 2> "$out/kernel-$s.log" | tail -1) ||
	   [ ! -e "$root/n3t-kernel.env" ]; then
		tail -5 "$out/kernel-$s.log"
		record FAIL "$s/kernel-fetched"
		continue
	fi
	(
		# shellcheck source=/dev/null
		. "$root/n3t-kernel.env"
		tag=$s
		log=$out/build-$s.log
		step "$s: $ABI ($CC) ready in $(( $(date +%s) - st ))s; modules W=1 -Werror"
		bt=$(date +%s)
		if "$here/suite-build.sh" "$s" "$out/mod-$s" W=1 KCFLAGS=-Werror \
			N3T_TESTS=y N3T_BENCH=y > "$log" 2>&1 &&
		   ! grep -E 'warning:|error:|WARNING:' "$log"; then
			record PASS "$tag/build-w1"
		else
			grep -E 'warning:|error:|WARNING:|Error' "$log" | head -20
			record FAIL "$tag/build-w1"
		fi
		# no static key's site: loading one of an enabled key IPIs every
		# CPU, isolated ones too (key-sites.sh)
		if [ -f "$out/mod-$s/module/n3telemetry.ko" ]; then
			if "$here/key-sites.sh" "$out/mod-$s/module/n3telemetry.ko"; then
				record PASS "$tag/no-static-key-sites"
			else
				record FAIL "$tag/no-static-key-sites"
			fi
		fi
		for ko in module/n3telemetry selftests/testpmu/n3t_testpmu \
			selftests/bench/perfcost/n3t_perfcost; do
			if [ -f "$out/mod-$s/$ko.ko" ]; then
				record PASS "$tag/build/$(basename "$ko")"
			else
				record FAIL "$tag/build/$(basename "$ko")"
			fi
		done
		echo "$s $ABI $CC build $(( $(date +%s) - bt ))s" >> "$out/kernels.txt"
		[ -z "$build_only" ] || exit 0
		[ -f "$out/mod-$s/module/n3telemetry.ko" ] || exit 0
		"$here/mkinitramfs.sh" "$out/mod-$s/" "$out/initramfs-$s.cpio.gz"
		step "$s: boot $ABI (qemu -M virt -cpu $VM_CPU -smp 4): $tests"
		vt=$(date +%s)
		vlog=$out/console-$s.log
		only=$(echo "$tests" | tr -s ' \n' ,)
		# boot LOG SECONDS N3T-ARGS [QEMU-ARGS...]: the suite's kernel,
		# until it powers off (BOOT_SMP CPUs, 4 by default; BOOT_INITRD
		# another initramfs); log_buf_len: the whole kernel log is
		# searched for splats
		boot() {
			local log=$1 tmo=$2 append=$3
			shift 3
			timeout --foreground "$tmo" qemu-system-aarch64 -M virt -cpu "$VM_CPU" \
				-smp "${BOOT_SMP:-4}" -m 2G -nographic -no-reboot -nic none \
				-kernel "$root$VMLINUZ" -initrd "${BOOT_INITRD:-$out/initramfs-$s.cpio.gz}" \
				-append "console=ttyAMA0 loglevel=4 log_buf_len=4M panic=-1 $append" "$@" \
				< /dev/null > "$log" 2>&1 && grep -q N3T-DONE "$log"
		}
		# results_of LOG FILE: LOG's results (results.py) into FILE and
		# the suite's, its failures and skips shown
		results_of() {
			python3 "$here/results.py" --tag "$tag" "$1" > "$2" || true
			while read -r r n; do record "$r" "$n"; done < "$2" > /dev/null
			grep -E '^(FAIL|SKIP)' "$2" || true
		}
		if boot "$vlog" 1500 "n3t.mode=check n3t.only=$only"; then
			record PASS "$tag/vm-poweroff"
		else
			tail -30 "$vlog"
			record FAIL "$tag/vm-poweroff"
		fi
		results_of "$vlog" "$out/results-$s.txt"
		echo "$s $ABI $CC vm $(( $(date +%s) - vt ))s" >> "$out/kernels.txt"
		# isolation followed live on the kernel's own terms: CPU 3 in a
		# cpuset isolated partition (6.2+), where 7.x's housekeeping
		# masks count such partitions as isolated (HK_TYPE_DOMAIN_BOOT:
		# the module must still see the CPU leave it)
		case $ABI in
		[1-5].* | 6.[01].*) ;;
		*)
			step "$s: boot $ABI again, CPU 3 in a cpuset isolated partition: isolated.sh"
			ilog=$out/console-$s-isolated-cpuset.log
			if boot "$ilog" 600 "n3t.mode=isolated n3t.cpuset=3"; then
				record PASS "$tag/vm-isolated-cpuset-poweroff"
			else
				tail -30 "$ilog"
				record FAIL "$tag/vm-isolated-cpuset-poweroff"
			fi
			# the table's row "isolated"
			results_of "$ilog" "$out/results-$s-isolated.txt"
			grep -q "^PASS $tag/ksft/isolated/live-cpu3-collected-again\$" \
				"$out/results-$s-isolated.txt" ||
				record FAIL "$tag/isolated-cpuset-followed-live (see $ilog)"
			;;
		esac
		# a KVM host from 6.7 on, where a VMM sets the counters a guest
		# gets (PMCR_EL0.N): kvmguest.sh, guests' PMUs beside the module
		# and the module inside a guest of the host's counters, one with
		# INST_RETIRED filtered out, and one of 2 counters (a cloud
		# instance's).  QEMU emulates EL2 (GICv3 for the in-kernel
		# vGICv3), -icount for INST_RETIRED; the guest is this kernel.
		# N3T_MATRIX_KVM=0 (make check's run: about 500 s of a 2-core
		# host there; its 6.1 job boots a KVM host) leaves it out.
		case ${N3T_MATRIX_KVM:-1}:$ABI in
		0:* | *:[1-5].* | *:6.[0-6].*) ;;
		*)
			step "$s: boot $ABI as a KVM host (qemu -M virt,virtualization=on -icount -smp 2): kvmguest.sh, the module inside guests"
			rm -f "$out/initramfs-$s-kvm.cpio.gz"
			N3T_GUEST_KERNEL=$root$VMLINUZ "$here/mkinitramfs.sh" "$out/mod-$s/" \
				"$out/initramfs-$s-kvm.cpio.gz" ||
				{ record FAIL "$tag/kvm-initramfs"; exit 1; }
			klog=$out/console-$s-kvm.log
			kt=$(date +%s)
			if BOOT_SMP=2 BOOT_INITRD=$out/initramfs-$s-kvm.cpio.gz boot "$klog" 900 n3t.mode=kvm \
				-M virtualization=on,gic-version=3 -icount shift=0; then
				record PASS "$tag/vm-kvm-poweroff"
			else
				tail -30 "$klog"
				record FAIL "$tag/vm-kvm-poweroff"
			fi
			results_of "$klog" "$out/results-$s-kvm.txt"
			# the guest of 2 counters must have run, not skipped
			grep -q "^PASS $tag/ksft/kvmguest/guestmod-two-counters-verdict-pass\$" \
				"$out/results-$s-kvm.txt" ||
				record FAIL "$tag/kvm-guest-of-2-counters-ran (see $klog)"
			echo "$s $ABI $CC vm-kvm $(( $(date +%s) - kt ))s" >> "$out/kernels.txt"
			;;
		esac
	) || record FAIL "$s/matrix-step (exited $?)"
done

# the packages end to end on Debian 13 (e2e.sh with N3T_E2E_SUITE=trixie:
# DKMS, its signing, systemd, node_exporter, Prometheus), when trixie is
# among the suites; N3T_MATRIX_E2E=0 leaves it out
if [ -z "$build_only" ] && [ "${N3T_MATRIX_E2E:-1}" != 0 ] && [[ " ${suites[*]} " == *" trixie "* ]]; then
	step "trixie: the packages end to end (e2e.sh, N3T_E2E_SUITE=trixie; log: $out/e2e-trixie.log)"
	et=$(date +%s)
	: > "$out/e2e-trixie-results.txt"
	N3T_E2E_SUITE=trixie "$here/e2e.sh" "$out" "$out/e2e-trixie-results.txt" > "$out/e2e-trixie.log" 2>&1 ||
		record FAIL "e2e-trixie/exited-early (see $out/e2e-trixie.log)"
	while read -r r n; do record "$r" "$n"; done < "$out/e2e-trixie-results.txt" > /dev/null
	grep '^FAIL' "$out/e2e-trixie-results.txt" || true
	echo "   e2e on trixie: $(( $(date +%s) - et ))s, $(grep -c "^PASS" "$out/e2e-trixie-results.txt") passed, $(grep -c "^FAIL" "$out/e2e-trixie-results.txt") failed"
fi

step "table"
python3 "$here/matrix_table.py" "$results" "$out/kernels.txt" "${suites[@]}" | tee "$out/table.txt"
pass=$(grep -c '^PASS' "$results" || true)
fail=$(grep -c '^FAIL' "$results" || true)
skip=$(grep -c '^SKIP' "$results" || true)
echo "== matrix: $(( $(date +%s) - t0 ))s; logs in $out"
echo "$pass passed, $fail failed$([ "$skip" = 0 ] || echo ", $skip skipped")"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
exit
}
