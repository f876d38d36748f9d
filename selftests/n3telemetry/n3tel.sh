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
expect_eq snapshot-record-size 4472 "$4"
expect_eq snapshot-records 4 "$5"
expect_eq snapshot-models 1 "$6"
expect_eq snapshot-bytes $((${12} + 4 * 4472)) "$(wc -c < /tmp/snap.bin)"
dd if=/tmp/snap.bin of=/tmp/snap.names bs=1 skip="${10}" count="${11}" 2> /dev/null
check snapshot-names-model grep -qx 'model 0 neoverse-n3 5 0x[0-9a-f]* Neoverse N3' /tmp/snap.names
check snapshot-names-event grep -qx 'event 0 [0-9]* CPU_CYCLES 0x0011' /tmp/snap.names
check snapshot-names-metric grep -qx 'metric 0 [0-9]* frontend_bound 2 percent of slots' /tmp/snap.names
check snapshot-names-group grep -qx 'group 0 0 topdown_l1 Topdown_L1 [0-9]* [0-9]* [0-9]* [0-9]*' /tmp/snap.names
check snapshot-stable-within-interval cmp -s /dev/n3telemetry /dev/n3telemetry
n3tel export --format prometheus --scope all --max-series 10000 > /tmp/snap.prom
n3tel export --format csv --scope all > /tmp/snap.csv
n3tel --text export --format csv --scope all > /tmp/text.csv
check csv-snapshot-equals-text cmp /tmp/snap.csv /tmp/text.csv
check csv-has-4-cpus test "$(cut -d, -f1,2 /tmp/snap.csv | sort -u | grep -c '^cpu,')" = 4
# the names in the snapshot and the models/ files describe the same model
n3tel show > /tmp/snap.show
n3tel --text show > /tmp/text.show
check show-snapshot-equals-text cmp /tmp/snap.show /tmp/text.show
check export-cpu-info grep -qx 'n3telemetry_cpu_info{cpu="1",model="neoverse-n3"} 1' /tmp/snap.prom
check export-frontend-cpu1 grep -qx 'n3telemetry_frontend_bound_ratio{cpu="1",model="neoverse-n3"} 0.18000000' /tmp/snap.prom
check export-ipc-cpu2 grep -qx 'n3telemetry_ipc{cpu="2",model="neoverse-n3"} 0.350000' /tmp/snap.prom
check export-cycles-cpu1 grep -q '^n3telemetry_event_cpu_cycles_total{cpu="1",model="neoverse-n3"} [1-9]' /tmp/snap.prom
n3tel export --format json --scope all > /tmp/snap.json
check json-has-cpu1 grep -q '"frontend_bound": {"value": 18.00, "unit": "percent of slots", "selected": true}' /tmp/snap.json
# the default export: system/ only, its cumulative counts the module's
n3tel export --format prometheus > /tmp/sys.prom
check export-default-no-cpu sh -c "! grep -q 'cpu=' /tmp/sys.prom && grep -qx 'n3telemetry_up 1' /tmp/sys.prom &&
	grep -qx 'n3telemetry_events_readable 1' /tmp/sys.prom &&
	grep -qx 'n3telemetry_cpus{model=\"neoverse-n3\",state=\"collecting\"} 4' /tmp/sys.prom"
check export-default-bounded test "$(grep -c '^n3telemetry_' /tmp/sys.prom)" -le 300
sum=0
for c in 0 1 2 3; do
	sum=$((sum + $(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/cpu$c/events)))
