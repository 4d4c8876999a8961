// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: /dev/guac's file operations on a private file. Byte p of an open
 * file must be byte p % 64 of block (origin + p / 64) mod 2^64 for every
 * position up to GUAC_DEV_END, whatever shape the destination iov_iter has,
 * with exact short counts on faults; llseek accepts exactly [0, GUAC_DEV_END]
 * through SEEK_SET and SEEK_CUR; IOCB_NOWAIT reads return data.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/bvec.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <guacrng/vectors.h>
#include <uapi/linux/guacrng.h>
#include "../../drivers/guacrng/guacrng.h"
#include "../../drivers/guacrng/testing.h"

#define DEV_TEST_LEN (3 * PAGE_SIZE + 123)
#define DEV_TEST_USER_PAGES 4

struct dev_test_ctx {
	struct file *file;
	void __user *ubuf;	/* DEV_TEST_USER_PAGES of user memory */
};

/* A file with guac_fops, opened as the VFS would, released by fput(). */
static int dev_test_init(struct kunit *test)
{
	struct dev_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned long uaddr;
	struct file *file;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	file = anon_inode_getfile("[guac-kunit]", &guac_fops, NULL, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ret = guac_fops.open(file_inode(file), file);
	if (ret) {
		/* release() copes with the NULL private_data a failed open leaves. */
		fput(file);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	ctx->file = file;

	uaddr = kunit_vm_mmap(test, NULL, 0, DEV_TEST_USER_PAGES * PAGE_SIZE,
			      PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(uaddr));
	ctx->ubuf = (void __user *)uaddr;
	return 0;
}

static void dev_test_exit(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;

	if (ctx && ctx->file)
		fput(ctx->file);
}

static void dev_set_origin(struct kunit *test, u64 origin)
{
	struct dev_test_ctx *ctx = test->priv;
	u64 readback = ~origin;

	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->ubuf, &origin, sizeof(origin)), 0);
	KUNIT_ASSERT_EQ(test, guac_fops.unlocked_ioctl(ctx->file, GUAC_IOC_SET_ORIGIN,
						       (unsigned long)ctx->ubuf), 0);
	KUNIT_ASSERT_EQ(test, guac_fops.unlocked_ioctl(ctx->file, GUAC_IOC_GET_ORIGIN,
						       (unsigned long)ctx->ubuf), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(&readback, ctx->ubuf, sizeof(readback)), 0);
	KUNIT_ASSERT_EQ(test, readback, origin);
}

/* The stream as the uapi header defines it, from the portable generator. */
static void dev_expected(u8 *out, u64 origin, loff_t pos, size_t len)
{
	guac_fill(GUAC_IMPL_GENERIC, out, origin + ((u64)pos >> GUAC_BLOCK_SHIFT),
		  pos & (GUAC_BLOCK_SIZE - 1), len);
}

static ssize_t dev_read(struct kunit *test, struct iov_iter *iter, loff_t *pos)
{
	struct dev_test_ctx *ctx = test->priv;
	struct kiocb kiocb;
	ssize_t ret;

	init_sync_kiocb(&kiocb, ctx->file);
	kiocb.ki_pos = *pos;
	ret = guac_fops.read_iter(&kiocb, iter);
	*pos = kiocb.ki_pos;
	return ret;
}

static ssize_t dev_read_kernel(struct kunit *test, void *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	return dev_read(test, &iter, pos);
}

/* Reads at positions that matter, with origins that wrap past 2^64. */
static void dev_test_positions(struct kunit *test)
{
	static const loff_t positions[] = {
		0, 1, 63, 64, 65, 4095, 4096, 4097, 123456789,
		GUAC_DEV_END - DEV_TEST_LEN, GUAC_DEV_END - 4097, GUAC_DEV_END - 64,
		GUAC_DEV_END - 1,
	};
	static const u64 origins[] = {
		0, 1, 0x123456789abcdefULL, U64_MAX - 2, U64_MAX,
		/* Lands (GUAC_DEV_END >> 6) blocks later exactly on block 0. */
		-(u64)(GUAC_DEV_END >> GUAC_BLOCK_SHIFT),
	};
	u8 *buf = kunit_kmalloc(test, DEV_TEST_LEN, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, DEV_TEST_LEN, GFP_KERNEL);
	unsigned int o, p;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	for (o = 0; o < ARRAY_SIZE(origins); o++) {
		dev_set_origin(test, origins[o]);
		for (p = 0; p < ARRAY_SIZE(positions); p++) {
			loff_t pos = positions[p];
			size_t want = min_t(u64, DEV_TEST_LEN, GUAC_DEV_END - pos);
			ssize_t got;

			/* Many reads: stop at the first that is wrong. */
			got = dev_read_kernel(test, buf, DEV_TEST_LEN, &pos);
			KUNIT_ASSERT_EQ_MSG(test, got, (ssize_t)want, "origin %#llx pos %lld",
					    origins[o], positions[p]);
			KUNIT_ASSERT_EQ_MSG(test, pos, positions[p] + (loff_t)want,
					    "origin %#llx pos %lld", origins[o], positions[p]);
			dev_expected(ref, origins[o], positions[p], got);
			KUNIT_ASSERT_MEMEQ_MSG(test, buf, ref, got, "origin %#llx pos %lld",
					       origins[o], positions[p]);
		}
	}
}

