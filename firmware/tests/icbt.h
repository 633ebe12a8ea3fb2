/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * A tiny test harness for the host unit tests: CHECK counts and reports,
 * the runner prints "N passed, M failed".
 */
#ifndef ICBT_H
#define ICBT_H

#include <stddef.h>
#include <stdint.h>

struct icbt_counts {
	unsigned long passed;
	unsigned long failed;
};

/* Record one check; prints file:line and the expression when it fails */
int icbt_check(struct icbt_counts *c, int ok, const char *expr, const char *file, int line);

#define CHECK(c, cond) icbt_check((c), !!(cond), #cond, __FILE__, __LINE__)

/* Suites */
void test_frame(struct icbt_counts *c);
void test_parser(struct icbt_counts *c);
void test_dimtass(struct icbt_counts *c);
void test_responder(struct icbt_counts *c);
void test_golden(struct icbt_counts *c, const char *dir);
void test_onchip(struct icbt_counts *c);
void test_sdb(struct icbt_counts *c);
void test_rpmsg(struct icbt_counts *c);
void test_session(struct icbt_counts *c);

/* Helpers shared by the suites */
void icbt_pattern(uint8_t *buf, size_t n);

#endif /* ICBT_H */
