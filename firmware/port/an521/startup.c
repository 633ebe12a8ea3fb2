/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Startup for QEMU's mps2-an521, both Cortex-M33 cores from one image.
 *
 * Both cores boot Secure from a vector table at INITSVTOR (SSE-200: both
 * reset to 0x10000000, the Secure alias of SSRAM1 where this image is
 * linked).  CPU0 starts at reset; CPU1 waits in CPUWAIT until CPU0 has
 * written INITSVTOR1 = icb_an521_vectors1 and released it (main.c).  The
 * two tables differ only in the initial stack pointer, so each core runs on
 * its own stack; the one reset handler branches on the CPU_IDENTITY
 * register (0 on CPU0, 1 on CPU1).  CPU0 alone zeroes .bss (.data is
 * linked in place, the ELF loader puts it there), before CPU1 runs.
 *
 * No C library is linked (-nostdlib): the string functions the library and
 * the compiler call are port/common/string.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "an521.h"

extern uint32_t __stack0_top, __stack1_top, __bss_start, __bss_end;

void icb_an521_reset(void);
void icb_an521_fault(void);
void icb_an521_ignore(void);

#define ICB_AN521_VECTORS 32	/* 16 exceptions + IRQ 0–15 (the MHU is IRQ 6) */

#define ICB_AN521_TABLE(sp) {						\
	(void (*)(void))(uintptr_t)&(sp),				\
	icb_an521_reset,						\
	icb_an521_fault,	/* NMI */				\
	icb_an521_fault,	/* HardFault */				\
	icb_an521_fault,	/* MemManage */				\
	icb_an521_fault,	/* BusFault */				\
	icb_an521_fault,	/* UsageFault */			\
	icb_an521_fault,	/* SecureFault */			\
	0, 0, 0,							\
	icb_an521_fault,	/* SVCall */				\
	icb_an521_fault,	/* DebugMonitor */			\
	0,								\
	icb_an521_fault,	/* PendSV */				\
	icb_an521_ignore,	/* SysTick: only wakes a wait (main.c) */ \
	icb_an521_fault, icb_an521_fault, icb_an521_fault,		\
	icb_an521_fault, icb_an521_fault, icb_an521_fault,		\
	icb_an521_mhu_irq,	/* IRQ 6: MHU0 */			\
	icb_an521_fault, icb_an521_fault, icb_an521_fault,		\
	icb_an521_fault, icb_an521_fault, icb_an521_fault,		\
	icb_an521_fault, icb_an521_fault, icb_an521_fault,		\
}

/* CPU0's, first in the image: at 0x10000000 */
__attribute__((section(".vectors0"), used))
static void (*const icb_an521_vectors0[ICB_AN521_VECTORS])(void) =
	ICB_AN521_TABLE(__stack0_top);

/* CPU1's: VTOR needs 128-byte alignment for 32 entries */
__attribute__((section(".vectors1"), used, aligned(256)))
void (*const icb_an521_vectors1[ICB_AN521_VECTORS])(void) = ICB_AN521_TABLE(__stack1_top);

void icb_an521_reset(void)
{
	uint32_t *p;

	if (ICB_AN521_REG(ICB_AN521_CPUID) == 0) {
		for (p = &__bss_start; p < &__bss_end; p++)
			*p = 0;
		icb_an521_main0();
	} else {
		icb_an521_main1();
	}
	for (;;)
		;
}

void icb_an521_fault(void)
{
	for (;;)
		;
}

void icb_an521_ignore(void)
{
}