/* The origin reaches the last block and wraps to block 0 (the vectors). */
static void dev_test_origin_wrap(struct kunit *test)
{
	const struct guac_vector *last = &guac_vectors[ARRAY_SIZE(guac_vectors) - 1];
	u8 buf[2 * GUAC_BLOCK_SIZE];
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, last->block, U64_MAX);
	dev_set_origin(test, U64_MAX);
	KUNIT_ASSERT_EQ(test, dev_read_kernel(test, buf, sizeof(buf), &pos),
			(ssize_t)sizeof(buf));
	KUNIT_EXPECT_MEMEQ(test, buf, last->bytes, last->len);
	KUNIT_EXPECT_MEMEQ(test, buf + GUAC_BLOCK_SIZE, guac_vectors[0].bytes,
			   guac_vectors[0].len);
}

/*
 * End of file at GUAC_DEV_END, and past it up to OFFSET_MAX (an explicit
 * offset of pread, io_uring or AIO); positions below 0 are invalid.
 */
static void dev_test_offset_edges(struct kunit *test)
{
	static const loff_t past_end[] = {
		GUAC_DEV_END, GUAC_DEV_END + 1, OFFSET_MAX - 1, OFFSET_MAX,
	};
	u8 buf[16];
	unsigned int i;
	loff_t pos;

	for (i = 0; i < ARRAY_SIZE(past_end); i++) {
		pos = past_end[i];
		KUNIT_EXPECT_EQ_MSG(test, dev_read_kernel(test, buf, sizeof(buf), &pos), 0,
				    "read at %lld", past_end[i]);
		KUNIT_EXPECT_EQ(test, pos, past_end[i]);
	}
	pos = GUAC_DEV_END - 3;
	KUNIT_EXPECT_EQ(test, dev_read_kernel(test, buf, sizeof(buf), &pos), 3);
	KUNIT_EXPECT_EQ(test, pos, GUAC_DEV_END);
	pos = -1;
	KUNIT_EXPECT_EQ(test, dev_read_kernel(test, buf, sizeof(buf), &pos), -EINVAL);
	pos = 0;
	KUNIT_EXPECT_EQ(test, dev_read_kernel(test, buf, 0, &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0);
}

static void dev_expect_seek(struct kunit *test, loff_t offset, int whence, loff_t want)
{
	struct dev_test_ctx *ctx = test->priv;
	loff_t before = ctx->file->f_pos;
	loff_t got = vfs_llseek(ctx->file, offset, whence);

	KUNIT_EXPECT_EQ_MSG(test, got, want, "seek %lld whence %d from %lld", offset,
			    whence, before);
	KUNIT_EXPECT_EQ_MSG(test, ctx->file->f_pos, want < 0 ? before : want,
			    "position after seek %lld whence %d", offset, whence);
}

static void dev_test_llseek(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	u8 buf[100], ref[100];

	dev_expect_seek(test, 0, SEEK_SET, 0);
	dev_expect_seek(test, 12345, SEEK_SET, 12345);
	dev_expect_seek(test, 100, SEEK_CUR, 12445);
	dev_expect_seek(test, -12445, SEEK_CUR, 0);
	dev_expect_seek(test, -1, SEEK_CUR, -EINVAL);
	dev_expect_seek(test, -1, SEEK_SET, -EINVAL);
	dev_expect_seek(test, GUAC_DEV_END, SEEK_SET, GUAC_DEV_END);
	dev_expect_seek(test, 0, SEEK_CUR, GUAC_DEV_END);
	dev_expect_seek(test, 1, SEEK_CUR, -EINVAL);
	dev_expect_seek(test, OFFSET_MAX, SEEK_CUR, -EINVAL);
	dev_expect_seek(test, GUAC_DEV_END + 1, SEEK_SET, -EINVAL);
	dev_expect_seek(test, OFFSET_MAX, SEEK_SET, -EINVAL);
	dev_expect_seek(test, LLONG_MIN, SEEK_SET, -EINVAL);
	dev_expect_seek(test, -10, SEEK_CUR, GUAC_DEV_END - 10);
	dev_expect_seek(test, 10, SEEK_CUR, GUAC_DEV_END);
	/* The stream has no end, and no data or holes to look for. */
	dev_expect_seek(test, 0, SEEK_END, -EINVAL);
	dev_expect_seek(test, -5, SEEK_END, -EINVAL);
	dev_expect_seek(test, 0, SEEK_DATA, -EINVAL);
	dev_expect_seek(test, 0, SEEK_HOLE, -EINVAL);
	dev_expect_seek(test, 0, 42, -EINVAL);

	/* A read through the VFS continues where the seek left the file. */
	dev_expect_seek(test, 777777, SEEK_SET, 777777);
	KUNIT_ASSERT_EQ(test, kernel_read(ctx->file, buf, sizeof(buf), &ctx->file->f_pos),
			(ssize_t)sizeof(buf));
	dev_expected(ref, 0, 777777, sizeof(ref));
	KUNIT_EXPECT_MEMEQ(test, buf, ref, sizeof(ref));
	KUNIT_EXPECT_EQ(test, ctx->file->f_pos, 777777 + (loff_t)sizeof(buf));
}

/*
 * The open file advertises non-blocking reads, and a read with IOCB_NOWAIT
 * (io_uring's inline attempt, RWF_NOWAIT) returns the data, never -EAGAIN.
 */
static void dev_test_nowait(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	u8 *buf = kunit_kmalloc(test, DEV_TEST_LEN, GFP_KERNEL);
	u8 *ref = kunit_kmalloc(test, DEV_TEST_LEN, GFP_KERNEL);
	struct kvec kv = { .iov_base = buf, .iov_len = DEV_TEST_LEN };
	struct iov_iter iter;
	struct kiocb kiocb;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_EXPECT_TRUE(test, ctx->file->f_mode & FMODE_NOWAIT);
	init_sync_kiocb(&kiocb, ctx->file);
	kiocb.ki_flags |= IOCB_NOWAIT;
	kiocb.ki_pos = 4093;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, DEV_TEST_LEN);
	KUNIT_ASSERT_EQ(test, guac_fops.read_iter(&kiocb, &iter), (ssize_t)DEV_TEST_LEN);
	KUNIT_EXPECT_EQ(test, kiocb.ki_pos, 4093 + (loff_t)DEV_TEST_LEN);
	dev_expected(ref, 0, 4093, DEV_TEST_LEN);
	KUNIT_EXPECT_MEMEQ(test, buf, ref, DEV_TEST_LEN);
}

