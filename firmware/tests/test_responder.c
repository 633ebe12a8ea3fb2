/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <string.h>

#include "icb_responder.h"
#include "icbt.h"

/* A platform that records what the responder sends and ticks a fake clock */
struct mock {
	uint8_t out[80000];
	size_t len;
	unsigned sends;
	uint64_t clock;
	int fail;
};

static int mock_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct mock *m = ctx;

	if (m->fail || m->len + len > sizeof(m->out))
		return -1;
	memcpy(m->out + m->len, buf, len);
	m->len += len;
	m->sends++;
	return 0;
}

static uint64_t mock_now(void *ctx)
{
	struct mock *m = ctx;

	return m->clock += 10;
}

static struct mock mock;
static uint8_t rx_buf[ICB_RPMSG_MTU], tx_buf[ICB_RPMSG_MTU];

static void setup(struct icb_responder *r, enum icb_proto proto)
{
	struct icb_responder_config cfg;
	struct icb_platform plat = { &mock, mock_send, mock_now };

	memset(&mock, 0, sizeof(mock));
	icb_responder_config_default(&cfg);
	cfg.proto = proto;
	cfg.clock_hz = 1000000;
	cfg.clock_id = ICB_CLOCK_COUNTER;
	cfg.rx_slots = 8;
	cfg.credit_batch = 2;
	icb_responder_init(r, &cfg, &plat, rx_buf, sizeof(rx_buf), tx_buf, sizeof(tx_buf));
}

/* Feed a frame to r in pieces of `piece` bytes */
static int feed(struct icb_responder *r, const struct icb_frame *f, size_t piece)
{
	static uint8_t wire[ICB_MAX_FRAME];
	size_t len = 0, at;
	int err = 0;

	icb_frame_encode(f, wire, sizeof(wire), &len);
	for (at = 0; at < len; at += piece) {
		size_t n = len - at < piece ? len - at : piece;
		int e = icb_responder_input(r, wire + at, n);

		if (e)
			err = e;
	}
	return err;
}

static void frame(struct icb_frame *f, uint8_t type, uint32_t seq, const void *p, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->seq = seq;
	f->payload = p;
	f->payload_len = n;
}

/* Decode the i-th frame the responder sent */
static int sent(size_t i, struct icb_frame *f)
{
	size_t at = 0, used;

	for (;;) {
		if (icb_frame_decode(mock.out + at, mock.len - at, ICB_MAX_BODY, f, &used))
			return 0;
		if (i-- == 0)
			return 1;
		at += used;
	}
}

static void test_hello(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_frame f, g;
	uint8_t caps[ICB_CAPS_LEN] = { 0 };

	setup(&r, ICB_PROTO_ICB);
	icb_put_le32(caps, 65551);
	icb_put_le32(caps + 20, 1000);
	frame(&f, ICB_T_HELLO, 5, caps, sizeof(caps));
	CHECK(c, feed(&r, &f, 3) == 0);
	CHECK(c, sent(0, &g) && g.type == ICB_T_CAPS && g.seq == 5 && (g.flags & ICB_F_REPLY));
	CHECK(c, g.payload_len == ICB_CAPS_LEN);
	CHECK(c, icb_get_le32(g.payload) == ICB_RPMSG_MTU);
	CHECK(c, icb_get_le32(g.payload + 4) == 0x7f);
	CHECK(c, icb_get_le32(g.payload + 8) == 1000000 && g.payload[12] == ICB_CLOCK_COUNTER);
	CHECK(c, icb_get_le32(g.payload + 16) == 8 && icb_get_le32(g.payload + 20) == 1000);
	frame(&f, ICB_T_HELLO, 6, caps, 3);
	feed(&r, &f, 100);
	CHECK(c, sent(1, &g) && g.type == ICB_T_ERROR && icb_get_le16(g.payload) == ICB_ELENGTH);
}

static void test_echo_ts(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_frame f, g;

	setup(&r, ICB_PROTO_ICB);
	frame(&f, ICB_T_ECHO, 77, "ping", 4);
	f.has_ts = 1;
	f.ts.t_origin = 0xabcdef;
	f.chan = 3;
	CHECK(c, feed(&r, &f, 1) == 0);
	CHECK(c, mock.sends == 1 && sent(0, &g));
	CHECK(c, g.type == ICB_T_ECHO && g.seq == 77 && g.chan == 3);
	CHECK(c, g.flags == (ICB_F_REPLY | ICB_F_TS));
	CHECK(c, g.payload_len == 4 && memcmp(g.payload, "ping", 4) == 0);
	CHECK(c, g.ts.t_origin == 0xabcdef && g.ts.t_rx > 0 && g.ts.t_tx > g.ts.t_rx);
}

