// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac probe: does a device hold what it claims (fake capacity), in seconds,
 * without filling it; storage/capacity.c does the work (docs/storage.md).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "capacity.h"
#include "cmds.h"
#include "parse_options.h"
#include "target.h"
#include "target_probe.h"
#include "util.h"

static volatile sig_atomic_t probe_stop;

static void probe_on_signal(int sig)
{
	(void)sig;
	probe_stop = 1;
}

static const struct guac_usage probe_usage = {
	.synopsis = "Usage: guac probe [--destructive [--force]] [--block BYTES] DEVICE\n",
	.about =
		"Tell in seconds whether DEVICE (a block device, or an image file) holds as\n"
		"much as it claims, as f3probe does, without filling it: probe blocks of the\n"
		"stream written at spread places and read back, the boundary refined to one\n"
		"block. A fake-capacity drive shows up as addresses that wrap (its real size\n"
		"is the period) or places that lose what is written to them. The blocks it\n"
		"overwrites (a few hundred) are saved and written back at the end, also after\n"
		"Ctrl-C; a device in use (mounted, swap, a holder) is refused.\n",
	.after =
		"Exit status: 0 the device holds what it claims, 1 it does not (the verdict\n"
		"says how), 2 a usage error or a refused device, 3 the device's I/O failed\n"
		"(the first block unreadable, or a block not written back), 130 interrupted\n"
		"(after writing back).\n",
};

/* Refuse what must not be probed; false after saying why. */
static bool probe_target_ok(const char *path, bool destructive, bool force)
{
	struct guac_probe p;
	struct stat st;
	unsigned int i;

	if (stat(path, &st)) {
		guac_err("cannot probe '%s': %s", path, strerror(errno));
		return false;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		guac_err("cannot probe '%s': not a block device or a regular file", path);
		return false;
	}
	guac_probe_target(path, &p);
	if (p.readonly) {
		guac_err("refusing '%s': %s", path, p.readonly_why);
		return false;
	}
	for (i = 0; i < p.nbusy; i++)
		guac_err("refusing '%s': %s", path, p.busy[i]);
	if (p.nbusy)
		return false;
	if (destructive && p.nsigs && !force) {
		for (i = 0; i < p.nsigs; i++)
			guac_err("'%s' holds %s (at byte %" PRIu64 ")", path, p.sig[i].text,
				 p.sig[i].offset);
		guac_err("refusing to leave probe blocks on it: leave out --destructive (the "
			 "blocks are written back), or give --force");
		return false;
	}
	return true;
}

static void probe_print(const char *path, const struct guac_capacity *c)
{
	char h1[32], h2[32];

	guac_fmt_bytes(h1, sizeof(h1), (double)c->usable);
	guac_fmt_bytes(h2, sizeof(h2), (double)c->size);
	switch (c->verdict) {
	case GUAC_CAP_GENUINE:
		printf("GENUINE: all %u probe blocks, spread over the %" PRIu64 " bytes (%s) '%s' "
		       "claims, kept what was written\n", c->blocks, c->size, h2, path);
		break;
	case GUAC_CAP_WRAPS:
		printf("FAKE CAPACITY: addresses wrap every %" PRIu64 " bytes (%s): a write at "
		       "byte %" PRIu64 " lands on byte %" PRIu64 "\n", c->wrap, h1,
		       c->first_bad_holds, c->first_bad);
		break;
	case GUAC_CAP_LIMIT:
		printf("FAKE CAPACITY: from byte %" PRIu64 " on, every probe block lost what was "
		       "written (the first held %s)\n", c->first_bad,
		       guac_cap_held_name(c->first_bad_held));
		break;
	case GUAC_CAP_DAMAGED:
		printf("DAMAGED: the block at byte %" PRIu64 " held %s, but the one at byte %"
		       PRIu64 " kept its data: lost data, not a size limit (check it whole: "
		       "guac write, then guac verify)\n", c->first_bad,
		       guac_cap_held_name(c->first_bad_held), c->good_after);
		break;
	case GUAC_CAP_INTERRUPTED:
		printf("INTERRUPTED: no verdict\n");
		break;
	}
	if (c->verdict == GUAC_CAP_WRAPS || c->verdict == GUAC_CAP_LIMIT) {
		printf("usable: the first %" PRIu64 " bytes (%s) of the %" PRIu64 " claimed (%s)\n",
		       c->usable, h1, c->size, h2);
		if (c->usable >= (2048 + 1) * 512ULL)
			printf("to use only those: one partition within them (this writes a new "
			       "partition table: the device's data is lost): echo 'start=2048, "
			       "size=%" PRIu64 "' | sfdisk --label dos %s\n",
			       c->usable / 512 - 2048, path);
	}
	printf("%u probe blocks of %u bytes in %u round%s, origin %" PRIu64 "; %s\n", c->blocks,
	       c->block, c->rounds + 1, c->rounds ? "s" : "", c->origin,
	       c->destructive ? "left on the device (--destructive)" :
	       c->restored ? "every block written back" : "NOT every block written back");
}

