/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The shared-memory SPSC ring behind struct icb_xport.  See icb_xport.h.
 *
 * Ordering (the single-producer single-consumer protocol): the producer
 * (reading tail only when the ring looks full), acquire, writes the slot's
 * header and payload, cleans them, release, then sets the slot's publish
 * word to the message's index + 1; the consumer reads that word until it
 * is, acquire, invalidates and reads the slot, release, then publishes
 * tail.  Indexes run freely and wrap at 2^32; head - tail is the
 * number of messages queued.
 */
#include <string.h>

#include "icb_frame.h"
#include "icb_xport.h"

static volatile uint32_t *icb_pub(uint8_t *slot)
{
	return (volatile uint32_t *)(void *)slot;
}

size_t icb_ring_bytes(uint32_t nslots, uint32_t max_payload)
{
	return sizeof(struct icb_ring_ctrl) + (size_t)nslots * ICB_RING_SLOT((size_t)max_payload);
}

int icb_ring_init(struct icb_ring *r, void *mem, size_t bytes, uint32_t nslots,
		  uint32_t max_payload, const struct icb_ring_hooks *hooks, int reset)
{
	uint32_t i;

	if (!r || !mem || nslots == 0 || ((uintptr_t)mem & (ICB_RING_ALIGN - 1u)) ||
	    max_payload > 0x7fffffffu - 2u * ICB_RING_ALIGN ||
	    bytes < icb_ring_bytes(nslots, max_payload))
		return -ICB_EINVAL;
	r->ctrl = mem;
	r->slots = (uint8_t *)mem + sizeof(struct icb_ring_ctrl);
	r->nslots = nslots;
	r->slot_bytes = (uint32_t)ICB_RING_SLOT(max_payload);
	r->index = 0;
	r->seen = 0;
	r->hooks = hooks;
	if (reset) {
		r->ctrl->tail = 0;
		for (i = 0; i < nslots; i++)
			*icb_pub(r->slots + (size_t)i * r->slot_bytes) = 0;
		if (hooks && hooks->clean)
			hooks->clean(hooks->ctx, mem, icb_ring_bytes(nslots, max_payload));
	} else if (hooks && hooks->invalidate) {
		hooks->invalidate(hooks->ctx, mem, icb_ring_bytes(nslots, max_payload));
	}
	return 0;
}

uint32_t icb_ring_max_payload(const struct icb_ring *r)
{
	return r->slot_bytes - ICB_RING_SLOT_HDR;
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
	uint8_t *slot, *h;

	if (m->len > icb_ring_max_payload(r))
		return -ICB_ETOOLONG;
	/* the consumer's tail is read only when the ring looks full */
	if (r->index - r->seen >= r->nslots) {
		icb_invalidate(r, (const void *)&r->ctrl->tail, sizeof(uint32_t));
		r->seen = r->ctrl->tail;
		if (r->index - r->seen >= r->nslots)
			return -ICB_EAGAIN;
	}
	ICB_ACQUIRE();
	slot = r->slots + (size_t)(r->index % r->nslots) * r->slot_bytes;
	h = slot + 4;
	h[0] = m->kind;
	h[1] = m->status;
	icb_put_le16(h + 2, m->cell);
	icb_put_le32(h + 4, m->seq);
	icb_put_le32(h + 8, m->stamp);
	icb_put_le32(h + 12, m->len);
	if (m->len)
		memcpy(slot + ICB_RING_SLOT_HDR, payload, m->len);
	/* the message reaches memory before the word that publishes it */
	icb_clean(r, h, ICB_MSG_HDR + m->len);
	ICB_RELEASE();
	*icb_pub(slot) = ++r->index;
	icb_clean(r, slot, sizeof(uint32_t));
	return 0;
}

int icb_ring_recv(struct icb_ring *r, struct icb_msg *m, uint8_t *buf, uint32_t cap)
{
	uint8_t *slot = r->slots + (size_t)(r->index % r->nslots) * r->slot_bytes;
	const uint8_t *h = slot + 4;
	int err = 0;

	icb_invalidate(r, slot, sizeof(uint32_t));
	if (*icb_pub(slot) != r->index + 1u)
		return -ICB_EAGAIN;
	ICB_ACQUIRE();
	icb_invalidate(r, h, ICB_MSG_HDR);
	m->kind = h[0];
	m->status = h[1];
	m->cell = icb_get_le16(h + 2);
	m->seq = icb_get_le32(h + 4);
	m->stamp = icb_get_le32(h + 8);
	m->len = icb_get_le32(h + 12);
	if (m->len > cap || m->len > icb_ring_max_payload(r)) {
		err = -ICB_ENOSPC;
	} else if (m->len) {
		icb_invalidate(r, slot + ICB_RING_SLOT_HDR, m->len);
		memcpy(buf, slot + ICB_RING_SLOT_HDR, m->len);
	}
	ICB_RELEASE();
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

	if (notify == ICB_NOTIFY_POLL) {
		if (h && h->relax)
			h->relax(h->ctx);
	} else if (h && h->wait) {
		h->wait(h->ctx, notify);
	}
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
