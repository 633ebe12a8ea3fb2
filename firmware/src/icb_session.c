/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Responder sessions of an RPMsg remote (icb_session.h). */
#include <string.h>

#include "icb_session.h"

static int icb_session_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct icb_session *s = ctx;
	const struct icb_sessions_ops *ops = &s->tab->ops;

	if (len > ICB_SESSION_MTU)
		return -1;
	return ops->send(ops->ctx, s->local, s->peer, buf, len) ? -1 : 0;
}

static uint64_t icb_session_now(void *ctx)
{
	struct icb_session *s = ctx;
	const struct icb_sessions_ops *ops = &s->tab->ops;

	return ops->now(ops->ctx);
}

static int icb_session_start(struct icb_sessions *t, struct icb_session *s,
			     enum icb_proto proto)
{
	struct icb_responder_config cfg;
	struct icb_platform plat;

	icb_responder_config_default(&cfg);
	cfg.proto = proto;
	cfg.clock_hz = t->ops.now ? t->ops.clock_hz : 0u;
	cfg.clock_id = t->ops.clock_id;
	plat.ctx = s;
	plat.send = icb_session_send;
	plat.now = t->ops.now ? icb_session_now : NULL;
	s->proto = proto;
	return icb_responder_init(&s->resp, &cfg, &plat, s->rx, sizeof(s->rx), s->tx,
				  sizeof(s->tx));
}

void icb_sessions_init(struct icb_sessions *t, struct icb_session *sess, uint32_t n,
		       const struct icb_sessions_ops *ops)
{
	memset(t, 0, sizeof(*t));
	if (n)
		memset(sess, 0, (size_t)n * sizeof(*sess));
	t->sess = sess;
	t->n = n;
	t->ops = *ops;
}

struct icb_session *icb_sessions_get(struct icb_sessions *t, uint32_t local, uint32_t peer,
				     enum icb_proto proto)
{
	struct icb_session *s = NULL, *lru;
	uint32_t i;

	if (!t->n)
		return NULL;
	lru = &t->sess[0];
	for (i = 0; i < t->n; i++) {
		struct icb_session *c = &t->sess[i];

		if (c->used && c->local == local && c->peer == peer) {
			s = c;
			break;
		}
		/* the first free slot, else the least recently used */
		if (lru->used && (!c->used || c->last_use < lru->last_use))
			lru = c;
	}
	if (!s) {
		s = lru;
		if (s->used)
			t->evicted++;
		s->used = 1;
		s->tab = t;
		s->local = local;
		s->peer = peer;
		if (icb_session_start(t, s, proto)) {
			s->used = 0;
			return NULL;
		}
	} else if (s->proto != proto && icb_session_start(t, s, proto)) {
		s->used = 0;
		return NULL;
	}
	s->last_use = ++t->clock;
	return s;
}

int icb_sessions_input(struct icb_sessions *t, uint32_t local, uint32_t peer,
		       enum icb_proto proto, const uint8_t *data, size_t len)
{
	struct icb_session *s = icb_sessions_get(t, local, peer, proto);

	if (!s)
		return -1;
	return icb_responder_input(&s->resp, data, len);
}
