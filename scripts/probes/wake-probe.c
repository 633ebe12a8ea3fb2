/*
 * wake-probe: does a short cross-CPU wake-up probe follow the next 20 ms
 * pipe ping-pong block? (issue #28 item 1; docs/results.md, "The wake-up
 * trip"). The measurements behind icbench's wake-up trip in the state probe.
 *
 * Alternates, between CPU 0 (this thread) and CPU 1 (an echo thread that
 * sleeps in read(2)): a one-cache-line ping-pong of 2,000 round trips, a
 * probe of N one-byte pipe round trips, a 20 ms block of pipe round trips,
 * the probe again; then sleeps 20 ms. Prints one line per window:
 *
 *     WINDOW PROBE_BEFORE_NS BLOCK_P50_NS LINE_P50_NS PROBE_AFTER_NS
 *
 * (medians; CLOCK_MONOTONIC). Build and run:
 *
 *     gcc -O2 -Wall -Wextra -pthread -o wake-probe scripts/probes/wake-probe.c
 *     ./wake-probe 20 16 > windows.txt     # 20 s, probes of 16 round trips
 *
 * Then correlate log(BLOCK) with log(PROBE_BEFORE), with the mean of both
 * probes, or with PROBE_BEFORE and the next window's PROBE_BEFORE.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ICB_MAX_SAMPLES 65536u /* 20 ms of 0.3 µs round trips; 512 KiB on the stack */
#define ICB_BLOCK_NS 20000000ull

struct icb_wp {
	int to_peer[2];
	int to_host[2];
	_Alignas(64) _Atomic uint64_t ping;
	_Alignas(64) _Atomic uint64_t pong;
	_Atomic int spin;
	uint64_t seq;
	uint64_t samples[ICB_MAX_SAMPLES];
};

static uint64_t icb_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void icb_pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static int icb_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t icb_median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof v[0], icb_cmp);
	return n ? v[n / 2] : 0;
}

/* The echo end: 1 echoes, 2 spins on the cache line until told, 0 ends. */
static void *icb_peer(void *arg)
{
	struct icb_wp *w = arg;
	char c;
	icb_pin(1);
	while (read(w->to_peer[0], &c, 1) == 1 && c != 0) {
		if (c == 2) {
			uint64_t seen = 0;
			while (atomic_load(&w->spin)) {
				uint64_t p = atomic_load(&w->ping);
				if (p != seen) {
					seen = p;
					atomic_store(&w->pong, p);
				}
			}
			continue;
		}
		if (write(w->to_host[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/* Pipe round trips: `n` of them, or as many as fit in `dur_ns` (if not 0). */
static uint64_t icb_pipe(struct icb_wp *w, unsigned n, uint64_t dur_ns)
{
	uint64_t end = icb_now() + dur_ns;
	unsigned k = 0;
	while (k < n && (dur_ns == 0 || icb_now() < end)) {
		uint64_t t0 = icb_now();
		char c = 1;
		if (write(w->to_peer[1], &c, 1) != 1 || read(w->to_host[0], &c, 1) != 1)
			break;
		w->samples[k++] = icb_now() - t0;
	}
	return icb_median(w->samples, k);
}

static uint64_t icb_line(struct icb_wp *w, unsigned n)
{
	char c = 2;
	atomic_store(&w->spin, 1);
	if (write(w->to_peer[1], &c, 1) != 1)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = icb_now();
		w->seq++;
		atomic_store(&w->ping, w->seq);
		while (atomic_load(&w->pong) != w->seq)
			;
		w->samples[i] = icb_now() - t0;
	}
	atomic_store(&w->spin, 0);
	return icb_median(w->samples, n);
}

int main(int argc, char **argv)
{
	struct icb_wp w = {0};
	int secs = argc > 1 ? atoi(argv[1]) : 20;
	unsigned trips = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
	pthread_t peer;
	char c = 0;

	if (trips == 0 || trips > ICB_MAX_SAMPLES || pipe(w.to_peer) || pipe(w.to_host)) {
		fprintf(stderr, "usage: wake-probe [SECONDS] [PROBE_TRIPS 1-%u]\n", ICB_MAX_SAMPLES);
		return 2;
	}
	icb_pin(0);
	pthread_create(&peer, NULL, icb_peer, &w);
	uint64_t end = icb_now() + (uint64_t)secs * 1000000000ull;
	for (int win = 0; icb_now() < end; win++) {
		uint64_t line = icb_line(&w, 2000);
		uint64_t before = icb_pipe(&w, trips, 0);
		uint64_t block = icb_pipe(&w, ICB_MAX_SAMPLES, ICB_BLOCK_NS);
		uint64_t after = icb_pipe(&w, trips, 0);
		printf("%d %llu %llu %llu %llu\n", win, (unsigned long long)before,
		       (unsigned long long)block, (unsigned long long)line,
		       (unsigned long long)after);
		usleep(20000);
	}
	if (write(w.to_peer[1], &c, 1) == 1)
		pthread_join(peer, NULL);
	return 0;
}
