#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# n3telemetry test rig: 'make check' (default), 'make demo' (--demo),
# 'make vm' (--shell).  See Documentation/n3telemetry.rst, "Testing".
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/selftests/vm
out=$top/build
mode=check
case "${1:-}" in
--demo) mode=demo ;;
--shell) mode=shell ;;
"") ;;
*) echo "usage: $0 [--demo|--shell]" >&2; exit 2 ;;
esac
mkdir -p "$out"
results=$out/results.txt
: > "$results"
t0=$(date +%s)

# shellcheck source=selftests/vm/check-lib.sh
. "$vmdir/check-lib.sh"
export N3T_CHECK_T0=$t0

step "host packages"
"$vmdir/deps.sh"
# Debian's python3 (the one deps.sh installs python3-* packages for) for
# every script below, not a version manager's shim that comes first in
# PATH: pyenv's runs three shell scripts before Python, 0.7 s of CPU a call
# on these machines, and the host tests alone call python3 180 times
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$out/bin"
	ln -sf /usr/bin/python3 "$out/bin/python3"
	export PATH=$out/bin:$PATH
fi

# In the background, beside everything below: the end-to-end test (e2e.sh:
# make deb's packages installed on a Debian 12 arm64 VM with systemd,
# node_exporter, Prometheus), then the oldest and the newest of Debian's
# arm64 kernels (matrix.sh).  The e2e VM waits on systemd, DKMS and the
# textfile cadence most of the time and shares nothing with the other steps
# but the generic distro kernel, fetched here first (its root filesystem's
# kernel, the cloud flavour, it fetches itself); the matrix needs the guest
# programs and oracles the steps below make first (build/guest-ready says
# they are there).  Then that lane takes its share of the jobs that follow
# the 6.12 VM run (check-jobs.sh: whichever lane is free takes the next one;
# build/jobs-ready says their inputs are there).  Their lines join the
# results at the end (bg_join, jobs_join).
bg_pid=
if [ $mode = check ]; then
	step "in the background: end to end, Debian packages on Debian 12 arm64 with systemd, no kernel upgrade (log: build/e2e.log); then Debian 11's 5.10 and trixie-backports' 7.x (log: build/matrix.log)"
	"$vmdir/distro-kernel.sh" > /dev/null
	: > "$out/e2e-results.txt"
	rm -rf "$out/guest-ready" "$out/jobs-ready" "$out/e2e.rc" "$out/matrix.rc" "$out/check-matrix" \
		"$out/jobs"
	mkdir -p "$out/jobs"
	# a process group of its own (job control), so that the EXIT trap stops
	# it whole, the matrix's VMs and builds included
	set -m
	(
		rc=0
		# without the kernel upgrade (make e2e's): its DKMS build and boots
		# would take a quarter of make check's time
		N3T_E2E_UPGRADE=0 "$vmdir/e2e.sh" "$out" "$out/e2e-results.txt" > "$out/e2e.log" 2>&1 || rc=$?
		echo $rc > "$out/e2e.rc"
		while [ ! -e "$out/guest-ready" ] && kill -0 $$ 2> /dev/null; do sleep 5; done
		[ -e "$out/guest-ready" ] || exit 0
		# each built W=1 -Werror against its own headers with its suite's
		# kbuild and compiler (a cached chroot of the suite), booted, and
		# the kselftests that apply on any kernel run on the test PMU
		rc=0
		N3T_MATRIX_OUT=$out/check-matrix N3T_MATRIX_GUEST_READY=1 N3T_MATRIX_KVM=0 \
			N3T_MATRIX_TESTS="$MATRIX_CHECK_TESTS" \
			"$vmdir/matrix.sh" bullseye trixie-backports > "$out/matrix.log" 2>&1 || rc=$?
		echo $rc > "$out/matrix.rc"
		while [ ! -e "$out/jobs-ready" ] && kill -0 $$ 2> /dev/null; do sleep 5; done
		[ -e "$out/jobs-ready" ] || exit 0
		N3T_LANE=background "$vmdir/check-jobs.sh" "$out" > "$out/jobs-background.log" 2>&1 || true
	) &
	bg_pid=$!
	set +m
