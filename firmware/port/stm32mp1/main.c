/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * icbench's remote on the STM32MP157's Cortex-M4 (issue #34 item 3): the
 * icb responder and the sdb service behind rpmsg endpoints, over the
 * portable RPMsg remote library (include/icb_rpmsg.h), loaded and started
 * by Linux's remoteproc (stm32_rproc) on the Cortex-A7s.  It serves what
 * the VM rig's virtual remote serves (kernel/virtual_rproc/vrproc_serve.c),
 * under the same names and addresses, so the same Linux-side links work:
 *
 *   "rpmsg-raw"          0x400  icb responder, per Linux address (rpmsg_char)
 *   "rpmsg-tty"          0x401  icb responder, per Linux address (rpmsg_tty)
 *   "icbench-netlink"    0x402  icb responder (kernel/netlink_bridge)
 *   "rpmsg-sdb-channel"  0x403  icb_sdb: ST's stm32-rpmsg-sdb buffers
 *   "rpmsg-tty"          0x404  icb_sdb's commands (F/C/E) when Linux runs
 *                               ST's driver, which has no write(): icbench's
 *                               sdb link with cmd=/dev/ttyRPMSGn
 *
 *   memory   mp1.h, stm32mp1-cm4.ld: code in RETRAM (device address 0),
 *            the resource table, data and stack in SRAM1/2 (0x10000000);
 *            vrings and rpmsg buffers are Linux's, in SRAM3 (0x10040000)
 *   vrings   16 entries, 16-byte align, allocated by Linux in the
 *            vdev0vring0/1 carveouts; translate accepts exactly those and
 *            vdev0buffer (device address = physical = the M4's address)
 *   notify   IPCC, polled: channel 1 = vring 0, channel 2 = vring 1 both
 *            ways, channel 3 = Linux's shutdown request (mp1.h)
 *   cache    none: the Cortex-M4 of the STM32MP157 has no data cache, and
 *            the MCU SRAMs are not cached on its side, so the library's
 *            invalidate/clean hooks are NULL.  Barriers are the library's
 *            default (__atomic_thread_fence: DMB); a DSB precedes each
 *            doorbell so the used ring is written before the IPCC sees it
 *   clock    the DWT cycle counter (ck_mcu, ICB_MP1_CPU_HZ), extended to 64
 *            bits, announced as ICB_CLOCK_COUNTER
 *   trace    a 2 KiB text buffer in the resource table's trace entry:
 *            /sys/kernel/debug/remoteproc/remoteproc0/trace0
 *
 * NOT YET RUN ON A BOARD: built and size-reported only (docs/boards.md,
 * "STM32MP157 Cortex-M4").
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "icb_responder.h"
#include "icb_rpmsg.h"
#include "icb_session.h"
#include "icb_sdb.h"
#include "mp1.h"

/* Addresses and names as kernel/virtual_rproc/vrproc.h */
#define ICB_MP1_ADDR_RAW	0x400u
#define ICB_MP1_ADDR_TTY	0x401u
#define ICB_MP1_ADDR_NL		0x402u
#define ICB_MP1_ADDR_SDB	0x403u
/* Not in the VM rig: ST's stm32-rpmsg-sdb driver has no write(), so on a
 * real board icbench sends the sdb commands through a second device
 * (docs/rpmsg.md, sdb, "cmd="): a second rpmsg-tty channel, whose messages
 * go to icb_sdb (reports still go out on the sdb channel) */
#define ICB_MP1_ADDR_SDB_CMD	0x404u
#define ICB_MP1_NEPT		5u

/* The protocol each responder channel speaks (the VM rig's default: icb) */
#ifndef ICB_MP1_PROTO
#define ICB_MP1_PROTO		ICB_PROTO_ICB
#endif

/* (channel, Linux address) pairs served at once; the least recently used
 * is recycled beyond that (vrproc: 40, for reference 003's 32 channels) */
#ifndef ICB_MP1_NSESS
#define ICB_MP1_NSESS		8
#endif

#define ICB_MP1_MTU		(ICB_RPMSG_BUF_SIZE - ICB_RPMSG_HDR_SIZE)
#define ICB_MP1_TRACE_LEN	2048u

/* Bounded wait for Linux to take the previous doorbell of a channel */
#define ICB_MP1_KICK_SPIN	2000000u

struct icb_mp1_stats {
	uint32_t kicks_in[5];		/* doorbells from Linux per channel (1..4) */
	uint32_t kicks_out;		/* doorbells to Linux */
	uint32_t kick_busy;		/* doorbells whose channel Linux had not freed in time */
	uint32_t kick_bad_id;		/* kick hook called with a notifyid other than 0, 1 */
	uint32_t send_waits;		/* sends that waited for a host buffer */
	uint32_t send_errors;		/* sends refused (too long) */
	uint32_t sdb_errors;
};

struct icb_mp1 {
	struct icb_rpmsg rp;
	struct icb_rpmsg_ept epts[ICB_MP1_NEPT];
	uint8_t scratch[ICB_MP1_MTU];
	struct icb_session sess[ICB_MP1_NSESS];
	struct icb_sessions sessions;	/* its evicted count: sessions recycled */
	struct icb_sdb sdb;
	uint32_t sdb_peer;
	uint32_t cyc_last, cyc_high;	/* the 64-bit extension of CYCCNT */
	uint32_t trace_pos;
	struct icb_mp1_stats st;
};

static struct icb_mp1 icb_mp1;

/* The trace buffer Linux shows in debugfs (the resource table's trace entry) */
static char icb_mp1_trace[ICB_MP1_TRACE_LEN];

/*
 * The resource table: one rpmsg vdev with two vrings (the device address
 * ANY: Linux allocates them in vdev0vring0/1 and writes da and notifyid),
 * and the trace buffer.  Not const: Linux writes the vrings, gfeatures and
 * status into the loaded copy, which the M4 polls.
 */
__attribute__((section(".resource_table"), used, aligned(8)))
struct icb_rsc_table_rpmsg icb_mp1_rsc =
	ICB_RSC_TABLE_RPMSG(ICB_MP1_VRING_NUM, ICB_MP1_VRING_ALIGN, 1,
			    (uint32_t)(uintptr_t)icb_mp1_trace, ICB_MP1_TRACE_LEN);

/* --- trace ------------------------------------------------------------------ */

/* Append s; when full, start again at the top (the buffer stays a string) */
static void icb_mp1_log(const char *s)
{
	struct icb_mp1 *m = &icb_mp1;
	size_t n = strlen(s);

	if (n >= ICB_MP1_TRACE_LEN - 1u)
		return;
	if (m->trace_pos + n >= ICB_MP1_TRACE_LEN - 1u) {
		memset(icb_mp1_trace, 0, ICB_MP1_TRACE_LEN);
		m->trace_pos = 0;
	}
	memcpy(icb_mp1_trace + m->trace_pos, s, n);
	m->trace_pos += (uint32_t)n;
	icb_mp1_trace[m->trace_pos] = '\0';
}

static void icb_mp1_log_hex(const char *label, uint32_t v)
{
	char buf[48];
	size_t n = strlen(label);
	int i;

	if (n > sizeof(buf) - 12u)
		n = sizeof(buf) - 12u;
	memcpy(buf, label, n);
	buf[n++] = '0';
	buf[n++] = 'x';
	for (i = 28; i >= 0; i -= 4)
		buf[n++] = "0123456789abcdef"[(v >> i) & 0xFu];
	buf[n++] = '\n';
	buf[n] = '\0';
	icb_mp1_log(buf);
}

/* --- IPCC ------------------------------------------------------------------- */

static void icb_mp1_park(void)
{
	struct icb_mp1 *m = &icb_mp1;

	icb_mp1_log("icb mp1: shutdown requested, parking\n");
	icb_mp1_log_hex("  rx_msgs ", m->rp.st.rx_msgs);
	icb_mp1_log_hex("  tx_msgs ", m->rp.st.tx_msgs);
	icb_mp1_log_hex("  bad_msgs ", m->rp.st.bad_msgs);
	icb_mp1_log_hex("  kick_busy ", m->st.kick_busy);
	/* Only now free the channel: Linux's stm32_rproc waits up to 500 ms for
	 * it, then holds the M4 in reset */
	ICB_MP1_REG(ICB_MP1_IPCC_C2SCR) = ICB_MP1_IPCC_CHC(ICB_MP1_CH_SHUTDOWN);
	__asm__ volatile("cpsid i" ::: "memory");
	for (;;)
		__asm__ volatile("wfi");
}

/*
 * Acknowledge Linux's doorbells (so its mailbox can send the next one) and
 * honour a shutdown request.  The rings themselves are polled whatever the
 * doorbells say, so a doorbell is acknowledged before the ring is read and
 * none can be lost.
 */
static void icb_mp1_ipcc_service(void)
{
	struct icb_mp1 *m = &icb_mp1;
	uint32_t sr = ICB_MP1_REG(ICB_MP1_IPCC_C1TOC2SR);
	uint32_t ack = 0;

	if (sr & ICB_MP1_IPCC_CHF(ICB_MP1_CH_SHUTDOWN))
		icb_mp1_park();
	if (sr & ICB_MP1_IPCC_CHF(ICB_MP1_CH_VQ0)) {
		m->st.kicks_in[ICB_MP1_CH_VQ0]++;
		ack |= ICB_MP1_IPCC_CHC(ICB_MP1_CH_VQ0);
	}
	if (sr & ICB_MP1_IPCC_CHF(ICB_MP1_CH_VQ1)) {
		m->st.kicks_in[ICB_MP1_CH_VQ1]++;
		ack |= ICB_MP1_IPCC_CHC(ICB_MP1_CH_VQ1);
	}
	if (sr & ICB_MP1_IPCC_CHF(ICB_MP1_CH_DETACH)) {
		if (!m->st.kicks_in[ICB_MP1_CH_DETACH]++)
			icb_mp1_log("icb mp1: detach request freed, not supported\n");
		ack |= ICB_MP1_IPCC_CHC(ICB_MP1_CH_DETACH);
	}
	if (ack) {
		ICB_MP1_REG(ICB_MP1_IPCC_C2SCR) = ack;
		__asm__ volatile("dsb" ::: "memory");
	}
}

/* --- the library's hooks ------------------------------------------------------ */

static int icb_mp1_within(uint64_t da, uint32_t len, uint32_t base, uint32_t size)
{
	return da >= base && len <= size && da - base <= (uint64_t)(size - len);
}

/* Device address = physical address = the M4's address for SRAM3 (mp1.h);
 * only Linux's vring and buffer carveouts are accepted */
static void *icb_mp1_translate(void *ctx, uint64_t da, uint32_t len)
{
	(void)ctx;
	if (icb_mp1_within(da, len, ICB_MP1_VRING0_DA, ICB_MP1_VRING_LEN) ||
	    icb_mp1_within(da, len, ICB_MP1_VRING1_DA, ICB_MP1_VRING_LEN) ||
	    icb_mp1_within(da, len, ICB_MP1_VBUF_DA, ICB_MP1_VBUF_LEN))
		return (void *)(uintptr_t)da;
	return NULL;
}

/*
 * The doorbell for vring notifyid on IPCC channel notifyid + 1: Linux's
 * stm32_rproc hard-wires the same (mailbox "vq0" carries vq_id 0 and
 * "vq1" vq_id 1, handed to rproc_vq_interrupt as the notifyid; rproc
 * allocates the first vdev's vrings the ids 0 and 1).  Wait, bounded,
 * until Linux has taken the previous doorbell of that channel: setting an
 * occupied channel again is no new event, and Linux may already have read
 * the used ring the previous doorbell announced.
 */
static void icb_mp1_kick(void *ctx, uint32_t notifyid)
{
	struct icb_mp1 *m = &icb_mp1;
	uint32_t ch, spin;

	(void)ctx;
	if (notifyid > 1u) {
		m->st.kick_bad_id++;
		return;
	}
	ch = notifyid + 1u;
	for (spin = 0; ICB_MP1_REG(ICB_MP1_IPCC_C2TOC1SR) & ICB_MP1_IPCC_CHF(ch); spin++) {
		if (spin == ICB_MP1_KICK_SPIN) {
			m->st.kick_busy++;
			break;
		}
	}
	__asm__ volatile("dsb" ::: "memory");
	ICB_MP1_REG(ICB_MP1_IPCC_C2SCR) = ICB_MP1_IPCC_CHS(ch);
	m->st.kicks_out++;
}

static const struct icb_vring_ops icb_mp1_ops = {
	.ctx = NULL,
	.translate = icb_mp1_translate,
	.acquire = NULL,
	.release = NULL,
	.full = NULL,
	.kick = icb_mp1_kick,
	/* no data cache on this Cortex-M4 (see the top of this file) */
	.invalidate = NULL,
	.clean = NULL,
};

/* One message to Linux; waits, as firmware does, while Linux has posted
 * no free receive buffer (its next vq0 doorbell says it has) */
static int icb_mp1_send(uint32_t src, uint32_t dst, const void *data, uint32_t len)
{
	struct icb_mp1 *m = &icb_mp1;
	int waited = 0;

	for (;;) {
		int ret = icb_rpmsg_send(&m->rp, src, dst, data, len);

		if (ret != -ICB_RPMSG_ENOBUF && ret != -ICB_RPMSG_EDESC) {
			if (ret)
				m->st.send_errors++;
			return ret;
		}
		if (!waited++)
			m->st.send_waits++;
		icb_mp1_ipcc_service();
	}
}

/* --- the clock ------------------------------------------------------------ */

static void icb_mp1_clock_init(void)
{
	ICB_MP1_REG(ICB_MP1_DEMCR) |= ICB_MP1_DEMCR_TRCENA;
	ICB_MP1_REG(ICB_MP1_DWT_CYCCNT) = 0;
	ICB_MP1_REG(ICB_MP1_DWT_CTRL) |= 1u;	/* CYCCNTENA */
}

/* CYCCNT wraps every 20 s at 209 MHz; the main loop calls this often */
static uint64_t icb_mp1_now(void *ctx)
{
	struct icb_mp1 *m = &icb_mp1;
	uint32_t c = ICB_MP1_REG(ICB_MP1_DWT_CYCCNT);

	(void)ctx;
	if (c < m->cyc_last)
		m->cyc_high++;
	m->cyc_last = c;
	return ((uint64_t)m->cyc_high << 32) | c;
}

/* --- responder sessions (icb_session.c, as in the VM rig's remote) ------- */

static int icb_mp1_session_send(void *ctx, uint32_t local, uint32_t peer, const uint8_t *buf,
				size_t len)
{
	(void)ctx;
	return icb_mp1_send(local, peer, buf, (uint32_t)len) ? -1 : 0;
}

static int icb_mp1_resp_cb(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
			   const uint8_t *data, uint32_t len)
{
	(void)rp;
	return icb_sessions_input(&icb_mp1.sessions, ept->addr, src, ICB_MP1_PROTO, data, len)
		       ? -1
		       : 0;
}

/* --- sdb (as vrproc_serve.c) --------------------------------------------- */

/* Linux's stm32-rpmsg-sdb buffers: physical addresses in DDR, which the M4
 * reaches at the same address (mp1.h) */
static uint8_t *icb_mp1_sdb_map(void *ctx, uint64_t addr, uint32_t size)
{
	(void)ctx;
	if (!size || addr < ICB_MP1_DDR_BASE ||
	    addr + size - 1u > (uint64_t)ICB_MP1_DDR_END)
		return NULL;
	return (uint8_t *)(uintptr_t)addr;
}

static int icb_mp1_sdb_send(void *ctx, const char *msg, size_t len)
{
	(void)ctx;
	return icb_mp1_send(ICB_MP1_ADDR_SDB, icb_mp1.sdb_peer, msg, (uint32_t)len) ? -1 : 0;
}

static int icb_mp1_sdb_cb(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
			  const uint8_t *data, uint32_t len)
{
	struct icb_mp1 *m = &icb_mp1;

	(void)rp;
	(void)ept;
	m->sdb_peer = src;
	if (icb_sdb_input(&m->sdb, data, len) != ICB_SDB_OK) {
		m->st.sdb_errors++;
		return -1;
	}
	return 0;
}

/* Commands through the second tty: the reports go to the sdb driver's
 * address, learnt from its buffer announcements on the sdb channel */
static int icb_mp1_sdb_cmd_cb(struct icb_rpmsg *rp, struct icb_rpmsg_ept *ept, uint32_t src,
			      const uint8_t *data, uint32_t len)
{
	struct icb_mp1 *m = &icb_mp1;

	(void)rp;
	(void)ept;
	(void)src;
	if (!m->sdb_peer || icb_sdb_input(&m->sdb, data, len) != ICB_SDB_OK) {
		m->st.sdb_errors++;
		return -1;
	}
	return 0;
}

/* --- main -------------------------------------------------------------- */

void icb_mp1_main(void)
{
	struct icb_mp1 *m = &icb_mp1;
	struct icb_sdb_platform sdb_plat;
	uint32_t i;
	int ret;

	/* The MCU's own IPCC clock enable (mp1.h), read back so it has landed */
	ICB_MP1_REG(ICB_MP1_RCC_MC_AHB3ENSETR) = ICB_MP1_RCC_AHB3_IPCCEN;
	(void)ICB_MP1_REG(ICB_MP1_RCC_MC_AHB3ENSETR);
	icb_mp1_clock_init();
	icb_mp1_log("icb mp1: icbench remote, Cortex-M4; waiting for DRIVER_OK\n");

	m->epts[0].addr = ICB_MP1_ADDR_RAW;
	m->epts[0].name = "rpmsg-raw";
	m->epts[0].cb = icb_mp1_resp_cb;
	m->epts[1].addr = ICB_MP1_ADDR_TTY;
	m->epts[1].name = "rpmsg-tty";
	m->epts[1].cb = icb_mp1_resp_cb;
	m->epts[2].addr = ICB_MP1_ADDR_NL;
	m->epts[2].name = "icbench-netlink";
	m->epts[2].cb = icb_mp1_resp_cb;
	m->epts[3].addr = ICB_MP1_ADDR_SDB;
	m->epts[3].name = "rpmsg-sdb-channel";
	m->epts[3].cb = icb_mp1_sdb_cb;
	m->epts[4].addr = ICB_MP1_ADDR_SDB_CMD;
	m->epts[4].name = "rpmsg-tty";
	m->epts[4].cb = icb_mp1_sdb_cmd_cb;

	{
		struct icb_sessions_ops ops = {
			NULL, icb_mp1_session_send, icb_mp1_now, ICB_MP1_CPU_HZ, ICB_CLOCK_COUNTER,
		};

		icb_sessions_init(&m->sessions, m->sess, ICB_MP1_NSESS, &ops);
	}
	sdb_plat.ctx = m;
	sdb_plat.map = icb_mp1_sdb_map;
	sdb_plat.send = icb_mp1_sdb_send;
	sdb_plat.corrupt = NULL;
	icb_sdb_init(&m->sdb, &sdb_plat);

	/* 1. Linux's virtio driver sets DRIVER_OK once the vrings are set up */
	while (!icb_rsc_vdev_ready(&icb_mp1_rsc.vdev, &icb_mp1_ops)) {
		icb_mp1_ipcc_service();
		(void)icb_mp1_now(NULL);
	}
	/* 2. both vrings, at the addresses Linux wrote into the table */
	ret = icb_rpmsg_init_rsc(&m->rp, &icb_mp1_rsc.vdev, &icb_mp1_ops, m->epts,
				 ICB_MP1_NEPT, m->scratch, sizeof(m->scratch));
	if (ret) {
		icb_mp1_log_hex("icb mp1: vrings refused (translate), vring0 da ",
				ICB_RSC_VDEV_VRING(&icb_mp1_rsc.vdev, 0)->da);
		icb_mp1_log_hex("  vring1 da ", ICB_RSC_VDEV_VRING(&icb_mp1_rsc.vdev, 1)->da);
		for (;;)
			icb_mp1_ipcc_service();
	}
	icb_mp1_log_hex("icb mp1: vring0 da ", ICB_RSC_VDEV_VRING(&icb_mp1_rsc.vdev, 0)->da);
	icb_mp1_log_hex("icb mp1: vring1 da ", ICB_RSC_VDEV_VRING(&icb_mp1_rsc.vdev, 1)->da);
	/* 3. the name service: makes rpmsg_char, rpmsg_tty, the bridge and
	 * stm32-rpmsg-sdb probe
	 * (one endpoint at a time, each waiting for a host buffer, so that a
	 * retry never announces an endpoint twice) */
	for (i = 0, ret = 0; i < ICB_MP1_NEPT && !ret; i++) {
		for (;;) {
			ret = icb_rpmsg_announce(&m->rp, &m->epts[i], ICB_RPMSG_NS_CREATE);
			if (ret != -ICB_RPMSG_ENOBUF && ret != -ICB_RPMSG_EDESC)
				break;
			icb_mp1_ipcc_service();
		}
	}
	if (ret)
		icb_mp1_log_hex("icb mp1: announcement failed, error -", (uint32_t)-ret);
	else
		icb_mp1_log("icb mp1: announced rpmsg-raw 0x400, rpmsg-tty 0x401, "
			    "icbench-netlink 0x402, rpmsg-sdb-channel 0x403, "
			    "rpmsg-tty 0x404 (sdb commands); serving\n");
	/* 4. serve: messages from vring 1 to the endpoints, polled */
	for (;;) {
		icb_mp1_ipcc_service();
		(void)icb_rpmsg_poll(&m->rp, 0);
		(void)icb_mp1_now(NULL);
	}
}
