/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark (docs/on-chip.md) on an RP2040 (Raspberry Pi Pico):
 * core 0 is the initiator, behind the icb responder on UART0 (GP0 TX, GP1
 * RX, 115200 8N1); core 1 is the agent.  One image, run from SRAM.
 * Modelled on port/an521/main.c.
 *
 * NOT YET RUN ON HARDWARE.  It is built (make -C firmware ports) and has
 * never run on a board; docs/boards.md ("On-chip agent ports") has the
 * steps for someone with one: copy build/ports/rp2040.uf2 to the RPI-RP2
 * drive (BOOTSEL held at plug-in), connect a 3.3 V USB-serial adapter to
 * GP0/GP1, then
 *   icbench chip -L 'serial:/dev/ttyUSB0?baud=115200' --notify poll,doorbell,event
 *
 *   clocks   XOSC 12 MHz → PLL_SYS 125 MHz: clk_sys (both cores) and
 *            clk_peri (UART0); clk_ref = XOSC (rp2040.h)
 *   timer    the TIMER's TIMERAWL: the low 32 bits of the 64-bit
 *            microsecond count (1 MHz, from the watchdog tick at clk_ref/12),
 *            one device both cores read.  1 µs a tick is coarse next to a
 *            sub-microsecond round trip: latencies come out quantised
 *   regions  "sram": a data pair in the striped SRAM0-3 (0x20000000, after
 *            the image); "scratch": the initiator → agent ring alone in
 *            SRAM4 (0x20040000), the agent → initiator ring alone in SRAM5
 *            (0x20041000), three 1 KiB slots each
 *   notify   poll; doorbell: a word pushed into the other core's SIO FIFO,
 *            the waiting core in WFI until its SIO_IRQ_PROCn or SysTick
 *            (1 ms, bounding every wait) is pending, PRIMASK set for good
 *            as on the an521 port; event: SEV, the waiting core in WFE
 *            (RP2040 wires each core's event output to the other's input),
 *            SysTick again bounding it through SCR.SEVONPEND
 *   control  the command ring uses the doorbell: an idle agent sleeps
 *
 * No cache (the RP2040's only cache is the XIP cache, unused here), so
 * the rings need no clean/invalidate hooks; ICB_RELEASE and ICB_ACQUIRE
 * are DMBs (GCC 12 emits `dmb ish` for both fences on ARMv6-M, no libgcc
 * call).
 */
#include <stddef.h>
#include <stdint.h>

#include "icb_onchip.h"
#include "icb_responder.h"
#include "icb_xport.h"
#include "rp2040.h"

#ifndef ICB_RP2040_FRAME
#define ICB_RP2040_FRAME 1024
#endif
/* The compiler flags, for the CHIP labels (the Makefile passes them) */
#ifndef ICB_RP2040_CFLAGS
#define ICB_RP2040_CFLAGS "unknown"
#endif

#define ICB_RP2040_REGIONS	2u
/*
 * Largest message: 1 KiB, so that a 4 KiB scratch bank holds a ring of
 * three slots (the "sram" rings could carry more, but the CHIP record has
 * one limit for every region)
 */
#define ICB_RP2040_MAX_SIZE	1024u
#define ICB_RP2040_SLOTS	8u
#define ICB_RP2040_SCRATCH_SLOTS 3u
#define ICB_RP2040_CTL_SLOTS	4u
#define ICB_RP2040_CTL_PAYLOAD	64u
/* The wait bound: SysTick reload for 1 ms at clk_sys */
#define ICB_RP2040_WAIT_TICKS	(ICB_RP2040_SYS_HZ / 1000u)

/* Both rings of a pair (icb_xport.h's ICB_RING_BYTES) */
#define ICB_RP2040_PAIR(n, p)	(2u * ICB_RING_BYTES(n, p))
#define ICB_RP2040_DATA_BYTES	ICB_RP2040_PAIR(ICB_RP2040_SLOTS, ICB_RP2040_MAX_SIZE)
#define ICB_RP2040_CTL_BYTES	ICB_RP2040_PAIR(ICB_RP2040_CTL_SLOTS, ICB_RP2040_CTL_PAYLOAD)

/* A scratch ring fits its bank: 32 + 3 × 1056 = 3200 of 4096 bytes */
typedef char icb_rp2040_scratch_ring_fits[ICB_RING_BYTES(ICB_RP2040_SCRATCH_SLOTS,
	ICB_RP2040_MAX_SIZE) <= ICB_RP2040_BANK_BYTES ? 1 : -1];

/* --- shared memory: the rings (rp2040.ld: .icb_sram, .icb_scratch) ---- */

static uint8_t icb_rp2040_sram[ICB_RP2040_DATA_BYTES + ICB_RP2040_CTL_BYTES]
	__attribute__((section(".icb_sram"), aligned(ICB_RING_ALIGN)));
/* SRAM4 then SRAM5: one ring in each bank */
static uint8_t icb_rp2040_scratch[2u * ICB_RP2040_BANK_BYTES]
	__attribute__((section(".icb_scratch"), aligned(ICB_RING_ALIGN)));

static const char *const icb_rp2040_region_names[ICB_RP2040_REGIONS] = { "sram", "scratch" };

/* --- one core's private state (striped SRAM; each core touches its own) --- */

/*
 * The "scratch" region's two rings, each alone in its bank: not
 * icb_ring_pair_init's one block cut in halves (its second half would start
 * 3200 bytes in, inside SRAM4), so this port's own struct icb_xport over
 * two rings, doing what icb_ring.c's pair does.
 */
struct icb_rp2040_banks {
	struct icb_ring tx;
	struct icb_ring rx;
};

struct icb_rp2040_core {
	struct icb_oc_side side;
	struct icb_ring_pair ctl;
	struct icb_ring_pair sram;
	struct icb_rp2040_banks scratch;
	struct icb_ring_hooks hooks;
	uint32_t cpu;				/* 0 or 1 */
	uint8_t tx[ICB_RP2040_MAX_SIZE] __attribute__((aligned(ICB_RING_ALIGN)));
	uint8_t rx[ICB_RP2040_MAX_SIZE] __attribute__((aligned(ICB_RING_ALIGN)));
};

static struct icb_rp2040_core icb_rp2040_cores[2];

/* Core 0 only: the initiator and the responder in front of it */
static struct icb_oc_chip icb_rp2040_chip;
static struct icb_hist icb_rp2040_hist;
static uint8_t icb_rp2040_msg[ICB_OC_RESULT_MAX];
static struct icb_oc_initiator icb_rp2040_initiator;
static uint8_t icb_rp2040_rx_frame[ICB_RP2040_FRAME];
static uint8_t icb_rp2040_tx_frame[ICB_RP2040_FRAME];
static struct icb_responder icb_rp2040_responder;

/* --- the shared timer --------------------------------------------------- */

static uint32_t icb_rp2040_now(void *ctx)
{
	(void)ctx;
	return ICB_RP2040_REG(ICB_RP2040_TIMERAWL);
}

/* --- the doorbell and the event ---------------------------------------- */

static void icb_rp2040_signal(void *ctx, uint8_t notify)
{
	(void)ctx;
	/* the slot's publish word has reached SRAM before the other core looks */
	__asm__ volatile("dsb" ::: "memory");
	if (notify == ICB_NOTIFY_EVENT) {
		__asm__ volatile("sev");
		return;
	}
	/* A full FIFO already holds rings the other core has not consumed */
	if (ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_RDY)
		ICB_RP2040_REG(ICB_RP2040_FIFO_WR) = 1u;
}

/* Take every ring out of this core's FIFO, clear its errors and its IRQ */
static void icb_rp2040_fifo_drain(uint32_t cpu)
{
	while (ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_VLD)
		(void)ICB_RP2040_REG(ICB_RP2040_FIFO_RD);
	ICB_RP2040_REG(ICB_RP2040_FIFO_ST) = 0xFFu;	/* WOF, ROE */
	ICB_RP2040_REG(ICB_RP2040_NVIC_ICPR) = 1u << ICB_RP2040_IRQ_SIO(cpu);
}

/*
 * Sleep until rung or for at most ~1 ms.  PRIMASK is set (core_init), so a
 * pending FIFO or SysTick interrupt ends the WFI without being taken, and
 * a ring that comes before the WFI is still in the FIFO.  In event mode
 * WFE returns at once if an event came since the last one (including this
 * core's own SEV), else on the other core's SEV or on SysTick turning
 * pending (SEVONPEND); either way the caller looks at its ring again.
 */
static void icb_rp2040_wait(void *ctx, uint8_t notify)
{
	const struct icb_rp2040_core *c = ctx;
	int event = notify == ICB_NOTIFY_EVENT;

	if (event || !(ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_VLD)) {
		ICB_RP2040_REG(ICB_RP2040_SYST_CVR) = 0;
		ICB_RP2040_REG(ICB_RP2040_SYST_CSR) = 0x7u;	/* enable, TICKINT, CPU clock */
		if (event)
			__asm__ volatile("wfe" ::: "memory");
		else
			__asm__ volatile("dsb\n\twfi" ::: "memory");
		ICB_RP2040_REG(ICB_RP2040_SYST_CSR) = 0;
		ICB_RP2040_REG(ICB_RP2040_SCB_ICSR) = ICB_RP2040_ICSR_PENDSTCLR;
	}
	if (!event)
		icb_rp2040_fifo_drain(c->cpu);
}

/* Not taken while PRIMASK is set; should it ever be, the ring is consumed */
void icb_rp2040_fifo_irq(void)
{
	icb_rp2040_fifo_drain(ICB_RP2040_REG(ICB_RP2040_SIO_CPUID) & 1u);
}

/* --- the scratch region's transport -------------------------------------- */

static int icb_rp2040_banks_send(void *ctx, const struct icb_msg *m, const uint8_t *payload)
{
	return icb_ring_send(&((struct icb_rp2040_banks *)ctx)->tx, m, payload);
}

static int icb_rp2040_banks_recv(void *ctx, struct icb_msg *m, uint8_t *buf, uint32_t cap)
{
	return icb_ring_recv(&((struct icb_rp2040_banks *)ctx)->rx, m, buf, cap);
}

static void icb_rp2040_banks_signal(void *ctx, uint8_t notify)
{
	const struct icb_ring_hooks *h = ((struct icb_rp2040_banks *)ctx)->tx.hooks;

	if (notify != ICB_NOTIFY_POLL)
		h->signal(h->ctx, notify);
}

static void icb_rp2040_banks_wait(void *ctx, uint8_t notify)
{
	const struct icb_ring_hooks *h = ((struct icb_rp2040_banks *)ctx)->rx.hooks;

	if (notify != ICB_NOTIFY_POLL)
		h->wait(h->ctx, notify);
}

/* --- both cores ------------------------------------------------------- */

/* This core's view of every ring pair; the initiator resets them */
static int icb_rp2040_core_init(struct icb_rp2040_core *c, uint32_t cpu)
{
	int initiator = cpu == 0, err;

	c->cpu = cpu;
	c->hooks.ctx = c;
	c->hooks.clean = NULL;
	c->hooks.invalidate = NULL;
	c->hooks.signal = icb_rp2040_signal;
	c->hooks.wait = icb_rp2040_wait;
	c->hooks.relax = NULL;		/* YIELD is a NOP on the Cortex-M0+ */
	err = icb_ring_pair_init(&c->ctl, &c->side.ctl, icb_rp2040_sram + ICB_RP2040_DATA_BYTES,
				 ICB_RP2040_CTL_BYTES, ICB_RP2040_CTL_SLOTS,
				 ICB_RP2040_CTL_PAYLOAD, &c->hooks, initiator, initiator);
	if (!err)
		err = icb_ring_pair_init(&c->sram, &c->side.data[0], icb_rp2040_sram,
					 ICB_RP2040_DATA_BYTES, ICB_RP2040_SLOTS,
					 ICB_RP2040_MAX_SIZE, &c->hooks, initiator, initiator);
	/* initiator → agent in SRAM4, agent → initiator in SRAM5 */
	if (!err)
		err = icb_ring_init(&c->scratch.tx, icb_rp2040_scratch +
				    (initiator ? 0 : ICB_RP2040_BANK_BYTES), ICB_RP2040_BANK_BYTES,
				    ICB_RP2040_SCRATCH_SLOTS, ICB_RP2040_MAX_SIZE, &c->hooks,
				    initiator);
	if (!err)
		err = icb_ring_init(&c->scratch.rx, icb_rp2040_scratch +
				    (initiator ? ICB_RP2040_BANK_BYTES : 0), ICB_RP2040_BANK_BYTES,
				    ICB_RP2040_SCRATCH_SLOTS, ICB_RP2040_MAX_SIZE, &c->hooks,
				    initiator);
	if (!err && (uintptr_t)icb_rp2040_scratch != ICB_RP2040_SRAM4)
		err = -1;
	c->side.data[1].ctx = &c->scratch;
	c->side.data[1].send = icb_rp2040_banks_send;
	c->side.data[1].recv = icb_rp2040_banks_recv;
	c->side.data[1].signal = icb_rp2040_banks_signal;
	c->side.data[1].wait = icb_rp2040_banks_wait;
	c->side.ctl_notify = ICB_NOTIFY_DOORBELL;
	c->side.nregions = ICB_RP2040_REGIONS;
	c->side.timer_ctx = NULL;
	c->side.now = icb_rp2040_now;
	c->side.timer_hz = ICB_RP2040_TIMER_HZ;
	c->side.tx = c->tx;
	c->side.rx = c->rx;
	c->side.buf_cap = ICB_RP2040_MAX_SIZE;
	/*
	 * Interrupts only wake WFI (PRIMASK set for good) and, being pending,
	 * WFE (SEVONPEND); SysTick reloads every 1 ms, armed only inside a
	 * wait; this core's FIFO line enabled
	 */
	__asm__ volatile("cpsid i" ::: "memory");
	ICB_RP2040_REG(ICB_RP2040_SCB_SCR) |= ICB_RP2040_SCR_SEVONPEND;
	ICB_RP2040_REG(ICB_RP2040_SYST_CSR) = 0;
	ICB_RP2040_REG(ICB_RP2040_SYST_RVR) = ICB_RP2040_WAIT_TICKS - 1u;
	icb_rp2040_fifo_drain(cpu);
	ICB_RP2040_REG(ICB_RP2040_NVIC_ISER) = 1u << ICB_RP2040_IRQ_SIO(cpu);
	return err;
}

static void icb_rp2040_halt(void)
{
	for (;;)
		__asm__ volatile("wfi");
}

/* --- core 0: clocks, peripherals, core 1's launch --------------------- */

static void icb_rp2040_unreset(uint32_t bits)
{
	ICB_RP2040_CLR(ICB_RP2040_RESET) = bits;
	while ((ICB_RP2040_REG(ICB_RP2040_RESET_DONE) & bits) != bits)
		;
}

/*
 * XOSC on; clk_sys and clk_ref moved off anything the PLL feeds (whatever
 * the bootrom left: after a USB boot clk_sys may run from PLL_USB); PLL_SYS
 * restarted at 125 MHz; clk_ref onto XOSC, clk_sys onto PLL_SYS, clk_peri
 * onto clk_sys.  The order is the datasheet's ("Clocks", "PLL").
 */
static void icb_rp2040_clocks(void)
{
	volatile uint32_t spin;

	ICB_RP2040_REG(ICB_RP2040_CLK_SYS_RESUS) = 0;
	ICB_RP2040_REG(ICB_RP2040_XOSC_CTRL) = ICB_RP2040_XOSC_1_15MHZ;
	ICB_RP2040_REG(ICB_RP2040_XOSC_STARTUP) = ICB_RP2040_XOSC_DELAY;
	ICB_RP2040_SET(ICB_RP2040_XOSC_CTRL) = ICB_RP2040_XOSC_ENABLE;
	while (!(ICB_RP2040_REG(ICB_RP2040_XOSC_STATUS) & ICB_RP2040_XOSC_STABLE))
		;

	/* clk_sys onto clk_ref (glitchless source 0), clk_ref onto the ROSC */
	ICB_RP2040_CLR(ICB_RP2040_CLK_SYS_CTRL) = 0x1u;
	while (ICB_RP2040_REG(ICB_RP2040_CLK_SYS_SEL) != 0x1u)
		;
	ICB_RP2040_CLR(ICB_RP2040_CLK_REF_CTRL) = 0x3u;
	while (ICB_RP2040_REG(ICB_RP2040_CLK_REF_SEL) != 0x1u)
		;

	/* PLL_SYS: 12 MHz / 1 × 125 = 1500 MHz VCO, / 6 / 2 = 125 MHz */
	ICB_RP2040_SET(ICB_RP2040_RESET) = ICB_RP2040_RST_PLL_SYS;
	icb_rp2040_unreset(ICB_RP2040_RST_PLL_SYS);
	ICB_RP2040_REG(ICB_RP2040_PLL_CS) = 1u;
	ICB_RP2040_REG(ICB_RP2040_PLL_FBDIV) = 125u;
	ICB_RP2040_CLR(ICB_RP2040_PLL_PWR) = ICB_RP2040_PLL_PD | ICB_RP2040_PLL_VCOPD;
	while (!(ICB_RP2040_REG(ICB_RP2040_PLL_CS) & ICB_RP2040_PLL_LOCK))
		;
	ICB_RP2040_REG(ICB_RP2040_PLL_PRIM) = (6u << 16) | (2u << 12);
	ICB_RP2040_CLR(ICB_RP2040_PLL_PWR) = ICB_RP2040_PLL_POSTDIVPD;

	/* clk_ref = XOSC / 1 */
	ICB_RP2040_REG(ICB_RP2040_CLK_REF_DIV) = 1u << 8;
	ICB_RP2040_REG(ICB_RP2040_CLK_REF_CTRL) = ICB_RP2040_CLK_REF_XOSC;
	while (!(ICB_RP2040_REG(ICB_RP2040_CLK_REF_SEL) & (1u << ICB_RP2040_CLK_REF_XOSC)))
		;
	/* clk_sys = aux (AUXSRC 0: PLL_SYS) / 1: aux mux first, then the glitchless one */
	ICB_RP2040_REG(ICB_RP2040_CLK_SYS_DIV) = 1u << 8;
	ICB_RP2040_REG(ICB_RP2040_CLK_SYS_CTRL) = 0u;
	ICB_RP2040_REG(ICB_RP2040_CLK_SYS_CTRL) = 1u;
	while (!(ICB_RP2040_REG(ICB_RP2040_CLK_SYS_SEL) & 0x2u))
		;
	/* clk_peri = clk_sys: stopped while its aux mux changes */
	ICB_RP2040_REG(ICB_RP2040_CLK_PERI_CTRL) = 0u;
	for (spin = 0; spin < 64u; spin++)
		;
	ICB_RP2040_REG(ICB_RP2040_CLK_PERI_CTRL) = ICB_RP2040_CLK_PERI_ENABLE;

	/* The TIMER's microsecond tick: clk_ref / 12 */
	ICB_RP2040_REG(ICB_RP2040_WATCHDOG_TICK) =
		ICB_RP2040_TICK_ENABLE | (ICB_RP2040_XOSC_HZ / ICB_RP2040_TIMER_HZ);
}

static void icb_rp2040_uart_init(void)
{
	ICB_RP2040_SET(ICB_RP2040_RESET) = ICB_RP2040_RST_UART0;
	icb_rp2040_unreset(ICB_RP2040_RST_UART0 | ICB_RP2040_RST_IO_BANK0 |
			   ICB_RP2040_RST_PADS_BANK0 | ICB_RP2040_RST_TIMER);
	ICB_RP2040_REG(ICB_RP2040_UART_IBRD) = 67u;
	ICB_RP2040_REG(ICB_RP2040_UART_FBRD) = 52u;
	/* LCR_H after the divisors latches them: 8 bits, FIFOs on */
	ICB_RP2040_REG(ICB_RP2040_UART_LCR_H) = (3u << 5) | (1u << 4);
	ICB_RP2040_REG(ICB_RP2040_UART_CR) = (1u << 9) | (1u << 8) | 1u;	/* RXE, TXE, UARTEN */
	ICB_RP2040_REG(ICB_RP2040_GPIO_CTRL(0)) = ICB_RP2040_FUNC_UART;
	ICB_RP2040_REG(ICB_RP2040_GPIO_CTRL(1)) = ICB_RP2040_FUNC_UART;
}

static int icb_rp2040_uart_send(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	while (len--) {
		while (ICB_RP2040_REG(ICB_RP2040_UART_FR) & ICB_RP2040_UART_TXFF)
			;
		ICB_RP2040_REG(ICB_RP2040_UART_DR) = *buf++;
	}
	return 0;
}

/* A blocking FIFO pop bounded by `us` microseconds of the TIMER: 0 on time-out */
static int icb_rp2040_fifo_pop(uint32_t *v, uint32_t us)
{
	uint32_t start = icb_rp2040_now(NULL);

	while (!(ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_VLD))
		if ((uint32_t)(icb_rp2040_now(NULL) - start) > us)
			return 0;
	*v = ICB_RP2040_REG(ICB_RP2040_FIFO_RD);
	return 1;
}

/*
 * Restart core 1 (PSM FRCE_OFF) so that it is in the bootrom whatever ran
 * before, then hand it its vector table, stack and entry: the bootrom's
 * sequence 0, 0, 1, VTOR, SP, PC, each word echoed back, restarting on any
 * other echo; a SEV after a 0 wakes a core 1 waiting in WFE (datasheet §2.8.2
 * "Launching Code On Processor Core 1").
 * Returns 0 when core 1 took it, -1 when it stops answering (100 ms a word).
 */
static int icb_rp2040_launch_core1(void)
{
	const uint32_t seq[6] = {
		0, 0, 1, (uint32_t)(uintptr_t)icb_rp2040_vectors1,
		(uint32_t)(uintptr_t)&__stack1_top, (uint32_t)(uintptr_t)icb_rp2040_main1
	};
	uint32_t i = 0, echo, tries = 0;

	ICB_RP2040_SET(ICB_RP2040_PSM_FRCE_OFF) = ICB_RP2040_PSM_PROC1;
	while (!(ICB_RP2040_REG(ICB_RP2040_PSM_FRCE_OFF) & ICB_RP2040_PSM_PROC1))
		;
	ICB_RP2040_CLR(ICB_RP2040_PSM_FRCE_OFF) = ICB_RP2040_PSM_PROC1;
	/* core 1's bootrom drains its FIFO, then pushes a 0 to ours */
	if (!icb_rp2040_fifo_pop(&echo, 100000u))
		return -1;
	while (i < 6) {
		if (seq[i] == 0) {
			while (ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_VLD)
				(void)ICB_RP2040_REG(ICB_RP2040_FIFO_RD);
			__asm__ volatile("sev");
		}
		while (!(ICB_RP2040_REG(ICB_RP2040_FIFO_ST) & ICB_RP2040_FIFO_RDY))
			;
		ICB_RP2040_REG(ICB_RP2040_FIFO_WR) = seq[i];
		__asm__ volatile("sev");
		if (!icb_rp2040_fifo_pop(&echo, 100000u) || ++tries > 60u)
			return -1;
		i = echo == seq[i] ? i + 1 : 0;
	}
	return 0;
}

void icb_rp2040_main0(void)
{
	static const char labels[] =
		"port=rp2040\n"
		"board=raspberry-pi-pico\n"
		"cores=cortex-m0plus-x2\n"
		"clock=xosc-12mhz-pll-sys\n"
		"cpu_hz=125000000\n"
		"timer=timer-timerawl-1mhz\n"
		"doorbell=sio-fifo\n"
		"event=sev-wfe\n"
		"regions=sram:striped-sram0-3,scratch:sram4-i2a+sram5-a2i\n"
		"load=sram-no-flash\n"
		"cflags=" ICB_RP2040_CFLAGS "\n";
	struct icb_rp2040_core *c = &icb_rp2040_cores[0];
	struct icb_responder_config cfg;
	struct icb_platform plat;
	uint8_t in[64];
	uint32_t i;

	icb_rp2040_clocks();
	icb_rp2040_uart_init();
	if (icb_rp2040_core_init(c, 0))
		icb_rp2040_halt();

	icb_rp2040_chip.cores = 2;
	icb_rp2040_chip.notify = ICB_NOTIFY_POLL | ICB_NOTIFY_DOORBELL | ICB_NOTIFY_EVENT;
	icb_rp2040_chip.timer_hz = ICB_RP2040_TIMER_HZ;
	icb_rp2040_chip.max_size = ICB_RP2040_MAX_SIZE;
	icb_rp2040_chip.nregions = ICB_RP2040_REGIONS;
	for (i = 0; i < ICB_RP2040_REGIONS; i++)
		icb_rp2040_chip.regions[i] = icb_rp2040_region_names[i];
	icb_rp2040_chip.labels = labels;
	icb_rp2040_initiator.side = &c->side;
	icb_rp2040_initiator.chip = &icb_rp2040_chip;
	icb_rp2040_initiator.hist = &icb_rp2040_hist;
	icb_rp2040_initiator.msg = icb_rp2040_msg;
	icb_rp2040_initiator.msg_cap = sizeof(icb_rp2040_msg);

	/*
	 * The rings are reset: launch core 1 (a core 1 that never answers
	 * leaves CHIP served and every cell timing out)
	 */
	__asm__ volatile("dsb" ::: "memory");
	(void)icb_rp2040_launch_core1();
	icb_rp2040_fifo_drain(0);

	plat.ctx = NULL;
	plat.send = icb_rp2040_uart_send;
	plat.now = NULL;		/* the responder announces no clock */
	icb_responder_config_default(&cfg);
	cfg.proto = ICB_PROTO_ICB;
	if (icb_responder_init(&icb_rp2040_responder, &cfg, &plat, icb_rp2040_rx_frame,
			       sizeof(icb_rp2040_rx_frame), icb_rp2040_tx_frame,
			       sizeof(icb_rp2040_tx_frame)) < 0)
		icb_rp2040_halt();
	icb_responder_set_extra(&icb_rp2040_responder, icb_oc_serve, &icb_rp2040_initiator);
	for (;;) {
		size_t n = 0;

		/* Wait for one byte, then take what else has arrived */
		while (ICB_RP2040_REG(ICB_RP2040_UART_FR) & ICB_RP2040_UART_RXFE)
			;
		do {
			in[n++] = (uint8_t)ICB_RP2040_REG(ICB_RP2040_UART_DR);
		} while (n < sizeof(in) &&
			 !(ICB_RP2040_REG(ICB_RP2040_UART_FR) & ICB_RP2040_UART_RXFE));
		icb_responder_input(&icb_rp2040_responder, in, n);
	}
}

/* --- core 1: the agent -------------------------------------------------- */

void icb_rp2040_main1(void)
{
	struct icb_rp2040_core *c = &icb_rp2040_cores[1];

	if (icb_rp2040_core_init(c, 1))
		icb_rp2040_halt();
	for (;;)
		if (!icb_oc_agent_poll(&c->side))
			c->side.ctl.wait(c->side.ctl.ctx, c->side.ctl_notify);
}
