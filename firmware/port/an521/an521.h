/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * QEMU's mps2-an521 (Arm SSE-200: two Cortex-M33, both booting Secure):
 * the registers the on-chip benchmark port uses, at their Secure aliases.
 *
 * Sources: QEMU hw/arm/armsse.c (the SSE-200 address map, the aliases
 * 0x1xxxxxxx → 0x0xxxxxxx, 0x3xxxxxxx → 0x2xxxxxxx, 0x5xxxxxxx →
 * 0x4xxxxxxx, the per-CPU IRQs), hw/arm/mps2-tz.c (the AN521 FPGA's UARTs
 * and RAMs, SYSCLK 20 MHz), hw/misc/iotkit-sysctl.c (CPUWAIT, INITSVTOR1),
 * hw/misc/armsse-mhu.c (the doorbells), hw/timer/cmsdk-apb-timer.c; the
 * Arm SSE-200 TRM (101104) and Application Note AN521.  Each was also
 * checked on qemu-system-arm 7.2 (Debian 12) by a probe image; what it
 * read back is noted beside the register.
 */
#ifndef ICB_AN521_H
#define ICB_AN521_H

#include <stdint.h>

#define ICB_AN521_REG(a)	(*(volatile uint32_t *)(uintptr_t)(a))

/*
 * MAINCLK = the AN521's SYSCLK (mps2-tz.c: sysclk_frq 20 MHz): the CPUs,
 * the APB timers and the UARTs.  Measured: timer0 advanced 40.56 M ticks
 * in 2.028 s of host time (19.999 MHz).
 */
#define ICB_AN521_SYSCLK_HZ	20000000u

/*
 * CPU_IDENTITY (armsse.c: a per-CPU block at 0x4001F000, Secure alias
 * 0x5001F000): CPUID reads 0 on CPU0, 1 on CPU1 (read back: 0 and 1).
 */
#define ICB_AN521_CPUID		0x5001F000u

/*
 * System control (armsse.c: iotkit-sysctl at 0x50021000, Secure only;
 * iotkit-sysctl.c): INITSVTOR1 (+0x114) is CPU1's reset vector table,
 * CPUWAIT (+0x118) resets to 2 (CPU1 held, "start-powered-off"); clearing
 * bit 1 powers CPU1 up and resets it.  Read back before release: CPUWAIT
 * 2, INITSVTOR0/1 0x10000000; after: CPUWAIT 0, CPU1 ran with the SP of
 * the table written to INITSVTOR1.
 */
#define ICB_AN521_INITSVTOR1	0x50021114u
#define ICB_AN521_CPUWAIT	0x50021118u
#define ICB_AN521_CPUWAIT_CPU1	0x2u

/*
 * CMSDK APB timer0 (armsse.c: 0x40000000 behind APB PPC0, Secure alias
 * 0x50000000, clocked by MAINCLK; one device both CPUs see).  VALUE
 * counts down at 20 MHz and reloads from RELOAD after 0.
 */
#define ICB_AN521_TIMER0	0x50000000u
#define ICB_AN521_TIMER_CTRL	0x00u	/* bit 0: enable */
#define ICB_AN521_TIMER_VALUE	0x04u
#define ICB_AN521_TIMER_RELOAD	0x08u

/*
 * MHU0 (armsse.c: 0x40003000 behind APB PPC0, Secure alias 0x50003000;
 * armsse-mhu.c): CPU0INTR_STAT/SET/CLR at +0x0/+0x4/+0x8 drive CPU0's IRQ 6,
 * CPU1INTR_STAT/SET/CLR at +0x10/+0x14/+0x18 CPU1's IRQ 6; the line is
 * high while any of the 4 STAT bits is set.  Read back: CPU1 wrote
 * CPU0INTR_SET = 1, CPU0 read STAT 1, wrote CLR 1, read 0.
 */
#define ICB_AN521_MHU0		0x50003000u
#define ICB_AN521_MHU_IRQ	6u
#define ICB_AN521_MHU_STAT(cpu)	(ICB_AN521_MHU0 + 0x10u * (cpu))
#define ICB_AN521_MHU_SET(cpu)	(ICB_AN521_MHU0 + 0x10u * (cpu) + 0x4u)
#define ICB_AN521_MHU_CLR(cpu)	(ICB_AN521_MHU0 + 0x10u * (cpu) + 0x8u)

/*
 * CMSDK APB UART0 (mps2-tz.c: 0x40200000 behind the FPGA's APB PPC
 * expansion 1, Secure alias 0x50200000; QEMU's -serial 0).  Checked: bytes
 * written at 0x50200000 appear on the -serial pty.
 */
#define ICB_AN521_UART0		0x50200000u

/*
 * Each CPU's own System Control Space (ARMv8-M: NVIC, SysTick, SCB).
 * SysTick runs on the CPU clock (CTRL.CLKSOURCE = 1; the SSE-200 wires
 * no reference clock, armsse.c).
 */
#define ICB_AN521_SYST_CSR	0xE000E010u
#define ICB_AN521_SYST_RVR	0xE000E014u
#define ICB_AN521_SYST_CVR	0xE000E018u
#define ICB_AN521_NVIC_ISER0	0xE000E100u
#define ICB_AN521_NVIC_ICPR0	0xE000E280u
#define ICB_AN521_SCB_ICSR	0xE000ED04u
#define ICB_AN521_ICSR_PENDSTCLR (1u << 25)

/* startup.c → main.c: each core's entry, on its own stack */
void icb_an521_main0(void);
void icb_an521_main1(void);

/* main.c → startup.c: the MHU0 interrupt (a doorbell rung outside a wait) */
void icb_an521_mhu_irq(void);

/* startup.c: CPU1's vector table (its own initial stack pointer) */
extern void (*const icb_an521_vectors1[])(void);

#endif /* ICB_AN521_H */
