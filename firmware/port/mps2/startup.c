/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Minimal Cortex-M3 startup for QEMU's mps2-an385: the vector table and a
 * reset handler that copies .data and zeroes .bss.  No C library is linked:
 * the string functions are port/common/string.c.
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
