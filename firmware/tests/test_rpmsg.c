/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The rpmsg remote (icb_rpmsg.h) driven by a model of the host side: what
 * Linux's virtio_ring and virtio_rpmsg_bus do — fill the descriptor tables,
 * post receive buffers in vring 0's avail ring, put messages into vring 1,
 * read the used rings, re-post what comes back.  The model lays the vrings
 * out from the spec's formula itself (not from the library's macros).
 */
#include <string.h>

#include "icb_rpmsg.h"
#include "icbt.h"

#define T_BASE_DA	0x20000000u
#define T_MAXNUM	256u
#define T_RING_BYTES	(3u * 4096u)	/* a 256-entry vring, align 4096: 10246 */
#define T_BUF		512u
#define T_MEM		(2u * T_RING_BYTES + 2u * T_MAXNUM * T_BUF)

static uint8_t t_mem[T_MEM] __attribute__((aligned(4096)));

struct t_range {
	const uint8_t *p;
	size_t n;
};

struct t_host {
	uint8_t *mem;
	uint32_t num, align;
	/* the host's view of each vring: 0 = its rx, 1 = its tx */
	struct icb_vring_desc *desc[2];
	struct icb_vring_avail *avail[2];
	struct icb_vring_used *used[2];
	uint16_t avail_idx[2], last_used[2];
	uint32_t next_tx;	/* next tx buffer slot */
	/* hooks' counters */
	uint32_t kicks[2], inval, clean, acq, rel, full, translate_refused;
	struct t_range inv_log[64], clean_log[64];
	uint32_t ninv_log, nclean_log;
	int reject_da;	/* translate refuses this many more calls */
};

