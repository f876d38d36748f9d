/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest counter's advance over a known loop, judged: what kvmguest.c
 * (the bare-metal guest's counters, judged by the VMM) and kvmperf.c (the
 * Linux guest's perf events, judged inside the guest) share.
 */
#ifndef N3T_ADVANCE_H
#define N3T_ADVANCE_H
#include <stdint.h>

#define PLAUSIBLE_FACTOR 16

struct advance {
	uint64_t min, max, total;	/* min starts at UINT64_MAX */
	unsigned int frozen, low, high;
};

/*
 * d, an advance over a loop that takes at least lo: 0 plausible (lo to
 * PLAUSIBLE_FACTOR * lo), 1 not (none, too little or too much)
 */
static inline int advance_judge(struct advance *a, uint64_t d, uint64_t lo)
{
	if (d < a->min)
		a->min = d;
	if (d > a->max)
		a->max = d;
	a->total += d;
	if (!d)
		a->frozen++;
	else if (d < lo)
		a->low++;
	else if (d > lo * PLAUSIBLE_FACTOR)
		a->high++;
	else
		return 0;
	return 1;
}
#endif
