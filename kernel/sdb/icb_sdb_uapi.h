/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The user interface of ST's stm32-rpmsg-sdb driver, as icb_sdb implements
 * it (facts taken from the driver's public source, STMicroelectronics'
 * meta-st-stm32mpu-app-logicanalyser, recipes-kernel/rpmsg-sdb-mod):
 *
 *  - misc device "rpmsg-sdb" (/dev/rpmsg-sdb), bound to the rpmsg channel
 *    "rpmsg-sdb-channel" that the remote announces;
 *  - per buffer: RPMSG_SDB_IOCTL_SET_EFD (the driver assigns the next id,
 *    0, 1, …, in call order; bufferId in the argument is not read), then
 *    mmap() of the buffer's size, which allocates it and sends the remote
 *    "B<id>A<bus address %08x>L<size %08x>";
 *  - the remote reports a filled buffer with "B<id>L<length %08x>"; the
 *    driver signals that buffer's eventfd (count 1), and
 *    RPMSG_SDB_IOCTL_GET_DATA_SIZE returns the length once and resets it
 *    to 0xffffffff;
 *  - both ioctl numbers are encoded with the size of a *pointer* to the
 *    structure (ST wrote `struct … *` in the _IOW/_IOWR macro): 8 bytes on
 *    64-bit kernels, 4 on the STM32MP1's 32-bit one.
 *
 * icbench's addition (not in ST's driver): write() sends its bytes as one
 * rpmsg message on the channel — the fill / check / copy commands of
 * firmware/include/icb_sdb.h. With ST's driver those commands travel on a
 * second rpmsg channel instead (docs/rpmsg.md, "sdb").
 */
#ifndef ICB_SDB_UAPI_H
#define ICB_SDB_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct rpmsg_sdb_ioctl_set_efd {
	int bufferId;
	int eventfd;
};

struct rpmsg_sdb_ioctl_get_data_size {
	int bufferId;
	__u32 size;
};

#define RPMSG_SDB_IOCTL_SET_EFD \
	_IOW('R', 0x00, struct rpmsg_sdb_ioctl_set_efd *)
#define RPMSG_SDB_IOCTL_GET_DATA_SIZE \
	_IOWR('R', 0x01, struct rpmsg_sdb_ioctl_get_data_size *)

#define RPMSG_SDB_DEV_NAME	"rpmsg-sdb"
#define RPMSG_SDB_CHANNEL	"rpmsg-sdb-channel"
/* GET_DATA_SIZE's answer when the remote reported nothing since */
#define RPMSG_SDB_NO_DATA	0xffffffffu

#endif /* ICB_SDB_UAPI_H */
