/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The remote (device) side of RPMsg over virtio, as Linux's remoteproc and
 * virtio_rpmsg_bus drive it (issue #34 item 1), written from:
 *
 *  - the virtio 1.x specification, split virtqueue (§2.7), in the legacy
 *    layout Linux's remoteproc sets up: descriptor table, then the avail
 *    ring, then the used ring at the next multiple of `align` (the
 *    resource table's vring align: 4096 in kernel/virtual_rproc/mkfw.py);
 *  - the rpmsg wire format: a 16-byte header (src, dst, reserved, len,
 *    flags; little endian) before each payload, one message per buffer,
 *    name-service announcements (struct rpmsg_ns_msg) sent to address 53;
 *  - the kernel's remoteproc documentation (resource table, vdev entry).
 *
 * Which vring is which: the rpmsg vdev declares two; vring 0 is the host's
 * receive queue (the device takes an empty buffer Linux posted there, writes
 * a message into it and returns it through the used ring) and vring 1 the
 * host's transmit queue (the device takes a full buffer, reads the message
 * and returns the buffer empty).  kernel/virtual_rproc does the same
 * (vrproc.h: host_rx = vring0, host_tx = vring1).
 *
 * No allocation, no globals, no OS types: the caller owns every struct and
 * the port supplies, in struct icb_vring_ops, how a device address becomes
 * a pointer, the memory barriers, the doorbell to the host and the D-cache
 * maintenance.  The same code runs on an MCU (port/stm32mp1) and inside
 * the VM rig's kernel module (kernel/virtual_rproc/vrproc_serve.c).
 */
#ifndef ICB_RPMSG_H
#define ICB_RPMSG_H

#include <stddef.h>
#include <stdint.h>

/* Errors, returned negated */
#define ICB_RPMSG_ENOBUF	40	/* no buffer available in the ring now */
#define ICB_RPMSG_EDESC		41	/* malformed descriptor (refused, consumed) */
#define ICB_RPMSG_ERING		42	/* avail->idx more than num ahead of the device */
#define ICB_RPMSG_EMSG		43	/* malformed rpmsg header (refused, buffer returned) */
#define ICB_RPMSG_ETOOLONG	44	/* payload does not fit the buffer */
#define ICB_RPMSG_EINVAL	45	/* bad argument */
#define ICB_RPMSG_ENOEPT	46	/* no endpoint at the destination address */

/* Compile-time check usable in C99 (no _Static_assert before C11) */
#define ICB_CAT2(a, b)		a##b
#define ICB_CAT(a, b)		ICB_CAT2(a, b)
#define ICB_STATIC_ASSERT(cond, name) \
	typedef char ICB_CAT(icb_static_assert_, name)[(cond) ? 1 : -1]

#if defined(__GNUC__) || defined(__clang__)
#define ICB_PACKED		__attribute__((packed))
#else
#define ICB_PACKED
#endif

/* --- The split virtqueue (virtio 1.x §2.7), legacy layout ----------------- */

#define ICB_VRING_DESC_F_NEXT		1u
#define ICB_VRING_DESC_F_WRITE		2u
#define ICB_VRING_DESC_F_INDIRECT	4u
#define ICB_VRING_AVAIL_F_NO_INTERRUPT	1u
#define ICB_VRING_USED_F_NO_NOTIFY	1u

/* Largest buffer one descriptor may describe (kernel/virtual_rproc: 64 KiB) */
#define ICB_VRING_MAX_BUF		(64u * 1024u)

struct icb_vring_desc {
	uint64_t addr;		/* device address of the buffer */
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct icb_vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];	/* num entries, then used_event */
};

struct icb_vring_used_elem {
	uint32_t id;		/* head of the descriptor chain */
	uint32_t len;		/* bytes the device wrote into it */
};

struct icb_vring_used {
	uint16_t flags;
	uint16_t idx;
	struct icb_vring_used_elem ring[];	/* num entries, then avail_event */
};

ICB_STATIC_ASSERT(sizeof(struct icb_vring_desc) == 16, vring_desc);
ICB_STATIC_ASSERT(sizeof(struct icb_vring_avail) == 4, vring_avail);
ICB_STATIC_ASSERT(sizeof(struct icb_vring_used_elem) == 8, vring_used_elem);
ICB_STATIC_ASSERT(sizeof(struct icb_vring_used) == 4, vring_used);

