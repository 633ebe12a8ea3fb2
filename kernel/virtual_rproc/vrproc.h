/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtual_rproc: a remote processor for Linux's remoteproc framework whose
 * "core" is a kernel thread pinned to one CPU.  Shared declarations.
 *
 * Files:
 *   vrproc_main.c   module parameters, the platform device, rproc_ops,
 *                   the thread's lifecycle (start/stop/crash)
 *   vrproc_vring.c  the device side of a split virtqueue (avail → used),
 *                   as remote firmware (OpenAMP, rpmsg-lite) implements it
 *   vrproc_serve.c  the rpmsg layer of the remote: name-service
 *                   announcements, sessions, the icb responder port, faults
 */
#ifndef VRPROC_H
#define VRPROC_H

#include <linux/platform_device.h>
#include <linux/remoteproc.h>
#include <linux/rpmsg/ns.h>
#include <linux/virtio_ring.h>
#include <linux/wait.h>

/* rproc_vq_interrupt and the rproc_elf_* helpers are exported but declared
 * in the framework's private header, which in-tree drivers (stm32_rproc.c,
 * imx_rproc.c) include the same way; Kbuild adds its directory. */
#include "remoteproc_internal.h"

#include "icb_responder.h"
#include "icb_sdb.h"

/* The remote's private memory ("SRAM"): where the ELF image is loaded and
 * where the loaded resource table lives (rproc_elf_find_loaded_rsc_table).
 * Device addresses [VRPROC_SRAM_DA, +VRPROC_SRAM_SIZE) map onto it. */
#define VRPROC_SRAM_DA		0x10000000u
#define VRPROC_SRAM_SIZE	(64u * 1024u)

/* virtio_rpmsg_bus: 512-byte buffers, a 16-byte struct rpmsg_hdr */
#define VRPROC_BUF_SIZE		512u
#define VRPROC_HDR_SIZE		16u
#define VRPROC_MTU		(VRPROC_BUF_SIZE - VRPROC_HDR_SIZE)

/* Addresses the remote serves; announced with RPMSG_NS_CREATE. */
#define VRPROC_ADDR_RAW		0x400u	/* "rpmsg-raw": rpmsg_char */
#define VRPROC_ADDR_TTY		0x401u	/* "rpmsg-tty": rpmsg_tty */
#define VRPROC_ADDR_NL		0x402u	/* "icbench-netlink": netlink_bridge */
#define VRPROC_ADDR_SDB		0x403u	/* "rpmsg-sdb-channel": kernel/sdb (ST's name) */
#define VRPROC_NCHAN		4
#define VRPROC_NSESS		40	/* (channel, Linux address) pairs served: reference
				 * 003's 32 channels, the tty and the bridge */

/* Mirror of virtio_rpmsg_bus.c's private struct rpmsg_hdr (little endian:
 * the rproc virtio device offers no VIRTIO_F_VERSION_1, and x86 is LE). */
struct vrproc_hdr {
	__le32 src;
	__le32 dst;
	__le32 reserved;
	__le16 len;
	__le16 flags;
	u8 data[];
} __packed;

/* The device side of one vring. */
struct vdev_ring {
	struct vring vr;
	unsigned int num;
	u32 notifyid;
	u16 last_avail;		/* next avail entry the device consumes */
	u16 used_idx;		/* shadow of vr.used->idx */
};

struct vrproc;

/* One conversation: a remote address and the Linux endpoint talking to it.
 * Each has its own responder, as two programs on an MCU would. */
struct vrproc_session {
	struct vrproc *vp;
	u32 local;		/* remote (device) address */
	u32 peer;		/* Linux endpoint address */
	enum icb_proto proto;
	u64 last_use;
	bool used;
	struct icb_responder resp;
	u8 rx[VRPROC_MTU];
	u8 tx[VRPROC_MTU];
};

struct vrproc_stats {
	u64 rx_msgs;		/* messages taken from the host's TX vring */
	u64 tx_msgs;		/* messages put into the host's RX vring */
	u64 rx_bytes, tx_bytes;	/* payload bytes */
	u64 kicks;		/* rproc_ops.kick calls */
	u64 irqs;		/* rproc_vq_interrupt calls */
	u64 dropped;		/* fault: drop_every */
	u64 corrupted;		/* fault: corrupt_every */
	u64 no_recipient;	/* messages to an address nobody serves */
	u64 bad_msgs;		/* malformed headers or descriptors */
	u64 send_errors;	/* replies that could not be sent */
	u64 sessions_evicted;
	u64 boots, crashes;
};

struct vrproc {
	struct platform_device *pdev;
	struct rproc *rproc;
	void *sram;
	struct task_struct *thread;
	struct rproc_subdev quiesce;	/* stops the thread before vdev teardown */
	bool quiesce_added;
	wait_queue_head_t wq;
	atomic_t kicked;		/* Linux rang a doorbell */
	atomic_t crash_req;		/* fault: crash requested */
	/* state of the running "firmware" (reset on every start) */
	struct fw_rsc_vdev *rsc;	/* the vdev entry of the loaded table */
	struct vdev_ring host_rx;	/* vring0: device → Linux */
	struct vdev_ring host_tx;	/* vring1: Linux → device */
	bool dead;			/* crashed: serves nothing until stopped */
	u64 clock;			/* session LRU counter */
	/* fault counters, only taken modulo drop_every/corrupt_every: 32 bits,
	 * because `u64 % u32` is a libgcc call (__aeabi_uldivmod) that a 32-bit
	 * ARM kernel does not export (modpost: undefined); a wrap after 2^32
	 * messages shifts the every-Nth pattern once */
	u32 nmsg;
	u32 nreply;
	struct vrproc_session sess[VRPROC_NSESS];
	struct icb_sdb sdb;		/* the sdb channel's buffers (firmware/) */
	u32 sdb_peer;			/* Linux's endpoint on the sdb channel */
	u8 inbuf[VRPROC_BUF_SIZE];
	struct vrproc_stats st;
};

/* module parameters read by the thread (vrproc_main.c) */
struct vrproc_faults {
	unsigned int delay_us;
	unsigned int drop_every;
	unsigned int corrupt_every;
	bool stall;
};
void vrproc_get_faults(struct vrproc_faults *f);
enum icb_proto vrproc_chan_proto(u32 addr);

/* vrproc_vring.c */
int vdr_setup(struct vdev_ring *r, struct rproc *rproc,
	      const struct fw_rsc_vdev_vring *rsc);
bool vdr_peek(struct vdev_ring *r, u16 *head);
void vdr_consume(struct vdev_ring *r);
void *vdr_buf(struct vdev_ring *r, struct rproc *rproc, u16 head, u32 *len);
void vdr_put_used(struct vdev_ring *r, u16 head, u32 len);
bool vdr_wants_irq(struct vdev_ring *r);

/* vrproc_serve.c */
int vrproc_serve(void *data);	/* the thread */

#endif /* VRPROC_H */
