#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Detection by MIDR, without force=: on a core a table describes (QEMU's
# -cpu neoverse-*), the module loads and every CPU uses the table the MIDR
# ranges of module/models_midr.h pick (midr-map.txt, made on the host from
# that file); on any other core (-cpu max) the load fails with one clear
# line, and force=<table> still loads.  force=bogus fails with one line.
# n3t.cpu=MODEL on the kernel command line names the QEMU CPU model (check.sh
# passes it); a neoverse-* model must be one a table describes.  Then, with
# the test build's test_midr= (cores QEMU does not model), the tables chosen
# for cores built on a described one (Azure Cobalt 100: N2 r0p0's; Neoverse
# V3AE: V3's), for the revisions either side of a table's boundary, and the
# refusal of a core no table describes.
. ./lib.sh
MAP=./midr-map.txt
[ -r $MAP ] || skip_all "no midr-map.txt here (made by selftests/vm/check.sh from module/models_midr.h)"
need_module

# midr CPU: "IMPLEMENTER PART VARIANT REVISION" (decimal) of an online CPU
midr() {
	_r=/sys/devices/system/cpu/cpu$1/regs/identification/midr_el1
	if [ -r $_r ]; then
		_m=$(($(cat $_r)))
		echo $(((_m >> 24) & 0xff)) $(((_m >> 4) & 0xfff)) $(((_m >> 20) & 0xf)) $((_m & 0xf))
	else	# no sysfs regs: what /proc/cpuinfo says about this CPU
		awk -v c="$1" -F': *' '
			$1 ~ /^processor/ { p = ($2 == c) }
			p && $1 ~ /^CPU implementer/ { i = $2 }
			p && $1 ~ /^CPU part/ { pt = $2 }
			p && $1 ~ /^CPU variant/ { v = $2 }
			p && $1 ~ /^CPU revision/ { r = $2 }
			END { printf "%d %d %d %d\n", i, pt, v, r }' /proc/cpuinfo
	fi
}

# table IMPLEMENTER PART VARIANT REVISION: the first range that holds it
table() {
	awk -v i="$1" -v p="$2" -v rv=$(($3 * 16 + $4)) '
		$1 == i && $2 == p && rv >= $3 * 16 + $4 && rv <= $5 * 16 + $6 { print $7; exit }' $MAP
}

cpus() { sed -n 's/^processor[^0-9]*\([0-9]*\)$/\1/p' /proc/cpuinfo; }

# the module's kernel log lines (not the kernel's taint notices: an out-of-tree or
# an unsigned module's); new N0: those
# after the first N0, without timestamps, each once
klog() { dmesg | grep 'n3telemetry: ' | grep -vE 'taints kernel|tainting kernel'; }
count() { klog | wc -l; }
new_lines() { klog | tail -n +$(($1 + 1)) | sed 's/^\[[^]]*\] //' | sort -u; }

# generic_why: what the refusal of a core no table names adds, from the
# kernel's PMU driver (caps/slots is PMMIR_EL1.SLOTS, events/ what PMCEID
# implements), or "generic" where the generic table applies to it
generic_why() {
	_p=$(ls -d /sys/bus/event_source/devices/armv8_pmuv3* 2> /dev/null | head -1)
	if [ $(($(cat "$_p/caps/slots" 2> /dev/null || echo 0))) = 0 ]; then	# "0x00000000"
		echo ", and no slot count for the generic table (PMMIR_EL1)"
		return
	fi
	for _e in inst_retired cpu_cycles stall_frontend stall_backend op_retired op_spec \
		stall_slot_backend stall_slot_frontend stall_slot; do
		[ -e "$_p/events/$_e" ] || { echo ", and its PMU lacks the generic table's events"; return; }
	done
	echo generic
}
why=$(generic_why)

