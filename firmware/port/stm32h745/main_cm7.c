/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark (docs/on-chip.md) on an STM32H745 (Nucleo-H745ZI-Q):
 * the Cortex-M7 image, the initiator, behind the icb responder on USART3
 * (the ST-LINK's virtual COM port, PD8/PD9, 115200 8N1).  The Cortex-M4
 * image (main_cm4.c) is the agent.  Modelled on port/an521/main.c.
 *
 * NOT YET RUN ON HARDWARE.  It is built (make -C firmware ports) and has
 * never run on a board; docs/boards.md ("On-chip agent ports") has the
 * steps for someone with one: flash build/ports/stm32h745-cm7.hex (bank 1)
 * and stm32h745-cm4.hex (bank 2), reset, then
 *   icbench chip -L 'serial:/dev/ttyACM0?baud=115200' --notify poll,doorbell
 *
 *   clocks   the reset clock tree: HSI 64 MHz drives both cores, the buses,
 *            USART3 and TIM2 (h745.h); nothing is reprogrammed
 *   timer    TIM2, a 32-bit counter on APB1 (D2) free-running at 64 MHz
 *            (15.6 ns a tick); both cores read its CNT.  The Cortex-M4
 *            reaches it within D2, the Cortex-M7 across the AXI-to-AHB/APB
 *            bridges, so a read costs the M7 more cycles than the M4
 *   regions  "D1" AXI SRAM 0x24000000, "D2" SRAM1 0x30000000, "D3" SRAM4
 *            0x38000000 (shared.h, rings.ld); this core's own memory is DTCM
 *   notify   poll, and doorbell: the HSEM (common.c)
 *   cache    ICB_H745_CACHE (Makefile): 0 caches off; 1 (the default) I- and
 *            D-cache on, the three 64 KiB ring windows made Normal
 *            non-cacheable by the MPU; 2 caches on, rings cacheable, the
 *            ring's clean/invalidate hooks doing D-cache maintenance by
 *            address (DCCMVAC, DCIMVAC; 32-byte lines, as the ring is laid
 *            out for).  The Cortex-M4 has no data cache; its flash fetches
 *            go through the ART accelerator (main_cm4.c).  Before any of
 *            it, the ring memory is zeroed with word stores (ECC, shared.h)
 *   start    both cores boot with the option bytes as shipped; the Cortex-M4
 *            attaches once this core holds HSEM semaphore 2 (startup.c)
 */
#include <stddef.h>
#include <stdint.h>

#include "h745.h"
#include "icb_onchip.h"
#include "icb_responder.h"
#include "icb_xport.h"
#include "shared.h"

#ifndef ICB_H745_CACHE
#define ICB_H745_CACHE 1
#endif
#ifndef ICB_H745_FRAME
#define ICB_H745_FRAME 1024
#endif
/* Both images' compiler flags, for the CHIP labels (the Makefile passes them) */
#ifndef ICB_H745_CFLAGS
#define ICB_H745_CFLAGS "unknown"
#endif
#ifndef ICB_H745_CM4_CFLAGS
#define ICB_H745_CM4_CFLAGS "unknown"
#endif

#if ICB_H745_CACHE == 0
#define ICB_H745_CACHE_LABELS "icache=off\ndcache=off\n"
#elif ICB_H745_CACHE == 1
#define ICB_H745_CACHE_LABELS "icache=on\ndcache=on-rings-noncacheable-mpu\n"
#elif ICB_H745_CACHE == 2
#define ICB_H745_CACHE_LABELS "icache=on\ndcache=on-rings-clean-invalidate\n"
#else
#error "ICB_H745_CACHE is 0 (off), 1 (rings non-cacheable) or 2 (maintained)"
#endif

static const char *const icb_h745_region_names[ICB_H745_REGIONS] = { "D1", "D2", "D3" };

/* All in DTCM (cm7.ld): never cached, private to this core */
static struct icb_h745_core icb_h745_core;
static struct icb_oc_chip icb_h745_chip;
static struct icb_hist icb_h745_hist;
static uint8_t icb_h745_msg[ICB_OC_RESULT_MAX];
static struct icb_oc_initiator icb_h745_initiator;
static uint8_t icb_h745_rx_frame[ICB_H745_FRAME];
static uint8_t icb_h745_tx_frame[ICB_H745_FRAME];
static struct icb_responder icb_h745_responder;

/* --- the Cortex-M7's caches (ARMv7-M cache maintenance, DDI 0403 B2.2.7) --- */

#if ICB_H745_CACHE != 0
/* Invalidate, then enable the I-cache and the D-cache (both off at reset) */
static void icb_h745_caches_on(void)
{
	uint32_t ccsidr, sets, ways;

	__asm__ volatile("dsb\n\tisb" ::: "memory");
	ICB_H745_REG(ICB_H745_ICIALLU) = 0;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	ICB_H745_REG(ICB_H745_SCB_CCR) |= ICB_H745_CCR_IC;
	__asm__ volatile("dsb\n\tisb" ::: "memory");

	/* The L1 data cache's geometry; every line invalidated by set and way */
	ICB_H745_REG(ICB_H745_SCB_CSSELR) = 0;
	__asm__ volatile("dsb" ::: "memory");
	ccsidr = ICB_H745_REG(ICB_H745_SCB_CCSIDR);
	sets = (ccsidr >> 13) & 0x7FFFu;	/* NumSets - 1 */
	do {
		ways = (ccsidr >> 3) & 0x3FFu;	/* Associativity - 1 */
		do {
			/* Cortex-M7: set at bit 5 (32-byte lines), way at bit 30 (4 ways) */
			ICB_H745_REG(ICB_H745_DCISW) = ((sets & 0x1FFu) << 5) | ((ways & 0x3u) << 30);
		} while (ways-- != 0);
	} while (sets-- != 0);
	__asm__ volatile("dsb" ::: "memory");
	ICB_H745_REG(ICB_H745_SCB_CCR) |= ICB_H745_CCR_DC;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
}
#endif

#if ICB_H745_CACHE == 1
/*
 * MPU regions 0..2 over the three ring windows: Normal memory,
 * non-cacheable (TEX = 001, C = 0, B = 0), shareable, read-write, never
 * executed; the default memory map stays behind them (PRIVDEFENA).
 */
static void icb_h745_mpu(void)
{
	static const uint32_t base[ICB_H745_REGIONS] = {
		ICB_H745_D1_BASE, ICB_H745_D2_BASE, ICB_H745_D3_BASE
	};
	uint32_t i;

	__asm__ volatile("dmb" ::: "memory");
	ICB_H745_REG(ICB_H745_MPU_CTRL) = 0;
	for (i = 0; i < ICB_H745_REGIONS; i++) {
		ICB_H745_REG(ICB_H745_MPU_RNR) = i;
		ICB_H745_REG(ICB_H745_MPU_RBAR) = base[i];
		ICB_H745_REG(ICB_H745_MPU_RASR) =
			(1u << 28) |				/* XN */
			(3u << 24) |				/* AP: read-write */
			(1u << 19) |				/* TEX = 001 */
			(1u << 18) |				/* S */
			((ICB_H745_WINDOW_LOG2 - 1u) << 1) |	/* SIZE: 64 KiB */
			1u;					/* ENABLE */
	}
	ICB_H745_REG(ICB_H745_MPU_CTRL) = (1u << 2) | 1u;	/* PRIVDEFENA, ENABLE */
	__asm__ volatile("dsb\n\tisb" ::: "memory");
}
#endif

#if ICB_H745_CACHE == 2
/* Write the lines of [p, p+n) back to memory (D-cache clean by address) */
static void icb_h745_clean(void *ctx, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)31u, end = (uintptr_t)p + n;

	(void)ctx;
	__asm__ volatile("dsb" ::: "memory");
	for (; a < end; a += 32u)
		ICB_H745_REG(ICB_H745_DCCMVAC) = (uint32_t)a;
	__asm__ volatile("dsb" ::: "memory");
}

