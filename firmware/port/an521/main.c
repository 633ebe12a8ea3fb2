/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark (docs/on-chip.md) on QEMU's mps2-an521: CPU0 is the
 * initiator, behind the icb responder on UART0; CPU1 is the agent.
 *
 *   timer    CMSDK APB timer0, free-running down from 0xFFFFFFFF at 20 MHz;
 *            both cores read it, now() = ~VALUE counts up and wraps at 2^32
 *   regions  "sram": the SSE-200's SRAM (4 × 32 KiB at 0x20000000, Secure
 *            alias 0x30000000); "psram": the AN521's 16 MiB PSRAM at
 *            0x80000000.  The image itself (code, .bss, stacks, both cores'
 *            private state) is in SSRAM1 at 0x10000000.
 *   notify   poll, and doorbell: MHU0 bit 0 of the other core's
 *            CPUnINTR_SET; the waiting core sleeps in WFI until its MHU0
 *            line (IRQ 6) or SysTick (1 ms, bounding every wait) is
 *            pending.  PRIMASK stays set on both cores from the start, so
 *            neither interrupt is ever taken: they only end a WFI, and a
 *            ring stays in MHU0's STAT until a wait consumes it
 *   control  the command ring uses the doorbell: an idle agent sleeps
 *
 * Register facts and their sources: an521.h.  No cache (QEMU has none), so
 * the rings need no clean/invalidate hooks; ICB_RELEASE and ICB_ACQUIRE are DMBs.
 */
#include <stddef.h>
#include <stdint.h>

#include "an521.h"
#include "icb_onchip.h"
#include "icb_responder.h"
#include "icb_xport.h"

#ifndef ICB_AN521_FRAME
#define ICB_AN521_FRAME 1024
#endif
/* The compiler flags, for the CHIP labels (the Makefile passes them) */
#ifndef ICB_AN521_CFLAGS
#define ICB_AN521_CFLAGS "unknown"
#endif

#define ICB_AN521_REGIONS	2u
#define ICB_AN521_SLOTS		8u
#define ICB_AN521_MAX_SIZE	4096u
#define ICB_AN521_CTL_SLOTS	4u
#define ICB_AN521_CTL_PAYLOAD	64u
/* The wait bound: SysTick reload for 1 ms at the CPU clock */
#define ICB_AN521_WAIT_TICKS	(ICB_AN521_SYSCLK_HZ / 1000u)
/* The MHU0 STAT bit both cores ring */
#define ICB_AN521_BELL		0x1u

/* Both rings of a pair (icb_xport.h) */
#define ICB_AN521_PAIR(n, p)	(2u * ICB_RING_BYTES(n, p))
#define ICB_AN521_DATA_BYTES	ICB_AN521_PAIR(ICB_AN521_SLOTS, ICB_AN521_MAX_SIZE)
#define ICB_AN521_CTL_BYTES	ICB_AN521_PAIR(ICB_AN521_CTL_SLOTS, ICB_AN521_CTL_PAYLOAD)

/* UART0: CMSDK APB UART (Arm DDI 0479C) */
struct icb_an521_uart {
	volatile uint32_t data;
	volatile uint32_t state;	/* bit 0: TX full, bit 1: RX full */
	volatile uint32_t ctrl;		/* bit 0: TX enable, bit 1: RX enable */
	volatile uint32_t intstatus;
	volatile uint32_t bauddiv;
};

#define ICB_AN521_UART_TX_FULL	0x1u
#define ICB_AN521_UART_RX_FULL	0x2u
/* 20 MHz / 115200; QEMU ignores the rate but needs >= 16 */
#define ICB_AN521_UART_BAUDDIV	173u

/* --- shared memory: the rings (linker script: .icb_sram, .icb_psram) --- */

static uint8_t icb_an521_sram[ICB_AN521_DATA_BYTES + ICB_AN521_CTL_BYTES]
	__attribute__((section(".icb_sram"), aligned(ICB_RING_ALIGN)));
static uint8_t icb_an521_psram[ICB_AN521_DATA_BYTES]
	__attribute__((section(".icb_psram"), aligned(ICB_RING_ALIGN)));

static const char *const icb_an521_region_names[ICB_AN521_REGIONS] = { "sram", "psram" };

/* --- one core's private state (in SSRAM1; each core touches its own) --- */

struct icb_an521_core {
	struct icb_oc_side side;
	struct icb_ring_pair ctl;
	struct icb_ring_pair data[ICB_AN521_REGIONS];
	struct icb_ring_hooks hooks;
	uint32_t cpu;				/* 0 or 1 */
	uint8_t tx[ICB_AN521_MAX_SIZE];
	uint8_t rx[ICB_AN521_MAX_SIZE];
};

static struct icb_an521_core icb_an521_cores[2];

