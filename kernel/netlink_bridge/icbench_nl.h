/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * icbench netlink bridge: the generic netlink family "icbench_bridge".
 * Mirrored by crates/icbench-link/src/sys/nlbridge.rs.
 *
 * A client is a netlink socket (port id).  Its first OPEN or SEND gives it
 * its own rpmsg endpoint on the "icbench-netlink" channel, so several
 * clients talk to the remote at once and each gets its own replies.
 *
 *   OPEN  → reply OPEN  {ADDR: endpoint address, MTU: rpmsg payload limit}
 *   SEND  {DATA} → the bytes go out in chunks of at most MTU, one rpmsg
 *         message each; reply SENT {COUNT: bytes sent, CHUNKS: messages,
 *         ERRNO: only if a chunk failed (COUNT then says how far it got),
 *         DROPS: RECV messages this client lost so far (socket full)}
 *   RECV  (to the client) {DATA: one rpmsg message from the remote, ADDR: its source}
 *   CLOSE → the endpoint is destroyed (also when the socket closes)
 * Errors before anything is sent come back as NLMSG_ERROR (e.g. -ENODEV
 * while the remote is down, -EINVAL without DATA).
 */
#ifndef ICBENCH_NL_H
#define ICBENCH_NL_H

#define ICBNL_FAMILY_NAME	"icbench_bridge"
#define ICBNL_VERSION		1
#define ICBNL_CHANNEL		"icbench-netlink"
#define ICBNL_MAX_DATA		65000

enum icbnl_cmd {
	ICBNL_CMD_UNSPEC,
	ICBNL_CMD_OPEN,
	ICBNL_CMD_SEND,
	ICBNL_CMD_SENT,
	ICBNL_CMD_RECV,
	ICBNL_CMD_CLOSE,
	__ICBNL_CMD_MAX,
};

enum icbnl_attr {
	ICBNL_A_UNSPEC,
	ICBNL_A_DATA,		/* binary */
	ICBNL_A_ADDR,		/* u32 */
	ICBNL_A_MTU,		/* u32 */
	ICBNL_A_COUNT,		/* u32 */
	ICBNL_A_CHUNKS,		/* u32 */
	ICBNL_A_ERRNO,		/* s32, negative */
	ICBNL_A_DROPS,		/* u32 */
	__ICBNL_A_MAX,
};
#define ICBNL_A_MAX (__ICBNL_A_MAX - 1)

#endif /* ICBENCH_NL_H */