/* Drop the lines of [p, p+n) (D-cache invalidate by address) */
static void icb_h745_invalidate(void *ctx, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)31u, end = (uintptr_t)p + n;

	(void)ctx;
	__asm__ volatile("dsb" ::: "memory");
	for (; a < end; a += 32u)
		ICB_H745_REG(ICB_H745_DCIMVAC) = (uint32_t)a;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
}
#endif

/* --- USART3 on PD8/PD9 -------------------------------------------------- */

static void icb_h745_uart_init(void)
{
	uint32_t v;

	/* PD8, PD9: alternate function 7; a pull-up on RX for an idle line */
	v = ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_AFRH);
	v &= ~0xFFu;
	v |= ICB_H745_AF_USART3 | (ICB_H745_AF_USART3 << 4);
	ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_AFRH) = v;
	v = ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_PUPDR);
	v = (v & ~(0xFu << 16)) | (0x1u << 18);
	ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_PUPDR) = v;
	v = ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_MODER);
	v = (v & ~(0xFu << 16)) | (0xAu << 16);
	ICB_H745_REG(ICB_H745_GPIOD + ICB_H745_GPIO_MODER) = v;

	/* 8N1, oversampling by 16, FIFO off; an overrun overwrites, never blocks */
	ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_CR1) = 0;
	ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_BRR) = ICB_H745_USART_BRR_115200;
	ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_CR3) = ICB_H745_USART_OVRDIS;
	ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_CR1) =
		ICB_H745_USART_UE | ICB_H745_USART_RE | ICB_H745_USART_TE;
}

