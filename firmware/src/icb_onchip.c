/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark: both cores' halves of each pattern, the
 * initiator's cell and the agent's loop.  The records and the responder
 * hook are icb_oc_record.c.  See icb_onchip.h and docs/protocol.md §1.10.
 *
 * Roles: in a cell one core sends (oneway, stream, bulk) or starts
 * (pingpong) and the other receives or echoes; direction I2A makes the
 * initiator the sender.  The same functions serve both cores; `report`
 * says whether this core is the agent, which sends its samples to the
 * initiator in a REPORT after each repetition instead of recording them.
 */
#include <string.h>

#include "icb_frame.h"
#include "icb_onchip.h"

/* Message kinds between the cores */
enum {
	ICB_K_CELL = 1,		/* initiator → agent, ctl: the RUN record */
	ICB_K_DONE = 2,		/* agent → initiator, ctl: status, window, bytes */
	ICB_K_DATA = 3,		/* payload; stamp: the sender's timer */
	ICB_K_ACK = 4,		/* receiver → sender; stamp: the receiver's timer */
	ICB_K_ECHO = 5,		/* the payload back */
	ICB_K_CREDIT = 6,	/* seq: messages consumed so far */
	ICB_K_REPORT = 7,	/* agent → initiator; stamp: one sample, ticks */
};

/* One cell as one core runs it */
struct icb_cell {
	struct icb_oc_side *s;
	const struct icb_oc_run *run;
	struct icb_xport *x;
	uint16_t tag;
	uint64_t limit;		/* ticks one wait may last */
	int report;		/* the agent: samples go out as REPORT */
	struct icb_hist *h;	/* the initiator: samples go here */
	struct icb_oc_outcome out;
};

/* --- payloads -------------------------------------------------------- */

/* The cell's pattern: byte i is i·7 + tag; the first 4 bytes carry seq */
static void icb_fill(uint8_t *buf, uint32_t len, uint16_t tag)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7u + tag);
}

static void icb_stamp_seq(uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len && i < 4; i++)
		buf[i] = (uint8_t)(seq >> (8 * i));
}

/* 0, or 1 + the offset of the first byte that differs */
static uint32_t icb_check(const uint8_t *buf, uint32_t len, uint32_t want_len, uint16_t tag,
			  uint32_t seq)
{
	uint32_t i;

	if (len != want_len)
		return 1u + (len < want_len ? len : want_len);
	for (i = 0; i < len; i++) {
		uint8_t want = i < 4 ? (uint8_t)(seq >> (8 * i)) : (uint8_t)(i * 7u + tag);

		if (buf[i] != want)
			return 1u + i;
	}
	return 0;
}

/* --- waiting ---------------------------------------------------------- */

/* The notify mode on x: the cell's, or the control path's own */
static uint8_t icb_mode(const struct icb_cell *c, const struct icb_xport *x)
{
	return x == &c->s->ctl ? c->s->ctl_notify : c->run->notify;
}

/*
 * Whether a wait that began at `start` has passed the cell's limit; the
 * timer is read every 64 calls only, so that a spinning wait stays tight
 */
static int icb_late(const struct icb_cell *c, uint32_t start, uint32_t *spins)
{
	return (++*spins & 63u) == 0 &&
	       (uint32_t)(c->s->now(c->s->timer_ctx) - start) > c->limit;
}

/* Send, retrying while the transport is full, then ring the other core */
static int icb_put(struct icb_cell *c, struct icb_xport *x, uint8_t kind, uint8_t status,
		   uint32_t seq, uint32_t stamp, const uint8_t *payload, uint32_t len)
{
	struct icb_msg m;
	uint32_t start = c->s->now(c->s->timer_ctx), spins = 0;
	int err;

	m.kind = kind;
	m.status = status;
	m.cell = c->tag;
	m.seq = seq;
	m.stamp = stamp;
	m.len = len;
	while ((err = x->send(x->ctx, &m, payload)) == -ICB_EAGAIN)
		if (icb_late(c, start, &spins))
			return ICB_OC_TIMEOUT;
	if (err)
		return ICB_OC_UNSUPPORTED;
	x->signal(x->ctx, icb_mode(c, x));
	return ICB_OC_OK;
}

