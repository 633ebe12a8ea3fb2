// SPDX-License-Identifier: GPL-2.0
/*
 * The remote's "firmware": the rpmsg layer a Cortex-M runs under OpenAMP or
 * rpmsg-lite, executed by a kernel thread pinned to one CPU.
 *
 *  1. wait until Linux's virtio driver sets DRIVER_OK in the loaded resource
 *     table (OpenAMP: rproc_virtio_wait_remote_ready polls the same byte);
 *  2. map both vrings from the device addresses Linux wrote into the table;
 *  3. announce the channels to the name service (address 53, struct
 *     rpmsg_ns_msg, RPMSG_NS_CREATE) — this is what makes rpmsg_char,
 *     rpmsg_tty and the netlink bridge probe;
 *  4. serve: each message Linux put into vring1 goes to the session of its
 *     (dst, src) pair, whose icb responder (firmware/, the MCU code) answers
 *     through icb_platform.send → one rpmsg message into a vring0 buffer;
 *     after a message is written, Linux is signalled with rproc_vq_interrupt,
 *     the path a mailbox interrupt takes on real hardware.
 *  Linux's kick (rproc_ops.kick) wakes the thread.
 *
 * Faults (module parameters, vrproc_main.c) are applied per message here.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/virtio_config.h>

#include "vrproc.h"

static const struct {
	const char *name;
	u32 addr;
} vrproc_chans[VRPROC_NCHAN] = {
	{ "rpmsg-raw", VRPROC_ADDR_RAW },
	{ "rpmsg-tty", VRPROC_ADDR_TTY },
	{ "icbench-netlink", VRPROC_ADDR_NL },
	{ "rpmsg-sdb-channel", VRPROC_ADDR_SDB },
};

static bool vrproc_halted(struct vrproc *vp)
{
	return kthread_should_stop() || vp->dead || atomic_read(&vp->crash_req);
}

/* Sleep until Linux kicks, a fault parameter changes, or @timeout passes. */
static void vrproc_wait(struct vrproc *vp, long timeout)
{
	wait_event_interruptible_timeout(vp->wq,
					 atomic_read(&vp->kicked) || kthread_should_stop() ||
					 atomic_read(&vp->crash_req), timeout);
	atomic_set(&vp->kicked, 0);
}

/*
 * Send one rpmsg message to Linux: take a buffer Linux made available in
 * vring0, write header and payload, return it through the used ring, signal.
 * Waits (like firmware does) while Linux has no free receive buffer.
 */
static int vrproc_send(struct vrproc *vp, u32 src, u32 dst, const void *data,
		       size_t len, bool corrupt)
{
	struct vdev_ring *r = &vp->host_rx;
	struct vrproc_hdr *h;
	u32 blen;
	u16 head;

	if (len > VRPROC_MTU)
		return -EMSGSIZE;
	while (!vdr_peek(r, &head)) {
		if (vrproc_halted(vp))
			return -ESHUTDOWN;
		vrproc_wait(vp, HZ / 10);
	}
	h = vdr_buf(r, vp->rproc, head, &blen);
	if (!h || blen < VRPROC_HDR_SIZE + len) {
		vp->st.bad_msgs++;
		return -EFAULT;
	}
	vdr_consume(r);
	h->src = cpu_to_le32(src);
	h->dst = cpu_to_le32(dst);
	h->reserved = 0;
	h->len = cpu_to_le16(len);
	h->flags = 0;
	memcpy(h->data, data, len);
	if (corrupt && len) {
		h->data[len / 2] ^= 0x5a;
		vp->st.corrupted++;
	}
	vdr_put_used(r, head, VRPROC_HDR_SIZE + len);
	vp->st.tx_msgs++;
	vp->st.tx_bytes += len;
	if (vdr_wants_irq(r)) {
		vp->st.irqs++;
		rproc_vq_interrupt(vp->rproc, r->notifyid);
	}
	return 0;
}

/* icb_platform.send: one responder reply = one rpmsg message. */
static int vrproc_port_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct vrproc_session *s = ctx;
	struct vrproc *vp = s->vp;
	struct vrproc_faults f;
	bool corrupt;

	vrproc_get_faults(&f);
	vp->nreply++;
	corrupt = f.corrupt_every && vp->nreply % f.corrupt_every == 0;
	return vrproc_send(vp, s->local, s->peer, buf, len, corrupt) ? -1 : 0;
}

/* icb_platform.now: the remote shares the guest's clock. */
static uint64_t vrproc_port_now(void *ctx)
{
	return ktime_get_raw_ns();
}

