# SPDX-License-Identifier: GPL-2.0
# Helpers for the n3telemetry kselftests: KTAP output and where the modules
# come from.  Sourced by every test (". ./lib.sh", from this directory).
#
# KTAP: the kernel's tools/testing/selftests/kselftest/ktap_helpers.sh when it
# is found (KSFT_DIR, ../kselftest as in an installed kselftest tree, BASE_DIR,
# or the tools/ of KDIR or of N3T_KSRC), else the compatible subset below
# (also with N3T_KTAP_FALLBACK=1).
#
# Modules (environment; "make -C selftests/n3telemetry run_tests" sets
# nothing, the test VM sets both to /lib/n3t):
#   N3T_MODDIR       directory holding the n3telemetry.ko the tests load;
#                    unset: the installed module, "modprobe n3telemetry"
#   N3T_TEST_MODDIR  directory holding a test build (N3T_TESTS=y) of
#                    n3telemetry.ko and n3t_testpmu.ko, for the tests that
#                    script the test PMU; unset: built on first use from
#                    N3T_SRC (default: the tree this directory is in) against
#                    KDIR (default /lib/modules/$(uname -r)/build) into
#                    N3T_BUILD (default /tmp/n3telemetry-ksft-$(uname -r))
# A test that cannot apply here (no module, no test build possible, not
# arm64) reports "1..0 # SKIP reason" and exits 4 (KSFT_SKIP).
N3T=/sys/kernel/n3telemetry
DBG=/sys/kernel/debug/n3telemetry
TPDBG=/sys/kernel/debug/n3t_testpmu
N3T_HERE=$(pwd)
N3T_SRC=${N3T_SRC:-$(cd "$N3T_HERE/../.." 2>/dev/null && pwd)}
KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
# n3tel: installed, or built in the source tree
[ -x "$N3T_SRC/tools/n3tel/n3tel" ] && PATH=$PATH:$N3T_SRC/tools/n3tel

_ktap=
for _d in ${KSFT_DIR:+"$KSFT_DIR"} ../kselftest ${BASE_DIR:+"$BASE_DIR/kselftest"} \
	"$KDIR/tools/testing/selftests/kselftest" \
	${N3T_KSRC:+"$N3T_KSRC/tools/testing/selftests/kselftest"}; do
	if [ -r "$_d/ktap_helpers.sh" ]; then
		_ktap=$_d/ktap_helpers.sh
		break
	fi
done
if [ -n "$_ktap" ] && [ -z "$N3T_KTAP_FALLBACK" ]; then
	# shellcheck disable=SC1090
	. "$_ktap"
else	# the subset of ktap_helpers.sh these tests use, same output
	KTAP_TESTNO=1
	KTAP_CNT_PASS=0
	KTAP_CNT_FAIL=0
	KTAP_CNT_SKIP=0
	# shellcheck disable=SC2034
	KSFT_PASS=0
	KSFT_FAIL=1
	KSFT_SKIP=4
	KSFT_NUM_TESTS=0
	ktap_print_msg() { echo "#" "$@"; }
	ktap_set_plan() { KSFT_NUM_TESTS=$1; echo "1..$1"; }
	ktap_skip_all() { echo "1..0 # SKIP $*"; }
	ktap_test_pass() {
		echo "ok $KTAP_TESTNO $1"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
		KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
	}
	ktap_test_skip() {
		echo "ok $KTAP_TESTNO $1 # SKIP"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	}
	ktap_test_fail() {
		echo "not ok $KTAP_TESTNO $1"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
		KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
	}
	ktap_print_totals() {
		echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
	}
fi

ktap_plan() { ktap_set_plan "$1"; }

_result() {
	if [ "$1" = ok ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
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
		# every line a diagnostic (a value may have several)
		printf '%s\n' "$1: expected '$2', got '$3'" | sed 's/^/# /'
		_result fail "$1"
	fi
}

# ktap_finish: the plan (at the end when none was given first), the totals;
# exit status 0 only when every planned test ran and none failed
ktap_finish() {
	_ran=$((KTAP_TESTNO - 1))
	if [ "$KSFT_NUM_TESTS" = 0 ]; then
		echo "1..$_ran"
	elif [ "$KSFT_NUM_TESTS" != "$_ran" ]; then
		echo "# planned $KSFT_NUM_TESTS tests, ran $_ran"
		ktap_print_totals
		exit "$KSFT_FAIL"
	fi
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ] && [ "$_ran" -gt 0 ]
	exit $?
}

