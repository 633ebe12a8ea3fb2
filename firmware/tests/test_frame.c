/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <string.h>

#include "icb_frame.h"
#include "icbt.h"

static void test_crc(struct icbt_counts *c)
{
	const uint8_t check[] = "123456789";

	CHECK(c, icb_crc32(ICB_CRC_INIT, check, 9) == 0x0376E6E7u);
	/* incremental feeding gives the same value */
	CHECK(c, icb_crc32(icb_crc32(ICB_CRC_INIT, check, 4), check + 4, 5) == 0x0376E6E7u);
}

static void test_round_trip(struct icbt_counts *c)
{
	uint8_t buf[128];
	struct icb_frame f, g;
	size_t len = 0, used = 0;

	memset(&f, 0, sizeof(f));
	f.type = ICB_T_ECHO;
	f.chan = 2;
	f.seq = 0x01020304u;
	f.has_ts = 1;
	f.ts.t_origin = 1;
	f.ts.t_rx = 2;
	f.ts.t_tx = 3;
	f.has_frag = 1;
	f.msg_len = 1000;
	f.offset = 500;
	f.payload = (const uint8_t *)"hello";
	f.payload_len = 5;
	CHECK(c, icb_frame_len(&f) == ICB_OVERHEAD + ICB_TS_LEN + ICB_FRAG_LEN + 5);
	CHECK(c, icb_frame_encode(&f, buf, sizeof(buf), &len) == 0);
	CHECK(c, len == icb_frame_len(&f));
	CHECK(c, buf[0] == 0xCB && buf[1] == 0x1C && buf[2] == 1 && buf[4] == 0x06);
	CHECK(c, icb_frame_decode(buf, len, ICB_MAX_BODY, &g, &used) == 0);
	CHECK(c, used == len);
	CHECK(c, g.type == ICB_T_ECHO && g.chan == 2 && g.seq == 0x01020304u);
	CHECK(c, g.has_ts && g.ts.t_origin == 1 && g.ts.t_rx == 2 && g.ts.t_tx == 3);
	CHECK(c, g.has_frag && g.msg_len == 1000 && g.offset == 500);
	CHECK(c, g.payload_len == 5 && memcmp(g.payload, "hello", 5) == 0);
	CHECK(c, icb_frame_encode(&f, buf, len - 1, &len) == -ICB_ETOOLONG);
}

static void test_errors(struct icbt_counts *c)
{
	uint8_t good[32], bad[32];
	struct icb_frame f;
	size_t len, used;

	memset(&f, 0, sizeof(f));
	f.type = ICB_T_ECHO;
	f.seq = 1;
	f.payload = (const uint8_t *)"abc";
	f.payload_len = 3;
	icb_frame_encode(&f, good, sizeof(good), &len);

	memcpy(bad, good, len);
	bad[12] ^= 1;
	CHECK(c, icb_frame_decode(bad, len, ICB_MAX_BODY, &f, &used) == -ICB_ECRC);
	memcpy(bad, good, len);
	bad[2] = 2;
	CHECK(c, icb_frame_decode(bad, len, ICB_MAX_BODY, &f, &used) == -ICB_EVERSION);
	memcpy(bad, good, len);
	bad[4] = 0x10;
	CHECK(c, icb_frame_decode(bad, len, ICB_MAX_BODY, &f, &used) == -ICB_EFLAGS);
	memcpy(bad, good, len);
	bad[4] = ICB_F_TS;
	CHECK(c, icb_frame_decode(bad, len, ICB_MAX_BODY, &f, &used) == -ICB_ELENGTH);
	CHECK(c, icb_frame_decode(good, len, 2, &f, &used) == -ICB_ETOOLONG);
	CHECK(c, icb_frame_decode(good, 10, ICB_MAX_BODY, &f, &used) == -ICB_ETRUNC);
	CHECK(c, icb_frame_decode(good, len - 1, ICB_MAX_BODY, &f, &used) == -ICB_ETRUNC);
	CHECK(c, icb_frame_decode((const uint8_t *)"xy", 2, ICB_MAX_BODY, &f, &used) == -ICB_EMAGIC);
	CHECK(c, strcmp(icb_errname(-ICB_ECRC), "crc") == 0);
	CHECK(c, strcmp(icb_strerror(ICB_ECRC), "CRC mismatch") == 0);
	CHECK(c, strcmp(icb_strerror(-999), "unknown error") == 0);
}

void test_frame(struct icbt_counts *c)
{
	test_crc(c);
	test_round_trip(c);
	test_errors(c);
}