static int icb_h745_uart_send(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	while (len--) {
		while (!(ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_ISR) & ICB_H745_USART_TXE))
			;
		ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_TDR) = *buf++;
	}
	return 0;
}

static void icb_h745_halt(void)
{
	for (;;)
		__asm__ volatile("wfi");
}

void icb_h745_main(void)
{
	static const char labels[] =
		"port=stm32h745\n"
		"board=nucleo-h745zi-q\n"
		"cores=cortex-m7+cortex-m4\n"
		"clock=hsi-64mhz-reset-tree\n"
		"cm7_hz=64000000\n"
		"cm4_hz=64000000\n"
		"timer=tim2-64mhz\n"
		"doorbell=hsem\n"
		ICB_H745_CACHE_LABELS
		"flash_wait_states=7\n"
		"cflags=" ICB_H745_CFLAGS "\n"
		"cm4_cflags=" ICB_H745_CM4_CFLAGS "\n";
	struct icb_h745_core *c = &icb_h745_core;
	struct icb_responder_config cfg;
	struct icb_platform plat;
	uint8_t in[64];
	uint32_t i;

	/* Revision Y: the AXI SRAM read erratum's workaround (h745.h) */
	if ((ICB_H745_REG(ICB_H745_DBGMCU_IDCODE) >> 16) < ICB_H745_REV_V)
		ICB_H745_REG(ICB_H745_AXI_TARG7_FN_MOD) = 1u;

	/* What CPU1 uses: D2 SRAM, GPIOD, HSEM, TIM2, USART3 (read back: landed) */
	ICB_H745_REG(ICB_H745_RCC_C1 + ICB_H745_RCC_AHB2ENR) |= ICB_H745_AHB2_SRAM123;
	ICB_H745_REG(ICB_H745_RCC_C1 + ICB_H745_RCC_AHB4ENR) |=
		ICB_H745_AHB4_GPIOD | ICB_H745_AHB4_HSEM;
	ICB_H745_REG(ICB_H745_RCC_C1 + ICB_H745_RCC_APB1LENR) |=
		ICB_H745_APB1L_TIM2 | ICB_H745_APB1L_USART3;
	(void)ICB_H745_REG(ICB_H745_RCC_C1 + ICB_H745_RCC_APB1LENR);

	/* The ring memory written whole, then the caches (both off until here) */
	icb_h745_rings_zero();
#if ICB_H745_CACHE == 1
	icb_h745_mpu();
#endif
#if ICB_H745_CACHE != 0
	icb_h745_caches_on();
#endif

	/* The shared timer: free-running over 32 bits at the timer clock */
	ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_CR1) = 0;
	ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_PSC) = 0;
	ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_ARR) = 0xFFFFFFFFu;
	ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_EGR) = 1u;	/* UG: load PSC */
	ICB_H745_REG(ICB_H745_TIM2 + ICB_H745_TIM_CR1) = 1u;	/* CEN */

	icb_h745_uart_init();
