/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * STM32H745 (Cortex-M7 "CPU1" + Cortex-M4 "CPU2"): the registers the
 * on-chip benchmark port uses.  Written from ST's reference manual RM0399
 * (STM32H745/755 and STM32H747/757), chapters named beside each block;
 * every address and bit position was checked against ST's CMSIS device
 * header stm32h745xx.h (github.com/STMicroelectronics/cmsis_device_h7),
 * read as a source of facts only, and the core registers against the
 * ARMv7-M Architecture Reference Manual (DDI 0403).  No vendor code or
 * header is used.
 *
 * NOT YET RUN ON HARDWARE: only built so far (docs/boards.md).
 */
#ifndef ICB_H745_H
#define ICB_H745_H

#include <stdint.h>

#define ICB_H745_REG(a)		(*(volatile uint32_t *)(uintptr_t)(a))

/*
 * Clocks: the port keeps the reset clock tree (RM0399 "Reset and clock
 * control (RCC)"): HSI at 64 MHz (RCC_CR.HSIDIV = /1 at reset) is sys_ck;
 * D1CPRE, HPRE and D2PPRE1 are /1 at reset, so the Cortex-M7, the
 * Cortex-M4 (rcc_c2_ck), pclk1 (USART3's kernel clock, USART28SEL = 0)
 * and the APB1 timer clock (TIM2) all run at 64 MHz.  The power supply
 * configuration (PWR_CR3) is left as it comes out of reset: it may be
 * written once per power-on, a wrong one locks the board up (the
 * Nucleo-H745ZI-Q is wired for direct SMPS), and the reset voltage scale
 * (VOS3) covers 64 MHz.  Flash wait states stay at their reset value (7).
 */
#define ICB_H745_HZ		64000000u

/* --- RCC (RM0399 "Reset and clock control"), base 0x58024400 ----------- */
#define ICB_H745_RCC		0x58024400u
#define ICB_H745_RCC_GCR	(ICB_H745_RCC + 0x0A0u)
#define ICB_H745_RCC_GCR_BOOT_C2 (1u << 3)	/* let CPU2 boot when BCM4 = 0 */
/*
 * Each CPU allocates what it uses in its own enable registers: RCC_C1_*
 * (base + 0x130) for the Cortex-M7, RCC_C2_* (base + 0x190) for the
 * Cortex-M4; a peripheral or memory is clocked while a CPU that allocated
 * it is not in CStop.  Offsets within each block:
 */
#define ICB_H745_RCC_C1		(ICB_H745_RCC + 0x130u)
#define ICB_H745_RCC_C2		(ICB_H745_RCC + 0x190u)
#define ICB_H745_RCC_AHB3ENR	0x04u
#define ICB_H745_RCC_AHB1ENR	0x08u
#define ICB_H745_RCC_AHB2ENR	0x0Cu
#define ICB_H745_RCC_AHB4ENR	0x10u
#define ICB_H745_RCC_APB1LENR	0x18u
#define ICB_H745_AHB3_AXISRAM	(1u << 31)	/* D1 AXI SRAM */
#define ICB_H745_AHB1_ART	(1u << 14)	/* the Cortex-M4's ART accelerator */
#define ICB_H745_AHB2_SRAM123	(7u << 29)	/* D2 SRAM1, SRAM2, SRAM3 */
#define ICB_H745_AHB4_GPIOD	(1u << 3)
#define ICB_H745_AHB4_HSEM	(1u << 25)
#define ICB_H745_APB1L_TIM2	(1u << 0)
#define ICB_H745_APB1L_USART3	(1u << 18)

