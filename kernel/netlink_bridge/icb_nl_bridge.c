// SPDX-License-Identifier: GPL-2.0
/*
 * icb_nl_bridge: a generic netlink family bridged to an rpmsg channel — the
 * dimtass rpmsg_netlink design (shared/research/embedded-ipc-anchors.md §1.6)
 * with its bugs fixed:
 *  - chunks are cut from the payload at byte offsets (the original advanced
 *    a struct nlmsghdr pointer by the chunk size and resent nlmsg_data(nlh)),
 *    at most rpmsg_get_mtu() bytes each (upstream API, not ST's
 *    rpmsg_get_buffer_size());
 *  - the count returned is the number of bytes actually sent (the original
 *    answered every rpmsg message with its own buffer size);
 *  - several clients: each netlink socket gets its own rpmsg endpoint, so the
 *    remote's replies go back to the socket that asked (the original had one
 *    global port id, overwritten by the last sender);
 *  - a family resolved by name (generic netlink) instead of a hard-coded
 *    protocol number 31, length-checked attributes, no fixed 2 KiB limit;
 *  - endpoints are destroyed when their socket closes (NETLINK_URELEASE) and
 *    when the channel goes away (remote stopped or crashed).
 * The wire format is in icbench_nl.h.
 *
 * compat_unit=31 (module parameter; 0, the default, leaves it off) adds the
 * seed's own interface beside the family, so that seed 001's unmodified
 * client (built from its author's repository, docs/rpmsg.md) and
 * kernel/tools/nlunit31, which sends that client's bytes, run against this
 * bridge: a raw netlink kernel socket on that protocol unit, with 001's wire
 * behaviour (embedded-ipc-anchors.md §1.6) and none of its memory bugs:
 *  - one netlink message in = its payload out to the remote, in chunks of
 *    at most rpmsg_get_mtu() bytes. The payload is what nlmsg_len declares,
 *    but at most skb->len bytes: the seed's client sets iov_len to the data
 *    length, leaving its 16-byte header out, so each message arrives 16
 *    bytes short of nlmsg_len; the seed's module sent skb->len bytes from
 *    nlmsg_data(), i.e. read 16 bytes past the message, and the remote's
 *    byte count relied on it. Here those missing bytes go out as zeros: the
 *    seed's count, no read past the message. A well-formed message
 *    (nlmsg_len == skb->len, icbench's `netlink-bridge:?unit=31`) goes out
 *    exactly as its payload.
 *  - each rpmsg message from the remote goes back as one netlink message of
 *    type NLMSG_DONE whose payload is that rpmsg message, so the client gets
 *    the remote's 2-byte count (the seed's module put its own rpmsg buffer
 *    size there; its client prints recvmsg's return value, 20, either way);
 *  - a message that cannot be forwarded (no remote, a failed send) is
 *    answered with NLMSG_ERROR, so a client waiting for its reply does not
 *    wait for ever (the seed's module only logged it);
 *  - each socket (port id) gets its own endpoint, as on the family; the
 *    seed's client opens a new socket, bound to its pid, per test.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rpmsg.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "icbench_nl.h"

struct icbnl_client {
	struct list_head node;
	struct kref ref;
	struct mutex lock;		/* serialises sends; guards ept */
	struct rpmsg_endpoint *ept;	/* NULL once closed */
	u32 portid;
	int proto;			/* NETLINK_GENERIC or compat_unit */
	atomic_t drops;			/* RECVs the socket could not take */
};

static DEFINE_MUTEX(icbnl_lock);	/* guards icbnl_rpdev and icbnl_clients */
static struct rpmsg_device *icbnl_rpdev;
static LIST_HEAD(icbnl_clients);
static struct genl_family icbnl_family;

/* Seed 001's raw netlink interface (header comment); 0 = off. */
static int compat_unit;
module_param(compat_unit, int, 0444);
MODULE_PARM_DESC(compat_unit,
		 "also serve seed 001's raw netlink protocol on this unit (31, as the seed); 0 = off");
static struct sock *icbnl_compat_sk;

static void icbnl_client_free(struct kref *ref)
{
	kfree(container_of(ref, struct icbnl_client, ref));
}

