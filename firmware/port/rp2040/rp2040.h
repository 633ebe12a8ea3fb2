/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * RP2040 (two Cortex-M0+): the registers the on-chip benchmark port uses.
 * Written from the RP2040 datasheet (Raspberry Pi Ltd), sections named
 * beside each block; addresses, offsets and bit positions were checked
 * against the register headers of the Raspberry Pi Pico SDK 2.2.0
 * (src/rp2040/hardware_regs), read as a source of facts only, and the
 * core's against the ARMv6-M Architecture Reference Manual (DDI 0419).
 * No SDK code or header is used.
 *
 * NOT YET RUN ON HARDWARE: only built so far (docs/boards.md).
 */
#ifndef ICB_RP2040_H
#define ICB_RP2040_H

#include <stdint.h>

#define ICB_RP2040_REG(a)	(*(volatile uint32_t *)(uintptr_t)(a))
/*
 * Datasheet "Atomic Register Access" (Bus Fabric): every APB/AHB-Lite peripheral
 * register has aliases that XOR (+0x1000), set (+0x2000) or clear
 * (+0x3000) the bits written.  Not the SIO, which needs none.
 */
#define ICB_RP2040_SET(a)	ICB_RP2040_REG((a) + 0x2000u)
#define ICB_RP2040_CLR(a)	ICB_RP2040_REG((a) + 0x3000u)

/*
 * Clocks (datasheet "Clocks", "Crystal Oscillator (XOSC)", "PLL"):
 * the port runs clk_sys (both cores, the bus) and clk_peri (UART0) at
 * 125 MHz from PLL_SYS, fed by the 12 MHz crystal of the Pico board
 * (12 MHz / REFDIV 1 × FBDIV 125 = 1500 MHz VCO, / POSTDIV1 6 / POSTDIV2 2);
 * clk_ref is the crystal itself, 12 MHz, and the watchdog's tick divides it
 * by 12 for the TIMER's 1 MHz count.
 */
#define ICB_RP2040_XOSC_HZ	12000000u
#define ICB_RP2040_SYS_HZ	125000000u
#define ICB_RP2040_TIMER_HZ	1000000u

/* XOSC, base 0x40024000 */
#define ICB_RP2040_XOSC		0x40024000u
#define ICB_RP2040_XOSC_CTRL	(ICB_RP2040_XOSC + 0x00u)	/* FREQ_RANGE 11:0, ENABLE 23:12 */
#define ICB_RP2040_XOSC_STATUS	(ICB_RP2040_XOSC + 0x04u)	/* STABLE bit 31 */
#define ICB_RP2040_XOSC_STARTUP	(ICB_RP2040_XOSC + 0x0Cu)	/* DELAY 13:0, in 256-cycle units */
#define ICB_RP2040_XOSC_1_15MHZ	0xAA0u
#define ICB_RP2040_XOSC_ENABLE	(0xFABu << 12)
#define ICB_RP2040_XOSC_STABLE	(1u << 31)
/* ~1 ms of the 12 MHz crystal: (12000 kHz + 128) / 256 */
#define ICB_RP2040_XOSC_DELAY	47u

/* PLL_SYS, base 0x40028000 */
#define ICB_RP2040_PLL_SYS	0x40028000u
#define ICB_RP2040_PLL_CS	(ICB_RP2040_PLL_SYS + 0x00u)	/* REFDIV 5:0, LOCK bit 31 */
#define ICB_RP2040_PLL_PWR	(ICB_RP2040_PLL_SYS + 0x04u)	/* PD 0, POSTDIVPD 3, VCOPD 5 */
#define ICB_RP2040_PLL_FBDIV	(ICB_RP2040_PLL_SYS + 0x08u)
#define ICB_RP2040_PLL_PRIM	(ICB_RP2040_PLL_SYS + 0x0Cu)	/* POSTDIV1 18:16, POSTDIV2 14:12 */
#define ICB_RP2040_PLL_LOCK	(1u << 31)
#define ICB_RP2040_PLL_PD	(1u << 0)
#define ICB_RP2040_PLL_POSTDIVPD (1u << 3)
#define ICB_RP2040_PLL_VCOPD	(1u << 5)

