#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest programs make bench compares the module with: Debian's arm64
# linux-perf and prometheus-node-exporter, downloaded with apt-get download
# and unpacked with dpkg-deb -x (never installed), with just the shared
# libraries they load (their ELF NEEDED entries, followed recursively).
# Prints the directory to copy into the initramfs as its last line.
set -euo pipefail

cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
out=$cache/bench-guest
if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/debs" "$out/x" "$out/root/usr/bin" "$out/root/lib/aarch64-linux-gnu"
chmod 777 "$out/debs"

# Every arm64 library package in the dependency closure; only the libraries
# the two binaries need are kept below.
mapfile -t pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances \
	linux-perf:arm64 prometheus-node-exporter:arm64 2>/dev/null |
	grep -E '^(lib[^ ]*|zlib1g):arm64$' |
	grep -vE -- '-(stdlib|minimal|common|modules|data)(:|$)' | sort -u)
echo "bench-deps: fetching linux-perf, prometheus-node-exporter and ${#pkgs[@]} library packages" >&2
(cd "$out/debs" && apt-get download -q linux-perf:arm64 prometheus-node-exporter:arm64 \
	"${pkgs[@]}" >&2)
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/x"; done

cp "$out/x/usr/bin/perf" "$out/x/usr/bin/prometheus-node-exporter" "$out/root/usr/bin/"
cp -L "$out/x/lib/ld-linux-aarch64.so.1" "$out/root/lib/"

# lib NAME: where the unpacked packages have it
lib() {
	local d
	for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
		[ -e "$out/x/$d/$1" ] && { echo "$out/x/$d/$1"; return 0; }
	done
	return 1
}
todo=("$out/root/usr/bin/perf" "$out/root/usr/bin/prometheus-node-exporter")
while [ ${#todo[@]} -gt 0 ]; do
	f=${todo[0]}
	todo=("${todo[@]:1}")
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ "$n" = ld-linux-aarch64.so.1 ] && continue
		dst=$out/root/lib/aarch64-linux-gnu/$n
		[ -e "$dst" ] && continue
		src=$(lib "$n") || { echo "bench-deps: $n not found in the packages" >&2; exit 1; }
		cp -L "$src" "$dst"
		todo+=("$dst")
	done
done
rm -rf "$out/x"
echo "bench-deps: $(du -sh "$out/root" | cut -f1) of binaries and libraries in $out/root" >&2
touch "$out/.done"
echo "$out"
