#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: Documentation/ABI passes the kernel's scripts/get_abi.pl: "validate"
# is silent, and "undefined" finds no undocumented file in the module's real
# /sys/kernel/n3telemetry, as the VM's layout kselftest printed it (between
# n3t-sysfs markers) on the console.  get_abi.pl only walks /sys, so the tree
# is rebuilt (directories and empty files) and bind-mounted on /sys in a
# mount namespace of its own.  Run by check.sh after the VM run:
#   abi.sh BUILDDIR [CONSOLE_LOG]   (default BUILDDIR/console-6.12.log)
# N3T_KSRC names the kernel tree (default: the cached 6.12 debug tree).
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
log=${2:-$out/console-6.12.log}
ksrc=${N3T_KSRC:-$(ls -d "${N3T_CACHE:-$HOME/.cache/n3telemetry}"/kernel-6.12-* 2>/dev/null | head -1)}
getabi=$ksrc/scripts/get_abi.pl
abi=$top/Documentation/ABI
N3T=/sys/kernel/n3telemetry
fail=0
ok() { echo "ok $1"; }
bad() { echo "not ok $1"; fail=1; }

if [ ! -r "$getabi" ]; then
	bad "abi-get_abi.pl-present (none at '$getabi'; set N3T_KSRC)"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/n3t-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. validate: no warning at all, and it does warn about a broken entry
perl "$getabi" validate --dir "$abi" > "$tmp/validate" 2>&1
if [ -s "$tmp/validate" ]; then
	sed 's/^/# /' "$tmp/validate" | head -20
	bad abi-validate-clean
else
	ok abi-validate-clean
fi
cp -r "$abi" "$tmp/broken"
sed -i '0,/^Description:/s//Descriptoin:/' "$tmp/broken/testing/sysfs-kernel-n3telemetry"
if perl "$getabi" validate --dir "$tmp/broken" 2>&1 | grep -q 'Warning'; then
	ok abi-validate-warns-on-a-broken-entry
else
	bad abi-validate-warns-on-a-broken-entry
fi

# 2. the live tree the VM printed: "# n3t-sysfs: TYPE PATH" lines, then
# "# n3t-sysfs-end COUNT"
tr -d '\r' < "$log" 2>/dev/null > "$tmp/log"
sed -n 's/.*# n3t-sysfs: \([dfl]\) \(.*\)$/\1 \2/p' "$tmp/log" > "$tmp/tree"
want=$(sed -n 's/.*# n3t-sysfs-end \([0-9]*\)$/\1/p' "$tmp/log" | tail -1)
got=$(wc -l < "$tmp/tree")
if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$got" -gt 0 ]; then
	echo "# $got entries from $log"
	ok abi-sysfs-tree-from-vm
else
	echo "# no complete n3t-sysfs dump in $log: ${want:-no end marker}, $got lines"
	bad abi-sysfs-tree-from-vm
	exit 1
fi
if grep -qvE "^[dfl] $N3T(/[A-Za-z0-9_.-]+)*$" "$tmp/tree"; then
	bad abi-sysfs-tree-paths
	exit 1
fi
root=$tmp/sys
while read -r type path; do
	case $type in
	d) mkdir -p "$root${path#/sys}" ;;
	*) mkdir -p "$(dirname "$root${path#/sys}")" && : > "$root${path#/sys}" ;;
	esac
done < "$tmp/tree"
have=
for f in version groups cpu0/topdown_l1 cpu0/events cpu0/status system/topdown_l1 \
	system/status models/neoverse-n3/metrics; do
	[ -f "$root/kernel/n3telemetry/$f" ] || have="$have $f"
done
if [ -z "$have" ]; then
	ok abi-sysfs-tree-has-top-cpu-system-models
else
	echo "# missing:$have"
	bad abi-sysfs-tree-has-top-cpu-system-models
fi

# undefined DIR: get_abi.pl undefined with DIR as Documentation/ABI, the
# rebuilt tree as /sys; prints the undocumented n3telemetry files
undefined() {
	local ns=(unshare --mount --propagation private)
	[ "$(id -u)" = 0 ] || ns=(unshare --user --map-root-user --mount --propagation private)
	"${ns[@]}" sh -c 'mount --bind "$1" /sys && exec perl "$2" undefined --dir "$3"' \
		sh "$root" "$getabi" "$1" 2> "$tmp/undefined.err" > "$tmp/undefined.out" ||
		{ tail -3 "$tmp/undefined.err" | sed 's/^/# /'; echo "ERROR"; return 1; }
	sed -n 's/ not found\.$//p' "$tmp/undefined.out"
	grep -v ' not found\.$' "$tmp/undefined.out" | sed 's/^/# unexpected: /'
}

# 3. undefined: every file of the real tree matches a What: of ours
undoc=$(undefined "$abi")
if [ $? = 0 ] && [ -z "$undoc" ]; then
	echo "# $(grep -c '^f' "$tmp/tree") files, all documented"
	ok abi-undefined-none
else
	echo "$undoc" | head -20 | sed 's/^/# /'
	echo "# $(echo "$undoc" | grep -c .) undocumented"
	bad abi-undefined-none
fi

# 4. the check is live: the same document with cpuN (the form get_abi.pl does
# not read as a wildcard) leaves every cpuX/ file undocumented
cp -r "$abi" "$tmp/cpun"
sed -i 's|^\(What:.*/n3telemetry/\)cpuX/|\1cpuN/|' "$tmp/cpun"/testing/*
n=$(undefined "$tmp/cpun" | grep -c "^$N3T/cpu[0-9]*/")
ncpu=$(grep -cE "^f $N3T/cpu[0-9]+/" "$tmp/tree")
if [ "$n" -gt 0 ] && [ "$n" = "$ncpu" ]; then
	echo "# cpuN form: $n undocumented"
	ok abi-undefined-catches-cpuN-form
else
	echo "# cpuN form: $n undocumented of $ncpu cpuX/ files"
	bad abi-undefined-catches-cpuN-form
fi
exit $fail
