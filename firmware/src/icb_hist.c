/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip histogram.  See icb_hist.h; the index formula is the one of
 * crates/icbench-proto/src/onchip (TickHist::index_of), checked against it
 * by the golden vectors in tests/test_hist.c.
 */
#include <string.h>

#include "icb_frame.h"
#include "icb_hist.h"

void icb_hist_reset(struct icb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* floor(log2 v) for v > 0, without a library call (Cortex-M0 has no CLZ) */
static uint32_t icb_log2(uint32_t v)
{
	uint32_t p = 0;

	while (v >>= 1)
		p++;
	return p;
}

uint32_t icb_hist_index(uint32_t v)
{
	const uint32_t base = 1u << ICB_HIST_S;
	uint32_t p, shift;

	if (v < base)
		return v;
	p = icb_log2(v);
	shift = p - ICB_HIST_S;
	return base + shift * base + ((v - (1u << p)) >> shift);
}

void icb_hist_record(struct icb_hist *h, uint32_t v)
{
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->n[icb_hist_index(v)]++;
}

size_t icb_hist_wire_len(const struct icb_hist *h)
{
	size_t len = ICB_HIST_HEADER;
	uint32_t i;

	for (i = 0; i < ICB_HIST_BUCKETS; i++)
		if (h->n[i])
			len += ICB_HIST_PAIR;
	return len;
}

size_t icb_hist_encode(const struct icb_hist *h, uint8_t *out, size_t cap)
{
	size_t len = icb_hist_wire_len(h), at = ICB_HIST_HEADER;
	uint32_t i;

	if (cap < len)
		return 0;
	out[0] = 1;
	out[1] = (uint8_t)ICB_HIST_S;
	icb_put_le16(out + 2, (uint16_t)((len - ICB_HIST_HEADER) / ICB_HIST_PAIR));
	icb_put_le64(out + 4, h->count);
	icb_put_le32(out + 12, h->min);
	icb_put_le32(out + 16, h->max);
	icb_put_le64(out + 20, h->sum);
	for (i = 0; i < ICB_HIST_BUCKETS; i++) {
		if (!h->n[i])
			continue;
		icb_put_le16(out + at, (uint16_t)i);
		icb_put_le32(out + at + 2, h->n[i]);
		at += ICB_HIST_PAIR;
	}
	return len;
}