static int vrproc_session_init(struct vrproc_session *s, enum icb_proto proto)
{
	struct icb_responder_config cfg;
	struct icb_platform plat = {
		.ctx = s, .send = vrproc_port_send, .now = vrproc_port_now,
	};

	icb_responder_config_default(&cfg);
	cfg.proto = proto;
	cfg.clock_hz = 1000000000u;
	cfg.clock_id = ICB_CLOCK_MONOTONIC_RAW;
	s->proto = proto;
	return icb_responder_init(&s->resp, &cfg, &plat, s->rx, sizeof(s->rx),
				  s->tx, sizeof(s->tx));
}

/* The session of (local, peer), created (or the least recently used one
 * recycled) on first contact; re-initialised when its channel's protocol
 * parameter changed. */
static struct vrproc_session *vrproc_session(struct vrproc *vp, u32 local, u32 peer)
{
	enum icb_proto proto = vrproc_chan_proto(local);
	struct vrproc_session *s = NULL, *lru = &vp->sess[0];
	int i;

	for (i = 0; i < VRPROC_NSESS; i++) {
		struct vrproc_session *c = &vp->sess[i];

		if (c->used && c->local == local && c->peer == peer) {
			s = c;
			break;
		}
		if (!c->used || (lru->used && c->last_use < lru->last_use))
			lru = c;
	}
	if (!s) {
		s = lru;
		if (s->used)
			vp->st.sessions_evicted++;
		s->used = true;
		s->vp = vp;
		s->local = local;
		s->peer = peer;
		if (vrproc_session_init(s, proto))
			return NULL;
	} else if (s->proto != proto && vrproc_session_init(s, proto)) {
		return NULL;
	}
	s->last_use = ++vp->clock;
	return s;
}

/*
 * The sdb channel (firmware/src/icb_sdb.c): Linux announces buffers by bus
 * address; the remote reaches them as a core with a bus master would, here
 * through the linear map (they come from dma_alloc_coherent, no IOMMU).
 */
static uint8_t *vrproc_sdb_map(void *ctx, uint64_t addr, uint32_t size)
{
	void *va = phys_to_virt((phys_addr_t)addr);

	if (!size || !virt_addr_valid(va) || !virt_addr_valid(va + size - 1))
		return NULL;
	return va;
}

static int vrproc_sdb_send(void *ctx, const char *msg, size_t len)
{
	struct vrproc *vp = ctx;

	return vrproc_send(vp, VRPROC_ADDR_SDB, vp->sdb_peer, msg, len, false) ? -1 : 0;
}

/* corrupt_every counts sdb reports with the responders' replies: the
 * buffer's byte at len / 2 is flipped, the report itself stays right. */
static int vrproc_sdb_corrupt(void *ctx)
{
	struct vrproc *vp = ctx;
	struct vrproc_faults f;

	vrproc_get_faults(&f);
	vp->nreply++;
	if (f.corrupt_every && vp->nreply % f.corrupt_every == 0) {
		vp->st.corrupted++;
		return 1;
	}
	return 0;
}

static void vrproc_sdb_init(struct vrproc *vp)
{
	struct icb_sdb_platform plat = {
		.ctx = vp, .map = vrproc_sdb_map, .send = vrproc_sdb_send,
		.corrupt = vrproc_sdb_corrupt,
	};

	icb_sdb_init(&vp->sdb, &plat);
}

static void vrproc_dispatch(struct vrproc *vp, u32 src, u32 dst, const u8 *data, size_t len)
{
	struct vrproc_session *s;
	int i;

	if (dst == RPMSG_NS_ADDR)	/* Linux's own announcements: nothing to do */
		return;
	if (dst == VRPROC_ADDR_SDB) {
		vp->sdb_peer = src;
		if (icb_sdb_input(&vp->sdb, data, len) != ICB_SDB_OK)
			vp->st.bad_msgs++;
		return;
	}
	for (i = 0; i < VRPROC_NCHAN; i++)
		if (vrproc_chans[i].addr == dst)
			break;
	if (i == VRPROC_NCHAN) {
		vp->st.no_recipient++;
		return;
	}
	s = vrproc_session(vp, dst, src);
	if (!s) {
		vp->st.send_errors++;
		return;
	}
	if (icb_responder_input(&s->resp, data, len))
		vp->st.send_errors++;
}

/* Drain vring1 (Linux → device).  Each buffer's message is copied out and the
 * buffer returned before the reply is built, so Linux can reuse it at once. */
