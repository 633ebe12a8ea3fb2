/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtual_rproc: a remote processor for Linux's remoteproc framework whose
 * "core" is a kernel thread pinned to one CPU.  Shared declarations.
 *
 * Files:
 *   vrproc_main.c   module parameters, the platform device, rproc_ops,
 *                   the thread's lifecycle (start/stop/crash)
 *   vrproc_serve.c  the remote's firmware: the portable RPMsg remote
 *                   (firmware/src/icb_rpmsg.c, icb_vring.c: the code an
 *                   MCU port runs, issue #34) on this kernel's memory,
 *                   barriers and interrupt, with the sessions, the icb
 *                   responder port and the faults around it
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
#include "icb_rpmsg.h"
#include "icb_sdb.h"
#include "icb_session.h"

/* The remote's private memory ("SRAM"): where the ELF image is loaded and
 * where the loaded resource table lives (rproc_elf_find_loaded_rsc_table).
 * Device addresses [VRPROC_SRAM_DA, +VRPROC_SRAM_SIZE) map onto it. */
#define VRPROC_SRAM_DA		0x10000000u
#define VRPROC_SRAM_SIZE	(64u * 1024u)

/* virtio_rpmsg_bus: 512-byte buffers, a 16-byte struct rpmsg_hdr */
#define VRPROC_BUF_SIZE		ICB_RPMSG_BUF_SIZE
#define VRPROC_MTU		(ICB_RPMSG_BUF_SIZE - ICB_RPMSG_HDR_SIZE)

/* Addresses the remote serves; announced with RPMSG_NS_CREATE. */
#define VRPROC_ADDR_RAW		0x400u	/* "rpmsg-raw": rpmsg_char */
#define VRPROC_ADDR_TTY		0x401u	/* "rpmsg-tty": rpmsg_tty */
#define VRPROC_ADDR_NL		0x402u	/* "icbench-netlink": netlink_bridge */
#define VRPROC_ADDR_SDB		0x403u	/* "rpmsg-sdb-channel": kernel/sdb (ST's name) */
#define VRPROC_NCHAN		4
#define VRPROC_NSESS		40	/* (channel, Linux address) pairs served: reference
				 * 003's 32 channels, the tty and the bridge */

struct vrproc;

/* Counted over the module's life: the library's own counters (struct
 * icb_rpmsg_stats, per boot) are added in at each start and when shown. */
struct vrproc_stats {
	u64 rx_msgs;		/* messages taken from the host's TX vring */
	u64 tx_msgs;		/* messages put into the host's RX vring */
	u64 rx_bytes, tx_bytes;	/* payload bytes */
	u64 kicks;		/* rproc_ops.kick calls */
	u64 irqs;		/* rproc_vq_interrupt calls (the library's kick hook) */
	u64 dropped;		/* fault: drop_every */
	u64 corrupted;		/* fault: corrupt_every */
	u64 no_recipient;	/* messages to an address nobody serves */
	u64 bad_msgs;		/* malformed headers, descriptors, rings, sdb input */
	u64 send_errors;	/* replies that could not be sent */
	u64 sessions_evicted;	/* the session table's, added in as the library's */
	u64 boots, crashes;
	u64 cache_inval;	/* the library's invalidate hook calls (nothing to do here) */
	u64 cache_clean;	/* the library's clean hook calls (nothing to do here) */
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
	struct icb_vring_ops vops;	/* this kernel's translate, barriers, interrupt */
	struct icb_rpmsg rp;		/* vring0 (device → Linux), vring1 and endpoints */
	struct icb_rpmsg_ept epts[VRPROC_NCHAN];
	bool dead;			/* crashed: serves nothing until stopped */
	/* fault counters, only taken modulo drop_every/corrupt_every: 32 bits,
	 * because `u64 % u32` is a libgcc call (__aeabi_uldivmod) that a 32-bit
	 * ARM kernel does not export (modpost: undefined); a wrap after 2^32
	 * messages shifts the every-Nth pattern once */
	u32 nmsg;
	u32 nreply;
	/* a responder per (channel, Linux address), as separate programs on an
	 * MCU would keep them (firmware/src/icb_session.c, as the M4 port) */
	struct icb_session sess[VRPROC_NSESS];
	struct icb_sessions sessions;
	struct icb_sdb sdb;		/* the sdb channel's buffers (firmware/) */
	u32 sdb_peer;			/* Linux's endpoint on the sdb channel */
	u8 inbuf[VRPROC_BUF_SIZE];	/* a message, copied out of its buffer */
	u8 outbuf[VRPROC_MTU];		/* a reply the corrupt_every fault flips */
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

/* vrproc_serve.c */
int vrproc_serve(void *data);	/* the thread */
void vrproc_fold_stats(struct vrproc *vp, struct vrproc_stats *out);

#endif /* VRPROC_H */
