/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The golden frames of testdata/frames (docs/protocol.md §5), also checked by
 * crates/icbench-proto/tests/golden.rs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icb_parser.h"
#include "icbt.h"

#define MAX_VEC		(ICB_MAX_FRAME + 1024)
#define MAX_LINE	1024

static uint8_t bytes[MAX_VEC], want[MAX_VEC], payload[MAX_VEC];
static uint8_t pbuf[ICB_MAX_FRAME];

/* Value of key=value in the words of a manifest line, or NULL */
static const char *field(char *const *words, int nwords, const char *key)
{
	size_t k = strlen(key);
	int i;

	for (i = 2; i < nwords; i++)
		if (strncmp(words[i], key, k) == 0 && words[i][k] == '=')
			return words[i] + k + 1;
	return NULL;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Hex text (whitespace ignored) into out; returns the byte count or -1 */
static long unhex(FILE *fp, const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (;;) {
		int ch = fp ? fgetc(fp) : *s++;
		int v;

		if (ch == EOF || ch == '\0')
			break;
		if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
			continue;
		v = hexval(ch);
		if (v < 0 || n >= cap)
			return -1;
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return hi < 0 ? (long)n : -1;
}

static long read_hex(const char *dir, const char *name, uint8_t *out, size_t cap)
{
	char path[MAX_LINE];
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	n = unhex(fp, NULL, out, cap);
	fclose(fp);
	return n;
}

/* Build the frame a manifest line describes */
static int build(char *const *w, int nw, struct icb_frame *f)
{
	const char *s;

	memset(f, 0, sizeof(*f));
	f->type = (uint8_t)strtoul(field(w, nw, "type"), NULL, 0);
	f->flags = (uint8_t)strtoul(field(w, nw, "flags"), NULL, 0);
	f->chan = (uint8_t)strtoul(field(w, nw, "chan"), NULL, 0);
	f->seq = (uint32_t)strtoul(field(w, nw, "seq"), NULL, 0);
	s = field(w, nw, "ts");
	if (s) {
		unsigned long long t[3];

		f->has_ts = 1;
		if (sscanf(s, "%llu,%llu,%llu", &t[0], &t[1], &t[2]) != 3)
			return -1;
		f->ts.t_origin = t[0];
		f->ts.t_rx = t[1];
		f->ts.t_tx = t[2];
	}
	s = field(w, nw, "frag");
	if (s) {
		unsigned long a, b;

		f->has_frag = 1;
		if (sscanf(s, "%lu,%lu", &a, &b) != 2)
			return -1;
		f->msg_len = (uint32_t)a;
		f->offset = (uint32_t)b;
	}
	s = field(w, nw, "payload");
	if (!s)
		return -1;
	if (strncmp(s, "pat:", 4) == 0) {
		f->payload_len = strtoul(s + 4, NULL, 10);
		icbt_pattern(payload, f->payload_len);
	} else {
		long n = unhex(NULL, s, payload, sizeof(payload));

		if (n < 0)
			return -1;
		f->payload_len = (size_t)n;
	}
	f->payload = payload;
	return 0;
}

static int same_frame(const struct icb_frame *a, const struct icb_frame *b)
{
	return a->type == b->type && a->flags == b->flags && a->chan == b->chan &&
	       a->seq == b->seq && a->has_ts == b->has_ts && a->has_frag == b->has_frag &&
	       (!a->has_ts || memcmp(&a->ts, &b->ts, sizeof(a->ts)) == 0) &&
	       (!a->has_frag || (a->msg_len == b->msg_len && a->offset == b->offset)) &&
	       a->payload_len == b->payload_len &&
	       memcmp(a->payload, b->payload, a->payload_len) == 0;
}

struct outcome {
	unsigned frames;
	char errors[128];
	size_t garbage;
};

/* Feed data as two pieces cut at `cut`, or bytewise if cut is (size_t)-1 */
static void stream(const uint8_t *data, size_t n, size_t cut, struct outcome *o)
{
	struct icb_parser p;
	struct icb_event ev;
	size_t at = 0;

	memset(o, 0, sizeof(*o));
	icb_parser_init(&p, pbuf, sizeof(pbuf));
	while (at < n || at == 0) {
		size_t len = cut == (size_t)-1 ? 1 : (at < cut ? cut : n - at);
		const uint8_t *in = data + at;

		at += len;
		for (;;) {
			size_t used = icb_parser_step(&p, in, len, &ev);

			in += used;
			len -= used;
			if (ev.kind == ICB_EV_FRAME) {
				o->frames++;
			} else if (ev.kind == ICB_EV_ERROR && ev.err == -ICB_EGARBAGE) {
				o->garbage += ev.garbage;
			} else if (ev.kind == ICB_EV_ERROR) {
				if (o->errors[0])
					strncat(o->errors, ",", sizeof(o->errors) - strlen(o->errors) - 1);
				strncat(o->errors, icb_errname(ev.err),
					sizeof(o->errors) - strlen(o->errors) - 1);
			} else if (len == 0) {
				break;
			}
		}
		if (n == 0)
			break;
	}
}

static void check_ok(struct icbt_counts *c, char *const *w, int nw, size_t n)
{
	struct icb_frame f, g;
	struct outcome o;
	size_t len = 0, used = 0, cut;
	int splits_ok = 1;

	if (!CHECK(c, build(w, nw, &f) == 0))
		return;
	CHECK(c, icb_frame_encode(&f, want, sizeof(want), &len) == 0);
	if (!CHECK(c, len == n && memcmp(want, bytes, n) == 0))
		fprintf(stderr, "  golden %s: encode differs\n", w[0]);
	if (!CHECK(c, icb_frame_decode(bytes, n, ICB_MAX_BODY, &g, &used) == 0 && used == n &&
		   same_frame(&f, &g)))
		fprintf(stderr, "  golden %s: decode differs\n", w[0]);
	for (cut = 0; cut <= n; cut++) {
		stream(bytes, n, cut, &o);
		splits_ok &= o.frames == 1 && o.garbage == 0 && !o.errors[0];
	}
	if (!CHECK(c, splits_ok))
		fprintf(stderr, "  golden %s: stream parse differs\n", w[0]);
}

static void check_err(struct icbt_counts *c, char *const *w, int nw, size_t n)
{
	const char *mx = field(w, nw, "max");
	size_t max = mx ? strtoul(mx, NULL, 10) : ICB_MAX_BODY;
	struct icb_frame f;
	size_t used = 0;
	int err = icb_frame_decode(bytes, n, max, &f, &used);

	if (err == 0 && used != n)
		err = -ICB_ETRAILING;
	if (!CHECK(c, err != 0 && strcmp(icb_errname(err), w[1]) == 0))
		fprintf(stderr, "  golden %s: got %s, want %s\n", w[0], icb_errname(err), w[1]);
}

static void check_stream(struct icbt_counts *c, char *const *w, int nw, size_t n)
{
	unsigned frames = (unsigned)strtoul(field(w, nw, "frames"), NULL, 10);
	size_t garbage = strtoul(field(w, nw, "garbage"), NULL, 10);
	const char *errors = field(w, nw, "errors");
	struct outcome o;
	size_t cut;
	int ok = 1;

	stream(bytes, n, (size_t)-1, &o);
	ok &= o.frames == frames && o.garbage == garbage && strcmp(o.errors, errors) == 0;
	for (cut = 0; cut <= n; cut++) {
		stream(bytes, n, cut, &o);
		ok &= o.frames == frames && o.garbage == garbage && strcmp(o.errors, errors) == 0;
	}
	if (!CHECK(c, ok))
		fprintf(stderr, "  golden %s: frames %u errors %s garbage %lu\n", w[0],
			o.frames, o.errors, (unsigned long)o.garbage);
}

void test_golden(struct icbt_counts *c, const char *dir)
{
	char path[MAX_LINE], line[MAX_LINE];
	unsigned vectors = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/manifest.txt", dir);
	fp = fopen(path, "r");
	if (!CHECK(c, fp != NULL)) {
		fprintf(stderr, "  cannot open %s\n", path);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *w[16];
		int nw = 0;
		char *tok = strtok(line, " \t\r\n");
		long n;

		while (tok && nw < 16) {
			w[nw++] = tok;
			tok = strtok(NULL, " \t\r\n");
		}
		if (nw < 3 || w[0][0] == '#')
			continue;
		n = read_hex(dir, field(w, nw, "file"), bytes, sizeof(bytes));
		if (!CHECK(c, n >= 0)) {
			fprintf(stderr, "  golden %s: cannot read %s\n", w[0], field(w, nw, "file"));
			continue;
		}
		vectors++;
		if (strcmp(w[1], "ok") == 0)
			check_ok(c, w, nw, (size_t)n);
		else if (strcmp(w[1], "stream") == 0)
			check_stream(c, w, nw, (size_t)n);
		else
			check_err(c, w, nw, (size_t)n);
	}
	fclose(fp);
	CHECK(c, vectors >= 20);
}
