/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Responder sessions of an RPMsg remote: one icb responder per (the remote's
 * endpoint address, the host's address) pair, as separate programs on an MCU
 * would keep them, so that two host programs on one channel — or reference
 * 003's 32 rpmsg_ctrl endpoints talking to one remote address — each have a
 * conversation of their own (frame parser, sequence, credits).
 *
 * A table the caller owns (no allocation, no globals).  On first contact the
 * least recently used session is recycled and counted; a session asked for
 * another protocol than it speaks starts afresh in that one (a channel's
 * protocol changed under it).  Shared by port/stm32mp1 and
 * kernel/virtual_rproc, so that the VM rig runs the M4's session code.
 */
#ifndef ICB_SESSION_H
#define ICB_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "icb_responder.h"
#include "icb_rpmsg.h"

/* One rpmsg payload: what a session receives and sends at most */
#define ICB_SESSION_MTU		(ICB_RPMSG_BUF_SIZE - ICB_RPMSG_HDR_SIZE)

struct icb_sessions;

struct icb_session {
	struct icb_sessions *tab;
	uint32_t local;		/* the remote's endpoint address */
	uint32_t peer;		/* the host's address */
	uint64_t last_use;
	uint8_t used;
	enum icb_proto proto;
	struct icb_responder resp;
	uint8_t rx[ICB_SESSION_MTU];
	uint8_t tx[ICB_SESSION_MTU];
};

/* How every session's responder sends and reads the clock */
struct icb_sessions_ops {
	void *ctx;
	/* one reply, local → peer, as one message; 0 or negative */
	int (*send)(void *ctx, uint32_t local, uint32_t peer, const uint8_t *buf, size_t len);
	/* the clock in ticks of clock_hz (icb_platform.now); NULL: none */
	uint64_t (*now)(void *ctx);
	uint32_t clock_hz;
	uint8_t clock_id;	/* enum icb_clock_id */
};

struct icb_sessions {
	struct icb_session *sess;
	uint32_t n;
	uint64_t clock;		/* LRU counter */
	uint32_t evicted;	/* sessions recycled for a new pair */
	struct icb_sessions_ops ops;
};

/* A table of n sessions in sess[] (cleared), with ops copied */
void icb_sessions_init(struct icb_sessions *t, struct icb_session *sess, uint32_t n,
		       const struct icb_sessions_ops *ops);

/*
 * The session of (local, peer) speaking proto: found, or set up on first
 * contact.  NULL when the table is empty or the responder refuses its
 * configuration (the slot is left free).
 */
struct icb_session *icb_sessions_get(struct icb_sessions *t, uint32_t local, uint32_t peer,
				     enum icb_proto proto);

/*
 * One message from peer to local into its session's responder (which may
 * answer from inside the call).  0; -1 when no session could be had; else
 * the responder's error (icb_responder_input).
 */
int icb_sessions_input(struct icb_sessions *t, uint32_t local, uint32_t peer,
		       enum icb_proto proto, const uint8_t *data, size_t len);

#endif /* ICB_SESSION_H */
