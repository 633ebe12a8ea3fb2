/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark: the histogram's buckets (the same known answers as
 * crates/icbench-proto/src/onchip/tests.rs), the ring, the records, and
 * every pattern in both directions between two threads over the ring.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "icb_onchip.h"
#include "icbt.h"

#define SLOTS 8u
#define MAXP 4096u

static void test_hist(struct icbt_counts *c)
{
	static struct icb_hist h;
	static uint8_t wire[ICB_HIST_MAX_WIRE];
	size_t n;

	CHECK(c, ICB_HIST_BUCKETS == 3328u);
	CHECK(c, icb_hist_index(0) == 0 && icb_hist_index(127) == 127);
	CHECK(c, icb_hist_index(128) == 128 && icb_hist_index(255) == 255);
	CHECK(c, icb_hist_index(256) == 256 && icb_hist_index(257) == 256);
	CHECK(c, icb_hist_index(258) == 257);
	CHECK(c, icb_hist_index(0x80000000u) == 3200u);
	CHECK(c, icb_hist_index(0xffffffffu) == 3327u);
	icb_hist_reset(&h);
	icb_hist_record(&h, 1000);
	icb_hist_record(&h, 7);
	icb_hist_record(&h, 1000);
	CHECK(c, h.count == 3 && h.min == 7 && h.max == 1000 && h.sum == 2007);
	n = icb_hist_encode(&h, wire, sizeof(wire));
	CHECK(c, n == ICB_HIST_HEADER + 2 * ICB_HIST_PAIR && n == icb_hist_wire_len(&h));
	CHECK(c, wire[0] == 1 && wire[1] == ICB_HIST_S && wire[2] == 2 && wire[3] == 0);
	/* 7 is exact; 1000 = 2^9 + 488: 128 + 2·128 + (488 >> 2) = 506 */
	CHECK(c, icb_get_le16(wire + 28) == 7 && icb_get_le32(wire + 30) == 1);
	CHECK(c, icb_get_le16(wire + 34) == 506 && icb_get_le32(wire + 36) == 2);
	CHECK(c, icb_hist_encode(&h, wire, n - 1) == 0);
}

static void test_ring(struct icbt_counts *c)
{
	static uint8_t mem[8192] __attribute__((aligned(ICB_RING_ALIGN)));
	struct icb_ring tx, rx;
	struct icb_msg m = { 3, 0, 0, 0, 0, 5 }, got;
	uint8_t buf[64];
	uint32_t i;

	CHECK(c, icb_ring_bytes(4, 40) == ICB_RING_BYTES(4, 40));
	CHECK(c, ICB_RING_SLOT(40) % ICB_RING_ALIGN == 0 && ICB_RING_SLOT(40) >= 60);
	CHECK(c, icb_ring_init(&tx, mem + 1, sizeof(mem), 4, 40, NULL, 1) == -ICB_EINVAL);
	CHECK(c, icb_ring_init(&tx, mem, 100, 4, 40, NULL, 1) == -ICB_EINVAL);
	CHECK(c, icb_ring_init(&tx, mem, sizeof(mem), 4, 40, NULL, 1) == 0);
	CHECK(c, icb_ring_init(&rx, mem, sizeof(mem), 4, 40, NULL, 0) == 0);
	CHECK(c, icb_ring_max_payload(&tx) == ICB_RING_SLOT(40) - ICB_RING_SLOT_HDR);
	CHECK(c, icb_ring_recv(&rx, &got, buf, sizeof(buf)) == -ICB_EAGAIN);
	/* three rounds of fill and drain: the indexes wrap the slots */
	for (i = 0; i < 12; i++) {
		m.seq = i;
		m.stamp = 100 + i;
		CHECK(c, icb_ring_send(&tx, &m, (const uint8_t *)"hello") == 0);
		if (i % 4 == 3) {
			uint32_t k;

			CHECK(c, icb_ring_send(&tx, &m, (const uint8_t *)"full!") == -ICB_EAGAIN);
			for (k = 0; k < 4; k++) {
				CHECK(c, icb_ring_recv(&rx, &got, buf, sizeof(buf)) == 0);
				CHECK(c, got.seq == i - 3 + k && got.stamp == 100 + i - 3 + k);
				CHECK(c, got.kind == 3 && got.len == 5 && !memcmp(buf, "hello", 5));
			}
		}
	}
	m.len = icb_ring_max_payload(&tx) + 1u;
	CHECK(c, icb_ring_send(&tx, &m, buf) == -ICB_ETOOLONG);
	m.len = 40;
	CHECK(c, icb_ring_send(&tx, &m, buf) == 0);
	/* too long for the reader's buffer: dropped, the next one comes */
	CHECK(c, icb_ring_recv(&rx, &got, buf, 8) == -ICB_ENOSPC);
	CHECK(c, icb_ring_recv(&rx, &got, buf, sizeof(buf)) == -ICB_EAGAIN);
}

