/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The remote side of the stm32-rpmsg-sdb link (docs/rpmsg.md, "sdb"): shared
 * data buffers that Linux allocates and announces, and the small command set
 * icbench adds so that the remote fills, checks or copies a buffer it was
 * told about and reports it in the driver's own format.
 *
 * Messages Linux → remote (text, no terminator needed):
 *   B<id>A<addr hex>L<size hex>   a buffer: what ST's driver sends on mmap()
 *   F<id>L<len hex>S<seed hex>    fill buffer id with the pattern, report
 *   C<id>L<len hex>S<seed hex>    check buffer id against the pattern, report
 *                                 the length of the prefix that matched
 *   E<id>T<id2>L<len hex>         copy len bytes of buffer id into id2, report id2
 * Remote → Linux, the only message ST's driver accepts:
 *   B<id>L<len as %08x>
 * A check that finds byte k wrong reports L = k (< the length asked), so the
 * first corrupted offset travels in the driver's unmodified format.
 *
 * No allocation, no globals: the caller owns struct icb_sdb and supplies how
 * a bus address becomes memory the core can touch (`map`) and how one rpmsg
 * message goes out (`send`).
 */
#ifndef ICB_SDB_H
#define ICB_SDB_H

#include <stddef.h>
#include <stdint.h>

#define ICB_SDB_MAX_BUFS	32u
/* "B<id>L%08x": the longest report */
#define ICB_SDB_REPORT_MAX	20u

struct icb_sdb_buf {
	uint64_t addr;		/* bus address Linux announced */
	uint32_t size;		/* bytes */
	uint8_t *mem;		/* NULL until announced and mapped */
};

struct icb_sdb_platform {
	void *ctx;
	/* memory of [addr, addr + size), or NULL when the core cannot reach it */
	uint8_t *(*map)(void *ctx, uint64_t addr, uint32_t size);
	/* one message to Linux; 0 on success */
	int (*send)(void *ctx, const char *msg, size_t len);
	/* optional: damage buffer contents after a fill or copy, or before a
	 * check (fault injection); returns nonzero to flip the byte at len / 2 */
	int (*corrupt)(void *ctx);
};

struct icb_sdb_stats {
	uint32_t announced, fills, checks, copies, check_failures, bad_msgs;
};

struct icb_sdb {
	struct icb_sdb_platform plat;
	struct icb_sdb_buf buf[ICB_SDB_MAX_BUFS];
	struct icb_sdb_stats st;
};

enum icb_sdb_status {
	ICB_SDB_OK = 0,
	ICB_SDB_BAD_MSG = -1,	/* not one of the messages above */
	ICB_SDB_BAD_BUF = -2,	/* unknown id, unmapped, or len past its size */
	ICB_SDB_SEND_FAILED = -3,
};

void icb_sdb_init(struct icb_sdb *s, const struct icb_sdb_platform *plat);
/* Handles one message from Linux; returns an enum icb_sdb_status. */
int icb_sdb_input(struct icb_sdb *s, const uint8_t *msg, size_t len);
/* Forgets every buffer (Linux closed the device; a new session announces
 * its own). */
void icb_sdb_reset(struct icb_sdb *s);

/* The pattern: byte i of a buffer filled with `seed`. */
static inline uint8_t icb_sdb_byte(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed + i + 7u * (i >> 8) + 13u * (i >> 16));
}
void icb_sdb_fill(uint8_t *p, uint32_t len, uint32_t seed);
/* Offset of the first byte that differs from the pattern, or len. */
uint32_t icb_sdb_check(const uint8_t *p, uint32_t len, uint32_t seed);
/* Formats "B<id>L%08x" into out (ICB_SDB_REPORT_MAX bytes); returns its length. */
size_t icb_sdb_report(char *out, uint32_t id, uint32_t len);

#endif /* ICB_SDB_H */
