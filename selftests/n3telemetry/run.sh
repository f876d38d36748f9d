#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the n3telemetry kselftests and prints KTAP: one subtest per script,
# each script's own checks nested inside it; exits 1 when one failed.
#   run.sh                 every test of tests.list (make run_tests)
#   run.sh --only A.sh...  those tests
#   run.sh --skip A.sh...  every test of tests.list but those
#   run.sh --smoke         the short list of the 6.1 distro-kernel VM run
# Each test runs under the "timeout" of the settings file (as the kernel's
# kselftest runner does).  See lib.sh for N3T_MODDIR and N3T_TEST_MODDIR.
cd "$(dirname "$0")" || exit 1
case "$1" in
--smoke) tests="smoke.sh values.sh rest.sh hotplug.sh pause.sh nofit.sh aside.sh lease.sh neighbour.sh" ;;
--only) shift; tests="$*" ;;
--skip) shift; tests=$(while read -r t; do case " $* " in *" $t "*) ;; *) echo "$t" ;; esac; done < tests.list) ;;
"") tests=$(cat tests.list) ;;
*) echo "usage: $0 [--smoke | --only TEST... | --skip TEST...]" >&2; exit 2 ;;
esac
tmo=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' settings 2>/dev/null)
set -- $tests
echo "TAP version 13"
if grep -q '^n3telemetry ' /proc/modules 2>/dev/null; then
	echo "Bail out! n3telemetry is loaded: stop what uses it (n3tel-textfile) and rmmod it first"
	exit 1
fi
echo "1..$#"
# forks VAR: the system's forks so far (/proc/stat), without forking
forks() {
	while read -r _k _v; do
		[ "$_k" = processes ] && break
	done < /proc/stat
	eval "$1=\$_v"
}
i=0
fail=0
rcf=${TMPDIR:-/tmp}/n3t-ksft.rc
for t in "$@"; do
	i=$((i + 1))
	echo "# Subtest: ${t%.sh}"
	read -r t0 _ < /proc/uptime
	forks f0
	# streamed, so that a long test shows its progress on the console
	{
		if [ -n "$tmo" ] && command -v timeout > /dev/null; then
			timeout "$tmo" sh "./$t" 2>&1
		else
			sh "./$t" 2>&1
		fi
		echo $? > "$rcf"
	} | while IFS= read -r _l; do echo "    $_l"; done
	rc=$(cat "$rcf")
	# how long each test takes (make check's budget), and how many forks
	# the system made meanwhile (the test's, and a few of this loop's and
	# the kernel's): on the debug kernel under QEMU a fork costs 33 to 44
	# ms on a quiet host, about half of a shell test's time
	read -r t1 _ < /proc/uptime
	forks f1
	echo "# ${t%.sh}: $((${t1%.*} - ${t0%.*})) s, $((f1 - f0)) forks"
	case $rc in
	0) echo "ok $i ${t%.sh}" ;;
	4) echo "ok $i ${t%.sh} # SKIP" ;;
	124) echo "not ok $i ${t%.sh} # TIMEOUT $tmo seconds"; fail=1 ;;
	*) echo "not ok $i ${t%.sh} # exit=$rc"; fail=1 ;;
	esac
	# a test that failed half-way must not leave the next one a loaded module
	if grep -q '^n3telemetry ' /proc/modules 2>/dev/null; then
		echo "# ${t%.sh} left n3telemetry loaded; unloading it"
		rmmod n3telemetry
	fi
	grep -q '^n3t_testpmu ' /proc/modules 2>/dev/null && rmmod n3t_testpmu
done
exit $fail
