/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <string.h>

#include "icb_parser.h"
#include "icbt.h"

struct outcome {
	unsigned frames;
	unsigned errors;
	int last_err;
	size_t garbage;
	uint32_t seqs[8];
};

/* Feed wire[0..n) in pieces of `piece` bytes (0: all at once) */
static void run(uint8_t *buf, size_t cap, const uint8_t *wire, size_t n, size_t piece,
		struct outcome *o)
{
	struct icb_parser p;
	struct icb_event ev;
	size_t at = 0;

	memset(o, 0, sizeof(*o));
	icb_parser_init(&p, buf, cap);
	while (at < n) {
		size_t len = piece && n - at > piece ? piece : n - at;
		const uint8_t *in = wire + at;

		at += len;
		for (;;) {
			size_t used = icb_parser_step(&p, in, len, &ev);

			in += used;
			len -= used;
			if (ev.kind == ICB_EV_FRAME) {
				if (o->frames < 8)
					o->seqs[o->frames] = ev.frame.seq;
				o->frames++;
			} else if (ev.kind == ICB_EV_ERROR && ev.err == -ICB_EGARBAGE) {
				o->garbage += ev.garbage;
			} else if (ev.kind == ICB_EV_ERROR) {
				o->errors++;
				o->last_err = ev.err;
			} else if (len == 0) {
				break;
			}
		}
	}
}

static size_t put_frame(uint8_t *out, uint32_t seq, const char *payload)
{
	struct icb_frame f;
	size_t len = 0;

	memset(&f, 0, sizeof(f));
	f.type = ICB_T_ECHO;
	f.seq = seq;
	f.payload = (const uint8_t *)payload;
	f.payload_len = strlen(payload);
	icb_frame_encode(&f, out, 256, &len);
	return len;
}

static void test_fragmentation(struct icbt_counts *c)
{
	uint8_t wire[512], buf[128];
	struct outcome whole, o;
	size_t n = 0, piece;
	int same = 1;

	memcpy(wire, "log\r\n", 5);
	n = 5;
	n += put_frame(wire + n, 1, "first");
	n += put_frame(wire + n, 2, "\xcb\xcb\x1c");
	n += put_frame(wire + n, 3, "third");
	run(buf, sizeof(buf), wire, n, 0, &whole);
	CHECK(c, whole.frames == 3 && whole.errors == 0 && whole.garbage == 5);
	CHECK(c, whole.seqs[0] == 1 && whole.seqs[1] == 2 && whole.seqs[2] == 3);
	for (piece = 1; piece <= n; piece++) {
		run(buf, sizeof(buf), wire, n, piece, &o);
		same &= o.frames == whole.frames && o.errors == whole.errors &&
			o.garbage == whole.garbage && o.seqs[2] == 3;
	}
	CHECK(c, same);
}

static void test_resync(struct icbt_counts *c)
{
	uint8_t wire[512], buf[128];
	char big[201];
	struct outcome o;
	size_t n = 0, k;
	const uint8_t false_hdr[12] = { 0xCB, 0x1C, 1, 3, 0, 0, 40, 0, 0, 0, 0, 0 };

	/* corrupt frame, then a good one */
	k = put_frame(wire, 7, "corrupt");
	wire[k - 1] ^= 0xff;
	n = k;
	n += put_frame(wire + n, 8, "good");
	run(buf, sizeof(buf), wire, n, 0, &o);
	CHECK(c, o.frames == 1 && o.seqs[0] == 8 && o.errors == 1 && o.last_err == -ICB_ECRC);
	CHECK(c, o.garbage == k);

	/* a false header claiming 40 bytes hides a real frame and a second one follows */
	memcpy(wire, false_hdr, sizeof(false_hdr));
	n = sizeof(false_hdr);
	n += put_frame(wire + n, 9, "inside");
	memset(wire + n, 0, 40);
	n += 40;
	n += put_frame(wire + n, 10, "after");
	run(buf, sizeof(buf), wire, n, 0, &o);
	CHECK(c, o.frames == 2 && o.seqs[0] == 9 && o.seqs[1] == 10);
	CHECK(c, o.errors == 1 && o.garbage == 12 + 40);
	run(buf, sizeof(buf), wire, n, 1, &o);
	CHECK(c, o.frames == 2 && o.errors == 1 && o.garbage == 12 + 40);

	/* a body longer than the buffer allows */
	memset(big, 'x', 200);
	big[200] = 0;
	n = put_frame(wire, 11, big);
	run(buf, 64, wire, n, 0, &o);
	CHECK(c, o.frames == 0 && o.errors == 1 && o.last_err == -ICB_ETOOLONG);
	CHECK(c, o.garbage == n);
}

static void test_reset(struct icbt_counts *c)
{
	uint8_t wire[64], buf[64];
	struct icb_parser p;
	struct icb_event ev;
	size_t n = put_frame(wire, 1, "abc");

	CHECK(c, icb_parser_init(&p, buf, ICB_OVERHEAD - 1) == -ICB_EINVAL);
	icb_parser_init(&p, buf, sizeof(buf));
	CHECK(c, icb_parser_step(&p, wire, 5, &ev) == 5 && ev.kind == ICB_EV_NONE);
	CHECK(c, icb_parser_buffered(&p) == 5);
	CHECK(c, icb_parser_reset(&p) == 5);
	CHECK(c, icb_parser_step(&p, wire, n, &ev) == n && ev.kind == ICB_EV_FRAME);
	CHECK(c, ev.frame.payload_len == 3 && memcmp(ev.frame.payload, "abc", 3) == 0);
}

void test_parser(struct icbt_counts *c)
{
	test_fragmentation(c);
	test_resync(c);
	test_reset(c);
}
