/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lets the pure engine (engine.c) compile unchanged in the kernel and in
 * userspace (the n3tel reader and the host unit tests).  In the kernel it is
 * just the kernel headers; in userspace it supplies the handful of kernel
 * types and helpers the engine uses, with the same semantics.
 */
#ifndef N3T_COMPAT_H
#define N3T_COMPAT_H

#ifdef __KERNEL__
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include "n3t_kcompat.h"	/* tools/include: the userspace stand-ins */
#endif /* __KERNEL__ */

#endif /* N3T_COMPAT_H */
