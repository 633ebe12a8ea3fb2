/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * icb frames, version 1: layout, encode, decode, CRC (docs/protocol.md §1).
 *
 *  0      2   3   4   5   6      8              12            12+len   16+len
 *  | magic|ver|typ|flg|chn| len  |     seq      | body (len)  | crc32  |
 *
 * body = [timestamps, 24 bytes, if ICB_F_TS] [fragment record, 8 bytes, if ICB_F_FRAG]
 *        [payload].  Little-endian; CRC-32/MPEG-2 over header and body.
 *
 * Pure functions over caller buffers: no allocation, no globals.
 */
#ifndef ICB_FRAME_H
#define ICB_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ICB_MAGIC0		0xCBu
#define ICB_MAGIC1		0x1Cu
#define ICB_VERSION		1u
#define ICB_HEADER_LEN		12u
#define ICB_CRC_LEN		4u
#define ICB_OVERHEAD		(ICB_HEADER_LEN + ICB_CRC_LEN)
#define ICB_TS_LEN		24u
#define ICB_FRAG_LEN		8u
#define ICB_MAX_BODY		65535u
#define ICB_MAX_FRAME		(ICB_MAX_BODY + ICB_OVERHEAD)
#define ICB_RPMSG_MTU		496u	/* 512-byte virtio rpmsg buffer - 16-byte header */
#define ICB_MIN_MAX_FRAME	64u	/* every responder accepts a HELLO this large */

/* Frame types (§1.2) */
enum icb_type {
	ICB_T_HELLO = 1,
	ICB_T_CAPS = 2,
	ICB_T_ECHO = 3,
	ICB_T_DATA = 4,
	ICB_T_ACK = 5,
	ICB_T_CREDIT = 6,
	ICB_T_STATS = 7,
	ICB_T_TIME = 8,
	ICB_T_ERROR = 9,
};

/* Flags (§1.3) */
#define ICB_F_REPLY		0x01u	/* sent by the responder */
#define ICB_F_TS		0x02u	/* timestamp block present */
#define ICB_F_FRAG		0x04u	/* fragment record present */
#define ICB_F_ACK_REQ		0x08u	/* DATA: answer with an ACK */
#define ICB_F_RESERVED		0xF0u	/* must be zero in version 1 */

/*
 * Error codes (§1.8), shared with the Rust crate and the ERROR frame.
 * Functions return them negated; 0 is success.
 */
enum icb_err {
	ICB_OK = 0,
	ICB_ETRUNC = 1,		/* buffer ends inside a frame */
	ICB_EMAGIC = 2,		/* does not start with the magic */
	ICB_EVERSION = 3,	/* version byte is not 1 */
	ICB_EFLAGS = 4,		/* reserved flag bit set */
	ICB_ETOOLONG = 5,	/* len above the receiver's limit, or output too small */
	ICB_ELENGTH = 6,	/* len shorter than the extensions the flags announce */
	ICB_ECRC = 7,		/* CRC mismatch */
	ICB_EGARBAGE = 8,	/* bytes outside any frame skipped */
	ICB_ETRAILING = 9,	/* bytes after one complete frame */
	ICB_EUNSUPPORTED = 10,	/* well-formed frame the responder does not serve */
	ICB_ENOSPC = 11,	/* reply does not fit the responder's buffer */
	ICB_ESEND = 12,		/* the platform's send hook failed */
	ICB_EINVAL = 13,	/* bad argument (API misuse) */
};

/* Timestamp block, in ticks of the sender's clock (§1.4) */
struct icb_ts {
	uint64_t t_origin;	/* requester, before sending; copied to replies */
	uint64_t t_rx;		/* responder, when the frame had been parsed */
	uint64_t t_tx;		/* responder, before sending the reply */
};

/*
 * A frame whose payload points into some buffer.  On encode the ICB_F_TS and
 * ICB_F_FRAG bits of flags are ignored: has_ts and has_frag decide.
 */
struct icb_frame {
	uint8_t type;
	uint8_t flags;
	uint8_t chan;
	uint32_t seq;
	int has_ts;
	struct icb_ts ts;
	int has_frag;
	uint32_t msg_len;	/* fragment: whole message length */
	uint32_t offset;	/* fragment: offset of this payload in the message */
	const uint8_t *payload;
	size_t payload_len;
};

/* CRC-32/MPEG-2: start with ICB_CRC_INIT, feed bytes, no final XOR */
#define ICB_CRC_INIT		0xFFFFFFFFu
uint32_t icb_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* Little-endian helpers */
void icb_put_le16(uint8_t *p, uint16_t v);
void icb_put_le32(uint8_t *p, uint32_t v);
void icb_put_le64(uint8_t *p, uint64_t v);
uint16_t icb_get_le16(const uint8_t *p);
uint32_t icb_get_le32(const uint8_t *p);
uint64_t icb_get_le64(const uint8_t *p);

/* Bytes of extensions (timestamps, fragment record) that flags announce */
size_t icb_ext_len(uint8_t flags);

/* Whole encoded length of f, header and CRC included */
size_t icb_frame_len(const struct icb_frame *f);

/*
 * Encode f into out[0..cap).  On success stores the frame length in *len and
 * returns 0; -ICB_ETOOLONG if the body exceeds 65535 bytes or cap is too small.
 */
int icb_frame_encode(const struct icb_frame *f, uint8_t *out, size_t cap, size_t *len);

/*
 * Check the 12-byte header at buf (n >= ICB_HEADER_LEN) in the shared order:
 * magic, version, reserved flags, len <= max_body, len >= extensions.
 * Returns 0 and the body length in *body_len, or a negated error.
 */
int icb_header_check(const uint8_t *buf, size_t n, size_t max_body, size_t *body_len);

/*
 * Decode the frame at the start of buf[0..n) (no scanning).  On success fills
 * *f (payload points into buf), stores the frame length in *used and returns 0.
 * Errors: -ICB_ETRUNC, -ICB_EMAGIC, -ICB_EVERSION, -ICB_EFLAGS, -ICB_ETOOLONG,
 * -ICB_ELENGTH, -ICB_ECRC.
 */
int icb_frame_decode(const uint8_t *buf, size_t n, size_t max_body,
		     struct icb_frame *f, size_t *used);

/* Fill *f from a complete frame already checked by icb_header_check and CRC */
void icb_frame_view(const uint8_t *buf, struct icb_frame *f);

/* Message for an error code (either sign); "unknown error" otherwise */
const char *icb_strerror(int err);

/* Short lower-case name of an error code, as in testdata/frames/manifest.txt */
const char *icb_errname(int err);

#endif /* ICB_FRAME_H */
