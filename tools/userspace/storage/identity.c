// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Target and fill identity, and the one trust rule (identity.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "identity.h"
#include "util.h"

#ifndef BLKGETDISKSEQ
#define BLKGETDISKSEQ _IOR(0x12, 128, __u64)	/* Linux 5.15 */
#endif

/* Append " key=value" to @out, the value's spaces, '%', '=' and control bytes as %XX. */
static void id_put(char *out, size_t size, const char *key, const char *val)
{
	size_t n = strlen(out);
	const unsigned char *p;

	if (!val || !*val || n + 1 >= size)
		return;
	n += snprintf(out + n, size - n, "%s%s=", n ? " " : "", key);
	for (p = (const unsigned char *)val; *p && n + 4 < size; p++) {
		if (*p <= ' ' || *p == '%' || *p == '=' || *p == 0x7f)
			n += snprintf(out + n, size - n, "%%%02X", *p);
		else
			out[n++] = (char)*p;
	}
	out[n < size ? n : size - 1] = '\0';
}

static void id_putu(char *out, size_t size, const char *key, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	id_put(out, size, key, num);
}

/* The value of @key in the identity @id, unescaped, into @out ("" when absent). */
static void id_get(const char *id, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key), n = 0;
	const char *p = id;

	out[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, ' ');

		if (!strncmp(p, key, klen) && p[klen] == '=') {
			for (p += klen + 1; *p && *p != ' ' && n + 1 < size; p++) {
				unsigned int c;

				if (*p == '%' && sscanf(p + 1, "%2x", &c) == 1) {
					out[n++] = (char)c;
					p += 2;
				} else {
					out[n++] = *p;
				}
			}
			out[n] = '\0';
			return;
		}
		p = end ? end + 1 : NULL;
	}
}

void guac_ident_host(char *out, size_t size)
{
	if (gethostname(out, size - 1))
		out[0] = '\0';
	out[size - 1] = '\0';
}

static void id_boot(char *out, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	out[0] = '\0';
	if (f) {
		if (!fgets(out, (int)size, f))
			out[0] = '\0';
		fclose(f);
	}
	out[strcspn(out, "\n")] = '\0';
}

/* udev's record of device @dev (/run/udev/data/bM:m, as lsblk reads it): property @prop. */
static void id_udev(dev_t dev, const char *prop, char *out, size_t size)
{
	char path[64], line[512];
	size_t plen = strlen(prop);
	FILE *f;

	snprintf(path, sizeof(path), "/run/udev/data/b%u:%u", major(dev), minor(dev));
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "E:", 2) && !strncmp(line + 2, prop, plen) &&
		    line[2 + plen] == '=') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%s", line + 3 + plen);
			break;
		}
	fclose(f);
}

static void id_block(const struct guac_target *t, const struct stat *st, char *out, size_t size)
{
	char dir[4096], part[4096], val[256], serial[256], wwid[256], host[256], boot[64];
	__u64 seq = 0;

	snprintf(serial, sizeof(serial), "%s", t->serial);
	snprintf(wwid, sizeof(wwid), "%s", t->wwid);
	if (!serial[0])
		id_udev(st->st_rdev, "ID_SERIAL_SHORT", serial, sizeof(serial));
	if (!wwid[0])
		id_udev(st->st_rdev, "ID_WWN", wwid, sizeof(wwid));
	id_put(out, size, "serial", serial);
	id_put(out, size, "wwid", wwid);
	val[0] = '\0';
	if (guac_sysfs_disk(st->st_rdev, dir, sizeof(dir)) &&
	    !guac_sysfs_read(dir, "device/model", val, sizeof(val)))
		id_udev(st->st_rdev, "ID_MODEL", val, sizeof(val));
	id_put(out, size, "model", val);
	id_putu(out, size, "size", t->size);
	/* A partition is its disk's and its place on it. */
	snprintf(part, sizeof(part), "/sys/dev/block/%u:%u", major(st->st_rdev),
		 minor(st->st_rdev));
	if (guac_sysfs_read(part, "partition", val, sizeof(val))) {
		id_put(out, size, "partition", val);
		if (guac_sysfs_read(part, "start", val, sizeof(val)))
			id_put(out, size, "start", val);
	}
	/* Where it is (compared only where nothing else names the medium). */
	guac_ident_host(host, sizeof(host));
	id_put(out, size, "host", host);
	if (serial[0] || wwid[0])
		return;
	/* Nothing names the medium: this host's this attachment of it does. */
	id_boot(boot, sizeof(boot));
	id_put(out, size, "boot", boot);
	if (t->fd >= 0 && !ioctl(t->fd, BLKGETDISKSEQ, &seq))
		id_putu(out, size, "diskseq", seq);
}

