/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The icbench responder.  See icb_responder.h and docs/protocol.md.
 */
#include <string.h>

#include "icb_responder.h"

void icb_responder_config_default(struct icb_responder_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->proto = ICB_PROTO_ICB;
	cfg->clock_id = ICB_CLOCK_NONE;
	cfg->rx_slots = 4;
	cfg->credit_batch = 1;
}

int icb_responder_init(struct icb_responder *r, const struct icb_responder_config *cfg,
		       const struct icb_platform *plat, uint8_t *rx_buf, size_t rx_cap,
		       uint8_t *tx_buf, size_t tx_cap)
{
	if (!r || !cfg || !plat || !plat->send)
		return -ICB_EINVAL;
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	r->plat = *plat;
	r->tx = tx_buf;
	r->tx_cap = tx_cap;
	icb_dimtass_init(&r->dimtass);
	switch (cfg->proto) {
	case ICB_PROTO_ICB:
		/* an ERROR reply (24 bytes) must always fit */
		if (!tx_buf || tx_cap < ICB_OVERHEAD + 8)
			return -ICB_EINVAL;
		if (rx_cap < ICB_MIN_MAX_FRAME)
			return -ICB_EINVAL;
		return icb_parser_init(&r->parser, rx_buf, rx_cap);
	case ICB_PROTO_DIMTASS:
	case ICB_PROTO_RAW:
		return 0;
	}
	return -ICB_EINVAL;
}

uint32_t icb_responder_max_frame(const struct icb_responder *r)
{
	size_t m = r->parser.cap < r->tx_cap ? r->parser.cap : r->tx_cap;

	return (uint32_t)(m < ICB_MAX_FRAME ? m : ICB_MAX_FRAME);
}

void icb_stats_encode(const struct icb_stats *s, uint8_t out[ICB_STATS_LEN])
{
	const uint64_t v[9] = {
		s->rx_frames, s->tx_frames, s->rx_payload_bytes, s->tx_payload_bytes,
		s->crc_errors, s->header_errors, s->garbage_bytes, s->unsupported,
		s->send_errors,
	};
	int i;

	for (i = 0; i < 9; i++)
		icb_put_le64(out + 8 * i, v[i]);
}

static uint64_t icb_now(const struct icb_responder *r)
{
	return r->plat.now ? r->plat.now(r->plat.ctx) : 0;
}

/* Stamp t_tx, encode into tx and send; the frame gets ICB_F_REPLY */
static int icb_send_frame(struct icb_responder *r, struct icb_frame *f)
{
	size_t len;

	f->flags |= ICB_F_REPLY;
	if (f->has_ts)
		f->ts.t_tx = icb_now(r);
	if (icb_frame_encode(f, r->tx, r->tx_cap, &len)) {
		r->stats.send_errors++;
		return -ICB_ENOSPC;
	}
	if (r->plat.send(r->plat.ctx, r->tx, len) < 0) {
		r->stats.send_errors++;
		return -ICB_ESEND;
	}
	r->stats.tx_frames++;
	r->stats.tx_payload_bytes += f->payload_len;
	return 0;
}

static int icb_send_error(struct icb_responder *r, uint8_t chan, uint16_t code, uint32_t seq)
{
	struct icb_frame f;
	uint8_t p[8] = { 0 };

	icb_put_le16(p, code);
	icb_put_le32(p + 4, seq);
	memset(&f, 0, sizeof(f));
	f.type = ICB_T_ERROR;
	f.chan = chan;
	f.seq = seq;
	f.payload = p;
	f.payload_len = sizeof(p);
	return icb_send_frame(r, &f);
}

/* Reply to req with type and payload, carrying its timestamps (t_rx filled in) */
static int icb_reply(struct icb_responder *r, const struct icb_frame *req, uint64_t t_rx,
		     uint8_t type, const uint8_t *payload, size_t len)
{
	struct icb_frame f;
	int err;

	memset(&f, 0, sizeof(f));
	f.type = type;
	f.chan = req->chan;
	f.seq = req->seq;
	f.has_ts = req->has_ts;
	f.ts = req->ts;
	f.ts.t_rx = t_rx;
	f.payload = payload;
	f.payload_len = len;
	err = icb_send_frame(r, &f);
	if (err == -ICB_ENOSPC)
		icb_send_error(r, req->chan, ICB_ENOSPC, req->seq);
	return err;
}

