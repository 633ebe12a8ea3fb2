/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Minimal Cortex-M3 startup for QEMU's mps2-an385: the vector table, a reset
 * handler that copies .data and zeroes .bss, and the string functions
 * the library (and the compiler) may call, so no C library is linked.
 */
#include <stddef.h>
#include <stdint.h>

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
int main(void);

void reset_handler(void);
void fault_handler(void);

__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))(uintptr_t)&__stack_top,
	reset_handler,
	fault_handler,	/* NMI */
	fault_handler,	/* HardFault */
	fault_handler,	/* MemManage */
	fault_handler,	/* BusFault */
	fault_handler,	/* UsageFault */
};

void reset_handler(void)
{
	uint32_t *src = &__data_load, *dst = &__data_start;

	while (dst < &__data_end)
		*dst++ = *src++;
	for (dst = &__bss_start; dst < &__bss_end; dst++)
		*dst = 0;
	main();
	for (;;)
		;
}

void fault_handler(void)
{
	for (;;)
		;
}

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

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