fi
# bg_join: wait for them, show their steps and failures, add their lines
bg_join() {
	local rc
	[ -n "$bg_pid" ] || return 0
	step "end to end and the 5.10 and 7.x kernels (started at the beginning): waiting for them"
	wait "$bg_pid" || true
	bg_pid=
	grep -E '^== e2e|^   ' "$out/e2e.log" || true
	grep '^FAIL' "$out/e2e-results.txt" || true
	cat "$out/e2e-results.txt" >> "$results"
	rc=$(cat "$out/e2e.rc" 2> /dev/null || echo "no status")
	[ "$rc" = 0 ] || grep -q '^FAIL' "$out/e2e-results.txt" ||
		record FAIL "e2e (exited $rc early, see $out/e2e.log)"
	grep -E '^== (\[|matrix)' "$out/matrix.log" 2> /dev/null || true
	grep -E '^(FAIL|SKIP)' "$out/check-matrix/results.txt" 2> /dev/null || true
	sed -n '/^== \[.*\] table$/,$p' "$out/matrix.log" 2> /dev/null | sed '1d'
	cat "$out/check-matrix/results.txt" >> "$results" 2> /dev/null || true
	rc=$(cat "$out/matrix.rc" 2> /dev/null || echo "no status")
	[ "$rc" = 0 ] || grep -q '^FAIL' "$out/check-matrix/results.txt" 2> /dev/null ||
		record FAIL "matrix (exited $rc early, see $out/matrix.log)"
}
# jobs_join: every job's log and results, in check-jobs.sh's order
jobs_join() {
	local j
	for j in $CHECK_JOBS; do
		if [ -r "$out/jobs/$j/rc" ]; then
			grep -vE '^(PASS|SKIP) ' "$out/jobs/$j/log" || true
			cat "$out/jobs/$j/results" >> "$results"
			grep -q '^FAIL' "$out/jobs/$j/results" || [ "$(cat "$out/jobs/$j/rc")" = 0 ] ||
				record FAIL "job $j (exited $(cat "$out/jobs/$j/rc") early, see $out/jobs/$j/log)"
		else
			record FAIL "job $j did not run or did not finish (see $out/jobs/$j/log)"
		fi
	done
}
trap '[ -z "$bg_pid" ] || kill -- -"$bg_pid" 2> /dev/null || true' EXIT

step "debug test kernel (linux-source-6.12 + selftests/vm/kernel.config)"
kdir=$("$vmdir/build-kernel.sh" | tail -1)
ksrc=$kdir
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-

step "modules against 6.12 debug kernel (W=1 -Werror, sparse C=2)"
m612=$out/6.12
log=$out/build-6.12.log
if build_modules "$kdir" "$m612" W=1 KCFLAGS=-Werror C=2 CHECK="sparse" N3T_TESTS=y N3T_BENCH=y > "$log" 2>&1 &&
   ! grep -E 'warning:|error:|WARNING:' "$log"; then
	record PASS build-w1-sparse-6.12
else
	cat "$log"
	record FAIL build-w1-sparse-6.12
fi
# no static key's site in the module: loading one of an enabled key IPIs
# every CPU, isolated ones too (key-sites.sh)
if "$vmdir/key-sites.sh" "$m612/module/n3telemetry.ko"; then
	record PASS no-static-key-sites-6.12
else
	record FAIL no-static-key-sites-6.12
fi

if [ $mode = check ]; then
	step "production build: no test controls"
	# the test build's debugfs controls (manual, advance, delay_us_*) and
	# test_models= and test_midr= must not be in the module a user builds
	if build_modules "$kdir" "$out/6.12-prod" > "$out/build-6.12-prod.log" 2>&1; then
		strs=$(aarch64-linux-gnu-strings "$out/6.12-prod/module/n3telemetry.ko")
		found=$(grep -xE 'manual|advance|delay_us_(read|switch)|test_models|test_midr' <<< "$strs" || true)
		if [ -z "$found" ] && grep -x cost <<< "$strs" > /dev/null; then
			record PASS production-build-has-no-test-controls
		else
			echo "   in the production module: ${found:-no cost file either}"
			record FAIL production-build-has-no-test-controls
		fi
	else
		cat "$out/build-6.12-prod.log"
		record FAIL production-build-has-no-test-controls
	fi

	step "checkpatch --strict"
	mapfile -t csrc < <(cd "$top" && git ls-files -co --exclude-standard -- \
		'module/*.[ch]' 'uapi/*.h' 'selftests/testpmu/*.[ch]' \
		'selftests/bench/perfcost/*.c')
	if (cd "$top" && "$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "${csrc[@]}") \
		> "$out/checkpatch.log" 2>&1; then
		record PASS checkpatch-strict
	else
		grep -v '^total:' "$out/checkpatch.log" | head -50
		record FAIL checkpatch-strict
	fi

	step "kernel-doc"
	if (cd "$top" && "$ksrc/scripts/kernel-doc" -none -Wall "${csrc[@]}") \
		> "$out/kernel-doc.log" 2>&1 && ! grep -q . "$out/kernel-doc.log"; then
		record PASS kernel-doc-clean
	else
		head -20 "$out/kernel-doc.log"
		record FAIL kernel-doc-clean
	fi

	step "host tests"
	# layers.sh reads the W=1/sparse build's objects (a test build of this
	# tree) instead of building the module once more
	N3T_LAYERS_BUILT=$m612 "$vmdir/host-tests.sh" "$out" "$results"
fi

step "n3tel for arm64 (static)"
if make -s -C "$top/tools/n3tel" arm64 > "$out/n3tel-arm64.log" 2>&1; then
	cp "$top/tools/n3tel/n3tel-arm64" "$out/n3tel-arm64"
	record PASS build-n3tel-arm64-static
else
	cat "$out/n3tel-arm64.log"
	record FAIL build-n3tel-arm64-static
fi

step "initramfs"
# the capacity x selection oracle of the sweep kselftest, from Arm's spec
spec=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}/neoverse-n3.json
rm -rf "$out/fits.txt" "$out/fits"
if [ -r "$spec" ] && gcc -O2 -I"$top/module" -I"$top/tools/include" -I"$top/uapi" \
	-o "$out/engine-tables" "$top/selftests/host/engine_test.c" "$top/module/engine.c" \
	"$top/module/models.c"; then
	python3 "$top/selftests/host/fits.py" "$spec" "$out/engine-tables" > "$out/fits.txt"
	# every table's, for plans.sh
	rm -rf "$out/fits" && mkdir -p "$out/fits"
	for s in "$(dirname "$spec")"/neoverse-*.json "$top/tools/models/generic.json"; do
		python3 "$top/selftests/host/fits.py" "$s" "$out/engine-tables" \
			> "$out/fits/$(basename "$s" .json).txt"
	done
