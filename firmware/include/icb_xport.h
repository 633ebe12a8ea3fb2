/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * How the two cores of one chip pass messages (issue #16): the transport
 * interface the on-chip benchmark (icb_onchip.h) is written against, and
 * the built-in transport behind it, a single-producer single-consumer ring
 * in a shared-memory region the port names ("D1", "sram2").
 *
 * struct icb_xport is one core's end of one direction pair: it sends to
 * the other core and receives from it.  Another IPC stack plugs in by
 * filling the same five hooks (docs/on-chip.md maps them for FreeRTOS
 * message buffers, RPMsg-Lite and OpenAMP):
 *
 *   send    queue one message; -ICB_EAGAIN when there is no room now
 *   recv    take the next message, copying its payload out; -ICB_EAGAIN
 *           when none is there
 *   signal  after a send: ring the other core in the cell's notify mode
 *           (doorbell interrupt, SEV; nothing when polling)
 *   wait    while recv finds nothing: sleep until signalled (WFI on the
 *           doorbell, WFE), or return at once when polling
 *
 * The ring is written for memory both cores map at once.  Its indexes are
 * 32-bit words written by one side only (head by the producer, tail by the
 * consumer), each in a 32-byte line of its own so that a cacheable region
 * (Cortex-M7 D-cache: 32-byte lines) needs only the clean/invalidate hooks
 * around them; ICB_BARRIER orders the payload before the index that
 * publishes it (a DMB on Arm, a fence on the host build's threads).
 */
#ifndef ICB_XPORT_H
#define ICB_XPORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef ICB_BARRIER
#define ICB_BARRIER() __sync_synchronize()
#endif

/* Notify modes: a cell's `notify` and the CHIP record's bit set (§1.10) */
#define ICB_NOTIFY_POLL		0x01u
#define ICB_NOTIFY_DOORBELL	0x02u
#define ICB_NOTIFY_EVENT	0x04u

/* Bytes of the header before each message's payload */
#define ICB_MSG_HDR		16u

/* What travels with each message besides its payload */
struct icb_msg {
	uint8_t kind;		/* what the message is (icb_onchip.c's kinds) */
	uint8_t status;		/* acknowledgements: a cell status */
	uint16_t cell;		/* the cell's tag: messages of an earlier cell are dropped */
	uint32_t seq;		/* the sender's sequence number */
	uint32_t stamp;		/* a timer reading, or a value the kind defines */
	uint32_t len;		/* payload bytes */
};

struct icb_xport {
	void *ctx;
	int (*send)(void *ctx, const struct icb_msg *m, const uint8_t *payload);
	int (*recv)(void *ctx, struct icb_msg *m, uint8_t *buf, uint32_t cap);
	void (*signal)(void *ctx, uint8_t notify);
	void (*wait)(void *ctx, uint8_t notify);
};

/* Errors beyond icb_frame.h's: the transport has no room / nothing yet */
#define ICB_EAGAIN		20

/* --- The shared-memory ring ------------------------------------------ */

/* The port's hooks for one region: all optional (NULL: nothing to do) */
struct icb_ring_hooks {
	void *ctx;
	/* write dirty lines of [p, p+n) back to memory (D-cache clean) */
	void (*clean)(void *ctx, const void *p, size_t n);
	/* drop cached lines of [p, p+n) so the next read sees memory */
	void (*invalidate)(void *ctx, const void *p, size_t n);
	/* ring the other core (mode DOORBELL: an inter-core interrupt; EVENT: SEV) */
	void (*signal)(void *ctx, uint8_t notify);
	/* wait to be rung (DOORBELL: until the interrupt, EVENT: WFE) */
	void (*wait)(void *ctx, uint8_t notify);
};

/* The indexes at the start of each ring's memory, one line each */
struct icb_ring_ctrl {
	volatile uint32_t head;		/* written by the producer only */
	uint32_t pad0[7];
	volatile uint32_t tail;		/* written by the consumer only */
	uint32_t pad1[7];
};

/* One direction: this core's view of a ring in shared memory */
struct icb_ring {
	struct icb_ring_ctrl *ctrl;
	uint8_t *slots;
	uint32_t nslots;
	uint32_t slot_bytes;		/* header + payload, a multiple of 32 */
	uint32_t index;			/* producer: next head; consumer: next tail */
	const struct icb_ring_hooks *hooks;
};

/* Memory for a ring of nslots messages of up to max_payload bytes */
size_t icb_ring_bytes(uint32_t nslots, uint32_t max_payload);

/*
 * View a ring at mem (32-byte aligned, icb_ring_bytes() long).  reset = 1
 * zeroes its indexes: exactly one core does it, before the other starts.
 * Returns 0 or -ICB_EINVAL.
 */
int icb_ring_init(struct icb_ring *r, void *mem, size_t bytes, uint32_t nslots,
		  uint32_t max_payload, const struct icb_ring_hooks *hooks, int reset);

/* Largest payload a slot holds */
uint32_t icb_ring_max_payload(const struct icb_ring *r);

int icb_ring_send(struct icb_ring *r, const struct icb_msg *m, const uint8_t *payload);

/* Take the next message; -ICB_ENOSPC (message dropped) when it exceeds cap */
int icb_ring_recv(struct icb_ring *r, struct icb_msg *m, uint8_t *buf, uint32_t cap);

/*
 * Two rings, one per direction, as this core's icb_xport.  `first` says
 * whether this core produces into ring 0 (the initiator does) or ring 1.
 */
struct icb_ring_pair {
	struct icb_ring tx;
	struct icb_ring rx;
};

/*
 * Split mem (bytes long) into two rings of nslots slots of max_payload
 * bytes; initiator = 1 on the core that sends on the first one (and resets
 * both when reset = 1).  Fills x with the pair's hooks.
 */
int icb_ring_pair_init(struct icb_ring_pair *p, struct icb_xport *x, void *mem, size_t bytes,
		       uint32_t nslots, uint32_t max_payload, const struct icb_ring_hooks *hooks,
		       int initiator, int reset);

#endif /* ICB_XPORT_H */
