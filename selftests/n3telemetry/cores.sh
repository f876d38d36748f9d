#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every core's tables through the real perf core on the test PMU: each table
# (force=<table>) on its own, all groups, one scripted interval: every group
# file of cpu1 and of system/ must print the values computed on the host
# from Arm's formula strings (cores/<table>.expect, core_expect.py).  Then a
# heterogeneous machine (test_models=: cpu0-1 N3, cpu2-3 V2): each CPU has
# its core's groups and values, and n3tel shows both.
. ./lib.sh
C=./cores
[ -d $C ] || skip_all "no expectations (made by selftests/host/core_expect.py from Arm's spec)"
need_testpmu

# compare_groups NAME DIR EXPECT [GROUPS]: every group of EXPECT (or those
# named) is DIR's file of that name, line for line (one awk for them all:
# a process costs tens of milliseconds on the debug kernel)
compare_groups() {
	awk -v d="$2" -v sel="$4" -v name="$1" '
	{
		if (!($1 in cnt))
			order[++n] = $1
		want[$1, ++cnt[$1]] = $2 " " $3
	}
	END {
		k = split(sel, s, " ")
		for (i = 1; i <= k; i++)
			ok[s[i]] = 1
		for (i = 1; i <= n; i++) {
			g = order[i]
			if (k && !(g in ok))
				continue
			f = d "/" g
			j = 0
			first = ""
			while ((r = (getline line < f)) > 0) {
				j++
				if (first == "" && (j > cnt[g] || line != want[g, j]))
					first = "line " j ": want \"" want[g, j] "\", got \"" line "\""
			}
			close(f)
			if (first == "" && (r < 0 || j != cnt[g]))
				first = j " lines, want " cnt[g]
			if (first != "") {
				print "# " name ": " g " differs, " first
				bad++
			}
		}
		print "n3t-bad", bad + 0
	}' "$3" > /tmp/n3t-compare
	_bad=
	while read -r _a _b; do
		if [ "$_a" = n3t-bad ]; then _bad=$_b; else echo "$_a $_b"; fi
	done < /tmp/n3t-compare
	expect_eq "$1" 0 "$_bad"
}

for exp in $C/*.expect; do
	m=$(basename "$exp" .expect)
	# shellcheck disable=SC2046
	if ! tp_setup 6 force="$m" groups=all $(cat "$C/$m.load" 2> /dev/null); then
		check "$m-load" false
		continue
	fi
	expect_eq "$m-cpu_model" "$m (forced)" "$(cat $N3T/cpu_model)"
	expect_eq "$m-cpu1-model" "$m" "$(cat $N3T/cpu1/cpu_model)"
	expect_eq "$m-groups" "$(awk '{ print $1 }' "$exp" | uniq | tr '\n' ' ' | sed 's/ $//')" \
		"$(cat $N3T/available_groups)"
	expect_eq "$m-metrics-listed" "$(wc -l < "$exp")" \
		"$(awk '{ for (i = 3; i <= NF; i++) print $i }' $N3T/models/$m/groups | wc -l)"
	scripted_interval 1 "$(cat $C/$m.vec)"
	compare_groups "$m-cpu1-values" $N3T/cpu1 "$exp"
	# the other CPUs counted nothing: the system sums are cpu1's counts
	compare_groups "$m-system-values" $N3T/system "$exp"
	if command -v n3tel > /dev/null; then
		# every metric of the table, with the module's value, from the snapshot
		n3tel show --cpu 1 > /tmp/show 2>&1
		expect_eq "$m-n3tel-show-values" 0 "$(awk '
			NR == FNR { want[$2] = $3; next }
			NF >= 3 && ($1 in want) { got[$1] = $2 }
			END {
				bad = 0
				for (k in want)
					if (got[k] != want[k]) { print "# " k ": " got[k] " != " want[k]; bad++ }
				print bad
			}' "$exp" /tmp/show | tail -1)"
	fi
	tp_teardown
done

# heterogeneous: two core types side by side
if tp_setup 6 test_models=neoverse-n3,neoverse-n3,neoverse-v2,neoverse-v2; then
	expect_eq hetero-cpu_model "neoverse-n3 (forced)
neoverse-v2 (forced)" "$(cat $N3T/cpu_model)"
	expect_eq hetero-cpu2-model neoverse-v2 "$(cat $N3T/cpu2/cpu_model)"
	check hetero-v2-has-no-frontend-group test ! -e $N3T/cpu2/topdown_frontend
	check hetero-n3-has-frontend-group test -e $N3T/cpu1/topdown_frontend
	expect_eq hetero-v2-cpus 2-3 "$(cat $N3T/models/neoverse-v2/cpus)"
	# enough slices for a whole interval of either core
	NSETS=$(for f in $N3T/models/*/sets; do wc -l < "$f"; done | sort -n | tail -1)
	scripted_interval 1 "$(cat $C/neoverse-n3.vec)" 2 "$(cat $C/neoverse-v2.vec)"
	sel=$(cat $N3T/groups)
	compare_groups hetero-cpu1-n3-values $N3T/cpu1 $C/neoverse-n3.expect "$sel"
	compare_groups hetero-cpu2-v2-values $N3T/cpu2 $C/neoverse-v2.expect "$sel"
	compare_groups hetero-system-is-n3 $N3T/system $C/neoverse-n3.expect "$sel"
	expect_eq hetero-groups-write OK "$(errno_of $N3T/groups 'general topdown_frontend')"
	check hetero-v2-keeps-general test -e $N3T/cpu2/general
	expect_eq hetero-group-none-for-v2 EINVAL "$(errno_of $N3T/groups 'topdown_frontend')"
	if command -v n3tel > /dev/null; then
		n3tel export --format prometheus --scope cpu > /tmp/export 2>&1
		check hetero-export-models grep -q 'cpu="2",model="neoverse-v2"' /tmp/export
	fi
	tp_teardown
else
	check hetero-load false
fi
ktap_finish
