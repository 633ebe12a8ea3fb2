/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * STM32MP157 Cortex-M4 ("MCU"): the addresses and bits the port uses,
 * written from ST's RM0436 (STM32MP157 reference manual) and Linux's
 * device trees (arch/arm/boot/dts/st/stm32mp151.dtsi, stm32mp15xx-dkx.dtsi)
 * read as facts.  No vendor header or code is in the tree.
 *
 * NOT YET RUN ON A BOARD (docs/boards.md, "STM32MP157 Cortex-M4").
 */
#ifndef ICB_MP1_H
#define ICB_MP1_H

#include <stdint.h>

#define ICB_MP1_REG(a)		(*(volatile uint32_t *)(uintptr_t)(a))

/*
 * Memory, as the Cortex-M4 sees it and as Linux's stm32_rproc loads it
 * (stm32mp151.dtsi: the m4 node's dma-ranges map device address 0 to the
 * RETRAM at 0x38000000 and 0x10000000 onto itself, so for the MCU SRAMs a
 * device address is the physical address):
 *   0x00000000  RETRAM, 64 KiB (physical 0x38000000, DT "retram"): the M4
 *               fetches its reset SP and PC here (VTOR is 0 at reset);
 *               vectors, code and constants (stm32mp1-cm4.ld)
 *   0x10000000  SRAM1+2, 256 KiB (DT "mcuram2"; "mcuram" 0x30000000 is
 *               the same SRAM through the system-bus alias): the resource
 *               table, data, bss, stack, the trace buffer
 *   0x10040000  SRAM3: DT "vdev0vring0" (4 KiB), "vdev0vring1"
 *               0x10041000 (4 KiB), "vdev0buffer" 0x10042000 (16 KiB) —
 *               Linux allocates the vrings and the rpmsg buffers there,
 *               the image puts nothing there
 */
/* ST's DK1/DK2 layout; other boards' device trees differ (some have 8 KiB
 * vrings and the buffers at 0x10044000): override with -D to match */
#ifndef ICB_MP1_VRING0_DA
#define ICB_MP1_VRING0_DA	0x10040000u
#endif
#ifndef ICB_MP1_VRING1_DA
#define ICB_MP1_VRING1_DA	0x10041000u
#endif
#ifndef ICB_MP1_VRING_LEN
#define ICB_MP1_VRING_LEN	0x1000u
#endif
#ifndef ICB_MP1_VBUF_DA
#define ICB_MP1_VBUF_DA		0x10042000u
#endif
#ifndef ICB_MP1_VBUF_LEN
#define ICB_MP1_VBUF_LEN	0x4000u
#endif

/*
 * The vrings: 16 entries aligned to 16 bytes (438 bytes each, within the
 * 4 KiB carveouts; ST's OpenAMP examples use the same).  virtio_rpmsg_bus
 * then allocates 2 x 16 buffers of 512 bytes: 16 KiB, exactly vdev0buffer.
 */
#define ICB_MP1_VRING_NUM	16u
#define ICB_MP1_VRING_ALIGN	16u

/*
 * DDR, where Linux's stm32-rpmsg-sdb buffers are (dma_alloc_coherent, a
 * physical address in the message): the M4 reaches it at the same address
 * through its system bus (RM0436 "Memory map": DDR at 0xC0000000, up to
 * 1 GiB).  Assumed: the TZC-400 set-up of the boot chain lets the MCU's
 * non-secure accesses through (ST's default).
 */
#define ICB_MP1_DDR_BASE	0xC0000000u
#define ICB_MP1_DDR_END		0xFFFFFFFFu	/* inclusive */

/*
 * The MCU clock, ASSUMED and not read from the RCC: ck_mcu as ST's DK1/DK2
 * boot chain is believed to set it (PLL3P, about 209 MHz, the MCU's
 * maximum); override with -DICB_MP1_CPU_HZ=.  The port never touches the
 * RCC clock tree — the A7 side (TF-A, U-Boot, Linux) owns it.  Only the
 * responder's clock_hz depends on it (ICB_CLOCK_COUNTER, DWT CYCCNT).
 */
#ifndef ICB_MP1_CPU_HZ
#define ICB_MP1_CPU_HZ		208877930u
#endif

