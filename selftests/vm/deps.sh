#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the test rig needs (Debian 12 only), or only
# the packages named as arguments (deb.sh's).
# Prints what it installs; does nothing when everything is present.
set -euo pipefail

PKGS=(
	make gcc bc bison flex cpio xz-utils kmod rsync libelf-dev libssl-dev
	python3 python3-docutils
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-arm
	sparse
	linux-source-6.12
	linux-kbuild-6.1
	prometheus prometheus-node-exporter
	systemd strace	# systemd-analyze and the unit's syscall filter (host/install.sh)
	tmux curl
	# make deb (tools/packaging/deb.sh) and the end-to-end test (e2e.sh)
	debhelper dh-dkms dpkg-dev libc6:arm64 lintian
	mmdebstrap arch-test qemu-user-static e2fsprogs qemu-utils openssh-client
)
[ $# = 0 ] || PKGS=("$@")

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "deps: need root to install: $*" >&2
		exit 1
	fi
}

backports=/etc/apt/sources.list.d/n3telemetry-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	need_root "bookworm-backports source"
	echo "deps: enabling bookworm-backports ($backports)"
	cat > "$backports" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	updated=
else
	updated=
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	need_root "arm64 foreign architecture"
	echo "deps: adding arm64 foreign architecture (used only to download .debs)"
	dpkg --add-architecture arm64
fi

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

# The arm64 package lists are needed for 'apt-get download pkg:arm64'.
if ! ls /var/lib/apt/lists/*_dists_bookworm_main_binary-arm64_Packages* >/dev/null 2>&1 ||
   ! ls /var/lib/apt/lists/*bookworm-backports*Packages* >/dev/null 2>&1; then
	updated=1
fi

if [ ${#missing[@]} -gt 0 ] || [ -n "$updated" ]; then
	need_root "${missing[*]:-package lists}"
	echo "deps: apt-get update"
	apt-get update -qq
fi

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
