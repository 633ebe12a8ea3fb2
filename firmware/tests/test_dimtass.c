/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <string.h>

#include "icb_dimtass.h"
#include "icbt.h"

struct tally {
	unsigned replies;
	uint16_t lengths[4];
	size_t garbage;
};

static void run(const uint8_t *wire, size_t n, size_t piece, struct tally *t)
{
	struct icb_dimtass d;
	struct icb_dimtass_event ev;
	size_t at = 0;

	memset(t, 0, sizeof(*t));
	icb_dimtass_init(&d);
	while (at < n) {
		size_t len = piece && n - at > piece ? piece : n - at;
		const uint8_t *in = wire + at;

		at += len;
		for (;;) {
			size_t used = icb_dimtass_step(&d, in, len, &ev);

			in += used;
			len -= used;
			if (ev.kind == ICB_DIMTASS_REPLY) {
				if (t->replies < 4)
					t->lengths[t->replies] = ev.length;
				t->replies++;
			} else if (ev.kind == ICB_DIMTASS_GARBAGE) {
				t->garbage += ev.garbage;
			} else if (len == 0) {
				break;
			}
		}
	}
}

/* A transfer as the seed client builds it: pattern buffer, header over its start */
static void transfer(uint8_t *buf, uint16_t length)
{
	icbt_pattern(buf, length);
	buf[0] = 0xCD;
	buf[1] = 0xAB;
	buf[2] = (uint8_t)(length & 0xff);
	buf[3] = (uint8_t)(length >> 8);
	buf[4] = 0x18;
	buf[5] = 0x18;
}

void test_dimtass(struct icbt_counts *c)
{
	static uint8_t wire[4096];
	struct tally whole, t;
	uint8_t reply[2];
	size_t n, piece;
	int same = 1;

	wire[0] = 0x11;
	wire[1] = 0xCD;
	wire[2] = 0xCD;
	transfer(wire + 3, 512);
	transfer(wire + 3 + 512, 1024);
	transfer(wire + 3 + 1536, 2);	/* shorter than its header: reply after 6 bytes */
	n = 3 + 1536 + 6;
	run(wire, n, 0, &whole);
	CHECK(c, whole.replies == 3 && whole.garbage == 3);
	CHECK(c, whole.lengths[0] == 512 && whole.lengths[1] == 1024 && whole.lengths[2] == 2);
	/* firmware callbacks get a 512-byte block in several pieces */
	for (piece = 1; piece <= 700; piece += 3) {
		run(wire, n, piece, &t);
		same &= t.replies == 3 && t.garbage == 3 && t.lengths[1] == 1024;
	}
	CHECK(c, same);
	icb_dimtass_reply(0x1234, reply);
	CHECK(c, reply[0] == 0x34 && reply[1] == 0x12);
}
