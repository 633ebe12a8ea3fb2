/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The shared-memory SPSC ring behind struct icb_xport.  See icb_xport.h.
 *
 * Ordering (the single-producer single-consumer protocol): the producer
 * writes the slot, cleans it, barrier, then publishes head; the consumer
 * reads head, barrier, invalidates and reads the slot, barrier, then
 * publishes tail.  Indexes run freely and wrap at 2^32; head - tail is the
 * number of messages queued.
 */
#include <string.h>

#include "icb_frame.h"
#include "icb_xport.h"

#define ICB_LINE 32u

static uint32_t icb_round_line(uint32_t n)
{
	return (n + ICB_LINE - 1u) & ~(ICB_LINE - 1u);
}

size_t icb_ring_bytes(uint32_t nslots, uint32_t max_payload)
{
	return sizeof(struct icb_ring_ctrl) +
	       (size_t)nslots * icb_round_line(ICB_MSG_HDR + max_payload);
}

int icb_ring_init(struct icb_ring *r, void *mem, size_t bytes, uint32_t nslots,
		  uint32_t max_payload, const struct icb_ring_hooks *hooks, int reset)
{
	if (!r || !mem || nslots == 0 || ((uintptr_t)mem & (ICB_LINE - 1u)) ||
	    max_payload > 0x7fffffffu - ICB_LINE || bytes < icb_ring_bytes(nslots, max_payload))
		return -ICB_EINVAL;
	r->ctrl = mem;
	r->slots = (uint8_t *)mem + sizeof(struct icb_ring_ctrl);
	r->nslots = nslots;
	r->slot_bytes = icb_round_line(ICB_MSG_HDR + max_payload);
	r->index = 0;
	r->hooks = hooks;
	if (reset) {
		r->ctrl->head = 0;
		r->ctrl->tail = 0;
		if (hooks && hooks->clean)
			hooks->clean(hooks->ctx, r->ctrl, sizeof(*r->ctrl));
	} else {
		/* attach where the indexes stand: head for a producer, tail for a consumer */
		if (hooks && hooks->invalidate)
			hooks->invalidate(hooks->ctx, r->ctrl, sizeof(*r->ctrl));
	}
	return 0;
}

uint32_t icb_ring_max_payload(const struct icb_ring *r)
{
	return r->slot_bytes - ICB_MSG_HDR;
}

static void icb_clean(const struct icb_ring *r, const void *p, size_t n)
{
	if (r->hooks && r->hooks->clean)
		r->hooks->clean(r->hooks->ctx, p, n);
}

static void icb_invalidate(const struct icb_ring *r, const void *p, size_t n)
{
	if (r->hooks && r->hooks->invalidate)
		r->hooks->invalidate(r->hooks->ctx, p, n);
}

int icb_ring_send(struct icb_ring *r, const struct icb_msg *m, const uint8_t *payload)
{
	uint8_t *slot;

	if (m->len > icb_ring_max_payload(r))
		return -ICB_ETOOLONG;
	icb_invalidate(r, (const void *)&r->ctrl->tail, sizeof(uint32_t));
	if (r->index - r->ctrl->tail >= r->nslots)
		return -ICB_EAGAIN;
	ICB_BARRIER();
	slot = r->slots + (size_t)(r->index % r->nslots) * r->slot_bytes;
	slot[0] = m->kind;
	slot[1] = m->status;
	icb_put_le16(slot + 2, m->cell);
	icb_put_le32(slot + 4, m->seq);
	icb_put_le32(slot + 8, m->stamp);
	icb_put_le32(slot + 12, m->len);
	if (m->len)
		memcpy(slot + ICB_MSG_HDR, payload, m->len);
	icb_clean(r, slot, ICB_MSG_HDR + m->len);
	ICB_BARRIER();
	r->ctrl->head = ++r->index;
	icb_clean(r, (const void *)&r->ctrl->head, sizeof(uint32_t));
	return 0;
}

int icb_ring_recv(struct icb_ring *r, struct icb_msg *m, uint8_t *buf, uint32_t cap)
{
	const uint8_t *slot;
	int err = 0;

	icb_invalidate(r, (const void *)&r->ctrl->head, sizeof(uint32_t));
	if (r->ctrl->head == r->index)
		return -ICB_EAGAIN;
	ICB_BARRIER();
	slot = r->slots + (size_t)(r->index % r->nslots) * r->slot_bytes;
	icb_invalidate(r, slot, ICB_MSG_HDR);
	m->kind = slot[0];
	m->status = slot[1];
	m->cell = icb_get_le16(slot + 2);
	m->seq = icb_get_le32(slot + 4);
	m->stamp = icb_get_le32(slot + 8);
	m->len = icb_get_le32(slot + 12);
	if (m->len > cap || m->len > icb_ring_max_payload(r)) {
		err = -ICB_ENOSPC;
	} else if (m->len) {
		icb_invalidate(r, slot + ICB_MSG_HDR, m->len);
		memcpy(buf, slot + ICB_MSG_HDR, m->len);
	}
	ICB_BARRIER();
	r->ctrl->tail = ++r->index;
	icb_clean(r, (const void *)&r->ctrl->tail, sizeof(uint32_t));
	return err;
}

/* struct icb_xport over a ring pair */
static int icb_pair_send(void *ctx, const struct icb_msg *m, const uint8_t *payload)
{
	return icb_ring_send(&((struct icb_ring_pair *)ctx)->tx, m, payload);
}

static int icb_pair_recv(void *ctx, struct icb_msg *m, uint8_t *buf, uint32_t cap)
{
	return icb_ring_recv(&((struct icb_ring_pair *)ctx)->rx, m, buf, cap);
}

static void icb_pair_signal(void *ctx, uint8_t notify)
{
	const struct icb_ring_hooks *h = ((struct icb_ring_pair *)ctx)->tx.hooks;

	if (notify != ICB_NOTIFY_POLL && h && h->signal)
		h->signal(h->ctx, notify);
}

static void icb_pair_wait(void *ctx, uint8_t notify)
{
	const struct icb_ring_hooks *h = ((struct icb_ring_pair *)ctx)->rx.hooks;

	if (notify != ICB_NOTIFY_POLL && h && h->wait)
		h->wait(h->ctx, notify);
}

int icb_ring_pair_init(struct icb_ring_pair *p, struct icb_xport *x, void *mem, size_t bytes,
		       uint32_t nslots, uint32_t max_payload, const struct icb_ring_hooks *hooks,
		       int initiator, int reset)
{
	size_t half = icb_ring_bytes(nslots, max_payload);
	uint8_t *a = mem, *b = a + half;
	int err;

	if (!p || !x || bytes / 2 < half)
		return -ICB_EINVAL;
	err = icb_ring_init(&p->tx, initiator ? a : b, half, nslots, max_payload, hooks, reset);
	if (!err)
		err = icb_ring_init(&p->rx, initiator ? b : a, half, nslots, max_payload, hooks,
				    reset);
	if (err)
		return err;
	x->ctx = p;
	x->send = icb_pair_send;
	x->recv = icb_pair_recv;
	x->signal = icb_pair_signal;
	x->wait = icb_pair_wait;
	return 0;
}
