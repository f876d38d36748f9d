#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests, run by check.sh: usage host-tests.sh BUILDDIR RESULTS [NAME...]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 results=$2
shift 2
only=" $* "
# run after the VM run, from its console log (check.sh names them)
after_vm=" abi "
record() { echo "$1 $2" >> "$results"; printf '%-4s %s\n' "$1" "$2"; }

# Every executable selftests/host/*.sh prints 'ok NAME' / 'not ok NAME' lines.
for t in "$top"/selftests/host/*.sh; do
	[ -x "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ "$only" != "  " ]; then
		[[ $only == *" $name "* ]] || continue
	elif [[ $after_vm == *" $name "* ]]; then
		continue
	fi
	log=$out/host-$name.log
	"$t" "$out" > "$log" 2>&1
	rc=$?
	n=0
	while read -r line; do
		case "$line" in
		"ok "*) record PASS "host/$name/${line#ok }"; n=$((n + 1)) ;;
		"not ok "*) record FAIL "host/$name/${line#not ok }"; n=$((n + 1)) ;;
		esac
	done < "$log"
	if [ $rc != 0 ] && ! grep -q '^not ok' "$log"; then
		tail -20 "$log"
		record FAIL "host/$name (exit $rc)"
	elif [ $rc != 0 ]; then
		grep -B5 '^not ok' "$log" | head -40
	fi
	[ $n -gt 0 ] || record FAIL "host/$name (no results)"
done
