#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Capacity x selection sweep on the test PMU: 0..6 programmable counters,
# cycle counter free and busy, all groups at load (spare=0: the sets fill
# what is free), every selection (each group too) by writing
# groups, then counters taken away while running; and the default spare
# counter at every capacity (the plan of one counter fewer, where there are
# two or more).
# Each case is a working plan or a clear refusal, as the oracle computed
# from Arm's spec (fits.txt, made on the host) says; never a crash.
. ./lib.sh
ORACLE=./fits.txt
[ -r $ORACLE ] || skip_all "no fits.txt (made by selftests/vm/check.sh from Arm's spec)"
need_testpmu
TPI=/sys/bus/event_source/devices/n3t_testpmu/type
SELS="default all $(awk '$1 == 6 && $2 == 1 && $3 != "default" && $3 != "all" { print $3 }' $ORACLE)"
# at load, all groups (each group alone is written below, the default
# spare after it; plans.sh loads every table's default with spare=0 on 0,
# 1, 2 and 3 counters, 4 without the cycle counter and 5 with it; the host
# checks the packer against the same oracle for every selection of every
# table, fits-oracle-matches-packer)
LOAD_SELS="all"

# sets_fit C CYC: every set of the plan needs at most C programmable counters
sets_fit() {
	awk -v c="$1" -v cyc="$2" '{ n = NF - 1; for (i = 2; i <= NF; i++) if (cyc && $i == "CPU_CYCLES") n--;
		if (n > c) bad++ } END { exit bad != 0 }' $N3T/sets
}

bad=0
cases=0
for c in 0 1 2 3 4 5 6; do
	for cyc in 1 0; do
		echo "# load sweep: $c counters, cycle counter $cyc, $(date +%T)"
		insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=$c cycle_counter=$cyc || exit 1
		tp=$(cat $TPI)
		for sel in $LOAD_SELS; do
			cases=$((cases + 1))
			want=$(awk -v c=$c -v y=$cyc -v s=$sel '$1 == c && $2 == y && $3 == s { print $4 }' $ORACLE)
			if n3t_load force=1 pmu_type="$tp" groups="$sel" interval_ms=10 spare=0 2> /tmp/ierr; then
				got=ok
				if ! sets_fit $c $cyc || [ "$(head -1 $N3T/counters)" != "programmable $c" ]; then
					echo "# load $c/$cyc/$sel: plan does not fit"
					bad=$((bad + 1))
				fi
				cat $N3T/system/status > /dev/null
				n3t_unload
			else
				got=$(load_refusal)
			fi
			if [ "$got" != "$want" ]; then
				echo "# load c=$c cyc=$cyc $sel: got $got, want $want"
				bad=$((bad + 1))
			fi
		done
		# the default: one counter left spare where there are two or more
		sc=$c
		[ $c -ge 2 ] && sc=$((c - 1))
		want=$(awk -v c=$sc -v y=$cyc '$1 == c && $2 == y && $3 == "default" { print $4 }' $ORACLE)
		if n3t_load force=1 pmu_type="$tp" interval_ms=10 2> /tmp/ierr; then
			got=ok
			if ! sets_fit $sc $cyc || [ "$(head -1 $N3T/counters)" != "programmable $sc" ]; then
				echo "# spare $c/$cyc: plan does not fit $sc, or not packed for it"
				spare_bad=$((spare_bad + 1))
			fi
			n3t_unload
		else
			got=$(load_refusal)
		fi
		[ "$got" = "$want" ] || { echo "# spare c=$c cyc=$cyc: got $got, want $want"; spare_bad=$((spare_bad + 1)); }
		rmmod n3t_testpmu
	done
done
expect_eq load-sweep-14-cases 14 "$cases"
expect_eq load-sweep-as-oracle 0 "$bad"
expect_eq spare-sweep-as-oracle 0 "${spare_bad:-0}"

# By writing: loaded at each capacity (with a selection that fits there),
# every selection written; a write is packed for the counters the load
# found, never probed again (a CPU where others take counters steps aside
# on its own), and a refused one changes nothing.
bad=0
cases=0
for c in 1 2 3 4 5 6; do
	for cyc in 1 0; do
		first=$(awk -v c=$c -v y=$cyc '$1 == c && $2 == y && $4 == "ok" { print $3; exit }' $ORACLE)
		[ -n "$first" ] || continue
		insmod $N3T_TEST_MODDIR/n3t_testpmu.ko counters=$c cycle_counter=$cyc || exit 1
		if ! n3t_load force=1 pmu_type="$(cat $TPI)" groups="$first" interval_ms=60000 spare=0; then
			echo "# write $c/$cyc: load with $first failed"
			bad=$((bad + 1))
			rmmod n3t_testpmu
			continue
		fi
		echo 1 > $DBG/manual
		# this shape's oracle, "selection want" lines (looked up in the
		# shell: a process costs tens of milliseconds on the debug kernel)
		awk -v c=$c -v y=$cyc '$1 == c && $2 == y { print $3, $4 }' $ORACLE > /tmp/sweep-want
		for sel in $SELS; do
			cases=$((cases + 1))
			getv want /tmp/sweep-want "$sel"
			slurp before $N3T/groups $N3T/sets
			got=$(errno_of $N3T/groups "$sel")
			case $got in
			OK) got=ok
			    sets_fit $c $cyc || { echo "# write $c/$cyc/$sel: plan does not fit"; bad=$((bad + 1)); }
			    advance -1 ;;
			ENOSPC) got=nospc
			    slurp after $N3T/groups $N3T/sets
			    [ "$before" = "$after" ] ||
				{ echo "# write $c/$cyc/$sel: changed on ENOSPC"; bad=$((bad + 1)); } ;;
			esac
			if [ "$got" != "$want" ]; then
				echo "# write c=$c cyc=$cyc $sel: got $got, want $want"
				bad=$((bad + 1))
			fi
		done
		n3t_unload
		rmmod n3t_testpmu
	done
done
echo "# write sweep: $cases cases"
check write-sweep-cases test "$cases" -ge 200
expect_eq write-sweep-as-oracle 0 "$bad"

# Taken away while running: all groups counting, counters vanish and come
# back slice by slice; the CPUs step aside and come back, never a crash.
tp_setup 6 || exit 1
echo 6 > $TPDBG/counters
echo 1 > $TPDBG/cycle_counter
echo all > $N3T/groups
for c in 0 3 1 0 6 2 0 4 1 6; do
	echo $c > $TPDBG/counters
	i=0
	while [ $i -lt 40 ]; do advance -1; i=$((i + 1)); done
	cat $N3T/cpu*/* $N3T/system/* /dev/n3telemetry > /dev/null
done
check still-loaded test -d $N3T
tp_teardown
ktap_finish
