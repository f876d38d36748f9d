#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of make install / make uninstall, the systemd unit and dkms.conf:
# installs into DESTDIR trees (module cross-built for the debug 6.12 arm64
# tree in a copy of the source), checks every installed file, what depmod and
# modprobe make of the module, the unit's paths, systemd-analyze verify and
# security, the unit's system call filter against n3tel's (strace), and that
# uninstall leaves nothing.  Prints ok / not ok lines.
# usage: install.sh [BUILDDIR]
# N3T_KDIR=... uses another configured arm64 kernel tree.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}/install-host
rm -rf "$out" && mkdir -p "$out"
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
t() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; return 1; fi; }
# same NAME EXPECTED-FILE ACTUAL-FILE
same() {
	if diff -u "$2" "$3" > "$out/$1.diff"; then ok "$1"; else cat "$out/$1.diff"; nok "$1"; fi
}
# files ROOT: every file and symlink under ROOT, relative, sorted
files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort); }
# unitkey UNIT KEY: the values of KEY= in UNIT, one a line
unitkey() { sed -n "s/^$2=//p" "$1"; }

kdir=${N3T_KDIR:-$("$top/selftests/vm/build-kernel.sh" | tail -1)}
kver=$(cat "$kdir/include/config/kernel.release" 2>/dev/null)
t kernel-tree test -n "$kver" || exit 0
cross=(KDIR="$kdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
# the tree as committed plus what is not ignored, like check.sh's copies
copy() {
	mkdir -p "$1"
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		git -C "$top" ls-files -co --exclude-standard -z |
			rsync -a --from0 --files-from=- "$top/" "$1/"
	else
		rsync -a --exclude /build --exclude .git "$top/" "$1/"
	fi
}
copy "$out/src"
src=$out/src
abi=$(cd "$src/Documentation/ABI/testing" && printf '%s\n' *n3telemetry*)
version=$(sed -n 's/^#define N3T_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/module/n3telemetry.h")

# 1. make install, cross (module and n3tel for arm64), default PREFIX
root=$out/root
make -C "$src" "${cross[@]}" DESTDIR="$root" install > "$out/install.log" 2>&1
rc=$?
t install-cross-runs test $rc = 0 || tail -20 "$out/install.log"
{
	echo "lib/modules/$kver/updates/module/n3telemetry.ko"
	for f in alias alias.bin builtin.alias.bin builtin.bin dep dep.bin devname \
		softdep symbols symbols.bin; do
		echo "lib/modules/$kver/modules.$f"
	done
	echo usr/local/bin/n3tel
	echo usr/local/lib/systemd/system/n3tel-textfile.service
	for f in $abi; do echo "usr/local/share/doc/n3telemetry/ABI/testing/$f"; done
	echo usr/local/share/doc/n3telemetry/examples/modprobe.d/n3telemetry.conf
	echo usr/local/share/doc/n3telemetry/examples/modules-load.d/n3telemetry.conf
	echo usr/local/share/doc/n3telemetry/n3telemetry.rst
	echo usr/local/share/n3telemetry/n3telemetry-dashboard.json
	echo usr/local/share/n3telemetry/n3telemetry.rules.yml
} | LC_ALL=C sort > "$out/want-files"
files "$root" > "$out/got-files"
same install-cross-files "$out/want-files" "$out/got-files"
mod=$root/lib/modules/$kver/updates/module/n3telemetry.ko
t install-module-vermagic test "$(modinfo -F vermagic "$mod" 2>/dev/null)" = "$kver SMP mod_unload aarch64"
t install-depmod-lists-module test "$(cat "$root/lib/modules/$kver/modules.dep")" = "updates/module/n3telemetry.ko:"
# what 'modprobe n3telemetry' would run on the installed tree
t install-modprobe-finds-module test \
	"$(modprobe -d "$root" -S "$kver" --show-depends n3telemetry 2>&1)" = "insmod $mod "
t install-cross-n3tel-aarch64 sh -c "readelf -h '$root/usr/local/bin/n3tel' | grep -q 'Machine:.*AArch64' &&
	! readelf -l '$root/usr/local/bin/n3tel' | grep -q INTERP && test -x '$root/usr/local/bin/n3tel'"
unit=$root/usr/local/lib/systemd/system/n3tel-textfile.service
t unit-execstart-default test "$(unitkey "$unit" ExecStart)" = \
	"/usr/local/bin/n3tel textfile --dir /var/lib/prometheus/node-exporter --every 15"
# every Documentation= of the installed unit is a file make install put there
docs_ok() {	# docs_ok UNIT ROOT
	local d n=0
	for d in $(unitkey "$1" Documentation); do
		case $d in file://*) ;; *) return 1 ;; esac
		[ -f "$2${d#file://}" ] || { echo "missing: $2${d#file://}"; return 1; }
		n=$((n + 1))
	done
	[ $n -ge 2 ]
}
t unit-documentation-installed docs_ok "$unit" "$root"
t install-data-identical sh -c "cmp '$src/Documentation/n3telemetry.rst' '$root/usr/local/share/doc/n3telemetry/n3telemetry.rst' &&
	cmp '$src/tools/prometheus/n3telemetry.rules.yml' '$root/usr/local/share/n3telemetry/n3telemetry.rules.yml' &&
	cmp '$src/tools/grafana/n3telemetry-dashboard.json' '$root/usr/local/share/n3telemetry/n3telemetry-dashboard.json'"
# nothing loads the module at boot unless asked: modules-load.d only as an example
t install-no-boot-load sh -c "! find '$root' -path '*modules-load.d/*' -not -path '*/examples/*' | grep -q ."

make -C "$src" "${cross[@]}" DESTDIR="$root" uninstall > "$out/uninstall.log" 2>&1
rc=$?
t uninstall-cross-runs test $rc = 0 || tail -20 "$out/uninstall.log"
files "$root" > "$out/got-after-uninstall"
same uninstall-leaves-nothing /dev/null "$out/got-after-uninstall"
t uninstall-removes-our-dirs sh -c "! ls -d '$root/usr/local/share/n3telemetry' '$root/usr/local/share/doc/n3telemetry' \
	'$root/lib/modules/$kver' 2>/dev/null | grep -q ."

# 2. a tree with a kernel already there (as on a server): install adds the
# module to its modules.dep, uninstall takes it out and keeps the kernel's files
kroot=$out/kroot
kmod=$kroot/lib/modules/$kver
mkdir -p "$kmod/kernel"
cp "$kdir/modules.builtin" "$kdir/modules.builtin.modinfo" "$kdir/modules.order" "$kmod/"
make -C "$src" "${cross[@]}" INSTALL_MOD_PATH="$kroot" install-module > "$out/install-kroot.log" 2>&1
rc=$?
t install-mod-path-runs test $rc = 0 || tail -20 "$out/install-kroot.log"
t install-mod-path-module sh -c "test -f '$kmod/updates/module/n3telemetry.ko' &&
	grep -qx 'updates/module/n3telemetry.ko:' '$kmod/modules.dep'"
make -C "$src" "${cross[@]}" INSTALL_MOD_PATH="$kroot" uninstall-module > "$out/uninstall-kroot.log" 2>&1
rc=$?
t uninstall-mod-path-runs test $rc = 0 || tail -20 "$out/uninstall-kroot.log"
t uninstall-mod-path-depmod-ran sh -c "test -f '$kmod/modules.dep' && ! grep -q n3telemetry '$kmod/modules.dep' &&
	! test -e '$kmod/updates'"
t uninstall-mod-path-keeps-kernel sh -c "cmp -s '$kdir/modules.builtin' '$kmod/modules.builtin' &&
	cmp -s '$kdir/modules.order' '$kmod/modules.order' && test -d '$kmod/kernel'"

# a KVER that is not KDIR's release is refused before anything is installed
make -C "$src" "${cross[@]}" KVER=0.0-other DESTDIR="$out/wrong" install-module \
	> "$out/wrong.out" 2> "$out/wrong.err"
rc=$?
t install-kver-mismatch-refused sh -c "test $rc != 0 && ! test -e '$out/wrong' &&
	grep -qx 'KVER=0.0-other but KDIR=$kdir is $kver: give one of them' '$out/wrong.err'" ||
	cat "$out/wrong.err"

# 3. n3tel for this host, PREFIX=/usr and another textfile directory: the
# unit names what was installed, and n3tel runs
proot=$out/proot
env -u ARCH -u CROSS_COMPILE make -C "$src" DESTDIR="$proot" PREFIX=/usr \
	TEXTFILE_DIR=/srv/textfile install-n3tel install-data > "$out/install-usr.log" 2>&1
rc=$?
t install-prefix-usr-runs test $rc = 0 || tail -20 "$out/install-usr.log"
punit=$proot/usr/lib/systemd/system/n3tel-textfile.service
t unit-execstart-prefix test "$(unitkey "$punit" ExecStart)" = \
	"/usr/bin/n3tel textfile --dir /srv/textfile --every 15"
t unit-writes-textfile-dir test "$(unitkey "$punit" ReadWritePaths)" = /srv/textfile
t unit-skipped-without-textfile-dir test "$(unitkey "$punit" ConditionPathIsDirectory)" = /srv/textfile
t unit-documentation-prefix docs_ok "$punit" "$proot"
"$proot/usr/bin/n3tel" --help > "$out/help.out" 2>&1
rc=$?
t installed-n3tel-runs sh -c "test $rc = 0 && head -1 '$out/help.out' | grep -q '^usage: n3tel '"
env -u ARCH -u CROSS_COMPILE make -C "$src" DESTDIR="$proot" PREFIX=/usr \
	TEXTFILE_DIR=/srv/textfile uninstall-n3tel uninstall-data > "$out/uninstall-usr.log" 2>&1
files "$proot" > "$out/got-proot"
same uninstall-prefix-usr-leaves-nothing /dev/null "$out/got-proot"

# 4. systemd-analyze on the unit as installed, with no DESTDIR so that
# verify finds its ExecStart
vroot=$out/prefix
env -u ARCH -u CROSS_COMPILE make -C "$src" PREFIX="$vroot" install-n3tel install-data \
	> "$out/install-prefix.log" 2>&1 || tail -20 "$out/install-prefix.log"
vunit=$vroot/lib/systemd/system/n3tel-textfile.service
systemd-analyze verify "$vunit" > "$out/verify.out" 2>&1
rc=$?
t unit-verify-clean sh -c "test $rc = 0 && ! grep -q . '$out/verify.out'" || cat "$out/verify.out"
systemd-analyze security --offline=yes "$vunit" > "$out/security.out" 2>&1
exposure=$(sed -n 's/.*Overall exposure level for n3tel-textfile.service: \([0-9.]*\) .*/\1/p' "$out/security.out")
echo "# systemd-analyze security: exposure ${exposure:-?}"
t unit-security-exposure-at-most-2.0 awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 <= 2.0) }' ||
	grep '✗' "$out/security.out" | head -20