# skip_all REASON: this test does not apply here (before any result)
skip_all() {
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# bail REASON: the set-up is wrong (a directory given that lacks the module)
bail() {
	echo "Bail out! $*"
	exit "$KSFT_FAIL"
}

[ "$(uname -m)" = aarch64 ] || skip_all "not arm64 ($(uname -m)): the module is for Arm Neoverse"
[ "$(id -u)" = 0 ] || skip_all "must run as root (loads modules)"

N3T_KO=${N3T_MODDIR:+$N3T_MODDIR/n3telemetry.ko}
# the old name of the test modules' directory (/lib/n3t), for tests not yet
# converted; set again by need_testpmu
N3T_MOD=$N3T_TEST_MODDIR

# need_module: this test loads the module under test (N3T_MODDIR's, else
# the installed one) on the CPU PMU
need_module() {
	_es=${N3T_EVENT_SOURCES:-/sys/bus/event_source/devices}
	ls "$_es" 2>/dev/null | grep -qE '^armv[89]_' ||
		skip_all "no Arm CPU PMU (no armv8_*/armv9_* in $_es)"
	if [ -n "$N3T_MODDIR" ]; then
		[ -r "$N3T_KO" ] || bail "N3T_MODDIR=$N3T_MODDIR has no n3telemetry.ko"
	else
		modinfo n3telemetry > /dev/null 2>&1 ||
			skip_all "n3telemetry is not installed for $(uname -r) (make install, or set N3T_MODDIR)"
	fi
}

# n3t_load [params]: the module under test (installed, N3T_MODDIR's, or the
# test build after need_testpmu)
n3t_load() {
	if [ -n "$N3T_KO" ]; then
		insmod "$N3T_KO" "$@"
	else
		modprobe n3telemetry "$@"
	fi
}
n3t_unload() { rmmod n3telemetry; }

# need_testpmu: this test scripts the test PMU (or uses the test hooks); use
# or build the test modules; from then on n3t_load loads the test build of
# n3telemetry.ko
need_testpmu() {
	if [ -z "$N3T_TEST_MODDIR" ]; then
		_b=${N3T_BUILD:-/tmp/n3telemetry-ksft-$(uname -r)}
		N3T_TEST_MODDIR=$_b/ko
		if [ ! -r "$_b/ko/n3t_testpmu.ko" ] || [ ! -r "$_b/ko/n3telemetry.ko" ]; then
			[ -r "$N3T_SRC/module/Kbuild" ] && [ -r "$N3T_SRC/selftests/testpmu/Kbuild" ] ||
				skip_all "test PMU: no n3telemetry source tree at $N3T_SRC (set N3T_SRC)"
			[ -r "$KDIR/Makefile" ] ||
				skip_all "test PMU: no kernel build tree at $KDIR (install linux-headers-$(uname -r))"
			command -v make > /dev/null && command -v cc > /dev/null ||
				skip_all "test PMU: make and a C compiler are needed to build it"
			rm -rf "$_b"
			mkdir -p "$_b/src/selftests" "$_b/ko" &&
				cp -r "$N3T_SRC/Kbuild" "$N3T_SRC/module" "$N3T_SRC/uapi" "$_b/src/" &&
				cp -r "$N3T_SRC/selftests/testpmu" "$_b/src/selftests/" ||
				skip_all "test PMU: cannot copy the sources to $_b"
			echo "# building the test modules against $KDIR in $_b (log: $_b/build.log)"
			if ! make -C "$KDIR" M="$_b/src" N3T_TESTS=y modules > "$_b/build.log" 2>&1; then
				tail -5 "$_b/build.log" | sed 's/^/# /'
				skip_all "test PMU: the test modules did not build against $KDIR (see $_b/build.log)"
			fi
			cp "$_b/src/module/n3telemetry.ko" "$_b/src/selftests/testpmu/n3t_testpmu.ko" "$_b/ko/"
		fi
	fi
	[ -r "$N3T_TEST_MODDIR/n3telemetry.ko" ] && [ -r "$N3T_TEST_MODDIR/n3t_testpmu.ko" ] ||
		bail "N3T_TEST_MODDIR=$N3T_TEST_MODDIR lacks n3telemetry.ko or n3t_testpmu.ko"
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug ||
		skip_all "test PMU: debugfs is not mounted and cannot be"
	N3T_KO=$N3T_TEST_MODDIR/n3telemetry.ko
	N3T_MOD=$N3T_TEST_MODDIR
}

# load_refusal: how the load whose stderr is /tmp/ierr was refused (nospc,
# busy, or other: and the message)
load_refusal() {
	if grep -q "No space left" /tmp/ierr; then
		echo nospc
	elif grep -q "Device or resource busy" /tmp/ierr; then
		echo busy
	else
		echo "other: $(cat /tmp/ierr)"
	fi
}

# trace_on EVENT...: trace these events (group/name) into an empty buffer;
# fails when tracefs or one of them is missing.  trace_off EVENT...: stop.
TRACEFS=/sys/kernel/tracing
trace_on() {
	[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS 2> /dev/null
	for _e in "$@"; do [ -d "$TRACEFS/events/$_e" ] || return 1; done
	echo 0 > $TRACEFS/tracing_on
	echo > $TRACEFS/trace
	for _e in "$@"; do echo 1 > "$TRACEFS/events/$_e/enable"; done
	echo 1 > $TRACEFS/tracing_on
}
trace_off() {
	echo 0 > $TRACEFS/tracing_on
	for _e in "$@"; do
		echo 0 > "$TRACEFS/events/$_e/enable"
		echo 0 > "$TRACEFS/events/$_e/filter" 2> /dev/null	# a test's filter
	done
	echo > $TRACEFS/trace
}

# cost CPU FIELD: a field of CPU's line in the sampler's debugfs cost file
# (slices, looks, asides, ...)
cost() { awk -v c="cpu$1" -v f="$2" '$1 == c { for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }' $DBG/cost; }

# pin_shell MASK: this shell, and what it starts from now on, run on the CPUs
# of MASK (taskset's hex); unpin_shell gives back the mask it had before
pin_shell() {
	_shell_mask=$(taskset -p $$ | sed 's/.*: //')
	taskset -p "$1" $$ > /dev/null
}
unpin_shell() { taskset -p "$_shell_mask" $$ > /dev/null; }

# cpu_tables TABLE...: test_models= for 4 CPUs, CPU i the i-th table (the
# first again where there are fewer)
cpu_tables() {
	echo "$@" "$@" "$@" "$@" | awk '{ for (i = 1; i <= 4; i++) printf "%s%s", $i, i < 4 ? "," : "" }'
}

# scaled VECFILE: its counts ("EVENT=N ...") times 1, 2 and 4 in _v1, _v2
# and _v4 (the same rates over different counts: composed.sh, plans.sh)
# (VECFILE is one line; one awk)
scaled() {
	read -r _v1 < "$1"
	awk '{ for (k = 2; k <= 4; k *= 2) {
		for (i = 1; i <= NF; i++) { split($i, a, "="); printf "%s%s=%.0f", (i > 1 ? " " : ""), a[1], a[2] * k }
		print ""
	} }' "$1" > /tmp/n3t-scaled
	{ read -r _v2; read -r _v4; } < /tmp/n3t-scaled
}
# nlines VAR FILE: VAR set to FILE's number of lines (wc -l), in the shell
nlines() {
	_nl=0
	while IFS= read -r _; do _nl=$((_nl + 1)); done < "$2"
	eval "$1=\$_nl"
}

