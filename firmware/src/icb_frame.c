/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * icb frames v1: CRC, encode, decode.  See icb_frame.h and docs/protocol.md.
 */
#include <string.h>

#include "icb_frame.h"

/*
 * CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final XOR),
 * the reset configuration of the STM32 CRC unit: a port may replace this
 * function with the peripheral.  Software fallback: a 16-entry table, 64 bytes
 * of flash, two lookups per byte (Cortex-M has no CRC instruction).
 */
static const uint32_t icb_crc_nibble[16] = {
	0x00000000u, 0x04c11db7u, 0x09823b6eu, 0x0d4326d9u,
	0x130476dcu, 0x17c56b6bu, 0x1a864db2u, 0x1e475005u,
	0x2608edb8u, 0x22c9f00fu, 0x2f8ad6d6u, 0x2b4bcb61u,
	0x350c9b64u, 0x31cd86d3u, 0x3c8ea00au, 0x384fbdbdu,
};

uint32_t icb_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		uint8_t b = *p++;

		crc = (crc << 4) ^ icb_crc_nibble[(crc >> 28) ^ (b >> 4)];
		crc = (crc << 4) ^ icb_crc_nibble[(crc >> 28) ^ (b & 0x0fu)];
	}
	return crc;
}

void icb_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void icb_put_le32(uint8_t *p, uint32_t v)
{
	icb_put_le16(p, (uint16_t)v);
	icb_put_le16(p + 2, (uint16_t)(v >> 16));
}

void icb_put_le64(uint8_t *p, uint64_t v)
{
	icb_put_le32(p, (uint32_t)v);
	icb_put_le32(p + 4, (uint32_t)(v >> 32));
}

uint16_t icb_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t icb_get_le32(const uint8_t *p)
{
	return (uint32_t)icb_get_le16(p) | ((uint32_t)icb_get_le16(p + 2) << 16);
}

uint64_t icb_get_le64(const uint8_t *p)
{
	return (uint64_t)icb_get_le32(p) | ((uint64_t)icb_get_le32(p + 4) << 32);
}

size_t icb_ext_len(uint8_t flags)
{
	return ((flags & ICB_F_TS) ? ICB_TS_LEN : 0) +
	       ((flags & ICB_F_FRAG) ? ICB_FRAG_LEN : 0);
}

static uint8_t icb_wire_flags(const struct icb_frame *f)
{
	uint8_t flags = f->flags & (uint8_t)~(ICB_F_TS | ICB_F_FRAG);

	if (f->has_ts)
		flags |= ICB_F_TS;
	if (f->has_frag)
		flags |= ICB_F_FRAG;
	return flags;
}

size_t icb_frame_len(const struct icb_frame *f)
{
	return ICB_OVERHEAD + icb_ext_len(icb_wire_flags(f)) + f->payload_len;
}

int icb_frame_encode(const struct icb_frame *f, uint8_t *out, size_t cap, size_t *len)
{
	uint8_t flags = icb_wire_flags(f);
	size_t body = icb_ext_len(flags) + f->payload_len;
	size_t at = ICB_HEADER_LEN;

	if (body > ICB_MAX_BODY || cap < ICB_OVERHEAD + body)
		return -ICB_ETOOLONG;
	out[0] = ICB_MAGIC0;
	out[1] = ICB_MAGIC1;
	out[2] = ICB_VERSION;
	out[3] = f->type;
	out[4] = flags;
	out[5] = f->chan;
	icb_put_le16(out + 6, (uint16_t)body);
	icb_put_le32(out + 8, f->seq);
	if (f->has_ts) {
		icb_put_le64(out + at, f->ts.t_origin);
		icb_put_le64(out + at + 8, f->ts.t_rx);
		icb_put_le64(out + at + 16, f->ts.t_tx);
		at += ICB_TS_LEN;
	}
	if (f->has_frag) {
		icb_put_le32(out + at, f->msg_len);
		icb_put_le32(out + at + 4, f->offset);
		at += ICB_FRAG_LEN;
	}
	/* memmove: an echo may encode from a payload that overlaps out */
	if (f->payload_len)
		memmove(out + at, f->payload, f->payload_len);
	at += f->payload_len;
	icb_put_le32(out + at, icb_crc32(ICB_CRC_INIT, out, at));
	*len = at + ICB_CRC_LEN;
	return 0;
}