fi
# each core's scripted counts and expected group files, from Arm's formulas
rm -rf "$out/cores"
python3 "$top/selftests/host/core_expect.py" "$(dirname "$spec")" "$out/cores" \
	"$top/tools/models/generic.json"
# what the packer leaves out of a full plan (64 sets), for plans.sh
"$vmdir/full-plans.sh" "$out/engine-tables" "$out/cores"
# which table the module picks for which MIDR, for the detect kselftest
if python3 "$vmdir/midr-map.py" "$top/module" "$kdir" > "$out/midr-map.txt"; then
	record PASS midr-map
else
	rm -f "$out/midr-map.txt"
	record FAIL midr-map
fi
# the kselftests' C helpers (pmuuser), static, into the initramfs's /bin
"$vmdir/guest-progs.sh" "$out/guest-bin"
# what the matrix in the background waits for
touch "$out/guest-ready"
"$vmdir/mkinitramfs.sh" "$m612" "$out/initramfs-6.12.cpio.gz"
# what the background lane waits for before it takes jobs (check-jobs.sh):
# it may take one while the 6.12 VM still runs
touch "$out/jobs-ready"

case $mode in
demo)
	step "demo VM"
	qemu "$kdir/arch/arm64/boot/Image" "$out/initramfs-6.12.cpio.gz" \
		"n3t.mode=demo" "$out/demo.log" 600 -icount shift=0 || true
	sed -n '/N3T-DEMO-BEGIN/,/N3T-DEMO-END/p' "$out/demo.log" | sed '1d;$d'
	exit 0
	;;
shell)
	exec qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 4 -m 2G -nographic -no-reboot -nic none \
		-icount shift=0 -kernel "$kdir/arch/arm64/boot/Image" \
		-initrd "$out/initramfs-6.12.cpio.gz" \
		-append "console=ttyAMA0 loglevel=4 n3t.mode=shell"
	;;
esac

# the plans, sweep and race kselftests (PLANS_TESTS, SWEEP_TESTS,
# RACE_TESTS) run in boots of their own, jobs of either lane, and
# KCSAN_ONLY_TESTS on the KCSAN kernel alone (a job too)
skip="$PLANS_TESTS $SWEEP_TESTS $RACE_TESTS $KCSAN_ONLY_TESTS"
step "VM tests on 6.12 debug kernel (qemu -M virt -cpu max,pauth-impdef=on -smp 4): KUnit, every kselftest but ${skip//.sh/}"
vlog=$out/console-6.12.log
vt0=$(date +%s)
if qemu "$kdir/arch/arm64/boot/Image" "$out/initramfs-6.12.cpio.gz" \
	"n3t.mode=check kunit.enable=1 n3t.skip=${skip// /,}" "$vlog" 2700 && grep -q N3T-DONE "$vlog"; then
	record PASS vm-6.12-poweroff
else
	tail -30 "$vlog"
	record FAIL vm-6.12-poweroff
fi
echo "   VM run: $(( $(date +%s) - vt0 ))s, console log: $vlog"
python3 "$vmdir/results.py" --kunit-parser "$ksrc/tools/testing/kunit/kunit.py" \
	--tag 6.12 "$vlog" >> "$results" || true
grep -E '^(PASS|FAIL) 6\.12/' "$results" | sed 's/^PASS /PASS /'

step "ABI: get_abi.pl validate, and undefined against the tree the VM printed"
N3T_KSRC=$ksrc "$vmdir/host-tests.sh" "$out" "$results" abi || true

# this lane's share of the jobs (check-jobs.sh)
step "jobs: the plans, sweep and race kselftests, KCSAN, Debian 12's 6.1 (a KVM host too), isolated CPUs, MIDR detection, QEMU's own PMU (this lane and the background's, whichever is free)"
N3T_LANE=foreground "$vmdir/check-jobs.sh" "$out" || true

bg_join
jobs_join

pass=$(grep -c '^PASS' "$results" || true)
fail=$(grep -c '^FAIL' "$results" || true)
skip=$(grep -c '^SKIP' "$results" || true)
echo "== total time $(( $(date +%s) - t0 ))s; logs in $out"
grep -E '^(FAIL|SKIP)' "$results" || true
echo "$pass passed, $fail failed$([ "$skip" = 0 ] || echo ", $skip skipped")"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