/* A message from the remote for this client's endpoint: forward it. Runs
 * in the rpmsg receive path (may be atomic on other platforms). */
static int icbnl_rpmsg_cb(struct rpmsg_device *rpdev, void *data, int len,
			  void *priv, u32 src)
{
	struct icbnl_client *c = priv;
	struct sk_buff *skb;
	struct nlmsghdr *nlh;
	void *hdr;

	if (c->proto != NETLINK_GENERIC) {
		/* compat: the remote's message as the payload of one message */
		skb = nlmsg_new(len, GFP_ATOMIC);
		if (!skb)
			goto drop;
		nlh = nlmsg_put(skb, 0, 0, NLMSG_DONE, len, 0);
		if (!nlh) {
			nlmsg_free(skb);
			goto drop;
		}
		memcpy(nlmsg_data(nlh), data, len);
		if (nlmsg_unicast(icbnl_compat_sk, skb, c->portid))
			goto drop;
		return 0;
	}
	skb = genlmsg_new(nla_total_size(len) + nla_total_size(4), GFP_ATOMIC);
	if (!skb)
		goto drop;
	hdr = genlmsg_put(skb, 0, 0, &icbnl_family, 0, ICBNL_CMD_RECV);
	if (!hdr || nla_put(skb, ICBNL_A_DATA, len, data) ||
	    nla_put_u32(skb, ICBNL_A_ADDR, src)) {
		nlmsg_free(skb);
		goto drop;
	}
	genlmsg_end(skb, hdr);
	if (genlmsg_unicast(&init_net, skb, c->portid))
		goto drop;
	return 0;
drop:
	atomic_inc(&c->drops);
	return 0;
}

/* Close c's endpoint (it then takes no more callbacks) and drop the list's
 * reference.  Caller holds icbnl_lock and has unlinked c. */
static void icbnl_client_close(struct icbnl_client *c)
{
	mutex_lock(&c->lock);
	if (c->ept)
		rpmsg_destroy_ept(c->ept);
	c->ept = NULL;
	mutex_unlock(&c->lock);
	kref_put(&c->ref, icbnl_client_free);
}

/* The client of @portid, created with its endpoint on first use; returned
 * with a reference held. */
static struct icbnl_client *icbnl_client_get(u32 portid, int proto, int *err)
{
	struct rpmsg_channel_info chinfo = { .src = RPMSG_ADDR_ANY };
	struct icbnl_client *c;

	mutex_lock(&icbnl_lock);
	list_for_each_entry(c, &icbnl_clients, node) {
		if (c->portid == portid && c->proto == proto) {
			kref_get(&c->ref);
			goto out;
		}
	}
	c = NULL;
	*err = -ENODEV;
	if (!icbnl_rpdev)
		goto out;
	*err = -ENOMEM;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto out;
	kref_init(&c->ref);
	mutex_init(&c->lock);
	c->portid = portid;
	c->proto = proto;
	strscpy(chinfo.name, ICBNL_CHANNEL, sizeof(chinfo.name));
	chinfo.dst = icbnl_rpdev->dst;
	c->ept = rpmsg_create_ept(icbnl_rpdev, icbnl_rpmsg_cb, c, chinfo);
	if (!c->ept) {
		kfree(c);
		c = NULL;
		goto out;
	}
	list_add(&c->node, &icbnl_clients);
	kref_get(&c->ref);
out:
	mutex_unlock(&icbnl_lock);
	return c;
}