/*
 * CLOCKS, base 0x40008000: each clock has CTRL, DIV, SELECTED.  clk_ref's
 * glitchless SRC (bits 1:0): 0 ROSC, 2 XOSC; clk_sys's SRC (bit 0): 0
 * clk_ref, 1 its aux mux, whose AUXSRC (bits 7:5) 0 is PLL_SYS.  SELECTED
 * is one-hot over the glitchless sources.  clk_peri: AUXSRC (7:5) 0 is
 * clk_sys, ENABLE bit 11.  DIV: integer part at bit 8.
 */
#define ICB_RP2040_CLOCKS	0x40008000u
#define ICB_RP2040_CLK_REF_CTRL	(ICB_RP2040_CLOCKS + 0x30u)
#define ICB_RP2040_CLK_REF_DIV	(ICB_RP2040_CLOCKS + 0x34u)
#define ICB_RP2040_CLK_REF_SEL	(ICB_RP2040_CLOCKS + 0x38u)
#define ICB_RP2040_CLK_SYS_CTRL	(ICB_RP2040_CLOCKS + 0x3Cu)
#define ICB_RP2040_CLK_SYS_DIV	(ICB_RP2040_CLOCKS + 0x40u)
#define ICB_RP2040_CLK_SYS_SEL	(ICB_RP2040_CLOCKS + 0x44u)
#define ICB_RP2040_CLK_PERI_CTRL (ICB_RP2040_CLOCKS + 0x48u)
#define ICB_RP2040_CLK_SYS_RESUS (ICB_RP2040_CLOCKS + 0x78u)
#define ICB_RP2040_CLK_REF_XOSC	2u
#define ICB_RP2040_CLK_PERI_ENABLE (1u << 11)

/*
 * RESETS ("Subsystem Resets"), base 0x4000C000: RESET +0x0 holds a
 * block in reset while its bit is set, RESET_DONE +0x8 reads 1 once it is
 * out.
 */
#define ICB_RP2040_RESETS	0x4000C000u
#define ICB_RP2040_RESET	(ICB_RP2040_RESETS + 0x0u)
#define ICB_RP2040_RESET_DONE	(ICB_RP2040_RESETS + 0x8u)
#define ICB_RP2040_RST_IO_BANK0	(1u << 5)
#define ICB_RP2040_RST_PADS_BANK0 (1u << 8)
#define ICB_RP2040_RST_PLL_SYS	(1u << 12)
#define ICB_RP2040_RST_TIMER	(1u << 21)
#define ICB_RP2040_RST_UART0	(1u << 22)

/*
 * PSM ("Power-On State Machine"), base 0x40010000: FRCE_OFF +0x4,
 * bit 16 holds processor 1 powered off; clearing it restarts core 1 in the
 * bootrom, which then waits on its FIFO for the launch sequence.
 */
#define ICB_RP2040_PSM_FRCE_OFF	0x40010004u
#define ICB_RP2040_PSM_PROC1	(1u << 16)

/*
 * TIMER ("Timer"), base 0x40054000: a 64-bit count of the watchdog's
 * microsecond tick, one device both cores read.  TIMERAWL (+0x28) is its
 * low word without the TIMELR/TIMEHR latch, so both cores may read it at
 * any time.
 */
#define ICB_RP2040_TIMERAWL	0x40054028u

/*
 * WATCHDOG ("Watchdog"), base 0x40058000: TICK (+0x2C) divides
 * clk_ref by CYCLES (8:0) into the tick the TIMER counts; ENABLE bit 9.
 */
#define ICB_RP2040_WATCHDOG_TICK 0x4005802Cu
#define ICB_RP2040_TICK_ENABLE	(1u << 9)

/*
 * UART0 ("UART", an Arm PL011), base 0x40034000: DR +0x00, FR +0x18
 * (RXFE bit 4, TXFF bit 5), IBRD +0x24, FBRD +0x28, LCR_H +0x2C (FEN bit
 * 4, WLEN 6:5), CR +0x30 (UARTEN bit 0, TXE bit 8, RXE bit 9).  Divisor at
 * 125 MHz for 115200 Bd: 125e6 / (16 × 115200) = 67.817 → IBRD 67, FBRD
 * round(0.817 × 64) = 52 (115207 Bd, +0.006 %).
 */
