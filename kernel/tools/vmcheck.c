/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vmcheck: a small client for the VM rig that drives the real rpmsg user
 * interfaces directly, so the virtual remote can be checked without icbench's
 * rpmsg links.  Each check prints one JSON line:
 *   {"check":…,"dev":…,"n":…,"size":…,"ok":N,"mismatch":N,"lost":N,
 *    "p50_ns":…,"p99_ns":…,"max_ns":…}
 * Latencies are round trips measured with CLOCK_MONOTONIC_RAW inside the
 * guest: real timings of the real driver stack on virtual CPUs.
 *
 * The remote must answer with the raw protocol (echo) on the channel used.
 *
 *   vmcheck ctrl CTRLDEV DST N SIZE     RPMSG_CREATE_EPT_IOCTL, then echo
 *   vmcheck dev  DEV N SIZE              echo on an existing /dev/rpmsgK
 *   vmcheck tty  DEV N SIZE              echo on /dev/ttyRPMSGk (a byte stream)
 *   vmcheck nl   N SIZE [CLIENTS]        echo through the netlink bridge;
 *                                        SIZE may exceed the MTU (chunking)
 *   vmcheck find NAME DST                print /dev/rpmsgK whose name and dst match
 *   vmcheck drain DEV                    read and count what is queued (stale replies
 *                                        of a fault case), until 300 ms of quiet
 * Exit 0 when the check ran (the JSON says how it went), 1 on setup errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rpmsg.h>

#include "../netlink_bridge/icbench_nl.h"

#define TIMEOUT_MS 2000
#define MAXBUF 70000

struct result {
	const char *check, *dev;
	int n, size, ok, mismatch, lost, err;
	int clients_failed;	/* nl with CLIENTS: the others that were not clean */
	uint64_t *lat;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(struct result *r)
{
	uint64_t p50 = 0, p99 = 0, max = 0;

	if (r->ok) {
		qsort(r->lat, (size_t)r->ok, sizeof(uint64_t), cmp_u64);
		p50 = r->lat[(r->ok - 1) / 2];
		p99 = r->lat[(size_t)((r->ok - 1) * 99 / 100)];
		max = r->lat[r->ok - 1];
	}
	printf("{\"check\":\"%s\",\"dev\":\"%s\",\"n\":%d,\"size\":%d,\"ok\":%d,"
	       "\"mismatch\":%d,\"lost\":%d,\"errno\":%d,\"clients_failed\":%d,\"p50_ns\":%llu,\"p99_ns\":%llu,"
	       "\"max_ns\":%llu,\"clock\":\"guest CLOCK_MONOTONIC_RAW, virtual CPUs\"}\n",
	       r->check, r->dev, r->n, r->size, r->ok, r->mismatch, r->lost, r->err,
	       r->clients_failed,
	       (unsigned long long)p50, (unsigned long long)p99, (unsigned long long)max);
	fflush(stdout);
}

static void fill(uint8_t *b, int size, int i)
{
	for (int k = 0; k < size; k++)
		b[k] = (uint8_t)(i * 31 + k * 7 + 1);
}

static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, ms);

	if (r > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) && !(p.revents & POLLIN))
		return -1;
	return r;
}

/* Message echo on an rpmsg character device: one write, one read. */
static void echo_msgs(int fd, struct result *r)
{
	static uint8_t tx[MAXBUF], rx[MAXBUF];

	for (int i = 0; i < r->n; i++) {
		uint64_t t0;
		ssize_t got;

		fill(tx, r->size, i);
		t0 = now_ns();
		if (write(fd, tx, (size_t)r->size) != r->size) {
			r->err = errno;
			return;
		}
		int w = wait_in(fd, TIMEOUT_MS);
		if (w <= 0) {
			r->lost++;
			if (w < 0)
				return;
			continue;
		}
		got = read(fd, rx, sizeof(rx));
		if (got < 0) {
			r->err = errno;
			return;
		}
		if (got != r->size || memcmp(tx, rx, (size_t)r->size)) {
			r->mismatch++;
			continue;
		}
		r->lat[r->ok++] = now_ns() - t0;
	}
}

