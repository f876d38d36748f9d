# SPDX-License-Identifier: GPL-2.0
# Expected metric values, computed here from the N3 specification's formulas
# (independently of the module).  -v slots=5 either way.
#  - one metric: input one line of NAME=count pairs (or -v one=1 -v vec=
#    them, and no input is read), -v m= a metric name; prints the value
#    rounded like the module, or nan;
#  - a whole group file (lib.sh's group_is, one process for the group):
#    -v grp=1, -v vec= the NAME=count pairs (or "nan": every value must be
#    nan), -v label= and -v group= for the messages, input the group file;
#    prints
#    "# LABEL: GROUP/METRIC GOT, want VALUE" for each line whose value (the
#    rest of the line) is not the expected one, then "n3t-bad COUNT"; with
#    -v pairs=1, "GROUP METRIC WANT GOT" for every line instead (GROUP the
#    file's name; a blank line is "GROUP (blank) a-metric (blank)"), for
#    the caller to judge, then "n3t-lines COUNT" (no such last line: awk
#    stopped early, and the lines after were never judged);
#  - a library: with neither m nor grp, the functions alone (setvec, expect,
#    rest), for a program that follows it.
function r(x, d,   p, q, j, f) {
	p = 1
	for (j = 0; j < d; j++)
		p *= 10
	q = int((x < 0 ? -x : x) * p + 0.5)
	f = sprintf("%d", q % p)
	while (length(f) < d)
		f = "0" f
	return sprintf("%s%d.%s", x < 0 && q ? "-" : "", int(q / p), f)
}
function div(a, b) { if (b == 0) { undef = 1; return 0 } return a / b }
# setvec LINE: the counts of LINE's NAME=count pairs into E
function setvec(line,   n, i, f, kv, k) {
	for (k in E)
		delete E[k]
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) {
		split(f[i], kv, "=")
		E[kv[1]] = kv[2] + 0
	}
}
# expect M: metric M's value over E, rounded like the module; nan when
# undefined, "unknown-metric" when M is not one of the spec's
function expect(m,   S, C, v, d) {
	S = slots ? slots : 5
	C = E["CPU_CYCLES"]
	undef = 0
	if (m == "frontend_bound") { v = (div(E["STALL_SLOT_FRONTEND"], S * C) - div(E["STALL_FRONTEND_FLUSH"], C)) * 100; d = 2 }
	else if (m == "backend_bound") { v = div(E["STALL_SLOT_BACKEND"], S * C) * 100; d = 2 }
	else if (m == "retiring") { v = (1 - div(E["STALL_SLOT"], S * C)) * div(E["OP_RETIRED"], E["OP_SPEC"]) * 100; d = 2 }
	else if (m == "bad_speculation") { v = (1 - div(E["STALL_SLOT"], S * C)) * (1 - div(E["OP_RETIRED"], E["OP_SPEC"])) * 100 + div(E["STALL_FRONTEND_FLUSH"], C) * 100; d = 2 }
	else if (m == "frontend_core_bound") { v = div(E["STALL_FRONTEND_CPUBOUND"], E["STALL_FRONTEND"]) * 100; d = 2 }
	else if (m == "frontend_mem_bound") { v = div(E["STALL_FRONTEND_MEMBOUND"], E["STALL_FRONTEND"]) * 100; d = 2 }
	else if (m == "frontend_core_flush_bound") { v = div(E["STALL_FRONTEND_FLUSH"], E["STALL_FRONTEND_CPUBOUND"]) * 100; d = 2 }
	else if (m == "frontend_core_flow_bound") { v = div(E["STALL_FRONTEND_FLOW"], E["STALL_FRONTEND_CPUBOUND"]) * 100; d = 2 }
	else if (m == "frontend_mem_cache_bound") { v = div(E["STALL_FRONTEND_L1I"] + E["STALL_FRONTEND_MEM"], E["STALL_FRONTEND_MEMBOUND"]) * 100; d = 2 }
	else if (m == "frontend_mem_tlb_bound") { v = div(E["STALL_FRONTEND_TLB"], E["STALL_FRONTEND_MEMBOUND"]) * 100; d = 2 }
	else if (m == "frontend_cache_l1i_bound") { v = div(E["STALL_FRONTEND_L1I"], E["STALL_FRONTEND_L1I"] + E["STALL_FRONTEND_MEM"]) * 100; d = 2 }
	else if (m == "frontend_cache_l2i_bound") { v = div(E["STALL_FRONTEND_MEM"], E["STALL_FRONTEND_L1I"] + E["STALL_FRONTEND_MEM"]) * 100; d = 2 }
	else if (m == "backend_core_bound") { v = div(E["STALL_BACKEND_CPUBOUND"], E["STALL_BACKEND"]) * 100; d = 2 }
	else if (m == "backend_mem_bound") { v = div(E["STALL_BACKEND_MEMBOUND"], E["STALL_BACKEND"]) * 100; d = 2 }
	else if (m == "backend_core_rename_bound") { v = div(E["STALL_BACKEND_RENAME"], E["STALL_BACKEND_CPUBOUND"]) * 100; d = 2 }
	else if (m == "backend_busy_bound") { v = div(E["STALL_BACKEND_BUSY"], E["STALL_BACKEND"]) * 100; d = 2 }
	else if (m == "backend_mem_cache_bound") { v = div(E["STALL_BACKEND_L1D"] + E["STALL_BACKEND_MEM"], E["STALL_BACKEND_MEMBOUND"]) * 100; d = 2 }
	else if (m == "backend_mem_tlb_bound") { v = div(E["STALL_BACKEND_TLB"], E["STALL_BACKEND_MEMBOUND"]) * 100; d = 2 }
	else if (m == "backend_mem_store_bound") { v = div(E["STALL_BACKEND_ST"], E["STALL_BACKEND_MEMBOUND"]) * 100; d = 2 }
	else if (m == "backend_cache_l1d_bound") { v = div(E["STALL_BACKEND_L1D"], E["STALL_BACKEND_L1D"] + E["STALL_BACKEND_MEM"]) * 100; d = 2 }
	else if (m == "backend_cache_l2d_bound") { v = div(E["STALL_BACKEND_MEM"], E["STALL_BACKEND_L1D"] + E["STALL_BACKEND_MEM"]) * 100; d = 2 }
	else if (m == "ipc") { v = div(E["INST_RETIRED"], C); d = 3 }
	else if (m == "l1i_cache_mpki") { v = div(E["L1I_CACHE_REFILL"], E["INST_RETIRED"]) * 1000; d = 3 }
	else if (m == "l1i_cache_miss_ratio") { v = div(E["L1I_CACHE_REFILL"], E["L1I_CACHE"]); d = 4 }
	else if (m == "l1d_cache_mpki") { v = div(E["L1D_CACHE_REFILL"], E["INST_RETIRED"]) * 1000; d = 3 }
	else if (m == "l1d_cache_miss_ratio") { v = div(E["L1D_CACHE_REFILL"], E["L1D_CACHE"]); d = 4 }
	else if (m == "l2_cache_mpki") { v = div(E["L2D_CACHE_REFILL"], E["INST_RETIRED"]) * 1000; d = 3 }
	else if (m == "l2_cache_miss_ratio") { v = div(E["L2D_CACHE_REFILL"], E["L2D_CACHE"]); d = 4 }
	else if (m == "ll_cache_read_mpki") { v = div(E["LL_CACHE_MISS_RD"], E["INST_RETIRED"]) * 1000; d = 3 }
	else if (m == "ll_cache_read_miss_ratio") { v = div(E["LL_CACHE_MISS_RD"], E["LL_CACHE_RD"]); d = 4 }
	else if (m == "ll_cache_read_hit_ratio") { v = div(E["LL_CACHE_RD"] - E["LL_CACHE_MISS_RD"], E["LL_CACHE_RD"]); d = 4 }
	else return "unknown-metric"
	return undef ? "nan" : r(v, d)
}
BEGIN {
	if (one) {	# one metric over -v vec= (lib.sh's want)
		setvec(vec)
		v = expect(m)
		print v
		exit v == "unknown-metric"
	}
	if (grp && vec != "nan")
		setvec(vec)
}
# rest: the current line but its first field (as the shell's read -r M REST)
function rest(   g) {
	g = $0
	sub(/^[ \t]*[^ \t]+[ \t]*/, "", g)
	sub(/[ \t]+$/, "", g)
	return g
}
grp {
	got = rest()
	w = vec == "nan" ? "nan" : expect($1)
	if (pairs) {
		nf = split(FILENAME, fp, "/")
		if ($1 == "")
			print fp[nf], "(blank)", "a-metric", "(blank)"
		else
			print fp[nf], $1, w, got
	} else if (got != w) {
		print "# " label ": " group "/" $1 " " got ", want " w
		bad++
	}
	next
}
m != "" {
	setvec($0)
	v = expect(m)
	print v
	if (v == "unknown-metric")
		exit 1
}
END {
	if (grp && !pairs)
		print "n3t-bad", bad + 0
	else if (grp)
		print "n3t-lines", NR
}
