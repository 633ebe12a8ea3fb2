// SPDX-License-Identifier: GPL-2.0
/*
 * virtual_rproc: registers a remoteproc device (on a platform device this
 * module creates) whose remote processor is a kernel thread pinned to CPU
 * @cpu.  `echo start > /sys/class/remoteproc/remoteprocN/state` makes the
 * remoteproc core load @firmware from /lib/firmware — an ELF image with a
 * .resource_table section declaring one rpmsg vdev (made by mkfw.py) —
 * through the stock ELF helpers (rproc_elf_sanity_check, _load_rsc_table,
 * _load_segments, _find_loaded_rsc_table), exactly as stm32_rproc and
 * imx_rproc do.  Its PT_LOAD segment lands in this remote's "SRAM" through
 * rproc_ops.da_to_va; the core copies the resource table it filled in
 * (vring addresses, notify ids) there, and the thread reads it from there.
 *
 * Faults (all writable at run time under /sys/module/virtual_rproc/parameters):
 *   delay_us       sleep this long before answering each message
 *   drop_every     drop every Nth message Linux sends (0: never)
 *   corrupt_every  flip a byte in every Nth reply (0: never)
 *   stall          1: stop consuming Linux's messages (its TX vring fills,
 *                  senders block or get -ENOMEM/-EAGAIN: the 000 tty hang)
 *   crash          write 1: the remote "faults" and calls rproc_report_crash,
 *                  so remoteproc's crash handling and recovery run
 *                  (state reads `crashed` while recovery is disabled)
 * Protocols answered per channel: proto_raw, proto_tty, proto_nl
 * (icb|dimtass|raw; a change applies to the next message of a session).
 * Counters: /sys/devices/platform/virtual-rproc/stats.
 */
#include <linux/dma-mapping.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vrproc.h"

static int cpu = 1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU the remote's thread is pinned to (default 1)");

static char *firmware = "icbench-vrproc.elf";
module_param(firmware, charp, 0444);
MODULE_PARM_DESC(firmware, "firmware image in /lib/firmware (default icbench-vrproc.elf)");

static unsigned int vring_num;
module_param(vring_num, uint, 0444);
MODULE_PARM_DESC(vring_num, "buffers per vring, a power of 2 (0: as the image declares)");

static unsigned int delay_us, drop_every, corrupt_every;
static bool stall;
static int vrproc_set_wake(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops uint_wake_ops = {
	.set = vrproc_set_wake, .get = param_get_uint,
};
static int vrproc_set_bool_wake(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops bool_wake_ops = {
	.set = vrproc_set_bool_wake, .get = param_get_bool,
};
module_param_cb(delay_us, &uint_wake_ops, &delay_us, 0644);
MODULE_PARM_DESC(delay_us, "fault: delay before answering each message, µs");
module_param_cb(drop_every, &uint_wake_ops, &drop_every, 0644);
MODULE_PARM_DESC(drop_every, "fault: drop every Nth message from Linux (0: never)");
module_param_cb(corrupt_every, &uint_wake_ops, &corrupt_every, 0644);
MODULE_PARM_DESC(corrupt_every, "fault: corrupt every Nth reply (0: never)");
module_param_cb(stall, &bool_wake_ops, &stall, 0644);
MODULE_PARM_DESC(stall, "fault: 1 = stop consuming Linux's messages");

static int vrproc_set_crash(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops crash_ops = { .set = vrproc_set_crash };
module_param_cb(crash, &crash_ops, NULL, 0200);
MODULE_PARM_DESC(crash, "fault: write 1 to crash the remote (rproc_report_crash)");

static int proto_raw = ICB_PROTO_ICB, proto_tty = ICB_PROTO_ICB, proto_nl = ICB_PROTO_ICB;
static int vrproc_set_proto(const char *val, const struct kernel_param *kp);
static int vrproc_get_proto(char *buf, const struct kernel_param *kp);
static const struct kernel_param_ops proto_ops = {
	.set = vrproc_set_proto, .get = vrproc_get_proto,
};
module_param_cb(proto_raw, &proto_ops, &proto_raw, 0644);
MODULE_PARM_DESC(proto_raw, "protocol on rpmsg-raw: icb|dimtass|raw");
module_param_cb(proto_tty, &proto_ops, &proto_tty, 0644);
MODULE_PARM_DESC(proto_tty, "protocol on rpmsg-tty: icb|dimtass|raw");
module_param_cb(proto_nl, &proto_ops, &proto_nl, 0644);
MODULE_PARM_DESC(proto_nl, "protocol on icbench-netlink: icb|dimtass|raw");

/* The one device this module creates (module parameters reach it here). */
static struct vrproc *the_vrproc;

static const char *const proto_names[] = {
	[ICB_PROTO_ICB] = "icb", [ICB_PROTO_DIMTASS] = "dimtass", [ICB_PROTO_RAW] = "raw",
};

static void vrproc_wake(void)
{
	struct vrproc *vp = READ_ONCE(the_vrproc);

	if (vp) {
		atomic_set(&vp->kicked, 1);
		wake_up_interruptible(&vp->wq);
	}
}

static int vrproc_set_wake(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		vrproc_wake();
	return ret;
}

static int vrproc_set_bool_wake(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret)
		vrproc_wake();
	return ret;
}

static int vrproc_set_crash(const char *val, const struct kernel_param *kp)
{
	struct vrproc *vp = READ_ONCE(the_vrproc);
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on && vp) {
		if (!vp->thread)
			return -ENODEV;	/* nothing runs: nothing can crash */
		atomic_set(&vp->crash_req, 1);
		wake_up_interruptible(&vp->wq);
	}
	return 0;
}

static int vrproc_set_proto(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(proto_names); i++) {
		if (sysfs_streq(val, proto_names[i])) {
			WRITE_ONCE(*(int *)kp->arg, i);
			return 0;
		}
	}
	pr_err("virtual_rproc: %s: '%s' is not a protocol (allowed: icb, dimtass, raw)\n",
	       kp->name, val);
	return -EINVAL;
}