static int icbnl_reply(struct genl_info *info, u8 cmd,
		       int (*fill)(struct sk_buff *skb, void *arg), void *arg)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &icbnl_family, 0, cmd);
	if (!hdr || fill(skb, arg)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

static int icbnl_fill_open(struct sk_buff *skb, void *arg)
{
	struct icbnl_client *c = arg;
	int ret = -ENODEV;

	mutex_lock(&c->lock);
	if (c->ept)
		ret = nla_put_u32(skb, ICBNL_A_ADDR, c->ept->addr) ?:
		      nla_put_u32(skb, ICBNL_A_MTU, rpmsg_get_mtu(c->ept));
	mutex_unlock(&c->lock);
	return ret;
}

static int icbnl_open(struct sk_buff *skb, struct genl_info *info)
{
	struct icbnl_client *c;
	int err, ret;

	c = icbnl_client_get(info->snd_portid, NETLINK_GENERIC, &err);
	if (!c)
		return err;
	ret = icbnl_reply(info, ICBNL_CMD_OPEN, icbnl_fill_open, c);
	kref_put(&c->ref, icbnl_client_free);
	return ret;
}

struct icbnl_sent {
	u32 count, chunks, drops;
	int err;
};

static int icbnl_fill_sent(struct sk_buff *skb, void *arg)
{
	struct icbnl_sent *s = arg;

	return nla_put_u32(skb, ICBNL_A_COUNT, s->count) ?:
	       nla_put_u32(skb, ICBNL_A_CHUNKS, s->chunks) ?:
	       nla_put_u32(skb, ICBNL_A_DROPS, s->drops) ?:
	       (s->err ? nla_put_s32(skb, ICBNL_A_ERRNO, s->err) : 0);
}

/* Send DATA to the remote in MTU-sized rpmsg messages, blocking for TX
 * buffers as rpmsg_send does (up to 15 s each, virtio_rpmsg_bus.c). */
static int icbnl_send(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[ICBNL_A_DATA];
	struct icbnl_sent s = {};
	struct icbnl_client *c;
	const u8 *p;
	int len, err, mtu;

	if (!a)
		return -EINVAL;
	c = icbnl_client_get(info->snd_portid, NETLINK_GENERIC, &err);
	if (!c)
		return err;
	p = nla_data(a);
	len = nla_len(a);
	mutex_lock(&c->lock);
	if (!c->ept) {
		s.err = -ENODEV;
	} else {
		mtu = rpmsg_get_mtu(c->ept);
		if (mtu <= 0)
			s.err = mtu ? mtu : -EINVAL;
		while (!s.err && s.count < len) {
			int n = min(len - (int)s.count, mtu);

			s.err = rpmsg_send(c->ept, (void *)(p + s.count), n);
			if (!s.err) {
				s.count += n;
				s.chunks++;
			}
		}
	}
	mutex_unlock(&c->lock);
	s.drops = atomic_read(&c->drops);
	kref_put(&c->ref, icbnl_client_free);
	if (s.err && !s.count)
		return s.err;
	return icbnl_reply(info, ICBNL_CMD_SENT, icbnl_fill_sent, &s);
}

static void icbnl_forget(u32 portid, int proto)
{
	struct icbnl_client *c, *n;

	mutex_lock(&icbnl_lock);
	list_for_each_entry_safe(c, n, &icbnl_clients, node) {
		if (c->portid == portid && c->proto == proto) {
			list_del(&c->node);
			icbnl_client_close(c);
		}
	}
	mutex_unlock(&icbnl_lock);
}

static int icbnl_close(struct sk_buff *skb, struct genl_info *info)
{
	icbnl_forget(info->snd_portid, NETLINK_GENERIC);
	return 0;
}

static const struct nla_policy icbnl_policy[ICBNL_A_MAX + 1] = {
	[ICBNL_A_DATA] = { .type = NLA_BINARY, .len = ICBNL_MAX_DATA },
	[ICBNL_A_ADDR] = { .type = NLA_U32 },
	[ICBNL_A_MTU] = { .type = NLA_U32 },
	[ICBNL_A_COUNT] = { .type = NLA_U32 },
	[ICBNL_A_CHUNKS] = { .type = NLA_U32 },
	[ICBNL_A_ERRNO] = { .type = NLA_S32 },
	[ICBNL_A_DROPS] = { .type = NLA_U32 },
};

static const struct genl_small_ops icbnl_ops[] = {
	{ .cmd = ICBNL_CMD_OPEN, .doit = icbnl_open },
	{ .cmd = ICBNL_CMD_SEND, .doit = icbnl_send },
	{ .cmd = ICBNL_CMD_CLOSE, .doit = icbnl_close },
};

static struct genl_family icbnl_family __ro_after_init = {
	.name = ICBNL_FAMILY_NAME,
	.version = ICBNL_VERSION,
	.maxattr = ICBNL_A_MAX,
	.policy = icbnl_policy,
	.module = THIS_MODULE,
	.small_ops = icbnl_ops,
	.n_small_ops = ARRAY_SIZE(icbnl_ops),
	.parallel_ops = true,	/* a client blocked on TX buffers must not block others */
};

static int icbnl_notify(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE)
		return NOTIFY_DONE;
	if (n->protocol == NETLINK_GENERIC ||
	    (icbnl_compat_sk && n->protocol == compat_unit))
		icbnl_forget(n->portid, n->protocol);
	return NOTIFY_DONE;
}

