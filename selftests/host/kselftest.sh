#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: selftests/n3telemetry in the kselftest layout.  "make run_tests" runs
# exactly tests.list; every file of the directory is a TEST_PROGS,
# TEST_PROGS_EXTENDED or TEST_FILES; settings and config are there; the
# KTAP the tests print parses (the kernel's kunit.py parse and the VM's
# results.py), the same with the kernel's ktap_helpers.sh and with lib.sh's
# fallback; lib.sh's results, plan, SKIP and bail-out paths print what they
# should (an arm64 uname faked on this x86 host); need_testpmu builds the
# test modules from the source tree (cross, against the cached 6.12 tree);
# copied into a kernel tree, the kernel's lib.mk runs the same tests.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
dir=$top/selftests/n3telemetry
ksrc=${N3T_KSRC:-$(ls -d "${N3T_CACHE:-$HOME/.cache/n3telemetry}"/kernel-6.12-* 2>/dev/null | head -1)}
ktapdir=$ksrc/tools/testing/selftests/kselftest
mkdir -p "$out"
tmp=$(mktemp -d "$out/kselftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok $1"; }
bad() { echo "not ok $1"; fail=1; }
# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		diff <(echo "$2") <(echo "$3") | head -20 | sed 's/^/# /'
		bad "$1"
	fi
}

# 1. the Makefile: run_tests runs tests.list, in its order
mk() { make -s --no-print-directory -C "$dir" "$@"; }
# (after building the C helpers, TEST_GEN_FILES)
expect make-run_tests-runs-tests.list "./run.sh --only $(tr '\n' ' ' < "$dir/tests.list" | sed 's/ $//')" \
	"$(mk -n run_tests | tail -1)"
vars=$(mk --eval 'show-vars: ; @echo $(sort $(TEST_PROGS) $(TEST_PROGS_EXTENDED) $(TEST_FILES))' show-vars)
gen=$(mk --eval 'show-gen: ; @echo $(TEST_GEN_FILES)' show-gen | tr ' ' '|')
files=$(cd "$dir" && ls | grep -vxE "Makefile|config|$gen" | sort | tr '\n' ' ' | sed 's/ $//')
expect make-lists-every-file "$files" "$vars"
bad_progs=
for t in $(cat "$dir/tests.list") realpmu.sh isolated.sh; do
	[ -x "$dir/$t" ] || bad_progs="$bad_progs $t:not-executable"
	grep -qx '. ./lib.sh' "$dir/$t" || bad_progs="$bad_progs $t:no-lib.sh"
	grep -qxE 'need_(module|testpmu)' "$dir/$t" || bad_progs="$bad_progs $t:no-need_"
done
expect tests-executable-and-declare-their-module "" "$bad_progs"
check_settings() { grep -qxE 'timeout=[0-9]+' "$dir/settings"; }
if check_settings; then ok settings-timeout; else bad settings-timeout; fi
missing=
for c in PERF_EVENTS HW_PERF_EVENTS ARM_PMU ARM_PMUV3 DEBUG_FS HOTPLUG_CPU MODULE_UNLOAD \
	FAULT_INJECTION FAILSLAB KPROBES FAIL_FUNCTION HARDLOCKUP_DETECTOR_PERF; do
	grep -qx "CONFIG_$c=y" "$dir/config" || missing="$missing $c"
done
expect config-has-the-options "" "$missing"

# 2. make run_tests on this x86 host: KTAP, every test SKIPs (not arm64)
if [ ! -r "$ktapdir/ktap_helpers.sh" ]; then
	bad "kernel-ktap_helpers.sh-present (none in '$ktapdir'; set N3T_KSRC)"
	exit 1
fi
KSFT_DIR=$ktapdir make -s --no-print-directory -C "$dir" run_tests > "$tmp/run.tap" 2>&1
rc=$?
n=$(wc -l < "$dir/tests.list")
expect run_tests-exit-0-when-all-skip 0 "$rc"
expect run_tests-ktap-header-plan "TAP version 13
1..$n" "$(head -2 "$tmp/run.tap")"
expect run_tests-every-test-skips "$n" "$(grep -cE '^ok [0-9]+ [a-z0-9]+ # SKIP$' "$tmp/run.tap")"
expect run_tests-skip-reason "$n" "$(grep -cxF '    1..0 # SKIP not arm64 (x86_64): the module is for Arm Neoverse' "$tmp/run.tap")"
python3 "$ksrc/tools/testing/kunit/kunit.py" parse "$tmp/run.tap" > "$tmp/kunit.out" 2>&1
expect kunit.py-parses-run_tests "Ran $n tests: skipped: $n" \
	"$(grep -o 'Ran [0-9]* tests: .*' "$tmp/kunit.out" | sed 's/ *$//')"
