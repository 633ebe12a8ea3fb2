/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Startup for either STM32H745 image (-DICB_H745_CM7 or -DICB_H745_CM4):
 * the vector table, the reset handler (.data copied from flash, .bss
 * zeroed, the FPU opened) and the string functions the library and the
 * compiler call, so that no C library is linked (-nostdlib).
 *
 * Boot (RM0399 "Boot configuration", the option bytes): each core fetches
 * its initial SP and reset vector from its boot address, BOOT_CM7_ADD0 =
 * 0x0800 (0x08000000, flash bank 1) and BOOT_CM4_ADD0 = 0x0810
 * (0x08100000, bank 2) as the chip ships; cm7.ld and cm4.ld put each
 * image's vector table there.  With the shipped option bytes (BCM7 = 1,
 * BCM4 = 1) both cores start at reset: the Cortex-M4 waits, in main_cm4.c,
 * until the Cortex-M7 holds the "ready" semaphore.  With BCM4 = 0 the
 * Cortex-M4 is held until the Cortex-M7 sets RCC_GCR.BOOT_C2, which
 * main_cm7.c does once the rings are reset: either setting works.
 *
 * NOT YET RUN ON HARDWARE (docs/boards.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "h745.h"
#include "shared.h"

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;

void icb_h745_reset(void);
void icb_h745_fault(void);
void icb_h745_ignore(void);

#define ICB_F	icb_h745_fault
#define ICB_F5	ICB_F, ICB_F, ICB_F, ICB_F, ICB_F
#define ICB_F25	ICB_F5, ICB_F5, ICB_F5, ICB_F5, ICB_F5

/* 16 exceptions and IRQ 0..149; 166 words, so VTOR needs 1024-byte alignment */
__attribute__((section(".vectors"), used, aligned(1024)))
static void (*const icb_h745_vectors[16 + ICB_H745_IRQS])(void) = {
	(void (*)(void))(uintptr_t)&__stack_top,
	icb_h745_reset,
	ICB_F,			/* NMI */
	ICB_F,			/* HardFault */
	ICB_F,			/* MemManage */
	ICB_F,			/* BusFault */
	ICB_F,			/* UsageFault */
	0, 0, 0, 0,
	ICB_F,			/* SVCall */
	ICB_F,			/* DebugMonitor */
	0,
	ICB_F,			/* PendSV */
	icb_h745_ignore,	/* SysTick: only wakes a wait (common.c) */
	/* IRQ 0..124 */
	ICB_F25, ICB_F25, ICB_F25, ICB_F25, ICB_F25,
#if defined(ICB_H745_CM7)
	icb_h745_hsem_irq,	/* IRQ 125: HSEM1, the Cortex-M7's line */
	ICB_F,			/* IRQ 126: HSEM2 */
#else
	ICB_F,			/* IRQ 125: HSEM1 */
	icb_h745_hsem_irq,	/* IRQ 126: HSEM2, the Cortex-M4's line */
#endif
	/* IRQ 127..149 */
	ICB_F5, ICB_F5, ICB_F5, ICB_F5, ICB_F, ICB_F, ICB_F,
};

void icb_h745_reset(void)
{
	const uint32_t *src = &__data_load;
	uint32_t *p;

#if defined(ICB_H745_CM4)
	/*
	 * The Cortex-M4's memory is D2 SRAM (SRAM2 through the 0x10000000
	 * alias, as ST's own Cortex-M4 linker scripts use it from reset):
	 * allocate SRAM1-3 and the AXI SRAM to CPU2 first, read back so the
	 * enable has landed (RM0399 "RCC": CPU2's RCC_C2_AHB2ENR, _AHB3ENR).
	 */
	ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_AHB2ENR) |= ICB_H745_AHB2_SRAM123;
	ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_AHB3ENR) |= ICB_H745_AHB3_AXISRAM;
	(void)ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_AHB3ENR);
#endif
	/* The vector table's own address (the boot address), and full FPU access */
	ICB_H745_REG(ICB_H745_SCB_VTOR) = (uint32_t)(uintptr_t)icb_h745_vectors;
	ICB_H745_REG(ICB_H745_SCB_CPACR) |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	for (p = &__data_start; p < &__data_end;)
		*p++ = *src++;
	for (p = &__bss_start; p < &__bss_end; p++)
		*p = 0;
	icb_h745_main();
	for (;;)
		;
}

void icb_h745_fault(void)
{
	for (;;)
		;
}

void icb_h745_ignore(void)
{
}