static int vrproc_get_proto(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", proto_names[READ_ONCE(*(int *)kp->arg)]);
}

void vrproc_get_faults(struct vrproc_faults *f)
{
	f->delay_us = READ_ONCE(delay_us);
	f->drop_every = READ_ONCE(drop_every);
	f->corrupt_every = READ_ONCE(corrupt_every);
	f->stall = READ_ONCE(stall);
}

enum icb_proto vrproc_chan_proto(u32 addr)
{
	switch (addr) {
	case VRPROC_ADDR_TTY:
		return READ_ONCE(proto_tty);
	case VRPROC_ADDR_NL:
		return READ_ONCE(proto_nl);
	default:
		return READ_ONCE(proto_raw);
	}
}

/* --- rproc_ops ------------------------------------------------------- */

/* The remote's address map: its SRAM window.  Carveouts (vrings) are
 * translated by the core after this hook declines. */
static void *vrproc_da_to_va(struct rproc *rproc, u64 da, size_t len, bool *is_iomem)
{
	struct vrproc *vp = rproc->priv;

	if (da < VRPROC_SRAM_DA || len > VRPROC_SRAM_SIZE ||
	    da - VRPROC_SRAM_DA > VRPROC_SRAM_SIZE - len)
		return NULL;
	if (is_iomem)
		*is_iomem = false;
	return vp->sram + (da - VRPROC_SRAM_DA);
}

/* rproc_elf_load_rsc_table, then the vring_num override (the core copies
 * the cached table to the loaded one, so the remote sees the same num). */
static int vrproc_parse_fw(struct rproc *rproc, const struct firmware *fw)
{
	struct resource_table *t;
	int ret, i;

	ret = rproc_elf_load_rsc_table(rproc, fw);
	if (ret || !vring_num)
		return ret;
	t = rproc->cached_table;
	for (i = 0; i < t->num; i++) {
		struct fw_rsc_hdr *hdr = (void *)t + t->offset[i];
		struct fw_rsc_vdev *v = (void *)hdr->data;
		int k;

		if (hdr->type != RSC_VDEV)
			continue;
		for (k = 0; k < v->num_of_vrings; k++)
			v->vring[k].num = vring_num;
	}
	return 0;
}

/* Subdevice added last at start, so stopped first (rproc_stop_subdevices
 * walks the list in reverse): the thread halts before the rpmsg vdev is torn
 * down and its buffers freed.  A real core would keep writing into freed
 * memory; here that memory is the kernel's own. */
static void vrproc_halt_thread(struct vrproc *vp)
{
	if (vp->thread) {
		kthread_stop(vp->thread);
		put_task_struct(vp->thread);
		vp->thread = NULL;
	}
}

static void vrproc_quiesce(struct rproc_subdev *subdev, bool crashed)
{
	vrproc_halt_thread(container_of(subdev, struct vrproc, quiesce));
}