/* --- HSEM (RM0399 "Hardware semaphore (HSEM)"), base 0x58026400 -------- */
/*
 * R[n] (+4n): write COREID << 8 | PROCID with LOCK = 0 to release
 * semaphore n.  RLR[n] (+0x80 + 4n): reading locks it for the reading core
 * with PROCID 0 ("1-step lock") and returns LOCK | COREID << 8 when that
 * worked.  COREID: 3 for the Cortex-M7 (CPU1), 1 for the Cortex-M4 (CPU2).
 * Each CPU has an interrupt line with enable/clear/status/masked-status
 * registers: C1IER/C1ICR/C1ISR/C1MISR at +0x100.. (the Cortex-M7's NVIC
 * line 125, HSEM1), C2* at +0x110.. (the Cortex-M4's line 126, HSEM2).
 * Releasing semaphore n sets status bit n; the line is high while a bit is
 * set in MISR (= ISR & IER); writing 1 to ICR bit n clears it.
 */
#define ICB_H745_HSEM		0x58026400u
#define ICB_H745_HSEM_R(n)	(ICB_H745_HSEM + 4u * (n))
#define ICB_H745_HSEM_RLR(n)	(ICB_H745_HSEM + 0x80u + 4u * (n))
#define ICB_H745_HSEM_IER(cpu)	(ICB_H745_HSEM + 0x100u + 0x10u * (cpu))
#define ICB_H745_HSEM_ICR(cpu)	(ICB_H745_HSEM + 0x104u + 0x10u * (cpu))
#define ICB_H745_HSEM_MISR(cpu)	(ICB_H745_HSEM + 0x10Cu + 0x10u * (cpu))
#define ICB_H745_HSEM_LOCK	(1u << 31)
#define ICB_H745_COREID_CM7	3u
#define ICB_H745_COREID_CM4	1u
#define ICB_H745_IRQ_HSEM1	125u	/* Cortex-M7 */
#define ICB_H745_IRQ_HSEM2	126u	/* Cortex-M4 */
/* IRQs in this port's vector tables: 0..149 (RM0399 interrupt table) */
#define ICB_H745_IRQS		150u

/* --- TIM2 (RM0399 "General-purpose timers (TIM2/TIM3/TIM4/TIM5)") ------ */
/*
 * A 32-bit up-counter on APB1 (D2), base 0x40000000: CR1 +0x00 (CEN bit
 * 0), EGR +0x14 (UG bit 0), CNT +0x24, PSC +0x28, ARR +0x2C.  With PSC = 0
 * and ARR = 0xFFFFFFFF it counts the 64 MHz timer clock and wraps at 2^32;
 * both cores read CNT.
 */
#define ICB_H745_TIM2		0x40000000u
#define ICB_H745_TIM_CR1	0x00u
#define ICB_H745_TIM_EGR	0x14u
#define ICB_H745_TIM_CNT	0x24u
#define ICB_H745_TIM_PSC	0x28u
#define ICB_H745_TIM_ARR	0x2Cu

/* --- USART3 (RM0399 "Universal synchronous/asynchronous receiver
 * transmitter (USART/UART)"), base 0x40004800 ---------------------------- */
#define ICB_H745_USART3		0x40004800u
#define ICB_H745_USART_CR1	0x00u	/* UE bit 0, RE bit 2, TE bit 3 */
#define ICB_H745_USART_CR3	0x08u	/* OVRDIS bit 12 */
#define ICB_H745_USART_BRR	0x0Cu
#define ICB_H745_USART_ISR	0x1Cu	/* RXNE bit 5, TXE bit 7 */
#define ICB_H745_USART_ICR	0x20u	/* write 1s: clear error flags */
#define ICB_H745_USART_RDR	0x24u
#define ICB_H745_USART_TDR	0x28u
#define ICB_H745_USART_UE	(1u << 0)
#define ICB_H745_USART_RE	(1u << 2)
#define ICB_H745_USART_TE	(1u << 3)
#define ICB_H745_USART_OVRDIS	(1u << 12)
#define ICB_H745_USART_RXNE	(1u << 5)
#define ICB_H745_USART_TXE	(1u << 7)
#define ICB_H745_USART_ERRORS	0xFu	/* PE, FE, NE, ORE */
/* 64 MHz / 115200 = 555.6, oversampling by 16: 556 (115108 Bd, -0.08 %) */
#define ICB_H745_USART_BRR_115200 556u

