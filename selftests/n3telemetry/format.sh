#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Format: every line of every file parses, with the unit's precision or nan,
# and every read has the same lines in the same order.  On QEMU's PMU.
. ./lib.sh
need_module
check load n3t_load force=1 interval_ms=20
echo all > $N3T/groups
sleep 1
bad=0
read -r groups < $N3T/available_groups
for d in $N3T/cpu[0-9]* $N3T/system; do
	# every group file twice (one awk for the directory: a process costs
	# tens of milliseconds on the debug kernel): the first read parses,
	# the second must have the same names in the same order
	files=
	for g in $groups; do files="$files $d/$g $d/$g"; done
	# shellcheck disable=SC2086
	awk '
		FNR == 1 { k++; pass = k % 2 }
		!pass { names[k] = names[k] " " $1; next }
		{ names[k] = names[k] " " $1 }
		$1 ~ /_mpki$/ || $1 == "ipc" || $1 ~ /_per_cycle$/ { d = 3 }
		$1 ~ /_ratio$/ { d = 4 }
		$1 !~ /_mpki$/ && $1 != "ipc" && $1 !~ /_per_cycle$/ && $1 !~ /_ratio$/ { d = 2 }
		NF != 2 || $1 !~ /^[a-z0-9_]+$/ { bad++; print "# " FILENAME ": " $0; next }
		$2 == "nan" { next }
		{ split($2, p, "."); if ($2 !~ /^-?[0-9]+\.[0-9]+$/ || length(p[2]) != d) { bad++; print "# " FILENAME ": " $0 } }
		END {
			for (i = 1; i < k; i += 2)
				if (names[i] != names[i + 1]) { bad++; print "# read " i ": lines differ between reads" }
			exit bad != 0
		}' $files || bad=$((bad + 1))
	awk 'NF != 3 || $1 !~ /^[A-Z0-9_]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ { bad++; print "# " FILENAME ": " $0 }
		END { exit bad != 0 }' "$d/events" || bad=$((bad + 1))
	awk '$1 == "state" && $2 ~ /^[a-z-]+$/ && NF == 2 { next }
		$1 == "hidden_events" && $2 ~ /^(none|[A-Z0-9_]+(,[A-Z0-9_]+)*)$/ && NF == 2 { next }
		NF != 2 || $2 !~ /^[0-9]+(\.[0-9][0-9])?$/ { bad++; print "# " $0 } END { exit bad != 0 }' "$d/status" || bad=$((bad + 1))
done
expect_eq all-lines-parse 0 "$bad"
expect_eq groups-all "$(cat $N3T/available_groups)" "$(cat $N3T/groups)"
expect_eq topdown-l1-lines "frontend_bound backend_bound retiring bad_speculation" \
	"$(cut -d' ' -f1 $N3T/cpu0/topdown_l1 | tr '\n' ' ' | sed 's/ $//')"
expect_eq counters-lines 6 "$(wc -l < $N3T/counters)"
expect_eq cpu0-collecting collecting "$(value $N3T/cpu0/status state)"
expect_eq system-cpus-collecting "$(grep -c ^processor /proc/cpuinfo)" \
	"$(value $N3T/system/status cpus_collecting)"
expect_eq sets-lines "$(grep -c . $N3T/sets)" "$(grep -c '^set[0-9]* [A-Z]' $N3T/sets)"
check unload n3t_unload
ktap_finish