static size_t t_align(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static uint32_t t_da(const struct t_host *h, const void *p)
{
	return T_BASE_DA + (uint32_t)((const uint8_t *)p - h->mem);
}

static uint8_t *t_buf(struct t_host *h, int q, uint32_t i)
{
	return h->mem + 2u * T_RING_BYTES + ((uint32_t)q * T_MAXNUM + i) * T_BUF;
}

static void *t_translate(void *ctx, uint64_t da, uint32_t len)
{
	struct t_host *h = ctx;

	if (h->reject_da > 0) {
		h->reject_da--;
		h->translate_refused++;
		return NULL;
	}
	if (da < T_BASE_DA || da - T_BASE_DA > T_MEM || len > T_MEM - (da - T_BASE_DA)) {
		h->translate_refused++;
		return NULL;
	}
	return h->mem + (da - T_BASE_DA);
}

static void t_acq(void *ctx)
{
	((struct t_host *)ctx)->acq++;
}

static void t_rel(void *ctx)
{
	((struct t_host *)ctx)->rel++;
}

static void t_full(void *ctx)
{
	((struct t_host *)ctx)->full++;
}

static void t_kick(void *ctx, uint32_t id)
{
	((struct t_host *)ctx)->kicks[id & 1u]++;
}

static void t_inval(void *ctx, const void *p, size_t n)
{
	struct t_host *h = ctx;

	h->inval++;
	h->inv_log[h->ninv_log++ % 64u] = (struct t_range){ p, n };
}

static void t_clean(void *ctx, const void *p, size_t n)
{
	struct t_host *h = ctx;

	h->clean++;
	h->clean_log[h->nclean_log++ % 64u] = (struct t_range){ p, n };
}

/* Was [p, p+n) covered by one logged range? */
static int t_covered(const struct t_range *log, uint32_t nlog, const void *p, size_t n)
{
	uint32_t i;

	for (i = 0; i < nlog && i < 64u; i++)
		if (log[i].p <= (const uint8_t *)p &&
		    (const uint8_t *)p + n <= log[i].p + log[i].n)
			return 1;
	return 0;
}

static void t_logs_clear(struct t_host *h)
{
	h->ninv_log = h->nclean_log = 0;
}

/* Lay out both vrings as remoteproc does (legacy layout), indices at start,
 * and post every receive buffer */
static void t_host_init(struct t_host *h, const struct icb_vring_ops **ops, uint32_t num,
			uint32_t align, uint16_t start)
{
	static struct icb_vring_ops o;
	int q;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	memset(t_mem, 0, sizeof(t_mem));
	h->mem = t_mem;
	h->num = num;
	h->align = align;
	for (q = 0; q < 2; q++) {
		uint8_t *r = h->mem + (uint32_t)q * T_RING_BYTES;
		size_t used_off = t_align(16u * num + 2u * (3u + num), align);

		h->desc[q] = (struct icb_vring_desc *)(void *)r;
		h->avail[q] = (struct icb_vring_avail *)(void *)(r + 16u * num);
		h->used[q] = (struct icb_vring_used *)(void *)(r + used_off);
		h->avail[q]->idx = h->used[q]->idx = start;
		h->avail_idx[q] = h->last_used[q] = start;
	}
	for (i = 0; i < num; i++) {
		h->desc[0][i].addr = t_da(h, t_buf(h, 0, i));
		h->desc[0][i].len = T_BUF;
		h->desc[0][i].flags = ICB_VRING_DESC_F_WRITE;
		h->avail[0]->ring[h->avail_idx[0]++ & (num - 1u)] = (uint16_t)i;
	}
	h->avail[0]->idx = h->avail_idx[0];
	o.ctx = h;
	o.translate = t_translate;
	o.acquire = t_acq;
	o.release = t_rel;
	o.full = t_full;
	o.kick = t_kick;
	o.invalidate = t_inval;
	o.clean = t_clean;
	*ops = &o;
}

static void t_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t t_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Host → device: one message in the next tx buffer, made available (the
 * descriptor gets blen; 0: header + len) */
static uint16_t t_host_send_raw(struct t_host *h, uint32_t src, uint32_t dst, const void *data,
				uint16_t len, uint32_t blen)
{
	uint16_t slot = (uint16_t)(h->next_tx++ & (h->num - 1u));
	uint8_t *b = t_buf(h, 1, slot);

	t_put_le32(b, src);
	t_put_le32(b + 4, dst);
	t_put_le32(b + 8, 0);
	b[12] = (uint8_t)len;
	b[13] = (uint8_t)(len >> 8);
	b[14] = b[15] = 0;
	memcpy(b + 16, data, len);
	h->desc[1][slot].addr = t_da(h, b);
	h->desc[1][slot].len = blen ? blen : 16u + len;
	h->desc[1][slot].flags = 0;
	h->desc[1][slot].next = 0;
	h->avail[1]->ring[h->avail_idx[1]++ & (h->num - 1u)] = slot;
	h->avail[1]->idx = h->avail_idx[1];
	return slot;
}

static uint16_t t_host_send(struct t_host *h, uint32_t src, uint32_t dst, const void *data,
			    uint16_t len)
{
	return t_host_send_raw(h, src, dst, data, len, 0);
}

/* The next buffer the device gave back on ring q: 1 and (id, len), or 0 */
static int t_host_used(struct t_host *h, int q, uint32_t *id, uint32_t *len)
{
	struct icb_vring_used_elem *e;

	if (h->used[q]->idx == h->last_used[q])
		return 0;
	e = &h->used[q]->ring[h->last_used[q]++ & (h->num - 1u)];
	*id = e->id;
	*len = e->len;
	return 1;
}

/* Device → host: the next message in vring 0, its buffer re-posted (as
 * rpmsg_recv_done does).  Returns its payload length or -1. */
static int t_host_recv(struct t_host *h, uint32_t *src, uint32_t *dst, uint8_t *out)
{
	uint32_t id, len, plen;
	const uint8_t *b;

	if (!t_host_used(h, 0, &id, &len))
		return -1;
	if (id >= h->num || len < 16)
		return -2;
	b = t_buf(h, 0, id);
	plen = (uint32_t)b[12] | (uint32_t)b[13] << 8;
	if (plen + 16u != len || t_le32(b + 8) != 0 || b[14] || b[15])
		return -3;
	*src = t_le32(b);
	*dst = t_le32(b + 4);
	memcpy(out, b + 16, plen);
	h->avail[0]->ring[h->avail_idx[0]++ & (h->num - 1u)] = (uint16_t)id;
	h->avail[0]->idx = h->avail_idx[0];
	return (int)plen;
}

/* Endpoints: record what arrives; the echo endpoint replies */
struct t_rx {
	uint32_t n, src, addr, len;
	uint8_t data[T_BUF];
	int reply_ret;
};

static int t_cb_record(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
		       const uint8_t *data, uint32_t len)
{
	struct t_rx *r = ept->priv;

	(void)rp;
	r->n++;
	r->src = src;
	r->addr = ept->addr;
	r->len = len;
	memcpy(r->data, data, len);
	return 0;
}

static int t_cb_echo(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
		     const uint8_t *data, uint32_t len)
{
	struct t_rx *r = ept->priv;

	r->n++;
	r->reply_ret = icb_rpmsg_send(rp, ept->addr, src, data, len);
	return r->reply_ret;
}

static void t_vrings(struct icb_rpmsg *rp, const struct icb_vring_ops *ops, uint32_t num,
		     uint32_t align, uint16_t start, struct icb_rpmsg_ept *epts, uint32_t nept,
		     uint8_t *scratch, uint32_t slen)
{
	struct icb_vring vr[2];

	icb_vring_init(&vr[0], t_mem, num, align, 0, ops);
	icb_vring_init(&vr[1], t_mem + T_RING_BYTES, num, align, 1, ops);
	vr[0].last_avail = vr[0].used_idx = start;
	vr[1].last_avail = vr[1].used_idx = start;
	icb_rpmsg_init(rp, &vr[0], &vr[1], epts, nept, scratch, slen);
}

static void test_layout(struct icbt_counts *c)
{
	struct icb_vring vr;
	struct icb_vring_ops o = { 0 };

	o.translate = t_translate;
	/* Linux's vring_size(num, align) */
	CHECK(c, ICB_VRING_SIZE(256, 4096) == 10246u);
	CHECK(c, ICB_VRING_USED_OFF(256, 4096) == 8192u);
	CHECK(c, ICB_VRING_SIZE(16, 16) == 438u);
	CHECK(c, ICB_VRING_USED_OFF(16, 16) == 304u);
	CHECK(c, icb_vring_init(&vr, t_mem, 16, 16, 0, &o) == 0);
	CHECK(c, (uint8_t *)vr.avail == t_mem + 256 && (uint8_t *)vr.used == t_mem + 304);
	CHECK(c, icb_vring_init(&vr, t_mem, 24, 16, 0, &o) == -ICB_RPMSG_EINVAL);
	CHECK(c, icb_vring_init(&vr, t_mem, 16, 12, 0, &o) == -ICB_RPMSG_EINVAL);
	o.translate = NULL;
	CHECK(c, icb_vring_init(&vr, t_mem, 16, 16, 0, &o) == -ICB_RPMSG_EINVAL);
}

/* (a) name service, (b) host → device, (c) device → host */
static void test_ns_and_messages(struct icbt_counts *c, int with_scratch)
{
	static struct t_host h;
	const struct icb_vring_ops *ops;
	struct icb_rpmsg rp;
	struct t_rx raw, tty;
	struct icb_rpmsg_ept epts[3] = {
		{ 0x400, "rpmsg-raw", t_cb_record, NULL },
		{ 0x401, "rpmsg-tty", t_cb_record, NULL },
		{ 0x402, "a-name-longer-than-thirty-one-characters", NULL, NULL },
	};
	uint8_t scratch[496], out[T_BUF], msg[496];
	uint32_t src, dst, id, len, i;

	epts[0].priv = &raw;
	epts[1].priv = &tty;
	memset(&raw, 0, sizeof(raw));
	memset(&tty, 0, sizeof(tty));
	t_host_init(&h, &ops, 16, 4096, 0);
	t_vrings(&rp, ops, 16, 4096, 0, epts, 3, with_scratch ? scratch : NULL,
		 with_scratch ? sizeof(scratch) : 0);

	/* (a) */
	CHECK(c, icb_rpmsg_announce_all(&rp) == 0);
	CHECK(c, h.kicks[0] == 3);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 40);
	CHECK(c, src == 0x400 && dst == ICB_RPMSG_NS_ADDR);
	CHECK(c, memcmp(out, "rpmsg-raw", 10) == 0 && out[31] == 0);
	CHECK(c, t_le32(out + 32) == 0x400 && t_le32(out + 36) == ICB_RPMSG_NS_CREATE);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 40);
	CHECK(c, src == 0x401 && dst == 53 && strcmp((char *)out, "rpmsg-tty") == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 40);
	CHECK(c, strlen((char *)out) == 31 && memcmp(out, epts[2].name, 31) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == -1);
	CHECK(c, icb_rpmsg_announce(&rp, &epts[1], ICB_RPMSG_NS_DESTROY) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 40 && t_le32(out + 36) == 1);

	/* (b) */
	icbt_pattern(msg, sizeof(msg));
	for (i = 0; i < sizeof(msg); i++)
		msg[i] ^= (uint8_t)(i >> 3);
	t_host_send(&h, 0x35a, 0x401, msg, 333);
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 1);
	CHECK(c, tty.n == 1 && raw.n == 0 && tty.src == 0x35a && tty.addr == 0x401);
	CHECK(c, tty.len == 333 && memcmp(tty.data, msg, 333) == 0);
	CHECK(c, t_host_used(&h, 1, &id, &len) == 1 && id == 0 && len == 0);
	CHECK(c, h.kicks[1] == 1);
	t_host_send(&h, 0x35b, 0x400, msg, 496);
	t_host_send(&h, 0x35b, 0x400, msg, 0);
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 2 && raw.n == 2 && raw.len == 0);
	CHECK(c, h.kicks[1] == 2);	/* once per poll */
	CHECK(c, t_host_used(&h, 1, &id, &len) == 1 && id == 1);
	CHECK(c, t_host_used(&h, 1, &id, &len) == 1 && id == 2);
	t_host_send(&h, 0x35b, 0x999, msg, 4);	/* nobody */
	t_host_send(&h, 0x35b, 53, msg, 40);	/* the host's own announcement */
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 2);
	CHECK(c, rp.st.no_recipient == 1 && rp.st.ns_in == 1 && rp.st.rx_msgs == 5);
	CHECK(c, t_host_used(&h, 1, &id, &len) && t_host_used(&h, 1, &id, &len));
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 0 && h.kicks[1] == 3);

	/* (c) */
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x35a, msg, 496) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 496);
	CHECK(c, src == 0x400 && dst == 0x35a && memcmp(out, msg, 496) == 0);
	CHECK(c, icb_rpmsg_send(&rp, 0x401, 0x35b, msg + 7, 1) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 1 && out[0] == msg[7]);
	CHECK(c, icb_rpmsg_send(&rp, 0x401, 0x35b, NULL, 0) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 0);
	/* 497 bytes do not fit a 512-byte buffer: refused, the buffer stays
	 * posted and takes the next message */
	i = rp.host_rx.last_avail;
	CHECK(c, icb_rpmsg_send(&rp, 0x401, 0x35b, msg, 497) == -ICB_RPMSG_ETOOLONG);
	CHECK(c, t_host_used(&h, 0, &id, &len) == 0 && rp.host_rx.last_avail == i);
	CHECK(c, icb_rpmsg_send(&rp, 0x401, 0x35b, msg, 3) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 3);
	CHECK(c, rp.st.tx_msgs == 8 && rp.host_rx.st.bad_desc == 0);

	/* the host suppresses interrupts on its rx ring: no kick */
	h.avail[0]->flags = ICB_VRING_AVAIL_F_NO_INTERRUPT;
	i = h.kicks[0];
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x35a, msg, 8) == 0);
	CHECK(c, h.kicks[0] == i && rp.host_rx.st.suppressed == 1);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 8);
}

