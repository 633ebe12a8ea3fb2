/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * What both STM32H745 images run: the rings in D1/D2/D3 (shared.h), the
 * HSEM doorbell and the TIM2 timer.  Built once for each core; the core is
 * chosen at compile time (-DICB_H745_CM7 or -DICB_H745_CM4).
 *
 * Doorbell: a core rings the other by taking its semaphore with a 1-step
 * lock (a read of HSEM_RLRn) and releasing it at once (a write of HSEM_Rn
 * with its COREID): the release sets bit n of both interrupt lines' status,
 * and the other core, which alone has bit n enabled in its CnIER, sees its
 * line (HSEM1 on the Cortex-M7, HSEM2 on the Cortex-M4) go high.  A waiting
 * core sleeps in WFI until that line or SysTick (1 ms, bounding every wait)
 * is pending; PRIMASK stays set from core_init on, so neither interrupt is
 * ever taken and a ring that comes before the WFI stays in CnMISR.  As on
 * the an521 port, every ring is consumed on the way out: the caller looks at
 * its ring again, so a ring meant for another pair costs one extra look.
 *
 * NOT YET RUN ON HARDWARE (docs/boards.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "h745.h"
#include "icb_xport.h"
#include "shared.h"

#if defined(ICB_H745_CM7)
#define ICB_H745_LINE		0u			/* HSEM_C1*: the Cortex-M7's */
#define ICB_H745_COREID		ICB_H745_COREID_CM7
#define ICB_H745_SEM_RX		ICB_H745_SEM_TO_CM7
#define ICB_H745_SEM_TX		ICB_H745_SEM_TO_CM4
#define ICB_H745_IRQ		ICB_H745_IRQ_HSEM1
#elif defined(ICB_H745_CM4)
#define ICB_H745_LINE		1u			/* HSEM_C2*: the Cortex-M4's */
#define ICB_H745_COREID		ICB_H745_COREID_CM4
#define ICB_H745_SEM_RX		ICB_H745_SEM_TO_CM4
#define ICB_H745_SEM_TX		ICB_H745_SEM_TO_CM7
#define ICB_H745_IRQ		ICB_H745_IRQ_HSEM2
#else
#error "build with -DICB_H745_CM7 or -DICB_H745_CM4"
#endif

/* The wait bound: SysTick reload for 1 ms at the core clock */
#define ICB_H745_WAIT_TICKS	(ICB_H745_HZ / 1000u)

/*
 * The shared memory (NOLOAD sections that rings.ld places at shared.h's
 * addresses in both images): a data pair in each region, the control pair
 * after D3's.
 */
static uint8_t icb_h745_d1[ICB_H745_DATA_BYTES]
	__attribute__((section(".icb_d1"), aligned(ICB_RING_ALIGN)));
static uint8_t icb_h745_d2[ICB_H745_DATA_BYTES]
	__attribute__((section(".icb_d2"), aligned(ICB_RING_ALIGN)));
static uint8_t icb_h745_d3[ICB_H745_DATA_BYTES + ICB_H745_CTL_BYTES]
	__attribute__((section(".icb_d3"), aligned(ICB_RING_ALIGN)));

/* The D-cache hooks work on 32-byte lines: slots must not share one */
typedef char icb_h745_slots_are_lines[ICB_RING_ALIGN % 32u == 0 ? 1 : -1];
/* D3 holds the data pair and the control pair in its 64 KiB window */
typedef char icb_h745_d3_fits[ICB_H745_DATA_BYTES + ICB_H745_CTL_BYTES <= ICB_H745_WINDOW
			      ? 1 : -1];

uint32_t icb_h745_now(void *ctx)
{
	(void)ctx;
	return ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_CNT);
}

static void icb_h745_signal(void *ctx, uint8_t notify)
{
	(void)ctx;
	(void)notify;
	/* the slot's publish word reaches its SRAM before the other core wakes */
	__asm__ volatile("dsb" ::: "memory");
	(void)ICB_H745_REG(ICB_H745_HSEM_RLR(ICB_H745_SEM_TX));
	ICB_H745_REG(ICB_H745_HSEM_R(ICB_H745_SEM_TX)) = ICB_H745_COREID << 8;
}

