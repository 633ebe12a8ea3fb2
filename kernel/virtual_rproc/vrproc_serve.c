// SPDX-License-Identifier: GPL-2.0
/*
 * The remote's "firmware", executed by a kernel thread pinned to one CPU:
 * the portable RPMsg remote of firmware/ (icb_rpmsg.c over icb_vring.c, the
 * code the STM32MP1's Cortex-M4 port runs, issue #34 item 2) on this
 * kernel's memory, barriers and interrupt (struct icb_vring_ops below).
 *
 *  1. wait until Linux's virtio driver sets DRIVER_OK in the loaded resource
 *     table (icb_rsc_vdev_ready; OpenAMP's rproc_virtio_wait_remote_ready
 *     polls the same byte);
 *  2. view both vrings at the device addresses Linux wrote into the table
 *     (icb_rpmsg_init_rsc, through the translate hook);
 *  3. announce the channels to the name service (icb_rpmsg_announce) — this
 *     is what makes rpmsg_char, rpmsg_tty and the netlink bridge probe;
 *  4. serve: icb_rpmsg_recv_one copies each message Linux put into vring1
 *     out, returns the buffer and calls the endpoint of its destination,
 *     whose session's icb responder (firmware/, the MCU code) answers
 *     through icb_platform.send → icb_rpmsg_send, one message into a vring0
 *     buffer; the library's kick hook is rproc_vq_interrupt, the path a
 *     mailbox interrupt takes on real hardware.
 *  Linux's kick (rproc_ops.kick) wakes the thread.
 *
 * The responder sessions are firmware/'s too (icb_session.c: one per
 * (channel, Linux address) pair, as the M4 port keeps them).  What stays
 * here: the sdb channel's wiring and the faults (module parameters,
 * vrproc_main.c), applied per message.
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
 * Send one rpmsg message to Linux (icb_rpmsg_send: a vring0 buffer, header
 * and payload, the used ring, the interrupt).  Waits, as firmware does,
 * while Linux has no free receive buffer; a malformed descriptor is refused
 * by the library (counted) and the next one tried.
 */
static int vrproc_send(struct vrproc *vp, u32 src, u32 dst, const void *data, size_t len)
{
	int ret;

	if (len > VRPROC_MTU)
		return -EMSGSIZE;
	for (;;) {
		ret = icb_rpmsg_send(&vp->rp, src, dst, data, len);
		if (!ret)
			return 0;
		if (ret != -ICB_RPMSG_ENOBUF && ret != -ICB_RPMSG_EDESC)
			return -EFAULT;
		if (vrproc_halted(vp))
			return -ESHUTDOWN;
		if (ret == -ICB_RPMSG_ENOBUF)
			vrproc_wait(vp, HZ / 10);
	}
}

/* A session's reply (icb_sessions_ops.send): one rpmsg message; the
 * corrupt_every fault flips a byte of a copy before it is published. */
static int vrproc_session_send(void *ctx, u32 local, u32 peer, const uint8_t *buf, size_t len)
{
	struct vrproc *vp = ctx;
	struct vrproc_faults f;

	vrproc_get_faults(&f);
	vp->nreply++;
	if (f.corrupt_every && vp->nreply % f.corrupt_every == 0 && len &&
	    len <= sizeof(vp->outbuf)) {
		memcpy(vp->outbuf, buf, len);
		vp->outbuf[len / 2] ^= 0x5a;
		vp->st.corrupted++;
		buf = vp->outbuf;
	}
	return vrproc_send(vp, local, peer, buf, len) ? -1 : 0;
}

/* The responders' clock: the remote shares the guest's. */
static uint64_t vrproc_now(void *ctx)
{
	return ktime_get_raw_ns();
}

