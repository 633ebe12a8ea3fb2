/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Responder sessions (icb_session.h): replies go to the pair that spoke,
 * each pair keeps its own parser, the least recently used is recycled, and
 * a protocol change starts a session afresh. */
#include <string.h>

#include "icb_frame.h"
#include "icb_session.h"
#include "icbt.h"

/* What the table sent, message by message */
struct sent {
	uint32_t local[16], peer[16];
	uint8_t msg[16][ICB_SESSION_MTU];
	size_t len[16];
	unsigned n;
};

static int rec_send(void *ctx, uint32_t local, uint32_t peer, const uint8_t *buf, size_t len)
{
	struct sent *s = ctx;

	if (s->n == 16)
		return -1;
	s->local[s->n] = local;
	s->peer[s->n] = peer;
	memcpy(s->msg[s->n], buf, len);
	s->len[s->n] = len;
	s->n++;
	return 0;
}

static struct icb_session sess[3];

static void setup(struct icb_sessions *t, struct sent *out)
{
	struct icb_sessions_ops ops = { out, rec_send, NULL, 0u, ICB_CLOCK_NONE };

	memset(out, 0, sizeof(*out));
	icb_sessions_init(t, sess, 3, &ops);
}

/* An ECHO frame of seq carrying p, encoded */
static size_t echo(uint8_t *wire, size_t cap, uint32_t seq, const char *p)
{
	struct icb_frame f;
	size_t len = 0;

	memset(&f, 0, sizeof(f));
	f.type = ICB_T_ECHO;
	f.seq = seq;
	f.payload = (const uint8_t *)p;
	f.payload_len = strlen(p);
	icb_frame_encode(&f, wire, cap, &len);
	return len;
}

static void routing_and_lru(struct icbt_counts *c)
{
	struct icb_sessions t;
	struct sent out;

	setup(&t, &out);
	/* raw: an echo of the bytes, to the pair that sent them */
	CHECK(c, icb_sessions_input(&t, 0x400, 1025, ICB_PROTO_RAW, (const uint8_t *)"abc", 3) == 0);
	CHECK(c, out.n == 1 && out.local[0] == 0x400 && out.peer[0] == 1025);
	CHECK(c, out.len[0] == 3 && memcmp(out.msg[0], "abc", 3) == 0);
	CHECK(c, icb_sessions_input(&t, 0x401, 1026, ICB_PROTO_RAW, (const uint8_t *)"d", 1) == 0);
	CHECK(c, out.n == 2 && out.local[1] == 0x401 && out.peer[1] == 1026);
	/* the same pair again is the same session: nothing recycled */
	CHECK(c, icb_sessions_get(&t, 0x400, 1025, ICB_PROTO_RAW) == &sess[0]);
	CHECK(c, icb_sessions_get(&t, 0x400, 1027, ICB_PROTO_RAW) == &sess[2]);
	CHECK(c, t.evicted == 0);
	/* a fourth pair recycles the least recently used: (0x401, 1026) */
	CHECK(c, icb_sessions_get(&t, 0x402, 9, ICB_PROTO_RAW) == &sess[1]);
	CHECK(c, t.evicted == 1 && sess[1].local == 0x402 && sess[1].peer == 9);
	/* an empty table has no session to give */
	icb_sessions_init(&t, sess, 0, &t.ops);
	CHECK(c, icb_sessions_get(&t, 0x400, 1, ICB_PROTO_RAW) == NULL);
	CHECK(c, icb_sessions_input(&t, 0x400, 1, ICB_PROTO_RAW, (const uint8_t *)"x", 1) == -1);
}

static void parsers_are_per_pair(struct icbt_counts *c)
{
	struct icb_sessions t;
	struct sent out;
	uint8_t a[64], b[64];
	size_t na = echo(a, sizeof(a), 7, "first"), nb = echo(b, sizeof(b), 8, "other");
	struct icb_frame f;
	size_t used;

	setup(&t, &out);
	/* half of A's frame, all of B's on another pair, the rest of A's */
	CHECK(c, icb_sessions_input(&t, 0x400, 1, ICB_PROTO_ICB, a, na / 2) == 0);
	CHECK(c, icb_sessions_input(&t, 0x400, 2, ICB_PROTO_ICB, b, nb) == 0);
	CHECK(c, icb_sessions_input(&t, 0x400, 1, ICB_PROTO_ICB, a + na / 2, na - na / 2) == 0);
	CHECK(c, out.n == 2);
	CHECK(c, out.peer[0] == 2 && icb_frame_decode(out.msg[0], out.len[0], ICB_SESSION_MTU,
						      &f, &used) == 0 &&
		 f.seq == 8 && f.payload_len == 5 && memcmp(f.payload, "other", 5) == 0);
	CHECK(c, out.peer[1] == 1 && icb_frame_decode(out.msg[1], out.len[1], ICB_SESSION_MTU,
						      &f, &used) == 0 &&
		 f.seq == 7 && f.payload_len == 5 && memcmp(f.payload, "first", 5) == 0);
	/* the pair's protocol changes: the session starts afresh in raw */
	CHECK(c, icb_sessions_input(&t, 0x400, 1, ICB_PROTO_ICB, a, na / 2) == 0);
	CHECK(c, icb_sessions_input(&t, 0x400, 1, ICB_PROTO_RAW, (const uint8_t *)"zz", 2) == 0);
	CHECK(c, out.n == 3 && out.len[2] == 2 && memcmp(out.msg[2], "zz", 2) == 0);
	CHECK(c, sess[0].proto == ICB_PROTO_RAW && t.evicted == 0);
}

void test_session(struct icbt_counts *c)
{
	routing_and_lru(c);
	parsers_are_per_pair(c);
}
