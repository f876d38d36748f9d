#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Layout: every documented attribute exists with its mode, cpuN/ matches the
# online CPUs, and the ABI document and the live tree list the same files.
. ./lib.sh
ABI=./sysfs-kernel-n3telemetry
check load n3t_load force=1

mode_of() { stat -c %a "$1" 2>/dev/null; }
for f in version cpu_model slots counters available_groups sets; do
	expect_eq "mode-$f" 444 "$(mode_of $N3T/$f)"
done
expect_eq mode-interval_ms 644 "$(mode_of $N3T/interval_ms)"
expect_eq mode-groups 644 "$(mode_of $N3T/groups)"
expect_eq mode-dev-snapshot 400 "$(mode_of /dev/n3telemetry)"
check dev-is-char-device test -c /dev/n3telemetry
for d in cpu0 system; do
	for f in $(cat $N3T/available_groups) status; do
		expect_eq "mode-$d/$f" 444 "$(mode_of $N3T/$d/$f)"
	done
	expect_eq "mode-$d/events" 400 "$(mode_of $N3T/$d/events)"
done

# cpuN directories == online CPUs
online=$(cat /sys/devices/system/cpu/online)
live=$(ls -d $N3T/cpu[0-9]* | sed 's|.*/cpu||' | sort -n | tr '\n' ' ')
want=$(echo "$online" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	if (n == 1) r[2] = r[1]; for (c = r[1]; c <= r[2]; c++) printf "%d ", c } }')
expect_eq cpu-dirs-match-online "$want" "$live"

# documented == live (cpuN/ stands for cpu0/)
grep '^What:' $ABI | sed 's|What:[[:space:]]*/sys/kernel/n3telemetry/||; s|/$||' |
	sed 's|^cpuN|cpu0|; s|^models/<model>|models/neoverse-n3|' | sort > /tmp/abi-doc
(cd $N3T && find . -mindepth 1 | sed 's|^\./||' | grep -v '^cpu[1-9]' |
	sed 's|^system/.*|system|' | sort -u) > /tmp/abi-live
# every system/ file is documented by its cpuN/ entry
expect_eq abi-doc-matches-tree "" "$(diff /tmp/abi-doc /tmp/abi-live)"
check unload n3t_unload
ktap_finish
