/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip records (docs/protocol.md §1.10) and the initiator behind the
 * responder: CHIP, RUN and RESULT encoded and decoded, a cell checked
 * against what the chip and this core can run, and CHIP/RUN frames served
 * (icb_oc_serve).  The cores' halves of each pattern are icb_onchip.c.
 */
#include <string.h>

#include "icb_frame.h"
#include "icb_onchip.h"

/* --- records --------------------------------------------------------- */

size_t icb_oc_chip_encode(const struct icb_oc_chip *c, uint8_t *out, size_t cap)
{
	size_t at = 12, n, labels = c->labels ? strlen(c->labels) : 0;
	uint8_t i;

	if (c->nregions > ICB_OC_MAX_REGIONS || labels > 0xffffu || cap < at)
		return 0;
	out[0] = ICB_OC_VERSION;
	out[1] = c->cores;
	out[2] = c->nregions;
	out[3] = c->notify;
	icb_put_le32(out + 4, c->timer_hz);
	icb_put_le32(out + 8, c->max_size);
	for (i = 0; i < c->nregions; i++) {
		n = strlen(c->regions[i]);
		if (n == 0 || n > 32 || cap < at + 1 + n)
			return 0;
		out[at] = (uint8_t)n;
		memcpy(out + at + 1, c->regions[i], n);
		at += 1 + n;
	}
	if (cap < at + 2 + labels)
		return 0;
	icb_put_le16(out + at, (uint16_t)labels);
	if (labels)
		memcpy(out + at + 2, c->labels, labels);
	return at + 2 + labels;
}

void icb_oc_run_encode(const struct icb_oc_run *run, uint8_t out[ICB_OC_RUN_LEN])
{
	const uint32_t v[5] = { run->size, run->count, run->warmup, run->window,
				run->timeout_ms };
	int i;

	out[0] = ICB_OC_VERSION;
	out[1] = run->pattern;
	out[2] = run->direction;
	out[3] = run->region;
	out[4] = run->notify;
	out[5] = run->flags;
	icb_put_le16(out + 6, 0);
	for (i = 0; i < 5; i++)
		icb_put_le32(out + 8 + 4 * i, v[i]);
}

int icb_oc_run_decode(const uint8_t *p, size_t len, struct icb_oc_run *run, uint32_t *bad)
{
	*bad = 0;
	if (len < 1 || p[0] != ICB_OC_VERSION)
		return -ICB_EVERSION;
	if (len != ICB_OC_RUN_LEN) {
		*bad = (uint32_t)len;
		return -ICB_ELENGTH;
	}
	run->pattern = p[1];
	run->direction = p[2];
	run->region = p[3];
	run->notify = p[4];
	run->flags = p[5];
	run->size = icb_get_le32(p + 8);
	run->count = icb_get_le32(p + 12);
	run->warmup = icb_get_le32(p + 16);
	run->window = icb_get_le32(p + 20);
	run->timeout_ms = icb_get_le32(p + 24);
	return 0;
}

size_t icb_oc_result_encode_raw(const struct icb_oc_outcome *o, const struct icb_hist *h,
				const uint32_t *raw, uint32_t n, uint8_t *out, size_t cap)
{
	size_t len = icb_oc_result_encode(o, h, out, cap);
	uint32_t i;

	if (!len || (cap - len) / 4u < (size_t)n + 1u)
		return 0;
	icb_put_le32(out + len, n);
	for (i = 0; i < n; i++)
		icb_put_le32(out + len + 4u + 4u * i, raw[i]);
	return len + 4u + 4u * (size_t)n;
}

size_t icb_oc_result_encode(const struct icb_oc_outcome *o, const struct icb_hist *h,
			    uint8_t *out, size_t cap)
{
	size_t n;

	if (cap < ICB_OC_RESULT_HEADER)
		return 0;
	out[0] = ICB_OC_VERSION;
	out[1] = o->status;
	icb_put_le16(out + 2, 0);
	icb_put_le32(out + 4, o->detail);
	icb_put_le64(out + 8, o->window_ticks);
	icb_put_le64(out + 16, o->bytes);
	n = icb_hist_encode(h, out + ICB_OC_RESULT_HEADER, cap - ICB_OC_RESULT_HEADER);
	return n ? ICB_OC_RESULT_HEADER + n : 0;
}

