/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The rpmsg layer of the remote (icb_rpmsg.h): messages into the host's
 * receive vring (0), messages out of its transmit vring (1) dispatched by
 * destination address, name-service announcements, and bring-up from the
 * resource table's vdev entry.  Headers are encoded byte by byte (little
 * endian), so buffers need no alignment.
 */
#include "icb_rpmsg.h"

#include <string.h>

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
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

int icb_rpmsg_init(struct icb_rpmsg *rp, const struct icb_vring *host_rx,
		   const struct icb_vring *host_tx, struct icb_rpmsg_ept *epts, uint32_t nept,
		   uint8_t *scratch, uint32_t scratch_len)
{
	if (!rp || !host_rx || !host_tx || (nept && !epts) || (scratch_len && !scratch))
		return -ICB_RPMSG_EINVAL;
	memset(rp, 0, sizeof(*rp));
	rp->host_rx = *host_rx;
	rp->host_tx = *host_tx;
	/* a receive buffer is never returned without a message (icb_vring) */
	rp->host_rx.return_bad = 0;
	rp->epts = epts;
	rp->nept = nept;
	rp->scratch = scratch;
	rp->scratch_len = scratch ? scratch_len : 0;
	return 0;
}

struct icb_rpmsg_ept *icb_rpmsg_find(struct icb_rpmsg *rp, uint32_t addr)
{
	uint32_t i;

	for (i = 0; i < rp->nept; i++)
		if (rp->epts[i].addr == addr)
			return &rp->epts[i];
	return NULL;
}

int icb_rpmsg_send(struct icb_rpmsg *rp, uint32_t src, uint32_t dst, const void *data,
		   uint32_t len)
{
	struct icb_vring *vr = &rp->host_rx;
	struct icb_vbuf b;
	int ret;

	if (len > 0xffffu || (len && !data))
		return -ICB_RPMSG_EINVAL;
	ret = icb_vring_pop(vr, &b);
	if (ret) {
		if (ret == -ICB_RPMSG_ENOBUF)
			rp->st.no_buffer++;
		return ret;
	}
	if (b.len < ICB_RPMSG_HDR_SIZE + len) {
		icb_vring_unpop(vr);
		return -ICB_RPMSG_ETOOLONG;
	}
	put_le32(b.buf, src);
	put_le32(b.buf + 4, dst);
	put_le32(b.buf + 8, 0);
	b.buf[12] = (uint8_t)len;
	b.buf[13] = (uint8_t)(len >> 8);
	b.buf[14] = 0;
	b.buf[15] = 0;
	if (len)
		memcpy(b.buf + ICB_RPMSG_HDR_SIZE, data, len);
	icb_clean(vr, b.buf, ICB_RPMSG_HDR_SIZE + len);
	icb_vring_push(vr, b.head, ICB_RPMSG_HDR_SIZE + len);
	rp->st.tx_msgs++;
	rp->st.tx_bytes += len;
	icb_vring_notify(vr);
	return 0;
}

int icb_rpmsg_announce(struct icb_rpmsg *rp, const struct icb_rpmsg_ept *ept, uint32_t flags)
{
	uint8_t m[sizeof(struct icb_rpmsg_ns_msg)];
	size_t n;

	if (!ept || !ept->name)
		return -ICB_RPMSG_EINVAL;
	memset(m, 0, sizeof(m));
	/* at most 31 characters and a terminator, as the host's strscpy */
	for (n = 0; n < ICB_RPMSG_NAME_SIZE - 1u && ept->name[n]; n++)
		m[n] = (uint8_t)ept->name[n];
	put_le32(m + ICB_RPMSG_NAME_SIZE, ept->addr);
	put_le32(m + ICB_RPMSG_NAME_SIZE + 4u, flags);
	return icb_rpmsg_send(rp, ept->addr, ICB_RPMSG_NS_ADDR, m, sizeof(m));
}

int icb_rpmsg_announce_all(struct icb_rpmsg *rp)
{
	uint32_t i;
	int ret;

	for (i = 0; i < rp->nept; i++) {
		if (!rp->epts[i].name)
			continue;
		ret = icb_rpmsg_announce(rp, &rp->epts[i], ICB_RPMSG_NS_CREATE);
		if (ret)
			return ret;
	}
	return 0;
}

static void icb_rpmsg_deliver(struct icb_rpmsg *rp, uint32_t src, uint32_t dst,
			      const uint8_t *data, uint32_t len)
{
	struct icb_rpmsg_ept *ept = icb_rpmsg_find(rp, dst);

	if (!ept || !ept->cb) {
		/* the host's own announcements: nothing to do */
		if (dst == ICB_RPMSG_NS_ADDR)
			rp->st.ns_in++;
		else
			rp->st.no_recipient++;
		return;
	}
	if (ept->cb(rp, ept, src, data, len))
		rp->st.cb_errors++;
}