done
expect_eq system-cycles-are-cpu-sum "$sum" "$(awk '$1 == "CPU_CYCLES" { print $2 }' $N3T/system/events)"
expect_eq export-system-cycles "$sum" \
	"$(awk '$1 == "n3telemetry_event_cpu_cycles_total{model=\"neoverse-n3\"}" { print $2 }' /tmp/sys.prom)"
mkdir -p /tmp/tf
check textfile-writes n3tel textfile --dir /tmp/tf
check textfile-equals-export cmp /tmp/tf/n3telemetry.prom /tmp/sys.prom
n3tel show --cpu 1 --group topdown_l1 > /tmp/show.txt
for m in frontend_bound backend_bound retiring bad_speculation; do
	want=$(value $N3T/cpu1/topdown_l1 $m)
	got=$(awk -v m=$m '$1 == m { print $2 }' /tmp/show.txt)
	expect_eq show-$m "$want" "$got"
done
n3tel show --cpu system --group general > /tmp/show-sys.txt
expect_eq show-system-ipc "$(value $N3T/system/general ipc)" "$(awk '$1 == "ipc" { print $2 }' /tmp/show-sys.txt)"
# a CPU offline has no directory: n3tel leaves it out, and counts it out
CPUS=/sys/devices/system/cpu
if echo 0 > $CPUS/cpu3/online; then
	check offline-export sh -c "n3tel export --format prometheus --scope all --max-series 10000 > /tmp/off.prom &&
		! grep -q 'cpu=\"3\"' /tmp/off.prom && grep -q 'cpu=\"2\"' /tmp/off.prom &&
		grep -qx 'n3telemetry_cpus{model=\"neoverse-n3\",state=\"collecting\"} 3' /tmp/off.prom"
	check offline-text-csv sh -c "n3tel --text export --format csv --scope all > /tmp/off.csv &&
		! grep -q '^cpu,3,' /tmp/off.csv && grep -q '^cpu,2,' /tmp/off.csv"
	check offline-top sh -c "n3tel top --iterations 1 > /tmp/off.top && test \$(grep -c '^cpu[0-9]' /tmp/off.top) = 3"
	err=$(n3tel show --cpu 3 2>&1 > /dev/null)
	check offline-show-named-cpu-error sh -c "! n3tel show --cpu 3 > /dev/null 2>&1"
	expect_eq offline-show-named-cpu-message "n3tel: no CPU 3 in /sys/kernel/n3telemetry (see its cpuN directories; offline CPUs have none)" "$err"
	echo 1 > $CPUS/cpu3/online
	# CPUs going on- and offline while n3tel reads: never an error
	( i=0; while [ $i -lt 60 ]; do echo 0 > $CPUS/cpu3/online; echo 1 > $CPUS/cpu3/online;
		echo 0 > $CPUS/cpu2/online; echo 1 > $CPUS/cpu2/online; i=$((i + 1)); done ) &
	flip=$!
	fails=0 runs=0
	while kill -0 $flip 2> /dev/null; do
		n3tel --text export --format csv --scope all > /dev/null 2>> /tmp/hp.err || fails=$((fails + 1))
		n3tel export --format prometheus --scope all --max-series 10000 > /dev/null 2>> /tmp/hp.err ||
			fails=$((fails + 1))
		n3tel --text top --iterations 1 > /dev/null 2>> /tmp/hp.err || fails=$((fails + 1))
		n3tel --text textfile --dir /tmp/tf 2>> /tmp/hp.err || fails=$((fails + 1))
		runs=$((runs + 4))
	done
	wait $flip
	echo 1 > $CPUS/cpu2/online 2> /dev/null
	echo 1 > $CPUS/cpu3/online 2> /dev/null
	[ $fails = 0 ] || head -5 /tmp/hp.err | sed 's/^/# /'
	echo "# $runs n3tel runs during 120 CPU offline/online cycles"
	expect_eq hotplug-reads-never-fail 0 "$fails"
	check hotplug-reads-ran test $runs -ge 8
	check online-again-top sh -c "n3tel top --iterations 1 > /tmp/on.top && test \$(grep -c '^cpu[0-9]' /tmp/on.top) = 4"
else
	check cpu3-offline false
fi
tp_teardown
check n3tel-module-gone sh -c "! n3tel show 2>/tmp/err.txt && grep -q 'not loaded' /tmp/err.txt"
check textfile-module-gone-up-0 sh -c "! n3tel textfile --dir /tmp/tf 2> /dev/null && grep -qx 'n3telemetry_up 0' /tmp/tf/n3telemetry.prom &&
	test \$(grep -c '^n3telemetry_' /tmp/tf/n3telemetry.prom) = 1"
ktap_finish