/* Byte offsets of the avail and used rings from the descriptor table, and
 * the whole vring's size, for num entries aligned to align (a power of 2) */
#define ICB_VRING_ALIGN_UP(x, a)	(((x) + (a) - 1u) & ~((size_t)(a) - 1u))
#define ICB_VRING_AVAIL_OFF(num)	((size_t)(num) * 16u)
#define ICB_VRING_USED_OFF(num, align) \
	ICB_VRING_ALIGN_UP(ICB_VRING_AVAIL_OFF(num) + 2u * (3u + (size_t)(num)), (align))
#define ICB_VRING_SIZE(num, align) \
	(ICB_VRING_USED_OFF(num, align) + 6u + 8u * (size_t)(num))

/*
 * The port's hooks.  translate is required; the others may be NULL (barriers:
 * the compiler's __atomic_thread_fence; cache and kick: nothing to do).
 */
struct icb_vring_ops {
	void *ctx;
	/* pointer to [da, da + len) of the area the host may hand the device
	 * (vrings, rpmsg buffers), or NULL when any of it lies outside */
	void *(*translate)(void *ctx, uint64_t da, uint32_t len);
	/* after reading an index, before reading what it covers (rmb) */
	void (*acquire)(void *ctx);
	/* after writing a used element (and its buffer), before the index (wmb) */
	void (*release)(void *ctx);
	/* after publishing used->idx, before reading avail->flags (mb) */
	void (*full)(void *ctx);
	/* interrupt the host for the vring with this notify id (a mailbox write;
	 * in the kernel module rproc_vq_interrupt) */
	void (*kick)(void *ctx, uint32_t notifyid);
	/* D-cache: drop cached lines of [p, p+n) before reading shared memory,
	 * write dirty lines of [p, p+n) back after writing it */
	void (*invalidate)(void *ctx, const void *p, size_t n);
	void (*clean)(void *ctx, const void *p, size_t n);
};

struct icb_vring_stats {
	uint32_t popped;	/* chains taken from avail */
	uint32_t pushed;	/* elements put into used */
	uint32_t kicks;		/* kick hook calls */
	uint32_t suppressed;	/* notifications the host's NO_INTERRUPT suppressed */
	uint32_t bad_desc;	/* malformed descriptors refused */
	uint32_t bad_ring;	/* avail->idx seen more than num ahead */
};

/* The device's view of one vring */
struct icb_vring {
	struct icb_vring_desc *desc;
	struct icb_vring_avail *avail;
	struct icb_vring_used *used;
	uint16_t num;		/* entries, a power of 2 */
	uint16_t last_avail;	/* next avail entry the device consumes */
	uint16_t used_idx;	/* shadow of used->idx */
	uint32_t notifyid;
	/* 1 (icb_vring_init's default): a malformed chain whose head is in
	 * range goes back through used with length 0; 0: it is dropped (the
	 * driver loses that buffer).  icb_rpmsg_init sets 0 on vring 0: Linux
	 * subtracts the 16-byte header from a received length unchecked, so a
	 * receive buffer returned with length 0 would be read as a message. */
	uint8_t return_bad;
	const struct icb_vring_ops *ops;
	struct icb_vring_stats st;
};

/* A buffer the device took from the ring: descriptor head and its memory */
struct icb_vbuf {
	uint16_t head;		/* to give back with icb_vring_push */
	uint16_t flags;		/* the head descriptor's flags (WRITE: device writes) */
	uint16_t ndesc;		/* descriptors in the chain (rpmsg: 1) */
	uint32_t len;		/* bytes of the head descriptor's buffer */
	uint8_t *buf;		/* the head descriptor's buffer, translated */
};

/*
 * View a vring of num entries (a power of 2, at most 32768) laid out at mem
 * (ICB_VRING_SIZE(num, align) bytes, align a power of 2 ≥ 4).  The device
 * starts at index 0, as the driver does.  Returns 0 or -ICB_RPMSG_EINVAL.
 */
int icb_vring_init(struct icb_vring *vr, void *mem, uint32_t num, uint32_t align,
		   uint32_t notifyid, const struct icb_vring_ops *ops);

