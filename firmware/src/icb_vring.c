/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The device side of a split virtqueue (virtio 1.x §2.7) in the legacy
 * layout remoteproc uses: take the chains the driver made available, give
 * them back through the used ring (icb_rpmsg.h).
 *
 * Ring fields are read and written as single 16/32/64-bit volatile accesses
 * (an index must never be seen half written) in little-endian order, which
 * is what a Linux host on Arm or x86 writes without VIRTIO_F_VERSION_1.
 * The port's cache hooks run around every access to shared memory:
 * invalidate before reading the avail index, an avail entry, a descriptor;
 * clean after writing a used element and the used index.
 */
#include "icb_rpmsg.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static uint16_t icb_le16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

static uint32_t icb_le32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static uint64_t icb_le64(uint64_t v)
{
	return ((uint64_t)icb_le32((uint32_t)v) << 32) | icb_le32((uint32_t)(v >> 32));
}
#else
#define icb_le16(v) (v)
#define icb_le32(v) (v)
#define icb_le64(v) (v)
#endif

static uint16_t rd16(const uint16_t *p)
{
	return icb_le16(*(const volatile uint16_t *)p);
}

static uint32_t rd32(const uint32_t *p)
{
	return icb_le32(*(const volatile uint32_t *)p);
}

static uint64_t rd64(const uint64_t *p)
{
	return icb_le64(*(const volatile uint64_t *)p);
}

static void wr16(uint16_t *p, uint16_t v)
{
	*(volatile uint16_t *)p = icb_le16(v);
}

static void wr32(uint32_t *p, uint32_t v)
{
	*(volatile uint32_t *)p = icb_le32(v);
}

static void icb_inval(const struct icb_vring *vr, const void *p, size_t n)
{
	if (vr->ops->invalidate)
		vr->ops->invalidate(vr->ops->ctx, p, n);
}

static void icb_clean(const struct icb_vring *vr, const void *p, size_t n)
{
	if (vr->ops->clean)
		vr->ops->clean(vr->ops->ctx, p, n);
}

static void icb_acquire(const struct icb_vring *vr)
{
	if (vr->ops->acquire)
		vr->ops->acquire(vr->ops->ctx);
	else
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static void icb_release(const struct icb_vring *vr)
{
	if (vr->ops->release)
		vr->ops->release(vr->ops->ctx);
	else
		__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void icb_full(const struct icb_vring *vr)
{
	if (vr->ops->full)
		vr->ops->full(vr->ops->ctx);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int icb_vring_init(struct icb_vring *vr, void *mem, uint32_t num, uint32_t align,
		   uint32_t notifyid, const struct icb_vring_ops *ops)
{
	uint8_t *p = mem;

	if (!vr || !mem || !ops || !ops->translate || !num || num > 32768u ||
	    (num & (num - 1u)) || align < 4u || (align & (align - 1u)))
		return -ICB_RPMSG_EINVAL;
	vr->desc = (struct icb_vring_desc *)(void *)p;
	vr->avail = (struct icb_vring_avail *)(void *)(p + ICB_VRING_AVAIL_OFF(num));
	vr->used = (struct icb_vring_used *)(void *)(p + ICB_VRING_USED_OFF(num, align));
	vr->num = (uint16_t)num;
	vr->last_avail = 0;
	vr->used_idx = 0;
	vr->notifyid = notifyid;
	vr->return_bad = 1;
	vr->ops = ops;
	vr->st.popped = vr->st.pushed = vr->st.kicks = 0;
	vr->st.suppressed = vr->st.bad_desc = vr->st.bad_ring = 0;
	return 0;
}

/* One descriptor: index in range, length nonzero and bounded, address
 * translated over its whole length.  Returns its buffer or NULL. */
static uint8_t *icb_vring_desc_buf(struct icb_vring *vr, uint16_t i, uint32_t *len,
				   uint16_t *flags, uint16_t *next)
{
	const struct icb_vring_desc *d;
	uint64_t addr;

	if (i >= vr->num)
		return NULL;
	d = &vr->desc[i];
	icb_inval(vr, d, sizeof(*d));
	addr = rd64(&d->addr);
	*len = rd32(&d->len);
	*flags = rd16(&d->flags);
	*next = rd16(&d->next);
	if (!*len || *len > ICB_VRING_MAX_BUF || (*flags & ICB_VRING_DESC_F_INDIRECT))
		return NULL;
	return vr->ops->translate(vr->ops->ctx, addr, *len);
}

int icb_vring_pop(struct icb_vring *vr, struct icb_vbuf *b)
{
	const uint16_t *slot;
	uint16_t avail_idx, head, flags, next, i, n;
	uint32_t len;
	uint8_t *buf;

	icb_inval(vr, &vr->avail->idx, sizeof(vr->avail->idx));
	avail_idx = rd16(&vr->avail->idx);
	if (avail_idx == vr->last_avail)
		return -ICB_RPMSG_ENOBUF;
	if ((uint16_t)(avail_idx - vr->last_avail) > vr->num) {
		vr->st.bad_ring++;
		return -ICB_RPMSG_ERING;
	}
	/* the entry only after the index that covers it */
	icb_acquire(vr);
	slot = &vr->avail->ring[vr->last_avail & (vr->num - 1u)];
	icb_inval(vr, slot, sizeof(*slot));
	head = rd16(slot);
	vr->last_avail++;
	if (head >= vr->num) {
		/* nothing the driver could recognise to give back */
		vr->st.bad_desc++;
		return -ICB_RPMSG_EDESC;
	}
	buf = icb_vring_desc_buf(vr, head, &len, &flags, &next);
	b->head = head;
	b->flags = flags;
	b->len = len;
	b->buf = buf;
	/* a chain: every link in range and translatable, at most num links
	 * (more would mean a loop) */
	i = next;
	for (n = 1; buf && (flags & ICB_VRING_DESC_F_NEXT); n++) {
		uint32_t l;

		if (n >= vr->num || !icb_vring_desc_buf(vr, i, &l, &flags, &next)) {
			buf = NULL;
			break;
		}
		i = next;
	}
	if (!buf) {
		vr->st.bad_desc++;
		if (vr->return_bad)
			icb_vring_push(vr, head, 0);
		return -ICB_RPMSG_EDESC;
	}
	b->ndesc = n;
	vr->st.popped++;
	return 0;
}

void icb_vring_unpop(struct icb_vring *vr)
{
	vr->last_avail--;
	vr->st.popped--;
}

void icb_vring_push(struct icb_vring *vr, uint16_t head, uint32_t len)
{
	struct icb_vring_used_elem *e = &vr->used->ring[vr->used_idx & (vr->num - 1u)];

	wr32(&e->id, head);
	wr32(&e->len, len);
	icb_clean(vr, e, sizeof(*e));
	/* the element (and the buffer's contents) before the index */
	icb_release(vr);
	vr->used_idx++;
	wr16(&vr->used->idx, vr->used_idx);
	icb_clean(vr, &vr->used->idx, sizeof(vr->used->idx));
	vr->st.pushed++;
}

int icb_vring_notify(struct icb_vring *vr)
{
	uint16_t flags;

	/* the used->idx store before reading the driver's flags */
	icb_full(vr);
	icb_inval(vr, &vr->avail->flags, sizeof(vr->avail->flags));
	flags = rd16(&vr->avail->flags);
	if (flags & ICB_VRING_AVAIL_F_NO_INTERRUPT) {
		vr->st.suppressed++;
		return 0;
	}
	vr->st.kicks++;
	if (vr->ops->kick)
		vr->ops->kick(vr->ops->ctx, vr->notifyid);
	return 1;
}
