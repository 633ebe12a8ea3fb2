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
 * The ring is written for memory both cores map at once.  Each slot starts
 * with a publish word the producer sets to the message's index + 1 once
 * the message is in place: the consumer polls the slot itself, so a small
 * message crosses as its slot's lines and nothing else (no head index to
 * bounce; the design of icbench's own shm ring, crates/icbench-link/src/
 * sys/shm.rs).  The consumer's index, read by the producer only when the
 * ring looks full, sits on a line of its own.  Slots are aligned to
 * ICB_RING_ALIGN bytes (32 by default: the Cortex-M7 D-cache line; the
 * host build uses 128, for x86's adjacent-line prefetch), so a cacheable
 * region needs only the clean/invalidate hooks.  ICB_RELEASE orders the payload before the index that
 * publishes it and ICB_ACQUIRE the index before the payload it covers: a
 * DMB on Arm, only a compiler barrier on x86's total store order (a full
 * fence there cost the host build a third of its round trip).
 */
#ifndef ICB_XPORT_H
#define ICB_XPORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef ICB_RELEASE
#define ICB_RELEASE() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#ifndef ICB_ACQUIRE
#define ICB_ACQUIRE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* Notify modes: a cell's `notify` and the CHIP record's bit set (§1.10) */
#define ICB_NOTIFY_POLL		0x01u
#define ICB_NOTIFY_DOORBELL	0x02u
#define ICB_NOTIFY_EVENT	0x04u

/* Bytes of the header before each message's payload */
#define ICB_MSG_HDR		16u

/* The ring's slot alignment (a power of two, at least 32) */
#ifndef ICB_RING_ALIGN
#define ICB_RING_ALIGN		32u
#endif
/* A slot: the publish word, the message header, the payload */
#define ICB_RING_SLOT_HDR	(4u + ICB_MSG_HDR)
#define ICB_RING_SLOT(p)	(((p) + ICB_RING_SLOT_HDR + ICB_RING_ALIGN - 1u) & \
				 ~(ICB_RING_ALIGN - 1u))
/* Memory for a ring of n slots of up to p payload bytes (icb_ring_bytes) */
#define ICB_RING_BYTES(n, p)	(ICB_RING_ALIGN + (n) * ICB_RING_SLOT(p))

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
	/* POLL: on each look that found nothing (x86 PAUSE, Arm YIELD) */
	void (*relax)(void *ctx);
};

/* The consumer's index at the start of each ring's memory, a line alone */
struct icb_ring_ctrl {
	volatile uint32_t tail;		/* written by the consumer only */
	uint8_t pad[ICB_RING_ALIGN - 4u];
};

/* One direction: this core's view of a ring in shared memory */
struct icb_ring {
	struct icb_ring_ctrl *ctrl;
	uint8_t *slots;
	uint32_t nslots;
	uint32_t slot_bytes;		/* ICB_RING_SLOT(max payload) */
	uint32_t index;			/* producer: next head; consumer: next tail */
	uint32_t seen;			/* producer: the consumer's tail as last read */
	const struct icb_ring_hooks *hooks;
};

/* Memory for a ring of nslots messages of up to max_payload bytes */
size_t icb_ring_bytes(uint32_t nslots, uint32_t max_payload);

/*
 * View a ring at mem (ICB_RING_ALIGN-aligned, icb_ring_bytes() long).
 * reset = 1 zeroes its index and publish words: exactly one core does it,
 * before the other starts (a ring serves 2^32 - 1 messages per reset).
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
