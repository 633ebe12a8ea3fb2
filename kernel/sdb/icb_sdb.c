// SPDX-License-Identifier: GPL-2.0
/*
 * icb_sdb: shared data buffers between Linux and a remote core, with the
 * user interface of ST's stm32-rpmsg-sdb driver (icb_sdb_uapi.h lists the
 * facts taken from it), written for icbench's VM rig and its sdb: link.
 *
 * What this module owns: the misc device /dev/rpmsg-sdb of each
 * "rpmsg-sdb-channel", the buffers its user allocates through mmap() (one
 * physically contiguous DMA allocation each, as ST's), the announcements
 * and reports on the channel, the eventfds, and counters of live memory.
 *
 * Where it differs from ST's driver, on purpose:
 *  - state is per device, not in globals, and one user at a time (ST's open()
 *    re-initialises a shared list under a second user's feet): -EBUSY;
 *  - a report for an unknown id or larger than its buffer is counted and
 *    dropped without touching any buffer (ST matched "id > last id", an off
 *    by one, and stored the bad length before checking it);
 *  - the whole 8 hex digits of a report's length are read (ST's parser skips
 *    the first two: lengths of 16 MiB and more wrap there);
 *  - buffers are mapped with dma_mmap_coherent() and mmap() refuses an
 *    offset (ST added vm_pgoff to the buffer's frame number);
 *  - release waits for reports still owed for commands written through
 *    write() (the remote may be writing into a buffer), up to
 *    release_wait_ms; past that, the buffers are kept as orphans until the
 *    channel goes (the remote stopped) rather than freed under the remote;
 *  - write() sends a command to the remote (icbench's extension); a fill,
 *    check or copy naming a buffer or length this user does not hold is
 *    refused with -EINVAL.
 *
 * Counters (read-only module parameters): live_buffers, live_bytes,
 * orphans, bad_reports, reports.
 */
#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rpmsg.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "icb_sdb_uapi.h"

static unsigned int max_buffers = 32;
module_param(max_buffers, uint, 0644);
MODULE_PARM_DESC(max_buffers, "buffers one user may hold (SET_EFD past it: -ENOSPC)");
static unsigned long max_size = 64ul << 20;
module_param(max_size, ulong, 0644);
MODULE_PARM_DESC(max_size, "largest buffer, bytes (mmap past it: -EINVAL)");
static unsigned int release_wait_ms = 2000;
module_param(release_wait_ms, uint, 0644);
MODULE_PARM_DESC(release_wait_ms, "how long close waits for reports still owed");

static atomic_long_t sdb_live_buffers, sdb_live_bytes, sdb_orphans;
static atomic_long_t sdb_bad_reports, sdb_reports;

static int sdb_get_counter(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read((atomic_long_t *)kp->arg));
}

static const struct kernel_param_ops sdb_counter_ops = { .get = sdb_get_counter };
module_param_cb(live_buffers, &sdb_counter_ops, &sdb_live_buffers, 0444);
MODULE_PARM_DESC(live_buffers, "buffers allocated and not yet freed");
module_param_cb(live_bytes, &sdb_counter_ops, &sdb_live_bytes, 0444);
module_param_cb(orphans, &sdb_counter_ops, &sdb_orphans, 0444);
MODULE_PARM_DESC(orphans, "buffers kept after close because the remote still owed a report");
module_param_cb(bad_reports, &sdb_counter_ops, &sdb_bad_reports, 0444);
module_param_cb(reports, &sdb_counter_ops, &sdb_reports, 0444);

/* Commands are short text; this bounds what write() takes. */
#define SDB_CMD_MAX	64

struct sdb_buf {
	struct list_head node;
	u32 id;
	size_t size;		/* 0 until mmap() allocated it */
	u32 filled;		/* last reported length, RPMSG_SDB_NO_DATA if none */
	void *vaddr;
	dma_addr_t paddr;
	struct eventfd_ctx *efd;
};