/* Stream echo on a tty: write SIZE bytes, read until SIZE have come back. */
static void echo_stream(int fd, struct result *r)
{
	static uint8_t tx[MAXBUF], rx[MAXBUF];

	for (int i = 0; i < r->n; i++) {
		uint64_t t0;
		int have = 0, off = 0;

		fill(tx, r->size, i);
		t0 = now_ns();
		while (off < r->size) {
			ssize_t w = write(fd, tx + off, (size_t)(r->size - off));

			if (w < 0 && (errno == EAGAIN || errno == ENOMEM)) {
				if (wait_in(fd, 0) > 0) /* drain to make room */
					break;
				usleep(100);
				if (now_ns() - t0 > TIMEOUT_MS * 1000000ull)
					break;
				continue;
			}
			if (w < 0) {
				r->err = errno;
				return;
			}
			off += (int)w;
		}
		while (have < r->size) {
			if (wait_in(fd, TIMEOUT_MS) <= 0)
				break;
			ssize_t g = read(fd, rx + have, (size_t)(r->size - have));
			if (g <= 0)
				break;
			have += (int)g;
		}
		if (have < r->size) {
			r->lost++;
			tcflush(fd, TCIOFLUSH);
			continue;
		}
		if (off < r->size || memcmp(tx, rx, (size_t)r->size)) {
			r->mismatch++;
			continue;
		}
		r->lat[r->ok++] = now_ns() - t0;
	}
}