/* Kernel segments of awkward sizes, empty ones included. */
static void dev_test_kvec_shapes(struct kunit *test)
{
	static const size_t sizes[] = { 1, 0, 63, 64, 65, 0, 4095, 4096, 4097, 7, 8191, 3 };
	struct kvec kv[ARRAY_SIZE(sizes)];
	size_t total = 0, off = 0, i;
	struct iov_iter iter;
	loff_t pos = 61;
	u8 *buf, *ref;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		total += sizes[i];
	buf = kunit_kzalloc(test, total, GFP_KERNEL);
	ref = kunit_kmalloc(test, total, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	/* Segments in reverse buffer order, to catch a flat copy. */
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		off += sizes[i];
		kv[i].iov_base = buf + total - off;
		kv[i].iov_len = sizes[i];
	}
	iov_iter_kvec(&iter, ITER_DEST, kv, ARRAY_SIZE(kv), total);
	KUNIT_ASSERT_EQ(test, dev_read(test, &iter, &pos), (ssize_t)total);
	KUNIT_EXPECT_EQ(test, pos, 61 + (loff_t)total);

	dev_expected(ref, 0, 61, total);
	for (i = 0, off = 0; i < ARRAY_SIZE(sizes); off += sizes[i], i++)
		KUNIT_EXPECT_MEMEQ_MSG(test, kv[i].iov_base, ref + off, sizes[i],
				       "segment %zu", i);
}