/* (d) the 16-bit indices wrap: a real run past 65536 and a start near it */
static void test_wrap(struct icbt_counts *c, uint32_t num, uint16_t start, uint32_t msgs)
{
	static struct t_host h;
	const struct icb_vring_ops *ops;
	struct icb_rpmsg rp;
	struct t_rx echo;
	struct icb_rpmsg_ept ept = { 0x400, "rpmsg-raw", t_cb_echo, NULL };
	uint8_t scratch[496], msg[64], out[T_BUF];
	uint32_t i, src, dst, id, len, bad = 0;

	memset(&echo, 0, sizeof(echo));
	ept.priv = &echo;
	t_host_init(&h, &ops, num, num == 16 ? 16 : 4096, start);
	t_vrings(&rp, ops, num, num == 16 ? 16 : 4096, start, &ept, 1, scratch,
		 sizeof(scratch));
	for (i = 0; i < msgs; i++) {
		uint16_t n = (uint16_t)(1u + i % sizeof(msg));
		int got;

		memcpy(msg, &i, sizeof(i));
		memset(msg + 4, (int)(i * 7u), sizeof(msg) - 4);
		t_host_send(&h, 0x500 + (i & 3u), 0x400, msg, n);
		if (icb_rpmsg_poll(&rp, 0) != 1)
			bad++;
		if (!t_host_used(&h, 1, &id, &len) || len != 0)
			bad++;
		got = t_host_recv(&h, &src, &dst, out);
		if (got != n || src != 0x400 || dst != 0x500 + (i & 3u) || memcmp(out, msg, n))
			bad++;
	}
	CHECK(c, bad == 0);
	CHECK(c, echo.n == msgs && echo.reply_ret == 0);
	/* one round trip per message on each ring, modulo 2^16 */
	CHECK(c, h.used[1]->idx == (uint16_t)(start + msgs));
	CHECK(c, h.used[0]->idx == (uint16_t)(start + msgs));
	CHECK(c, rp.host_tx.last_avail == (uint16_t)(start + msgs));
	CHECK(c, rp.host_tx.st.popped == msgs && rp.host_rx.st.pushed == msgs);
}

