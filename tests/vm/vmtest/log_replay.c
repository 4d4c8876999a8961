// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac-vmtest log-replay: the writes dm-log-writes recorded, replayed onto a
 * device as a crash at any point of the log would have left it (issue 37,
 * item 4). Written from the log's format (the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst and
 * drivers/md/dm-log-writes.c), not from another replay tool.
 *
 * The log device: a super block (magic, version, entry count, the data
 * device's logical block size) in the first block; then the entries in the
 * order their writes completed, each a header block (sector, sector count,
 * flags, data length; a mark's name after the header) followed by the
 * write's data, sector count blocks, except for a discard, which has none.
 * Sectors and counts are in the data device's blocks.
 *
 *   guac-vmtest log-replay LOG DEV [--limit N] [--drop K]... [--tear K:BYTES] [--list]
 *
 * replays entries 0 to N-1 (all by default) onto DEV: a write's data at its
 * place, a discard as zeros; --drop K leaves entry K out (a flushed write the
 * device lost; repeated, each entry it names: the writes a volatile cache
 * lost), --tear K:BYTES writes only its first BYTES (a write torn by power
 * loss). --list prints the entries instead, one a line:
 *
 *   entry K: sector S, N sectors, FLAGS[, mark NAME]
 *
 * It ends with "replayed N of M entries, B data bytes, to byte E" (E: the
 * end of the furthest write replayed).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vmtest.h"

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1
#define LW_FLUSH (1u << 0)
#define LW_FUA (1u << 1)
#define LW_DISCARD (1u << 2)
#define LW_MARK (1u << 3)
#define LW_METADATA (1u << 4)
#define LW_MAX_DROPS 4096

/* The on-disk headers, little-endian (dm-log-writes.c). */
struct lw_super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

struct lw_replay {
	int log, dev;
	uint32_t bs;			/* the data device's block: the log's unit */
	uint64_t nr_entries, limit;
	uint64_t drop[LW_MAX_DROPS];	/* the entries left out */
	unsigned int drops;
	uint64_t tear, tear_bytes;	/* UINT64_MAX: none */
	bool list;
	uint64_t data_bytes, end;	/* replayed: data bytes, the furthest end */
	uint8_t *buf;
};

static bool lw_read(const struct lw_replay *r, void *buf, size_t len, uint64_t pos)
{
	ssize_t n = pread(r->log, buf, len, (off_t)pos);

	if (n == (ssize_t)len)
		return true;
	vt_fail("log: short read of %zu bytes at %" PRIu64 " (%s)", len, pos,
		n < 0 ? strerror(errno) : "end of the log");
	return false;
}

static bool lw_super_read(struct lw_replay *r)
{
	uint8_t block[512];
	struct lw_super s;

	if (!lw_read(r, block, sizeof(block), 0))
		return false;
	memcpy(&s, block, sizeof(s));
	if (le64toh(s.magic) != LW_MAGIC || le64toh(s.version) != LW_VERSION) {
		vt_fail("log: no dm-log-writes super block (magic %#" PRIx64 ", version %" PRIu64
			")", le64toh(s.magic), le64toh(s.version));
		return false;
	}
	r->bs = le32toh(s.sectorsize);
	r->nr_entries = le64toh(s.nr_entries);
	if (r->bs < 512 || r->bs > (1u << 16) || (r->bs & (r->bs - 1))) {
		vt_fail("log: block size %u", r->bs);
		return false;
	}
	return true;
}

static void lw_flags_text(uint64_t flags, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s%s", flags & LW_FLUSH ? "FLUSH " : "",
		 flags & LW_FUA ? "FUA " : "", flags & LW_DISCARD ? "DISCARD " : "",
		 flags & LW_MARK ? "MARK " : "", flags & LW_METADATA ? "METADATA " : "",
		 flags & ~0x1full ? "OTHER " : "");
	if (!buf[0])
		snprintf(buf, size, "WRITE");
	else
		buf[strlen(buf) - 1] = '\0';
}

static bool lw_dropped(const struct lw_replay *r, uint64_t k)
{
	for (unsigned int i = 0; i < r->drops; i++)
		if (r->drop[i] == k)
			return true;
	return false;
}

/* Entry @k's data (at @pos in the log) onto the device, as the options say. */
static bool lw_apply(struct lw_replay *r, uint64_t k, const struct lw_entry *e, uint64_t pos)
{
	uint64_t len = e->nr_sectors * r->bs, at = e->sector * r->bs, done = 0;

	if (lw_dropped(r, k) || !len)
		return true;
	if (k == r->tear && r->tear_bytes < len)
		len = r->tear_bytes;
	while (done < len) {
		size_t chunk = len - done < (1u << 20) ? (size_t)(len - done) : (1u << 20);

		if (e->flags & LW_DISCARD)
			memset(r->buf, 0, chunk);
		else if (!lw_read(r, r->buf, chunk, pos + done))
			return false;
		if (pwrite(r->dev, r->buf, chunk, (off_t)(at + done)) != (ssize_t)chunk) {
			vt_fail("device: write of %zu bytes at %" PRIu64 ": %s", chunk, at + done,
				strerror(errno));
			return false;
		}
		done += chunk;
	}
	r->data_bytes += len;
	if (at + len > r->end)
		r->end = at + len;
	return true;
}

/* Entry @k at @pos: listed or replayed; *@next gets where the next one starts. */
static bool lw_entry_do(struct lw_replay *r, uint64_t k, uint64_t pos, uint64_t *next)
{
	uint8_t *block = r->buf;
	struct lw_entry e;
	char flags[64], mark[512] = "";

	if (!lw_read(r, block, r->bs, pos))
		return false;
	memcpy(&e, block, sizeof(e));
	e.sector = le64toh(e.sector);
	e.nr_sectors = le64toh(e.nr_sectors);
	e.flags = le64toh(e.flags);
	e.data_len = le64toh(e.data_len);
	if (e.flags & LW_MARK) {
		size_t n = e.data_len < sizeof(mark) - 1 ? e.data_len : sizeof(mark) - 1;

		if (n > r->bs - sizeof(e))
			n = r->bs - sizeof(e);
		memcpy(mark, block + sizeof(e), n);
		mark[n] = '\0';
	}
	pos += r->bs;
	*next = pos + ((e.flags & LW_DISCARD) ? 0 : e.nr_sectors * r->bs);
	if (r->list) {
		lw_flags_text(e.flags, flags, sizeof(flags));
		printf("entry %" PRIu64 ": sector %" PRIu64 ", %" PRIu64 " sectors, %s%s%s\n", k,
		       e.sector, e.nr_sectors, flags, mark[0] ? ", mark " : "", mark);
		return true;
	}
	return lw_apply(r, k, &e, pos);
}

static bool lw_parse(struct lw_replay *r, int argc, char **argv)
{
	int i;

	r->limit = r->tear = UINT64_MAX;
	for (i = 3; i < argc; i++) {
		char *colon;

		if (!strcmp(argv[i], "--list")) {
			r->list = true;
		} else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
			if (!guac_parse_u64("--limit", argv[++i], &r->limit))
				return false;
		} else if (!strcmp(argv[i], "--drop") && i + 1 < argc) {
			if (r->drops == LW_MAX_DROPS) {
				guac_err("more than %u --drop", LW_MAX_DROPS);
				return false;
			}
			if (!guac_parse_u64("--drop", argv[++i], &r->drop[r->drops++]))
				return false;
		} else if (!strcmp(argv[i], "--tear") && i + 1 < argc &&
			   (colon = strchr(argv[i + 1], ':'))) {
			*colon = '\0';
			if (!guac_parse_u64("--tear entry", argv[++i], &r->tear) ||
			    !guac_parse_u64("--tear bytes", colon + 1, &r->tear_bytes))
				return false;
		} else {
			guac_err("unknown or incomplete option '%s'", argv[i]);
			return false;
		}
	}
	return true;
}