static void icb_h745_wait(void *ctx, uint8_t notify)
{
	(void)ctx;
	(void)notify;
	if (!(ICB_H745_REG(ICB_H745_HSEM_MISR(ICB_H745_LINE)) & (1u << ICB_H745_SEM_RX))) {
		ICB_H745_REG(ICB_H745_SYST_CVR) = 0;
		ICB_H745_REG(ICB_H745_SYST_CSR) = 0x7u;	/* enable, TICKINT, CPU clock */
		__asm__ volatile("dsb\n\twfi" ::: "memory");
		ICB_H745_REG(ICB_H745_SYST_CSR) = 0;
		ICB_H745_REG(ICB_H745_SCB_ICSR) = ICB_H745_ICSR_PENDSTCLR;
	}
	ICB_H745_REG(ICB_H745_HSEM_ICR(ICB_H745_LINE)) = 1u << ICB_H745_SEM_RX;
	ICB_H745_REG(ICB_H745_NVIC_ICPR(ICB_H745_IRQ / 32u)) = 1u << (ICB_H745_IRQ % 32u);
}

/* Not taken while PRIMASK is set; should it ever be, the ring is consumed */
void icb_h745_hsem_irq(void)
{
	ICB_H745_REG(ICB_H745_HSEM_ICR(ICB_H745_LINE)) = 1u << ICB_H745_SEM_RX;
}

static void icb_h745_zero(uint8_t *p, size_t n)
{
	volatile uint32_t *w = (volatile uint32_t *)(void *)p;
	size_t i;

	for (i = 0; i < n / 4u; i++)
		w[i] = 0;
}

void icb_h745_rings_zero(void)
{
	icb_h745_zero(icb_h745_d1, sizeof(icb_h745_d1));
	icb_h745_zero(icb_h745_d2, sizeof(icb_h745_d2));
	icb_h745_zero(icb_h745_d3, sizeof(icb_h745_d3));
	__asm__ volatile("dsb" ::: "memory");
}

int icb_h745_core_init(struct icb_h745_core *c, int reset,
		       void (*clean)(void *, const void *, size_t),
		       void (*invalidate)(void *, const void *, size_t))
{
	uint8_t *mem[ICB_H745_REGIONS];
	uint32_t i;
	int err;

	if ((uintptr_t)icb_h745_d1 != ICB_H745_D1_BASE ||
	    (uintptr_t)icb_h745_d2 != ICB_H745_D2_BASE ||
	    (uintptr_t)icb_h745_d3 != ICB_H745_D3_BASE)
		return -1;
	mem[0] = icb_h745_d1;
	mem[1] = icb_h745_d2;
	mem[2] = icb_h745_d3;
	c->hooks.ctx = c;
	c->hooks.clean = clean;
	c->hooks.invalidate = invalidate;
	c->hooks.signal = icb_h745_signal;
	c->hooks.wait = icb_h745_wait;
	c->hooks.relax = NULL;		/* no SMT sibling to yield to */
	/* the Cortex-M7 is the initiator: it produces into each pair's first ring */
	err = icb_ring_pair_init(&c->ctl, &c->side.ctl, icb_h745_d3 + ICB_H745_DATA_BYTES,
				 ICB_H745_CTL_BYTES, ICB_H745_CTL_SLOTS, ICB_H745_CTL_PAYLOAD,
				 &c->hooks, reset, reset);
	for (i = 0; !err && i < ICB_H745_REGIONS; i++)
		err = icb_ring_pair_init(&c->data[i], &c->side.data[i], mem[i],
					 ICB_H745_DATA_BYTES, ICB_H745_SLOTS, ICB_H745_MAX_SIZE,
					 &c->hooks, reset, reset);
	if (err)
		return -1;
	c->side.ctl_notify = ICB_NOTIFY_DOORBELL;
	c->side.nregions = ICB_H745_REGIONS;
	c->side.timer_ctx = NULL;
	c->side.now = icb_h745_now;
	c->side.timer_hz = ICB_H745_HZ;
	c->side.tx = c->tx;
	c->side.rx = c->rx;
	c->side.buf_cap = ICB_H745_MAX_SIZE;

	/* Interrupts only wake WFI; SysTick armed only inside a wait */
	__asm__ volatile("cpsid i" ::: "memory");
	ICB_H745_REG(ICB_H745_SYST_CSR) = 0;
	ICB_H745_REG(ICB_H745_SYST_RVR) = ICB_H745_WAIT_TICKS - 1u;
	ICB_H745_REG(ICB_H745_HSEM_ICR(ICB_H745_LINE)) = 1u << ICB_H745_SEM_RX;
	ICB_H745_REG(ICB_H745_HSEM_IER(ICB_H745_LINE)) |= 1u << ICB_H745_SEM_RX;
	ICB_H745_REG(ICB_H745_NVIC_ICPR(ICB_H745_IRQ / 32u)) = 1u << (ICB_H745_IRQ % 32u);
	ICB_H745_REG(ICB_H745_NVIC_ISER(ICB_H745_IRQ / 32u)) = 1u << (ICB_H745_IRQ % 32u);
	return 0;
}