/* Offsets of RUN's fields, named in an UNSUPPORTED outcome */
enum { OFF_PATTERN = 1, OFF_DIRECTION = 2, OFF_REGION = 3, OFF_NOTIFY = 4, OFF_FLAGS = 5,
       OFF_SIZE = 8, OFF_COUNT = 12, OFF_WINDOW = 20 };

static int icb_refuse(uint32_t *bad, uint32_t off)
{
	*bad = off;
	return ICB_OC_UNSUPPORTED;
}

int icb_oc_fits(const struct icb_oc_side *s, const struct icb_oc_run *run, uint32_t max,
		uint32_t *bad)
{
	*bad = 0;
	if (run->pattern < ICB_OC_ONEWAY || run->pattern > ICB_OC_BULK)
		return icb_refuse(bad, OFF_PATTERN);
	if (run->direction > ICB_OC_A2I)
		return icb_refuse(bad, OFF_DIRECTION);
	if (run->region >= s->nregions)
		return icb_refuse(bad, OFF_REGION);
	if (run->flags & ~ICB_OC_RAW)
		return icb_refuse(bad, OFF_FLAGS);
	if (run->size == 0 || (run->pattern != ICB_OC_BULK && run->size > max))
		return icb_refuse(bad, OFF_SIZE);
	if (run->count == 0)
		return icb_refuse(bad, OFF_COUNT);
	if (run->pattern == ICB_OC_STREAM && run->window == 0)
		return icb_refuse(bad, OFF_WINDOW);
	if (run->pattern == ICB_OC_BULK && (run->window == 0 || run->window > max))
		return icb_refuse(bad, OFF_WINDOW);
	return ICB_OC_OK;
}

int icb_oc_check(const struct icb_oc_chip *c, const struct icb_oc_side *s,
		 const struct icb_oc_run *run, uint32_t *bad)
{
	uint32_t max = c->max_size < s->buf_cap ? c->max_size : s->buf_cap;

	if (run->region >= c->nregions)
		return icb_refuse(bad, OFF_REGION);
	if (!(run->notify & c->notify) || (run->notify & (run->notify - 1u)))
		return icb_refuse(bad, OFF_NOTIFY);
	/* raw samples need the caller's room for every one */
	if ((run->flags & ICB_OC_RAW) && (!s->raw || run->count > s->raw_cap))
		return icb_refuse(bad, OFF_FLAGS);
	return icb_oc_fits(s, run, max, bad);
}

/* --- behind the responder ----------------------------------------------- */

int icb_oc_serve(void *ctx, struct icb_responder *r, const struct icb_frame *f)
{
	struct icb_oc_initiator *in = ctx;
	struct icb_oc_outcome out;
	struct icb_oc_run run;
	size_t len;

	if (f->type == ICB_T_CHIP) {
		len = icb_oc_chip_encode(in->chip, in->msg, in->msg_cap);
		if (!len)
			return 0;
		icb_responder_reply(r, f, ICB_T_CHIP, in->msg, len);
		return 1;
	}
	if (f->type != ICB_T_RUN)
		return 0;
	memset(&out, 0, sizeof(out));
	if (icb_oc_run_decode(f->payload, f->payload_len, &run, &out.detail)) {
		out.status = ICB_OC_UNSUPPORTED;
		icb_hist_reset(in->hist);
	} else {
		icb_oc_initiate(in->side, in->chip, &run, in->hist, &out);
	}
	if (out.status == ICB_OC_OK && (run.flags & ICB_OC_RAW))
		len = icb_oc_result_encode_raw(&out, in->hist, in->side->raw, in->side->raw_n,
					       in->msg, in->msg_cap);
	else
		len = icb_oc_result_encode(&out, in->hist, in->msg, in->msg_cap);
	if (!len)
		return 0;
	icb_responder_reply(r, f, ICB_T_RESULT, in->msg, len);
	return 1;
}