static void test_echo_64k(struct icbt_counts *c)
{
	static uint8_t msg[65536], back[65536];
	static uint8_t wire[80000];
	struct icb_responder r;
	struct icb_frame f, g;
	size_t at = 0, n = 0, len, used, chunk = ICB_RPMSG_MTU - ICB_OVERHEAD - ICB_FRAG_LEN;
	unsigned frames = 0;
	int ok = 1;

	icbt_pattern(msg, sizeof(msg));
	setup(&r, ICB_PROTO_ICB);
	for (at = 0; at < sizeof(msg); at += chunk) {
		frame(&f, ICB_T_ECHO, 1234, msg + at,
		      sizeof(msg) - at < chunk ? sizeof(msg) - at : chunk);
		f.has_frag = 1;
		f.msg_len = sizeof(msg);
		f.offset = (uint32_t)at;
		icb_frame_encode(&f, wire + n, sizeof(wire) - n, &len);
		ok &= len <= ICB_RPMSG_MTU;
		n += len;
	}
	CHECK(c, ok);
	/* the byte stream arrives in odd pieces */
	for (at = 0; at < n; at += 333)
		icb_responder_input(&r, wire + at, n - at < 333 ? n - at : 333);
	at = 0;
	memset(back, 0, sizeof(back));
	while (at < mock.len && icb_frame_decode(mock.out + at, mock.len - at, ICB_MAX_BODY,
						 &g, &used) == 0) {
		ok &= g.has_frag && g.seq == 1234 && g.msg_len == sizeof(msg);
		ok &= g.offset + g.payload_len <= sizeof(back);
		if (ok)
			memcpy(back + g.offset, g.payload, g.payload_len);
		at += used;
		frames++;
	}
	CHECK(c, ok && at == mock.len);
	CHECK(c, frames == (sizeof(msg) + chunk - 1) / chunk);
	CHECK(c, memcmp(msg, back, sizeof(msg)) == 0);
	CHECK(c, r.stats.rx_frames == frames && r.stats.tx_payload_bytes == sizeof(msg));
}

static void test_data(struct icbt_counts *c)
{
	static const uint8_t block[448];
	struct icb_responder r;
	struct icb_frame f, g;

	setup(&r, ICB_PROTO_ICB);
	r.cfg.ack_every_bytes = 1000;
	frame(&f, ICB_T_DATA, 1, block, sizeof(block));
	feed(&r, &f, 50);
	CHECK(c, mock.sends == 0);
	f.seq = 2;
	feed(&r, &f, 50);
	CHECK(c, mock.sends == 1 && sent(0, &g) && g.type == ICB_T_CREDIT);
	CHECK(c, icb_get_le32(g.payload) == 2);
	f.seq = 3;
	feed(&r, &f, 50);
	CHECK(c, mock.sends == 2 && sent(1, &g) && g.type == ICB_T_ACK && g.seq == 3);
	CHECK(c, icb_get_le32(g.payload) == 3 && icb_get_le32(g.payload + 4) == 3 * 448);
	frame(&f, ICB_T_DATA, 4, block, 10);
	f.flags = ICB_F_ACK_REQ;
	feed(&r, &f, 50);
	CHECK(c, sent(2, &g) && g.type == ICB_T_ACK && icb_get_le32(g.payload + 4) == 10);
	CHECK(c, sent(3, &g) && g.type == ICB_T_CREDIT && icb_get_le32(g.payload) == 2);
}

