/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Startup of the STM32MP157 Cortex-M4 image: the vector table and the
 * reset handler.  No C library is linked (-nostdlib; port/common/string.c).
 *
 * Boot (RM0436 "MCU boot"; Linux's stm32_rproc): Linux loads every PT_LOAD
 * segment of the ELF at its physical address through the remoteproc
 * carveouts (device address 0 = RETRAM, 0x10000000 = MCU SRAM1/2), copies
 * the resource table it updated into the loaded `.resource_table` section,
 * then releases the M4's hold-boot.  The M4 fetches SP and PC from address
 * 0, where stm32mp1-cm4.ld puts the vector table.  So .data is already in
 * place (no copy from a load address), and .bss has been zero-filled by the
 * loader (p_memsz > p_filesz); it is zeroed here again all the same.
 *
 * NOT YET RUN ON A BOARD (docs/boards.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "mp1.h"

extern uint32_t __bss_start, __bss_end, __stack_top;

void icb_mp1_reset(void);
void icb_mp1_fault(void);

#define ICB_F	icb_mp1_fault

/*
 * The 16 system exceptions only: the port enables no interrupt (IPCC is
 * polled), so no IRQ entry is ever fetched.  128-byte aligned, as VTOR
 * requires on the Cortex-M4.
 */
__attribute__((section(".vectors"), used, aligned(128)))
static void (*const icb_mp1_vectors[16])(void) = {
	(void (*)(void))(uintptr_t)&__stack_top,
	icb_mp1_reset,
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
	ICB_F,			/* SysTick (not enabled) */
};

void icb_mp1_reset(void)
{
	uint32_t *p;

	/* The table's own address (0), and full FPU access (CP10, CP11) */
	ICB_MP1_REG(ICB_MP1_SCB_VTOR) = (uint32_t)(uintptr_t)icb_mp1_vectors;
	ICB_MP1_REG(ICB_MP1_SCB_CPACR) |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	for (p = &__bss_start; p < &__bss_end; p++)
		*p = 0;
	icb_mp1_main();
	for (;;)
		__asm__ volatile("wfi");
}

void icb_mp1_fault(void)
{
	for (;;)
		;
}