# n3tel textfile (this host's build, a fixture tree, two rounds, then
# SIGTERM like systemctl stop) makes no system call the unit's
# SystemCallFilter= refuses
ref=${N3T_ARM_TELEMETRY:-$top/../shared/reference/arm-telemetry}
N3T_ARM_TELEMETRY=$ref python3 "$src/selftests/host/mkfixture.py" "$out/fixture" good > /dev/null
mkdir -p "$out/textfile"
# shellcheck disable=SC2016
strace -f -qq -o "$out/strace.txt" sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$out/n3tel.pid" \
	"$vroot/bin/n3tel" --sysfs "$out/fixture" textfile --dir "$out/textfile" --every 1 \
	> "$out/textfile.log" 2>&1 &
spid=$!
sleep 2.5
kill -TERM "$(cat "$out/n3tel.pid")"
wait "$spid"
syscalls_allowed() {	# syscalls_allowed UNIT STRACE-LOG
	python3 - "$@" <<'EOF'
import re, subprocess, sys
unit, log = sys.argv[1:]
groups, cur = {}, None
for line in subprocess.run(['systemd-analyze', 'syscall-filter'], capture_output=True,
			   text=True, check=True).stdout.splitlines():
	if line.startswith('@'):
		cur = groups.setdefault(line.strip(), set())
	elif cur is not None and line.strip() and not line.strip().startswith('#'):
		cur.add(line.strip())
def expand(names):
	out = set()
	for n in names:
		out |= expand(groups[n]) if n.startswith('@') else {n}
	return out
allowed = expand({'@default'})	# systemd always allows @default
for line in open(unit):
	if line.startswith('SystemCallFilter='):
		v = line.split('=', 1)[1].split()
		if v[0].startswith('~'):
			allowed -= expand({v[0][1:]} | set(v[1:]))
		else:
			allowed |= expand(v)
# from n3tel's execve on (before it, the shell that wrote the pid)
used, seen = set(), False
for l in open(log):
	seen = seen or re.match(r'\d+\s+execve\(".*/n3tel"', l) is not None
	m = re.match(r'\d+\s+(\w+)\(', l)
	if seen and m:
		used.add(m.group(1))
if not used or 'write' not in used:
	sys.exit('no system call traced')
refused = sorted(used - allowed)
if refused:
	sys.exit('refused by the filter: ' + ' '.join(refused))
EOF
}
filter_ok() { test -s "$out/textfile/n3telemetry.prom" && syscalls_allowed "$vunit" "$out/strace.txt"; }
t unit-syscall-filter-allows-n3tel filter_ok

