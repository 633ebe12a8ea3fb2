/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * nlunit31: icbench's stand-in for seed 001's user-space netlink client, for
 * the VM rig.  It drives kernel/netlink_bridge loaded with compat_unit=31 and
 * puts on the wire what that client put there (shared/references/001; the
 * facts are listed in kernel/README.md, "Seed 001's own client"):
 *
 *  - seven blocks, always the same sizes in the same order: 512, 1024, 2048,
 *    4096, 8192, 16384 and 32768 bytes;
 *  - per block a new raw netlink socket on unit 31, bound to the process id,
 *    closed once the block's reply is in;
 *  - the block is the seed's 32 KiB test buffer (byte i = i mod 256) under a
 *    dimtass header {u16 0xABCD, u16 block size, u16 CRC-16}, little endian.
 *    The CRC (icbench_proto::checksum::SEED_CRC16) is taken over the block
 *    size's worth of bytes starting at offset sizeof(pointer) - 1 of the
 *    buffer (7 on 64-bit targets, 3 on the board's 32-bit one) as the buffer
 *    stands when the header's first two fields are written: the seed's
 *    offset, which for 32 KiB runs past the buffer into zeros;
 *  - the block goes out as netlink messages of at most 2048 bytes, sent to
 *    the kernel (port 0).  A message of n bytes holds a 16-byte nlmsghdr
 *    (nlmsg_len = NLMSG_SPACE(n), type, flags and seq 0, pid = the process
 *    id) and then the block's first n - 16 bytes: its length leaves out the
 *    header, so nlmsg_len claims 16 bytes more than arrive, and every message
 *    of a block starts again at the block's first byte.  The bridge sends the
 *    missing 16 bytes to the remote as zeros, so the remote counts n bytes
 *    per message and the block size in all;
 *  - one recvmsg per block for the reply.  Its return value is printed as
 *    "bytes sent", as the seed's log did: 20 for the one NLMSG_DONE carrying
 *    the remote's 2-byte count (16-byte header, payload padded to 4).
 *
 * Output on stdout, one line each, in the seed's log format where the seed's
 * log has the figures (icbench import -f seed-netlink reads it):
 *   - HH:MM:SS.mmm INFO: blocks: 512 1024 2048 4096 8192 16384 32768
 *   - HH:MM:SS.mmm INFO: pattern CRC16: 0x1818
 *   - HH:MM:SS.mmm INFO: -> b: N, nsec: T, bytes sent: R
 *   - HH:MM:SS.mmm INFO: reply: b: N, type: Y, count: C
 * "pattern CRC16" is the CRC of the whole buffer before any header is
 * written (the seed's log printed 0x1818).  T spans the block's sends, its
 * reply and the socket's close, on CLOCK_MONOTONIC_RAW (the seed used
 * CLOCK_REALTIME).  Y is the reply's nlmsg_type (3 NLMSG_DONE, 2
 * NLMSG_ERROR); C is the remote's count from an NLMSG_DONE with a 2-byte
 * payload, else -1.  What the seed's client did not do: a reply that takes
 * longer than 30 s ends the run (the seed's client waited for ever), and an
 * NLMSG_ERROR from the bridge is named on stderr.
 *
 * Exit 0 when every block got a reply (the lines say which), 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

enum {
	ICB_UNIT = 31,			/* the seed's netlink protocol unit */
	ICB_MSG_MAX = 2048,		/* the largest message the seed's client sends */
	ICB_BUF_LEN = 32768,		/* the seed's test buffer */
	ICB_BUF_SLACK = 16,		/* zeros after it, where the header's CRC may reach */
	ICB_HDR_LEN = 6,		/* dimtass header: preamble, length, crc16 */
	ICB_PREAMBLE = 0xABCD,
	ICB_REPLY_WAIT_S = 30,
};

/* The seed's CRC-16: reflected, polynomial 0x8006 (0x6001 reflected), init
 * 0, no final XOR; "123456789" gives 0x3D56. */
static uint16_t icb_crc16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1u) ? (uint16_t)((crc >> 1) ^ 0x6001u) : (uint16_t)(crc >> 1);
	}
	return crc;
}

static void icb_le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v & 0xffu);
	p[1] = (uint8_t)((v >> 8) & 0xffu);
}

