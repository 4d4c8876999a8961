// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/guac: the guacamole stream as a seekable character device.
 *
 * Byte p of an open file is stream byte p of the stream seen from the file's
 * origin block, so reads are a pure function of (origin, position): nothing
 * is shared between readers and nothing needs a lock. The file position is
 * the only state, and the VFS owns it.
 *
 * Threads sharing one open file: read() and lseek() are serialised on the
 * file position as on a regular file (FMODE_ATOMIC_POS), so each read()
 * gets its own consecutive range and none is served twice. Readers that
 * want to run in parallel use pread() at their own offsets, or one open
 * file each: neither takes a lock.
 *
 * A read never waits for anything but the CPU, so the device says so
 * (FMODE_NOWAIT): io_uring then reads inline, in submission order, instead
 * of handing each read to a worker thread, and RWF_NOWAIT returns data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <uapi/linux/guacrng.h>
#include "compat.h"
#include "guacrng.h"
#include "testing.h"

/* Reads up to this size are generated on the stack, larger ones in a page. */
#define GUAC_SMALL_READ 256

struct guac_file {
	u64 origin;	/* block index added to the position, mod 2^64 */
};

/* ============================ open and release ============================ */

static int guac_open(struct inode *inode, struct file *file)
{
	struct guac_file *gf;

	/* Read-only, refused at open as rng_dev_open() does: dd of= fails at once. */
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	gf = kzalloc(sizeof(*gf), GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	file->private_data = gf;
	/*
	 * Let a read that would pass OFFSET_MAX through rw_verify_area(), so
	 * that guac_read_iter() can stop short at the end of file instead of
	 * the whole read failing with EINVAL. guac_llseek() still keeps the
	 * position in [0, GUAC_DEV_END]. The price: rw_verify_area() answers
	 * EOVERFLOW for a negative offset when the count is at least its size
	 * (docs/device.md); smaller counts reach guac_read_iter(): EINVAL.
	 */
	guac_file_unsigned_offset(file);
	/* FMODE_NOWAIT is spelt the same from 5.10 to 7.x: no compat needed. */
	file->f_mode |= FMODE_ATOMIC_POS | FMODE_NOWAIT;
	return 0;
}

static int guac_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/* ================================= reading ================================= */

/*
 * Every read generates into a kernel buffer, a page at a time (one FPU
 * section), and copies it out with copy_to_iter(), as random.c does. The
 * page stays in L1, so the copy costs little: in the userspace model of this
 * path (docs/results/kpath.md) it keeps 0.95-0.98 of the speed of generating
 * straight into the reader's buffer. Writing into user pages directly would
 * need them pinned (FOLL_PIN), dirtied and unpinned, and would have to step
 * aside for file-backed mappings; copy_to_iter() is right for every kind of
 * memory, as write(2) is, and reports what it copied when it meets a fault
 * (on x86 up to the faulting byte; arm64's copy may stop up to one of its
 * 64-byte blocks short): the read returns that count, never more.
 */

/* Where the next byte comes from: block index and byte within the block. */
struct guac_cursor {
	u64 block;
	unsigned int skip;
};

static size_t guac_read_chunk(struct iov_iter *iter, struct guac_cursor *cur,
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
 * far, -EFAULT only when there are none. Positions stop at GUAC_DEV_END (end
 * of file); the origin ioctl reaches the blocks beyond.
 *
 * IOCB_NOWAIT (io_uring's inline attempt, RWF_NOWAIT) is honoured by never
 * waiting: the page buffer is taken without reclaim, and when none is free
 * the read goes on in the small buffer on the stack rather than failing
 * with -EAGAIN, which would only send io_uring to a worker thread.
 */
static ssize_t guac_read_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	struct guac_file *gf = kiocb->ki_filp->private_data;
	u8 small[GUAC_SMALL_READ], *buf = small;
	bool nowait = kiocb->ki_flags & IOCB_NOWAIT;
	loff_t pos = kiocb->ki_pos;
	size_t len, chunk, total = 0;
	struct guac_cursor cur;

	if (pos < 0)
		return -EINVAL;
	if (pos >= GUAC_DEV_END)
		return 0;
	len = min_t(u64, iov_iter_count(iter), GUAC_DEV_END - pos);
	if (!len)
		return 0;
	chunk = sizeof(small);
	if (len > sizeof(small)) {
		buf = (u8 *)__get_free_page(nowait ? GFP_NOWAIT | __GFP_NOWARN :
					    GFP_KERNEL);
		if (buf)
			chunk = PAGE_SIZE;
		else if (nowait)
			buf = small;
		else
			return -ENOMEM;
	}

	cur.block = READ_ONCE(gf->origin) + ((u64)pos >> GUAC_BLOCK_SHIFT);
	cur.skip = pos & (GUAC_BLOCK_SIZE - 1);
	for (;;) {
		size_t want = min_t(size_t, len, chunk);
		size_t step = guac_read_chunk(iter, &cur, buf, want);

		total += step;
		len -= step;
		if (step != want || !len || signal_pending(current))
			break;
		cond_resched();
	}

	if (buf != small)
		free_page((unsigned long)buf);
	if (!total)
		return -EFAULT;
	kiocb->ki_pos = pos + total;
	return total;
}

/* ================================= seeking ================================= */

/* SEEK_SET and SEEK_CUR within [0, GUAC_DEV_END]; the stream has no end to seek to. */
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
	return vfs_setpos(file, pos, GUAC_DEV_END);
}

/* ================================== ioctl ================================== */

static long guac_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct guac_file *gf = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct guac_info info;
	enum guac_impl impl;
	u64 origin;

	switch (cmd) {
	case GUAC_IOC_GET_INFO:
		impl = guac_impl_active();
		memset(&info, 0, sizeof(info));
		info.version = GUAC_UAPI_VERSION;
		info.impl = guac_impl_id(impl);
		info.cpu_features = guac_cpu_features();
		strscpy(info.impl_name, guac_impl_names[impl],
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

static ssize_t implementation_reason_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%s\n", guac_impl_reason());
}
static DEVICE_ATTR_RO(implementation_reason);

static struct attribute *guac_dev_attrs[] = {
	&dev_attr_implementation.attr,
	&dev_attr_implementation_reason.attr,
	NULL
};
ATTRIBUTE_GROUPS(guac_dev);

/* The KUnit device suite drives these operations directly (testing.h). */
GUAC_STATIC_UNLESS_KUNIT const struct file_operations guac_fops = {
	.owner = THIS_MODULE,
	GUAC_FOP_FLAGS
	.open = guac_open,
	.release = guac_release,
	.read_iter = guac_read_iter,
	.llseek = guac_llseek,
	.splice_read = guac_splice_read,
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
	int ret = guac_test_init_fault("device");

	return ret ?: misc_register(&guac_misc);
}

void guac_device_uninit(void)
{
	misc_deregister(&guac_misc);
}
