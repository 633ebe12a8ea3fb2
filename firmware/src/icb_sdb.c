/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Remote side of the sdb link: the buffer table Linux announces, and the
 * fill / check / copy commands (icb_sdb.h has the message formats).
 */
#include "icb_sdb.h"

#include <string.h>

void icb_sdb_init(struct icb_sdb *s, const struct icb_sdb_platform *plat)
{
	memset(s, 0, sizeof(*s));
	s->plat = *plat;
}

void icb_sdb_reset(struct icb_sdb *s)
{
	memset(s->buf, 0, sizeof(s->buf));
}

void icb_sdb_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = icb_sdb_byte(seed, i);
}

uint32_t icb_sdb_check(const uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != icb_sdb_byte(seed, i))
			return i;
	return len;
}

static size_t icb_sdb_put_hex8(char *out, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	int k;

	for (k = 7; k >= 0; k--) {
		out[k] = digits[v & 0xfu];
		v >>= 4;
	}
	return 8;
}

size_t icb_sdb_report(char *out, uint32_t id, uint32_t len)
{
	char dec[10];
	size_t n = 0, d = 0;

	out[n++] = 'B';
	do {
		dec[d++] = (char)('0' + id % 10u);
		id /= 10u;
	} while (id && d < sizeof(dec));
	while (d)
		out[n++] = dec[--d];
	out[n++] = 'L';
	n += icb_sdb_put_hex8(out + n, len);
	return n;
}

/* A cursor over one message. */
struct icb_sdb_cur {
	const uint8_t *p, *end;
};

static int icb_sdb_digit(uint8_t c, unsigned base)
{
	int v = -1;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (base == 16 && c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (base == 16 && c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	return v;
}

/* The tag letter `tag`, then a number in `base` (at least one digit). */
static int icb_sdb_field(struct icb_sdb_cur *c, char tag, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	if (c->p >= c->end || *c->p != (uint8_t)tag)
		return -1;
	c->p++;
	while (c->p < c->end && (d = icb_sdb_digit(*c->p, base)) >= 0) {
		if (v > (~(uint64_t)0 >> 4))
			return -1;
		v = v * base + (uint64_t)d;
		c->p++;
		n++;
	}
	*out = v;
	return n ? 0 : -1;
}

/* Trailing NULs (a C string sent with its terminator) are allowed. */
static int icb_sdb_at_end(struct icb_sdb_cur *c)
{
	while (c->p < c->end && *c->p == 0)
		c->p++;
	return c->p == c->end;
}

static struct icb_sdb_buf *icb_sdb_lookup(struct icb_sdb *s, uint64_t id, uint64_t len)
{
	struct icb_sdb_buf *b;

	if (id >= ICB_SDB_MAX_BUFS)
		return NULL;
	b = &s->buf[id];
	if (!b->mem || len > b->size)
		return NULL;
	return b;
}

static int icb_sdb_reply(struct icb_sdb *s, uint64_t id, uint32_t len)
{
	char out[ICB_SDB_REPORT_MAX];
	size_t n = icb_sdb_report(out, (uint32_t)id, len);

	return s->plat.send(s->plat.ctx, out, n) ? ICB_SDB_SEND_FAILED : ICB_SDB_OK;
}

static void icb_sdb_maybe_corrupt(struct icb_sdb *s, uint8_t *p, uint32_t len)
{
	if (len && s->plat.corrupt && s->plat.corrupt(s->plat.ctx))
		p[len / 2] ^= 0x5au;
}

int icb_sdb_input(struct icb_sdb *s, const uint8_t *msg, size_t len)
{
	struct icb_sdb_cur c = { msg, msg + len };
	struct icb_sdb_buf *b, *to;
	uint64_t id, id2, addr, n, seed;
	uint32_t got;
	char kind;

	if (!len)
		goto bad;
	kind = (char)msg[0];
	switch (kind) {
	case 'B':	/* ST's announcement: B<id>A<addr>L<size> */
		if (icb_sdb_field(&c, 'B', 10, &id) || icb_sdb_field(&c, 'A', 16, &addr) ||
		    icb_sdb_field(&c, 'L', 16, &n) || !icb_sdb_at_end(&c) ||
		    id >= ICB_SDB_MAX_BUFS || n > 0xffffffffu)
			goto bad;
		b = &s->buf[id];
		b->addr = addr;
		b->size = (uint32_t)n;
		b->mem = s->plat.map(s->plat.ctx, addr, (uint32_t)n);
		if (!b->mem)
			goto bad;
		s->st.announced++;
		return ICB_SDB_OK;
	case 'F':
	case 'C':
		if (icb_sdb_field(&c, kind, 10, &id) || icb_sdb_field(&c, 'L', 16, &n) ||
		    icb_sdb_field(&c, 'S', 16, &seed) || !icb_sdb_at_end(&c))
			goto bad;
		b = icb_sdb_lookup(s, id, n);
		if (!b) {
			s->st.bad_msgs++;
			return ICB_SDB_BAD_BUF;
		}
		if (kind == 'F') {
			icb_sdb_fill(b->mem, (uint32_t)n, (uint32_t)seed);
			icb_sdb_maybe_corrupt(s, b->mem, (uint32_t)n);
			s->st.fills++;
			return icb_sdb_reply(s, id, (uint32_t)n);
		}
		/* the fault hook damages what the remote reads, as a bad
		 * transfer would: the check then names the byte */
		icb_sdb_maybe_corrupt(s, b->mem, (uint32_t)n);
		got = icb_sdb_check(b->mem, (uint32_t)n, (uint32_t)seed);
		s->st.checks++;
		if (got != n)
			s->st.check_failures++;
		return icb_sdb_reply(s, id, got);
	case 'E':
		if (icb_sdb_field(&c, 'E', 10, &id) || icb_sdb_field(&c, 'T', 10, &id2) ||
		    icb_sdb_field(&c, 'L', 16, &n) || !icb_sdb_at_end(&c))
			goto bad;
		b = icb_sdb_lookup(s, id, n);
		to = icb_sdb_lookup(s, id2, n);
		if (!b || !to) {
			s->st.bad_msgs++;
			return ICB_SDB_BAD_BUF;
		}
		memmove(to->mem, b->mem, (size_t)n);
		icb_sdb_maybe_corrupt(s, to->mem, (uint32_t)n);
		s->st.copies++;
		return icb_sdb_reply(s, id2, (uint32_t)n);
	default:
		break;
	}
bad:
	s->st.bad_msgs++;
	return ICB_SDB_BAD_MSG;
}
