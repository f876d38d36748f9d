#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Layout: every documented attribute exists with its mode, cpuX/ matches the
# online CPUs, and the ABI document and the live tree list the same files;
# the tree is printed between n3t-sysfs markers for the host's check.
. ./lib.sh
need_module
ABI=./sysfs-kernel-n3telemetry
[ -r $ABI ] || ABI=$N3T_SRC/Documentation/ABI/testing/sysfs-kernel-n3telemetry
check load n3t_load force=1

mode_of() { stat -c %a "$1" 2>/dev/null; }
for f in version cpu_model slots counters available_groups sets; do
	expect_eq "mode-$f" 444 "$(mode_of $N3T/$f)"
done
expect_eq mode-interval_ms 644 "$(mode_of $N3T/interval_ms)"
expect_eq mode-groups 644 "$(mode_of $N3T/groups)"
# the data too: the capability is checked on read (open for the device),
# so that a reader with CAP_PERFMON need not be root (access.sh)
expect_eq mode-dev-snapshot 444 "$(mode_of /dev/n3telemetry)"
check dev-is-char-device test -c /dev/n3telemetry
for d in cpu0 system; do
	for f in $(cat $N3T/available_groups) status; do
		expect_eq "mode-$d/$f" 444 "$(mode_of $N3T/$d/$f)"
	done
	expect_eq "mode-$d/events" 444 "$(mode_of $N3T/$d/events)"
done

# cpuN directories == online CPUs
online=$(cat /sys/devices/system/cpu/online)
live=$(ls -d $N3T/cpu[0-9]* | sed 's|.*/cpu||' | sort -n | tr '\n' ' ')
want=$(echo "$online" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	if (n == 1) r[2] = r[1]; for (c = r[1]; c <= r[2]; c++) printf "%d ", c } }')
expect_eq cpu-dirs-match-online "$want" "$live"

# documented == live (cpuX/ stands for cpu0/, models/<model>/ for the one
# model force=1 gives)
if [ -r $ABI ]; then
	grep '^What:' $ABI | sed 's|What:[[:space:]]*/sys/kernel/n3telemetry/||; s|/$||' |
		sed 's|^cpuX|cpu0|; s|^models/<model>|models/neoverse-n3|' | sort > /tmp/abi-doc
	(cd $N3T && find . -mindepth 1 | sed 's|^\./||' | grep -v '^cpu[1-9]' | sort) > /tmp/abi-live
	expect_eq abi-doc-matches-tree "" "$(diff /tmp/abi-doc /tmp/abi-live)"
else
	ktap_test_skip "abi-doc-matches-tree (no $ABI)"
fi

# The live tree, for get_abi.pl undefined on the host (selftests/host/abi.sh)
echo "# n3t-sysfs-begin"
for t in d f l; do
	find $N3T -type $t | sed "s|^|# n3t-sysfs: $t |"
done
echo "# n3t-sysfs-end $(find $N3T | wc -l)"
check unload n3t_unload
ktap_finish
