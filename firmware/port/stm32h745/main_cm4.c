/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark on an STM32H745: the Cortex-M4 image, the agent.
 * It waits for the Cortex-M7 (main_cm7.c) to reset the rings and take the
 * "ready" semaphore, attaches to the rings where they stand and then plays
 * its half of every cell, sleeping on the HSEM doorbell while idle.
 * Modelled on port/an521/main.c's CPU1.
 *
 * NOT YET RUN ON HARDWARE (docs/boards.md, "On-chip agent ports"): flash
 * this image (build/ports/stm32h745-cm4.hex) to bank 2 at 0x08100000.
 *
 * Its code runs from flash bank 2 through the ART accelerator (the
 * Cortex-M4's instruction cache, enabled here); its data, buffers and stack
 * are in SRAM2 through the Cortex-M4's alias at 0x10020000 (cm4.ld).
 */
#include <stddef.h>
#include <stdint.h>

#include "h745.h"
#include "icb_onchip.h"
#include "shared.h"

/* In SRAM2 (cm4.ld): private to this core */
static struct icb_h745_core icb_h745_core;

void icb_h745_main(void)
{
	struct icb_h745_core *c = &icb_h745_core;
	const uint32_t ready = ICB_H745_HSEM_LOCK | (ICB_H745_COREID_CM7 << 8);

	/* CPU2's allocations: the ART, HSEM and TIM2 (SRAM: startup.c) */
	ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_AHB1ENR) |= ICB_H745_AHB1_ART;
	ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_AHB4ENR) |= ICB_H745_AHB4_HSEM;
	ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_APB1LENR) |= ICB_H745_APB1L_TIM2;
	(void)ICB_H745_REG(ICB_H745_RCC_C2 + ICB_H745_RCC_APB1LENR);
	ICB_H745_REG(ICB_H745_ART_CTR) = ICB_H745_ART_BANK2;
	ICB_H745_REG(ICB_H745_ART_CTR) = ICB_H745_ART_BANK2 | 1u;

	/* The Cortex-M7 holds "ready" once the rings are reset and TIM2 runs */
	while (ICB_H745_REG(ICB_H745_HSEM_R(ICB_H745_SEM_READY)) != ready)
		;
	__asm__ volatile("dmb" ::: "memory");
	if (icb_h745_core_init(c, 0, NULL, NULL))
		for (;;)
			__asm__ volatile("wfi");
	for (;;)
		if (!icb_oc_agent_poll(&c->side))
			c->side.ctl.wait(c->side.ctl.ctx, c->side.ctl_notify);
}
