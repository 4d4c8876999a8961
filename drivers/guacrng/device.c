// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/guac: the guacamole stream as a seekable character device.
 *
 * Byte p of an open file is stream byte p of the stream seen from the file's
 * origin block, so reads are a pure function of (origin, position): nothing
 * is shared between readers and nothing needs a lock. The file position is
 * the only state, and the VFS owns it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <uapi/linux/guacrng.h>
#include "guacrng.h"

/* Reads up to this size are generated on the stack, larger ones in a page. */
#define GUAC_SMALL_READ 256

struct guac_file {
	u64 origin;	/* block index added to the position, mod 2^64 */
};

/* ============================ open and release ============================ */

static int guac_open(struct inode *inode, struct file *file)
{
	struct guac_file *gf = kzalloc(sizeof(*gf), GFP_KERNEL);

	if (!gf)
		return -ENOMEM;
	file->private_data = gf;
	/*
	 * Let a read that would pass OFFSET_MAX through rw_verify_area(), so
	 * that guac_read_iter() can stop short there (end of file) instead of
	 * the whole read failing with EINVAL. guac_llseek() still keeps the
	 * position in [0, OFFSET_MAX]. Kernels with FOP_UNSIGNED_OFFSET take
	 * it from guac_fops instead.
	 */
#ifndef FOP_UNSIGNED_OFFSET
	file->f_mode |= FMODE_UNSIGNED_OFFSET;
#endif
	return 0;
}

static int guac_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/* ================================= reading ================================= */

/*
 * Large reads into user memory pin the destination pages and generate
 * straight into them, a page and an FPU section at a time: under emulation
 * and on fast SIMD alike, the bounce-page copy would otherwise cost a good
 * part of the generation itself. Everything else, and whatever cannot be
 * pinned (an unmapped or read-only page), goes through a bounce buffer and
 * copy_to_iter(), which finds the exact count at a fault.
 */
#define GUAC_DIRECT_PAGES 16

static bool direct = true;
module_param(direct, bool, 0644);
MODULE_PARM_DESC(direct, "Generate large reads straight into pinned user pages (default Y); N copies every read through a bounce page");

/* Where the next byte comes from: block index and byte within the block. */
struct guac_cursor {
	u64 block;
	unsigned int skip;
};

static size_t guac_read_direct(struct iov_iter *iter, struct guac_cursor *cur,
			       size_t len)
{
	struct page *pages[GUAC_DIRECT_PAGES];
	size_t offset, done = 0;
	ssize_t pinned;
	unsigned int i;

	pinned = iov_iter_get_pages2(iter, pages, len, ARRAY_SIZE(pages),
				     &offset);
	if (pinned <= 0)
		return 0;

	for (i = 0; done < pinned; i++) {
		size_t chunk = min_t(size_t, pinned - done, PAGE_SIZE - offset);
		u8 *addr = kmap_local_page(pages[i]);

		guac_generate(addr + offset, cur->block, cur->skip, chunk);
		kunmap_local(addr);
		set_page_dirty_lock(pages[i]);
		put_page(pages[i]);

		guac_pos_advance(&cur->block, &cur->skip, chunk);
		done += chunk;
		offset = 0;
		cond_resched();
	}
	return done;
}

static size_t guac_read_bounce(struct iov_iter *iter, struct guac_cursor *cur,
			       u8 *buf, size_t len)
{
	size_t copied;

	guac_generate(buf, cur->block, cur->skip, len);
	copied = copy_to_iter(buf, len, iter);
	guac_pos_advance(&cur->block, &cur->skip, copied);
	return copied;
}

/*
 * Generate outside any lock, never touching user memory with the FPU held,
 * and stop early on a fault or a signal: the caller gets the bytes read so
 * far, -EFAULT only when there are none. Positions stop at OFFSET_MAX (end of
 * file); the origin ioctl reaches the blocks beyond.
 */