int icb_rpmsg_recv_one(struct icb_rpmsg *rp)
{
	struct icb_vring *vr = &rp->host_tx;
	struct icb_vbuf b;
	uint32_t src, dst, len;
	int ret;

	ret = icb_vring_pop(vr, &b);
	if (ret)
		return ret;
	if (b.len >= ICB_RPMSG_HDR_SIZE)
		icb_inval(vr, b.buf, ICB_RPMSG_HDR_SIZE);
	len = b.len >= ICB_RPMSG_HDR_SIZE ? get_le16(b.buf + 12) : 0;
	if (b.len < ICB_RPMSG_HDR_SIZE || len > b.len - ICB_RPMSG_HDR_SIZE ||
	    (rp->scratch && len > rp->scratch_len)) {
		rp->st.bad_msgs++;
		icb_vring_push(vr, b.head, 0);
		return -ICB_RPMSG_EMSG;
	}
	src = get_le32(b.buf);
	dst = get_le32(b.buf + 4);
	if (len)
		icb_inval(vr, b.buf + ICB_RPMSG_HDR_SIZE, len);
	rp->st.rx_msgs++;
	rp->st.rx_bytes += len;
	if (rp->scratch) {
		/* copied out and returned first: the host may reuse it now */
		if (len)
			memcpy(rp->scratch, b.buf + ICB_RPMSG_HDR_SIZE, len);
		icb_vring_push(vr, b.head, 0);
		icb_rpmsg_deliver(rp, src, dst, rp->scratch, len);
	} else {
		icb_rpmsg_deliver(rp, src, dst, b.buf + ICB_RPMSG_HDR_SIZE, len);
		icb_vring_push(vr, b.head, 0);
	}
	return 0;
}

uint32_t icb_rpmsg_poll(struct icb_rpmsg *rp, uint32_t max)
{
	uint32_t n = 0, returned = 0;
	int ret;

	while (!max || n < max) {
		ret = icb_rpmsg_recv_one(rp);
		if (ret == -ICB_RPMSG_ENOBUF || ret == -ICB_RPMSG_ERING)
			break;
		n++;
		/* every other outcome gave a buffer back, except a head index
		 * out of range (counted in host_tx.st.bad_desc) */
		returned = 1;
	}
	if (returned)
		icb_vring_notify(&rp->host_tx);
	return n;
}

int icb_rsc_vdev_ready(const struct icb_fw_rsc_vdev *vdev, const struct icb_vring_ops *ops)
{
	uint8_t status;

	if (ops->invalidate)
		ops->invalidate(ops->ctx, &vdev->status, sizeof(vdev->status));
	status = *(const volatile uint8_t *)&vdev->status;
	/* the vring addresses were written before DRIVER_OK */
	if (ops->acquire)
		ops->acquire(ops->ctx);
	else
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (status & ICB_VIRTIO_CONFIG_S_DRIVER_OK) != 0;
}

int icb_rpmsg_init_rsc(struct icb_rpmsg *rp, const struct icb_fw_rsc_vdev *vdev,
		       const struct icb_vring_ops *ops, struct icb_rpmsg_ept *epts,
		       uint32_t nept, uint8_t *scratch, uint32_t scratch_len)
{
	struct icb_vring vr[2];
	uint32_t i;

	if (!vdev || !ops || !ops->translate || vdev->id != ICB_VIRTIO_ID_RPMSG ||
	    vdev->num_of_vrings != 2)
		return -ICB_RPMSG_EINVAL;
	if (ops->invalidate)
		ops->invalidate(ops->ctx, vdev, sizeof(*vdev) +
				2u * sizeof(struct icb_fw_rsc_vdev_vring));
	for (i = 0; i < 2; i++) {
		const struct icb_fw_rsc_vdev_vring *r = ICB_RSC_VDEV_VRING(vdev, i);
		uint32_t num = r->num, align = r->align;
		void *mem;

		if (!num || num > 32768u || (num & (num - 1u)) || align < 4u ||
		    (align & (align - 1u)))
			return -ICB_RPMSG_EINVAL;
		mem = ops->translate(ops->ctx, r->da, (uint32_t)ICB_VRING_SIZE(num, align));
		if (!mem || icb_vring_init(&vr[i], mem, num, align, r->notifyid, ops))
			return -ICB_RPMSG_EINVAL;
	}
	return icb_rpmsg_init(rp, &vr[0], &vr[1], epts, nept, scratch, scratch_len);
}
