#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An amd64 chroot of one Debian suite, to build the module against that
# suite's arm64 kernel headers with that suite's kbuild tools and cross
# compiler (suite-kernel.sh puts the kernel in it).
#   suite-chroot.sh SUITE             build it (cached), print its directory
#   suite-chroot.sh --run DIR CMD...  run CMD in chroot DIR (/dev, /proc
#                                     bound in a mount namespace of its own)
# SUITE: bullseye, bookworm, trixie, trixie-backports, sid, experimental
# (the last two share sid's base; -backports and experimental add their
# source to the base suite's; stable suites have -updates and -security).  The chroot has arm64 as a foreign
# architecture (its package lists name the arm64 kernels), make, bc and
# the suite's default aarch64 cross gcc; its apt lists are those of the
# day it was built.  Built by mmdebstrap from Debian's archive, once under
# a lock, cached under N3T_CACHE keyed by the suite and rev below.
set -euo pipefail

if [ "${1:-}" = --run ]; then
	dir=$2
	shift 2
	# shellcheck disable=SC2016	# expanded by the inner sh
	exec unshare -m sh -c '
		d=$1; shift
		mount --rbind /dev "$d/dev"
		mount -t proc proc "$d/proc"
		cp -L /etc/resolv.conf "$d/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$d" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' sh "$dir" "$@"
fi

suite=${1:?usage: suite-chroot.sh SUITE | --run DIR CMD...}
case $suite in
bullseye | bookworm | trixie | sid) base=$suite extra= ;;
trixie-backports) base=trixie extra=trixie-backports ;;
experimental) base=sid extra=experimental ;;
*) echo "suite-chroot: unknown suite $suite" >&2; exit 2 ;;
esac
cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
# rev: raise it when what the chroot holds changes (packages, sources)
rev=1
out=$cache/chroot-$suite-r$rev
mirror=http://deb.debian.org/debian

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
exec 9> "$cache/chroot-$suite.lock"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
t0=$(date +%s)
echo "suite-chroot: building $suite (amd64, arm64 lists) in $out" >&2
# never through a mount an interrupted build left behind
rm -rf --one-file-system "$out"
src=("deb $mirror $base main")
# a stable suite's newest kernel is in its -security (a point release's
# in -updates); sid and experimental have neither
if [ "$base" != sid ]; then
	src+=("deb $mirror $base-updates main" "deb $mirror-security $base-security main")
fi
[ -z "$extra" ] || src+=("deb $mirror $extra main")
# Check-Valid-Until: sid's and experimental's Release files are valid a
# week, and the archive served here can be older than that
nice mmdebstrap --mode=root --variant=apt --architectures=amd64,arm64 \
	--include=make,bc,gcc,libc6-dev,gcc-aarch64-linux-gnu,libelf-dev,libssl-dev,kmod,ca-certificates \
	--aptopt='Acquire::Languages "none"' --aptopt='Acquire::Check-Valid-Until "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	"$base" "$out" "${src[@]}" >&2
echo "$suite" > "$out/etc/n3t-suite"
touch "$out/.done"
echo "suite-chroot: $suite built in $(( $(date +%s) - t0 ))s" >&2
echo "$out"