sed 's/^/KSFT: /' "$tmp/run.tap" > "$tmp/console.log"
expect results.py-skips-every-test "$n" \
	"$(python3 "$top/selftests/vm/results.py" --tag host "$tmp/console.log" | grep -c '^SKIP host/ksft/')"
# results.py's splat check: 6.12's "Dying CPU not properly vacated!" that
# counted the fair server (2 running, the stopper the only task) is the
# kernel's, reported as SKIP; the same warning with a task left behind, or
# any other warning, fails no-kernel-splat
dying() {	# dying TASK...: a console log with that warning, listing TASKs
	printf 'KSFT: TAP version 13\nKSFT: 1..0 # SKIP none\n'
	printf 'DMESG: [  943.167805] ------------[ cut here ]------------\n'
	printf 'DMESG: [  943.168276] Dying CPU not properly vacated!\n'
	printf 'DMESG: [  943.170441] WARNING: CPU: 3 PID: 30 at kernel/sched/core.c:8365 sched_cpu_dying+0x214/0x6c0\n'
	printf 'DMESG: [  943.183787] Call trace:\n'
	printf 'DMESG: [  943.183836]  sched_cpu_dying+0x214/0x6c0\n'
	printf 'DMESG: [  943.184487] ---[ end trace 0000000000000000 ]---\n'
	printf 'DMESG: [  943.184672] CPU3 enqueued tasks (2 total):\n'
	printf 'DMESG: [  943.184809] \tpid: 30, name: migration/3\n'
	for _t in "$@"; do printf 'DMESG: [  943.184810] \tpid: 77, name: %s\n' "$_t"; done
}
dying > "$tmp/dying.log"
expect results.py-dying-cpu-fair-server-not-a-splat "PASS host/no-kernel-splat
SKIP host/kernel-dying-cpu-fair-server" \
	"$(python3 "$top/selftests/vm/results.py" --tag host "$tmp/dying.log" 2> /dev/null |
		grep 'splat\|fair-server' | cut -d: -f1)"
dying kworker/3:1 > "$tmp/dying-task.log"
expect results.py-dying-cpu-task-left-is-a-splat "FAIL host/no-kernel-splat" \
	"$(python3 "$top/selftests/vm/results.py" --tag host "$tmp/dying-task.log" 2> /dev/null |
		grep 'splat\|fair-server')"
sed 's/Dying CPU not properly vacated!/something else went wrong/' "$tmp/dying.log" > "$tmp/warn.log"
expect results.py-other-warning-is-a-splat "FAIL host/no-kernel-splat" \
	"$(python3 "$top/selftests/vm/results.py" --tag host "$tmp/warn.log" 2> /dev/null |
		grep 'splat\|fair-server')"
N3T_KTAP_FALLBACK=1 make -s --no-print-directory -C "$dir" run_tests > "$tmp/run-fallback.tap" 2>&1
# the same but for each test's time and forks ("# neighbour: 1 s, 20 forks")
untimed() { grep -vE '^# [a-z0-9_]+: [0-9]+ s, [0-9]+ forks$' "$1"; }
expect fallback-ktap-same-as-kernel-helpers "$(untimed "$tmp/run.tap")" "$(untimed "$tmp/run-fallback.tap")"

# the same directory inside a kernel tree: the kernel's lib.mk and runner.sh
# run tests.list, with the settings' timeout
mkdir -p "$tmp/k/tools/testing/selftests"
cp -r "$ksrc/tools/testing/selftests/lib.mk" "$ksrc/tools/testing/selftests/kselftest.h" \
	"$ksrc/tools/testing/selftests/kselftest_harness.h" "$ktapdir" "$dir" \
	"$tmp/k/tools/testing/selftests/"
make -s --no-print-directory -C "$tmp/k/tools/testing/selftests/n3telemetry" run_tests \
	> "$tmp/lib.mk.tap" 2>&1
expect kernel-lib.mk-runs-tests.list "$(sed 's/^/selftests: n3telemetry: /' "$dir/tests.list")" \
	"$(sed -n 's/^ok [0-9]* \(.*\) # SKIP$/\1/p' "$tmp/lib.mk.tap")"
expect kernel-lib.mk-reads-settings "$n" "$(grep -cx "# timeout set to $(sed -n 's/^timeout=//p' "$dir/settings")" "$tmp/lib.mk.tap")"