static void vrproc_sessions_init(struct vrproc *vp)
{
	struct icb_sessions_ops ops = {
		.ctx = vp, .send = vrproc_session_send, .now = vrproc_now,
		.clock_hz = 1000000000u, .clock_id = ICB_CLOCK_MONOTONIC_RAW,
	};

	icb_sessions_init(&vp->sessions, vp->sess, VRPROC_NSESS, &ops);
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

	return vrproc_send(vp, VRPROC_ADDR_SDB, vp->sdb_peer, msg, len) ? -1 : 0;
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

/*
 * The endpoints' callback (struct icb_rpmsg_ept, one per channel): the
 * message is already copied out and its buffer back in vring1.  The drop
 * and delay faults apply here, to every message for a channel.
 */
static int vrproc_ept_cb(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, u32 src,
			 const u8 *data, u32 len)
{
	struct vrproc *vp = ept->priv;
	struct vrproc_faults f;

	vrproc_get_faults(&f);
	vp->nmsg++;
	if (f.drop_every && vp->nmsg % f.drop_every == 0) {
		vp->st.dropped++;
		return 0;
	}
	if (f.delay_us)
		usleep_range(f.delay_us, f.delay_us + f.delay_us / 8 + 1);
	if (ept->addr == VRPROC_ADDR_SDB) {
		vp->sdb_peer = src;
		if (icb_sdb_input(&vp->sdb, data, len) != ICB_SDB_OK)
			vp->st.bad_msgs++;
		return 0;
	}
	/* the session of (channel, Linux address), in the channel's protocol
	 * parameter (re-started when that changed) */
	if (icb_sessions_input(&vp->sessions, ept->addr, src, vrproc_chan_proto(ept->addr), data,
			       len))
		vp->st.send_errors++;
	return 0;
}

/* Drain vring1 (Linux → device), then interrupt Linux once for the buffers
 * returned (icb_rpmsg_poll, with the halt and stall checks between
 * messages). */
static void vrproc_rx(struct vrproc *vp)
{
	struct vrproc_faults f;
	bool returned = false;
	int ret;

	vrproc_get_faults(&f);
	while (!f.stall && !vrproc_halted(vp)) {
		ret = icb_rpmsg_recv_one(&vp->rp);
		if (ret == -ICB_RPMSG_ENOBUF || ret == -ICB_RPMSG_ERING)
			break;
		returned = true;
		vrproc_get_faults(&f);
	}
	if (returned)
		icb_vring_notify(&vp->rp.host_tx);
}

/* --- the library's hooks (struct icb_vring_ops) --------------------------- */

/*
 * A device address the host handed over: a remoteproc carveout (the vrings,
 * a vdevNbuffer region) through rproc_da_to_va, as a remote's bus would map
 * it; else, for virtio_rpmsg_bus's buffers (dma_alloc_coherent on the
 * rproc-virtio device, physical addresses with no VIRTIO_F_ACCESS_PLATFORM),
 * the kernel's linear map — checked to be RAM, because a device address is
 * untrusted input.
 */
static void *vrproc_translate(void *ctx, uint64_t da, uint32_t len)
{
	struct vrproc *vp = ctx;
	void *va;

	if (!len)
		return NULL;
	va = rproc_da_to_va(vp->rproc, da, len, NULL);
	if (va)
		return va;
	va = phys_to_virt((phys_addr_t)da);
	if (!virt_addr_valid(va) || !virt_addr_valid(va + len - 1))
		return NULL;
	return va;
}

/* Linux's virtio_ring uses mandatory barriers for remoteproc
 * (weak_barriers = false); the device side pairs them. */
static void vrproc_rmb(void *ctx)
{
	rmb();
}

static void vrproc_wmb(void *ctx)
{
	wmb();
}

static void vrproc_mb(void *ctx)
{
	mb();
}

static void vrproc_irq(void *ctx, uint32_t notifyid)
{
	struct vrproc *vp = ctx;

	vp->st.irqs++;
	rproc_vq_interrupt(vp->rproc, notifyid);
}

/*
 * The D-cache hooks.  The guest's CPUs are cache coherent with each other,
 * so there is nothing to clean or invalidate; the hooks count their calls
 * instead, and the rig checks the counts against the messages (vm-test.sh,
 * "remote-cache-hooks"): every shared access a Cortex-M7 port (H745,
 * i.MX RT: a data cache the host does not snoop) must maintain reaches its
 * hook (issue #34 item 4).
 */
static void vrproc_inval(void *ctx, const void *p, size_t n)
{
	struct vrproc *vp = ctx;

	vp->st.cache_inval++;
}

static void vrproc_clean(void *ctx, const void *p, size_t n)
{
	struct vrproc *vp = ctx;

	vp->st.cache_clean++;
}

static void vrproc_hooks(struct vrproc *vp)
{
	vp->vops = (struct icb_vring_ops){
		.ctx = vp, .translate = vrproc_translate, .acquire = vrproc_rmb,
		.release = vrproc_wmb, .full = vrproc_mb, .kick = vrproc_irq,
		.invalidate = vrproc_inval, .clean = vrproc_clean,
	};
}

void vrproc_fold_stats(struct vrproc *vp, struct vrproc_stats *out)
{
	const struct icb_rpmsg_stats *r = &vp->rp.st;

	*out = vp->st;
	out->rx_msgs += r->rx_msgs;
	out->tx_msgs += r->tx_msgs;
	out->rx_bytes += r->rx_bytes;
	out->tx_bytes += r->tx_bytes;
	out->no_recipient += r->no_recipient;
	out->sessions_evicted += vp->sessions.evicted;
	out->bad_msgs += r->bad_msgs + vp->rp.host_rx.st.bad_desc + vp->rp.host_tx.st.bad_desc +
			 vp->rp.host_rx.st.bad_ring + vp->rp.host_tx.st.bad_ring;
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
	vrproc_hooks(vp);
	vrproc_sessions_init(vp);
	vrproc_sdb_init(vp);
	for (i = 0; i < VRPROC_NCHAN; i++)
		vp->epts[i] = (struct icb_rpmsg_ept){
			.addr = vrproc_chans[i].addr, .name = vrproc_chans[i].name,
			.cb = vrproc_ept_cb, .priv = vp,
		};
	/* struct fw_rsc_vdev and its vrings are icb_fw_rsc_vdev's layout */
	while (!icb_rsc_vdev_ready((const struct icb_fw_rsc_vdev *)v, &vp->vops)) {
		if (vrproc_halted(vp))
			return -ESHUTDOWN;
		vrproc_wait(vp, HZ / 100);
	}
	if (icb_rpmsg_init_rsc(&vp->rp, (const struct icb_fw_rsc_vdev *)v, &vp->vops, vp->epts,
			       VRPROC_NCHAN, vp->inbuf, sizeof(vp->inbuf)))
		return -EFAULT;
	for (i = 0; i < VRPROC_NCHAN; i++) {
		while ((ret = icb_rpmsg_announce(&vp->rp, &vp->epts[i], ICB_RPMSG_NS_CREATE))) {
			if (ret != -ICB_RPMSG_ENOBUF && ret != -ICB_RPMSG_EDESC)
				return -EFAULT;
			if (vrproc_halted(vp))
				return -ESHUTDOWN;
			vrproc_wait(vp, HZ / 100);
		}
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
			 raw_smp_processor_id(), vp->rp.host_rx.num);
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
