/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * icb-peer: the firmware responder built for the host, serving a file
 * descriptor, so that icbench's pty/tty/serial links talk to the real C code.
 *
 *   icb-peer --stdio [options]          serve stdin/stdout
 *   icb-peer --path /dev/pts/N [options] open a tty, set raw mode, serve it
 *
 * Exits 0 on end of input (EOF, or EIO when the other side of a pty closes).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "icb_onchip_host.h"
#include "icb_responder.h"

/* A fault to inject after `after` replies (tests of the host's failure paths) */
enum fault_kind { FAULT_NONE, FAULT_HANG, FAULT_DIE, FAULT_GARBAGE, FAULT_TRUNCATE, FAULT_CRC };

struct peer {
	int rfd;
	int wfd;
	enum fault_kind fault;
	unsigned long after;
	unsigned long sent;	/* replies sent so far */
	int caps_sent;		/* an icb CAPS has been sent */
};

/*
 * Whether a reply is an icb CAPS sent before: not a reply the fault counts.
 * The host says HELLO again while CAPS is slow to come (every 50 ms at
 * first), so a peer started on a loaded machine answers two or three; had
 * each counted, "die-after=2" died before CHIP instead of after it, and
 * tests/chip.rs failed under a loaded CI machine.
 */
static int repeated_caps(struct peer *p, const uint8_t *buf, size_t len)
{
	int caps = len > 3 && buf[0] == ICB_MAGIC0 && buf[1] == ICB_MAGIC1 && buf[3] == ICB_T_CAPS;

	if (!caps)
		return 0;
	if (p->caps_sent)
		return 1;
	p->caps_sent = 1;
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len);

static void hang_forever(void)
{
	for (;;)
		pause();
}

/*
 * The send hook with the fault applied: hang (alive, silent), die (exit 3),
 * garbage (text instead of the reply), truncate (half the reply, then
 * silence), crc (the reply with its last byte flipped, which is the CRC's
 * for icb and the count's for dimtass).
 */
static int peer_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct peer *p = ctx;
	static const uint8_t garbage[] = "icb-peer: injected garbage instead of a reply\r\n";
	uint8_t last;

	if (p->fault == FAULT_NONE || repeated_caps(p, buf, len) || ++p->sent <= p->after)
		return write_all(p->wfd, buf, len);
	switch (p->fault) {
	case FAULT_HANG:
		hang_forever();
		break;
	case FAULT_DIE:
		fprintf(stderr, "icb-peer: injected fault: exiting after %lu replies\n", p->after);
		exit(3);
	case FAULT_GARBAGE:
		return write_all(p->wfd, garbage, sizeof(garbage) - 1);
	case FAULT_TRUNCATE:
		if (write_all(p->wfd, buf, len / 2) < 0)
			return -1;
		hang_forever();
		break;
	case FAULT_CRC:
		if (len == 0 || write_all(p->wfd, buf, len - 1) < 0)
			return -1;
		last = buf[len - 1] ^ 0x5a;
		return write_all(p->wfd, &last, 1);
	case FAULT_NONE:
		break;
	}
	return -1;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t peer_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
#ifdef CLOCK_MONOTONIC_RAW
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
#else
	clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int set_raw(int fd, long baud)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	/* the fields cfmakeraw() clears, spelled out to stay within POSIX */
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL |
				 IXON | IXOFF);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8 | CLOCAL | CREAD;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (baud) {
		speed_t s;

		switch (baud) {
		case 9600: s = B9600; break;
		case 19200: s = B19200; break;
		case 38400: s = B38400; break;
		case 57600: s = B57600; break;
		case 115200: s = B115200; break;
		case 230400: s = B230400; break;
		default:
			fprintf(stderr, "icb-peer: unsupported baud rate %ld\n", baud);
			return -1;
		}
		cfsetispeed(&t, s);
		cfsetospeed(&t, s);
	}
	return tcsetattr(fd, TCSANOW, &t);
}

static void usage(FILE *out)
{
	fputs("usage: icb-peer (--stdio | --path DEV) [options]\n"
	      "  --stdio              serve stdin/stdout\n"
	      "  --path DEV           open DEV (a tty or pty), set raw mode, serve it\n"
	      "  --protocol P         icb (default), dimtass or raw\n"
	      "  --max-frame N        largest frame accepted and sent, bytes (default 65551;\n"
	      "                       496 to behave like an rpmsg firmware)\n"
	      "  --rx-slots N         initial DATA credit announced in CAPS (default 4)\n"
	      "  --credit-batch N     one CREDIT per N DATA frames, 0: none (default 1)\n"
	      "  --ack-every N        ACK every N DATA bytes, 0: on request (default 0)\n"
	      "  --baud N             set the tty speed (serial ports; default: leave it)\n"
	      "  --no-clock           announce no clock, send zero timestamps\n"
	      "  --stats              print the counters to stderr at exit\n"
	      "  --onchip A,B         also serve on-chip cells (CHIP/RUN) between two threads\n"
	      "                       pinned to CPUs A and B (- : unpinned), issue #16\n"
	      "  --label KEY=VALUE    add a build label to the on-chip CHIP record (repeatable)\n"
	      "  --fault KIND-after=N misbehave after N replies (testing): hang, die,\n"
	      "                       garbage, truncate or crc\n"
	      "  -h, --help           this text\n", out);
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || *end || end == s || *v > max ? -1 : 0;
}

