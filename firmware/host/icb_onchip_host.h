/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The on-chip benchmark's host port (issue #16, item 5): initiator and
 * agent as two pinned threads of one Linux process over the same ring
 * code an MCU runs, so that the C library's timings are real on SMP Linux.
 *
 * Regions: "ram0" and "ram1", two separately allocated blocks (both
 * ordinary cached memory: on a host they differ only in placement).
 * Timer: CLOCK_MONOTONIC_RAW in ns, cut to 32 bits (wraps every 4.29 s;
 * one wait is bounded to 2.1 s).  Notify: poll (spin) or doorbell (a
 * futex per direction, FUTEX_WAKE on send).
 */
#ifndef ICB_ONCHIP_HOST_H
#define ICB_ONCHIP_HOST_H

#include "icb_onchip.h"

struct icb_host_onchip;

/*
 * Start the agent thread on cpu_agent and pin the caller to cpu_init
 * (negative: leave unpinned); `labels` ("key=value\n" lines, or NULL) are
 * added to the CHIP record's.  Returns NULL with a message on stderr when
 * memory, the thread or a pinning is refused.  Install the returned
 * initiator with icb_responder_set_extra(r, icb_oc_serve, init).
 */
struct icb_host_onchip *icb_host_onchip_start(int cpu_init, int cpu_agent, const char *labels,
					      struct icb_oc_initiator **init);

#endif /* ICB_ONCHIP_HOST_H */
