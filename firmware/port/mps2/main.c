/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The icb responder as bare-metal firmware for QEMU's mps2-an385 (Cortex-M3):
 * a polled driver for the CMSDK APB UART0 at 0x40004000 (ARM DDI 0479C,
 * "APB UART"), one static receive and one transmit buffer of ICB_FW_FRAME
 * bytes, and a loop that feeds every received byte to the responder.
 *
 * The protocol is chosen at build time (-DICB_FW_PROTO=ICB_PROTO_ICB, …).
 * No clock is announced: under emulation time means nothing.
 */
#include <stddef.h>
#include <stdint.h>

#include "icb_responder.h"

#ifndef ICB_FW_PROTO
#define ICB_FW_PROTO ICB_PROTO_ICB
#endif
#ifndef ICB_FW_FRAME
#define ICB_FW_FRAME 1024
#endif

struct cmsdk_uart {
	volatile uint32_t data;
	volatile uint32_t state;	/* bit 0: TX full, bit 1: RX full */
	volatile uint32_t ctrl;		/* bit 0: TX enable, bit 1: RX enable */
	volatile uint32_t intstatus;
	volatile uint32_t bauddiv;
};

#define UART0 ((struct cmsdk_uart *)0x40004000u)
#define UART_TX_FULL 0x1u
#define UART_RX_FULL 0x2u
/* 25 MHz APB clock / 115200 baud; QEMU ignores the rate but needs >= 16 */
#define UART_BAUDDIV 217u

/* The port's buffers (the library itself has no globals) */
static uint8_t rx_buf[ICB_FW_FRAME];
static uint8_t tx_buf[ICB_FW_FRAME];
static struct icb_responder responder;

static int uart_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct cmsdk_uart *u = ctx;

	while (len--) {
		while (u->state & UART_TX_FULL)
			;
		u->data = *buf++;
	}
	return 0;
}

int main(void)
{
	struct cmsdk_uart *u = UART0;
	struct icb_responder_config cfg;
	struct icb_platform plat = { UART0, uart_send, NULL };
	uint8_t in[64];

	u->bauddiv = UART_BAUDDIV;
	u->ctrl = 0x3u;
	icb_responder_config_default(&cfg);
	cfg.proto = ICB_FW_PROTO;
	if (icb_responder_init(&responder, &cfg, &plat, rx_buf, sizeof(rx_buf), tx_buf,
			       sizeof(tx_buf)) < 0)
		for (;;)
			;
	for (;;) {
		size_t n = 0;

		/* Wait for one byte, then take what else has arrived */
		while (!(u->state & UART_RX_FULL))
			;
		do {
			in[n++] = (uint8_t)u->data;
		} while (n < sizeof(in) && (u->state & UART_RX_FULL));
		icb_responder_input(&responder, in, n);
	}
}