/*
 * Take the next chain the driver made available.  0: *b describes it;
 * -ICB_RPMSG_ENOBUF: nothing available; -ICB_RPMSG_EDESC: its head index,
 * address, length or chain was malformed — the entry is consumed and, if
 * its head index is in range and vr->return_bad is set, returned at once
 * through used with length 0, so the next call sees the next entry;
 * -ICB_RPMSG_ERING: avail->idx is more than num ahead (nothing consumed).
 */
int icb_vring_pop(struct icb_vring *vr, struct icb_vbuf *b);

/* Put back the chain the last successful pop took, untouched (the next pop
 * takes it again): for a buffer too small for what was to be written */
void icb_vring_unpop(struct icb_vring *vr);

/* Give chain head back with len bytes written; publishes used->idx */
void icb_vring_push(struct icb_vring *vr, uint16_t head, uint32_t len);

/* Interrupt the host unless it set VRING_AVAIL_F_NO_INTERRUPT; 1 if kicked */
int icb_vring_notify(struct icb_vring *vr);

/* --- rpmsg ---------------------------------------------------------------- */

#define ICB_RPMSG_HDR_SIZE	16u
#define ICB_RPMSG_BUF_SIZE	512u	/* virtio_rpmsg_bus's buffers */
#define ICB_RPMSG_NS_ADDR	53u	/* the name service */
#define ICB_RPMSG_NAME_SIZE	32u
#define ICB_RPMSG_NS_CREATE	0u
#define ICB_RPMSG_NS_DESTROY	1u
#define ICB_RPMSG_ADDR_ANY	0xffffffffu
#define ICB_RPMSG_RESERVED_ADDRESSES 1024u

/* The header before each message (all fields little endian) */
struct icb_rpmsg_hdr {
	uint32_t src;
	uint32_t dst;
	uint32_t reserved;
	uint16_t len;
	uint16_t flags;
} ICB_PACKED;

/* A name-service announcement (the payload of a message to address 53) */
struct icb_rpmsg_ns_msg {
	char name[ICB_RPMSG_NAME_SIZE];
	uint32_t addr;
	uint32_t flags;		/* ICB_RPMSG_NS_CREATE or _DESTROY */
} ICB_PACKED;

ICB_STATIC_ASSERT(sizeof(struct icb_rpmsg_hdr) == 16, rpmsg_hdr);
ICB_STATIC_ASSERT(sizeof(struct icb_rpmsg_ns_msg) == 40, rpmsg_ns_msg);

struct icb_rpmsg;
struct icb_rpmsg_ept;

/*
 * A message for ept from the host's address src.  data is valid during the
 * call only.  A nonzero return is counted in st.cb_errors.
 */
typedef int (*icb_rpmsg_cb)(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
			    const uint8_t *data, uint32_t len);

/* One endpoint of the caller's table */
struct icb_rpmsg_ept {
	uint32_t addr;		/* the device's address (≥ 1024 for announced ones) */
	const char *name;	/* announced by icb_rpmsg_announce_all; NULL: not */
	icb_rpmsg_cb cb;
	void *priv;
};

struct icb_rpmsg_stats {
	uint32_t rx_msgs, tx_msgs;	/* messages taken from vring1 / put into vring0 */
	uint32_t rx_bytes, tx_bytes;	/* payload bytes */
	uint32_t bad_msgs;		/* malformed headers */
	uint32_t no_recipient;		/* messages to an address no endpoint has */
	uint32_t ns_in;			/* messages to 53 (the host's own announcements) */
	uint32_t cb_errors;		/* callbacks that returned nonzero */
	uint32_t no_buffer;		/* sends with no host buffer available */
};

struct icb_rpmsg {
	struct icb_vring host_rx;	/* vring 0: device → host */
	struct icb_vring host_tx;	/* vring 1: host → device */
	struct icb_rpmsg_ept *epts;
	uint32_t nept;
	/* optional copy buffer: with one, each message is copied out and its
	 * buffer returned before the callback runs (so the host can reuse it and
	 * the callback can reply at once); without, the callback reads the
	 * shared buffer, which is returned after it */
	uint8_t *scratch;
	uint32_t scratch_len;
	struct icb_rpmsg_stats st;
};

/*
 * Set up rp on two vrings already viewed with icb_vring_init (host_rx is
 * vring 0, host_tx vring 1; they are copied into rp), with the caller's
 * endpoint table and optional scratch buffer (NULL, 0: none).
 */
