/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The host port of the on-chip benchmark.  See icb_onchip_host.h.
 * A program, not the library: it may allocate, start threads and use
 * Linux calls (futex(2), sched_setaffinity(2)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "icb_onchip_host.h"

#define HOST_REGIONS	2u
#define HOST_SLOTS	16u
#define HOST_MAX_SIZE	65536u
#define CTL_SLOTS	4u
#define CTL_PAYLOAD	64u
/* Raw samples a cell may return (RUN flag ICB_OC_RAW): 4 MiB of them */
#define HOST_RAW	(1u << 20)

/* A futex doorbell per direction; `seen` is the waiter's last reading */
struct bell {
	uint32_t *tx;		/* rung by this core's sends */
	uint32_t *rx;		/* rung by the other core's */
	uint32_t seen;
};

/* One core: its rings, hooks, doorbells and buffers */
struct core {
	struct icb_oc_side side;
	struct icb_ring_pair ctl;
	struct icb_ring_pair data[HOST_REGIONS];
	struct icb_ring_hooks hooks[HOST_REGIONS + 1];
	struct bell bells[HOST_REGIONS + 1];
};

struct icb_host_onchip {
	struct core init;
	struct core agent;
	uint32_t words[2 * (HOST_REGIONS + 1)];	/* doorbells: i→a, a→i per pair */
	void *mem[HOST_REGIONS + 1];
	size_t mem_bytes[HOST_REGIONS + 1];
	struct icb_oc_chip chip;
	struct icb_hist hist;
	struct icb_oc_initiator initiator;
	uint8_t *bufs[4];
	char labels[1024];
	pthread_t thread;
};

static uint32_t host_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

static void bell_signal(void *ctx, uint8_t notify)
{
	struct bell *b = ctx;

	(void)notify;
	__atomic_fetch_add(b->tx, 1u, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, b->tx, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Returns once rung since the last wait, or after 1 ms (a bounded wait) */
static void bell_wait(void *ctx, uint8_t notify)
{
	struct bell *b = ctx;
	uint32_t cur = __atomic_load_n(b->rx, __ATOMIC_SEQ_CST);
	struct timespec ms = { 0, 1000000 };

	(void)notify;
	if (cur != b->seen) {
		b->seen = cur;
		return;
	}
	syscall(SYS_futex, b->rx, FUTEX_WAIT_PRIVATE, cur, &ms, NULL, 0);
	b->seen = __atomic_load_n(b->rx, __ATOMIC_SEQ_CST);
}

/* A spinning look that found nothing: tell the core (and its sibling) */
static void spin_relax(void *ctx)
{
	(void)ctx;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static int pin(pthread_t t, int cpu, const char *who)
{
	cpu_set_t set;
	int err;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(t, sizeof(set), &set);
	if (err)
		fprintf(stderr, "icb-peer: cannot pin the %s to CPU %d: %s\n", who, cpu,
			strerror(err));
	return err ? -1 : 0;
}

/* One core's view of every pair; the initiator resets the rings */
static int core_init(struct icb_host_onchip *h, struct core *c, int initiator, uint8_t *tx,
		     uint8_t *rx)
{
	uint32_t i;
	int err;

	memset(&c->side, 0, sizeof(c->side));
	for (i = 0; i <= HOST_REGIONS; i++) {
		c->bells[i].tx = &h->words[2 * i + (initiator ? 0 : 1)];
		c->bells[i].rx = &h->words[2 * i + (initiator ? 1 : 0)];
		c->bells[i].seen = 0;
		c->hooks[i].ctx = &c->bells[i];
		c->hooks[i].clean = NULL;
		c->hooks[i].invalidate = NULL;
		c->hooks[i].signal = bell_signal;
		c->hooks[i].wait = bell_wait;
		c->hooks[i].relax = spin_relax;
	}
	err = icb_ring_pair_init(&c->ctl, &c->side.ctl, h->mem[0], h->mem_bytes[0], CTL_SLOTS,
				 CTL_PAYLOAD, &c->hooks[0], initiator, initiator);
	for (i = 0; !err && i < HOST_REGIONS; i++)
		err = icb_ring_pair_init(&c->data[i], &c->side.data[i], h->mem[i + 1],
					 h->mem_bytes[i + 1], HOST_SLOTS, HOST_MAX_SIZE,
					 &c->hooks[i + 1], initiator, initiator);
	c->side.ctl_notify = ICB_NOTIFY_DOORBELL;
	c->side.nregions = HOST_REGIONS;
	c->side.now = host_now;
	c->side.timer_hz = 1000000000u;
	c->side.tx = tx;
	c->side.rx = rx;
	c->side.buf_cap = HOST_MAX_SIZE;
	return err;
}

static void *agent_main(void *arg)
{
	struct core *a = arg;

	for (;;)
		if (!icb_oc_agent_poll(&a->side))
			a->side.ctl.wait(a->side.ctl.ctx, a->side.ctl_notify);
	return NULL;
}

struct icb_host_onchip *icb_host_onchip_start(int cpu_init, int cpu_agent, const char *labels,
					      struct icb_oc_initiator **init)
{
	struct icb_host_onchip *h = calloc(1, sizeof(*h));
	uint32_t i;
	int err;

	if (!h)
		goto oom;
	h->mem_bytes[0] = 2 * icb_ring_bytes(CTL_SLOTS, CTL_PAYLOAD);
	for (i = 1; i <= HOST_REGIONS; i++)
		h->mem_bytes[i] = 2 * icb_ring_bytes(HOST_SLOTS, HOST_MAX_SIZE);
	for (i = 0; i <= HOST_REGIONS; i++)
		if (posix_memalign(&h->mem[i], ICB_RING_ALIGN, h->mem_bytes[i]))
			goto oom;
	for (i = 0; i < 4; i++)
		if (!(h->bufs[i] = malloc(HOST_MAX_SIZE)))
			goto oom;
	if (core_init(h, &h->init, 1, h->bufs[0], h->bufs[1]) ||
	    core_init(h, &h->agent, 0, h->bufs[2], h->bufs[3])) {
		fputs("icb-peer: cannot lay out the on-chip rings\n", stderr);
		return NULL;
	}
	h->chip.cores = 2;
	h->chip.notify = ICB_NOTIFY_POLL | ICB_NOTIFY_DOORBELL;
	h->chip.timer_hz = 1000000000u;
	h->chip.max_size = HOST_MAX_SIZE;
	h->chip.nregions = HOST_REGIONS;
	h->chip.regions[0] = "ram0";
	h->chip.regions[1] = "ram1";
	snprintf(h->labels, sizeof(h->labels), "port=host\ntimer=CLOCK_MONOTONIC_RAW\n%s",
		 labels ? labels : "");
	h->chip.labels = h->labels;
	h->initiator.side = &h->init.side;
	h->initiator.chip = &h->chip;
	h->initiator.hist = &h->hist;
	h->initiator.msg_cap = ICB_OC_RESULT_RAW_MAX(HOST_RAW);
	h->init.side.raw_cap = HOST_RAW;
	if (!(h->initiator.msg = malloc(h->initiator.msg_cap)) ||
	    !(h->init.side.raw = malloc(sizeof(uint32_t) * HOST_RAW)))
		goto oom;
	if (pin(pthread_self(), cpu_init, "initiator"))
		return NULL;
	err = pthread_create(&h->thread, NULL, agent_main, &h->agent);
	if (err) {
		fprintf(stderr, "icb-peer: cannot start the agent thread: %s\n", strerror(err));
		return NULL;
	}
	if (pin(h->thread, cpu_agent, "agent"))
		return NULL;
	*init = &h->initiator;
	return h;
oom:
	fputs("icb-peer: out of memory for the on-chip rings\n", stderr);
	return NULL;
}
