#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's jobs besides each lane's own work: the plans, sweep and race
# kselftests on the 6.12 debug kernel, QEMU's own PMU, isolated CPUs, MIDR
# detection, the KCSAN kernel, Debian 12's 6.1 kernel (a KVM host too).
# check.sh's two lanes (the foreground, once the 6.12
# VM is done; the background, once the end-to-end test and the matrix are,
# and the foreground has made the initramfs) both run this: each takes the
# jobs nobody has taken yet, in order (a mkdir claims one; CHECK_JOBS, in
# check-lib.sh), so whichever lane is free first does the next.
# Usage: check-jobs.sh BUILDDIR; a job's output goes to
# BUILDDIR/jobs/NAME/log, its results to BUILDDIR/jobs/NAME/results, its
# exit status to BUILDDIR/jobs/NAME/rc (check.sh shows them in order).
set -euo pipefail

vmdir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$vmdir/../.." && pwd)
out=$1
t0=${N3T_CHECK_T0:-$(date +%s)}
results=/dev/null
# shellcheck source=selftests/vm/check-lib.sh
. "$vmdir/check-lib.sh"
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
# the debug kernel check.sh built (cached: no build here)
kdir=$("$vmdir/build-kernel.sh" | tail -1)

# the plans boot: every table's plans and capacities, a load and unload
# each; its kmemleak scan is judged too
job_plans_6_12() {
	step "plans kselftests on the 6.12 debug kernel: ${PLANS_TESTS//.sh/}"
	kt=$(date +%s)
	VM_RESULTS_ARGS=--kmemleak vm_run 6.12-plans "n3t.mode=check n3t.only=${PLANS_TESTS// /,}" 2700
	echo "   VM run: $(( $(date +%s) - kt ))s, console log: $out/console-6.12-plans.log"
}

# the sweep boot: the selections at every capacity, injected failures; its
# kmemleak scan is judged too (faults.sh)
job_sweep_6_12() {
	step "sweep kselftests on the 6.12 debug kernel: ${SWEEP_TESTS//.sh/}"
	kt=$(date +%s)
	VM_RESULTS_ARGS=--kmemleak vm_run 6.12-sweep "n3t.mode=check n3t.only=${SWEEP_TESTS// /,}" 2700
	echo "   VM run: $(( $(date +%s) - kt ))s, console log: $out/console-6.12-sweep.log"
}

# the race boot: race's 100 hotplug cycles (the least it accepts; 150 by
# default) and a 30 s soak, not 90: on this kernel a cycle takes about 3 s
# beside the other lane (1 s on the KCSAN kernel, which runs 100 more), and
# both keep every vCPU busy with their readers, so that on a 2-core host
# they cost the other lane as much.  Its kmemleak scan is judged too.
RACE_ARGS="N3T_RACE_CYCLES=100 N3T_SOAK_SECONDS=30"
job_race_6_12() {
	step "race kselftests on the 6.12 debug kernel: ${RACE_TESTS//.sh/}"
	kt=$(date +%s)
	VM_RESULTS_ARGS=--kmemleak vm_run 6.12-race \
		"n3t.mode=check n3t.only=${RACE_TESTS// /,} $RACE_ARGS" 2700
	echo "   VM run: $(( $(date +%s) - kt ))s, console log: $out/console-6.12-race.log"
}

job_realpmu_6_12() {
	step "QEMU's own PMU with -icount (real emulated cycles and instructions)"
	vm_run 6.12-realpmu "n3t.mode=realpmu" "$(vm_limit 300)" -icount shift=0

}

job_isolated_6_12() {
	step "isolated CPUs: 6.12 debug kernel booted with nohz_full=3, and CPU 3 in a cpuset isolated partition"
	vm_run 6.12-isolated "n3t.mode=isolated nohz_full=3" "$(vm_limit 300)"
	vm_run 6.12-isolated-cpuset "n3t.mode=isolated n3t.cpuset=3" "$(vm_limit 300)"
}


# neoverse_models QEMU: the Neoverse CPU models QEMU offers
neoverse_models() {
	"$1" -M virt -cpu help 2>/dev/null | grep -o 'neoverse-[a-z0-9-]*' | sort -u || true
}

# vm_detect TAG QEMU MODEL: detection by MIDR on QEMU's model of a Neoverse
vm_detect() {
	local tag=$1 q=$2 cpu=$3 t
	t=$(date +%s)
	VM_QEMU=$q VM_CPU=$cpu VM_SMP=2 vm_run "$tag" "n3t.mode=detect n3t.cpu=$cpu" "$(vm_limit 150)"
	echo "   $cpu: $(grep -ho 'boot CPU: .*' "$out/console-$tag.log" | head -1)," \
		"$(( $(date +%s) - t ))s"
}


