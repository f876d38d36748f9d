#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the Debian source package and its two arm64 binary packages,
# n3telemetry-dkms and n3tel, built from a clean copy of the tree (what git
# tracks plus what it does not ignore) with debian/ from tools/packaging/debian
# and a debian/changelog written from the one version, N3T_VERSION in
# module/n3telemetry.h.  n3tel is cross-built (dpkg-buildpackage -a arm64,
# aarch64-linux-gnu-gcc); then lintian, which must find no error.
# usage: deb.sh [OUTDIR]   (default build/deb; the packages land there)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/deb}
"$top/selftests/vm/deps.sh" debhelper dh-dkms dpkg-dev gcc-aarch64-linux-gnu libc6:arm64 lintian
version=$(sed -n 's/^#define N3T_VERSION[[:space:]]*"\(.*\)"/\1/p' "$top/module/n3telemetry.h")
[ -n "$version" ] || { echo "deb: no N3T_VERSION in module/n3telemetry.h" >&2; exit 1; }
src=$out/n3telemetry-$version
rm -rf "$out" && mkdir -p "$src"
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$top" ls-files -co --exclude-standard -z | rsync -a --from0 --files-from=- "$top/" "$src/"
	epoch=$(git -C "$top" log -1 --format=%ct)
	rev=$(git -C "$top" describe --always --dirty)
else
	rsync -a --exclude /build --exclude .git "$top/" "$src/"
	epoch=$(stat -c %Y "$top/module/n3telemetry.h")
	rev="no git"
fi
cp -a "$src/tools/packaging/debian" "$src/debian"
cat > "$src/debian/changelog" <<CL
n3telemetry ($version) unstable; urgency=medium

  * n3telemetry $version ($rev), packaged by make deb.

 -- n3telemetry maintainers <maintainers@users.noreply.a-seed-7ef9bf18.example>  $(LC_ALL=C date -R -u -d "@$epoch")
CL
export SOURCE_DATE_EPOCH=$epoch
(cd "$src" && dpkg-buildpackage -a arm64 -us -uc) > "$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
changes=$out/n3telemetry_${version}_arm64.changes
lintian --fail-on error --info "$changes" > "$out/lintian.log" 2>&1 || rc=$?
sed 's/^/lintian: /' "$out/lintian.log"
[ "${rc:-0}" = 0 ] || { echo "deb: lintian found errors" >&2; exit 1; }
ls "$out"/*.deb