# diag_run NAME OUT CMD [ARGS...]: run CMD with its output in OUT, print
# that output as diagnostics (each line "# NAME: ..."), return its status
diag_run() {
	_n=$1 _o=$2
	shift 2
	"$@" > "$_o" 2>&1
	_rc=$?
	sed "s/^/# $_n: /" "$_o"
	return $_rc
}

# errno_of FILE FORMAT: write printf FORMAT to FILE in one write(2), print
# the error name
# (dd's message matched in the shell)
errno_of() {
	if printf "$2" | dd of="$1" bs=4096 conv=notrunc 2> /tmp/werr; then
		echo OK
		return
	fi
	slurp _we /tmp/werr
	case $_we in
	*"Invalid argument"*) echo EINVAL ;;
	*"out of range"*) echo ERANGE ;;
	*"Permission denied"*) echo EACCES ;;
	*"No space left"*) echo ENOSPC ;;
	*"Cannot allocate memory"*) echo ENOMEM ;;
	*)
		printf '%s' "$_we"
		echo OTHER ;;
	esac
}

# tp_setup COUNTERS [n3telemetry params]: test PMU + n3telemetry on it, slices
# ending only on "advance", positioned at the start of an interval (set 0).
# Every set in every interval (schedule=all: an interval is NSETS slices)
# unless the params say schedule=rotate (schedule.sh); no rest
# (yield_pct=0) unless TP_YIELD is set: TP_YIELD= (empty) keeps the
# module's default, TP_YIELD=yield_pct=N sets one.  With a rest, an
# interval is NSETS slices and REST=1 more "advance" that ends its rest.
# No counter left spare (spare=0: the sets fill COUNTERS) unless TP_SPARE
# is set likewise (TP_SPARE= keeps the module's default).
tp_setup() {
	insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko" counters="$1" || return 1
	shift
	TP=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
	n3t_load force=1 pmu_type="$TP" interval_ms=60000 schedule=all \
		${TP_YIELD-yield_pct=0} ${TP_SPARE-spare=0} "$@" || return 1
	echo 1 > $DBG/manual
	NSETS=$(wc -l < $N3T/sets)
	REST=1
	[ "$(cat $N3T/yield_pct)" = 0 ] && REST=0
	if grep -q '\[rotate\]' $N3T/schedule; then
		# an interval is the sets of every interval and one in turn:
		# end slices until the first interval ends, then count them
		getv _q $N3T/cpu0/status seq
		_i=0
		getv _qn $N3T/cpu0/status seq
		while [ "$_qn" = "$_q" ] && [ $_i -lt 100 ]; do
			advance -1
			_i=$((_i + 1))
			getv _qn $N3T/cpu0/status seq
		done
		getv NSETS $N3T/cpu0/status sets_per_interval
		[ $REST = 0 ] || advance -1
	else
		advance_interval -1
	fi
}

