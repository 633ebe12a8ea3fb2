/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark (issue #16, docs/protocol.md §1.10): two cores of
 * one chip measure between themselves on a timer both read, and one of
 * them — the initiator — reports to icbench over its serial link.
 *
 * Patterns (a cell's RUN record):
 *   oneway    the sender stamps before the send, the receiver after the
 *             receive; the receiver's acknowledgement paces the next
 *             message and, in initiator → agent cells, carries the
 *             receiver's stamp back
 *   pingpong  a round trip on the starter's timer; the echoing core copies
 *             the payload back untouched, the starter checks it
 *   stream    messages as fast as `window` credits allow; the receiver's
 *             window from the last warm-up arrival to the last arrival
 *   bulk      `size` bytes in blocks of `window` bytes, then one
 *             acknowledgement; a sample is one whole transfer
 *
 * Every received payload is checked byte for byte (the receiver, or the
 * starter for an echo).  Samples the agent takes travel back in a REPORT
 * message after each repetition, outside the timed part, so every
 * histogram lives on the initiator.  Messages carry the cell's tag:
 * anything a failed cell left in a ring is dropped by the next one.
 *
 * The caller owns everything (both sides' struct icb_oc_side, buffers,
 * the histogram); nothing here allocates or keeps state elsewhere.
 */
#ifndef ICB_ONCHIP_H
#define ICB_ONCHIP_H

#include <stddef.h>
#include <stdint.h>

#include "icb_hist.h"
#include "icb_responder.h"
#include "icb_xport.h"

#define ICB_OC_VERSION		1u
#define ICB_OC_RUN_LEN		28u
#define ICB_OC_RESULT_HEADER	24u
#define ICB_OC_MAX_REGIONS	8u
/* Longest RESULT without raw samples: header and every bucket counted */
#define ICB_OC_RESULT_MAX	(ICB_OC_RESULT_HEADER + ICB_HIST_MAX_WIRE)
/* ... and with up to n raw samples */
#define ICB_OC_RESULT_RAW_MAX(n) (ICB_OC_RESULT_MAX + 4u + 4u * (n))

/* Frame types of the on-chip records (§1.2) */
#define ICB_T_CHIP		10u
#define ICB_T_RUN		11u
#define ICB_T_RESULT		12u

/* RUN flags */
#define ICB_OC_RAW		0x01u

enum icb_oc_pattern {
	ICB_OC_ONEWAY = 1,
	ICB_OC_PINGPONG = 2,
	ICB_OC_STREAM = 3,
	ICB_OC_BULK = 4,
};

/* Which way the messages go (pingpong: who starts) */
enum icb_oc_direction {
	ICB_OC_I2A = 0,		/* initiator → agent */
	ICB_OC_A2I = 1,		/* agent → initiator */
};

enum icb_oc_status {
	ICB_OC_OK = 0,
	ICB_OC_CORRUPT = 1,	/* detail: the first differing byte's offset */
	ICB_OC_TIMEOUT = 2,	/* the other core did not answer in time */
	ICB_OC_UNSUPPORTED = 3,	/* detail: the refused field's offset in RUN */
};

/* One cell (the RUN record) */
struct icb_oc_run {
	uint8_t pattern;	/* enum icb_oc_pattern */
	uint8_t direction;	/* enum icb_oc_direction */
	uint8_t region;		/* index into the chip's regions */
	uint8_t notify;		/* one ICB_NOTIFY_* bit */
	uint8_t flags;		/* ICB_OC_RAW: the samples too, in the order taken */
	uint32_t size;		/* message bytes; bulk: bytes per transfer */
	uint32_t count;		/* measured repetitions (stream: messages) */
	uint32_t warmup;	/* repetitions before, not measured */
	uint32_t window;	/* stream: credits in flight; bulk: block bytes */
	uint32_t timeout_ms;	/* longest wait for the other core, per wait */
};

/* What the firmware says of its chip (the CHIP reply) */
struct icb_oc_chip {
	uint8_t cores;
	uint8_t notify;		/* ICB_NOTIFY_* modes offered */
	uint32_t timer_hz;	/* the timer both cores read */
	uint32_t max_size;	/* largest message the transport carries */
	uint8_t nregions;
	const char *regions[ICB_OC_MAX_REGIONS];
	const char *labels;	/* "key=value\n" lines: what the image was built with */
};

/* One core's side of the benchmark */
struct icb_oc_side {
	struct icb_xport ctl;			/* commands and their outcome */
	uint8_t ctl_notify;			/* the control path's ICB_NOTIFY_* mode */
	struct icb_xport data[ICB_OC_MAX_REGIONS];	/* one per region */
	uint8_t nregions;
	void *timer_ctx;
	uint32_t (*now)(void *ctx);		/* the shared timer, counting up */
	uint32_t timer_hz;
	uint8_t *tx;				/* caller-owned, buf_cap bytes each */
	uint8_t *rx;
	uint32_t buf_cap;
	uint16_t tag;				/* the current cell's (initiator: last used) */
	/* initiator, optional: room for a cell's raw samples (RUN flag ICB_OC_RAW) */
	uint32_t *raw;
	uint32_t raw_cap;
	uint32_t raw_n;				/* samples of the last cell */
};

/* How a cell ended (the RESULT header) */
struct icb_oc_outcome {
	uint8_t status;		/* enum icb_oc_status */
	uint32_t detail;
	uint64_t window_ticks;	/* stream, bulk: the receiver's window */
	uint64_t bytes;		/* stream, bulk: payload bytes in it */
};

/* Records (§1.10) */
size_t icb_oc_chip_encode(const struct icb_oc_chip *c, uint8_t *out, size_t cap);
/* 0, or -ICB_ELENGTH / -ICB_EVERSION / -ICB_EINVAL with *bad the offending offset */
int icb_oc_run_decode(const uint8_t *p, size_t len, struct icb_oc_run *run, uint32_t *bad);
void icb_oc_run_encode(const struct icb_oc_run *run, uint8_t out[ICB_OC_RUN_LEN]);
size_t icb_oc_result_encode(const struct icb_oc_outcome *o, const struct icb_hist *h,
			    uint8_t *out, size_t cap);
/* The same with the raw samples after the histogram (u32 n, n × u32) */
size_t icb_oc_result_encode_raw(const struct icb_oc_outcome *o, const struct icb_hist *h,
				const uint32_t *raw, uint32_t n, uint8_t *out, size_t cap);

/*
 * What one core's side can run whatever the chip says, messages of up to
 * `max` bytes: ICB_OC_OK, or ICB_OC_UNSUPPORTED with *bad the offset in RUN
 * of the field refused.
 */
int icb_oc_fits(const struct icb_oc_side *s, const struct icb_oc_run *run, uint32_t max,
		uint32_t *bad);

/*
 * Check a cell against the chip: ICB_OC_OK, or ICB_OC_UNSUPPORTED with
 * *bad the offset in RUN of the field refused.
 */
int icb_oc_check(const struct icb_oc_chip *c, const struct icb_oc_side *s,
		 const struct icb_oc_run *run, uint32_t *bad);

/*
 * Initiator: run one cell with the agent; latencies (ticks) go to h, which
 * is reset first.  Returns when the agent has reported, or at a timeout.
 */
void icb_oc_initiate(struct icb_oc_side *s, const struct icb_oc_chip *c,
		     const struct icb_oc_run *run, struct icb_hist *h,
		     struct icb_oc_outcome *out);

/*
 * Agent: serve the next command if one is waiting.  Returns 0 when there
 * was none (call again, or ctl.wait(ctl.ctx, ctl_notify)), 1 after a cell.
 */
int icb_oc_agent_poll(struct icb_oc_side *s);

/*
 * The initiator behind the responder: CHIP and RUN frames are served here,
 * any other type by the responder as before.  Install with
 * icb_responder_set_extra(r, icb_oc_serve, &initiator).
 */
struct icb_oc_initiator {
	struct icb_oc_side *side;
	const struct icb_oc_chip *chip;
	struct icb_hist *hist;
	uint8_t *msg;		/* a reply's bytes before fragmentation */
	size_t msg_cap;		/* ICB_OC_RESULT_MAX covers any RESULT */
};

int icb_oc_serve(void *ctx, struct icb_responder *r, const struct icb_frame *f);

#endif /* ICB_ONCHIP_H */