/* statfs types of file systems several hosts share: their files are the same file everywhere. */
static bool id_shared_fs(unsigned long type)
{
	static const unsigned long shared[] = {
		0x6969,		/* NFS */
		0x0BD00BD0,	/* Lustre */
		0x47504653,	/* GPFS */
		0x00C36400,	/* CephFS */
		0xFE534D42,	/* SMB2 */
		0xFF534D42,	/* CIFS */
		0x013111A8,	/* IBRIX */
		0x19830326,	/* BeeGFS */
		0x7461636F,	/* OCFS2 */
		0x01161970,	/* GFS2 */
	};
	size_t i;

	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (type == shared[i])
			return true;
	return false;
}

bool guac_ident_of(const struct guac_target *t, char *out, size_t size)
{
	struct stat st;
	struct statfs fs;
	char host[256], v[64];

	out[0] = '\0';
	if (t->fd < 0 || fstat(t->fd, &st))
		return false;
	if (S_ISBLK(st.st_mode)) {
		snprintf(out, size, "block");
		id_block(t, &st, out, size);
		return true;
	}
	if (!S_ISREG(st.st_mode))
		return false;
	snprintf(out, size, "file");
	guac_ident_host(host, sizeof(host));
	id_put(out, size, "host", host);
	/* The running kernel: not compared (a file outlives a restart), see id_same_kernel. */
	id_boot(v, sizeof(v));
	id_put(out, size, "kernel", v);
	if (!fstatfs(t->fd, &fs)) {
		snprintf(v, sizeof(v), "0x%lx", (unsigned long)fs.f_type);
		id_put(out, size, "fstype", v);
		snprintf(v, sizeof(v), "%08x%08x", (unsigned int)fs.f_fsid.__val[0],
			 (unsigned int)fs.f_fsid.__val[1]);
		id_put(out, size, "fsid", v);
		if (id_shared_fs((unsigned long)fs.f_type))
			id_put(out, size, "shared", "1");
	}
	snprintf(v, sizeof(v), "%u:%u", major(st.st_dev), minor(st.st_dev));
	id_put(out, size, "dev", v);
	id_putu(out, size, "ino", (uint64_t)st.st_ino);
	return true;
}

/* What each key is, for the message that says which differs. */
static const char *id_why(const char *key)
{
	return !strcmp(key, "diskseq") ? ": the medium was detached and attached again (a new "
					 "disk, image or loop device behind the same name)" :
	       !strcmp(key, "boot") ? ": the host was restarted since, and nothing else names "
				      "this medium" :
	       !strcmp(key, "ino") ? ": the file was replaced (removed and created again)" :
	       !strcmp(key, "host") ? ": another machine's target" :
	       !strcmp(key, "kind") ? ": one is a file, the other a block device" : "";
}

/*
 * Both identities taken under one running kernel (the boot id of a block
 * device's or of a file's): one machine, whatever its UTS namespace calls
 * itself (a Slurm or container node beside others on one machine), so the
 * host names need not agree. Machines cloned from one image share a
 * machine-id and may share a host name, never a boot id.
 */
static bool id_same_kernel(const char *then, const char *now)
{
	const char *key = strncmp(then, "block", 5) ? "kernel" : "boot";
	char a[64], b[64];

	id_get(then, key, a, sizeof(a));
	id_get(now, key, b, sizeof(b));
	return a[0] && !strcmp(a, b);
}