/*
 * Wait for the next message of this cell of one of the kinds in `want`
 * (a bit per kind), payload into buf.  Messages of other cells are dropped.
 */
static int icb_get(struct icb_cell *c, struct icb_xport *x, uint32_t want, struct icb_msg *m,
		   uint8_t *buf, uint32_t cap)
{
	uint32_t start = c->s->now(c->s->timer_ctx), spins = 0;
	uint8_t mode = icb_mode(c, x);
	int err;

	for (;;) {
		err = x->recv(x->ctx, m, buf, cap);
		if (err == 0 && m->cell == c->tag && (want & (1u << m->kind)))
			return ICB_OC_OK;
		if (err == -ICB_EAGAIN) {
			/* a poll spins: the timer is read every 64 turns, not on each */
			if (mode == ICB_NOTIFY_POLL ? icb_late(c, start, &spins)
						    : (uint32_t)(c->s->now(c->s->timer_ctx) -
								 start) > c->limit)
				return ICB_OC_TIMEOUT;
			x->wait(x->ctx, mode);
		}
	}
}

#define BIT(k) (1u << (k))

/* A measured sample on the initiator: the histogram, and the raw list */
static void icb_keep(struct icb_cell *c, uint32_t ticks)
{
	icb_hist_record(c->h, ticks);
	if ((c->run->flags & ICB_OC_RAW) && c->s->raw_n < c->s->raw_cap)
		c->s->raw[c->s->raw_n++] = ticks;
}

/* A sample of this core: recorded here (initiator) or reported (agent) */
static int icb_sample(struct icb_cell *c, uint32_t i, uint32_t ticks)
{
	if (c->report)
		return icb_put(c, c->x, ICB_K_REPORT, ICB_OC_OK, i, ticks, NULL, 0);
	if (i >= c->run->warmup)
		icb_keep(c, ticks);
	return ICB_OC_OK;
}

/* The agent's samples, recorded on the initiator */
static int icb_take_report(struct icb_cell *c, uint32_t i)
{
	struct icb_msg m;
	int st = icb_get(c, c->x, BIT(ICB_K_REPORT), &m, c->s->rx, c->s->buf_cap);

	if (st)
		return st;
	if (m.status) {
		c->out.detail = m.stamp;
		return m.status;
	}
	if (i >= c->run->warmup) {
		icb_keep(c, m.stamp);
		if (c->run->pattern == ICB_OC_BULK) {
			c->out.window_ticks += m.stamp;
			c->out.bytes += c->run->size;
		}
	}
	return ICB_OC_OK;
}

static int icb_fail(struct icb_cell *c, uint32_t bad)
{
	c->out.detail = bad - 1u;
	return ICB_OC_CORRUPT;
}

/* --- patterns ---------------------------------------------------------- */

static int icb_oneway_send(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, t0, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		icb_stamp_seq(c->s->tx, r->size, i);
		t0 = c->s->now(c->s->timer_ctx);
		st = icb_put(c, c->x, ICB_K_DATA, 0, i, t0, c->s->tx, r->size);
		if (!st)
			st = icb_get(c, c->x, BIT(ICB_K_ACK), &m, c->s->rx, c->s->buf_cap);
		if (!st && m.status) {
			c->out.detail = m.seq;
			st = m.status;
		}
		if (st)
			return st;
		/* the receiver's stamp came back: the initiator records it */
		if (!c->report && i >= r->warmup)
			icb_keep(c, m.stamp - t0);
	}
	return ICB_OC_OK;
}

