/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * libFuzzer harness for the C parser and responder:
 *   clang -fsanitize=fuzzer,address,undefined (see `make -C firmware fuzz`)
 *
 * The first input byte chooses how the rest is cut into pieces (bits 0-5:
 * 1..64 bytes) and what is fed (bits 6-7: 0 the incremental parser alone,
 * 1 the icb responder with the on-chip initiator behind it (CHIP and RUN
 * served: records decoded, refused cells answered, a CHIP reply longer than
 * a frame fragmented), 2 dimtass, 3 raw).  Checked: no crash or UB, a frame
 * the parser returns re-encodes and decodes to the same fields, the parser
 * never holds more than its buffer, every input byte is consumed.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "icb_onchip.h"
#include "icb_parser.h"
#include "icb_responder.h"

#define CAP 600

static int sink(void *ctx, const uint8_t *buf, size_t len)
{
	size_t *sent = ctx;

	(void)buf;
	*sent += len;
	return 0;
}

static void check_frame(const struct icb_frame *f)
{
	uint8_t wire[CAP];
	size_t len = 0, used = 0;
	struct icb_frame back;

	assert(icb_frame_encode(f, wire, sizeof(wire), &len) == 0);
	assert(icb_frame_decode(wire, len, CAP, &back, &used) == 0);
	assert(used == len);
	assert(back.type == f->type && back.seq == f->seq && back.chan == f->chan);
	assert(back.payload_len == f->payload_len);
	assert(memcmp(back.payload, f->payload, f->payload_len) == 0);
}

static void parse(const uint8_t *data, size_t size, size_t cut)
{
	uint8_t buf[CAP];
	struct icb_parser p;
	struct icb_event ev;

	assert(icb_parser_init(&p, buf, sizeof(buf)) == 0);
	while (size) {
		size_t n = size < cut ? size : cut;
		const uint8_t *in = data;

		data += n;
		size -= n;
		for (;;) {
			size_t used = icb_parser_step(&p, in, n, &ev);

			assert(used <= n);
			in += used;
			n -= used;
			assert(icb_parser_buffered(&p) <= sizeof(buf));
			if (ev.kind == ICB_EV_FRAME)
				check_frame(&ev.frame);
			else if (ev.kind == ICB_EV_NONE && n == 0)
				break;
		}
	}
}

/*
 * An initiator whose side has no region: every RUN is checked, refused and
 * answered at once (a fuzz input cannot make it wait for an agent).  Its
 * labels make the CHIP reply longer than one frame.
 */
static void onchip(struct icb_responder *r, struct icb_oc_initiator *in, struct icb_oc_side *side,
		   struct icb_oc_chip *chip, struct icb_hist *h, uint8_t *msg, size_t cap)
{
	static char labels[700];

	memset(labels, 'x', sizeof(labels) - 2);
	labels[3] = '=';
	labels[sizeof(labels) - 2] = '\n';
	memset(side, 0, sizeof(*side));
	memset(chip, 0, sizeof(*chip));
	chip->cores = 2;
	chip->notify = ICB_NOTIFY_POLL;
	chip->timer_hz = 1000000u;
	chip->max_size = 256;
	chip->nregions = 1;
	chip->regions[0] = "fz";
	chip->labels = labels;
	in->side = side;
	in->chip = chip;
	in->hist = h;
	in->msg = msg;
	in->msg_cap = cap;
	icb_responder_set_extra(r, icb_oc_serve, in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t rx[CAP], tx[CAP];
	struct icb_responder r;
	struct icb_responder_config cfg;
	struct icb_platform plat;
	static struct icb_hist hist;
	static uint8_t msg[ICB_OC_RESULT_MAX];
	struct icb_oc_initiator in;
	struct icb_oc_side side;
	struct icb_oc_chip chip;
	size_t sent = 0, cut;
	int mode;

	if (size == 0)
		return 0;
	cut = (size_t)(data[0] & 0x3f) + 1;
	mode = data[0] >> 6;
	data++;
	size--;
	if (mode == 0) {
		parse(data, size, cut);
		return 0;
	}
	icb_responder_config_default(&cfg);
	cfg.proto = mode == 1 ? ICB_PROTO_ICB : mode == 2 ? ICB_PROTO_DIMTASS : ICB_PROTO_RAW;
	cfg.ack_every_bytes = 100;
	plat.ctx = &sent;
	plat.send = sink;
	plat.now = NULL;
	assert(icb_responder_init(&r, &cfg, &plat, rx, sizeof(rx), tx, sizeof(tx)) == 0);
	if (mode == 1)
		onchip(&r, &in, &side, &chip, &hist, msg, sizeof(msg));
	while (size) {
		size_t n = size < cut ? size : cut;

		icb_responder_input(&r, data, n);
		data += n;
		size -= n;
	}
	if (mode == 3)
		assert(sent == r.stats.rx_payload_bytes);
	return 0;
}
