#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Readers never see a torn interval: intervals alternate between two scripted
# profiles whose topdown_l1 each sums to 100.00; concurrent readers must
# always see a sum of 100.00 +/- 0.02 (a mix of two intervals would not).
. ./lib.sh
need_testpmu
. ./vectors.sh
tp_setup 6 || exit 1
reader() {
	_bad=0
	_n=0
	while [ ! -e /tmp/stop-readers ]; do
		s=$(awk '{ if ($2 == "nan") n++; else s += $2 } END { if (n) print "nan"; else printf "%.2f\n", s }' $N3T/cpu1/topdown_l1)
		case "$s" in
		99.98|99.99|100.00|100.01|100.02|nan) ;;
		*) _bad=$((_bad + 1)); echo "# torn: $s" ;;
		esac
		_n=$((_n + 1))
	done
	echo "$_bad $_n" > "/tmp/reader-$1"
}
rm -f /tmp/stop-readers
reader a &
reader b &
i=0
while [ $i -lt 30 ]; do
	if [ $((i % 2)) = 0 ]; then v=$VEC_A; else v=$VEC_B; fi
	scripted_slices 0 1 "$v"
	i=$((i + 1))
done
touch /tmp/stop-readers
wait
for r in a b; do
	read -r bad n < /tmp/reader-$r
	echo "# reader $r: $n reads"
	expect_eq reader-$r-never-torn 0 "$bad"
	check reader-$r-read test "$n" -gt 10
done
expect_eq intervals-published 31 "$(value $N3T/cpu1/status seq)"
tp_teardown
ktap_finish
