/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Incremental icb frame parser for byte streams (docs/protocol.md §2.1).
 *
 * Bytes may arrive in any pieces (a UART interrupt, a virtual UART callback
 * that gets a 512-byte block in several parts); the frames and errors found do
 * not depend on how the input is cut.  After an error the parser drops the
 * first byte of the failed candidate and rescans what it holds, so a frame
 * hidden behind a false start is not lost.  Same algorithm as the Rust
 * StreamParser.
 *
 * The caller owns the parser and its buffer; nothing is allocated.
 *
 *	struct icb_event ev;
 *	while (n || ev.kind != ICB_EV_NONE) {
 *		size_t used = icb_parser_step(&p, in, n, &ev);
 *		in += used; n -= used;
 *		... handle ev ...
 *	}
 */
#ifndef ICB_PARSER_H
#define ICB_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "icb_frame.h"

struct icb_parser {
	uint8_t *buf;		/* caller-provided; holds one candidate frame */
	size_t cap;		/* size of buf */
	size_t max_body;	/* min(cap - ICB_OVERHEAD, ICB_MAX_BODY) */
	size_t len;		/* bytes of the candidate held in buf */
	size_t garbage;		/* bytes skipped and not yet reported */
	size_t frame_len;	/* length of the frame last reported */
	int pending;		/* what to do with buf before the next step */
};

enum icb_event_kind {
	ICB_EV_NONE = 0,	/* need more input */
	ICB_EV_FRAME,		/* a valid frame in ev->frame */
	ICB_EV_ERROR,		/* a named error in ev->err */
};

struct icb_event {
	int kind;		/* enum icb_event_kind */
	int err;		/* negated enum icb_err, for ICB_EV_ERROR */
	size_t garbage;		/* bytes skipped, for -ICB_EGARBAGE */
	struct icb_frame frame;	/* for ICB_EV_FRAME; payload valid until the next step */
};

/*
 * Prepare p to parse into buf[0..cap).  Frames with a body larger than
 * cap - ICB_OVERHEAD are rejected with -ICB_ETOOLONG.  Returns 0, or
 * -ICB_EINVAL if cap < ICB_OVERHEAD.
 */
int icb_parser_init(struct icb_parser *p, uint8_t *buf, size_t cap);

/*
 * Consume a prefix of in[0..n) and report at most one event in *ev.  Returns
 * the number of bytes consumed.  Call again with the rest; an event may come
 * with 0 bytes consumed (a rescan of held bytes), so loop until the input is
 * used up and ev->kind is ICB_EV_NONE.
 */
size_t icb_parser_step(struct icb_parser *p, const uint8_t *in, size_t n,
		       struct icb_event *ev);

/* Bytes held for an incomplete candidate */
size_t icb_parser_buffered(const struct icb_parser *p);

/* Drop any partial candidate (e.g. after a timeout); returns the bytes dropped */
size_t icb_parser_reset(struct icb_parser *p);

#endif /* ICB_PARSER_H */