#if ICB_H745_CACHE == 2
	if (icb_h745_core_init(c, 1, icb_h745_clean, icb_h745_invalidate))
		icb_h745_halt();
#else
	if (icb_h745_core_init(c, 1, NULL, NULL))
		icb_h745_halt();
#endif

	icb_h745_chip.cores = 2;
	icb_h745_chip.notify = ICB_NOTIFY_POLL | ICB_NOTIFY_DOORBELL;
	icb_h745_chip.timer_hz = ICB_H745_HZ;
	icb_h745_chip.max_size = ICB_H745_MAX_SIZE;
	icb_h745_chip.nregions = ICB_H745_REGIONS;
	for (i = 0; i < ICB_H745_REGIONS; i++)
		icb_h745_chip.regions[i] = icb_h745_region_names[i];
	icb_h745_chip.labels = labels;
	icb_h745_initiator.side = &c->side;
	icb_h745_initiator.chip = &icb_h745_chip;
	icb_h745_initiator.hist = &icb_h745_hist;
	icb_h745_initiator.msg = icb_h745_msg;
	icb_h745_initiator.msg_cap = sizeof(icb_h745_msg);

	/*
	 * The rings are reset: hold the "ready" semaphore for good (the
	 * Cortex-M4 attaches when it sees it), and let CPU2 boot should the
	 * option bytes hold it (BCM4 = 0; harmless when it already runs).
	 */
	__asm__ volatile("dsb" ::: "memory");
	if (ICB_H745_REG(ICB_H745_HSEM_RLR(ICB_H745_SEM_READY)) !=
	    (ICB_H745_HSEM_LOCK | (ICB_H745_COREID_CM7 << 8)))
		icb_h745_halt();
	ICB_H745_REG(ICB_H745_RCC_GCR) |= ICB_H745_RCC_GCR_BOOT_C2;

	plat.ctx = NULL;
	plat.send = icb_h745_uart_send;
	plat.now = NULL;		/* the responder announces no clock */
	icb_responder_config_default(&cfg);
	cfg.proto = ICB_PROTO_ICB;
	if (icb_responder_init(&icb_h745_responder, &cfg, &plat, icb_h745_rx_frame,
			       sizeof(icb_h745_rx_frame), icb_h745_tx_frame,
			       sizeof(icb_h745_tx_frame)) < 0)
		icb_h745_halt();
	icb_responder_set_extra(&icb_h745_responder, icb_oc_serve, &icb_h745_initiator);
	for (;;) {
		size_t n = 0;

		/* Wait for one byte, then take what else has arrived */
		while (!(ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_ISR) & ICB_H745_USART_RXNE))
			;
		do {
			in[n++] = (uint8_t)ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_RDR);
		} while (n < sizeof(in) &&
			 (ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_ISR) & ICB_H745_USART_RXNE));
		ICB_H745_REG(ICB_H745_USART3 + ICB_H745_USART_ICR) = ICB_H745_USART_ERRORS;
		icb_responder_input(&icb_h745_responder, in, n);
	}
}