struct options {
	const char *path;
	int use_stdio;
	int stats;
	int no_clock;
	unsigned long max_frame;
	unsigned long baud;
	enum fault_kind fault;
	unsigned long fault_after;
	int onchip;		/* --onchip: serve CHIP/RUN with two threads */
	char labels[512];	/* --label K=V lines for the CHIP record */
	int cpu_init;
	int cpu_agent;
	struct icb_responder_config cfg;
};

/* --onchip A,B: the initiator's and the agent's CPU; "-" leaves both unpinned */
static int parse_onchip(const char *v, struct options *o)
{
	char *end;
	long a, b;

	o->onchip = 1;
	o->cpu_init = o->cpu_agent = -1;
	if (strcmp(v, "-") == 0)
		return 0;
	errno = 0;
	a = strtol(v, &end, 10);
	if (errno || end == v || *end != ',' || a < 0 || a > 4095)
		goto bad;
	v = end + 1;
	b = strtol(v, &end, 10);
	if (errno || end == v || *end || b < 0 || b > 4095)
		goto bad;
	o->cpu_init = (int)a;
	o->cpu_agent = (int)b;
	return 0;
bad:
	fputs("icb-peer: --onchip wants two CPUs, e.g. 0,1 (or - for no pinning)\n", stderr);
	return -1;
}

static int parse_fault(const char *v, struct options *o)
{
	static const struct { const char *name; enum fault_kind kind; } kinds[] = {
		{ "hang-after=", FAULT_HANG }, { "die-after=", FAULT_DIE },
		{ "garbage-after=", FAULT_GARBAGE }, { "truncate-after=", FAULT_TRUNCATE },
		{ "crc-after=", FAULT_CRC },
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].name);
		char *end;

		if (strncmp(v, kinds[i].name, n) != 0)
			continue;
		errno = 0;
		o->fault_after = strtoul(v + n, &end, 10);
		if (errno || *end || end == v + n)
			break;
		o->fault = kinds[i].kind;
		return 0;
	}
	fprintf(stderr, "icb-peer: bad fault %s (hang|die|garbage|truncate|crc)-after=N\n", v);
	return -1;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->max_frame = ICB_MAX_FRAME;
	icb_responder_config_default(&o->cfg);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long n = 0;
		int takes = strcmp(a, "--path") == 0 || strcmp(a, "--protocol") == 0 ||
			    strcmp(a, "--max-frame") == 0 || strcmp(a, "--rx-slots") == 0 ||
			    strcmp(a, "--credit-batch") == 0 || strcmp(a, "--ack-every") == 0 ||
			    strcmp(a, "--baud") == 0 || strcmp(a, "--fault") == 0 ||
			    strcmp(a, "--onchip") == 0 || strcmp(a, "--label") == 0;

		if (takes && !v) {
			fprintf(stderr, "icb-peer: %s needs a value\n", a);
			return -1;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "--stdio") == 0) {
			o->use_stdio = 1;
		} else if (strcmp(a, "--stats") == 0) {
			o->stats = 1;
		} else if (strcmp(a, "--no-clock") == 0) {
			o->no_clock = 1;
		} else if (strcmp(a, "--path") == 0) {
			o->path = v;
		} else if (strcmp(a, "--fault") == 0) {
			if (parse_fault(v, o) < 0)
				return -1;
		} else if (strcmp(a, "--onchip") == 0) {
			if (parse_onchip(v, o) < 0)
				return -1;
		} else if (strcmp(a, "--label") == 0) {
			size_t have = strlen(o->labels);

			if (!strchr(v, '=') || strchr(v, '\n') ||
			    have + strlen(v) + 2 > sizeof(o->labels)) {
				fprintf(stderr, "icb-peer: --label wants KEY=VALUE (512 bytes in all)\n");
				return -1;
			}
			strcat(o->labels, v);
			strcat(o->labels, "\n");
		} else if (strcmp(a, "--protocol") == 0) {
			if (strcmp(v, "icb") == 0)
				o->cfg.proto = ICB_PROTO_ICB;
			else if (strcmp(v, "dimtass") == 0)
				o->cfg.proto = ICB_PROTO_DIMTASS;
			else if (strcmp(v, "raw") == 0)
				o->cfg.proto = ICB_PROTO_RAW;
			else {
				fprintf(stderr, "icb-peer: unknown protocol %s (icb, dimtass, raw)\n", v);
				return -1;
			}
		} else if (takes && parse_ulong(v, 0xffffffffu, &n) < 0) {
			fprintf(stderr, "icb-peer: bad number for %s: %s\n", a, v);
			return -1;
		} else if (strcmp(a, "--max-frame") == 0) {
			if (n < ICB_MIN_MAX_FRAME || n > ICB_MAX_FRAME) {
				fprintf(stderr, "icb-peer: --max-frame must be %u..%u\n",
					ICB_MIN_MAX_FRAME, ICB_MAX_FRAME);
				return -1;
			}
			o->max_frame = n;
		} else if (strcmp(a, "--rx-slots") == 0) {
			o->cfg.rx_slots = (uint32_t)n;
		} else if (strcmp(a, "--credit-batch") == 0) {
			o->cfg.credit_batch = (uint32_t)n;
		} else if (strcmp(a, "--ack-every") == 0) {
			o->cfg.ack_every_bytes = (uint32_t)n;
		} else if (strcmp(a, "--baud") == 0) {
			o->baud = n;
		} else {
			fprintf(stderr, "icb-peer: unknown option %s\n", a);
			usage(stderr);
			return -1;
		}
		if (takes)
			i++;
	}
	if (!!o->path == o->use_stdio) {
		fputs("icb-peer: give exactly one of --stdio and --path DEV\n", stderr);
		return -1;
	}
	return 0;
}