static int vrproc_start(struct rproc *rproc)
{
	struct vrproc *vp = rproc->priv;
	struct task_struct *t;

	vp->rsc = NULL;
	vp->dead = false;
	vp->nmsg = vp->nreply = 0;
	/* the last boot's library counters join the module's, then restart */
	vrproc_fold_stats(vp, &vp->st);
	memset(&vp->rp, 0, sizeof(vp->rp));
	memset(&vp->sessions, 0, sizeof(vp->sessions));
	atomic_set(&vp->kicked, 0);
	atomic_set(&vp->crash_req, 0);

	t = kthread_create(vrproc_serve, vp, "vrproc/%d", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	get_task_struct(t);
	vp->thread = t;
	vp->quiesce.stop = vrproc_quiesce;
	rproc_add_subdev(rproc, &vp->quiesce);
	vp->quiesce_added = true;
	vp->st.boots++;
	wake_up_process(t);
	return 0;
}

static int vrproc_stop(struct rproc *rproc)
{
	struct vrproc *vp = rproc->priv;

	vrproc_halt_thread(vp);
	if (vp->quiesce_added) {
		rproc_remove_subdev(rproc, &vp->quiesce);
		vp->quiesce_added = false;
	}
	return 0;
}

/* Linux rang the doorbell for vring @vqid (a mailbox write on hardware). */
static void vrproc_kick(struct rproc *rproc, int vqid)
{
	struct vrproc *vp = rproc->priv;

	vp->st.kicks++;
	atomic_set(&vp->kicked, 1);
	wake_up_interruptible(&vp->wq);
}

static const struct rproc_ops vrproc_ops = {
	.start = vrproc_start,
	.stop = vrproc_stop,
	.kick = vrproc_kick,
	.da_to_va = vrproc_da_to_va,
	.parse_fw = vrproc_parse_fw,
	.load = rproc_elf_load_segments,
	.sanity_check = rproc_elf_sanity_check,
	.get_boot_addr = rproc_elf_get_boot_addr,
	.find_loaded_rsc_table = rproc_elf_find_loaded_rsc_table,
};

/* --- counters -------------------------------------------------------- */

static ssize_t stats_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct vrproc *vp = dev_get_drvdata(dev);
	struct vrproc_stats st;
	const struct vrproc_stats *s = &st;

	vrproc_fold_stats(vp, &st);
	/* read racily while the thread runs: counters, not a snapshot */
	return sysfs_emit(buf,
		"rx_msgs %llu\ntx_msgs %llu\nrx_bytes %llu\ntx_bytes %llu\nkicks %llu\n"
		"irqs %llu\ndropped %llu\ncorrupted %llu\nno_recipient %llu\nbad_msgs %llu\n"
		"send_errors %llu\nsessions_evicted %llu\nboots %llu\ncrashes %llu\n"
		"cache_inval %llu\ncache_clean %llu\n",
		s->rx_msgs, s->tx_msgs, s->rx_bytes, s->tx_bytes, s->kicks, s->irqs,
		s->dropped, s->corrupted, s->no_recipient, s->bad_msgs, s->send_errors,
		s->sessions_evicted, s->boots, s->crashes, s->cache_inval, s->cache_clean);
}
static DEVICE_ATTR_RO(stats);

/* --- module ---------------------------------------------------------- */

static int __init vrproc_init(void)
{
	struct platform_device *pdev;
	struct vrproc *vp;
	struct rproc *rproc;
	int ret;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("virtual_rproc: cpu=%d is not an online CPU (0..%u)\n", cpu,
		       nr_cpu_ids - 1);
		return -EINVAL;
	}
	if (vring_num && (vring_num & (vring_num - 1) || vring_num > 256)) {
		pr_err("virtual_rproc: vring_num=%u must be a power of 2 up to 256\n", vring_num);
		return -EINVAL;
	}
	pdev = platform_device_register_simple("virtual-rproc", PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	/* remoteproc allocates vrings (and virtio_rpmsg_bus its buffers) with
	 * dma_alloc_coherent on this device; the table holds 32-bit addresses */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		goto err_pdev;

	rproc = rproc_alloc(&pdev->dev, "virtual-rproc", &vrproc_ops, firmware, sizeof(*vp));
	if (!rproc) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	vp = rproc->priv;
	vp->rproc = rproc;
	vp->pdev = pdev;
	init_waitqueue_head(&vp->wq);
	vp->sram = vzalloc(VRPROC_SRAM_SIZE);
	if (!vp->sram) {
		ret = -ENOMEM;
		goto err_rproc;
	}
	rproc->auto_boot = false;
	platform_set_drvdata(pdev, vp);
	ret = rproc_add(rproc);
	if (ret)
		goto err_sram;
	ret = device_create_file(&pdev->dev, &dev_attr_stats);
	if (ret)
		goto err_del;
	WRITE_ONCE(the_vrproc, vp);
	dev_info(&pdev->dev, "remote processor %s: thread on CPU %d, firmware %s\n",
		 dev_name(&rproc->dev), cpu, firmware);
	return 0;

err_del:
	rproc_del(rproc);
err_sram:
	vfree(vp->sram);
err_rproc:
	rproc_free(rproc);
err_pdev:
	platform_device_unregister(pdev);
	return ret;
}

static void __exit vrproc_exit(void)
{
	struct vrproc *vp = the_vrproc;
	struct platform_device *pdev = vp->pdev;
	struct rproc *rproc = vp->rproc;
	void *sram = vp->sram;

	WRITE_ONCE(the_vrproc, NULL);
	device_remove_file(&pdev->dev, &dev_attr_stats);
	rproc_del(rproc);	/* shuts the remote down if running */
	rproc_free(rproc);	/* frees vp (rproc->priv) */
	vfree(sram);
	platform_device_unregister(pdev);
}

module_init(vrproc_init);
module_exit(vrproc_exit);
MODULE_DESCRIPTION("A remote processor played by a pinned kernel thread, for icbench");
MODULE_LICENSE("GPL");