/* CPU0 only: the initiator and the responder in front of it */
static struct icb_oc_chip icb_an521_chip;
static struct icb_hist icb_an521_hist;
static uint8_t icb_an521_msg[ICB_OC_RESULT_MAX];
static struct icb_oc_initiator icb_an521_initiator;
static uint8_t icb_an521_rx_frame[ICB_AN521_FRAME];
static uint8_t icb_an521_tx_frame[ICB_AN521_FRAME];
static struct icb_responder icb_an521_responder;

/* --- the shared timer --------------------------------------------------- */

static void icb_an521_timer_start(void)
{
	ICB_AN521_REG(ICB_AN521_TIMER0 + ICB_AN521_TIMER_CTRL) = 0;
	ICB_AN521_REG(ICB_AN521_TIMER0 + ICB_AN521_TIMER_RELOAD) = 0xFFFFFFFFu;
	ICB_AN521_REG(ICB_AN521_TIMER0 + ICB_AN521_TIMER_VALUE) = 0xFFFFFFFFu;
	ICB_AN521_REG(ICB_AN521_TIMER0 + ICB_AN521_TIMER_CTRL) = 0x1u;
}

/* timer0 counts down: its complement counts up, wrapping at 2^32 */
static uint32_t icb_an521_now(void *ctx)
{
	(void)ctx;
	return ~ICB_AN521_REG(ICB_AN521_TIMER0 + ICB_AN521_TIMER_VALUE);
}

/* --- the doorbell ------------------------------------------------------- */

static void icb_an521_signal(void *ctx, uint8_t notify)
{
	const struct icb_an521_core *c = ctx;

	(void)notify;
	ICB_AN521_REG(ICB_AN521_MHU_SET(c->cpu ^ 1u)) = ICB_AN521_BELL;
}

/*
 * Sleep until rung or for at most ~1 ms.  PRIMASK is set (core_init), so a
 * pending MHU or SysTick interrupt ends the WFI without being taken, and a
 * ring that comes before the WFI is still in STAT, so it is not missed.
 * Every ring is consumed on the way out: the caller looks at its ring
 * again, so a ring meant for another pair costs one extra look at most.
 */
static void icb_an521_wait(void *ctx, uint8_t notify)
{
	const struct icb_an521_core *c = ctx;

	(void)notify;
	if (!(ICB_AN521_REG(ICB_AN521_MHU_STAT(c->cpu)) & ICB_AN521_BELL)) {
		ICB_AN521_REG(ICB_AN521_SYST_CVR) = 0;
		ICB_AN521_REG(ICB_AN521_SYST_CSR) = 0x7u;	/* enable, TICKINT, CPU clock */
		__asm__ volatile("dsb\n\twfi" ::: "memory");
		ICB_AN521_REG(ICB_AN521_SYST_CSR) = 0;
		ICB_AN521_REG(ICB_AN521_SCB_ICSR) = ICB_AN521_ICSR_PENDSTCLR;
	}
	ICB_AN521_REG(ICB_AN521_MHU_CLR(c->cpu)) = ICB_AN521_BELL;
	ICB_AN521_REG(ICB_AN521_NVIC_ICPR0) = 1u << ICB_AN521_MHU_IRQ;
}

/* Not taken while PRIMASK is set; should it ever be, the ring is consumed */
void icb_an521_mhu_irq(void)
{
	uint32_t cpu = ICB_AN521_REG(ICB_AN521_CPUID) & 1u;

	ICB_AN521_REG(ICB_AN521_MHU_CLR(cpu)) = ICB_AN521_BELL;
}

/* --- both cores ------------------------------------------------------- */

/* This core's view of every ring pair; the initiator resets them */
static int icb_an521_core_init(struct icb_an521_core *c, uint32_t cpu)
{
	int initiator = cpu == 0, err;
	uint32_t i;
	uint8_t *mem[ICB_AN521_REGIONS];

	mem[0] = icb_an521_sram;
	mem[1] = icb_an521_psram;
	c->cpu = cpu;
	c->hooks.ctx = c;
	c->hooks.clean = NULL;
	c->hooks.invalidate = NULL;
	c->hooks.signal = icb_an521_signal;
	c->hooks.wait = icb_an521_wait;
	err = icb_ring_pair_init(&c->ctl, &c->side.ctl, icb_an521_sram + ICB_AN521_DATA_BYTES,
				 ICB_AN521_CTL_BYTES, ICB_AN521_CTL_SLOTS, ICB_AN521_CTL_PAYLOAD,
				 &c->hooks, initiator, initiator);
	for (i = 0; !err && i < ICB_AN521_REGIONS; i++)
		err = icb_ring_pair_init(&c->data[i], &c->side.data[i], mem[i],
					 ICB_AN521_DATA_BYTES, ICB_AN521_SLOTS,
					 ICB_AN521_MAX_SIZE, &c->hooks, initiator, initiator);
	c->side.ctl_notify = ICB_NOTIFY_DOORBELL;
	c->side.nregions = ICB_AN521_REGIONS;
	c->side.timer_ctx = NULL;
	c->side.now = icb_an521_now;
	c->side.timer_hz = ICB_AN521_SYSCLK_HZ;
	c->side.tx = c->tx;
	c->side.rx = c->rx;
	c->side.buf_cap = ICB_AN521_MAX_SIZE;
	/*
	 * Interrupts only wake WFI (PRIMASK set for good); SysTick reloads
	 * every 1 ms, armed only inside a wait; MHU0's line enabled
	 */
	__asm__ volatile("cpsid i" ::: "memory");
	ICB_AN521_REG(ICB_AN521_SYST_CSR) = 0;
	ICB_AN521_REG(ICB_AN521_SYST_RVR) = ICB_AN521_WAIT_TICKS - 1u;
	ICB_AN521_REG(ICB_AN521_MHU_CLR(cpu)) = ICB_AN521_BELL;
	ICB_AN521_REG(ICB_AN521_NVIC_ISER0) = 1u << ICB_AN521_MHU_IRQ;
	return err;
}

