#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Invalid writes fail with the documented errno and change nothing; only
# root writes.  (Who reads what: access.sh.)
. ./lib.sh
need_module

# state VAR: VAR set to the configuration's files (read in the shell: a
# process costs tens of milliseconds on the debug kernel)
state() { slurp "$1" $N3T/interval_ms $N3T/groups $N3T/sets $N3T/enabled $N3T/yield_pct; }

LONG=$(awk 'BEGIN { for (i = 0; i < 600; i++) printf "1" }')
LONGG=$(awk 'BEGIN { for (i = 0; i < 60; i++) printf "topdown_l1 " }')

check load n3t_load force=1 interval_ms=1000
state before
n=0
while IFS='|' read -r file payload want; do
	[ -z "$file" ] && continue
	n=$((n + 1))
	got=$(errno_of "$N3T/$file" "$payload")
	# the payload's first 24 characters name the case
	short=$payload
	while [ ${#short} -gt 24 ]; do short=${short%?}; done
	expect_eq "$n:$file:$short" "$want" "$got"
	state after
	expect_eq "$n:unchanged" "$before" "$after"
done <<TABLE
interval_ms|\n|EINVAL
interval_ms|abc|EINVAL
interval_ms|12abc|EINVAL
interval_ms|-5|EINVAL
interval_ms| 100|EINVAL
interval_ms|100 200|EINVAL
interval_ms|1e3|EINVAL
interval_ms|0x64|EINVAL
interval_ms|1000.5|EINVAL
interval_ms|100\n\n|EINVAL
interval_ms|100\0000|EINVAL
interval_ms|$LONG|EINVAL
interval_ms|9|ERANGE
interval_ms|0|ERANGE
interval_ms|60001|ERANGE
interval_ms|4294967296|ERANGE
interval_ms|99999999999999999999|ERANGE
yield_pct|\n|EINVAL
yield_pct|abc|EINVAL
yield_pct|5x|EINVAL
yield_pct|-1|EINVAL
yield_pct| 5|EINVAL
yield_pct|5 5|EINVAL
yield_pct|0x5|EINVAL
yield_pct|5.5|EINVAL
yield_pct|5\n\n|EINVAL
yield_pct|5\0000|EINVAL
yield_pct|$LONG|EINVAL
yield_pct|51|ERANGE
yield_pct|100|ERANGE
yield_pct|4294967296|ERANGE
groups|\n|EINVAL
groups|   |EINVAL
groups|bogus|EINVAL
groups|topdown_l1 bogus|EINVAL
groups|topdown_l1 topdown_l1|EINVAL
groups|l1d_cache general l1d_cache|EINVAL
groups|Topdown_L9|EINVAL
groups|ALL|EINVAL
groups|topdown|EINVAL
groups|topdown_l1;general|EINVAL
groups|topdown_l1\tgeneral|EINVAL
groups|default general|EINVAL
groups|all all|EINVAL
groups|topdown_l1\0000general|EINVAL
groups|$LONGG|EINVAL
enabled|0\0000junk|EINVAL
enabled|0\0000|EINVAL
enabled|1\0000|EINVAL
enabled|0\n\0000|EINVAL
enabled|\0000|EINVAL
enabled|\n|EINVAL
enabled|0\n\n|EINVAL
enabled|00|EINVAL
enabled|01|EINVAL
enabled| 0|EINVAL
enabled|0 |EINVAL
enabled|2|EINVAL
enabled|-1|EINVAL
enabled|off|EINVAL
version|1|EACCES
slots|6|EACCES
counters|1|EACCES
sets|set0|EACCES
available_groups|all|EACCES
cpu0/topdown_l1|0|EACCES
cpu0/status|0|EACCES
system/general|0|EACCES
TABLE
check at-least-30-cases test "$n" -ge 30

# "0", a NUL and more is not "0": the write is refused, collection goes on
# (sysfs_streq() stops at the NUL: this used to pause)
sysseq() { awk '$1 == "seq" { print $2 }' $N3T/system/status; }
expect_eq enabled-1 OK "$(errno_of $N3T/enabled '1\n')"
expect_eq enabled-nul-junk EINVAL "$(errno_of $N3T/enabled '0\0000junk')"
expect_eq enabled-nul-still-1 1 "$(cat $N3T/enabled)"
expect_eq enabled-nul-state collecting "$(awk '$1 == "state" { print $2 }' $N3T/system/status)"
s0=$(sysseq)
i=0
while [ "$(sysseq)" -le "$s0" ] && [ $i -lt 40 ]; do
	sleep 0.25
	i=$((i + 1))
done
check enabled-nul-collection-continues test "$(sysseq)" -gt "$s0"

# valid writes still work, with and without the newline
expect_eq valid-interval OK "$(errno_of $N3T/interval_ms '250\n')"
expect_eq interval-set 250 "$(cat $N3T/interval_ms)"
expect_eq valid-groups OK "$(errno_of $N3T/groups 'general l1d_cache')"
expect_eq groups-set "general l1d_cache" "$(cat $N3T/groups)"
expect_eq valid-commas OK "$(errno_of $N3T/groups 'general,l1d_cache')"
expect_eq groups-set-commas "general l1d_cache" "$(cat $N3T/groups)"
expect_eq valid-default OK "$(errno_of $N3T/groups 'default\n')"
expect_eq yield-default 0 "$(cat $N3T/yield_pct)"
expect_eq valid-yield-0 OK "$(errno_of $N3T/yield_pct '0\n')"
expect_eq yield-set-0 0 "$(cat $N3T/yield_pct)"
expect_eq valid-yield-50 OK "$(errno_of $N3T/yield_pct '50')"
expect_eq yield-set-50 50 "$(cat $N3T/yield_pct)"

# only root writes
check nobody-no-write sh -c "! su nobody -s /bin/sh -c 'echo 100 > $N3T/interval_ms' 2> /dev/null"
check nobody-no-pause sh -c "! su nobody -s /bin/sh -c 'echo 0 > $N3T/enabled' 2> /dev/null"
expect_eq nobody-changed-nothing 1 "$(cat $N3T/enabled)"
check unload n3t_unload

# load parameters: one grammar for interval_ms (decimal, as the file);
# reserve is -1 or a number of counters the PMU has
check load-interval-hex-refused fails n3t_load force=1 interval_ms=0x64
check load-interval-leading-zero-decimal n3t_load force=1 interval_ms=0100
expect_eq leading-zero-is-decimal 100 "$(cat $N3T/interval_ms)"
check unload-leading-zero n3t_unload
# yield_pct: the file's grammar and range
check load-yield-hex-refused fails n3t_load force=1 yield_pct=0x5
check load-yield-too-big-refused fails n3t_load force=1 yield_pct=51
check load-yield-leading-zero-decimal n3t_load force=1 yield_pct=010
expect_eq yield-leading-zero-is-decimal 10 "$(cat $N3T/yield_pct)"
check unload-yield n3t_unload
check load-yield-0 n3t_load force=1 yield_pct=0
expect_eq yield-param-0 0 "$(cat $N3T/yield_pct)"
check unload-yield-0 n3t_unload
check load-reserve-below-minus-1-refused fails n3t_load force=1 reserve=-2
check reserve-below-minus-1-logged sh -c "dmesg | tail -3 | grep -q 'reserve=-2: not a number of counters'"
check load-reserve-too-many-refused fails n3t_load force=1 reserve=64
check reserve-too-many-logged sh -c "dmesg | tail -3 | grep -q 'reserve=64: the .* PMU has only'"

ktap_finish