static void test_records(struct icbt_counts *c)
{
	static const struct icb_oc_chip chip = {
		2, ICB_NOTIFY_POLL | ICB_NOTIFY_EVENT, 240000000u, 4096u, 2, { "D1", "D3" },
		"m7_hz=480000000\n"
	};
	struct icb_oc_run run = { ICB_OC_PINGPONG, ICB_OC_A2I, 1, ICB_NOTIFY_EVENT, 0,
				  64, 1024, 16, 0, 500 }, back;
	struct icb_oc_side side;
	uint8_t rec[ICB_OC_RUN_LEN], out[128];
	uint32_t bad;
	size_t n;

	memset(&side, 0, sizeof(side));
	side.nregions = 2;
	side.buf_cap = 4096;
	n = icb_oc_chip_encode(&chip, out, sizeof(out));
	CHECK(c, n == 12 + 3 + 3 + 2 + 16);
	CHECK(c, out[0] == 1 && out[1] == 2 && out[2] == 2 && out[3] == 0x05);
	CHECK(c, icb_get_le32(out + 4) == 240000000u && out[12] == 2 && !memcmp(out + 13, "D1", 2));
	CHECK(c, icb_oc_chip_encode(&chip, out, n - 1) == 0);
	icb_oc_run_encode(&run, rec);
	CHECK(c, icb_oc_run_decode(rec, sizeof(rec), &back, &bad) == 0);
	CHECK(c, !memcmp(&back, &run, sizeof(run)) || (back.size == 64 && back.count == 1024 &&
						      back.timeout_ms == 500 && back.region == 1));
	CHECK(c, icb_oc_run_decode(rec, sizeof(rec) - 1, &back, &bad) == -ICB_ELENGTH);
	rec[0] = 2;
	CHECK(c, icb_oc_run_decode(rec, sizeof(rec), &back, &bad) == -ICB_EVERSION);
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_OK);
	run.notify = ICB_NOTIFY_DOORBELL;
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 4);
	run.notify = ICB_NOTIFY_POLL;
	run.region = 2;
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 3);
	run.region = 0;
	run.size = 4097;
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 8);
	run.pattern = ICB_OC_BULK;
	run.window = 0;
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 20);
	run.flags = ICB_OC_RAW;	/* no room for raw samples */
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 5);
	run.flags = 2;		/* reserved */
	CHECK(c, icb_oc_check(&chip, &side, &run, &bad) == ICB_OC_UNSUPPORTED && bad == 5);
}

/* --- two threads ------------------------------------------------------ */

struct pair {
	uint8_t mem[3][2 * ICB_RING_BYTES(SLOTS, MAXP)] __attribute__((aligned(ICB_RING_ALIGN)));
	struct icb_ring_pair rings[2][3];
	struct icb_oc_side side[2];	/* 0: initiator, 1: agent */
	uint8_t bufs[4][MAXP];
	struct icb_xport agent_data;	/* the agent's real data xport, wrapped */
	uint32_t flip_at;		/* agent receives: corrupt the DATA with this seq + 1 */
	volatile int stop;
};

static struct pair P;
static struct icb_hist H;

static uint32_t now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/* The agent's data recv with one payload byte flipped (a corrupting transport) */
static int flipping_recv(void *ctx, struct icb_msg *m, uint8_t *buf, uint32_t cap)
{
	int err = P.agent_data.recv(ctx, m, buf, cap);

	if (!err && P.flip_at && m->kind == 3 && m->seq + 1u == P.flip_at && m->len > 5)
		buf[5] ^= 0x40;
	return err;
}

static void *agent(void *arg)
{
	(void)arg;
	while (!P.stop)
		icb_oc_agent_poll(&P.side[1]);
	return NULL;
}

static void setup_pair(void)
{
	int who, r;

	memset(&P, 0, sizeof(P));
	for (who = 0; who < 2; who++) {
		struct icb_oc_side *s = &P.side[who];

		icb_ring_pair_init(&P.rings[who][0], &s->ctl, P.mem[0], sizeof(P.mem[0]), SLOTS,
				   MAXP, NULL, !who, !who);
		for (r = 0; r < 2; r++)
			icb_ring_pair_init(&P.rings[who][r + 1], &s->data[r], P.mem[r + 1],
					   sizeof(P.mem[r + 1]), SLOTS, MAXP, NULL, !who, !who);
		s->ctl_notify = ICB_NOTIFY_POLL;
		s->nregions = 2;
		s->now = now_ns;
		s->timer_hz = 1000000000u;
		s->tx = P.bufs[2 * who];
		s->rx = P.bufs[2 * who + 1];
		s->buf_cap = MAXP;
	}
	P.agent_data = P.side[1].data[1];
	P.side[1].data[1].recv = flipping_recv;
}

