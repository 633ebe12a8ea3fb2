/* SPDX-License-Identifier: GPL-2.0 */
/* The portable firmware (firmware/) includes the C library's headers; in the
 * kernel these map onto the kernel's own (kernel builds use -nostdinc). */
#include <linux/stddef.h>
#include <linux/types.h>