static uint64_t icb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One line of the log: "- HH:MM:SS.mmm INFO: " and the text. */
__attribute__((format(printf, 1, 2)))
static void icb_log(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char hms[16] = "00:00:00";
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (localtime_r(&ts.tv_sec, &tm))
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	printf("- %s.%03ld INFO: ", hms, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The dimtass header of a block of @size bytes, written over the buffer's
 * first six bytes; the CRC is taken as the header comment says. */
static void icb_put_header(uint8_t *buf, unsigned size)
{
	icb_le16(buf, ICB_PREAMBLE);
	icb_le16(buf + 2, size);
	icb_le16(buf + 4, icb_crc16(buf + sizeof(void *) - 1, size));
}

/* A raw socket on @unit bound to port @pid, with the reply wait bounded. */
static int icb_open(int unit, uint32_t pid)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK, .nl_pid = pid };
	struct timeval wait = { .tv_sec = ICB_REPLY_WAIT_S };
	int fd = socket(AF_NETLINK, SOCK_RAW, unit);

	if (fd < 0) {
		fprintf(stderr, "nlunit31: netlink unit %d: %s (is icb_nl_bridge.ko loaded with "
			"compat_unit=%d?)\n", unit, strerror(errno), unit);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait))) {
		fprintf(stderr, "nlunit31: binding port %u on unit %d: %s\n", pid, unit,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends the block as the header comment describes, through @msg (room for
 * NLMSG_SPACE(ICB_MSG_MAX) bytes).  Returns the last message's length, or
 * -1. */
static int icb_send_block(int fd, uint32_t pid, const uint8_t *block, unsigned size,
			  struct nlmsghdr *msg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	unsigned left = size, n = 0;

	while (left) {
		struct iovec iov;
		struct msghdr mh = { 0 };

		n = left < ICB_MSG_MAX ? left : ICB_MSG_MAX;
		left -= n;
		memset(msg, 0, NLMSG_SPACE(n));
		msg->nlmsg_len = NLMSG_SPACE(n);
		msg->nlmsg_pid = pid;
		memcpy(NLMSG_DATA(msg), block, n - NLMSG_HDRLEN);
		iov.iov_base = msg;
		iov.iov_len = n;	/* the header counted in, as the seed's client did */
		mh.msg_name = &kernel;
		mh.msg_namelen = sizeof(kernel);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (sendmsg(fd, &mh, 0) < 0) {
			fprintf(stderr, "nlunit31: block of %u B: sendmsg of %u B: %s\n", size, n,
				strerror(errno));
			return -1;
		}
	}
	return (int)n;
}

/* The block's reply into @msg (@cap bytes, the last message's length, as
 * the seed's client read it): recvmsg's return value, or -1. */
static ssize_t icb_reply(int fd, unsigned size, struct nlmsghdr *msg, size_t cap, int *type,
			 long *count)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = msg, .iov_len = cap };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r = recvmsg(fd, &mh, 0);

	*type = -1;
	*count = -1;
	if (r < 0) {
		fprintf(stderr, "nlunit31: block of %u B: %s\n", size,
			errno == EAGAIN ? "no reply within 30 s" : strerror(errno));
		return -1;
	}
	if (r < (ssize_t)NLMSG_HDRLEN)
		return r;
	*type = msg->nlmsg_type;
	if (msg->nlmsg_type == NLMSG_DONE && msg->nlmsg_len == NLMSG_LENGTH(2) &&
	    r >= (ssize_t)NLMSG_LENGTH(2)) {
		const uint8_t *c = NLMSG_DATA(msg);

		*count = c[0] | (long)c[1] << 8;
	} else if (msg->nlmsg_type == NLMSG_ERROR && r >= (ssize_t)NLMSG_LENGTH(sizeof(int))) {
		int e;

		memcpy(&e, NLMSG_DATA(msg), sizeof(e));
		fprintf(stderr, "nlunit31: block of %u B: the bridge answered NLMSG_ERROR: %s\n",
			size, strerror(-e));
	}
	return r;
}

int main(int argc, char **argv)
{
	static const unsigned blocks[] = { 512, 1024, 2048, 4096, 8192, 16384, 32768 };
	static uint8_t buf[ICB_BUF_LEN + ICB_BUF_SLACK];
	union {
		struct nlmsghdr h;
		uint8_t b[NLMSG_SPACE(ICB_MSG_MAX)];
	} msg;
	const size_t nblocks = sizeof(blocks) / sizeof(blocks[0]);
	uint32_t pid = (uint32_t)getpid();
	char list[96];
	size_t used = 0;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: nlunit31   (seed 001's seven blocks through netlink unit 31; "
			"see kernel/README.md)\n");
		return 2;
	}
	for (size_t i = 0; i < ICB_BUF_LEN; i++)
		buf[i] = (uint8_t)i;
	for (size_t i = 0; i < nblocks; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, " %u", blocks[i]);
	icb_log("blocks:%s", list);
	icb_log("pattern CRC16: 0x%x", icb_crc16(buf, ICB_BUF_LEN));

	for (size_t i = 0; i < nblocks; i++) {
		unsigned size = blocks[i];
		int fd = icb_open(ICB_UNIT, pid), last, type;
		uint64_t t0;
		ssize_t got;
		long count;

		if (fd < 0)
			return 1;
		icb_put_header(buf, size);
		t0 = icb_now_ns();
		last = icb_send_block(fd, pid, buf, size, &msg.h);
		got = last < 0 ? -1 : icb_reply(fd, size, &msg.h, (size_t)last, &type, &count);
		close(fd);
		if (got < 0)
			return 1;
		icb_log("-> b: %u, nsec: %llu, bytes sent: %zd", size,
			(unsigned long long)(icb_now_ns() - t0), got);
		icb_log("reply: b: %u, type: %d, count: %ld", size, type, count);
	}
	return 0;
}
