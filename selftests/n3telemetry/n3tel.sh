#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The static arm64 n3tel against the live module on the test PMU: the
# snapshot and the sysfs text give the same numbers for the same interval.
. ./lib.sh
need_testpmu
. ./vectors.sh
command -v n3tel > /dev/null || skip_all "n3tel not found (make -C tools/n3tel)"
tp_setup 6 || exit 1
scripted_interval 1 "$VEC_A" 2 "$VEC_B"
# The snapshot carries full fixed-point precision, the text files the printed
# precision: compare what n3tel prints from each (JSON values are printed
# with the module's own precision).
# header (uapi/linux/n3telemetry.h, ABI 2): magic abi_version header_size
# record_size nr_records nr_models max_events max_metrics interval_ms
# names_offset names_size records_offset, then the names, then the records
cat /dev/n3telemetry > /tmp/snap.bin
set -- $(od -An -tu4 -N48 /tmp/snap.bin)
expect_eq snapshot-abi-version 2 "$2"
expect_eq snapshot-header-size 56 "$3"
expect_eq snapshot-record-size 2392 "$4"
expect_eq snapshot-records 4 "$5"
expect_eq snapshot-models 1 "$6"
expect_eq snapshot-bytes $((${12} + 4 * 2392)) "$(wc -c < /tmp/snap.bin)"
dd if=/tmp/snap.bin of=/tmp/snap.names bs=1 skip="${10}" count="${11}" 2> /dev/null
check snapshot-names-model grep -qx 'model 0 neoverse-n3 5 0x[0-9a-f]* Neoverse N3' /tmp/snap.names
check snapshot-names-event grep -qx 'event 0 [0-9]* CPU_CYCLES 0x0011' /tmp/snap.names
check snapshot-names-metric grep -qx 'metric 0 [0-9]* frontend_bound 2 percent of slots' /tmp/snap.names
check snapshot-names-group grep -qx 'group 0 0 topdown_l1 Topdown_L1 [0-9]* [0-9]* [0-9]* [0-9]*' /tmp/snap.names
check snapshot-stable-within-interval cmp -s /dev/n3telemetry /dev/n3telemetry
n3tel export --format prometheus > /tmp/snap.prom
n3tel export --format json | grep '"metrics"' > /tmp/snap.metrics
n3tel --text export --format json | grep '"metrics"' > /tmp/text.metrics
check json-snapshot-equals-text cmp /tmp/snap.metrics /tmp/text.metrics
check json-has-4-cpus test "$(wc -l < /tmp/snap.metrics)" = 4
# the names in the snapshot and the models/ files describe the same model
n3tel show > /tmp/snap.show
n3tel --text show > /tmp/text.show
check show-snapshot-equals-text cmp /tmp/snap.show /tmp/text.show
check export-cpu-info grep -qx 'n3telemetry_cpu_info{cpu="1",model="neoverse-n3"} 1' /tmp/snap.prom
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
