/* SPDX-License-Identifier: GPL-2.0 */
/* memcpy, memmove, memset, memcmp: the kernel's lib/string.c. */
#include <linux/string.h>
