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

# fails COMMAND...: succeeds when COMMAND fails (for check)
fails() { ! "$@"; }

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

# errno_of FILE FORMAT: write printf FORMAT to FILE in one write(2), print
# the error name
errno_of() {
	if printf "$2" | dd of="$1" bs=4096 conv=notrunc 2> /tmp/werr; then
		echo OK
	elif grep -q "Invalid argument" /tmp/werr; then
		echo EINVAL
	elif grep -q "out of range" /tmp/werr; then
		echo ERANGE
	elif grep -q "Permission denied" /tmp/werr; then
		echo EACCES
	elif grep -q "No space left" /tmp/werr; then
		echo ENOSPC
	elif grep -q "Cannot allocate memory" /tmp/werr; then
		echo ENOMEM
	else
		cat /tmp/werr
		echo OTHER
	fi
}

n3t_load() { insmod "$N3T_MOD/n3telemetry.ko" "$@"; }
n3t_unload() { rmmod n3telemetry; }

DBG=/sys/kernel/debug/n3telemetry
TPDBG=/sys/kernel/debug/n3t_testpmu

# tp_setup COUNTERS [n3telemetry params]: test PMU + n3telemetry on it, slices
# ending only on "advance", positioned at the start of an interval (set 0).
tp_setup() {
	insmod "$N3T_MOD/n3t_testpmu.ko" counters="$1" || return 1
	shift
	TP=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
	n3t_load force=1 pmu_type="$TP" interval_ms=60000 "$@" || return 1
	echo 1 > $DBG/manual
	NSETS=$(wc -l < $N3T/sets)
	advance_interval -1
}

tp_teardown() {
	n3t_unload
	rmmod n3t_testpmu
}

# advance [CPU|-1]: end the current slice now
advance() { echo "${1:--1}" > $DBG/advance; }

advance_interval() {
	_i=0
	while [ $_i -lt "$NSETS" ]; do
		advance "$1"
		_i=$((_i + 1))
	done
}

# inject CPU "NAME=count ...": counts for the events counting now on CPU
inject() { echo "cpu=$1 $2" > $TPDBG/inject; }

# value FILE METRIC: the value printed for METRIC in FILE
value() { awk -v m="$2" '$1 == m { print $2 }' "$1"; }

# scripted_interval CPU VECTOR [CPU VECTOR]...: one whole interval; in every
# slice each listed CPU is given its vector, and only the events of the set
# counting at that moment take the counts (as on hardware)
scripted_interval() {
	_s=0
	while [ $_s -lt "$NSETS" ]; do
		_cpu=
		for _a in "$@"; do
			if [ -z "$_cpu" ]; then
				_cpu=$_a
			else
				inject "$_cpu" "$_a"
				_cpu=
			fi
		done
		advance -1
		_s=$((_s + 1))
	done
}