static int icb_oneway_recv(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, t1, bad, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		st = icb_get(c, c->x, BIT(ICB_K_DATA), &m, c->s->rx, c->s->buf_cap);
		t1 = c->s->now(c->s->timer_ctx);
		if (st)
			return st;
		bad = icb_check(c->s->rx, m.len, r->size, c->tag, i);
		if (bad) {
			icb_put(c, c->x, ICB_K_ACK, ICB_OC_CORRUPT, bad - 1u, t1, NULL, 0);
			return icb_fail(c, bad);
		}
		st = icb_put(c, c->x, ICB_K_ACK, 0, i, t1, NULL, 0);
		if (st)
			return st;
		if (!c->report && i >= r->warmup)
			icb_keep(c, t1 - m.stamp);
	}
	return ICB_OC_OK;
}

static int icb_ping_start(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, t0, t1, bad, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		icb_stamp_seq(c->s->tx, r->size, i);
		t0 = c->s->now(c->s->timer_ctx);
		st = icb_put(c, c->x, ICB_K_DATA, 0, i, t0, c->s->tx, r->size);
		if (!st)
			st = icb_get(c, c->x, BIT(ICB_K_ECHO), &m, c->s->rx, c->s->buf_cap);
		t1 = c->s->now(c->s->timer_ctx);
		if (st)
			return st;
		bad = icb_check(c->s->rx, m.len, r->size, c->tag, i);
		if (bad) {
			if (c->report)
				icb_put(c, c->x, ICB_K_REPORT, ICB_OC_CORRUPT, i, bad - 1u, NULL, 0);
			return icb_fail(c, bad);
		}
		st = icb_sample(c, i, t1 - t0);
		if (st)
			return st;
	}
	return ICB_OC_OK;
}

static int icb_ping_echo(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		st = icb_get(c, c->x, BIT(ICB_K_DATA), &m, c->s->rx, c->s->buf_cap);
		if (!st)
			st = icb_put(c, c->x, ICB_K_ECHO, 0, m.seq, m.stamp, c->s->rx, m.len);
		if (!st && !c->report)
			st = icb_take_report(c, i);
		if (st)
			return st;
	}
	return ICB_OC_OK;
}

/* A credit from the receiver: how many it has consumed, or why it stopped */
static int icb_credit(struct icb_cell *c, const struct icb_msg *m, uint32_t *credited)
{
	if (m->status) {
		c->out.detail = m->stamp;
		return m->status;
	}
	*credited = m->seq;
	return ICB_OC_OK;
}

static int icb_stream_send(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, credited = 0, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		/* take the credits that are there; wait only when the window is full */
		while (c->x->recv(c->x->ctx, &m, c->s->rx, c->s->buf_cap) == 0)
			if (m.cell == c->tag && m.kind == ICB_K_CREDIT &&
			    (st = icb_credit(c, &m, &credited)))
				return st;
		while (i - credited >= r->window) {
			st = icb_get(c, c->x, BIT(ICB_K_CREDIT), &m, c->s->rx, c->s->buf_cap);
			if (!st)
				st = icb_credit(c, &m, &credited);
			if (st)
				return st;
		}
		icb_stamp_seq(c->s->tx, r->size, i);
		st = icb_put(c, c->x, ICB_K_DATA, 0, i, 0, c->s->tx, r->size);
		if (st)
			return st;
	}
	/* the last credit says the receiver has all */
	while (credited < total) {
		st = icb_get(c, c->x, BIT(ICB_K_CREDIT), &m, c->s->rx, c->s->buf_cap);
		if (!st)
			st = icb_credit(c, &m, &credited);
		if (st)
			return st;
	}
	return ICB_OC_OK;
}