job_detect_6_12() {
	step "MIDR detection without force= on QEMU's Neoverse CPU models (-smp 2)"
	bq_models=$(neoverse_models qemu-system-aarch64)
	bq_list=${bq_models//$'\n'/ }
	echo "   $(qemu-system-aarch64 --version | head -1): $bq_list"
	for m in $bq_models; do
		vm_detect "6.12-detect-$m" qemu-system-aarch64 "$m"
	done
	[ -n "$bq_models" ] || record FAIL "detect: no Neoverse CPU model in $(qemu-system-aarch64 --version | head -1)"
	if bpq=$("$vmdir/qemu-backports.sh" 2> "$out/qemu-backports.log" | tail -1) && [ -x "$bpq" ]; then
		bpv=$("$bpq" --version | head -1)
		extra=$(comm -13 <(echo "$bq_models") <(neoverse_models "$bpq"))
		echo "   $bpv (bookworm-backports): $(neoverse_models "$bpq" | tr '\n' ' ')"
		for m in $extra; do
			vm_detect "6.12-detect-backports-$m" "$bpq" "$m"
		done
		[ -n "$extra" ] || record SKIP "detect-backports: $bpv offers no Neoverse model beyond $bq_list"
	else
		tail -5 "$out/qemu-backports.log"
		record SKIP "detect-backports: bookworm-backports' QEMU unavailable (see $out/qemu-backports.log); detection tested on ${bq_list:-no model} only"
	fi
}


# KCSAN does not combine with KASAN: a second 6.12 kernel, the same but
# KCSAN for KASAN (kernel-kcsan.config), runs the kselftests that race:
# hotplug storms beside readers and writers, reconfiguration races,
# snapshot readers, the sampler beside writers, a soak.  A data race that
# is the module's own (an access in the module's or the test PMU's code)
# fails the check; the kernel's races are listed and counted in a SKIP
# line, whether in code the module called (seen: perf's
# __perf_event_read_value() beside the mux hrtimer, from the capacity
# probe) or not (seen: the dcache's i_dir_seq in __d_add(), kernfs inode
# refreshes and timestamps, hrtimer_active() beside __hrtimer_run_queues(),
# RCU's rcu_urgent_qs under stop_machine, vmstat thresholds at CPU online,
# wq_worker_tick()).
# loglevel=5: KCSAN prints its stacks at the default level
# (consistency's and pause's readers and writers are race's too: on the
# KASAN kernel only)
KCSAN_TESTS="race.sh hotplug.sh snapconcur.sh churn.sh soak.sh"
# race's 100 cycles (the least it accepts) and a 30 s soak (churn's
# search keeps its 300 slices: with 150, pinned=1 once met no interval with
# a value defined, pinned-random-capacity-some-values); a watchpoint every 400 accesses at most, not
# 4000 (the default found none of the module's races in three runs, this
# found one in race.sh), costs ~30 s: the run takes about 5 min
KCSAN_ARGS="kcsan.skip_watch=400 N3T_RACE_CYCLES=100 N3T_SOAK_SECONDS=30"
job_kcsan() {
	step "KCSAN 6.12 kernel (linux-source-6.12 + selftests/vm/kernel-kcsan.config): ${KCSAN_TESTS//.sh/}"
	kt=$(date +%s)
	kcdir=$("$vmdir/build-kernel.sh" kernel-kcsan.config | tail -1)
	echo "   kernel: $(( $(date +%s) - kt ))s"
	log=$out/build-6.12-kcsan.log
	if build_modules "$kcdir" "$out/6.12-kcsan" N3T_TESTS=y > "$log" 2>&1; then
		record PASS build-6.12-kcsan
		"$vmdir/mkinitramfs.sh" "$out/6.12-kcsan" "$out/initramfs-6.12-kcsan.cpio.gz"
		kt=$(date +%s)
		VM_KERNEL=$kcdir/arch/arm64/boot/Image VM_INITRD=$out/initramfs-6.12-kcsan.cpio.gz \
			vm_run 6.12-kcsan "n3t.mode=check n3t.only=${KCSAN_TESTS// /,} loglevel=5 $KCSAN_ARGS" 900
		echo "   VM run: $(( $(date +%s) - kt ))s, console log: $out/console-6.12-kcsan.log"
		krc=0
		python3 "$vmdir/kcsan-reports.py" "$out/console-6.12-kcsan.log" > "$out/kcsan-reports.txt" || krc=$?
		sed 's/^/   /' "$out/kcsan-reports.txt"
		case $krc in
		0) record PASS 6.12-kcsan/no-kcsan-report ;;
		2) record PASS 6.12-kcsan/no-kcsan-report
		   record SKIP "6.12-kcsan/kernel-kcsan-reports: $(tail -1 "$out/kcsan-reports.txt") (the kernel's races: $out/kcsan-reports.txt)" ;;
		*) record FAIL 6.12-kcsan/no-kcsan-report ;;
		esac
	else
		cat "$log"
		record FAIL build-6.12-kcsan
	fi
}