static void test_stats_time_errors(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_frame f, g;
	uint8_t big[ICB_RPMSG_MTU] = { 0 };
	const uint8_t junk[] = "junk";

	setup(&r, ICB_PROTO_ICB);
	icb_responder_input(&r, junk, 4);
	frame(&f, ICB_T_ECHO, 1, "x", 1);
	f.flags = ICB_F_REPLY;		/* our own frame heard back: no answer */
	feed(&r, &f, 7);
	CHECK(c, mock.sends == 0);
	frame(&f, 99, 2, "", 0);
	feed(&r, &f, 7);
	CHECK(c, sent(0, &g) && g.type == ICB_T_ERROR && g.seq == 2);
	CHECK(c, icb_get_le16(g.payload) == ICB_EUNSUPPORTED && icb_get_le32(g.payload + 4) == 2);
	frame(&f, ICB_T_TIME, 3, "", 0);
	feed(&r, &f, 7);
	CHECK(c, sent(1, &g) && g.type == ICB_T_TIME && g.payload_len == 8);
	CHECK(c, icb_get_le64(g.payload) > 0);
	/* an echo as large as the receive buffer */
	frame(&f, ICB_T_ECHO, 4, big, ICB_RPMSG_MTU - ICB_OVERHEAD);
	CHECK(c, feed(&r, &f, 100) == 0);
	CHECK(c, sent(2, &g) && g.type == ICB_T_ECHO);
	frame(&f, ICB_T_STATS, 5, "", 0);
	feed(&r, &f, 7);
	CHECK(c, sent(3, &g) && g.type == ICB_T_STATS && g.payload_len == ICB_STATS_LEN);
	CHECK(c, icb_get_le64(g.payload) == 5);			/* rx_frames */
	CHECK(c, icb_get_le64(g.payload + 8) == 3);		/* tx_frames */
	CHECK(c, icb_get_le64(g.payload + 48) == 4);		/* garbage_bytes */
	CHECK(c, icb_get_le64(g.payload + 56) == 2);		/* unsupported */
}

static void test_crc_error_reply(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_frame f, g;
	uint8_t wire[64];
	size_t len;

	setup(&r, ICB_PROTO_ICB);
	frame(&f, ICB_T_ECHO, 9, "abc", 3);
	icb_frame_encode(&f, wire, sizeof(wire), &len);
	wire[len - 1] ^= 1;
	icb_responder_input(&r, wire, len);
	CHECK(c, sent(0, &g) && g.type == ICB_T_ERROR && icb_get_le16(g.payload) == ICB_ECRC);
	CHECK(c, r.stats.crc_errors == 1 && r.stats.garbage_bytes == len);
	mock.fail = 1;
	CHECK(c, feed(&r, &f, 100) == -ICB_ESEND && r.stats.send_errors == 1);
}

static void test_no_space(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_responder_config cfg;
	struct icb_platform plat = { &mock, mock_send, NULL };
	struct icb_frame f, g;
	uint8_t small_tx[64];
	static const uint8_t big[100];

	memset(&mock, 0, sizeof(mock));
	icb_responder_config_default(&cfg);
	CHECK(c, icb_responder_init(&r, &cfg, &plat, rx_buf, sizeof(rx_buf), small_tx,
				    sizeof(small_tx)) == 0);
	CHECK(c, icb_responder_max_frame(&r) == sizeof(small_tx));
	frame(&f, ICB_T_ECHO, 12, big, sizeof(big));
	CHECK(c, feed(&r, &f, 100) == -ICB_ENOSPC);
	CHECK(c, sent(0, &g) && g.type == ICB_T_ERROR && icb_get_le16(g.payload) == ICB_ENOSPC);
	CHECK(c, g.seq == 12 && r.stats.send_errors == 1);
}

static void test_raw_and_dimtass(struct icbt_counts *c)
{
	struct icb_responder r;
	uint8_t buf[600];

	setup(&r, ICB_PROTO_RAW);
	CHECK(c, icb_responder_input(&r, (const uint8_t *)"abc", 3) == 0);
	CHECK(c, icb_responder_input(&r, (const uint8_t *)"de", 2) == 0);
	CHECK(c, mock.len == 5 && memcmp(mock.out, "abcde", 5) == 0);

	setup(&r, ICB_PROTO_DIMTASS);
	icbt_pattern(buf, sizeof(buf));
	buf[0] = 0xCD;
	buf[1] = 0xAB;
	buf[2] = 0x00;
	buf[3] = 0x02;		/* 512 */
	CHECK(c, icb_responder_input(&r, buf, 100) == 0 && mock.len == 0);
	CHECK(c, icb_responder_input(&r, buf + 100, 411) == 0 && mock.len == 0);
	CHECK(c, icb_responder_input(&r, buf + 511, 1) == 0);
	CHECK(c, mock.len == 2 && mock.out[0] == 0x00 && mock.out[1] == 0x02);
}

void test_responder(struct icbt_counts *c)
{
	struct icb_responder r;
	struct icb_responder_config cfg;
	struct icb_platform plat = { NULL, NULL, NULL };

	icb_responder_config_default(&cfg);
	CHECK(c, icb_responder_init(&r, &cfg, &plat, rx_buf, sizeof(rx_buf), tx_buf,
				    sizeof(tx_buf)) == -ICB_EINVAL);
	test_hello(c);
	test_echo_ts(c);
	test_echo_64k(c);
	test_data(c);
	test_stats_time_errors(c);
	test_crc_error_reply(c);
	test_no_space(c);
	test_raw_and_dimtass(c);
}
