#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the n3telemetry kselftests and prints KTAP: one subtest per script,
# each script's own checks nested inside it.
cd "$(dirname "$0")" || exit 1
case "$1" in
--smoke) tests="smoke.sh values.sh hotplug.sh nofit.sh snapconcur.sh" ;;
--only) shift; tests="$*" ;;
*) tests=$(cat tests.list) ;;
esac
set -- $tests
echo "TAP version 13"
echo "1..$#"
i=0
for t in "$@"; do
	i=$((i + 1))
	echo "# Subtest: ${t%.sh}"
	# streamed, so that a long test shows its progress on the console
	{ sh "./$t" 2>&1; echo $? > /tmp/ksft.rc; } |
		while IFS= read -r _l; do echo "    $_l"; done
	rc=$(cat /tmp/ksft.rc)
	case $rc in
	0) echo "ok $i ${t%.sh}" ;;
	4) echo "ok $i ${t%.sh} # SKIP" ;;
	*) echo "not ok $i ${t%.sh} # exit=$rc" ;;
	esac
done
