#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Who reads what ("Security" in Documentation/n3telemetry.rst).  The data
# (the metric group files and events of cpuN/ and system/, /dev/n3telemetry)
# need CAP_PERFMON or CAP_SYS_ADMIN, as CPU-wide perf counting does; the
# configuration and status are world-readable.  world_readable=1 opens the
# data to every user; root_only=1 closes every file to all but root and wins
# over world_readable=1.  n3tel run without the capability says so in one
# line and exits 1.  The opener's credentials decide, not the reader's: a
# descriptor opened without the capability reads nothing in a privileged
# task's hands, one opened with it reads after its holder drops every
# privilege (as a perf event's descriptor does).
. ./lib.sh
need_module

DEV=/dev/n3telemetry
DATA="$N3T/cpu0/topdown_l1 $N3T/system/general $N3T/cpu0/events $N3T/system/events $DEV"
# READER: a shell script that reads each file of $FILES with cat (the
# capability is checked on read: the shell's read would take an error for
# the end of the file) and prints a line for each, OK, EACCES or the error;
# its errors go to /tmp/acc-tf (which every user may write)
READER='for f in $FILES; do
	if cat "$f" > /dev/null 2> /tmp/acc-tf/err.$$; then
		echo OK
	else
		read -r l < /tmp/acc-tf/err.$$
		case $l in
		*"Permission denied"*) echo EACCES ;;
		*) echo "$l" ;;
		esac
	fi