static int icb_stream_recv(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, now, last = 0, bad, total = r->warmup + r->count;
	uint32_t start = r->warmup ? r->warmup - 1u : 0u, every = r->window / 2u;
	struct icb_msg m;
	int st, owed = 0;

	if (every == 0)
		every = 1;
	for (i = 0; i < total; i++) {
		st = icb_get(c, c->x, BIT(ICB_K_DATA), &m, c->s->rx, c->s->buf_cap);
		now = c->s->now(c->s->timer_ctx);
		if (st)
			return st;
		if (i > start) {
			c->out.window_ticks += (uint32_t)(now - last);
			c->out.bytes += m.len;
		}
		last = now;
		bad = icb_check(c->s->rx, m.len, r->size, c->tag, i);
		if (bad) {
			icb_put(c, c->x, ICB_K_CREDIT, ICB_OC_CORRUPT, i, bad - 1u, NULL, 0);
			return icb_fail(c, bad);
		}
		/* a credit that finds the ring full is owed: a later one covers it */
		if ((i + 1u) % every == 0 || owed) {
			struct icb_msg cr;

			cr.kind = ICB_K_CREDIT;
			cr.status = 0;
			cr.cell = c->tag;
			cr.seq = i + 1u;
			cr.stamp = 0;
			cr.len = 0;
			owed = c->x->send(c->x->ctx, &cr, NULL) != 0;
			if (!owed)
				c->x->signal(c->x->ctx, r->notify);
		}
	}
	return icb_put(c, c->x, ICB_K_CREDIT, 0, total, 0, NULL, 0);
}

static int icb_bulk_send(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, off, n, blk = 0, t0, t1, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		t0 = c->s->now(c->s->timer_ctx);
		for (off = 0; off < r->size; off += n, blk++) {
			n = r->size - off < r->window ? r->size - off : r->window;
			icb_stamp_seq(c->s->tx, n, blk);
			st = icb_put(c, c->x, ICB_K_DATA, 0, blk, t0, c->s->tx, n);
			if (st)
				return st;
		}
		st = icb_get(c, c->x, BIT(ICB_K_ACK), &m, c->s->rx, c->s->buf_cap);
		t1 = c->s->now(c->s->timer_ctx);
		if (!st && m.status) {
			c->out.detail = m.stamp;
			st = m.status;
		}
		if (!st)
			st = icb_sample(c, i, t1 - t0);
		if (st)
			return st;
		if (!c->report && i >= r->warmup) {
			c->out.window_ticks += t1 - t0;
			c->out.bytes += r->size;
		}
	}
	return ICB_OC_OK;
}

static int icb_bulk_recv(struct icb_cell *c)
{
	const struct icb_oc_run *r = c->run;
	uint32_t i, off, n, bad, blk = 0, total = r->warmup + r->count;
	struct icb_msg m;
	int st;

	for (i = 0; i < total; i++) {
		for (off = 0; off < r->size; off += n, blk++) {
			n = r->size - off < r->window ? r->size - off : r->window;
			st = icb_get(c, c->x, BIT(ICB_K_DATA), &m, c->s->rx, c->s->buf_cap);
			if (st)
				return st;
			bad = icb_check(c->s->rx, m.len, n, c->tag, blk);
			if (bad) {
				icb_put(c, c->x, ICB_K_ACK, ICB_OC_CORRUPT, i, off + bad - 1u, NULL,
					0);
				return icb_fail(c, off + bad);
			}
		}
		st = icb_put(c, c->x, ICB_K_ACK, 0, i, 0, NULL, 0);
		if (!st && !c->report)
			st = icb_take_report(c, i);
		if (st)
			return st;
	}
	return ICB_OC_OK;
}

/* This core's half of the cell; `sends`: this core sends or starts */
static int icb_play(struct icb_cell *c, int sends)
{
	icb_fill(c->s->tx, c->s->buf_cap, c->tag);
	switch (c->run->pattern) {
	case ICB_OC_ONEWAY:
		return sends ? icb_oneway_send(c) : icb_oneway_recv(c);
	case ICB_OC_PINGPONG:
		return sends ? icb_ping_start(c) : icb_ping_echo(c);
	case ICB_OC_STREAM:
		return sends ? icb_stream_send(c) : icb_stream_recv(c);
	case ICB_OC_BULK:
		return sends ? icb_bulk_send(c) : icb_bulk_recv(c);
	}
	return ICB_OC_UNSUPPORTED;
}

