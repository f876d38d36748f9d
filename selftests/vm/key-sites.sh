#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# key-sites.sh MODULE.ko: the static keys whose sites (jump labels) are in
# the module's text, one a line; exits 1 if there is any but arm64's CPU
# capability keys (arm64_const_caps_ready, cpu_hwcap_keys), which the
# kernel's own inline helpers leave there on 5.10 (local_irq_save() and
# the like: not the module's to avoid).  Loading text with a site of a key
# that is enabled makes the kernel patch it, which arm64 follows with an
# IPI to every CPU (kick_all_cpus_sync()), isolated ones included: seen on
# 7.3, where a cpuset isolated partition enables housekeeping_overridden,
# whose sites the inline housekeeping_cpu() left.
set -euo pipefail
keys=$(aarch64-linux-gnu-readelf -W -r "$1" |
	awk '/^Relocation section .*__jump_table/ { p = 1; next } /^Relocation section/ { p = 0 }
		p && $1 ~ /^[0-9a-f]+$/ && $5 !~ /^\.text/ { print $5 }' | sort -u)
[ -z "$keys" ] || echo "$keys"
! grep -vxE 'arm64_const_caps_ready|cpu_hwcap_keys' <<< "$keys" | grep -q .
