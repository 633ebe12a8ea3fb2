/* SPDX-License-Identifier: GPL-2.0 */
/* uint8_t … uint64_t come from linux/types.h (see shim/stddef.h). */
#include <linux/types.h>