static int find_dev(const char *name, unsigned dst, char *out, size_t cap)
{
	DIR *d = opendir("/sys/class/rpmsg");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p[300], v[64];
		FILE *f;

		if (strncmp(e->d_name, "rpmsg", 5) || !strncmp(e->d_name, "rpmsg_ctrl", 10))
			continue;
		snprintf(p, sizeof(p), "/sys/class/rpmsg/%s/name", e->d_name);
		if (!(f = fopen(p, "r")))
			continue;
		v[0] = 0;
		if (!fgets(v, sizeof(v), f))
			v[0] = 0;
		fclose(f);
		v[strcspn(v, "\n")] = 0;
		if (strcmp(v, name))
			continue;
		snprintf(p, sizeof(p), "/sys/class/rpmsg/%s/dst", e->d_name);
		if (!(f = fopen(p, "r")))
			continue;
		unsigned got = 0;
		if (fscanf(f, "%u", &got) != 1)
			got = ~0u;
		fclose(f);
		if (got == dst) {
			snprintf(out, cap, "/dev/%s", e->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

/* --- generic netlink ------------------------------------------------- */

struct nl {
	int fd;
	uint16_t family;
	uint32_t seq;
};

static int nl_send(struct nl *s, uint16_t type, uint8_t cmd, uint16_t attr, const void *data,
		   int len)
{
	static uint8_t b[MAXBUF + 64];
	struct nlmsghdr *h = (void *)b;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct nlattr *a = (void *)(g + 1);
	int alen = attr ? NLA_HDRLEN + len : 0;

	memset(b, 0, NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN);
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(alen);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = ++s->seq;
	g->cmd = cmd;
	g->version = 1;
	if (attr) {
		a->nla_type = attr;
		a->nla_len = (uint16_t)alen;
		memcpy(a + 1, data, (size_t)len);
	}
	return send(s->fd, b, h->nlmsg_len, 0) == (ssize_t)h->nlmsg_len ? 0 : -1;
}

/* Receive one message; returns its genl cmd (or -errno for NLMSG_ERROR,
 * -1000 on timeout) and finds attribute @want (pointer + length). */
static int nl_recv(struct nl *s, uint16_t want, const uint8_t **val, int *vlen,
		   uint32_t *u32s, int ms)
{
	static uint8_t b[MAXBUF + 256];
	struct nlmsghdr *h = (void *)b;

	if (wait_in(s->fd, ms) <= 0)
		return -1000;
	ssize_t n = recv(s->fd, b, sizeof(b), 0);
	if (n < (ssize_t)NLMSG_HDRLEN)
		return -EIO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		int e = *(int *)NLMSG_DATA(h);
		return e ? e : -1001;	/* an ack: no payload */
	}
	struct genlmsghdr *g = NLMSG_DATA(h);
	uint8_t *p = (uint8_t *)(g + 1), *end = b + h->nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		struct nlattr *a = (void *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		uint16_t t = a->nla_type & NLA_TYPE_MASK;
		if (t == want && val) {
			*val = p + NLA_HDRLEN;
			*vlen = a->nla_len - NLA_HDRLEN;
		}
		if (u32s && t < 16 && a->nla_len == NLA_HDRLEN + 4)
			memcpy(&u32s[t], p + NLA_HDRLEN, 4);
		p += NLA_ALIGN(a->nla_len);
	}
	return g->cmd;
}

static int nl_open(struct nl *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const uint8_t *v = NULL;
	int vl = 0;

	s->fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (s->fd < 0 || bind(s->fd, (void *)&sa, sizeof(sa)))
		return -1;
	s->seq = 0;
	if (nl_send(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    ICBNL_FAMILY_NAME, (int)sizeof(ICBNL_FAMILY_NAME)))
		return -1;
	if (nl_recv(s, CTRL_ATTR_FAMILY_ID, &v, &vl, NULL, TIMEOUT_MS) < 0 || vl != 2)
		return -1;
	memcpy(&s->family, v, 2);
	return 0;
}

static void nl_echo(struct result *r)
{
	static uint8_t tx[MAXBUF], rx[MAXBUF];
	uint32_t u[16] = { 0 };
	struct nl s;

	if (nl_open(&s)) {
		r->err = errno ? errno : EPROTO;
		return;
	}
	if (nl_send(&s, s.family, ICBNL_CMD_OPEN, 0, NULL, 0) ||
	    nl_recv(&s, 0, NULL, NULL, u, TIMEOUT_MS) != ICBNL_CMD_OPEN) {
		r->err = ENODEV;
		return;
	}
	for (int i = 0; i < r->n; i++) {
		uint64_t t0;
		int have = 0, sent = 0, cmd;

		fill(tx, r->size, i);
		t0 = now_ns();
		if (nl_send(&s, s.family, ICBNL_CMD_SEND, ICBNL_A_DATA, tx, r->size)) {
			r->err = errno;
			return;
		}
		/* the SENT count and the echoed chunks, in either order */
		while (!sent || have < r->size) {
			const uint8_t *v = NULL;
			int vl = 0;

			memset(u, 0, sizeof(u));
			cmd = nl_recv(&s, ICBNL_A_DATA, &v, &vl, u, TIMEOUT_MS);
			if (cmd == ICBNL_CMD_SENT) {
				sent = 1;
				if ((int)u[ICBNL_A_COUNT] != r->size)
					r->mismatch++;
			} else if (cmd == ICBNL_CMD_RECV && v && have + vl <= r->size) {
				memcpy(rx + have, v, (size_t)vl);
				have += vl;
			} else {
				if (cmd < 0 && cmd != -1000)
					r->err = -cmd;
				break;
			}
		}
		if (have < r->size || !sent) {
			r->lost++;
			continue;
		}
		if (memcmp(tx, rx, (size_t)r->size)) {
			r->mismatch++;
			continue;
		}
		r->lat[r->ok++] = now_ns() - t0;
	}
	close(s.fd);
}

static int usage(void)
{
	fprintf(stderr, "usage: vmcheck ctrl CTRLDEV DST N SIZE | dev DEV N SIZE | tty DEV N SIZE"
			" | nl N SIZE [CLIENTS] | find NAME DST | drain DEV\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct result r = { 0 };
	char path[300];
	int fd;

	if (argc < 2)
		return usage();
	r.check = argv[1];
	if (!strcmp(argv[1], "find") && argc == 4) {
		if (find_dev(argv[2], (unsigned)strtoul(argv[3], NULL, 0), path, sizeof(path)))
			return 1;
		puts(path);
		return 0;
	}
	if (!strcmp(argv[1], "drain") && argc == 3) {
		static uint8_t b[MAXBUF];
		int n = 0;

		fd = open(argv[2], O_RDWR | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			perror("vmcheck: drain");
			return 1;
		}
		while (wait_in(fd, 300) > 0 && read(fd, b, sizeof(b)) > 0)
			n++;
		printf("{\"check\":\"drain\",\"dev\":\"%s\",\"drained\":%d}\n", argv[2], n);
		return 0;
	}
	if (!strcmp(argv[1], "ctrl") && argc == 6) {
		struct rpmsg_endpoint_info info = { .src = RPMSG_ADDR_ANY };
		unsigned dst = (unsigned)strtoul(argv[3], NULL, 0);

		snprintf(info.name, sizeof(info.name), "vmcheck");
		info.dst = dst;
		fd = open(argv[2], O_RDWR);
		if (fd < 0 || ioctl(fd, RPMSG_CREATE_EPT_IOCTL, &info)) {
			perror("vmcheck: RPMSG_CREATE_EPT_IOCTL");
			return 1;
		}
		usleep(100000);	/* udev-less: the node appears via devtmpfs */
		if (find_dev("vmcheck", dst, path, sizeof(path))) {
			fprintf(stderr, "vmcheck: no endpoint device for vmcheck/%u\n", dst);
			return 1;
		}
		r.n = atoi(argv[4]);
		r.size = atoi(argv[5]);
	} else if ((!strcmp(argv[1], "dev") || !strcmp(argv[1], "tty")) && argc == 5) {
		snprintf(path, sizeof(path), "%s", argv[2]);
		r.n = atoi(argv[3]);
		r.size = atoi(argv[4]);
	} else if (!strcmp(argv[1], "nl") && (argc == 4 || argc == 5)) {
		int clients = argc == 5 ? atoi(argv[4]) : 1;

		r.n = atoi(argv[2]);
		r.size = atoi(argv[3]);
		r.dev = "netlink:" ICBNL_FAMILY_NAME;
		if (r.n <= 0 || r.size <= 0 || r.size > ICBNL_MAX_DATA || clients < 1)
			return usage();
		r.lat = calloc((size_t)r.n, sizeof(uint64_t));
		/* the other clients run the same echo at the same time, each on its
		 * own socket; each exits 0 only if all its round trips were clean */
		for (int c = 1; c < clients; c++)
			if (fork() == 0) {
				nl_echo(&r);
				_exit(r.ok == r.n && !r.mismatch && !r.lost && !r.err ? 0 : 1);
			}
		nl_echo(&r);
		int st, bad = 0;
		while (wait(&st) > 0)
			bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		r.clients_failed = bad;
		report(&r);
		return 0;
	} else {
		return usage();
	}
	if (r.n <= 0 || r.size <= 0 || r.size > MAXBUF)
		return usage();
	r.dev = path;
	r.lat = calloc((size_t)r.n, sizeof(uint64_t));
	fd = open(path, O_RDWR | O_NOCTTY | (strcmp(argv[1], "tty") ? 0 : O_NONBLOCK));
	if (fd < 0) {
		fprintf(stderr, "vmcheck: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "tty")) {
		struct termios t;

		if (!tcgetattr(fd, &t)) {
			cfmakeraw(&t);
			tcsetattr(fd, TCSANOW, &t);
		}
		echo_stream(fd, &r);
	} else {
		echo_msgs(fd, &r);
	}
	report(&r);
	if (!strcmp(argv[1], "ctrl"))
		ioctl(fd, RPMSG_DESTROY_EPT_IOCTL);
	close(fd);
	return 0;
}
