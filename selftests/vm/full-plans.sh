#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For plans.sh's exact values: on the shapes it loads with every group (1
# counter and the cycle counter, 2 and the cycle counter, 3 without), the
# metrics the packer composes or leaves out ("composed M", "unschedulable
# M" lines), into CORES/<table>.plan-C-CYC.  plans.sh uses them only for a
# plan of N3T_MAX_SETS sets, where which metrics get the last sets is the
# packer's choice; elsewhere it works them out from Arm's event lists.
# usage: full-plans.sh ENGINE-TABLES CORES
set -euo pipefail
for ev in "$2"/*.events; do
	m=$(basename "$ev" .events)
	for cc in "1 1" "2 1" "3 0"; do
		# shellcheck disable=SC2086
		"$1" sets "$m" $cc all | awk '$1 == "composed" || $1 == "unschedulable"' \
			> "$2/$m.plan-${cc// /-}"
	done
done
