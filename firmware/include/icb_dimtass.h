/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The seed format of dimtass/stm32mp1-rpmsg-test (docs/protocol.md §3), peer
 * side: a packed header {u16 preamble = 0xABCD, u16 length, u16 crc16} at the
 * start of a transfer of `length` bytes (header included); once that many bytes
 * have been counted, reply with the 2-byte little-endian `length`.  crc16 is
 * never checked, as in the seed firmware.
 *
 * Unlike the seed (which looked for the preamble at the start of every rpmsg
 * message) this counter works on a byte stream cut anywhere: it hunts for the
 * preamble, counts exactly max(length, 6) bytes, and bytes after that start the
 * next transfer.
 */
#ifndef ICB_DIMTASS_H
#define ICB_DIMTASS_H

#include <stddef.h>
#include <stdint.h>

#define ICB_DIMTASS_PREAMBLE	0xABCDu
#define ICB_DIMTASS_HEADER_LEN	6u
#define ICB_DIMTASS_REPLY_LEN	2u

struct icb_dimtass {
	uint8_t hdr[ICB_DIMTASS_HEADER_LEN];	/* header bytes seen so far */
	size_t have;		/* bytes of the current transfer counted */
	size_t target;		/* bytes to count; 0 while reading a header */
	uint16_t length;	/* the header's length field */
};

enum icb_dimtass_event_kind {
	ICB_DIMTASS_NONE = 0,	/* need more input */
	ICB_DIMTASS_REPLY,	/* transfer complete: reply with ev->length */
	ICB_DIMTASS_GARBAGE,	/* ev->garbage bytes skipped looking for a preamble */
};

struct icb_dimtass_event {
	int kind;		/* enum icb_dimtass_event_kind */
	uint16_t length;
	size_t garbage;
};

void icb_dimtass_init(struct icb_dimtass *d);

/*
 * Consume a prefix of in[0..n); report at most one event.  Returns the bytes
 * consumed; call again with the rest.
 */
size_t icb_dimtass_step(struct icb_dimtass *d, const uint8_t *in, size_t n,
			struct icb_dimtass_event *ev);

/* The reply for a transfer of `length` bytes */
void icb_dimtass_reply(uint16_t length, uint8_t out[ICB_DIMTASS_REPLY_LEN]);

#endif /* ICB_DIMTASS_H */
