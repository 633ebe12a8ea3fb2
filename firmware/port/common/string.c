/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The string functions the library and the compiler call, for every
 * bare-metal port (no C library is linked: port/mps2, an521, stm32h745,
 * rp2040).  memcpy moves words when both pointers are word-aligned, as the
 * rings' payloads and the cores' buffers are (aligned slots and buffers):
 * the copy in and out of a slot is part of what the on-chip benchmark
 * times, so it should not be a byte loop on real silicon.
 * Built with -fno-tree-loop-distribute-patterns so that these loops are
 * not turned back into calls to themselves.
 */
#include <stddef.h>
#include <stdint.h>

/* A word that may alias the bytes it is copied from and to */
typedef uint32_t __attribute__((may_alias)) icb_word;

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if ((((uintptr_t)dp | (uintptr_t)sp) & 3u) == 0) {
		icb_word *dw = (icb_word *)(void *)dp;
		const icb_word *sw = (const icb_word *)(const void *)sp;

		for (; n >= 16; n -= 16, dw += 4, sw += 4) {
			dw[0] = sw[0];
			dw[1] = sw[1];
			dw[2] = sw[2];
			dw[3] = sw[3];
		}
		for (; n >= 4; n -= 4)
			*dw++ = *sw++;
		dp = (uint8_t *)dw;
		sp = (const uint8_t *)sw;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if (dp < sp) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

void *memset(void *d, int c, size_t n)
{
	uint8_t *dp = d;

	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *ap = a, *bp = b;

	for (; n; n--, ap++, bp++)
		if (*ap != *bp)
			return *ap - *bp;
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const uint8_t *p = s;

	for (; n; n--, p++)
		if (*p == (uint8_t)c)
			return (void *)(uintptr_t)p;
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}