/* Page segments at offsets within the page, as splice and the block layer give. */
static void dev_test_bvec_shapes(struct kunit *test)
{
	static const struct { unsigned int offset, len; } segs[] = {
		{ 0, PAGE_SIZE }, { 1, PAGE_SIZE - 1 }, { 100, 17 },
		{ PAGE_SIZE - 1, 1 }, { 2048, 2048 }, { 5, 4000 },
	};
	struct bio_vec bv[ARRAY_SIZE(segs)];
	struct page *pages[ARRAY_SIZE(segs)];
	size_t total = 0, off = 0, i;
	struct iov_iter iter;
	loff_t pos = 1000003;
	u8 *ref;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		bvec_set_page(&bv[i], pages[i], segs[i].len, segs[i].offset);
		total += segs[i].len;
	}
	ref = kunit_kmalloc(test, total, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	iov_iter_bvec(&iter, ITER_DEST, bv, ARRAY_SIZE(bv), total);
	KUNIT_EXPECT_EQ(test, dev_read(test, &iter, &pos), (ssize_t)total);

	dev_expected(ref, 0, 1000003, total);
	for (i = 0; i < ARRAY_SIZE(segs); off += segs[i].len, i++) {
		KUNIT_EXPECT_MEMEQ_MSG(test, (u8 *)page_address(pages[i]) + segs[i].offset,
				       ref + off, segs[i].len, "segment %zu", i);
		__free_page(pages[i]);
	}
}

/* User segments, as readv() gives them; compared after copying them back. */
static void dev_test_iovec_shapes(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	static const struct { size_t offset, len; } segs[] = {
		{ 3 * PAGE_SIZE + 5, 1 }, { 0, 4097 }, { 2 * PAGE_SIZE - 1, 0 },
		{ 2 * PAGE_SIZE - 3, 700 }, { 3 * PAGE_SIZE + 64, 64 },
	};
	struct iovec iov[ARRAY_SIZE(segs)];
	size_t total = 0, off = 0, i;
	struct iov_iter iter;
	loff_t pos = 4093;
	u8 *buf, *ref;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		iov[i].iov_base = ctx->ubuf + segs[i].offset;
		iov[i].iov_len = segs[i].len;
		total += segs[i].len;
	}
	buf = kunit_kmalloc(test, PAGE_SIZE * 2, GFP_KERNEL);
	ref = kunit_kmalloc(test, total, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	iov_iter_init(&iter, ITER_DEST, iov, ARRAY_SIZE(iov), total);
	KUNIT_ASSERT_EQ(test, dev_read(test, &iter, &pos), (ssize_t)total);

	dev_expected(ref, 0, 4093, total);
	for (i = 0; i < ARRAY_SIZE(segs); off += segs[i].len, i++) {
		KUNIT_ASSERT_EQ(test, copy_from_user(buf, iov[i].iov_base, segs[i].len), 0);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, ref + off, segs[i].len, "segment %zu", i);
	}
}

/*
 * How close to a fault copy_to_user() gets is the architecture's: x86's stops
 * at the first byte that faults; arm64's counts from the last block it stored
 * and may stop less than one 64-byte loop of its copy short (12 bytes of 8092
 * on 6.12, the bytes in between unwritten), which the kernel allows.
 */
#ifdef CONFIG_X86_64
#define DEV_FAULT_SLACK 0
#else
#define DEV_FAULT_SLACK 64
#endif

/*
 * A user buffer whose tail is unmapped: the read returns the bytes that fit
 * (exactly those on x86, at most DEV_FAULT_SLACK fewer elsewhere), they are
 * right, and the position moves by that much; a buffer with nothing mapped
 * gets -EFAULT and leaves the position alone.
 */
static void dev_test_user_fault(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	static const size_t starts[] = { 0, 100, PAGE_SIZE - 1 };
	size_t fits, len = 3 * PAGE_SIZE, i;
	u8 *buf, *ref;
	struct iov_iter iter;
	ssize_t got;
	loff_t pos;

	/* Keep pages 0 and 1; pages 2 and 3 go away. */
	KUNIT_ASSERT_EQ(test, vm_munmap((unsigned long)ctx->ubuf + 2 * PAGE_SIZE,
					2 * PAGE_SIZE), 0);
	buf = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	ref = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ref);

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		fits = 2 * PAGE_SIZE - starts[i];
		KUNIT_ASSERT_EQ(test, import_ubuf(ITER_DEST, ctx->ubuf + starts[i], len, &iter),
				0);
		pos = 333 + i;
		got = dev_read(test, &iter, &pos);
		KUNIT_ASSERT_LE_MSG(test, got, (ssize_t)fits, "start %zu", starts[i]);
		KUNIT_ASSERT_GE_MSG(test, got, (ssize_t)(fits - DEV_FAULT_SLACK),
				    "start %zu", starts[i]);
		KUNIT_EXPECT_EQ(test, pos, 333 + (loff_t)i + got);
		KUNIT_ASSERT_EQ(test, copy_from_user(buf, ctx->ubuf + starts[i], got), 0);
		dev_expected(ref, 0, 333 + i, got);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, ref, got, "start %zu", starts[i]);
	}

	KUNIT_ASSERT_EQ(test, import_ubuf(ITER_DEST, ctx->ubuf + 2 * PAGE_SIZE, 100, &iter), 0);
	pos = 5;
	KUNIT_EXPECT_EQ(test, dev_read(test, &iter, &pos), -EFAULT);
	KUNIT_EXPECT_EQ(test, pos, 5);
}

