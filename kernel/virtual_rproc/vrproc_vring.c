// SPDX-License-Identifier: GPL-2.0
/*
 * The device side of a split virtqueue (virtio 1.x §2.7, legacy layout as
 * set up by remoteproc_virtio.c: vring_new_virtqueue on the carveout named
 * vdevNvringM, whose device address the driver writes into the resource
 * table).  This is what remote firmware does: read avail->idx, take the
 * descriptor heads Linux made available, and hand them back through the used
 * ring.  Linux's virtio_ring uses mandatory barriers for remoteproc
 * (weak_barriers = false); the device side pairs them with rmb/wmb/mb.
 */
#include <linux/io.h>
#include <linux/mm.h>

#include "vrproc.h"

int vdr_setup(struct vdev_ring *r, struct rproc *rproc,
	      const struct fw_rsc_vdev_vring *rsc)
{
	void *va;
	size_t size;

	if (!rsc->num || (rsc->num & (rsc->num - 1)) || !rsc->align)
		return -EINVAL;
	size = vring_size(rsc->num, rsc->align);
	/* The vring lives in a remoteproc carveout: a device address the
	 * core translates for us, as a remote's MMU/bus would. */
	va = rproc_da_to_va(rproc, rsc->da, size, NULL);
	if (!va)
		return -EFAULT;
	vring_init(&r->vr, rsc->num, va, rsc->align);
	r->num = rsc->num;
	r->notifyid = rsc->notifyid;
	r->last_avail = 0;
	r->used_idx = 0;
	return 0;
}

/* Is there an avail entry the device has not consumed?  *head = its desc. */
bool vdr_peek(struct vdev_ring *r, u16 *head)
{
	u16 avail_idx = READ_ONCE(r->vr.avail->idx);

	if (avail_idx == r->last_avail)
		return false;
	/* read the ring entry only after seeing the index that covers it */
	rmb();
	*head = READ_ONCE(r->vr.avail->ring[r->last_avail & (r->num - 1)]);
	return *head < r->num;
}

void vdr_consume(struct vdev_ring *r)
{
	r->last_avail++;
}

/*
 * The buffer behind descriptor @head.  virtio_rpmsg_bus allocates its buffers
 * with dma_alloc_coherent on the rproc-virtio device and, with no
 * VIRTIO_F_ACCESS_PLATFORM, virtio_ring stores physical addresses (sg_phys).
 * A remote sees them through its bus; here: through rproc_da_to_va when they
 * fall in a carveout (a vdevNbuffer region), else the kernel's linear map —
 * checked to be RAM, because a device address is untrusted input.
 */
void *vdr_buf(struct vdev_ring *r, struct rproc *rproc, u16 head, u32 *len)
{
	const struct vring_desc *d = &r->vr.desc[head];
	u64 addr = READ_ONCE(d->addr);
	u32 l = READ_ONCE(d->len);
	void *va;

	if (!l || l > 64 * 1024)
		return NULL;
	va = rproc_da_to_va(rproc, addr, l, NULL);
	if (!va) {
		va = phys_to_virt((phys_addr_t)addr);
		if (!virt_addr_valid(va) || !virt_addr_valid(va + l - 1))
			return NULL;
	}
	*len = l;
	return va;
}

void vdr_put_used(struct vdev_ring *r, u16 head, u32 len)
{
	struct vring_used_elem *e = &r->vr.used->ring[r->used_idx & (r->num - 1)];

	WRITE_ONCE(e->id, head);
	WRITE_ONCE(e->len, len);
	/* the element (and the buffer's contents) before the index */
	wmb();
	r->used_idx++;
	WRITE_ONCE(r->vr.used->idx, r->used_idx);
}

/* Linux suppresses callbacks it does not need (VRING_AVAIL_F_NO_INTERRUPT:
 * virtio_rpmsg_bus enables TX-complete interrupts only while a sender sleeps). */
bool vdr_wants_irq(struct vdev_ring *r)
{
	/* order the used->idx store before reading the driver's flags */
	mb();
	return !(READ_ONCE(r->vr.avail->flags) & VRING_AVAIL_F_NO_INTERRUPT);
}
