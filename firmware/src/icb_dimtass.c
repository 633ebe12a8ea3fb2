/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * dimtass seed format, peer side.  See icb_dimtass.h.  Mirrors the Rust
 * icbench_proto::dimtass::Counter.
 */
#include "icb_dimtass.h"

#define P0	(ICB_DIMTASS_PREAMBLE & 0xffu)
#define P1	(ICB_DIMTASS_PREAMBLE >> 8)

void icb_dimtass_init(struct icb_dimtass *d)
{
	d->have = 0;
	d->target = 0;
	d->length = 0;
}

size_t icb_dimtass_step(struct icb_dimtass *d, const uint8_t *in, size_t n,
			struct icb_dimtass_event *ev)
{
	size_t used = 0, garbage = 0, take;

	ev->kind = ICB_DIMTASS_NONE;
	ev->length = 0;
	ev->garbage = 0;
	while (d->target == 0) {
		uint8_t b;
		int ok;

		if (used == n)
			break;
		b = in[used++];
		ok = d->have == 0 ? b == P0 : d->have == 1 ? b == P1 : 1;
		if (!ok) {
			/* a lone first preamble byte is dropped; look at b again */
			garbage += d->have;
			d->have = 0;
			if (b == P0) {
				d->hdr[0] = b;
				d->have = 1;
			} else {
				garbage++;
			}
			continue;
		}
		d->hdr[d->have++] = b;
		if (d->have == ICB_DIMTASS_HEADER_LEN) {
			d->length = (uint16_t)(d->hdr[2] | (d->hdr[3] << 8));
			d->target = d->length > ICB_DIMTASS_HEADER_LEN ?
				    d->length : ICB_DIMTASS_HEADER_LEN;
		}
	}
	if (garbage) {
		ev->kind = ICB_DIMTASS_GARBAGE;
		ev->garbage = garbage;
		return used;
	}
	if (d->target == 0)
		return used;
	take = d->target - d->have;
	if (take > n - used)
		take = n - used;
	d->have += take;
	used += take;
	if (d->have == d->target) {
		ev->kind = ICB_DIMTASS_REPLY;
		ev->length = d->length;
		d->have = 0;
		d->target = 0;
	}
	return used;
}

void icb_dimtass_reply(uint16_t length, uint8_t out[ICB_DIMTASS_REPLY_LEN])
{
	out[0] = (uint8_t)(length & 0xffu);
	out[1] = (uint8_t)(length >> 8);
}
