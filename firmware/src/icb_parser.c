/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Incremental icb frame parser.  See icb_parser.h.
 *
 * The state is the candidate held in buf: empty, or starting with the first
 * magic byte.  What to check next follows from how many bytes are held (2:
 * second magic byte, 12: header, 16 + len: CRC), so a rescan after an error is
 * the same code as fresh input.
 */
#include <string.h>

#include "icb_parser.h"

enum {
	ICB_PENDING_NONE = 0,
	ICB_PENDING_CONSUME,	/* a frame was reported: remove it, keep what follows */
	ICB_PENDING_DROP,	/* an error was reported: drop the first byte, rescan */
};

int icb_parser_init(struct icb_parser *p, uint8_t *buf, size_t cap)
{
	if (!p || !buf || cap < ICB_OVERHEAD)
		return -ICB_EINVAL;
	p->buf = buf;
	p->cap = cap;
	p->max_body = cap - ICB_OVERHEAD;
	if (p->max_body > ICB_MAX_BODY)
		p->max_body = ICB_MAX_BODY;
	p->len = 0;
	p->garbage = 0;
	p->pending = ICB_PENDING_NONE;
	p->frame_len = 0;
	return 0;
}

size_t icb_parser_buffered(const struct icb_parser *p)
{
	if (p->pending == ICB_PENDING_CONSUME)
		return p->len - p->frame_len;
	if (p->pending == ICB_PENDING_DROP)
		return p->len - 1;
	return p->len;
}

size_t icb_parser_reset(struct icb_parser *p)
{
	size_t n = icb_parser_buffered(p);

	p->len = 0;
	p->garbage = 0;
	p->pending = ICB_PENDING_NONE;
	return n;
}

/* Drop the first k held bytes as garbage */
static void icb_parser_drop(struct icb_parser *p, size_t k)
{
	memmove(p->buf, p->buf + k, p->len - k);
	p->len -= k;
	p->garbage += k;
}

/* Make buf empty or a candidate that starts with the first magic byte */
static void icb_parser_rescan(struct icb_parser *p)
{
	size_t i = 0;

	while (i < p->len && p->buf[i] != ICB_MAGIC0)
		i++;
	if (i)
		icb_parser_drop(p, i);
}

static int icb_parser_garbage(struct icb_parser *p, struct icb_event *ev)
{
	if (!p->garbage)
		return 0;
	ev->kind = ICB_EV_ERROR;
	ev->err = -ICB_EGARBAGE;
	ev->garbage = p->garbage;
	p->garbage = 0;
	return 1;
}

/*
 * Look at the held candidate.  Returns 0 if a valid frame of *need bytes
 * starts buf, a negated error if invalid, or 1 with the length to reach in
 * *need.
 */
static int icb_parser_assess(const struct icb_parser *p, size_t *need)
{
	size_t body, end;
	int err;

	if (p->len < 2) {
		*need = 2;
		return 1;
	}
	if (p->buf[1] != ICB_MAGIC1)
		return -ICB_EMAGIC;
	if (p->len < ICB_HEADER_LEN) {
		*need = ICB_HEADER_LEN;
		return 1;
	}
	err = icb_header_check(p->buf, p->len, p->max_body, &body);
	if (err)
		return err;
	end = ICB_HEADER_LEN + body;
	if (p->len < end + ICB_CRC_LEN) {
		*need = end + ICB_CRC_LEN;
		return 1;
	}
	if (icb_get_le32(p->buf + end) != icb_crc32(ICB_CRC_INIT, p->buf, end))
		return -ICB_ECRC;
	*need = end + ICB_CRC_LEN;
	return 0;
}

size_t icb_parser_step(struct icb_parser *p, const uint8_t *in, size_t n,
		       struct icb_event *ev)
{
	size_t used = 0;

	ev->kind = ICB_EV_NONE;
	ev->err = 0;
	ev->garbage = 0;
	if (p->pending == ICB_PENDING_CONSUME) {
		memmove(p->buf, p->buf + p->frame_len, p->len - p->frame_len);
		p->len -= p->frame_len;
	} else if (p->pending == ICB_PENDING_DROP)
		icb_parser_drop(p, 1);
	p->pending = ICB_PENDING_NONE;

	for (;;) {
		size_t need = 0, take;
		int r;

		icb_parser_rescan(p);
		if (p->len == 0) {
			const uint8_t *m = n > used ? memchr(in + used, ICB_MAGIC0, n - used) : NULL;

			if (!m) {
				p->garbage += n - used;
				icb_parser_garbage(p, ev);
				return n;
			}
			p->garbage += (size_t)(m - (in + used));
			used = (size_t)(m - in) + 1;
			p->buf[0] = ICB_MAGIC0;
			p->len = 1;
		}
		if (icb_parser_garbage(p, ev))
			return used;

		r = icb_parser_assess(p, &need);
		if (r == -ICB_EMAGIC) {
			/* a lone first magic byte is garbage, not an error */
			icb_parser_drop(p, 1);
		} else if (r == 1) {
			if (used == n)
				return used;
			take = need - p->len;
			if (take > n - used)
				take = n - used;
			memcpy(p->buf + p->len, in + used, take);
			p->len += take;
			used += take;
		} else if (r < 0) {
			p->pending = ICB_PENDING_DROP;
			ev->kind = ICB_EV_ERROR;
			ev->err = r;
			return used;
		} else {
			p->pending = ICB_PENDING_CONSUME;
			p->frame_len = need;
			ev->kind = ICB_EV_FRAME;
			icb_frame_view(p->buf, &ev->frame);
			return used;
		}
	}
}