tp_teardown() {
	n3t_unload
	rmmod n3t_testpmu
}

# advance [CPU|-1]: end the current slice now
advance() { echo "${1:--1}" > $DBG/advance; }

# first_interval_end CPU: in manual mode, to the end of CPU's first
# interval (its slice timer, queued at the load, may have ended a slice
# before manual mode was set), NSETS + 1 slices at most
first_interval_end() {
	getv _q $N3T/cpu$1/status seq
	_s=0
	getv _qn $N3T/cpu$1/status seq
	while [ "$_qn" = "$_q" ] && [ $_s -le "$NSETS" ]; do
		advance "$1"
		_s=$((_s + 1))
		getv _qn $N3T/cpu$1/status seq
	done
}

advance_interval() {
	_i=0
	while [ $_i -lt $((NSETS + ${REST:-0})) ]; do
		advance "$1"
		_i=$((_i + 1))
	done
}

# inject CPU "NAME=count ...": counts for the events counting now on CPU
inject() { echo "cpu=$1 $2" > $TPDBG/inject; }

# value FILE METRIC: the value printed for METRIC in FILE
value() { awk -v m="$2" '$1 == m { print $2 }' "$1"; }
# getv VAR FILE KEY: VAR set to the value printed for KEY in FILE (the
# second field of its first line for KEY; empty when there is none), as
# value does but in the shell: a process costs tens of milliseconds on the
# debug kernel under TCG, and loops that poll a status file add up
getv() {
	_gv=
	if [ -r "$2" ]; then
		while read -r _gk _gx _; do
			if [ "$_gk" = "$3" ]; then
				_gv=$_gx
				break
			fi
		done < "$2"
	fi
	eval "$1=\$_gv"
}
# slurp VAR FILE...: VAR set to the files' lines, in the shell (to compare
# their contents before and after)
slurp() {
	_sv=
	_sn=$1
	shift
	for _sf in "$@"; do
		while IFS= read -r _sl || [ -n "$_sl" ]; do _sv="$_sv$_sl
"; done < "$_sf"
	done
	eval "$_sn=\$_sv"
}

# scripted_slices FIRST CPU VECTOR: the slices FIRST..NSETS-1 of an interval
# on CPU alone, each given VECTOR
scripted_slices() {
	_s=$1
	while [ "$_s" -lt "$NSETS" ]; do
		inject "$2" "$3"
		advance "$2"
		_s=$((_s + 1))
	done
}

# all_ages DIR: the seq of each selected group's values (ages), in order;
# with N3's default groups: topdown_l1 (set 0),
# topdown_frontend (sets 1, 2), topdown_backend (2, 3, 4), general (3),
# l1i_cache and l1d_cache (5), l2_cache and ll_cache (6)
all_ages() { awk '{ printf " %s", $3 }' "$1/ages"; }
# st DIR NAME: a status value
st() { value "$1/status" "$2"; }
# want VECTOR METRIC: the exact value of METRIC over VECTOR's counts
want() { awk -v one=1 -v vec="$1" -v m="$2" -f ./expect.awk < /dev/null; }
# group_is LABEL DIR GROUP VECTOR|nan: every metric of GROUP as from VECTOR, or
# nan (one awk for the whole group file)
group_is() {
	_bad=
	awk -v grp=1 -v vec="$4" -v label="$1" -v group="$3" -f ./expect.awk "$2/$3" > /tmp/n3t-group-is
	while read -r _gl _gr; do
		if [ "$_gl" = n3t-bad ]; then _bad=$_gr; else echo "$_gl $_gr"; fi
	done < /tmp/n3t-group-is
	expect_eq "$1" 0 "$_bad"
}

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
	[ "${REST:-0}" = 0 ] || advance -1
}
