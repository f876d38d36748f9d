# SPDX-License-Identifier: GPL-2.0
# Helpers for the n3telemetry kselftests: KTAP output, module handling.
N3T=/sys/kernel/n3telemetry
N3T_MOD=/lib/n3t
_n=0
_fail=0
_plan=

ktap_plan() { _plan=$1; echo "1..$1"; }

_result() {
	_n=$((_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $_n $2"
	else
		_fail=$((_fail + 1))
		echo "not ok $_n $2"
	fi
}

# check NAME COMMAND...: one test that passes when COMMAND succeeds
check() {
	name=$1
	shift
	if "$@"; then _result ok "$name"; else _result fail "$name"; fi
}

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		_result ok "$1"
	else
		echo "# $1: expected '$2', got '$3'"
		_result fail "$1"
	fi
}

ktap_finish() {
	if [ -n "$_plan" ] && [ "$_plan" != "$_n" ]; then
		echo "# planned $_plan tests, ran $_n"
		exit 1
	fi
	[ $_fail = 0 ]
	exit $?
}

n3t_load() { insmod "$N3T_MOD/n3telemetry.ko" "$@"; }
n3t_unload() { rmmod n3telemetry; }