/*
 * Open probed target @t (@path) to read and write, check @block against it,
 * and draw the fresh @origin; false (said, @t closed) if any fails.
 */
static bool probe_open(struct guac_target *t, const char *path, uint64_t block,
		       uint64_t *origin)
{
	/* Read and write; a disk past its caches (O_DIRECT), a file through them. */
	t->fd = open(path, O_RDWR | O_CLOEXEC | (t->kind == GUAC_TARGET_BLOCK ? O_DIRECT : 0));
	if (t->fd < 0) {
		guac_err("cannot open '%s' to read and write: %s", path, strerror(errno));
		return false;
	}
	if (block < t->sector || block % t->sector || block % 512 || block > (64u << 20)) {
		guac_err("--block %" PRIu64 ": a multiple of the %u-byte sector, up to 64M, is "
			 "needed", block, t->sector);
		guac_target_close(t);
		return false;
	}
	if (t->size < block) {
		guac_err("'%s' holds %" PRIu64 " bytes: less than one probe block", path, t->size);
		guac_target_close(t);
		return false;
	}
	if (getrandom(origin, sizeof(*origin), 0) != sizeof(*origin)) {
		guac_err("cannot draw a fresh origin (getrandom: %s)", strerror(errno));
		guac_target_close(t);
		return false;
	}
	return true;
}

int guac_cmd_probe(int argc, char **argv)
{
	bool destructive = false, force = false, block_given = false;
	uint64_t block = 4096;
	const struct guac_option opts[] = {
		GUAC_OPT_FLAG(0, "destructive", &destructive,
			      "leave the probe blocks on the device: nothing is saved or written back"),
		GUAC_OPT_FLAG('f', "force", &force,
			      "with --destructive: probe a device that holds a file system, "
			      "partition table or other signature"),
		GUAC_OPT_U64_GIVEN(0, "block", &block, "BYTES",
				   "probe block size, a multiple of the device's sector (default 4K)",
				   &block_given),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	struct sigaction sa = { .sa_handler = probe_on_signal };
	struct guac_capacity c = { 0 };
	struct guac_target t;
	int n, err;

	n = guac_parse_options(argc, argv, opts, &probe_usage, 0);
	if (n < 0)
		return guac_parse_exit(n);
	if (n != 1) {
		guac_err(n ? "one DEVICE only (try 'guac probe --help')" :
			     "no DEVICE given (try 'guac probe --help')");
		return GUAC_EXIT_ERROR;
	}
	if (force && !destructive) {
		guac_err("--force applies to --destructive only");
		return GUAC_EXIT_ERROR;
	}
	if (!probe_target_ok(argv[0], destructive, force) || !guac_target_probe(&t, argv[0]))
		return GUAC_EXIT_ERROR;
	if (!probe_open(&t, argv[0], block, &c.origin))
		return GUAC_EXIT_ERROR;
	c.fd = t.fd;
	c.size = t.size;
	c.block = (unsigned int)block;
	c.destructive = destructive;
	c.stop = &probe_stop;
	probe_stop = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = guac_capacity_probe(&c);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	guac_target_close(&t);
	if (err) {
		guac_err("cannot probe '%s': %s", argv[0], strerror(err));
		return err == ENOMEM ? GUAC_EXIT_ERROR : GUAC_EXIT_IO;
	}
	probe_print(argv[0], &c);
	if (!destructive && !c.restored) {
		guac_err("writing back the saved blocks failed: %s; probe blocks may remain on "
			 "the device", strerror(c.restore_err));
		return GUAC_EXIT_IO;
	}
	if (c.verdict == GUAC_CAP_INTERRUPTED)
		return 130;
	return c.verdict == GUAC_CAP_GENUINE ? GUAC_EXIT_OK : GUAC_EXIT_FAIL;
}