struct sdb_dev {
	struct kref ref;
	struct miscdevice mdev;
	struct device *dma_dev;		/* mdev.this_device, referenced */
	struct mutex lock;		/* rpdev, open, next_id, the list's shape */
	spinlock_t bufs_lock;		/* bufs against the receive callback */
	struct rpmsg_device *rpdev;	/* NULL once the channel is gone */
	struct list_head bufs;
	struct list_head orphans;
	bool open;
	u32 next_id;
	atomic_t owed;			/* commands written, reports not yet in */
	wait_queue_head_t idle;
};

static void sdb_buf_free(struct sdb_dev *sd, struct sdb_buf *b)
{
	if (b->vaddr) {
		dma_free_coherent(sd->dma_dev, b->size, b->vaddr, b->paddr);
		atomic_long_dec(&sdb_live_buffers);
		atomic_long_sub(b->size, &sdb_live_bytes);
	}
	if (b->efd)
		eventfd_ctx_put(b->efd);
	kfree(b);
}

static void sdb_free_list(struct sdb_dev *sd, struct list_head *list)
{
	struct sdb_buf *b, *n;

	list_for_each_entry_safe(b, n, list, node) {
		list_del(&b->node);
		sdb_buf_free(sd, b);
	}
}

static long sdb_count_allocated(struct list_head *list)
{
	struct sdb_buf *b;
	long n = 0;

	list_for_each_entry(b, list, node)
		n += !!b->vaddr;
	return n;
}

static void sdb_dev_release(struct kref *ref)
{
	struct sdb_dev *sd = container_of(ref, struct sdb_dev, ref);

	sdb_free_list(sd, &sd->orphans);
	put_device(sd->dma_dev);
	kfree(sd);
}

static struct sdb_dev *sdb_of(struct file *f)
{
	return container_of(f->private_data, struct sdb_dev, mdev);
}

/* misc_open() calls this under misc_mtx, so remove (misc_deregister first)
 * cannot free sd before the reference is taken. */
static int sdb_open(struct inode *inode, struct file *f)
{
	struct sdb_dev *sd = sdb_of(f);
	int ret = 0;

	mutex_lock(&sd->lock);
	if (!sd->rpdev)
		ret = -ENODEV;
	else if (sd->open)
		ret = -EBUSY;
	else
		sd->open = true;
	if (!ret) {
		kref_get(&sd->ref);
		sd->next_id = 0;
		atomic_set(&sd->owed, 0);
	}
	mutex_unlock(&sd->lock);
	return ret;
}

static int sdb_release(struct inode *inode, struct file *f)
{
	struct sdb_dev *sd = sdb_of(f);
	LIST_HEAD(gone);
	bool quiet;

	mutex_lock(&sd->lock);
	quiet = wait_event_timeout(sd->idle, atomic_read(&sd->owed) <= 0,
				   msecs_to_jiffies(release_wait_ms)) > 0;
	spin_lock_irq(&sd->bufs_lock);
	list_splice_init(&sd->bufs, &gone);
	spin_unlock_irq(&sd->bufs_lock);
	if (!quiet && sd->rpdev) {
		/* The remote may still write into them: keep them until the
		 * channel goes (the remote core stopped). */
		atomic_long_add(sdb_count_allocated(&gone), &sdb_orphans);
		dev_warn(&sd->rpdev->dev, "closed with %d reports owed: buffers kept until the remote stops\n",
			 atomic_read(&sd->owed));
		list_splice_init(&gone, &sd->orphans);
	}
	sd->open = false;
	mutex_unlock(&sd->lock);
	sdb_free_list(sd, &gone);
	kref_put(&sd->ref, sdb_dev_release);
	return 0;
}

static struct sdb_buf *sdb_find(struct sdb_dev *sd, u32 id)
{
	struct sdb_buf *b;

	list_for_each_entry(b, &sd->bufs, node)
		if (b->id == id)
			return b;
	return NULL;
}

