/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The icbench responder: what a peer runs on the far side of a link.
 *
 * Protocols (docs/protocol.md):
 *  - ICB_PROTO_ICB: icb frames.  ECHO is echoed (one fragment at a time, so a
 *    64 KiB echo needs one frame buffer), DATA is counted and answered by ACK
 *    (on ICB_F_ACK_REQ or every ack_every_bytes) and CREDIT (every credit_batch
 *    frames), STATS/TIME/HELLO are answered.  Frames carrying ICB_F_REPLY are
 *    never answered (they are our own, heard back through a loopback).
 *  - ICB_PROTO_DIMTASS: the seed firmware's byte counter (icb_dimtass.h).
 *  - ICB_PROTO_RAW: every byte is sent back unchanged.
 *
 * The caller owns everything: the responder struct, a receive buffer (one
 * frame: its size is the max_frame announced in CAPS) and a transmit buffer.
 * The platform hooks are the only way out: send bytes, read a clock.
 */
#ifndef ICB_RESPONDER_H
#define ICB_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

#include "icb_dimtass.h"
#include "icb_frame.h"
#include "icb_parser.h"

struct icb_platform {
	void *ctx;		/* passed to every hook */
	/*
	 * Send buf[0..len) completely; on a message link as one message.
	 * Returns 0, or a negative value on failure.  Required.
	 */
	int (*send)(void *ctx, const uint8_t *buf, size_t len);
	/* Current time in ticks of clock_hz.  Optional: NULL means no clock. */
	uint64_t (*now)(void *ctx);
};

enum icb_proto {
	ICB_PROTO_ICB = 0,
	ICB_PROTO_DIMTASS,
	ICB_PROTO_RAW,
};

/* CAPS modes bit set (§1.5) */
#define ICB_MODE_ECHO		0x01u
#define ICB_MODE_ACK		0x02u
#define ICB_MODE_SINK		0x04u
#define ICB_MODE_STATS		0x08u
#define ICB_MODE_TIME		0x10u
#define ICB_MODE_TIMESTAMPS	0x20u
#define ICB_MODE_FRAGMENTS	0x40u

/* clock_id values (§1.5) */
enum icb_clock_id {
	ICB_CLOCK_NONE = 0,
	ICB_CLOCK_MONOTONIC_RAW = 1,
	ICB_CLOCK_MONOTONIC = 2,
	ICB_CLOCK_COUNTER = 3,		/* this core's free-running counter */
	ICB_CLOCK_SHARED = 4,		/* a counter the host reads too */
};

#define ICB_CAPS_LEN		24u
#define ICB_STATS_LEN		72u

struct icb_responder_config {
	enum icb_proto proto;
	uint32_t clock_hz;		/* tick rate of platform.now, 0 if none */
	uint8_t clock_id;		/* enum icb_clock_id */
	uint32_t rx_slots;		/* initial DATA credit announced in CAPS */
	uint32_t credit_batch;		/* CREDIT every this many DATA frames; 0: never */
	uint32_t ack_every_bytes;	/* ACK every this many DATA bytes; 0: on request */
};

/* Counters, as sent in the STATS reply (§1.7) */
struct icb_stats {
	uint64_t rx_frames;		/* valid frames received */
	uint64_t tx_frames;		/* frames (or replies) sent */
	uint64_t rx_payload_bytes;	/* payload bytes received (raw/dimtass: all bytes) */
	uint64_t tx_payload_bytes;	/* payload bytes sent */
	uint64_t crc_errors;		/* candidates dropped for a CRC mismatch */
	uint64_t header_errors;		/* dropped for version, flags or length */
	uint64_t garbage_bytes;		/* bytes skipped outside frames */
	uint64_t unsupported;		/* valid frames not served */
	uint64_t send_errors;		/* send hook failures, replies too large */
};

struct icb_responder {
	struct icb_responder_config cfg;
	struct icb_platform plat;
	struct icb_parser parser;	/* ICB_PROTO_ICB */
	struct icb_dimtass dimtass;	/* ICB_PROTO_DIMTASS */
	uint8_t *tx;			/* caller-provided transmit buffer */
	size_t tx_cap;
	struct icb_stats stats;
	uint32_t ack_bytes;		/* DATA payload bytes since the last ACK */
	uint32_t credit_frames;		/* DATA frames since the last CREDIT */
	uint32_t peer_max_frame;	/* the host's max_frame from HELLO (0: none yet) */
	/* frame types beyond the responder's own (icb_responder_set_extra) */
	int (*extra)(void *ctx, struct icb_responder *r, const struct icb_frame *f);
	void *extra_ctx;
};

/* A configuration for ICB_PROTO_ICB with no clock, 4 slots, a CREDIT per frame */
void icb_responder_config_default(struct icb_responder_config *cfg);

/*
 * Prepare r.  rx_buf (icb only) holds one incoming frame: its size bounds the
 * frames accepted and is announced in CAPS.  tx_buf holds one outgoing frame
 * (icb), or at least 2 bytes (dimtass); raw needs neither (pass NULL, 0).
 * Returns 0 or -ICB_EINVAL.
 */
int icb_responder_init(struct icb_responder *r, const struct icb_responder_config *cfg,
		       const struct icb_platform *plat, uint8_t *rx_buf, size_t rx_cap,
		       uint8_t *tx_buf, size_t tx_cap);

/*
 * Feed received bytes, in pieces of any size (a UART interrupt, one rpmsg
 * message, a read()).  Replies are sent from inside this call.  Returns 0, or
 * the last error met (-ICB_ESEND, -ICB_ENOSPC); protocol errors of the peer
 * are counted in r->stats, not returned.
 */
int icb_responder_input(struct icb_responder *r, const uint8_t *data, size_t len);

/*
 * Serve more frame types: extra(ctx, r, f) is called for every host frame
 * the responder does not serve itself and returns 1 when it answered (with
 * icb_responder_reply), 0 to let the responder answer UNSUPPORTED.
 */
void icb_responder_set_extra(struct icb_responder *r,
			     int (*extra)(void *ctx, struct icb_responder *r,
					  const struct icb_frame *f),
			     void *ctx);

/*
 * Answer req with a message of any length: one frame when it fits, else
 * fragments (§1.6) no longer than the transmit buffer and the host's
 * max_frame.  Returns 0 or the send error.
 */
int icb_responder_reply(struct icb_responder *r, const struct icb_frame *req, uint8_t type,
			const uint8_t *msg, size_t len);

/* Largest frame the responder accepts (the max_frame of its CAPS) */
uint32_t icb_responder_max_frame(const struct icb_responder *r);

/* Encode the STATS reply payload */
void icb_stats_encode(const struct icb_stats *s, uint8_t out[ICB_STATS_LEN]);

#endif /* ICB_RESPONDER_H */