static ssize_t guac_read_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	struct guac_file *gf = kiocb->ki_filp->private_data;
	u8 small[GUAC_SMALL_READ], *bounce = NULL;
	loff_t pos = kiocb->ki_pos;
	struct guac_cursor cur;
	size_t len, total = 0;
	bool pin;

	if (pos < 0)
		return -EINVAL;
	len = min_t(u64, iov_iter_count(iter), OFFSET_MAX - pos);
	if (!len)
		return 0;

	cur.block = READ_ONCE(gf->origin) + ((u64)pos >> GUAC_BLOCK_SHIFT);
	cur.skip = pos & (GUAC_BLOCK_SIZE - 1);
	pin = READ_ONCE(direct) && user_backed_iter(iter) && len >= PAGE_SIZE;
	if (len <= sizeof(small))
		bounce = small;

	for (;;) {
		bool fault = false;
		size_t step = 0;

		/* Pinning may stop at a segment's end: only nothing ends it. */
		if (pin) {
			step = guac_read_direct(iter, &cur,
						min_t(size_t, len,
						      GUAC_DIRECT_PAGES * PAGE_SIZE));
			pin = step > 0;
		}
		if (!step) {
			size_t want = min_t(size_t, len, PAGE_SIZE);

			if (!bounce) {
				bounce = (u8 *)__get_free_page(GFP_KERNEL);
				if (!bounce)
					break;
			}
			step = guac_read_bounce(iter, &cur, bounce, want);
			fault = step != want;
		}
		total += step;
		len -= step;
		if (fault || !len || signal_pending(current))
			break;
		cond_resched();
	}

	if (bounce != small)
		free_page((unsigned long)bounce);
	if (!total)
		return bounce ? -EFAULT : -ENOMEM;
	kiocb->ki_pos = pos + total;
	return total;
}

static ssize_t guac_write_iter(struct kiocb *kiocb, struct iov_iter *from)
{
	return -EPERM;
}

/* ================================= seeking ================================= */

/* SEEK_SET and SEEK_CUR within [0, OFFSET_MAX]; the stream has no end to seek to. */
static loff_t guac_llseek(struct file *file, loff_t offset, int whence)
{
	loff_t pos;

	switch (whence) {
	case SEEK_SET:
		pos = offset;
		break;
	case SEEK_CUR:
		if (check_add_overflow(file->f_pos, offset, &pos))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* Unsigned offsets would let vfs_setpos() take a negative position. */
	if (pos < 0)
		return -EINVAL;
	return vfs_setpos(file, pos, OFFSET_MAX);
}

/* ================================== ioctl ================================== */

static long guac_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct guac_file *gf = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct guac_info info;
	u64 origin;

	switch (cmd) {
	case GUAC_IOC_GET_INFO:
		memset(&info, 0, sizeof(info));
		info.version = GUAC_UAPI_VERSION;
		info.impl = guac_impl_active();
		info.cpu_features = guac_cpu_features();
		strscpy(info.impl_name, guac_impl_names[info.impl],
			sizeof(info.impl_name));
		return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
	case GUAC_IOC_SET_ORIGIN:
		if (copy_from_user(&origin, uarg, sizeof(origin)))
			return -EFAULT;
		WRITE_ONCE(gf->origin, origin);
		return 0;
	case GUAC_IOC_GET_ORIGIN:
		origin = READ_ONCE(gf->origin);
		return copy_to_user(uarg, &origin, sizeof(origin)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

/* ============================ the misc device ============================= */

static ssize_t implementation_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", guac_impl_names[guac_impl_active()]);
}
static DEVICE_ATTR_RO(implementation);

static struct attribute *guac_dev_attrs[] = {
	&dev_attr_implementation.attr,
	NULL
};
ATTRIBUTE_GROUPS(guac_dev);

/* Not static: the KUnit device suite drives these operations directly. */
const struct file_operations guac_fops = {
	.owner = THIS_MODULE,
#ifdef FOP_UNSIGNED_OFFSET
	.fop_flags = FOP_UNSIGNED_OFFSET,
#endif
	.open = guac_open,
	.release = guac_release,
	.read_iter = guac_read_iter,
	.write_iter = guac_write_iter,
	.llseek = guac_llseek,
#ifdef GUAC_HAVE_COPY_SPLICE_READ
	.splice_read = copy_splice_read,
#else
	.splice_read = generic_file_splice_read,
#endif
	.unlocked_ioctl = guac_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice guac_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "guac",
	.mode = 0444,
	.fops = &guac_fops,
	.groups = guac_dev_groups,
};

int guac_device_init(void)
{
	return misc_register(&guac_misc);
}

void guac_device_uninit(void)
{
	misc_deregister(&guac_misc);
}