static const struct icb_oc_chip CHIP = { 2, ICB_NOTIFY_POLL, 1000000000u, MAXP, 2,
					 { "ram0", "ram1" }, "port=test\n" };

static void one(struct icbt_counts *c, uint8_t pattern, uint8_t dir, uint8_t region,
		uint32_t size)
{
	struct icb_oc_run run = { pattern, dir, region, ICB_NOTIFY_POLL, 0, size, 200, 5,
				  pattern == ICB_OC_BULK ? 1000u : 4u, 2000 };
	struct icb_oc_outcome out;

	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	if (!CHECK(c, out.status == ICB_OC_OK))
		fprintf(stderr, "  pattern %u dir %u size %u: status %u detail %u\n", pattern,
			dir, size, out.status, out.detail);
	if (pattern == ICB_OC_STREAM) {
		CHECK(c, H.count == 0 && out.bytes == 200u * size && out.window_ticks > 0);
	} else {
		CHECK(c, H.count == 200 && H.min > 0 && H.min <= H.max);
	}
	if (pattern == ICB_OC_BULK)
		CHECK(c, out.bytes == 200u * size && out.window_ticks >= H.sum / 2);
}

/* Raw samples: refused without room, else every one, in the histogram too */
static void test_raw(struct icbt_counts *c)
{
	static uint32_t raw[300];
	static uint8_t wire[ICB_OC_RESULT_RAW_MAX(300)];
	struct icb_oc_run run = { ICB_OC_PINGPONG, ICB_OC_A2I, 0, ICB_NOTIFY_POLL, ICB_OC_RAW,
				  64, 250, 5, 0, 2000 };
	struct icb_oc_outcome out;
	uint64_t sum = 0;
	size_t len, hist_len;
	uint32_t i;

	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	CHECK(c, out.status == ICB_OC_UNSUPPORTED && out.detail == 5);
	P.side[0].raw = raw;
	P.side[0].raw_cap = 200;
	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	CHECK(c, out.status == ICB_OC_UNSUPPORTED && out.detail == 5);
	P.side[0].raw_cap = 300;
	for (run.direction = 0; run.direction < 2; run.direction++) {
		icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
		CHECK(c, out.status == ICB_OC_OK && P.side[0].raw_n == 250 && H.count == 250);
		for (i = 0, sum = 0; i < P.side[0].raw_n; i++)
			sum += raw[i];
		CHECK(c, sum == H.sum);
	}
	len = icb_oc_result_encode_raw(&out, &H, raw, 250, wire, sizeof(wire));
	hist_len = icb_hist_wire_len(&H);
	CHECK(c, len == ICB_OC_RESULT_HEADER + hist_len + 4 + 4 * 250);
	CHECK(c, icb_get_le32(wire + ICB_OC_RESULT_HEADER + hist_len) == 250);
	CHECK(c, icb_get_le32(wire + len - 4) == raw[249]);
	CHECK(c, icb_oc_result_encode_raw(&out, &H, raw, 250, wire, len - 1) == 0);
	P.side[0].raw = NULL;
}

static void test_cores(struct icbt_counts *c)
{
	struct icb_oc_run run = { ICB_OC_ONEWAY, ICB_OC_I2A, 1, ICB_NOTIFY_POLL, 0, 64, 50, 0, 0,
				  2000 };
	struct icb_oc_outcome out;
	pthread_t t;
	uint8_t p, d;

	setup_pair();
	pthread_create(&t, NULL, agent, NULL);
	for (p = ICB_OC_ONEWAY; p <= ICB_OC_BULK; p++)
		for (d = 0; d < 2; d++) {
			one(c, p, d, 0, 64);
			one(c, p, d, 1, p == ICB_OC_BULK ? 10000u : MAXP);
			one(c, p, d, 1, 1);
		}
	/* a byte flipped on the way to the agent: caught, named by offset */
	P.flip_at = 1 + 20;
	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	CHECK(c, out.status == ICB_OC_CORRUPT && out.detail == 5);
	run.pattern = ICB_OC_STREAM;
	run.window = 4;
	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	CHECK(c, out.status == ICB_OC_CORRUPT && out.detail == 5);
	/* and the next cell is clean again */
	P.flip_at = 0;
	one(c, ICB_OC_PINGPONG, ICB_OC_I2A, 1, 64);
	test_raw(c);
	P.stop = 1;
	pthread_join(t, NULL);
	/* no agent: a timeout, not a hang */
	run.pattern = ICB_OC_PINGPONG;
	run.timeout_ms = 20;
	icb_oc_initiate(&P.side[0], &CHIP, &run, &H, &out);
	CHECK(c, out.status == ICB_OC_TIMEOUT);
}

void test_onchip(struct icbt_counts *c)
{
	test_hist(c);
	test_ring(c);
	test_records(c);
	test_cores(c);
}