# 5. dkms.conf, read the way dkms reads it, and its MAKE line run in a fresh copy
# dkms.conf uses the variables dkms sets before it sources the file
# shellcheck disable=SC1091,SC2034
dkms_read() {	# dkms_read VAR...: print VAR=value after sourcing dkms.conf
	(
		kernelver=$kver arch=aarch64 kernel_source_dir=$kdir
		dkms_tree=/var/lib/dkms source_tree=/usr/src
		. "$src/dkms.conf" || exit 1
		for v in "$@"; do printf '%s=%s\n' "$v" "${!v-}"; done
	)
}
t dkms-conf-parses bash -n "$src/dkms.conf"
t dkms-version-matches-module test "$(dkms_read PACKAGE_NAME PACKAGE_VERSION)" = \
	"$(printf 'PACKAGE_NAME=n3telemetry\nPACKAGE_VERSION=%s' "$version")"
excl=$(dkms_read BUILD_EXCLUSIVE_ARCH)
excl=${excl#*=}
t dkms-arm64-only sh -c "[ -n '$excl' ]" &&
	t dkms-arch-aarch64-builds bash -c "[[ aarch64 =~ $excl ]]" &&
	t dkms-arch-x86_64-excluded bash -c "! [[ x86_64 =~ $excl ]] && ! [[ armv7l =~ $excl ]]"
# the oldest kernel: DKMS 3.1's KERNEL_MIN, and the pattern older DKMS reads
kmin=$(dkms_read BUILD_EXCLUSIVE_KERNEL_MIN BUILD_EXCLUSIVE_KERNEL)
kpat=${kmin#*BUILD_EXCLUSIVE_KERNEL=}
kmin_ok() {	# kmin_ok: 5.10 the minimum; the pattern agrees with it
	local v
	grep -qx 'BUILD_EXCLUSIVE_KERNEL_MIN=5.10' <<< "$kmin" || { echo "$kmin"; return 1; }
	for v in 5.10.0-32-arm64 5.15.0-100-generic 6.1.0-56-arm64 6.12.117 7.3.4+bpo-arm64 \
		10.1.0-1-arm64; do
		[[ $v =~ $kpat ]] || { echo "$v refused by $kpat"; return 1; }
	done
	for v in 4.19.0-27-arm64 5.4.0-200-generic 5.9.16 3.10.0-1160.el7.aarch64; do
		! [[ $v =~ $kpat ]] || { echo "$v allowed by $kpat"; return 1; }
	done
}
t dkms-kernel-min-5.10 kmin_ok
cfg=$(dkms_read BUILD_EXCLUSIVE_CONFIG)
cfg_ok() {	# every option of BUILD_EXCLUSIVE_CONFIG is set in the 6.12 tree
	local o
	[ -n "${cfg#*=}" ] || return 1
	for o in ${cfg#*=}; do grep -Eq "^$o=[ym]" "$kdir/.config" || { echo "missing $o"; return 1; }; done
}
t dkms-config-allows-6.12 cfg_ok
copy "$out/dkms"
# shellcheck disable=SC1091,SC2034
(
	cd "$out/dkms" && export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	kernelver=$kver arch=aarch64 kernel_source_dir=$kdir
	. ./dkms.conf && eval "${MAKE[0]}" && test -f "${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko" &&
		test "$(modinfo -F vermagic "${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko")" = \
			"$kver SMP mod_unload aarch64"
) > "$out/dkms.log" 2>&1
t dkms-make-builds-module test $? = 0 || tail -20 "$out/dkms.log"
