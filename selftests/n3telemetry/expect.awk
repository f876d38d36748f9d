# SPDX-License-Identifier: GPL-2.0
# Expected metric values, computed here from the N3 specification's formulas
# (independently of the module).  Input: one line of NAME=count pairs; -v m=
# a metric name, -v slots=5.  Prints the value rounded like the module, or nan.
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
{
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		E[kv[1]] = kv[2] + 0
	}
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
	else { print "unknown-metric"; exit 1 }
	print undef ? "nan" : r(v, d)
}
