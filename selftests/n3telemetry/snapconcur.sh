#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Concurrent snapshot readers: three readers with different block sizes read
# /dev/n3telemetry while intervals advance; every record must come from one
# snapshot.  The scripted counts make that checkable: each interval adds the
# same counts, so a record's cumulative counts are its seq times the counts
# of one interval (a record torn between two snapshots is not).
. ./lib.sh
need_testpmu
. ./vectors.sh
tp_setup 6 || exit 1
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
per() { awk -v e="$2" '$1 == e { print $2 }' $N3T/cpu$1/events; }
# per-interval counts of CPU_CYCLES, INST_RETIRED, STALL_BACKEND on cpu1, cpu2
K="$(per 1 CPU_CYCLES) $(per 1 INST_RETIRED) $(per 1 STALL_BACKEND) \
$(per 2 CPU_CYCLES) $(per 2 INST_RETIRED) $(per 2 STALL_BACKEND)"
S0=$(value $N3T/cpu1/status seq)
echo "# one interval (seq $S0): $K"

(i=0; while [ $i -lt 25 ]; do scripted_interval 1 "$VEC_A" 2 "$VEC_B"; i=$((i + 1)); done;
 touch /tmp/adv.done) &
rm -f /tmp/adv.done /tmp/snap.*
# reader BS: whole snapshots with BS-byte reads until advancing ends; the
# latest 40 kept (checking each costs more than reading it)
reader() {
	_k=0
	while [ ! -e /tmp/adv.done ]; do
		dd if=/dev/n3telemetry of=/tmp/snap.$1.$((_k % 40)) bs=$1 2> /dev/null
		_k=$((_k + 1))
	done
	echo "# reader $1: $_k snapshots"
}
reader 1000 &
reader 4096 &
reader 333 &
wait

# verify (ABI 2): record_size at +12, records_offset at +44; in a record
# seq at +8, event counts at +856 + 8 * index
bad=0
n=0
checked=0
rm -f /tmp/snap.seqs
for f in /tmp/snap.[0-9]*; do
	n=$((n + 1))
	c=$(od -A n -t u8 -v "$f" | awk -v k="$K" -v s0="$S0" -v f="$f" '
		{ for (i = 1; i <= NF; i++) v[n++] = $i }
		END {
			split(k, K, " ")
			nrec = v[2] % 4294967296
			rsize = int(v[1] / 4294967296)
			roff = int(v[5] / 4294967296)
			if (nrec != 4) { print "# " f ": " nrec " records"; exit 1 }
			for (r = 0; r < nrec; r++) {
				b = (roff + r * rsize) / 8
				cpu = v[b] % 4294967296; seq = v[b + 1] - s0 + 1
				if ((cpu != 1 && cpu != 2) || seq < 1) continue
				o = (cpu - 1) * 3
				# event indexes: INST_RETIRED 5, CPU_CYCLES 8, STALL_BACKEND 16
				if (v[b + 107 + 8] != seq * K[o + 1] || v[b + 107 + 5] != seq * K[o + 2] ||
				    v[b + 107 + 16] != seq * K[o + 3]) {
					print "# " f ": cpu" cpu " seq " seq " torn: " v[b + 107 + 8] " " v[b + 107 + 5] " " v[b + 107 + 16]
					exit 1
				}
				ok++
				if (cpu == 1) seq1 = seq
			}
			print ok + 0, seq1 + 0
		}') || bad=$((bad + 1))
	case "$c" in
	[0-9]*) checked=$((checked + ${c% *})); echo "${c#* }" >> /tmp/snap.seqs ;;
	*) echo "$c"; bad=$((bad + 1)) ;;
	esac
done
# the snapshots kept were taken while intervals were published: cpu1's
# seq differs among them
nseq=$(sort -u /tmp/snap.seqs | wc -l)
echo "# $n snapshots checked, $checked records of cpu1/cpu2 compared, cpu1 at $nseq different seqs"
check many-snapshots test "$n" -ge 30
check snapshots-across-intervals test "$nseq" -ge 5
check records-compared test "$checked" -ge "$n"
expect_eq no-torn-record 0 "$bad"
roff=$(od -A n -t u4 -j 44 -N 4 /tmp/snap.333.0 | tr -d ' ')
rsize=$(od -A n -t u4 -j 12 -N 4 /tmp/snap.333.0 | tr -d ' ')
# the record grew by lost_slices_total (8 bytes) after the first release,
# then by the group ages (2 x 32 x 8 bytes) with the rotating schedule
expect_eq record-size 4472 "$rsize"
expect_eq size-on-each $((roff + 4 * rsize)) "$(wc -c < /tmp/snap.333.0)"
# seq advanced while they read
check seq-advanced test "$(value $N3T/cpu1/status seq)" -ge 26
rm -f /tmp/snap.*
tp_teardown
ktap_finish