/*
 * --- IPCC (RM0436 "Inter-processor communication controller (IPCC)"),
 * base 0x4C001000 (stm32mp151.dtsi "mailbox@4c001000").  Processor 1 is
 * the Cortex-A7 (Linux's stm32-ipcc driver, st,proc-id = 0), processor 2
 * the Cortex-M4.  Six channels, simplex mode (one sender per channel and
 * direction):
 *   CxCR   0x000/0x010  RXOIE (bit 0), TXFIE (bit 16)
 *   CxMR   0x004/0x014  CHnOM (bits 0..5), CHnFM (bits 16..21)
 *   CxSCR  0x008/0x018  write 1: CHnC (bits 0..5) clears the channel
 *                       status the OTHER processor set towards x;
 *                       CHnS (bits 16..21) sets x's own status (sends)
 *   CxTOCySR 0x00C/0x01C CHnF (bits 0..5): 1 = occupied
 * The M4 sends on channel n by writing C2SCR.CHnS (then C2TOC1SR.CHnF is 1
 * until Linux clears it through C1SCR.CHnC); it receives when C1TOC2SR.CHnF
 * is 1 and acknowledges by writing C2SCR.CHnC.  Polled: no interrupt is
 * enabled (C2CR stays 0).
 */
#define ICB_MP1_IPCC		0x4C001000u
#define ICB_MP1_IPCC_C2CR	(ICB_MP1_IPCC + 0x010u)
#define ICB_MP1_IPCC_C2MR	(ICB_MP1_IPCC + 0x014u)
#define ICB_MP1_IPCC_C2SCR	(ICB_MP1_IPCC + 0x018u)
#define ICB_MP1_IPCC_C1TOC2SR	(ICB_MP1_IPCC + 0x00Cu)
#define ICB_MP1_IPCC_C2TOC1SR	(ICB_MP1_IPCC + 0x01Cu)
/* channel n, 1-based as RM0436 numbers them */
#define ICB_MP1_IPCC_CHF(n)	(1u << ((n) - 1u))
#define ICB_MP1_IPCC_CHC(n)	(1u << ((n) - 1u))
#define ICB_MP1_IPCC_CHS(n)	(1u << ((n) - 1u + 16u))

/*
 * Channels as Linux's stm32_rproc uses them (stm32mp15xx-dkx.dtsi:
 * mboxes = <&ipcc 0>, <&ipcc 1>, <&ipcc 2>, mbox-names = "vq0", "vq1",
 * "shutdown"; the mailbox cell is the 0-based channel): channel 1 carries
 * vring 0's notifications (notifyid 0) both ways, channel 2 vring 1's
 * (notifyid 1), channel 3 Linux's shutdown request, which it sends with a
 * 500 ms wait for the M4 to free the channel.
 */
#define ICB_MP1_CH_VQ0		1u
#define ICB_MP1_CH_VQ1		2u
#define ICB_MP1_CH_SHUTDOWN	3u
/* Newer kernels' device trees add "detach" (<&ipcc 3>, channel 4), sent
 * with a 200 ms wait when Linux detaches from a remote it attached to; this
 * image is always loaded by Linux, so it only frees the channel */
#define ICB_MP1_CH_DETACH	4u

/*
 * --- RCC (RM0436 "Reset and clock control (RCC)"), base 0x50000000.
 * RCC_MC_AHB3ENSETR (0xA10): the MCU's own enable of AHB3 clocks, write 1
 * to set, IPCCEN is bit 12.  Linux's stm32-ipcc driver enables the IPCC
 * clock on its side (RCC_MP_AHB3ENSETR); the port sets the MCU's bit too so
 * its polling does not depend on that.
 */
#define ICB_MP1_RCC		0x50000000u
#define ICB_MP1_RCC_MC_AHB3ENSETR (ICB_MP1_RCC + 0xA10u)
#define ICB_MP1_RCC_AHB3_IPCCEN	(1u << 12)

/* --- Cortex-M4 system registers (ARMv7-M) -------------------------------- */
#define ICB_MP1_SCB_VTOR	0xE000ED08u
#define ICB_MP1_SCB_CPACR	0xE000ED88u
#define ICB_MP1_DEMCR		0xE000EDFCu
#define ICB_MP1_DEMCR_TRCENA	(1u << 24)
#define ICB_MP1_DWT_CTRL	0xE0001000u
#define ICB_MP1_DWT_CYCCNT	0xE0001004u

void icb_mp1_main(void);

#endif /* ICB_MP1_H */