bool guac_ident_diff(const char *then, const char *now, char *why, size_t size)
{
	static const char *const keys[] = { "serial", "wwid", "model", "size", "partition",
					     "start", "host", "boot", "diskseq", "fstype", "fsid",
					     "dev", "ino", NULL };
	char a[512], b[512], sa[8], sb[8];
	bool shared, named, one_kernel;
	size_t i;

	if (strcspn(then, " ") != strcspn(now, " ") || strncmp(then, now, strcspn(now, " "))) {
		snprintf(why, size, "its kind differs (then %.*s, now %.*s)%s",
			 (int)strcspn(then, " "), then, (int)strcspn(now, " "), now, id_why("kind"));
		return false;
	}
	id_get(then, "shared", sa, sizeof(sa));
	id_get(now, "shared", sb, sizeof(sb));
	shared = sa[0] && sb[0];
	/* A disk its serial or WWN names is that disk on any host. */
	id_get(then, "serial", a, sizeof(a));
	id_get(then, "wwid", b, sizeof(b));
	named = !strncmp(then, "block", 5) && (a[0] || b[0]);
	one_kernel = id_same_kernel(then, now);
	for (i = 0; keys[i]; i++) {
		if ((shared && (!strcmp(keys[i], "host") || !strcmp(keys[i], "dev") ||
				!strcmp(keys[i], "fsid"))) ||
		    ((named || one_kernel) && !strcmp(keys[i], "host")))
			continue;
		id_get(then, keys[i], a, sizeof(a));
		id_get(now, keys[i], b, sizeof(b));
		if (strcmp(a, b)) {
			snprintf(why, size, "its %s differs (then %s, now %s)%s", keys[i],
				 a[0] ? a : "none", b[0] ? b : "none", id_why(keys[i]));
			return false;
		}
	}
	return true;
}

void guac_ident_machine(const char *ident, char *out, size_t size)
{
	char v[256];

	out[0] = '\0';
	if (!strncmp(ident, "file", 4)) {
		id_get(ident, "shared", v, sizeof(v));
		if (!v[0])
			id_get(ident, "kernel", out, size);
		return;
	}
	id_get(ident, "serial", v, sizeof(v));
	if (v[0])
		return;
	id_get(ident, "wwid", v, sizeof(v));
	if (!v[0])
		id_get(ident, "boot", out, size);
}

bool guac_ident_part_diff(const char *a, const char *b, char *why, size_t size)
{
	char ka[64], kb[64], sa[8], sb[8];

	if (!guac_ident_diff(a, b, why, size))
		return false;
	if (strncmp(a, "file", 4))
		return true;
	id_get(a, "shared", sa, sizeof(sa));
	id_get(b, "shared", sb, sizeof(sb));
	id_get(a, "kernel", ka, sizeof(ka));
	id_get(b, "kernel", kb, sizeof(kb));
	if ((sa[0] && sb[0]) || !ka[0] || !kb[0] || !strcmp(ka, kb))
		return true;
	snprintf(why, size, "its running kernel differs (then %s, now %s): written on two "
		 "machines, or on one restarted between the parts; a file on a local file system "
		 "is one machine's, and machines cloned from one image can agree on all else "
		 "(host name, file system, device, inode). If one machine wrote every part, "
		 "check all of the fill there instead, by its origin", ka, kb);
	return false;
}

bool guac_ident_medium_key(const char *ident, char *out, size_t size)
{
	char a[256], b[256], c[256];

	if (!ident || !ident[0])
		return false;
	if (!strncmp(ident, "block", 5)) {
		id_get(ident, "serial", a, sizeof(a));
		id_get(ident, "wwid", b, sizeof(b));
		if (a[0] || b[0])
			return snprintf(out, size, "disk\x1f%s\x1f%s", a, b), true;
		id_get(ident, "boot", a, sizeof(a));
		id_get(ident, "diskseq", b, sizeof(b));
		return a[0] && b[0] && (snprintf(out, size, "seq\x1f%s\x1f%s", a, b), true);
	}
	id_get(ident, "ino", a, sizeof(a));
	id_get(ident, "fstype", b, sizeof(b));
	id_get(ident, "shared", c, sizeof(c));
	if (!c[0])	/* only a shared file system's files are compared without it */
		id_get(ident, "fsid", c, sizeof(c));
	return a[0] && (snprintf(out, size, "file\x1f%s\x1f%s\x1f%s", b, c, a), true);
}

void guac_ident_describe(const char *ident, char *out, size_t size)
{
	char v[6][256];

	if (!strncmp(ident, "file", 4)) {
		id_get(ident, "ino", v[0], sizeof(v[0]));
		id_get(ident, "dev", v[1], sizeof(v[1]));
		id_get(ident, "host", v[2], sizeof(v[2]));
		id_get(ident, "fstype", v[3], sizeof(v[3]));
		snprintf(out, size, "the file of inode %s on device %s of host %s (file system "
			 "type %s)", v[0], v[1], v[2][0] ? v[2] : "unknown", v[3]);
		return;
	}
	id_get(ident, "serial", v[0], sizeof(v[0]));
	id_get(ident, "wwid", v[1], sizeof(v[1]));
	id_get(ident, "model", v[2], sizeof(v[2]));
	id_get(ident, "size", v[3], sizeof(v[3]));
	id_get(ident, "diskseq", v[4], sizeof(v[4]));
	id_get(ident, "host", v[5], sizeof(v[5]));
	snprintf(out, size, "the disk of serial %s, WWN %s, model %s, %s bytes%s%s%s%s",
		 v[0][0] ? v[0] : "none", v[1][0] ? v[1] : "none", v[2][0] ? v[2] : "unknown",
		 v[3], v[4][0] ? ", diskseq " : "", v[4], v[5][0] ? " on host " : "", v[5]);
}