/* (e) no host buffer: an error at once, not a wait */
static void test_full(struct icbt_counts *c)
{
	static struct t_host h;
	const struct icb_vring_ops *ops;
	struct icb_rpmsg rp;
	uint8_t out[T_BUF];
	uint32_t i, src, dst;

	t_host_init(&h, &ops, 16, 16, 65530);
	t_vrings(&rp, ops, 16, 16, 65530, NULL, 0, NULL, 0);
	for (i = 0; i < 16; i++)
		CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, &i, sizeof(i)) == 0);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, &i, sizeof(i)) == -ICB_RPMSG_ENOBUF);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, &i, sizeof(i)) == -ICB_RPMSG_ENOBUF);
	CHECK(c, rp.st.no_buffer == 2 && rp.st.tx_msgs == 16);
	/* the host takes one message and re-posts its buffer: room for one */
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 4 && t_le32(out) == 0);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, &i, sizeof(i)) == 0);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, &i, sizeof(i)) == -ICB_RPMSG_ENOBUF);
	for (i = 1; i < 17; i++)
		CHECK(c, t_host_recv(&h, &src, &dst, out) == 4 && t_le32(out) == i);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == -1);
}

/* (f) malformed descriptors and headers: refused, counted, ring goes on */
static void test_malformed(struct icbt_counts *c)
{
	static struct t_host h;
	const struct icb_vring_ops *ops;
	struct icb_rpmsg rp;
	struct t_rx r;
	struct icb_rpmsg_ept ept = { 0x400, NULL, t_cb_record, NULL };
	uint8_t msg[32], out[T_BUF];
	uint32_t id, len, src, dst;
	uint16_t slot, used0;

	memset(&r, 0, sizeof(r));
	ept.priv = &r;
	memset(msg, 0xa5, sizeof(msg));
	t_host_init(&h, &ops, 16, 16, 0);
	t_vrings(&rp, ops, 16, 16, 0, &ept, 1, NULL, 0);

	/* head index out of range: consumed, nothing to give back */
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.avail[1]->ring[(h.avail_idx[1] - 1u) & 15u] = 16;
	used0 = h.used[1]->idx;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, rp.host_tx.st.bad_desc == 1 && h.used[1]->idx == used0);
	(void)slot;

	/* an address the translate hook refuses: returned with length 0 */
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].addr = 0x1000;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot && len == 0);
	/* past the end of the buffer area */
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].addr = T_BASE_DA + T_MEM - 8;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot && len == 0);
	/* a length beyond any buffer, and a zero length */
	slot = t_host_send_raw(&h, 1, 0x400, msg, 8, 1u << 20);
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot);
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].len = 0;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot);
	/* a chain that loops on itself, a chain out of range, an indirect one */
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].flags = ICB_VRING_DESC_F_NEXT;
	h.desc[1][slot].next = slot;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot);
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].flags = ICB_VRING_DESC_F_NEXT;
	h.desc[1][slot].next = 200;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot);
	slot = t_host_send(&h, 1, 0x400, msg, 8);
	h.desc[1][slot].flags = ICB_VRING_DESC_F_INDIRECT;
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EDESC);
	CHECK(c, t_host_used(&h, 1, &id, &len) && id == slot);
	CHECK(c, rp.host_tx.st.bad_desc == 8 && r.n == 0);
	CHECK(c, h.translate_refused == 2);

	/* headers: buffer shorter than a header, len beyond the buffer */
	t_host_send_raw(&h, 1, 0x400, msg, 8, 12);
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EMSG);
	t_host_send_raw(&h, 1, 0x400, msg, 8, 20);
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_EMSG);
	CHECK(c, t_host_used(&h, 1, &id, &len) && t_host_used(&h, 1, &id, &len));
	CHECK(c, rp.st.bad_msgs == 2 && r.n == 0);

	/* a ring whose avail index ran ahead by more than num */
	h.avail[1]->idx = (uint16_t)(h.avail_idx[1] + 17u);
	CHECK(c, icb_rpmsg_recv_one(&rp) == -ICB_RPMSG_ERING);
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 0 && rp.host_tx.st.bad_ring == 2);
	h.avail[1]->idx = h.avail_idx[1];

	/* and the ring still works */
	t_host_send(&h, 7, 0x400, msg, 32);
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 1 && r.n == 1 && r.len == 32 && r.src == 7);
	CHECK(c, memcmp(r.data, msg, 32) == 0);
	CHECK(c, t_host_used(&h, 1, &id, &len) && len == 0);
	CHECK(c, t_host_used(&h, 1, &id, &len) == 0);

	/* the device side: a receive buffer the translate hook refuses is
	 * dropped, not returned (Linux would read a length-0 buffer as a
	 * message); the next buffer takes the message */
	h.reject_da = 1;
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 9, msg, 4) == -ICB_RPMSG_EDESC);
	CHECK(c, rp.host_rx.st.bad_desc == 1);
	CHECK(c, t_host_used(&h, 0, &id, &len) == 0);
	h.desc[0][1].len = 18;	/* too short for 16 + 4: stays posted */
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 9, msg, 4) == -ICB_RPMSG_ETOOLONG);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 9, msg, 0) == 0);
	CHECK(c, t_host_used(&h, 0, &id, &len) && id == 1 && len == 16);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 9, msg, 4) == 0);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 4 && dst == 9);
	CHECK(c, rp.host_rx.st.bad_desc == 1 && rp.host_rx.st.popped == 2);
}

