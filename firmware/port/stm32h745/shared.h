/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * What the two STM32H745 images agree on: where the rings are, how they
 * are cut, which semaphores ring which core.  Both images lay their rings
 * out from these numbers alone (common.c), and rings.ld
 * (included by both linker scripts) places the ring sections at the same
 * addresses, so the two ELF files see one memory layout.  Change a number
 * here and in rings.ld together; both images must be rebuilt and flashed.
 *
 *   region  memory (RM0399 "Memory and bus architecture": memory map)  rings
 *   "D1"    AXI SRAM, 512 KiB at 0x24000000 (D1 domain, AXI)        data pair
 *   "D2"    SRAM1, 128 KiB at 0x30000000 (D2 domain, AHB)            data pair
 *   "D3"    SRAM4, 64 KiB at 0x38000000 (D3 domain, AHB)             data pair,
 *                                                                     then control
 * Each region keeps a 64 KiB window for rings alone (the Cortex-M7's MPU
 * region when the rings are non-cacheable).  Private memory is elsewhere:
 * the Cortex-M7's in DTCM (0x20000000), the Cortex-M4's in SRAM2 through
 * its alias at 0x10020000.
 */
#ifndef ICB_H745_SHARED_H
#define ICB_H745_SHARED_H

#include <stddef.h>
#include <stdint.h>

#include "icb_onchip.h"
#include "icb_xport.h"

#define ICB_H745_REGIONS	3u
#define ICB_H745_SLOTS		6u
#define ICB_H745_MAX_SIZE	4096u
#define ICB_H745_CTL_SLOTS	4u
#define ICB_H745_CTL_PAYLOAD	64u

/* Both rings of a pair (icb_xport.h's ICB_RING_BYTES: 32-byte slots) */
#define ICB_H745_PAIR(n, p)	(2u * ICB_RING_BYTES(n, p))
#define ICB_H745_DATA_BYTES	ICB_H745_PAIR(ICB_H745_SLOTS, ICB_H745_MAX_SIZE)	/* 49600 */
#define ICB_H745_CTL_BYTES	ICB_H745_PAIR(ICB_H745_CTL_SLOTS, ICB_H745_CTL_PAYLOAD)	/* 832 */

#define ICB_H745_D1_BASE	0x24000000u
#define ICB_H745_D2_BASE	0x30000000u
#define ICB_H745_D3_BASE	0x38000000u
#define ICB_H745_WINDOW		0x10000u	/* 64 KiB a region; MPU size field 15 */
#define ICB_H745_WINDOW_LOG2	16u

/*
 * HSEM semaphores: the Cortex-M7 rings the Cortex-M4 by taking and
 * releasing semaphore 0, the Cortex-M4 the Cortex-M7 with semaphore 1.
 * Semaphore 2 is the start signal: the Cortex-M7 takes it once the rings
 * are reset and holds it; the Cortex-M4 attaches when it reads it held by
 * the Cortex-M7 (HSEM is cleared by a system reset, so a stale "ready"
 * cannot be seen).
 */
#define ICB_H745_SEM_TO_CM4	0u
#define ICB_H745_SEM_TO_CM7	1u
#define ICB_H745_SEM_READY	2u

/*
 * The code both images share (common.c, built once per core: -DICB_H745_CM7
 * or -DICB_H745_CM4): one core's view of every ring pair, the doorbell and
 * the shared timer.
 */
struct icb_h745_core {
	struct icb_oc_side side;
	struct icb_ring_pair ctl;
	struct icb_ring_pair data[ICB_H745_REGIONS];
	struct icb_ring_hooks hooks;
	uint8_t tx[ICB_H745_MAX_SIZE] __attribute__((aligned(ICB_RING_ALIGN)));
	uint8_t rx[ICB_H745_MAX_SIZE] __attribute__((aligned(ICB_RING_ALIGN)));
};

/*
 * Lay out this core's rings (the Cortex-M7 resets them: reset = 1), with
 * the D-cache hooks given (NULL: none), and arm the doorbell: this core's
 * HSEM line enabled, PRIMASK set for good (the interrupt only ends a WFI),
 * SysTick loaded to bound each wait to 1 ms.  0, or -1 when the ring
 * sections are not where shared.h says.
 */
int icb_h745_core_init(struct icb_h745_core *c, int reset,
		       void (*clean)(void *, const void *, size_t),
		       void (*invalidate)(void *, const void *, size_t));

/*
 * The Cortex-M7, before its D-cache is on: write zeros over the three ring
 * sections with word stores, so that no ring word is ever read, or
 * partially written (a byte store is a read-modify-write of the ECC word),
 * before it was written whole: the SRAMs' ECC (RM0399 "RAM ECC
 * monitoring") may flag a never-written word.
 */
void icb_h745_rings_zero(void);

/* The shared timer: TIM2's counter, 64 MHz, wrapping at 2^32 */
uint32_t icb_h745_now(void *ctx);

/* startup.c → main_cm7.c / main_cm4.c: each image's entry */
void icb_h745_main(void);
/* common.c → startup.c: the HSEM interrupt (a ring outside a wait) */
void icb_h745_hsem_irq(void);

#endif /* ICB_H745_SHARED_H */