static int icb_on_hello(struct icb_responder *r, const struct icb_frame *f, uint64_t t_rx)
{
	uint8_t caps[ICB_CAPS_LEN] = { 0 };
	uint32_t modes = ICB_MODE_ECHO | ICB_MODE_ACK | ICB_MODE_SINK | ICB_MODE_STATS |
			 ICB_MODE_FRAGMENTS;

	if (f->payload_len != ICB_CAPS_LEN) {
		r->stats.unsupported++;
		return icb_send_error(r, f->chan, ICB_ELENGTH, f->seq);
	}
	r->peer_max_frame = icb_get_le32(f->payload);
	r->cfg.ack_every_bytes = icb_get_le32(f->payload + 20);
	r->ack_bytes = 0;
	r->credit_frames = 0;
	if (r->plat.now)
		modes |= ICB_MODE_TIME | ICB_MODE_TIMESTAMPS;
	icb_put_le32(caps, icb_responder_max_frame(r));
	icb_put_le32(caps + 4, modes);
	icb_put_le32(caps + 8, r->plat.now ? r->cfg.clock_hz : 0);
	caps[12] = r->plat.now ? r->cfg.clock_id : ICB_CLOCK_NONE;
	icb_put_le32(caps + 16, r->cfg.rx_slots);
	icb_put_le32(caps + 20, r->cfg.ack_every_bytes);
	return icb_reply(r, f, t_rx, ICB_T_CAPS, caps, sizeof(caps));
}

static int icb_on_data(struct icb_responder *r, const struct icb_frame *f, uint64_t t_rx)
{
	uint8_t p[8];
	int err = 0, e;

	r->ack_bytes += (uint32_t)f->payload_len;
	r->credit_frames++;
	if ((f->flags & ICB_F_ACK_REQ) ||
	    (r->cfg.ack_every_bytes && r->ack_bytes >= r->cfg.ack_every_bytes)) {
		icb_put_le32(p, f->seq);
		icb_put_le32(p + 4, r->ack_bytes);
		r->ack_bytes = 0;
		err = icb_reply(r, f, t_rx, ICB_T_ACK, p, 8);
	}
	if (r->cfg.credit_batch && r->credit_frames >= r->cfg.credit_batch) {
		icb_put_le32(p, r->credit_frames);
		r->credit_frames = 0;
		e = icb_reply(r, f, t_rx, ICB_T_CREDIT, p, 4);
		if (e)
			err = e;
	}
	return err;
}

static int icb_on_frame(struct icb_responder *r, const struct icb_frame *f)
{
	uint64_t t_rx = icb_now(r);
	uint8_t p[ICB_STATS_LEN];
	struct icb_frame echo;
	int err;

	r->stats.rx_frames++;
	r->stats.rx_payload_bytes += f->payload_len;
	if (f->flags & ICB_F_REPLY) {
		/* a responder's frame: ours heard back, or another responder; never answer */
		r->stats.unsupported++;
		return 0;
	}
	switch (f->type) {
	case ICB_T_HELLO:
		return icb_on_hello(r, f, t_rx);
	case ICB_T_ECHO:
		echo = *f;
		echo.flags &= ICB_F_TS | ICB_F_FRAG;
		echo.ts.t_rx = t_rx;
		err = icb_send_frame(r, &echo);
		if (err == -ICB_ENOSPC)
			icb_send_error(r, f->chan, ICB_ENOSPC, f->seq);
		return err;
	case ICB_T_DATA:
		return icb_on_data(r, f, t_rx);
	case ICB_T_STATS:
		icb_stats_encode(&r->stats, p);
		return icb_reply(r, f, t_rx, ICB_T_STATS, p, ICB_STATS_LEN);
	case ICB_T_TIME:
		icb_put_le64(p, icb_now(r));
		return icb_reply(r, f, t_rx, ICB_T_TIME, p, 8);
	default:
		if (r->extra && r->extra(r->extra_ctx, r, f))
			return 0;
		r->stats.unsupported++;
		return icb_send_error(r, f->chan, ICB_EUNSUPPORTED, f->seq);
	}
}

void icb_responder_set_extra(struct icb_responder *r,
			     int (*extra)(void *ctx, struct icb_responder *r,
					  const struct icb_frame *f),
			     void *ctx)
{
	r->extra = extra;
	r->extra_ctx = ctx;
}

