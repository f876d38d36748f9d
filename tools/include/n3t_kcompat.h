/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel types and helpers the engine
 * (module/engine.c) uses, with the kernel's semantics, so that the engine
 * source compiles unchanged into n3tel and the host tests.
 */
#ifndef N3T_KCOMPAT_H
#define N3T_KCOMPAT_H
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int32_t s32;
typedef int64_t s64;

#define S64_MAX INT64_MAX
#define U64_MAX UINT64_MAX
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BITS_PER_LONG (8 * (int)sizeof(long))
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define fallthrough __attribute__((__fallthrough__))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) min((t)(a), (t)(b))

static inline void __set_bit(unsigned int nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned int nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline bool test_bit(unsigned int nr, const unsigned long *map)
{
	return (map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(long));
}

static inline void bitmap_or(unsigned long *dst, const unsigned long *a,
			     const unsigned long *b, unsigned int nbits)
{
	for (unsigned int i = 0; i < BITS_TO_LONGS(nbits); i++)
		dst[i] = a[i] | b[i];
}

static inline unsigned int bitmap_weight(const unsigned long *a, unsigned int nbits)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < nbits; i++)
		w += test_bit(i, a);
	return w;
}

static inline bool bitmap_subset(const unsigned long *a, const unsigned long *b,
				 unsigned int nbits)
{
	for (unsigned int i = 0; i < nbits; i++)
		if (test_bit(i, a) && !test_bit(i, b))
			return false;
	return true;
}

static inline bool bitmap_empty(const unsigned long *a, unsigned int nbits)
{
	return bitmap_weight(a, nbits) == 0;
}

static inline bool bitmap_equal(const unsigned long *a, const unsigned long *b,
				unsigned int nbits)
{
	return bitmap_subset(a, b, nbits) && bitmap_subset(b, a, nbits);
}

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) < (size); (bit)++) \
		if (test_bit((bit), (addr)))

/* linux/math64.h */
static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define ilog2(n) (63 - __builtin_clzll(n))	/* n > 0 */

/*
 * Exact: the product in 128 bits.  The kernel's is exact too where its
 * callers here use it, but only there on 6.1 (lib/math/div64.c divides
 * a * b in 64 bits when ilog2(a) + ilog2(b) <= 62 and approximates above);
 * engine.c asserts its bound at build time.
 */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif /* N3T_KCOMPAT_H */