static long sdb_set_efd(struct sdb_dev *sd, void __user *argp)
{
	struct rpmsg_sdb_ioctl_set_efd q;
	struct sdb_buf *b;
	long ret = 0;

	if (copy_from_user(&q, argp, sizeof(q)))
		return -EFAULT;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->filled = RPMSG_SDB_NO_DATA;
	b->efd = eventfd_ctx_fdget(q.eventfd);
	if (IS_ERR(b->efd)) {
		ret = PTR_ERR(b->efd);
		kfree(b);
		return ret;
	}
	mutex_lock(&sd->lock);
	if (sd->next_id >= max_buffers) {
		ret = -ENOSPC;
	} else {
		/* ST: the id is the next index; the argument's bufferId is not read */
		b->id = sd->next_id++;
		spin_lock_irq(&sd->bufs_lock);
		list_add_tail(&b->node, &sd->bufs);
		spin_unlock_irq(&sd->bufs_lock);
	}
	mutex_unlock(&sd->lock);
	if (ret) {
		eventfd_ctx_put(b->efd);
		kfree(b);
	}
	return ret;
}

static long sdb_get_size(struct sdb_dev *sd, void __user *argp)
{
	struct rpmsg_sdb_ioctl_get_data_size q;
	struct sdb_buf *b;

	if (copy_from_user(&q, argp, sizeof(q)))
		return -EFAULT;
	spin_lock_irq(&sd->bufs_lock);
	b = q.bufferId >= 0 ? sdb_find(sd, q.bufferId) : NULL;
	if (b) {
		q.size = b->filled;
		b->filled = RPMSG_SDB_NO_DATA;	/* ST: read once, then reset */
	}
	spin_unlock_irq(&sd->bufs_lock);
	if (!b)
		return -EINVAL;
	return copy_to_user(argp, &q, sizeof(q)) ? -EFAULT : 0;
}

static long sdb_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct sdb_dev *sd = sdb_of(f);
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case RPMSG_SDB_IOCTL_SET_EFD:
		return sdb_set_efd(sd, argp);
	case RPMSG_SDB_IOCTL_GET_DATA_SIZE:
		return sdb_get_size(sd, argp);
	default:
		return -ENOTTY;
	}
}

/*
 * mmap() allocates the buffer of the latest SET_EFD, as ST's driver does,
 * maps it (Documentation/core-api/dma-api.rst: dma_mmap_coherent) and tells
 * the remote where it is.
 */
static int sdb_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct sdb_dev *sd = sdb_of(f);
	size_t size = PAGE_ALIGN(vma->vm_end - vma->vm_start);
	char msg[48];
	struct sdb_buf *b;
	void *vaddr;
	dma_addr_t paddr;
	int ret, n;

	if (vma->vm_pgoff || size > max_size)
		return -EINVAL;
	/* Without CMA, a contiguous allocation comes from the buddy
	 * allocator, which stops at MAX_ORDER - 1: say so rather than warn. */
	if (!IS_ENABLED(CONFIG_DMA_CMA) && get_order(size) >= MAX_ORDER)
		return -ENOMEM;
	mutex_lock(&sd->lock);
	ret = -EINVAL;
	b = list_empty(&sd->bufs) ? NULL : list_last_entry(&sd->bufs, struct sdb_buf, node);
	if (!b || b->vaddr)
		goto out;	/* mmap without a fresh SET_EFD */
	ret = -ENODEV;
	if (!sd->rpdev)
		goto out;
	ret = -ENOMEM;
	vaddr = dma_alloc_coherent(sd->dma_dev, size, &paddr, GFP_KERNEL | __GFP_NOWARN);
	if (!vaddr)
		goto out;
	ret = dma_mmap_coherent(sd->dma_dev, vma, vaddr, paddr, size);
	if (ret) {
		dma_free_coherent(sd->dma_dev, size, vaddr, paddr);
		goto out;
	}
	spin_lock_irq(&sd->bufs_lock);
	b->vaddr = vaddr;
	b->paddr = paddr;
	b->size = size;
	spin_unlock_irq(&sd->bufs_lock);
	atomic_long_inc(&sdb_live_buffers);
	atomic_long_add(size, &sdb_live_bytes);
	/* ST's announcement: "B%dA%08xL%08x" (id, bus address, size) */
	n = scnprintf(msg, sizeof(msg), "B%uA%08llxL%08zx", b->id, (u64)paddr, size);
	ret = rpmsg_send(sd->rpdev->ept, msg, n);
	if (ret)
		dev_err(&sd->rpdev->dev, "announcing buffer %u failed: %d\n", b->id, ret);
	/* The mapping stands either way; the buffer is freed with the file. */
