#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The static arm64 n3tel against the live module on the test PMU: the
# snapshot and the sysfs text give the same numbers for the same interval.
. ./lib.sh
. ./vectors.sh
command -v n3tel > /dev/null || { echo "# n3tel not in the initramfs"; exit 1; }
tp_setup 6 || exit 1
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
# The snapshot carries full fixed-point precision, the text files the printed
# precision: compare what n3tel prints from each (JSON values are printed
# with the module's own precision).
expect_eq snapshot-bytes $((48 + 4 * 1664)) "$(cat /dev/n3telemetry | wc -c)"
check snapshot-stable-within-interval cmp -s /dev/n3telemetry /dev/n3telemetry
n3tel export --format prometheus > /tmp/snap.prom
n3tel export --format json | grep '"metrics"' > /tmp/snap.metrics
n3tel --text export --format json | grep '"metrics"' > /tmp/text.metrics
check json-snapshot-equals-text cmp /tmp/snap.metrics /tmp/text.metrics
check json-has-4-cpus test "$(wc -l < /tmp/snap.metrics)" = 4
check export-frontend-cpu1 grep -qx 'n3telemetry_frontend_bound_ratio{cpu="1"} 0.18000000' /tmp/snap.prom
check export-ipc-cpu2 grep -qx 'n3telemetry_ipc{cpu="2"} 0.350000' /tmp/snap.prom
check export-cycles-cpu1 grep -q '^n3telemetry_event_count_total{cpu="1",event="CPU_CYCLES"} [1-9]' /tmp/snap.prom
n3tel export --format json > /tmp/snap.json
check json-has-cpu1 grep -q '"frontend_bound": 18.00' /tmp/snap.json
n3tel show --cpu 1 --group topdown_l1 > /tmp/show.txt
for m in frontend_bound backend_bound retiring bad_speculation; do
	want=$(value $N3T/cpu1/topdown_l1 $m)
	got=$(awk -v m=$m '$1 == m { print $2 }' /tmp/show.txt)
	expect_eq show-$m "$want" "$got"
done
n3tel show --cpu system --group general > /tmp/show-sys.txt
expect_eq show-system-ipc "$(value $N3T/system/general ipc)" "$(awk '$1 == "ipc" { print $2 }' /tmp/show-sys.txt)"
tp_teardown
check n3tel-module-gone sh -c "! n3tel show 2>/tmp/err.txt && grep -q 'not loaded' /tmp/err.txt"
ktap_finish