/*
 * Opens for writing are refused at open, as rng_dev_open() does: there is no
 * write op to reach. Reads and lseek() on one open file are serialised on
 * its position (FMODE_ATOMIC_POS), as on a regular file.
 */
static void dev_test_open_modes(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	static const int flags[] = { O_WRONLY, O_RDWR };
	struct file *file;
	size_t i;

	KUNIT_EXPECT_NULL(test, guac_fops.write_iter);
	KUNIT_EXPECT_NULL(test, guac_fops.write);
	KUNIT_EXPECT_TRUE(test, ctx->file->f_mode & FMODE_ATOMIC_POS);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		file = anon_inode_getfile("[guac-kunit]", &guac_fops, NULL, flags[i]);
		KUNIT_ASSERT_FALSE(test, IS_ERR(file));
		KUNIT_EXPECT_EQ_MSG(test, guac_fops.open(file_inode(file), file), -EPERM,
				    "open flags %#x", flags[i]);
		KUNIT_EXPECT_NULL(test, file->private_data);
		fput(file);
	}
}

/* The uapi's implementation numbers and the names they stand for. */
static const char *const device_impl_ids[] = {
	[GUAC_IMPL_ID_GENERIC] = "generic",
	[GUAC_IMPL_ID_SSE2] = "sse2",
	[GUAC_IMPL_ID_AVX2] = "avx2",
	[GUAC_IMPL_ID_AVX512] = "avx512",
	[GUAC_IMPL_ID_NEON] = "neon",
};

static void dev_test_ioctl_rejected(struct kunit *test)
{
	struct dev_test_ctx *ctx = test->priv;
	struct guac_info info;

	KUNIT_EXPECT_EQ(test, guac_fops.unlocked_ioctl(ctx->file, _IO(GUAC_IOC_MAGIC, 0x7f),
						       0), -ENOTTY);
	KUNIT_EXPECT_EQ(test, guac_fops.unlocked_ioctl(ctx->file, GUAC_IOC_SET_ORIGIN, 0),
			-EFAULT);

	KUNIT_ASSERT_EQ(test, guac_fops.unlocked_ioctl(ctx->file, GUAC_IOC_GET_INFO,
						       (unsigned long)ctx->ubuf), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(&info, ctx->ubuf, sizeof(info)), 0);
	KUNIT_EXPECT_EQ(test, info.version, GUAC_UAPI_VERSION);
	KUNIT_EXPECT_EQ(test, info.impl, guac_impl_id(guac_impl_active()));
	KUNIT_EXPECT_STREQ(test, info.impl_name, guac_impl_names[guac_impl_active()]);
	/* The id is the uapi's number for the name, on every architecture. */
	KUNIT_ASSERT_LT(test, info.impl, (u32)ARRAY_SIZE(device_impl_ids));
	KUNIT_EXPECT_STREQ(test, info.impl_name, device_impl_ids[info.impl]);
	KUNIT_EXPECT_EQ(test, info.reserved, 0U);
}

static struct kunit_case dev_test_cases[] = {
	KUNIT_CASE(dev_test_positions),
	KUNIT_CASE(dev_test_origin_wrap),
	KUNIT_CASE(dev_test_offset_edges),
	KUNIT_CASE(dev_test_llseek),
	KUNIT_CASE(dev_test_nowait),
	KUNIT_CASE(dev_test_kvec_shapes),
	KUNIT_CASE(dev_test_bvec_shapes),
	KUNIT_CASE(dev_test_iovec_shapes),
	KUNIT_CASE(dev_test_user_fault),
	KUNIT_CASE(dev_test_open_modes),
	KUNIT_CASE(dev_test_ioctl_rejected),
	{}
};

static struct kunit_suite dev_test_suite = {
	.name = "guacrng-device",
	.init = dev_test_init,
	.exit = dev_test_exit,
	.test_cases = dev_test_cases,
};

kunit_test_suite(dev_test_suite);