out:
	mutex_unlock(&sd->lock);
	return ret;
}

/* Buffer id holds an allocation of at least len bytes. */
static bool sdb_fits(struct sdb_dev *sd, u32 id, u32 len)
{
	struct sdb_buf *b;
	bool ok;

	spin_lock_irq(&sd->bufs_lock);
	b = sdb_find(sd, id);
	ok = b && b->vaddr && len <= b->size;
	spin_unlock_irq(&sd->bufs_lock);
	return ok;
}

/*
 * A fill, check or copy (firmware/include/icb_sdb.h) names buffers and a
 * length: they must be this user's, or the remote would ignore the command
 * and the report it owes would never come (release would then keep the
 * buffers as orphans).  Returns true when the command is owed a report.
 */
static int sdb_cmd_check(struct sdb_dev *sd, const char *cmd, bool *owed)
{
	u32 id, to, len;

	*owed = false;
	switch (cmd[0]) {
	case 'F':
	case 'C':
		if (sscanf(cmd + 1, "%uL%x", &id, &len) != 2 || !sdb_fits(sd, id, len))
			return -EINVAL;
		break;
	case 'E':
		if (sscanf(cmd + 1, "%uT%uL%x", &id, &to, &len) != 3 ||
		    !sdb_fits(sd, id, len) || !sdb_fits(sd, to, len))
			return -EINVAL;
		break;
	default:
		return 0;	/* not ours to judge: passed on, no report owed */
	}
	*owed = true;
	return 0;
}

/* icbench's extension: one command to the remote per write(). */
static ssize_t sdb_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	struct sdb_dev *sd = sdb_of(f);
	char cmd[SDB_CMD_MAX + 1];
	bool owed;
	int ret;

	if (!len || len > SDB_CMD_MAX)
		return -EMSGSIZE;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = 0;
	mutex_lock(&sd->lock);
	ret = sd->rpdev ? sdb_cmd_check(sd, cmd, &owed) : -ENODEV;
	if (!ret) {
		if (owed)
			atomic_inc(&sd->owed);
		ret = rpmsg_send(sd->rpdev->ept, cmd, len);
		if (ret && owed)
			atomic_dec(&sd->owed);
	}
	mutex_unlock(&sd->lock);
	return ret ? ret : len;
}

static const struct file_operations sdb_fops = {
	.owner = THIS_MODULE,
	.open = sdb_open,
	.release = sdb_release,
	.unlocked_ioctl = sdb_ioctl,
	.mmap = sdb_mmap,
	.write = sdb_write,
	.llseek = noop_llseek,
};

/* "B<decimal id>L<hex length>", nothing after (a trailing NUL allowed). */
static int sdb_parse_report(const char *p, int len, u32 *id, u32 *size)
{
	char s[24], *l;
	unsigned long long v;

	while (len && !p[len - 1])
		len--;
	if (len < 3 || len >= sizeof(s) || p[0] != 'B')
		return -EINVAL;
	memcpy(s, p, len);
	s[len] = 0;
	l = strchr(s, 'L');
	if (!l)
		return -EINVAL;
	*l = 0;
	if (kstrtou32(s + 1, 10, id) || kstrtoull(l + 1, 16, &v) || v > U32_MAX)
		return -EINVAL;
	*size = v;
	return 0;
}