/* (g) the cache hooks around every shared read and write */
static void test_cache_hooks(struct icbt_counts *c)
{
	static struct t_host h;
	const struct icb_vring_ops *ops;
	struct icb_rpmsg rp;
	struct t_rx r;
	struct icb_rpmsg_ept ept = { 0x400, "x", t_cb_record, NULL };
	uint8_t msg[100];
	uint32_t acq, rel;
	uint16_t slot;

	memset(&r, 0, sizeof(r));
	ept.priv = &r;
	memset(msg, 0x3c, sizeof(msg));
	t_host_init(&h, &ops, 16, 16, 0);
	t_vrings(&rp, ops, 16, 16, 0, &ept, 1, NULL, 0);

	/* send: reads avail->idx, the avail entry, the descriptor; writes the
	 * buffer, the used element, used->idx; reads avail->flags */
	t_logs_clear(&h);
	acq = h.acq;
	rel = h.rel;
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, msg, 100) == 0);
	CHECK(c, h.ninv_log == 4 && h.nclean_log == 3);
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.avail[0]->idx, 2));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.avail[0]->ring[0], 2));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.desc[0][0], 16));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.avail[0]->flags, 2));
	CHECK(c, t_covered(h.clean_log, h.nclean_log, t_buf(&h, 0, 0), 116));
	CHECK(c, t_covered(h.clean_log, h.nclean_log, &h.used[0]->ring[0], 8));
	CHECK(c, t_covered(h.clean_log, h.nclean_log, &h.used[0]->idx, 2));
	CHECK(c, h.acq == acq + 1 && h.rel == rel + 1 && h.full >= 1);

	/* receive: the buffer's header and payload are invalidated too */
	slot = t_host_send(&h, 0x500, 0x400, msg, 100);
	t_logs_clear(&h);
	CHECK(c, icb_rpmsg_poll(&rp, 0) == 1 && r.n == 1);
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.avail[1]->idx, 2));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, &h.desc[1][slot], 16));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, t_buf(&h, 1, slot), 16));
	CHECK(c, t_covered(h.inv_log, h.ninv_log, t_buf(&h, 1, slot) + 16, 100));
	CHECK(c, t_covered(h.clean_log, h.nclean_log, &h.used[1]->ring[slot], 8));
	CHECK(c, t_covered(h.clean_log, h.nclean_log, &h.used[1]->idx, 2));
	CHECK(c, h.inval >= 10 && h.clean >= 5);
}

