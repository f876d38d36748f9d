#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian arm64 system with systemd for the end-to-end test (e2e.sh):
#   rootfs.sh [SUITE]     bookworm (the default) or trixie
# the suite's arm64 kernel (bookworm: the 6.1 in the cloud flavour, as
# distro-kernel.sh cloud fetches it: its 992 modules rather than the generic
# flavour's 3,685 are what depmod reads under emulation at DKMS's install
# and removal, as upgrade-debs.sh says; trixie: the 6.12
# suite-kernel.sh fetches) with its linux-headers, gcc,
# make, dkms, prometheus-node-exporter and openssh-server (trixie: openssl
# too, which n3telemetry-dkms recommends, so that DKMS signs), as a qcow2
# disk image, built from Debian's packages by mmdebstrap (SUITE, -updates,
# -security) in a directory, every maintainer script run in the
# chroot by QEMU's user-mode emulator (qemu-user-static) through binfmt_misc,
# then mke2fs -d (no mount, no loop device).  binfmt_misc is mounted and
# qemu-aarch64 registered for the build only, and the host left as it was.
# (A second stage in qemu-system-aarch64 was tried first: dpkg under full
# system emulation took over 40 minutes.)
# Cached like the kernels, keyed by the suite, the kernel ABI and this
# script; built once under a lock.  Prints the cache directory as its last
# line: disk.qcow2 (the base image: use it as a backing file, never write
# it), vmlinuz and initrd.img (from the image's /boot), id_ed25519 (root's
# ssh key), abi (the kernel's release).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
suite=${1:-bookworm}
case $suite in
bookworm)
	ddir=$("$here/distro-kernel.sh" cloud | tail -1)
	abi=${ddir##*/distro-}		# 6.1.0-NN-cloud-arm64, what distro-kernel.sh fetched
	extra= ;;
trixie)
	# the kernel make matrix boots for trixie (6.12.NN+deb13-arm64); its
	# kbuild needs pahole
	abi=$(sed -n 's/^ABI=//p' "$("$here/suite-kernel.sh" trixie | tail -1)/n3t-kernel.env")
	extra=,openssl,pahole ;;
*) echo "rootfs: unknown suite $suite (bookworm, trixie)" >&2; exit 2 ;;
esac
[ -n "$abi" ] || { echo "rootfs: no kernel for $suite" >&2; exit 1; }
hash=$(sha256sum < "$0" | cut -c1-12)
out="$cache/rootfs-$suite-$abi-$hash"
PKGS="systemd,systemd-sysv,udev,dbus,kmod,procps,iproute2,\
openssh-server,initramfs-tools,linux-image-$abi,linux-headers-$abi,\
gcc,make,libc6-dev,dkms,prometheus-node-exporter,wireless-regdb$extra"

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
exec 9> "$cache/rootfs.lock"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
t0=$(date +%s)
echo "rootfs: building Debian $suite arm64 with $abi in $out" >&2
rm -rf "$out" && mkdir -p "$out"
tree=$out/tree

# arm64 programs through qemu-user, for this build only
bm=/proc/sys/fs/binfmt_misc
mounted= registered=
undo_binfmt() {
	[ -z "$registered" ] || echo -1 > "$bm/qemu-aarch64" || true
	[ -z "$mounted" ] || umount "$bm" || true
}
trap undo_binfmt EXIT
if [ ! -e "$bm/register" ]; then
	mount -t binfmt_misc binfmt_misc "$bm"
	mounted=1
fi
if [ ! -e "$bm/qemu-aarch64" ]; then
	cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$bm/register"
	registered=1
fi

# files the packages' scripts find in place
setup=$out/setup
mkdir -p "$setup/etc/systemd/network" "$setup/root/.ssh" "$setup/etc/initramfs-tools/conf.d"
echo n3t-e2e > "$setup/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tn3t-e2e\n' > "$setup/etc/hosts"
echo '/dev/vda / ext4 errors=remount-ro 0 1' > "$setup/etc/fstab"
# a journal without errors of the image's own (sshd's pam_env reads this;
# a kernel with cfg80211, trixie's, looks for wireless-regdb's
# regulatory.db at boot; bookworm's cloud kernel has no wireless)
mkdir -p "$setup/etc/default"
echo LANG=C.UTF-8 > "$setup/etc/default/locale"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' > "$setup/etc/systemd/network/10-n3t.network"
# the initramfs: QEMU's virt board only (mkinitramfs runs in the chroot)
mkdir -p "$setup/etc/initramfs-tools/hooks"
echo MODULES=list > "$setup/etc/initramfs-tools/conf.d/n3t-e2e"
cat > "$setup/etc/initramfs-tools/hooks/n3t-e2e" <<'EOF'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
. /usr/share/initramfs-tools/hook-functions
manual_add_modules virtio_pci virtio_blk ext4
EOF
chmod 755 "$setup/etc/initramfs-tools/hooks/n3t-e2e"
ssh-keygen -q -t ed25519 -N '' -C n3t-e2e -f "$out/id_ed25519"
cp "$out/id_ed25519.pub" "$setup/root/.ssh/authorized_keys"
chmod 700 "$setup/root/.ssh" && chmod 600 "$setup/root/.ssh/authorized_keys"

mmdebstrap --variant=minbase --architectures=arm64 --include="$PKGS" \
	--setup-hook="cp -a '$setup/.' \"\$1/\"" \
	--customize-hook='chroot "$1" systemctl enable systemd-networkd' \
	--customize-hook='chroot "$1" passwd -d root' \
	"$suite" "$tree" > "$out/mmdebstrap.log" 2>&1 ||
	{ tail -30 "$out/mmdebstrap.log" >&2; exit 1; }
undo_binfmt
trap - EXIT
echo "rootfs: mmdebstrap done ($(( $(date +%s) - t0 ))s)" >&2
[ -s "$tree/boot/initrd.img-$abi" ] || { echo "rootfs: no initramfs in /boot" >&2; exit 1; }
cp "$tree/boot/vmlinuz-$abi" "$out/vmlinuz"
cp "$tree/boot/initrd.img-$abi" "$out/initrd.img"
mke2fs -q -t ext4 -L n3troot -d "$tree" "$out/disk.raw" 4G
rm -rf "$tree" "$setup"
qemu-img convert -O qcow2 "$out/disk.raw" "$out/disk.qcow2"
rm -f "$out/disk.raw"
echo "$abi" > "$out/abi"
echo "rootfs: done in $(( $(date +%s) - t0 ))s" >&2
touch "$out/.done"
echo "$out"