int icb_header_check(const uint8_t *buf, size_t n, size_t max_body, size_t *body_len)
{
	size_t len;

	if (n < ICB_HEADER_LEN)
		return -ICB_ETRUNC;
	if (buf[0] != ICB_MAGIC0 || buf[1] != ICB_MAGIC1)
		return -ICB_EMAGIC;
	if (buf[2] != ICB_VERSION)
		return -ICB_EVERSION;
	if (buf[4] & ICB_F_RESERVED)
		return -ICB_EFLAGS;
	len = icb_get_le16(buf + 6);
	if (max_body > ICB_MAX_BODY)
		max_body = ICB_MAX_BODY;
	if (len > max_body)
		return -ICB_ETOOLONG;
	if (len < icb_ext_len(buf[4]))
		return -ICB_ELENGTH;
	*body_len = len;
	return 0;
}

void icb_frame_view(const uint8_t *buf, struct icb_frame *f)
{
	size_t len = icb_get_le16(buf + 6);
	const uint8_t *body = buf + ICB_HEADER_LEN;
	size_t at = 0;

	memset(f, 0, sizeof(*f));
	f->type = buf[3];
	f->flags = buf[4];
	f->chan = buf[5];
	f->seq = icb_get_le32(buf + 8);
	if (f->flags & ICB_F_TS) {
		f->has_ts = 1;
		f->ts.t_origin = icb_get_le64(body);
		f->ts.t_rx = icb_get_le64(body + 8);
		f->ts.t_tx = icb_get_le64(body + 16);
		at = ICB_TS_LEN;
	}
	if (f->flags & ICB_F_FRAG) {
		f->has_frag = 1;
		f->msg_len = icb_get_le32(body + at);
		f->offset = icb_get_le32(body + at + 4);
		at += ICB_FRAG_LEN;
	}
	f->payload = body + at;
	f->payload_len = len - at;
}

int icb_frame_decode(const uint8_t *buf, size_t n, size_t max_body,
		     struct icb_frame *f, size_t *used)
{
	size_t len, end;
	int err;

	if (n >= 1 && buf[0] != ICB_MAGIC0)
		return -ICB_EMAGIC;
	if (n >= 2 && buf[1] != ICB_MAGIC1)
		return -ICB_EMAGIC;
	err = icb_header_check(buf, n, max_body, &len);
	if (err)
		return err;
	end = ICB_HEADER_LEN + len;
	if (n < end + ICB_CRC_LEN)
		return -ICB_ETRUNC;
	if (icb_get_le32(buf + end) != icb_crc32(ICB_CRC_INIT, buf, end))
		return -ICB_ECRC;
	icb_frame_view(buf, f);
	*used = end + ICB_CRC_LEN;
	return 0;
}

static const char *const icb_err_text[][2] = {
	[ICB_OK] = { "ok", "success" },
	[ICB_ETRUNC] = { "trunc", "truncated frame" },
	[ICB_EMAGIC] = { "magic", "bad magic" },
	[ICB_EVERSION] = { "version", "unsupported frame version" },
	[ICB_EFLAGS] = { "flags", "reserved flag bits set" },
	[ICB_ETOOLONG] = { "toolong", "frame longer than the limit" },
	[ICB_ELENGTH] = { "length", "body shorter than its extensions" },
	[ICB_ECRC] = { "crc", "CRC mismatch" },
	[ICB_EGARBAGE] = { "garbage", "garbage skipped" },
	[ICB_ETRAILING] = { "trailing", "bytes after the frame" },
	[ICB_EUNSUPPORTED] = { "unsupported", "frame not supported" },
	[ICB_ENOSPC] = { "nospc", "reply does not fit the buffer" },
	[ICB_ESEND] = { "send", "send failed" },
	[ICB_EINVAL] = { "inval", "invalid argument" },
};

static int icb_err_index(int err)
{
	if (err < 0)
		err = -err;
	if (err >= (int)(sizeof(icb_err_text) / sizeof(icb_err_text[0])))
		return -1;
	return err;
}

const char *icb_strerror(int err)
{
	int i = icb_err_index(err);

	return i < 0 ? "unknown error" : icb_err_text[i][1];
}

const char *icb_errname(int err)
{
	int i = icb_err_index(err);

	return i < 0 ? "unknown" : icb_err_text[i][0];
}