static struct notifier_block icbnl_notifier = { .notifier_call = icbnl_notify };

/* --- seed 001's raw netlink interface (compat_unit) ------------------ */

/* NLMSG_ERROR with @err to the sender of @in (header only: the seed's
 * client's nlmsg_len overstates its message, so netlink_ack, which copies
 * nlmsg_len bytes of the request, must not be used on it). */
static void icbnl_compat_error(u32 portid, const struct nlmsghdr *in, int err)
{
	struct sk_buff *skb = nlmsg_new(sizeof(struct nlmsgerr), GFP_KERNEL);
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	if (!skb)
		return;
	nlh = nlmsg_put(skb, 0, in->nlmsg_seq, NLMSG_ERROR, sizeof(*e), 0);
	if (!nlh) {
		nlmsg_free(skb);
		return;
	}
	e = nlmsg_data(nlh);
	e->error = err;
	e->msg = *in;
	nlmsg_unicast(icbnl_compat_sk, skb, portid);
}

/* One message from a raw socket on compat_unit, in the sender's context
 * (netlink_unicast_kernel), so rpmsg_send may block for TX buffers as the
 * family's SEND does. The length rule is in the header comment. */
static void icbnl_compat_input(struct sk_buff *skb)
{
	u32 portid = NETLINK_CB(skb).portid;
	struct icbnl_client *c;
	struct nlmsghdr *nlh;
	const u8 *p;
	u8 *bounce = NULL;
	int have, len, sent = 0, err = 0, mtu;

	if (skb->len < NLMSG_HDRLEN) {
		pr_warn_ratelimited("icb_nl_bridge: unit %d, port %u: %u B, no netlink header: ignored\n",
				    compat_unit, portid, skb->len);
		return;
	}
	nlh = nlmsg_hdr(skb);
	if (nlh->nlmsg_len < NLMSG_HDRLEN) {
		icbnl_compat_error(portid, nlh, -EINVAL);
		return;
	}
	have = skb->len - NLMSG_HDRLEN;
	len = min_t(u32, nlh->nlmsg_len - NLMSG_HDRLEN, skb->len);
	p = nlmsg_data(nlh);
	if (len > have) {
		/* the seed client's missing tail (at most NLMSG_HDRLEN bytes) */
		bounce = kzalloc(len, GFP_KERNEL);
		if (!bounce) {
			icbnl_compat_error(portid, nlh, -ENOMEM);
			return;
		}
		memcpy(bounce, p, have);
		p = bounce;
	}
	c = icbnl_client_get(portid, compat_unit, &err);
	if (c) {
		err = 0;	/* icbnl_client_get sets it only for a NULL return */
		mutex_lock(&c->lock);
		mtu = c->ept ? rpmsg_get_mtu(c->ept) : -ENODEV;
		if (mtu <= 0)
			err = mtu ? mtu : -EINVAL;
		while (!err && sent < len) {
			int n = min(len - sent, mtu);

			err = rpmsg_send(c->ept, (void *)(p + sent), n);
			if (!err)
				sent += n;
		}
		mutex_unlock(&c->lock);
		kref_put(&c->ref, icbnl_client_free);
	}
	kfree(bounce);
	if (err) {
		pr_warn_ratelimited("icb_nl_bridge: unit %d, port %u: sent %d of %d B: %d\n",
				    compat_unit, portid, sent, len, err);
		icbnl_compat_error(portid, nlh, err);
	}
}

