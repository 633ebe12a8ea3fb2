/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The sdb remote: announcements, fill / check / copy, reports, bad input. */
#include <stdio.h>
#include <string.h>

#include "icb_sdb.h"
#include "icbt.h"

struct sdbt {
	uint8_t mem[2][4096];
	char last[64];
	size_t nsent;
	int corrupt;
};

static uint8_t *sdbt_map(void *ctx, uint64_t addr, uint32_t size)
{
	struct sdbt *t = ctx;

	if ((addr != 0x1000 && addr != 0x2000) || size > sizeof(t->mem[0]))
		return NULL;
	return t->mem[addr == 0x2000];
}

static int sdbt_send(void *ctx, const char *msg, size_t len)
{
	struct sdbt *t = ctx;

	memcpy(t->last, msg, len);
	t->last[len] = 0;
	t->nsent++;
	return 0;
}

static int sdbt_corrupt(void *ctx)
{
	return ((struct sdbt *)ctx)->corrupt;
}

static int in(struct icb_sdb *s, const char *m)
{
	return icb_sdb_input(s, (const uint8_t *)m, strlen(m));
}

void test_sdb(struct icbt_counts *c)
{
	static struct sdbt t;
	struct icb_sdb_platform plat = { &t, sdbt_map, sdbt_send, sdbt_corrupt };
	static struct icb_sdb s;
	char out[ICB_SDB_REPORT_MAX];

	icb_sdb_init(&s, &plat);
	CHECK(c, icb_sdb_report(out, 12, 0x1000) == 12 && !memcmp(out, "B12L00001000", 12));
	CHECK(c, icb_sdb_report(out, 3, 0x1000) == 11 && !memcmp(out, "B3L00001000", 11));
	/* ST's announcement, as the driver formats it: "B%dA%08xL%08x" */
	CHECK(c, in(&s, "B0A00001000L00001000") == ICB_SDB_OK);
	CHECK(c, in(&s, "B1A00002000L00001000") == ICB_SDB_OK);
	CHECK(c, s.st.announced == 2);
	/* remote fills, Linux-side check */
	CHECK(c, in(&s, "F0L00000800S7") == ICB_SDB_OK);
	CHECK(c, !strcmp(t.last, "B0L00000800"));
	CHECK(c, icb_sdb_check(t.mem[0], 0x800, 7) == 0x800);
	CHECK(c, t.mem[0][0x800] == 0);
	/* Linux fills, remote checks: all good, then one byte wrong at 300 */
	icb_sdb_fill(t.mem[1], 4096, 0x42);
	CHECK(c, in(&s, "C1L1000S42") == ICB_SDB_OK && !strcmp(t.last, "B1L00001000"));
	t.mem[1][300] ^= 1;
	CHECK(c, in(&s, "C1L1000S42") == ICB_SDB_OK && !strcmp(t.last, "B1L0000012c"));
	CHECK(c, s.st.check_failures == 1);
	/* copy 0 → 1, and a corrupting remote */
	CHECK(c, in(&s, "E0T1L800") == ICB_SDB_OK && !strcmp(t.last, "B1L00000800"));
	CHECK(c, !memcmp(t.mem[0], t.mem[1], 0x800));
	t.corrupt = 1;
	CHECK(c, in(&s, "F0L100S1") == ICB_SDB_OK);
	CHECK(c, icb_sdb_check(t.mem[0], 0x100, 1) == 0x80);
	/* ... and one that damages what it reads: the check names the byte */
	icb_sdb_fill(t.mem[1], 0x100, 5);
	CHECK(c, in(&s, "C1L100S5") == ICB_SDB_OK && !strcmp(t.last, "B1L00000080"));
	t.corrupt = 0;
	/* bad input: nothing is sent */
	t.nsent = 0;
	CHECK(c, in(&s, "F2L10S0") == ICB_SDB_BAD_BUF);		/* unknown id */
	CHECK(c, in(&s, "F0L1001S0") == ICB_SDB_BAD_BUF);	/* past its size */
	CHECK(c, in(&s, "E0T9L10") == ICB_SDB_BAD_BUF);
	CHECK(c, in(&s, "X") == ICB_SDB_BAD_MSG);
	CHECK(c, in(&s, "F0L") == ICB_SDB_BAD_MSG);
	CHECK(c, in(&s, "F0L10S0junk") == ICB_SDB_BAD_MSG);
	CHECK(c, in(&s, "B0A00009000L00001000") == ICB_SDB_BAD_MSG);	/* unreachable */
	CHECK(c, in(&s, "B99A00001000L00001000") == ICB_SDB_BAD_MSG);
	CHECK(c, icb_sdb_input(&s, (const uint8_t *)"", 0) == ICB_SDB_BAD_MSG);
	CHECK(c, t.nsent == 0);
	/* a NUL-terminated command (a C string sent whole) */
	CHECK(c, icb_sdb_input(&s, (const uint8_t *)"F1L10S0", 8) == ICB_SDB_OK);
	icb_sdb_reset(&s);
	CHECK(c, in(&s, "F1L10S0") == ICB_SDB_BAD_BUF);
}
