/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip latency histogram (docs/protocol.md §1.10, issue #16): a
 * fixed-size log-linear histogram of u32 timer ticks, exact below 2^S and
 * then 2^S buckets per power of two, so every bucket is narrower than 1/2^S
 * of its values (S = 7: under 1 %).  The caller owns it (13 KiB of counts);
 * recording is a few shifts and one increment, cheap enough to run between
 * two samples on a Cortex-M.  On the wire only the counted buckets travel.
 */
#ifndef ICB_HIST_H
#define ICB_HIST_H

#include <stddef.h>
#include <stdint.h>

#define ICB_HIST_S		7u
/* 2^S exact buckets, then 2^S per power of two from 2^S to 2^31 */
#define ICB_HIST_BUCKETS	((1u << ICB_HIST_S) * (33u - ICB_HIST_S))
/* Wire header: version, S, n, count, min, max, sum */
#define ICB_HIST_HEADER		28u
/* Wire bytes per counted bucket: u16 index, u32 count */
#define ICB_HIST_PAIR		6u
/* The longest encoding: every bucket counted */
#define ICB_HIST_MAX_WIRE	(ICB_HIST_HEADER + ICB_HIST_PAIR * ICB_HIST_BUCKETS)

struct icb_hist {
	uint64_t count;
	uint64_t sum;
	uint32_t min;
	uint32_t max;
	uint32_t n[ICB_HIST_BUCKETS];
};

void icb_hist_reset(struct icb_hist *h);

/* The bucket of v (below ICB_HIST_BUCKETS) */
uint32_t icb_hist_index(uint32_t v);

void icb_hist_record(struct icb_hist *h, uint32_t v);

/* Bytes icb_hist_encode writes for h */
size_t icb_hist_wire_len(const struct icb_hist *h);

/*
 * Encode h sparse (§1.10): returns the length, or 0 when cap is too small
 * (nothing meaningful is left in out then).
 */
size_t icb_hist_encode(const struct icb_hist *h, uint8_t *out, size_t cap);

#endif /* ICB_HIST_H */