static void print_stats(const struct icb_stats *s)
{
	fprintf(stderr,
		"icb-peer: rx_frames %llu tx_frames %llu rx_payload_bytes %llu "
		"tx_payload_bytes %llu crc_errors %llu header_errors %llu garbage_bytes %llu "
		"unsupported %llu send_errors %llu\n",
		(unsigned long long)s->rx_frames, (unsigned long long)s->tx_frames,
		(unsigned long long)s->rx_payload_bytes, (unsigned long long)s->tx_payload_bytes,
		(unsigned long long)s->crc_errors, (unsigned long long)s->header_errors,
		(unsigned long long)s->garbage_bytes, (unsigned long long)s->unsupported,
		(unsigned long long)s->send_errors);
}

/* Serve until end of input; returns the exit status */
static int serve(struct icb_responder *r, const struct peer *p)
{
	static uint8_t in[65536];

	for (;;) {
		ssize_t n = read(p->rfd, in, sizeof(in));
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno == EIO))
			return 0;	/* EOF; EIO: the other side of the pty closed */
		if (n < 0) {
			perror("icb-peer: read");
			return 1;
		}
		err = icb_responder_input(r, in, (size_t)n);
		if (err == -ICB_ESEND) {
			/* the reader went away (EPIPE, EIO): that is the end too */
			return 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct options o;
	struct peer p;
	struct icb_platform plat;
	struct icb_responder r;
	uint8_t *rx, *tx;
	int status;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	if (o.use_stdio) {
		p.rfd = STDIN_FILENO;
		p.wfd = STDOUT_FILENO;
	} else {
		int fd = open(o.path, O_RDWR | O_NOCTTY);

		if (fd < 0) {
			fprintf(stderr, "icb-peer: cannot open %s: %s\n", o.path, strerror(errno));
			return 1;
		}
		if (set_raw(fd, (long)o.baud) < 0) {
			fprintf(stderr, "icb-peer: cannot set raw mode on %s: %s\n", o.path,
				strerror(errno));
			return 1;
		}
		p.rfd = p.wfd = fd;
	}
	p.fault = o.fault;
	p.after = o.fault_after;
	p.sent = 0;
	p.caps_sent = 0;
	/* the program may allocate; the library does not */
	rx = malloc(o.max_frame);
	tx = malloc(o.max_frame);
	if (!rx || !tx) {
		fputs("icb-peer: out of memory\n", stderr);
		return 1;
	}
	o.cfg.clock_hz = o.no_clock ? 0 : 1000000000u;
	o.cfg.clock_id = o.no_clock ? ICB_CLOCK_NONE : ICB_CLOCK_MONOTONIC_RAW;
	plat.ctx = &p;
	plat.send = peer_send;
	plat.now = o.no_clock ? NULL : peer_now;
	if (icb_responder_init(&r, &o.cfg, &plat, rx, o.max_frame, tx, o.max_frame) < 0) {
		fputs("icb-peer: bad configuration\n", stderr);
		return 2;
	}
	if (o.onchip) {
		struct icb_oc_initiator *init;

		if (o.cfg.proto != ICB_PROTO_ICB) {
			fputs("icb-peer: --onchip needs --protocol icb\n", stderr);
			return 2;
		}
		if (!icb_host_onchip_start(o.cpu_init, o.cpu_agent, o.labels, &init))
			return 1;
		icb_responder_set_extra(&r, icb_oc_serve, init);
	}
	status = serve(&r, &p);
	if (o.stats)
		print_stats(&r.stats);
	free(rx);
	free(tx);
	return status;
}
