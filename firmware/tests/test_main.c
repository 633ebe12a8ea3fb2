/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Host unit tests of the icb firmware library.
 * Usage: icb-tests GOLDEN_DIR   (testdata/frames; the Makefile passes it)
 */
#include <stdio.h>

#include "icbt.h"

int icbt_check(struct icbt_counts *c, int ok, const char *expr, const char *file, int line)
{
	if (ok) {
		c->passed++;
	} else {
		c->failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
	}
	return ok;
}

void icbt_pattern(uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(i & 0xffu);
}

int main(int argc, char **argv)
{
	struct icbt_counts c = { 0, 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
		return 2;
	}
	test_frame(&c);
	test_parser(&c);
	test_dimtass(&c);
	test_responder(&c);
	test_sdb(&c);
	test_rpmsg(&c);
	test_session(&c);
	test_golden(&c, argv[1]);
	test_onchip(&c);
	printf("%lu passed, %lu failed\n", c.passed, c.failed);
	return c.failed ? 1 : 0;
}