job_distro_6_1() {
	step "Debian 12 prebuilt 6.1 arm64 kernel: smoke, exact values on the test PMU, hotplug, stepping aside, leases; QEMU's PMU shared with other perf users and a KVM guest"
	ddir=$("$vmdir/distro-kernel.sh" | tail -1)
	m61=$out/6.1
	log=$out/build-6.1.log
	if build_modules "$ddir/kdir" "$m61" W=1 KCFLAGS=-Werror N3T_TESTS=y > "$log" 2>&1; then
		record PASS build-6.1-distro
		if "$vmdir/key-sites.sh" "$m61/module/n3telemetry.ko"; then
			record PASS no-static-key-sites-6.1
		else
			record FAIL no-static-key-sites-6.1
		fi
		"$vmdir/mkinitramfs.sh" "$m61" "$out/initramfs-6.1.cpio.gz"
		dlog=$out/console-6.1.log
		if qemu "$ddir/vmlinuz" "$out/initramfs-6.1.cpio.gz" "n3t.mode=smoke" "$dlog" "$(vm_limit 300)" &&
		   grep -q N3T-DONE "$dlog"; then
			record PASS vm-6.1-poweroff
		else
			tail -30 "$dlog"
			record FAIL vm-6.1-poweroff
		fi
		python3 "$vmdir/results.py" --tag 6.1 "$dlog" >> "$results" || true
		grep -E '^(PASS|FAIL) 6\.1/' "$results"
		# other perf users beside the module on QEMU's own PMU, on the
		# distro kernel: before 6.2 a task has one context for every
		# hardware PMU (realpmu-6.12 runs the newer model)
		rlog=$out/console-6.1-realpmu.log
		if qemu "$ddir/vmlinuz" "$out/initramfs-6.1.cpio.gz" "n3t.mode=realpmu" "$rlog" "$(vm_limit 300)" \
			-icount shift=0 && grep -q N3T-DONE "$rlog"; then
			record PASS vm-6.1-realpmu-poweroff
		else
			tail -30 "$rlog"
			record FAIL vm-6.1-realpmu-poweroff
		fi
		python3 "$vmdir/results.py" --tag 6.1-realpmu "$rlog" >> "$results" || true
		grep -E '^(PASS|FAIL) 6\.1-realpmu/' "$results"
		# a KVM guest's PMU beside the module: QEMU emulates EL2 (GICv3 for the
		# in-kernel vGICv3), Debian's kernel runs KVM; -icount so that the
		# guest's INST_RETIRED counts; the test must run, not skip.  The guests:
		# a bare-metal loop, and Debian's kernel again (its initramfs has it)
		# whose own perf_event_open counts
		step "Debian 12 6.1 kernel as a KVM host (qemu -M virt,virtualization=on -icount): a bare-metal and a Linux guest's PMU beside the module"
		N3T_GUEST_KERNEL=$ddir/vmlinuz "$vmdir/mkinitramfs.sh" "$m61" "$out/initramfs-6.1-kvm.cpio.gz"
		klog=$out/console-6.1-kvm.log
		kt=$(date +%s)
		# five Linux guest boots under nested emulation (three kvmperf, two
		# with the module inside): 58 s beside the other lane on 2026-11-27
		# (three took 186 s once with the build host's load average at 12);
		# the limit 720 s
		if VM_SMP=2 qemu "$ddir/vmlinuz" "$out/initramfs-6.1-kvm.cpio.gz" "n3t.mode=kvm" "$klog" "$(vm_limit 240)" \
			-M virtualization=on,gic-version=3 -icount shift=0 && grep -q N3T-DONE "$klog"; then
			record PASS vm-6.1-kvm-poweroff
		else
			tail -30 "$klog"
			record FAIL vm-6.1-kvm-poweroff
		fi
		echo "   VM run: $(( $(date +%s) - kt ))s, console log: $klog"
		python3 "$vmdir/results.py" --tag 6.1-kvm "$klog" >> "$results" || true
		grep -q '^PASS 6\.1-kvm/ksft/kvmguest/module-default-every-counter-counts$' "$results" ||
			record FAIL "6.1-kvm/ksft/kvmguest-ran (skipped or did not start: see $klog)"
		grep -q '^PASS 6\.1-kvm/ksft/kvmguest/linux-module-default-guest-perf-counts$' "$results" ||
			record FAIL "6.1-kvm/ksft/kvmguest-linux-ran (the Linux guest skipped or did not start: see $klog)"
		grep -q '^PASS 6\.1-kvm/ksft/kvmguest/guestmod-deny-inst-retired-verdict-pass$' "$results" ||
			record FAIL "6.1-kvm/ksft/kvmguest-guestmod-ran (the module's guest skipped or did not start: see $klog)"
		grep -E '^(PASS|FAIL|SKIP) 6\.1-kvm/' "$results"
	else
		cat "$log"
		record FAIL build-6.1-distro
	fi
}

for j in $CHECK_JOBS; do
	mkdir "$out/jobs/$j" 2> /dev/null || continue
	jt=$(date +%s)
	# a job stops at its first failing command, as check.sh did (set -e
	# would be ignored in a subshell on the left of ||)
	set +e
	(
		set -e
		results=$out/jobs/$j/results
		: > "$results"
		"job_${j//[-.]/_}"
	) > "$out/jobs/$j/log" 2>&1
	rc=$?
	set -e
	echo "   job $j: $(( $(date +%s) - jt ))s (${N3T_LANE:-lane})" >> "$out/jobs/$j/log"
	echo $rc > "$out/jobs/$j/rc"
done