int icb_responder_reply(struct icb_responder *r, const struct icb_frame *req, uint8_t type,
			const uint8_t *msg, size_t len)
{
	size_t frame = r->tx_cap, chunk, off = 0;
	struct icb_frame f;
	int err;

	if (r->peer_max_frame && r->peer_max_frame < frame)
		frame = r->peer_max_frame;
	if (ICB_OVERHEAD + len <= frame)
		return icb_reply(r, req, icb_now(r), type, msg, len);
	if (frame <= ICB_OVERHEAD + 8 || len > 0xffffffffu)
		return icb_send_error(r, req->chan, ICB_ENOSPC, req->seq);
	chunk = frame - ICB_OVERHEAD - 8;
	memset(&f, 0, sizeof(f));
	f.type = type;
	f.chan = req->chan;
	f.seq = req->seq;
	f.has_frag = 1;
	f.msg_len = (uint32_t)len;
	do {
		f.offset = (uint32_t)off;
		f.payload = msg + off;
		f.payload_len = len - off < chunk ? len - off : chunk;
		err = icb_send_frame(r, &f);
		if (err)
			return err;
		off += f.payload_len;
	} while (off < len);
	return 0;
}

static int icb_on_error(struct icb_responder *r, const struct icb_event *ev)
{
	switch (-ev->err) {
	case ICB_EGARBAGE:
		r->stats.garbage_bytes += ev->garbage;
		return 0;
	case ICB_ECRC:
		r->stats.crc_errors++;
		break;
	default:
		r->stats.header_errors++;
		break;
	}
	return icb_send_error(r, 0, (uint16_t)-ev->err, 0);
}

static int icb_input_icb(struct icb_responder *r, const uint8_t *data, size_t len)
{
	struct icb_event ev;
	int err = 0, e;

	for (;;) {
		size_t used = icb_parser_step(&r->parser, data, len, &ev);

		if (used) {
			data += used;
			len -= used;
		}
		if (ev.kind == ICB_EV_FRAME)
			e = icb_on_frame(r, &ev.frame);
		else if (ev.kind == ICB_EV_ERROR)
			e = icb_on_error(r, &ev);
		else if (len == 0)
			return err;
		else
			continue;
		if (e)
			err = e;
	}
}

static int icb_input_dimtass(struct icb_responder *r, const uint8_t *data, size_t len)
{
	struct icb_dimtass_event ev;
	uint8_t reply[ICB_DIMTASS_REPLY_LEN];
	int err = 0;

	for (;;) {
		size_t used = icb_dimtass_step(&r->dimtass, data, len, &ev);

		if (used) {
			data += used;
			len -= used;
			r->stats.rx_payload_bytes += used;
		}
		if (ev.kind == ICB_DIMTASS_GARBAGE) {
			r->stats.garbage_bytes += ev.garbage;
		} else if (ev.kind == ICB_DIMTASS_REPLY) {
			r->stats.rx_frames++;
			icb_dimtass_reply(ev.length, reply);
			if (r->plat.send(r->plat.ctx, reply, sizeof(reply)) < 0) {
				r->stats.send_errors++;
				err = -ICB_ESEND;
			} else {
				r->stats.tx_frames++;
				r->stats.tx_payload_bytes += sizeof(reply);
			}
		} else if (len == 0) {
			return err;
		}
	}
}

static int icb_input_raw(struct icb_responder *r, const uint8_t *data, size_t len)
{
	if (len == 0)
		return 0;
	r->stats.rx_frames++;
	r->stats.rx_payload_bytes += len;
	if (r->plat.send(r->plat.ctx, data, len) < 0) {
		r->stats.send_errors++;
		return -ICB_ESEND;
	}
	r->stats.tx_frames++;
	r->stats.tx_payload_bytes += len;
	return 0;
}

int icb_responder_input(struct icb_responder *r, const uint8_t *data, size_t len)
{
	switch (r->cfg.proto) {
	case ICB_PROTO_ICB:
		return icb_input_icb(r, data, len);
	case ICB_PROTO_DIMTASS:
		return icb_input_dimtass(r, data, len);
	case ICB_PROTO_RAW:
		return icb_input_raw(r, data, len);
	}
	return -ICB_EINVAL;
}