static int sdb_cb(struct rpmsg_device *rpdev, void *data, int len, void *priv, u32 src)
{
	struct sdb_dev *sd = dev_get_drvdata(&rpdev->dev);
	struct eventfd_ctx *efd = NULL;
	struct sdb_buf *b;
	unsigned long flags;
	u32 id, size;

	atomic_long_inc(&sdb_reports);
	if (atomic_dec_if_positive(&sd->owed) >= 0)
		wake_up(&sd->idle);
	if (sdb_parse_report(data, len, &id, &size))
		goto bad;
	spin_lock_irqsave(&sd->bufs_lock, flags);
	b = sdb_find(sd, id);
	if (b && b->vaddr && size <= b->size) {
		b->filled = size;
		efd = b->efd;
		eventfd_signal(efd, 1);
	}
	spin_unlock_irqrestore(&sd->bufs_lock, flags);
	if (efd)
		return 0;
bad:
	atomic_long_inc(&sdb_bad_reports);
	dev_dbg(&rpdev->dev, "report dropped (unknown buffer, too long, or malformed)\n");
	return 0;
}

static int sdb_probe(struct rpmsg_device *rpdev)
{
	struct sdb_dev *sd;
	int ret;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	kref_init(&sd->ref);
	mutex_init(&sd->lock);
	spin_lock_init(&sd->bufs_lock);
	INIT_LIST_HEAD(&sd->bufs);
	INIT_LIST_HEAD(&sd->orphans);
	init_waitqueue_head(&sd->idle);
	sd->rpdev = rpdev;
	sd->mdev.minor = MISC_DYNAMIC_MINOR;
	sd->mdev.name = RPMSG_SDB_DEV_NAME;
	sd->mdev.fops = &sdb_fops;
	dev_set_drvdata(&rpdev->dev, sd);
	ret = misc_register(&sd->mdev);
	if (ret) {
		kfree(sd);
		return ret;
	}
	/* As ST's driver: the misc device allocates, with a 32-bit mask (the
	 * remote's bus addresses are 32 bits: "A%08x"). */
	sd->dma_dev = get_device(sd->mdev.this_device);
	ret = dma_coerce_mask_and_coherent(sd->dma_dev, DMA_BIT_MASK(32));
	if (ret) {
		misc_deregister(&sd->mdev);
		put_device(sd->dma_dev);
		kfree(sd);
		return ret;
	}
	dev_info(&rpdev->dev, "/dev/%s on channel %s (0x%x → 0x%x)\n", RPMSG_SDB_DEV_NAME,
		 rpdev->id.name, rpdev->src, rpdev->dst);
	return 0;
}

/* The channel goes when the remote stops (or crashes): after this no
 * report can come, so orphans are freed; open files keep sd until closed. */
static void sdb_remove(struct rpmsg_device *rpdev)
{
	struct sdb_dev *sd = dev_get_drvdata(&rpdev->dev);
	LIST_HEAD(orphans);

	misc_deregister(&sd->mdev);
	mutex_lock(&sd->lock);
	sd->rpdev = NULL;
	list_splice_init(&sd->orphans, &orphans);
	atomic_set(&sd->owed, 0);
	wake_up(&sd->idle);
	mutex_unlock(&sd->lock);
	atomic_long_sub(sdb_count_allocated(&orphans), &sdb_orphans);
	sdb_free_list(sd, &orphans);
	kref_put(&sd->ref, sdb_dev_release);
}

static struct rpmsg_device_id sdb_id_table[] = {
	{ .name = RPMSG_SDB_CHANNEL },
	{ },
};
MODULE_DEVICE_TABLE(rpmsg, sdb_id_table);

static struct rpmsg_driver sdb_driver = {
	.drv.name = KBUILD_MODNAME,
	.id_table = sdb_id_table,
	.probe = sdb_probe,
	.callback = sdb_cb,
	.remove = sdb_remove,
};
module_rpmsg_driver(sdb_driver);

MODULE_DESCRIPTION("stm32-rpmsg-sdb's user interface: shared DMA buffers over an rpmsg channel (icbench)");
MODULE_LICENSE("GPL");