static void vrproc_rx(struct vrproc *vp)
{
	struct vdev_ring *r = &vp->host_tx;
	struct vrproc_faults f;
	bool returned = false;
	u16 head;

	vrproc_get_faults(&f);
	while (!f.stall && !vrproc_halted(vp) && vdr_peek(r, &head)) {
		struct vrproc_hdr *h;
		u32 blen, src, dst;
		size_t len;

		h = vdr_buf(r, vp->rproc, head, &blen);
		len = h && blen >= VRPROC_HDR_SIZE ? le16_to_cpu(h->len) : 0;
		if (!h || blen < VRPROC_HDR_SIZE || len > blen - VRPROC_HDR_SIZE ||
		    len > sizeof(vp->inbuf)) {
			vp->st.bad_msgs++;
			vdr_consume(r);
			vdr_put_used(r, head, 0);
			returned = true;
			continue;
		}
		src = le32_to_cpu(h->src);
		dst = le32_to_cpu(h->dst);
		memcpy(vp->inbuf, h->data, len);
		vdr_consume(r);
		vdr_put_used(r, head, 0);
		returned = true;
		vp->st.rx_msgs++;
		vp->st.rx_bytes += len;

		vp->nmsg++;
		if (f.drop_every && vp->nmsg % f.drop_every == 0) {
			vp->st.dropped++;
			continue;
		}
		if (f.delay_us)
			usleep_range(f.delay_us, f.delay_us + f.delay_us / 8 + 1);
		vrproc_dispatch(vp, src, dst, vp->inbuf, len);
		vrproc_get_faults(&f);
	}
	if (returned && vdr_wants_irq(r)) {
		vp->st.irqs++;
		rproc_vq_interrupt(vp->rproc, r->notifyid);
	}
}

/* The vdev entry of the table in the remote's own memory (the image
 * generator, mkfw.py, places the table at the start of SRAM). */
static struct fw_rsc_vdev *vrproc_find_vdev(struct vrproc *vp)
{
	struct resource_table *t = vp->sram;
	u32 i;

	if (t->ver != 1 || t->num > 8)
		return NULL;
	for (i = 0; i < t->num; i++) {
		u32 off = t->offset[i];
		struct fw_rsc_hdr *hdr = vp->sram + off;

		if (off > VRPROC_SRAM_SIZE - sizeof(*hdr) - sizeof(struct fw_rsc_vdev) -
			  2 * sizeof(struct fw_rsc_vdev_vring))
			return NULL;
		if (hdr->type == RSC_VDEV)
			return (struct fw_rsc_vdev *)hdr->data;
	}
	return NULL;
}

/* Steps 1–3: returns 0 when serving can begin. */
static int vrproc_bring_up(struct vrproc *vp)
{
	struct fw_rsc_vdev *v;
	int i, ret;

	v = vrproc_find_vdev(vp);
	if (!v || v->num_of_vrings != 2)
		return -EINVAL;
	vp->rsc = v;
	vrproc_sdb_init(vp);
	while (!(READ_ONCE(v->status) & VIRTIO_CONFIG_S_DRIVER_OK)) {
		if (vrproc_halted(vp))
			return -ESHUTDOWN;
		vrproc_wait(vp, HZ / 100);
	}
	rmb();	/* vring addresses were written before DRIVER_OK */
	ret = vdr_setup(&vp->host_rx, vp->rproc, &v->vring[0]);
	if (!ret)
		ret = vdr_setup(&vp->host_tx, vp->rproc, &v->vring[1]);
	if (ret)
		return ret;
	for (i = 0; i < VRPROC_NCHAN; i++) {
		struct rpmsg_ns_msg ns = {};

		strscpy(ns.name, vrproc_chans[i].name, sizeof(ns.name));
		ns.addr = cpu_to_le32(vrproc_chans[i].addr);
		ns.flags = cpu_to_le32(RPMSG_NS_CREATE);
		ret = vrproc_send(vp, vrproc_chans[i].addr, RPMSG_NS_ADDR, &ns, sizeof(ns), false);
		if (ret)
			return ret;
	}
	return 0;
}

int vrproc_serve(void *data)
{
	struct vrproc *vp = data;
	int ret;

	ret = vrproc_bring_up(vp);
	if (ret && ret != -ESHUTDOWN)
		dev_err(&vp->pdev->dev, "remote firmware failed to come up: %d\n", ret);
	else if (!ret)
		dev_info(&vp->pdev->dev, "remote on CPU %d serving %u-entry vrings\n",
			 raw_smp_processor_id(), vp->host_rx.num);
	while (!kthread_should_stop()) {
		if (atomic_xchg(&vp->crash_req, 0) && !vp->dead) {
			/* the "core" faults: remoteproc's crash and recovery path */
			vp->dead = true;
			vp->st.crashes++;
			dev_warn(&vp->pdev->dev, "fault injection: remote crashes\n");
			rproc_report_crash(vp->rproc, RPROC_FATAL_ERROR);
		}
		if (!ret && !vp->dead)
			vrproc_rx(vp);
		vrproc_wait(vp, HZ);
	}
	return 0;
}