/* The resource table: the layout remoteproc reads, and bring-up from it */
static void test_rsc(struct icbt_counts *c)
{
	static const struct icb_rsc_table_rpmsg rsc = ICB_RSC_TABLE_RPMSG(256, 4096, 0, 0, 0);
	static const struct icb_rsc_table_rpmsg rsct =
		ICB_RSC_TABLE_RPMSG(16, 16, 1, 0x10008000u, 4096);
	static struct t_host h;
	struct icb_rsc_table_rpmsg t;
	const struct icb_vring_ops *ops;
	struct icb_fw_rsc_vdev *v;
	struct icb_rpmsg rp;
	const uint8_t *b = (const uint8_t *)&rsc;
	uint8_t out[T_BUF];
	uint32_t src, dst;

	CHECK(c, sizeof(rsc) == 140);
	CHECK(c, t_le32(b) == 1 && t_le32(b + 4) == 1 && t_le32(b + 16) == 24);
	CHECK(c, t_le32(b + 24) == ICB_RSC_VDEV);
	CHECK(c, t_le32(b + 28) == 7 && t_le32(b + 36) == 1);	/* id, dfeatures: NS */
	CHECK(c, b[48] == 0 && b[49] == 2);			/* status, num_of_vrings */
	CHECK(c, t_le32(b + 52) == 0xffffffffu && t_le32(b + 56) == 4096 &&
		 t_le32(b + 60) == 256);
	CHECK(c, t_le32(b + 72) == 0xffffffffu && t_le32(b + 80) == 256);
	b = (const uint8_t *)&rsct;
	CHECK(c, t_le32(b + 4) == 2 && t_le32(b + 20) == 92 && t_le32(b + 92) == ICB_RSC_TRACE);
	CHECK(c, t_le32(b + 96) == 0x10008000u && t_le32(b + 100) == 4096 &&
		 strcmp((const char *)b + 108, "trace0") == 0);

	/* Linux allocates the vrings and writes their addresses, then DRIVER_OK */
	t_host_init(&h, &ops, 16, 16, 0);
	memcpy(&t, &rsct, sizeof(t));
	v = &t.vdev;
	CHECK(c, icb_rsc_vdev_ready(v, ops) == 0);
	ICB_RSC_VDEV_VRING(v, 0)->da = t_da(&h, h.desc[0]);
	ICB_RSC_VDEV_VRING(v, 0)->notifyid = 0;
	ICB_RSC_VDEV_VRING(v, 1)->da = t_da(&h, h.desc[1]);
	ICB_RSC_VDEV_VRING(v, 1)->notifyid = 1;
	v->status = 7;
	CHECK(c, icb_rsc_vdev_ready(v, ops) == 1);
	CHECK(c, icb_rpmsg_init_rsc(&rp, v, ops, NULL, 0, NULL, 0) == 0);
	CHECK(c, rp.host_rx.desc == h.desc[0] && rp.host_tx.used == h.used[1]);
	CHECK(c, icb_rpmsg_send(&rp, 0x400, 0x500, "hi", 2) == 0 && h.kicks[0] == 1);
	CHECK(c, t_host_recv(&h, &src, &dst, out) == 2 && memcmp(out, "hi", 2) == 0);
	ICB_RSC_VDEV_VRING(v, 1)->da = 0x1000;
	CHECK(c, icb_rpmsg_init_rsc(&rp, v, ops, NULL, 0, NULL, 0) == -ICB_RPMSG_EINVAL);
	ICB_RSC_VDEV_VRING(v, 1)->da = t_da(&h, h.desc[1]);
	ICB_RSC_VDEV_VRING(v, 1)->num = 24;
	CHECK(c, icb_rpmsg_init_rsc(&rp, v, ops, NULL, 0, NULL, 0) == -ICB_RPMSG_EINVAL);
	v->num_of_vrings = 1;
	CHECK(c, icb_rpmsg_init_rsc(&rp, v, ops, NULL, 0, NULL, 0) == -ICB_RPMSG_EINVAL);
}

void test_rpmsg(struct icbt_counts *c)
{
	test_layout(c);
	test_ns_and_messages(c, 0);
	test_ns_and_messages(c, 1);
	test_wrap(c, 16, 0, 70000);
	test_wrap(c, 256, 0, 70000);
	test_wrap(c, 256, 65500, 1000);
	test_wrap(c, 16, 65535, 40);
	test_full(c);
	test_malformed(c);
	test_cache_hooks(c);
	test_rsc(c);
}