bool guac_ident_here(const char *ident)
{
	char host[256], mine[256];

	/* This running kernel's target (id_same_kernel), or this host name's. */
	id_get(ident, strncmp(ident, "block", 5) ? "kernel" : "boot", host, sizeof(host));
	id_boot(mine, sizeof(mine));
	if (host[0] && !strcmp(host, mine))
		return true;
	id_get(ident, "host", host, sizeof(host));
	guac_ident_host(mine, sizeof(mine));
	return host[0] && !strcmp(host, mine);
}

#define ID_UNTRUSTED "untrusted "

static double id_ts(const struct timespec *t)
{
	return (double)t->tv_sec + t->tv_nsec / 1e9;
}

/*
 * How long after a file's last change (mtime, ctime) a later change is sure
 * to leave another stamp: time stamps are taken from the coarse clock (a
 * tick behind), rounded down to the file system's granularity. Whole seconds
 * (both stamps' nanoseconds 0: ext4 with 128-byte inodes, ext3, ...) or two
 * (FAT, exFAT) plus a tick; else two ticks.
 */
static double id_granularity(const struct stat *st, unsigned long fstype)
{
	struct timespec res = { 0, 4000000 };
	double tick;

	clock_getres(CLOCK_REALTIME_COARSE, &res);
	tick = id_ts(&res) > 0.001 ? id_ts(&res) : 0.001;
	if (st->st_mtim.tv_nsec || st->st_ctim.tv_nsec)
		return 2 * tick;
	if (fstype == 0x4d44 || fstype == 0x2011BAB0)	/* MSDOS, exFAT */
		return 2 + 2 * tick;
	return 1 + 2 * tick;
}

/*
 * Sectors written to (and discarded from) block device @st since it appeared,
 * as its /sys/dev/block/MAJ:MIN/stat counts them: a write leaves no time on a
 * block device, but it moves this count. Pending writes in the page cache
 * (another program's buffered dd) are flushed first, so that they count now
 * rather than after the stamp. False when the kernel does not say.
 */
static bool id_block_written(int fd, const struct stat *st, unsigned long long *written)
{
	unsigned long long v[14] = { 0 };
	char path[64];
	FILE *f;
	int n;

	(void)fsync(fd);	/* a failed flush leaves the count as it is: still a count */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", major(st->st_rdev),
		 minor(st->st_rdev));
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
		   &v[11], &v[12], &v[13]);
	fclose(f);
	if (n < 7)
		return false;
	*written = v[6] + v[13];	/* sectors written, sectors discarded (Linux 4.18) */
	return true;
}

bool guac_ident_stamp(const struct guac_target *t, bool wait, char *buf, size_t size)
{
	char base[256], boot[64];
	struct stat st;
	struct statfs fs;
	struct timespec now;
	double age, gran;
	__u64 seq = 0;
	unsigned long long written;
	int tries;

	buf[0] = '\0';
	if (t->fd < 0 || fstat(t->fd, &st))
		return false;
	if (S_ISBLK(st.st_mode)) {
		if (!guac_target_stamp(t, base, sizeof(base)))
			return false;
		id_boot(boot, sizeof(boot));
		if (!ioctl(t->fd, BLKGETDISKSEQ, &seq))
			snprintf(buf, size, "%s diskseq %llu boot %s", base, (unsigned long long)seq,
				 boot);
		else
			snprintf(buf, size, "%s boot %s", base, boot);
		if (id_block_written(t->fd, &st, &written))
			snprintf(buf + strlen(buf), size - strlen(buf), " written %llu", written);
		return true;
	}
	for (tries = 0; tries < 3; tries++) {
		if (fstat(t->fd, &st) || !guac_target_stamp(t, base, sizeof(base)))
			return false;
		gran = id_granularity(&st, fstatfs(t->fd, &fs) ? 0 : (unsigned long)fs.f_type);
		clock_gettime(CLOCK_REALTIME, &now);
		age = id_ts(&now) - (id_ts(&st.st_mtim) > id_ts(&st.st_ctim) ?
				     id_ts(&st.st_mtim) : id_ts(&st.st_ctim));
		if (age >= gran) {
			snprintf(buf, size, "%s", base);
			return true;
		}
		if (!wait || age < -gran)	/* a stamp in the future: no wait helps */
			break;
		struct timespec d = { (time_t)(gran - age), (long)((gran - age -
						(double)(time_t)(gran - age)) * 1e9) + 1000000 };

		nanosleep(&d, NULL);
	}
	snprintf(buf, size, ID_UNTRUSTED "%s", base);
	return true;
}