# 3. lib.sh's own paths, with an arm64 uname: a copy of the directory with
# synthetic tests
mkdir -p "$tmp/bin" "$tmp/t/n3telemetry"
printf '#!/bin/sh\n[ "$1" = -m ] && { echo aarch64; exit 0; }\nexec uname "$@"\n' > "$tmp/bin/uname"
sed -i "s|exec uname|exec $(command -v uname)|" "$tmp/bin/uname"
chmod +x "$tmp/bin/uname"
cp "$dir"/* "$tmp/t/n3telemetry/"
cat > "$tmp/t/n3telemetry/mixed.sh" <<'EOF'
. ./lib.sh
check first true
expect_eq second x y
ktap_test_skip third
ktap_finish
EOF
cat > "$tmp/t/n3telemetry/planned.sh" <<'EOF'
. ./lib.sh
ktap_plan 3
check first true
expect_eq second "a b" "a b"
ktap_finish
EOF
cat > "$tmp/t/n3telemetry/needmod.sh" <<'EOF'
. ./lib.sh
need_module
check never-here true
ktap_finish
EOF
cat > "$tmp/t/n3telemetry/needtp.sh" <<'EOF'
. ./lib.sh
need_testpmu
echo "# test build: $N3T_KO"
check testpmu-built test -r "$N3T_TEST_MODDIR/n3t_testpmu.ko"
ktap_finish
EOF
# lib TEST [VAR=VALUE...]: run a synthetic test as the runner would
lib() {
	local t=$1
	shift
	(cd "$tmp/t/n3telemetry" && env PATH="$tmp/bin:$PATH" "$@" sh "./$t" 2>&1; echo "rc=$?")
}
mixed="ok 1 first
# second: expected 'x', got 'y'
not ok 2 second
ok 3 third # SKIP
1..3
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
rc=1"
expect lib-results-trailing-plan-totals-fail "$mixed" "$(lib mixed.sh KSFT_DIR="$ktapdir")"
expect lib-fallback-same "$mixed" "$(lib mixed.sh N3T_KTAP_FALLBACK=1)"
expect lib-plan-mismatch-fails "1..3
ok 1 first
ok 2 second
# planned 3 tests, ran 2
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
rc=1" "$(lib planned.sh KSFT_DIR="$ktapdir")"
expect lib-no-cpu-pmu-skips "1..0 # SKIP no Arm CPU PMU (no armv8_*/armv9_* in $tmp/es)
rc=4" "$(lib needmod.sh N3T_MODDIR=/nonexistent N3T_EVENT_SOURCES="$tmp/es")"
mkdir -p "$tmp/es/armv9_neoverse_n3_0"
expect lib-N3T_MODDIR-without-module-bails "Bail out! N3T_MODDIR=/nonexistent has no n3telemetry.ko
rc=1" "$(lib needmod.sh N3T_MODDIR=/nonexistent N3T_EVENT_SOURCES="$tmp/es")"
if modinfo n3telemetry > /dev/null 2>&1; then
	bad "lib-not-installed-skips (n3telemetry is installed on this host?)"
else
	expect lib-not-installed-skips "1..0 # SKIP n3telemetry is not installed for $(uname -r) (make install, or set N3T_MODDIR)
rc=4" "$(lib needmod.sh KSFT_DIR="$ktapdir" N3T_EVENT_SOURCES="$tmp/es")"
fi
expect lib-no-kernel-tree-skips "1..0 # SKIP test PMU: no kernel build tree at /nonexistent (install linux-headers-$(uname -r))
rc=4" "$(lib needtp.sh KDIR=/nonexistent N3T_SRC="$top" N3T_BUILD="$tmp/tb")"
expect lib-N3T_TEST_MODDIR-without-modules-bails "Bail out! N3T_TEST_MODDIR=/nonexistent lacks n3telemetry.ko or n3t_testpmu.ko
rc=1" "$(lib needtp.sh N3T_TEST_MODDIR=/nonexistent)"
# the test build, from the source tree, cross-built against the 6.12 tree
lib needtp.sh KDIR="$ksrc" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- N3T_SRC="$top" \
	N3T_BUILD="$tmp/tb" > "$tmp/needtp.out"
expect lib-builds-test-modules "ok 1 testpmu-built
1..1
rc=0" "$(grep -v '^#' "$tmp/needtp.out")"
expect test-build-has-test-hooks test_models \
	"$(modinfo -F parm "$tmp/tb/ko/n3telemetry.ko" 2>/dev/null | grep -o '^test_models')"
exit $fail
