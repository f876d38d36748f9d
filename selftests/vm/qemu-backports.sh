#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU of Debian bookworm-backports (10.0.x: -cpu neoverse-n1, -v1, -n2),
# downloaded and extracted into the cache, never installed on the host.
# Prints the path of a runnable qemu-system-aarch64 on its last line (a
# wrapper setting LD_LIBRARY_PATH when libraries the host lacks had to be
# extracted too); exits non-zero, saying why on stderr, when it cannot.
# Needs the bookworm-backports apt source and package lists (deps.sh).
set -euo pipefail
cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
die() { echo "qemu-backports: $*" >&2; exit 1; }

ver=$(apt-cache show qemu-system-arm/bookworm-backports 2>/dev/null |
	sed -n 's/^Version: //p' | head -1) || true
[ -n "$ver" ] || die "no qemu-system-arm in bookworm-backports (apt source or package lists missing?)"
dir=$cache/qemu-backports-${ver#*:}
if [ -x "$dir/qemu-system-aarch64" ] && "$dir/qemu-system-aarch64" --version >/dev/null 2>&1; then
	echo "$dir/qemu-system-aarch64"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
chmod 777 "$dir/debs"	# apt-get download as root fetches as _apt
# What installing it would bring, dependencies the host lacks included:
# apt resolves them (simulation only, no root needed).
mapfile -t pkgs < <(apt-get -s -q install --no-install-recommends \
	qemu-system-arm/bookworm-backports 2>/dev/null |
	awk '$1 == "Inst" { v = $3; if (v ~ /^\[/) v = $4; gsub(/[()]/, "", v); print $2 "=" v }')
[ ${#pkgs[@]} -gt 0 ] || pkgs=("qemu-system-arm=$ver" "qemu-system-common=$ver" "qemu-system-data=$ver")
echo "qemu-backports: downloading ${pkgs[*]}" >&2
(cd "$dir/debs" && apt-get download -q "${pkgs[@]}" >&2) || die "apt-get download failed"
libs=
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
	case $(basename "$deb") in qemu-*) ;; *) libs=1 ;; esac
done
bin=$dir/root/usr/bin/qemu-system-aarch64
[ -x "$bin" ] || die "no qemu-system-aarch64 in the extracted packages"

# The wrapper: the extracted libraries first, the extracted firmware and data.
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
{
	echo '#!/bin/sh'
	echo "# QEMU $ver from bookworm-backports, extracted by qemu-backports.sh"
	if [ -n "$libs" ]; then
		echo "LD_LIBRARY_PATH='$dir/root/usr/lib/$triplet:$dir/root/lib/$triplet'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
		echo 'export LD_LIBRARY_PATH'
	fi
	echo "exec '$bin' -L '$dir/root/usr/share/qemu' \"\$@\""
} > "$dir/qemu-system-aarch64.tmp"
chmod 755 "$dir/qemu-system-aarch64.tmp"
if missing=$(LD_LIBRARY_PATH=${libs:+$dir/root/usr/lib/$triplet:$dir/root/lib/$triplet} \
	ldd "$bin" | grep 'not found'); then
	die "libraries still missing: $missing"
fi
"$dir/qemu-system-aarch64.tmp" --version >&2 || die "the extracted QEMU does not run"
mv "$dir/qemu-system-aarch64.tmp" "$dir/qemu-system-aarch64"
rm -rf "$dir/debs"
echo "$dir/qemu-system-aarch64"