set -- $(midr 0)
imp=$1 part=$2 var=$3 rev=$4
exp=$(table "$@")
[ -z "$exp" ] && [ "$why" = generic ] && exp=generic
desc=$(printf 'implementer 0x%02x part 0x%03x r%up%u' "$imp" "$part" "$var" "$rev")
qcpu=$(sed -n 's/.*n3t\.cpu=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "# boot CPU: $desc -> ${exp:-no table}${qcpu:+ (QEMU -cpu $qcpu)}"
case "$qcpu" in
neoverse-*) check neoverse-model-has-table test -n "$exp" ;;
esac
same=yes
for c in $(cpus); do
	[ "$(midr "$c")" = "$imp $part $var $rev" ] || same="cpu$c: $(midr "$c")"
done
expect_eq same-midr-every-cpu yes "$same"

if [ -n "$exp" ]; then
	n0=$(count)
	check load-detected n3t_load interval_ms=100
	expect_eq cpu_model "$exp" "$(cat $N3T/cpu_model 2>/dev/null)"
	bad=
	for c in $(cpus); do
		[ "$(cat $N3T/cpu$c/cpu_model 2>/dev/null)" = "$exp" ] || bad="$bad cpu$c"
		grep -qx 'state collecting' $N3T/cpu$c/status 2>/dev/null || bad="$bad cpu$c-state"
	done
	expect_eq every-cpu-model-collecting "" "$bad"
	check models-dir test -d "$N3T/models/$exp"
	expect_eq models-cpus "$(cat /sys/devices/system/cpu/online)" \
		"$(cat $N3T/models/$exp/cpus 2>/dev/null)"
	check no-table-not-logged test -z "$(new_lines "$n0" | grep 'no table')"
	_t=0
	while [ "$(value $N3T/cpu0/status seq)" = 0 ] && [ $_t -lt 50 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	check intervals-end test "$(value $N3T/cpu0/status seq)" -ge 1
	check unload n3t_unload
	check sysfs-gone test ! -e $N3T
else
	n0=$(count)
	check unknown-refused fails n3t_load
	check unknown-not-loaded test ! -d $N3T
	# one line per init attempt (busybox insmod tries finit_module, then
	# init_module), the same each time, naming this core
	new=$(($(count) - n0))
	check unknown-logged test "$new" -ge 1 -a "$new" -le 2
	expect_eq unknown-one-line \
		"n3telemetry: CPU is $desc, a core no table describes$why; load with force=<table> to use one anyway" \
		"$(new_lines "$n0")"
	check forced-load n3t_load force=neoverse-v2
	expect_eq forced-cpu_model "neoverse-v2 (forced)" "$(cat $N3T/cpu_model 2>/dev/null)"
	expect_eq forced-cpu0 neoverse-v2 "$(cat $N3T/cpu0/cpu_model 2>/dev/null)"
	check forced-unload n3t_unload
fi

# midr_case MIDR WANT: loaded as MIDR (every CPU), the table WANT is chosen,
# as midr-map.txt (module/models_midr.h) also says; WANT "-": refused
midr_case() {
	_d=$(printf '0x%02x 0x%03x r%up%u' $(($1 >> 24 & 0xff)) $(($1 >> 4 & 0xfff)) \
		$(($1 >> 20 & 0xf)) $(($1 & 0xf)))
	_n=$(echo "$_d" | tr ' ' -)
	_m=$(table $(($1 >> 24 & 0xff)) $(($1 >> 4 & 0xfff)) $(($1 >> 20 & 0xf)) $(($1 & 0xf)))
	if [ "$2" = - ] && [ "$why" = generic ]; then
		expect_eq "midr-$_n-no-range" "" "$_m"
		set -- "$1" generic
		_m=generic
	fi
	if [ "$2" = - ]; then
		expect_eq "midr-$_n-no-range" "" "$_m"
		n0=$(count)
		check "midr-$_n-refused" fails n3t_load test_midr="$1"
		expect_eq "midr-$_n-one-line" \
			"n3telemetry: CPU is implementer $(echo "$_d" | sed 's/ / part /; s/ / /'), a core no table describes$why; load with force=<table> to use one anyway" \
			"$(new_lines "$n0")"
		return
	fi
	expect_eq "midr-$_n-range" "$2" "$_m"
	check "midr-$_n-load" n3t_load test_midr="$1" interval_ms=100
	expect_eq "midr-$_n-cpu_model" "$2" "$(cat $N3T/cpu_model 2>/dev/null)"
	expect_eq "midr-$_n-cpu1" "$2" "$(cat $N3T/cpu1/cpu_model 2>/dev/null)"
	check "midr-$_n-unload" n3t_unload
}

if [ -z "$qcpu" ] && [ -r "$N3T_TEST_MODDIR/n3telemetry.ko" ]; then
	_ko=$N3T_KO
	N3T_KO=$N3T_TEST_MODDIR/n3telemetry.ko
	midr_case 0x6d0fd490 neoverse-n2	# Azure Cobalt 100 r0p0
	midr_case 0x6d1fd493 neoverse-n2	# a later Cobalt 100: still N2 r0p0's
	midr_case 0x410fd830 neoverse-v3	# Neoverse V3AE r0p0
	midr_case 0x410fd840 neoverse-v3	# Neoverse V3
	midr_case 0x410fd492 neoverse-n2	# Neoverse N2 r0p2
	midr_case 0x410fd493 neoverse-n2-r0p3	# Neoverse N2 r0p3
	midr_case 0x411fd490 neoverse-n2-r0p3	# Neoverse N2 r1p0
	midr_case 0xc00fac30 -			# AmpereOne: no table (or generic)
	# the generic table on the test PMU (no PMCEID), its slots from slots=
	insmod "$N3T_TEST_MODDIR/n3t_testpmu.ko" counters=6
	tp=$(cat /sys/bus/event_source/devices/n3t_testpmu/type)
	check generic-load n3t_load test_midr=0xc00fac30 pmu_type="$tp" slots=8 interval_ms=100
	expect_eq generic-cpu_model generic "$(cat $N3T/cpu_model 2>/dev/null)"
	expect_eq generic-cpu1 generic "$(cat $N3T/cpu1/cpu_model 2>/dev/null)"
	expect_eq generic-slots 8 "$(cat $N3T/models/generic/slots 2>/dev/null)"
	expect_eq generic-groups "topdown_l1 cycle_accounting general" \
		"$(cat $N3T/available_groups 2>/dev/null)"
	check generic-unload n3t_unload
	# forced without a slot count: refused, one line (the test PMU has no
	# PMMIR_EL1; the CPU's is read, 0 under QEMU)
	if [ "$why" != generic ]; then
		n0=$(count)
		check generic-no-slots-refused fails n3t_load force=generic pmu_type="$tp"
		expect_eq generic-no-slots-one-line \
			"n3telemetry: generic: the PMU gives no slot count (PMMIR_EL1.SLOTS reads 0): give slots=, the core's slots per cycle" \
			"$(new_lines "$n0")"
	fi
	# beside a core a table names (test_models=): each CPU its own table
	check generic-mixed-load n3t_load test_models=neoverse-v2,generic,neoverse-v2,generic \
		pmu_type="$tp" slots=8 interval_ms=100
	expect_eq generic-mixed-cpu_model "neoverse-v2 (forced) generic (forced)" \
		"$(cat $N3T/cpu_model 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	expect_eq generic-mixed-cpu0-cpu1 "neoverse-v2 generic" \
		"$(cat $N3T/cpu0/cpu_model $N3T/cpu1/cpu_model 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	check generic-mixed-cpu1-topdown test -r $N3T/cpu1/topdown_l1
	check generic-mixed-unload n3t_unload
	rmmod n3t_testpmu
	N3T_KO=$_ko
fi

n0=$(count)
check bogus-refused fails n3t_load force=bogus
check bogus-not-loaded test ! -d $N3T
new=$(($(count) - n0))
check bogus-logged test "$new" -ge 1 -a "$new" -le 2
expect_eq bogus-one-line "n3telemetry: force=bogus: no such table (see the user guide for the list)" \
	"$(new_lines "$n0")"
ktap_finish