done
rm -f /tmp/acc-tf/err.$$'
# every_file WHO WANT NAME FILE...: WHO reading each FILE gets WANT; WHO is
# nobody, root, or capuser's "UID CAPS" (e.g. "65534 38": nobody with
# CAP_PERFMON).  (All read by one process of WHO's: a process costs tens
# of milliseconds on the debug kernel, and these are many.)
every_file() {
	_who=$1 _want=$2 _name=$3
	shift 3
	case $_who in
	root) FILES="$*" sh -c "$READER" > /tmp/acc.got 2> /tmp/acc.err ;;
	nobody) su nobody -s /bin/sh -c "FILES='$*'; $READER" > /tmp/acc.got 2> /tmp/acc.err ;;
	# shellcheck disable=SC2086
	*) FILES="$*" "$CAPUSER" $_who sh -c "$READER" > /tmp/acc.got 2> /tmp/acc.err ;;
	esac
	while IFS= read -r _l; do echo "# reader: $_l"; done < /tmp/acc.err
	for _f in "$@"; do
		_got=
		read -r _got || _got="no result"
		expect_eq "$_name:${_f#$N3T/}" "$_want" "$_got"
	done < /tmp/acc.got
}
config_files() {
	echo $N3T/version $N3T/cpu_model $N3T/slots $N3T/counters $N3T/interval_ms \
		$N3T/groups $N3T/available_groups $N3T/sets $N3T/enabled \
		$N3T/cpu0/status $N3T/cpu0/cpu_model $N3T/system/status $N3T/system/cpu_model \
		$N3T/models/*/*
}
# mode FILE: its permission bits, octal
mode() { stat -L -c %a "$1"; }

# capuser (capuser.c): a user with chosen capabilities; built here when it
# is not installed (the test VM has it in /bin)
CAPUSER=$(command -v capuser)
if [ -z "$CAPUSER" ] && command -v cc > /dev/null &&
   cc -O2 -o /tmp/capuser "$N3T_HERE/capuser.c" 2> /dev/null; then
	CAPUSER=/tmp/capuser
fi
N3TEL=$(command -v n3tel)
# n3tel_as WHO ARGS...: run n3tel as nobody (or capuser's "UID CAPS"),
# stdout in /tmp/n3tel.out, stderr in /tmp/n3tel.err; prints the exit status
n3tel_as() {
	_who=$1
	shift
	if [ "$_who" = nobody ]; then
		su nobody -s /bin/sh -c "$N3TEL $*" > /tmp/n3tel.out 2> /tmp/n3tel.err
	else
		"$CAPUSER" $_who "$N3TEL" "$@" > /tmp/n3tel.out 2> /tmp/n3tel.err
	fi
	echo $?
}
# n3tel_denied NAME FILE ARGS...: n3tel as nobody exits 1 with the one
# line naming FILE, nothing on stdout
WHY="needs CAP_PERFMON: run as root, or load n3telemetry with world_readable=1"
n3tel_denied() {
	_name=$1 _file=$2
	shift 2
	if [ -z "$N3TEL" ]; then
		ktap_test_skip "$_name (n3tel not found)"
		return
	fi
	expect_eq "$_name-exit" 1 "$(n3tel_as nobody "$@")"
	expect_eq "$_name-message" "n3tel: reading $_file $WHY" "$(cat /tmp/n3tel.err)"
	expect_eq "$_name-no-stdout" 0 "$(wc -c < /tmp/n3tel.out)"
}
mkdir -p /tmp/acc-tf && chmod 777 /tmp/acc-tf

# 1. the default: data for CAP_PERFMON only, configuration for everyone
check load-default n3t_load force=1 interval_ms=100
every_file nobody EACCES nobody-data $DATA
every_file nobody OK nobody-config $(config_files)
every_file root OK root-data $DATA
every_file root OK root-config $(config_files)
# the modes let a non-root reader with CAP_PERFMON open them; the check is
# the capability
# shellcheck disable=SC2046
stat -L -c '%a %n' $DATA $(config_files) > /tmp/acc.modes 2> /dev/null
# every file's line looked up by its name (stat prints none for a missing
# one: that file, and only it, has no mode)
awk -v files="$DATA $(config_files)" '{ m[$2] = $1 } END {
	n = split(files, f, " ")
	for (i = 1; i <= n; i++)
		print (f[i] in m) ? m[f[i]] : "missing", f[i]
}' /tmp/acc.modes > /tmp/acc.modes2
for f in $DATA $(config_files); do
	got=
	_n=
	read -r got _n
	[ "$_n" = "$f" ] || got="no such file"
	case "$f" in
	$N3T/interval_ms|$N3T/groups|$N3T/enabled) want=644 ;;
	*) want=444 ;;
	esac
	expect_eq "mode:${f#$N3T/}" $want "$got"
done < /tmp/acc.modes2
if [ -n "$CAPUSER" ]; then
	every_file "65534 38" OK perfmon-nobody-data $DATA
	every_file "65534 21" OK sys-admin-nobody-data $DATA
	every_file "65534 none" EACCES capuser-nobody-data $DATA
	# root without the capability is refused too: the check is not the uid
	every_file "0 none" EACCES capless-root-data $DATA
	every_file "0 none" OK capless-root-config $(config_files)
else
	ktap_test_skip "perfmon-nobody-data (no capuser: no C compiler to build capuser.c)"
fi
# a refused reader gets nothing, not an empty file
check nobody-gets-no-bytes sh -c "! su nobody -s /bin/sh -c 'cat $N3T/cpu0/topdown_l1' 2> /dev/null | grep -q ."

# The opener decides.  passed_read UID CAPS FILE: FILE opened by UID with
# CAPS, its descriptor passed to root (capuser --opened-by), read there: OK
# or EACCES, and what was read in /tmp/acc.out.  dropped_read FILE: FILE
# opened by root (the shell's redirection), read by cat as nobody without
# any capability.
PASSED="$N3T/cpu0/topdown_l1 $N3T/cpu0/events $N3T/system/general $N3T/system/events"
passed_read() {
	"$CAPUSER" --opened-by "$1" "$2" "$3" > /tmp/acc.out 2> /tmp/acc.err
	case $? in
	0) echo OK ;;
	1) if grep -q "Permission denied" /tmp/acc.err; then echo EACCES; else head -1 /tmp/acc.err; fi ;;
	*) echo "setup failed: $(head -1 /tmp/acc.err)" ;;
	esac
}
dropped_read() {
	if "$CAPUSER" 65534 none cat < "$1" > /tmp/acc.out 2> /tmp/acc.err; then
		echo OK
	elif grep -q "Permission denied" /tmp/acc.err; then
		echo EACCES
	else
		head -1 /tmp/acc.err
	fi
}
# lines LABEL FILE: what was read has the file's lines (as root reads them)
lines() {
	expect_eq "$1" "$(wc -l < "$2")" "$(wc -l < /tmp/acc.out)"
}
if [ -n "$CAPUSER" ]; then
	for f in $PASSED; do
		n=${f#$N3T/}
		expect_eq "opened-by-nobody-read-by-root:$n" EACCES "$(passed_read 65534 none "$f")"
		expect_eq "opened-by-nobody-read-by-root-no-bytes:$n" 0 "$(wc -c < /tmp/acc.out)"
		expect_eq "opened-by-capless-root-read-by-root:$n" EACCES "$(passed_read 0 none "$f")"
		expect_eq "opened-by-perfmon-nobody-read-by-root:$n" OK "$(passed_read 65534 38 "$f")"
		lines "opened-by-perfmon-nobody-read-by-root-lines:$n" "$f"
		expect_eq "opened-by-root-read-by-nobody:$n" OK "$(dropped_read "$f")"
		lines "opened-by-root-read-by-nobody-lines:$n" "$f"
	done
	# the snapshot decides at open: the same
	expect_eq opened-by-root-read-by-nobody:dev OK "$(dropped_read $DEV)"
	check opened-by-root-read-by-nobody-dev-bytes test -s /tmp/acc.out
else
	ktap_test_skip "opened-by (no capuser: no C compiler to build capuser.c)"
fi

# n3tel without the capability: one line, exit 1, for every command that
# reads data; /dev/n3telemetry refused is not hidden by the text files
n3tel_denied n3tel-show $N3T/cpu0/topdown_l1 show
n3tel_denied n3tel-show-system $N3T/system/topdown_l1 show --cpu system
n3tel_denied n3tel-top $N3T/cpu0/topdown_l1 top --iterations 1
n3tel_denied n3tel-export $N3T/system/topdown_l1 export --format prometheus
n3tel_denied n3tel-export-json $N3T/cpu0/topdown_l1 export --format json --scope cpu
n3tel_denied n3tel-snapshot $DEV --snapshot show
n3tel_denied n3tel-text $N3T/cpu0/topdown_l1 --text export --format csv --scope all
n3tel_denied n3tel-textfile $N3T/system/topdown_l1 textfile --dir /tmp/acc-tf
if [ -n "$N3TEL" ]; then
	check n3tel-textfile-up-0 sh -c "grep -qx 'n3telemetry_up 0' /tmp/acc-tf/n3telemetry.prom &&
		test \$(grep -c '^n3telemetry_' /tmp/acc-tf/n3telemetry.prom) = 1"
	# root, and nobody with CAP_PERFMON, read everything (the snapshot too)
	check n3tel-root-export sh -c "$N3TEL export --format json --scope all > /tmp/n3tel.out &&
		grep -q '\"source\": \"snapshot\"' /tmp/n3tel.out && grep -q '\"events_readable\": true' /tmp/n3tel.out"
	if [ -n "$CAPUSER" ]; then
		rc=$(n3tel_as "65534 38" export --format json --scope all)
		check n3tel-perfmon-nobody-export sh -c "test $rc = 0 && test ! -s /tmp/n3tel.err &&
			grep -q '\"source\": \"snapshot\"' /tmp/n3tel.out && grep -q '\"events_readable\": true' /tmp/n3tel.out"
	else
		ktap_test_skip "n3tel-perfmon-nobody-export (no capuser: no C compiler to build capuser.c)"
	fi
else
	ktap_test_skip "n3tel-root-export (n3tel not found)"
fi
check unload-default n3t_unload

# 2. world_readable=1: every user reads the data
check load-world-readable n3t_load force=1 world_readable=1
every_file nobody OK world-nobody-data $DATA
every_file nobody OK world-nobody-config $(config_files)
if [ -n "$CAPUSER" ]; then
	for f in $PASSED; do
		expect_eq "world-opened-by-nobody-read-by-root:${f#$N3T/}" OK \
			"$(passed_read 65534 none "$f")"
	done
fi
expect_eq world-dev-mode 444 "$(mode $DEV)"
if [ -n "$N3TEL" ]; then
	expect_eq n3tel-world-nobody-export 0 "$(n3tel_as nobody export --format prometheus)"
	check n3tel-world-nobody-counts sh -c "grep -qx 'n3telemetry_events_readable 1' /tmp/n3tel.out && test ! -s /tmp/n3tel.err"
fi
check unload-world-readable n3t_unload

# 3. root_only=1: nobody reads nothing, root everything; it wins over
# world_readable=1, which is then logged as ignored
for params in "root_only=1" "root_only=1 world_readable=1"; do
	p=$(echo "$params" | tr ' =' '+-')
	dmesg -c > /dev/null
	check load-$p n3t_load force=1 $params
	every_file nobody EACCES $p-nobody-data $DATA
	every_file nobody EACCES $p-nobody-config $(config_files)
	every_file root OK $p-root-data $DATA
	every_file root OK $p-root-config $(config_files)
	expect_eq $p-dev-mode 400 "$(mode $DEV)"
	expect_eq $p-file-mode 400 "$(mode $N3T/cpu0/topdown_l1)"
	if [ -n "$CAPUSER" ]; then
		# the modes keep CAP_PERFMON out too, unless it is root's
		every_file "65534 38" EACCES $p-perfmon-nobody-data $DATA
		every_file "0 38" OK $p-perfmon-root-data $DATA
	fi
	case "$params" in
	*world_readable*)
		check $p-logged sh -c "dmesg | grep -q 'world_readable=1 ignored: root_only=1'" ;;
	*)
		check $p-not-logged sh -c "! dmesg | grep -q 'world_readable=1 ignored'" ;;
	esac
	if [ -n "$N3TEL" ]; then
		expect_eq $p-n3tel-exit 1 "$(n3tel_as nobody show)"
		expect_eq $p-n3tel-message \
			"n3tel: reading $N3T/version needs root: n3telemetry is loaded with root_only=1" \
			"$(cat /tmp/n3tel.err)"
	fi
	check unload-$p n3t_unload
done
ktap_finish