/* A stamp without its "untrusted " mark, to compare. */
static const char *id_stamp_body(const char *s)
{
	return strncmp(s, ID_UNTRUSTED, strlen(ID_UNTRUSTED)) ? s : s + strlen(ID_UNTRUSTED);
}

/*
 * The target unchanged between stamps @then and @now. A block device's stamp
 * recorded before it counted writes (" written N", issue 35 item 7) is
 * compared without the count: it showed only the medium, and still does.
 */
static bool id_stamp_same(const char *then, const char *now)
{
	const char *count;

	then = id_stamp_body(then);
	now = id_stamp_body(now);
	count = strstr(now, " written ");
	if (!strncmp(then, "block ", 6) && !strstr(then, " written ") && count)
		return strlen(then) == (size_t)(count - now) && !strncmp(then, now, strlen(then));
	return !strcmp(then, now);
}

const char *guac_record_trust(const struct guac_manifest *m, const char *ident_now,
			      const char *stamp_now, bool *changed, char *why, size_t size)
{
	uint64_t sum = 0;
	char d[512];
	unsigned int i;

	*changed = false;
	if (!m->have_verify) {
		snprintf(why, size, "no check is recorded");
	} else if (m->version < 3 || !m->verify_stamp[0]) {
		snprintf(why, size, "the check is recorded without the target's stamp (%s), so "
			 "nothing shows the target unchanged since; and an older guac's records "
			 "(manifest version 2) could say complete for checks that were not",
			 m->version < 3 ? "manifest version 2" : "its target_stamp is null");
	} else if (!m->identity[0]) {
		snprintf(why, size, "the manifest (version %u) records no identity of its target, "
			 "only its path: which disk or file the check was of is not known (a guac "
			 "before manifest version 6 wrote it; verify again)", m->version);
	} else if (!strncmp(m->verify_stamp, ID_UNTRUSTED, strlen(ID_UNTRUSTED))) {
		snprintf(why, size, "the check began within the file system's time-stamp "
			 "granularity of the target's last change, so a change then would have left "
			 "the same stamp: its stamp cannot show the target unchanged");
	} else {
		for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++)
			sum += m->verify_classes[i];
		if (m->verify_places && sum != m->verify_bad_sectors) {
			snprintf(why, size, "the record's classes count %" PRIu64 " bad sectors but "
				 "its bad_sectors says %" PRIu64 ": it was edited", sum,
				 m->verify_bad_sectors);
		} else if (m->verify_places && m->verify_bad_ranges < m->nverify_bad) {
			snprintf(why, size, "the record lists %u bad ranges but counts %" PRIu64
				 ": it was edited", m->nverify_bad, m->verify_bad_ranges);
		} else if (ident_now && !guac_ident_diff(m->identity, ident_now, d, sizeof(d))) {
			*changed = true;
			snprintf(why, size, "the target is not the one the manifest records: %s", d);
		} else if (stamp_now && !id_stamp_same(m->verify_stamp, stamp_now)) {
			*changed = true;
			snprintf(why, size, "the target changed since the recorded check began "
				 "(then: %s; now: %s), so what it checked may be different now",
				 m->verify_stamp, id_stamp_body(stamp_now));
		} else {
			return NULL;
		}
	}
	return why;
}

/* The stream block a fill puts at device byte 0 (mod 2^64): where its stream sits. */
static uint64_t fill_base(uint64_t origin, uint64_t soff, uint64_t doff)
{
	uint64_t delta = soff - doff;	/* mod 2^64 */

	return soff >= doff ? origin + delta / 64 : origin - (doff - soff + 63) / 64;
}