static void icb_an521_halt(void)
{
	for (;;)
		__asm__ volatile("wfi");
}

/* --- CPU0: the responder and the initiator ----------------------------- */

static int icb_an521_uart_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct icb_an521_uart *u = ctx;

	while (len--) {
		while (u->state & ICB_AN521_UART_TX_FULL)
			;
		u->data = *buf++;
	}
	return 0;
}

void icb_an521_main0(void)
{
	static const char labels[] =
		"port=an521\n"
		"emulated=qemu\n"
		"cores=cortex-m33x2\n"
		"cpu_hz=20000000\n"
		"timer=cmsdk-apb-timer0\n"
		"doorbell=mhu0\n"
		"cflags=" ICB_AN521_CFLAGS "\n";
	struct icb_an521_uart *u = (struct icb_an521_uart *)ICB_AN521_UART0;
	struct icb_an521_core *c = &icb_an521_cores[0];
	struct icb_responder_config cfg;
	struct icb_platform plat;
	uint8_t in[64];
	uint32_t i;

	u->bauddiv = ICB_AN521_UART_BAUDDIV;
	u->ctrl = 0x3u;
	icb_an521_timer_start();
	if (icb_an521_core_init(c, 0))
		icb_an521_halt();

	icb_an521_chip.cores = 2;
	icb_an521_chip.notify = ICB_NOTIFY_POLL | ICB_NOTIFY_DOORBELL;
	icb_an521_chip.timer_hz = ICB_AN521_SYSCLK_HZ;
	icb_an521_chip.max_size = ICB_AN521_MAX_SIZE;
	icb_an521_chip.nregions = ICB_AN521_REGIONS;
	for (i = 0; i < ICB_AN521_REGIONS; i++)
		icb_an521_chip.regions[i] = icb_an521_region_names[i];
	icb_an521_chip.labels = labels;
	icb_an521_initiator.side = &c->side;
	icb_an521_initiator.chip = &icb_an521_chip;
	icb_an521_initiator.hist = &icb_an521_hist;
	icb_an521_initiator.msg = icb_an521_msg;
	icb_an521_initiator.msg_cap = sizeof(icb_an521_msg);

	/* The rings are reset: let CPU1 run, from its own vector table */
	__asm__ volatile("dsb" ::: "memory");
	ICB_AN521_REG(ICB_AN521_INITSVTOR1) = (uint32_t)(uintptr_t)icb_an521_vectors1;
	ICB_AN521_REG(ICB_AN521_CPUWAIT) &= ~ICB_AN521_CPUWAIT_CPU1;

	plat.ctx = u;
	plat.send = icb_an521_uart_send;
	plat.now = NULL;		/* the responder announces no clock */
	icb_responder_config_default(&cfg);
	cfg.proto = ICB_PROTO_ICB;
	if (icb_responder_init(&icb_an521_responder, &cfg, &plat, icb_an521_rx_frame,
			       sizeof(icb_an521_rx_frame), icb_an521_tx_frame,
			       sizeof(icb_an521_tx_frame)) < 0)
		icb_an521_halt();
	icb_responder_set_extra(&icb_an521_responder, icb_oc_serve, &icb_an521_initiator);
	for (;;) {
		size_t n = 0;

		/* Wait for one byte, then take what else has arrived */
		while (!(u->state & ICB_AN521_UART_RX_FULL))
			;
		do {
			in[n++] = (uint8_t)u->data;
		} while (n < sizeof(in) && (u->state & ICB_AN521_UART_RX_FULL));
		icb_responder_input(&icb_an521_responder, in, n);
	}
}

/* --- CPU1: the agent ---------------------------------------------------- */

void icb_an521_main1(void)
{
	struct icb_an521_core *c = &icb_an521_cores[1];

	if (icb_an521_core_init(c, 1))
		icb_an521_halt();
	for (;;)
		if (!icb_oc_agent_poll(&c->side))
			c->side.ctl.wait(c->side.ctl.ctx, c->side.ctl_notify);
}