int vt_cmd_log_replay(int argc, char **argv)
{
	struct lw_replay r = { .log = -1, .dev = -1 };
	uint64_t k, pos, next;
	int status = GUAC_EXIT_OK;

	if (argc < 3 || !lw_parse(&r, argc, argv)) {
		guac_err("usage: log-replay LOG DEV [--limit N] [--drop K]... [--tear K:BYTES] "
			 "[--list]");
		return GUAC_EXIT_ERROR;
	}
	r.log = open(argv[1], O_RDONLY | O_CLOEXEC);
	r.dev = r.list ? -1 : open(argv[2], O_WRONLY | O_CLOEXEC);
	if (r.log < 0 || (!r.list && r.dev < 0)) {
		guac_err("cannot open '%s': %s", r.log < 0 ? argv[1] : argv[2], strerror(errno));
		status = GUAC_EXIT_ERROR;
		goto out;
	}
	r.buf = guac_alloc(1u << 20);
	if (!lw_super_read(&r)) {
		status = GUAC_EXIT_FAIL;
		goto out;
	}
	if (r.limit > r.nr_entries)
		r.limit = r.nr_entries;
	for (k = 0, pos = r.bs; k < r.limit; k++, pos = next)
		if (!lw_entry_do(&r, k, pos, &next))
			break;
	if (!r.list && (fsync(r.dev) || vt_failures()))
		status = GUAC_EXIT_FAIL;
	if (!r.list)
		printf("replayed %" PRIu64 " of %" PRIu64 " entries, %" PRIu64 " data bytes, to "
		       "byte %" PRIu64 "\n", k, r.nr_entries, r.data_bytes, r.end);
out:
	free(r.buf);
	if (r.log >= 0)
		close(r.log);
	if (r.dev >= 0)
		close(r.dev);
	return status;
}