uint64_t guac_fill_distance(uint64_t origin_a, uint64_t soff_a, uint64_t doff_a,
			    uint64_t origin_b, uint64_t soff_b, uint64_t doff_b)
{
	uint64_t d = fill_base(origin_a, soff_a, doff_a) - fill_base(origin_b, soff_b, doff_b);

	return d < -d ? d : -d;
}

int guac_fill_alias(const struct guac_manifest *old, uint64_t origin, uint64_t soff,
		    uint64_t doff, uint64_t span, uint64_t *distance)
{
	unsigned int i;
	uint64_t d;

	if (!old)
		return -1;
	d = guac_fill_distance(origin, soff, doff, old->origin, old->stream_offset,
			       old->device_offset);
	/* A random fill wrote each of its passes' origins: a sector a pass missed holds one. */
	for (i = 0; old->random && i + 1 < old->passes; i++) {
		uint64_t p = guac_fill_distance(origin, soff, doff, guac_manifest_pass_origin(old, i),
						old->stream_offset, old->device_offset);

		d = p < d ? p : d;
	}
	if (d < span) {
		*distance = d;
		return 0;
	}
	for (i = 0; i < old->nhistory; i++) {
		const struct guac_manifest_history *h = &old->history[i];

		d = guac_fill_distance(origin, soff, doff, h->origin, h->stream_offset,
				       h->device_offset);
		if (d < span) {
			*distance = d;
			return (int)i + 1;
		}
	}
	return -1;
}

enum guac_origin_refusal guac_fill_fresh_origin(const struct guac_manifest *old, uint64_t soff,
						uint64_t doff, uint64_t span, uint64_t *origin,
						struct guac_origin_clash *clash)
{
	uint64_t d;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (getrandom(origin, sizeof(*origin), 0) != sizeof(*origin)) {
			clash->err = errno;
			return GUAC_ORIGIN_NO_RANDOMNESS;
		}
		if (guac_fill_alias(old, *origin, soff, doff, span, &d) < 0)
			return GUAC_ORIGIN_CHOSEN;
	}
	return GUAC_ORIGIN_NONE_FREE;
}

enum guac_origin_refusal guac_fill_choose_origin(const struct guac_fill_choice *c,
						 uint64_t *origin, struct guac_origin_clash *clash)
{
	int k;

	memset(clash, 0, sizeof(*clash));
	if (c->resume && c->old) {
		if (!c->origin_given)
			*origin = c->old->origin;	/* the fill it continues */
		return GUAC_ORIGIN_CHOSEN;
	}
	if (!c->origin_given) {
		/* Every part must write the same stream: one drawn by each would differ. */
		if (c->shard_count > 1)
			return GUAC_ORIGIN_SHARD_NEEDS_ONE;
		return guac_fill_fresh_origin(c->old, c->soff, c->doff, c->span, origin, clash);
	}
	k = guac_fill_alias(c->old, *origin, c->soff, c->doff, c->span, &clash->distance);
	if (k < 0 || c->force)
		return GUAC_ORIGIN_CHOSEN;
	clash->fill = k;
	clash->other = k ? c->old->history[k - 1].origin : c->old->origin;
	return GUAC_ORIGIN_ALIASES;
}

const char *guac_record_verdict(const struct guac_manifest *m, char *why, size_t size)
{
	struct guac_target t;
	struct stat st;
	char ident[GUAC_IDENT_MAX], stamp[256];
	bool changed;
	const char *untrusted;

	if (!guac_ident_here(m->identity) || m->identity[0] == '\0')
		return guac_record_trust(m, NULL, NULL, &changed, why, size) ? "UNVERIFIED" : "OK";
	/* The target is this host's: what it is now, not only what the record says. */
	if (stat(m->target_path, &st)) {
		snprintf(why, size, "'%s' is gone from this host (%s) since the check: the check "
			 "holds for nothing now", m->target_path, strerror(errno));
		return "GONE";
	}
	if (!guac_target_probe(&t, m->target_path))
		return snprintf(why, size, "cannot re-read '%s' to see whether it is the disk "
				"checked", m->target_path), "UNVERIFIED";
	t.fd = open(m->target_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	guac_ident_of(&t, ident, sizeof(ident));
	guac_ident_stamp(&t, false, stamp, sizeof(stamp));
	if (t.fd >= 0)
		close(t.fd);
	untrusted = guac_record_trust(m, ident, stamp, &changed, why, size);
	return !untrusted ? "OK" : changed ? "CHANGED" : "UNVERIFIED";
}