int icb_rpmsg_init(struct icb_rpmsg *rp, const struct icb_vring *host_rx,
		   const struct icb_vring *host_tx, struct icb_rpmsg_ept *epts, uint32_t nept,
		   uint8_t *scratch, uint32_t scratch_len);

/*
 * One message src → dst into the next host receive buffer, then the host is
 * interrupted (unless it suppressed that).  0; -ICB_RPMSG_ENOBUF: the host
 * posted no free buffer (nothing waits: retry after its kick);
 * -ICB_RPMSG_EDESC: the buffer's descriptor was malformed (refused and
 * dropped, counted in host_rx.st.bad_desc; retry); -ICB_RPMSG_ETOOLONG:
 * len + 16 exceeds that buffer (left in the ring for a shorter message).
 */
int icb_rpmsg_send(struct icb_rpmsg *rp, uint32_t src, uint32_t dst, const void *data,
		   uint32_t len);

/* A name-service message for ept (ICB_RPMSG_NS_CREATE or _DESTROY) */
int icb_rpmsg_announce(struct icb_rpmsg *rp, const struct icb_rpmsg_ept *ept, uint32_t flags);

/* Announce (CREATE) every endpoint with a name; stops at the first error */
int icb_rpmsg_announce_all(struct icb_rpmsg *rp);

/*
 * Take one message from the host's transmit ring and dispatch it by dst.
 * 0: one buffer handled (delivered, or counted: no_recipient, ns_in);
 * -ICB_RPMSG_ENOBUF: nothing there; -ICB_RPMSG_EDESC / _ERING: malformed
 * descriptor / ring; -ICB_RPMSG_EMSG: malformed header (buffer returned).
 * Does not interrupt the host: icb_rpmsg_poll does, once.
 */
int icb_rpmsg_recv_one(struct icb_rpmsg *rp);

/* Handle up to max messages (0: until the ring is empty), then interrupt the
 * host once if any buffer went back.  Returns the buffers handled. */
uint32_t icb_rpmsg_poll(struct icb_rpmsg *rp, uint32_t max);

/* The endpoint at addr, or NULL */
struct icb_rpmsg_ept *icb_rpmsg_find(struct icb_rpmsg *rp, uint32_t addr);

/* --- The resource table (remoteproc.rst) ------------------------------- */

#define ICB_RSC_CARVEOUT	0u
#define ICB_RSC_DEVMEM		1u
#define ICB_RSC_TRACE		2u
#define ICB_RSC_VDEV		3u
#define ICB_FW_RSC_ADDR_ANY	0xffffffffu
#define ICB_VIRTIO_ID_RPMSG	7u
#define ICB_VIRTIO_RPMSG_F_NS	0u	/* feature bit: the name service */
#define ICB_VIRTIO_CONFIG_S_DRIVER_OK 4u

struct icb_resource_table {
	uint32_t ver;		/* 1 */
	uint32_t num;		/* entries; their offsets follow */
	uint32_t reserved[2];
} ICB_PACKED;

struct icb_fw_rsc_hdr {
	uint32_t type;		/* ICB_RSC_*; the entry follows */
} ICB_PACKED;

struct icb_fw_rsc_carveout {
	uint32_t da, pa, len, flags, reserved;
	char name[32];
} ICB_PACKED;

struct icb_fw_rsc_trace {
	uint32_t da, len, reserved;
	char name[32];
} ICB_PACKED;

struct icb_fw_rsc_vdev_vring {
	uint32_t da;		/* ICB_FW_RSC_ADDR_ANY: the host allocates and writes it */
	uint32_t align;
	uint32_t num;
	uint32_t notifyid;	/* written by the host */
	uint32_t pa;
} ICB_PACKED;

/* followed by num_of_vrings struct icb_fw_rsc_vdev_vring, then config */
struct icb_fw_rsc_vdev {
	uint32_t id;		/* ICB_VIRTIO_ID_RPMSG */
	uint32_t notifyid;
	uint32_t dfeatures;	/* device features: 1 << ICB_VIRTIO_RPMSG_F_NS */
	uint32_t gfeatures;	/* written by the host */
	uint32_t config_len;
	uint8_t status;		/* written by the host: DRIVER_OK when ready */
	uint8_t num_of_vrings;
	uint8_t reserved[2];
} ICB_PACKED;