#define ICB_RP2040_UART0	0x40034000u
#define ICB_RP2040_UART_DR	(ICB_RP2040_UART0 + 0x00u)
#define ICB_RP2040_UART_FR	(ICB_RP2040_UART0 + 0x18u)
#define ICB_RP2040_UART_IBRD	(ICB_RP2040_UART0 + 0x24u)
#define ICB_RP2040_UART_FBRD	(ICB_RP2040_UART0 + 0x28u)
#define ICB_RP2040_UART_LCR_H	(ICB_RP2040_UART0 + 0x2Cu)
#define ICB_RP2040_UART_CR	(ICB_RP2040_UART0 + 0x30u)
#define ICB_RP2040_UART_RXFE	(1u << 4)
#define ICB_RP2040_UART_TXFF	(1u << 5)

/*
 * IO_BANK0 ("GPIO"), base 0x40014000: GPIOn_CTRL at +0x8n+4,
 * FUNCSEL (4:0) 2 is UART: GP0 = UART0 TX, GP1 = UART0 RX.  The pads
 * (PADS_BANK0) keep their reset setting: input enabled, output not disabled.
 */
#define ICB_RP2040_GPIO_CTRL(n)	(0x40014004u + 8u * (n))
#define ICB_RP2040_FUNC_UART	2u

/*
 * SIO (datasheet "SIO"), base 0xD0000000, each core's own view: CPUID +0x000
 * (0 or 1); the inter-core FIFOs ("Inter-processor FIFOs"):
 * FIFO_ST +0x050 (VLD bit 0: this core's RX FIFO holds a word; RDY bit 1:
 * its TX FIFO has room; WOF bit 2, ROE bit 3: sticky errors, cleared by any
 * write), FIFO_WR +0x054, FIFO_RD +0x058.  8 words each way.  A core's
 * SIO_IRQ_PROCn (IRQ 15 for core 0, 16 for core 1) is VLD | WOF | ROE.
 */
#define ICB_RP2040_SIO_CPUID	0xD0000000u
#define ICB_RP2040_FIFO_ST	0xD0000050u
#define ICB_RP2040_FIFO_WR	0xD0000054u
#define ICB_RP2040_FIFO_RD	0xD0000058u
#define ICB_RP2040_FIFO_VLD	(1u << 0)
#define ICB_RP2040_FIFO_RDY	(1u << 1)
#define ICB_RP2040_IRQ_SIO(core) (15u + (core))

/* Each core's own System Control Space (ARMv6-M, DDI 0419) */
#define ICB_RP2040_SYST_CSR	0xE000E010u	/* SysTick: enable, TICKINT, CPU clock */
#define ICB_RP2040_SYST_RVR	0xE000E014u
#define ICB_RP2040_SYST_CVR	0xE000E018u
#define ICB_RP2040_NVIC_ISER	0xE000E100u
#define ICB_RP2040_NVIC_ICPR	0xE000E280u
#define ICB_RP2040_SCB_ICSR	0xE000ED04u
#define ICB_RP2040_ICSR_PENDSTCLR (1u << 25)
#define ICB_RP2040_SCB_VTOR	0xE000ED08u
#define ICB_RP2040_SCB_SCR	0xE000ED10u
#define ICB_RP2040_SCR_SEVONPEND (1u << 4)

/*
 * Memory (datasheet "Memory"): SRAM0-3, 4 × 64 KiB word-striped at 0x20000000
 * ("striped": consecutive words in consecutive banks); SRAM4 and SRAM5,
 * 4 KiB each, unstriped at 0x20040000 and 0x20041000 (the "scratch"
 * banks).  Each bank is its own port on the bus fabric.
 */
#define ICB_RP2040_SRAM4	0x20040000u
#define ICB_RP2040_SRAM5	0x20041000u
#define ICB_RP2040_BANK_BYTES	0x1000u

/* startup.c → main.c: each core's entry, on its own stack */
void icb_rp2040_main0(void);
void icb_rp2040_main1(void);
/* main.c → startup.c: a core's SIO FIFO interrupt (a ring outside a wait) */
void icb_rp2040_fifo_irq(void);
/* startup.c: core 1's vector table and stack (the launch sequence) */
extern void (*const icb_rp2040_vectors1[])(void);
extern uint32_t __stack1_top;

#endif /* ICB_RP2040_H */
