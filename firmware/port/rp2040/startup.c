/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Startup for the RP2040 image, built to run from SRAM (no flash, so no
 * second-stage bootloader): rp2040.ld links everything at 0x20000000.
 *
 * Entry.  The bootrom starts a RAM image (a UF2 whose blocks all target
 * SRAM) at its lowest address, and a debugger that loads the ELF starts it
 * at the ELF entry point; both are icb_rp2040_entry, first in the image.
 * Neither path sets the stack pointer or VTOR for this image, so the entry
 * does: VTOR = core 0's vector table, MSP = its first word, then a jump to
 * its reset vector (icb_rp2040_reset: .bss zeroed, icb_rp2040_main0).
 * .data needs no copy: it is loaded in place with the image.
 *
 * Core 1 is not started here: main.c resets it through the PSM and hands
 * it icb_rp2040_vectors1, its own stack top and icb_rp2040_main1 through
 * the bootrom's FIFO launch protocol (datasheet §2.8.2).
 *
 * NOT YET RUN ON HARDWARE (docs/boards.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "rp2040.h"

extern uint32_t __stack0_top, __bss_start, __bss_end;

void icb_rp2040_entry(void);
void icb_rp2040_reset(void);
void icb_rp2040_fault(void);
void icb_rp2040_ignore(void);

/* Thumb code at 0x20000000: VTOR, MSP and PC from core 0's table */
__attribute__((naked, section(".entry"), used))
void icb_rp2040_entry(void)
{
	__asm__(
		"ldr r0, =icb_rp2040_vectors0\n\t"
		"ldr r1, =0xE000ED08\n\t"	/* VTOR */
		"str r0, [r1]\n\t"
		"ldmia r0!, {r1, r2}\n\t"
		"msr msp, r1\n\t"
		"bx r2\n\t"
		".ltorg");
}

#define ICB_F	icb_rp2040_fault
#define ICB_F5	ICB_F, ICB_F, ICB_F, ICB_F, ICB_F

/* 16 exceptions and IRQ 0..31 (48 words); VTOR needs 256-byte alignment */
#define ICB_RP2040_TABLE(sp, reset) {					\
	(void (*)(void))(uintptr_t)&(sp),				\
	reset,								\
	ICB_F,			/* NMI */				\
	ICB_F,			/* HardFault */				\
	0, 0, 0, 0, 0, 0, 0,						\
	ICB_F,			/* SVCall */				\
	0, 0,								\
	ICB_F,			/* PendSV */				\
	icb_rp2040_ignore,	/* SysTick: only wakes a wait (main.c) */ \
	ICB_F5, ICB_F5, ICB_F5,	/* IRQ 0..14 */				\
	icb_rp2040_fifo_irq,	/* IRQ 15: SIO_IRQ_PROC0 */		\
	icb_rp2040_fifo_irq,	/* IRQ 16: SIO_IRQ_PROC1 */		\
	ICB_F5, ICB_F5, ICB_F5,	/* IRQ 17..31 */			\
}

__attribute__((section(".vectors0"), used, aligned(256)))
void (*const icb_rp2040_vectors0[48])(void) =
	ICB_RP2040_TABLE(__stack0_top, icb_rp2040_reset);

/* Core 1's: the launch sequence gives it its SP and entry directly */
__attribute__((section(".vectors1"), used, aligned(256)))
void (*const icb_rp2040_vectors1[48])(void) =
	ICB_RP2040_TABLE(__stack1_top, icb_rp2040_fault);

void icb_rp2040_reset(void)
{
	uint32_t *p;

	for (p = &__bss_start; p < &__bss_end; p++)
		*p = 0;
	icb_rp2040_main0();
	for (;;)
		;
}

void icb_rp2040_fault(void)
{
	for (;;)
		;
}

void icb_rp2040_ignore(void)
{
}