ICB_STATIC_ASSERT(sizeof(struct icb_resource_table) == 16, resource_table);
ICB_STATIC_ASSERT(sizeof(struct icb_fw_rsc_hdr) == 4, fw_rsc_hdr);
ICB_STATIC_ASSERT(sizeof(struct icb_fw_rsc_carveout) == 52, fw_rsc_carveout);
ICB_STATIC_ASSERT(sizeof(struct icb_fw_rsc_trace) == 44, fw_rsc_trace);
ICB_STATIC_ASSERT(sizeof(struct icb_fw_rsc_vdev_vring) == 20, fw_rsc_vdev_vring);
ICB_STATIC_ASSERT(sizeof(struct icb_fw_rsc_vdev) == 24, fw_rsc_vdev);

/* The table of an rpmsg remote: one vdev with two vrings (what mkfw.py
 * writes), optionally followed by a trace buffer entry */
struct icb_rsc_table_rpmsg {
	struct icb_resource_table hdr;
	uint32_t offset[2];
	struct icb_fw_rsc_hdr vdev_hdr;
	struct icb_fw_rsc_vdev vdev;
	struct icb_fw_rsc_vdev_vring vring[2];
	struct icb_fw_rsc_hdr trace_hdr;
	struct icb_fw_rsc_trace trace;
} ICB_PACKED;

ICB_STATIC_ASSERT(sizeof(struct icb_rsc_table_rpmsg) == 16 + 8 + 4 + 24 + 40 + 4 + 44,
		  rsc_table_rpmsg);

#define ICB_RSC_VRING_INIT(num, align) { ICB_FW_RSC_ADDR_ANY, (align), (num), 0u, 0u }

/*
 * Initializer of a struct icb_rsc_table_rpmsg: num buffers per vring
 * aligned to align, and a trace buffer at trace_da of trace_len bytes when
 * with_trace is 1 (the entry count says whether the host sees it), e.g.
 *   __attribute__((section(".resource_table"), used))
 *   const struct icb_rsc_table_rpmsg rsc = ICB_RSC_TABLE_RPMSG(256, 4096, 0, 0, 0);
 */
#define ICB_RSC_TABLE_RPMSG(num, align, with_trace, trace_da, trace_len) {		\
	{ 1u, (with_trace) ? 2u : 1u, { 0u, 0u } },					\
	{ (uint32_t)offsetof(struct icb_rsc_table_rpmsg, vdev_hdr),			\
	  (with_trace) ? (uint32_t)offsetof(struct icb_rsc_table_rpmsg, trace_hdr) : 0u }, \
	{ ICB_RSC_VDEV },								\
	{ ICB_VIRTIO_ID_RPMSG, 0u, 1u << ICB_VIRTIO_RPMSG_F_NS, 0u, 0u, 0u, 2u, { 0u, 0u } }, \
	{ ICB_RSC_VRING_INIT(num, align), ICB_RSC_VRING_INIT(num, align) },		\
	{ ICB_RSC_TRACE },								\
	{ (trace_da), (trace_len), 0u, "trace0" } }

/* The vdev's vring i (the array after the entry) */
#define ICB_RSC_VDEV_VRING(v, i) \
	((struct icb_fw_rsc_vdev_vring *)((uint8_t *)(v) + sizeof(struct icb_fw_rsc_vdev)) + (i))

/*
 * Once the host set DRIVER_OK in vdev->status (check with
 * icb_rsc_vdev_ready, which invalidates and reads with acquire order): view
 * its two vrings at the device addresses the host wrote, through the
 * translate hook, and set up rp on them.  -ICB_RPMSG_EINVAL when the entry
 * is not an rpmsg vdev with two vrings or a vring cannot be translated.
 */
int icb_rsc_vdev_ready(const struct icb_fw_rsc_vdev *vdev, const struct icb_vring_ops *ops);
int icb_rpmsg_init_rsc(struct icb_rpmsg *rp, const struct icb_fw_rsc_vdev *vdev,
		       const struct icb_vring_ops *ops, struct icb_rpmsg_ept *epts,
		       uint32_t nept, uint8_t *scratch, uint32_t scratch_len);

#endif /* ICB_RPMSG_H */