static void icb_cell_init(struct icb_cell *c, struct icb_oc_side *s, const struct icb_oc_run *run,
			  uint16_t tag, int report, struct icb_hist *h)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->run = run;
	c->x = &s->data[run->region];
	c->tag = tag;
	c->report = report;
	c->h = h;
	c->limit = (uint64_t)run->timeout_ms * (s->timer_hz / 1000u);
	if (c->limit == 0 || c->limit > 0x7fffffffu)
		c->limit = 0x7fffffffu;
}

/* --- the two cores ------------------------------------------------------ */

void icb_oc_initiate(struct icb_oc_side *s, const struct icb_oc_chip *chip,
		     const struct icb_oc_run *run, struct icb_hist *h, struct icb_oc_outcome *out)
{
	uint8_t rec[ICB_OC_RUN_LEN], done[16];
	struct icb_cell c;
	struct icb_msg m;
	int st, agent;

	icb_hist_reset(h);
	memset(out, 0, sizeof(*out));
	s->raw_n = 0;
	out->status = (uint8_t)icb_oc_check(chip, s, run, &out->detail);
	if (out->status)
		return;
	s->tag = (uint16_t)(s->tag + 1u);
	icb_cell_init(&c, s, run, s->tag, 0, h);
	icb_oc_run_encode(run, rec);
	rec[5] = 0;	/* the agent reports samples either way */
	c.x = &s->ctl;
	st = icb_put(&c, &s->ctl, ICB_K_CELL, 0, 0, 0, rec, sizeof(rec));
	c.x = &s->data[run->region];
	if (!st)
		st = icb_play(&c, run->direction == ICB_OC_I2A);
	/* the agent's word, also after a failure here: it times out as well */
	agent = icb_get(&c, &s->ctl, BIT(ICB_K_DONE), &m, done, sizeof(done));
	*out = c.out;
	out->status = (uint8_t)st;
	if (agent) {
		if (!st)
			out->status = (uint8_t)agent;
		return;
	}
	if (!st && m.status) {
		out->status = m.status;
		out->detail = m.stamp;
	}
	/* a stream the agent received: its window */
	if (m.len == sizeof(done) && run->pattern == ICB_OC_STREAM &&
	    run->direction == ICB_OC_I2A) {
		out->window_ticks = icb_get_le64(done);
		out->bytes = icb_get_le64(done + 8);
	}
}

int icb_oc_agent_poll(struct icb_oc_side *s)
{
	struct icb_oc_run run;
	struct icb_cell c;
	struct icb_msg m;
	uint8_t done[16];
	uint32_t bad;
	int st;

	if (s->ctl.recv(s->ctl.ctx, &m, s->rx, s->buf_cap) != 0 || m.kind != ICB_K_CELL)
		return 0;
	if (icb_oc_run_decode(s->rx, m.len, &run, &bad) || icb_oc_fits(s, &run, s->buf_cap, &bad)) {
		run.notify = ICB_NOTIFY_POLL;
		run.region = 0;
		run.timeout_ms = 1000;
		icb_cell_init(&c, s, &run, m.cell, 1, NULL);
		icb_put(&c, &s->ctl, ICB_K_DONE, ICB_OC_UNSUPPORTED, 0, bad, NULL, 0);
		return 1;
	}
	icb_cell_init(&c, s, &run, m.cell, 1, NULL);
	st = icb_play(&c, run.direction == ICB_OC_A2I);
	icb_put_le64(done, c.out.window_ticks);
	icb_put_le64(done + 8, c.out.bytes);
	icb_put(&c, &s->ctl, ICB_K_DONE, (uint8_t)st, 0, c.out.detail, done, sizeof(done));
	return 1;
}