/*
 * GPIOD (RM0399 "General-purpose I/Os (GPIO)"), base 0x58020C00: MODER
 * +0x00 (2 bits a pin, 0b10 alternate function), PUPDR +0x0C (0b01 pull-up),
 * AFRH +0x24 (4 bits a pin for pins 8..15).  On the Nucleo-H745ZI-Q the
 * ST-LINK's virtual COM port is wired to PD8 (USART3_TX) and PD9
 * (USART3_RX), alternate function 7 (UM2408; STM32H745 datasheet's
 * alternate function table).
 */
#define ICB_H745_GPIOD		0x58020C00u
#define ICB_H745_GPIO_MODER	0x00u
#define ICB_H745_GPIO_PUPDR	0x0Cu
#define ICB_H745_GPIO_AFRH	0x24u
#define ICB_H745_AF_USART3	7u

/*
 * The Cortex-M4's ART accelerator (RM0399 "ART accelerator"), base
 * 0x40024400: CTR bit 0 enables it, bits 19:8 hold address bits 31:20 of
 * the 1 MiB page it caches (0x081: flash bank 2, where CM4 code runs).
 */
#define ICB_H745_ART_CTR	0x40024400u
#define ICB_H745_ART_BANK2	((0x08100000u >> 12) & 0x000FFF00u)

/*
 * Silicon revision Y: reads from AXI SRAM may be corrupted unless the AXI
 * switch matrix's read issuing capability for target 7 (the AXI SRAM) is
 * cut to 1 (STM32H745 errata sheet; AXI_TARG7_FN_MOD, GPV base 0x51000000
 * + 0x8108).  DBGMCU_IDCODE (0x5C001000) bits 31:16 are the revision:
 * 0x1003 is Y, 0x2003 is V.
 */
#define ICB_H745_DBGMCU_IDCODE	0x5C001000u
#define ICB_H745_REV_V		0x2003u
#define ICB_H745_AXI_TARG7_FN_MOD 0x51008108u

/* --- Each core's System Control Space (ARMv7-M, DDI 0403) -------------- */
#define ICB_H745_SYST_CSR	0xE000E010u	/* SysTick: enable, TICKINT, CPU clock */
#define ICB_H745_SYST_RVR	0xE000E014u
#define ICB_H745_SYST_CVR	0xE000E018u
#define ICB_H745_NVIC_ISER(n)	(0xE000E100u + 4u * (n))
#define ICB_H745_NVIC_ICPR(n)	(0xE000E280u + 4u * (n))
#define ICB_H745_SCB_ICSR	0xE000ED04u
#define ICB_H745_ICSR_PENDSTCLR	(1u << 25)
#define ICB_H745_SCB_VTOR	0xE000ED08u
#define ICB_H745_SCB_CCR	0xE000ED14u	/* DC bit 16, IC bit 17 (Cortex-M7) */
#define ICB_H745_CCR_DC		(1u << 16)
#define ICB_H745_CCR_IC		(1u << 17)
#define ICB_H745_SCB_CCSIDR	0xE000ED80u
#define ICB_H745_SCB_CSSELR	0xE000ED84u
#define ICB_H745_SCB_CPACR	0xE000ED88u	/* CP10, CP11: bits 23:20 */
#define ICB_H745_MPU_CTRL	0xE000ED94u
#define ICB_H745_MPU_RNR	0xE000ED98u
#define ICB_H745_MPU_RBAR	0xE000ED9Cu
#define ICB_H745_MPU_RASR	0xE000EDA0u
#define ICB_H745_ICIALLU	0xE000EF50u	/* cache maintenance (Cortex-M7) */
#define ICB_H745_DCIMVAC	0xE000EF5Cu
#define ICB_H745_DCISW		0xE000EF60u
#define ICB_H745_DCCMVAC	0xE000EF68u

#endif /* ICB_H745_H */