/* --- the rpmsg channel --------------------------------------------- */

/* Messages to the channel's default endpoint: clients use their own. */
static int icbnl_default_cb(struct rpmsg_device *rpdev, void *data, int len,
			    void *priv, u32 src)
{
	dev_dbg(&rpdev->dev, "%d bytes from 0x%x to the default endpoint\n", len, src);
	return 0;
}

static int icbnl_probe(struct rpmsg_device *rpdev)
{
	int ret = 0;

	mutex_lock(&icbnl_lock);
	if (icbnl_rpdev)
		ret = -EBUSY;	/* one remote per bridge */
	else
		icbnl_rpdev = rpdev;
	mutex_unlock(&icbnl_lock);
	if (!ret)
		dev_info(&rpdev->dev, "netlink family %s bridged to 0x%x, mtu %zd\n",
			 ICBNL_FAMILY_NAME, rpdev->dst, rpmsg_get_mtu(rpdev->ept));
	if (!ret && icbnl_compat_sk)
		dev_info(&rpdev->dev, "netlink unit %d (seed 001) bridged to 0x%x\n",
			 compat_unit, rpdev->dst);
	return ret;
}

static void icbnl_remove(struct rpmsg_device *rpdev)
{
	struct icbnl_client *c, *n;

	mutex_lock(&icbnl_lock);
	if (icbnl_rpdev == rpdev) {
		list_for_each_entry_safe(c, n, &icbnl_clients, node) {
			list_del(&c->node);
			icbnl_client_close(c);
		}
		icbnl_rpdev = NULL;
	}
	mutex_unlock(&icbnl_lock);
}

static struct rpmsg_device_id icbnl_id_table[] = {
	{ .name = ICBNL_CHANNEL },
	{},
};
MODULE_DEVICE_TABLE(rpmsg, icbnl_id_table);

static struct rpmsg_driver icbnl_driver = {
	.drv.name = KBUILD_MODNAME,
	.id_table = icbnl_id_table,
	.probe = icbnl_probe,
	.callback = icbnl_default_cb,
	.remove = icbnl_remove,
};

static int __init icbnl_init(void)
{
	int ret = genl_register_family(&icbnl_family);

	if (ret)
		return ret;
	ret = netlink_register_notifier(&icbnl_notifier);
	if (ret)
		goto err_family;
	if (compat_unit) {
		struct netlink_kernel_cfg cfg = { .input = icbnl_compat_input };

		ret = -EINVAL;
		if (compat_unit < 0 || compat_unit >= MAX_LINKS ||
		    compat_unit == NETLINK_GENERIC) {
			pr_err("icb_nl_bridge: compat_unit=%d: give a free netlink unit 1-%d (the seed's is 31), or 0 for none\n",
			       compat_unit, MAX_LINKS - 1);
			goto err_notifier;
		}
		icbnl_compat_sk = netlink_kernel_create(&init_net, compat_unit, &cfg);
		ret = -EADDRINUSE;
		if (!icbnl_compat_sk) {
			pr_err("icb_nl_bridge: compat_unit=%d: that netlink unit is taken; give a free one (the seed's is 31)\n",
			       compat_unit);
			goto err_notifier;
		}
	}
	ret = register_rpmsg_driver(&icbnl_driver);
	if (ret)
		goto err_compat;
	return 0;
err_compat:
	if (icbnl_compat_sk)
		netlink_kernel_release(icbnl_compat_sk);
	icbnl_compat_sk = NULL;
err_notifier:
	netlink_unregister_notifier(&icbnl_notifier);
err_family:
	genl_unregister_family(&icbnl_family);
	return ret;
}

static void __exit icbnl_exit(void)
{
	unregister_rpmsg_driver(&icbnl_driver);
	netlink_unregister_notifier(&icbnl_notifier);
	if (icbnl_compat_sk)
		netlink_kernel_release(icbnl_compat_sk);
	genl_unregister_family(&icbnl_family);
}

module_init(icbnl_init);
module_exit(icbnl_exit);
MODULE_DESCRIPTION("icbench: a generic netlink family bridged to an rpmsg channel");
MODULE_LICENSE("GPL");
