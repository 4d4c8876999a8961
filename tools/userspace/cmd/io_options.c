// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The options guac write and guac verify share (io_options.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io_engine.h"
#include "io_options.h"
#include "util.h"

bool guac_opt_direct(const struct guac_option *opt, const char *arg)
{
	enum guac_direct *direct = opt->value;

	(void)arg;
	if (*direct != GUAC_DIRECT_DEFAULT) {
		guac_err("--direct and --buffered exclude each other");
		return false;
	}
	*direct = !strcmp(opt->long_name, "direct") ? GUAC_DIRECT_ON : GUAC_DIRECT_OFF;
	return true;
}

bool guac_opt_bs(const struct guac_option *opt, const char *arg)
{
	uint64_t *bs = opt->value;

	if (!guac_parse_u64("block size", arg, bs))
		return false;
	if (*bs < 512 || *bs > GUAC_IO_MAX_BS) {
		guac_err("invalid block size '%s': expected 512 to 64M", arg);
		return false;
	}
	return true;
}

bool guac_opt_jobs(const struct guac_option *opt, const char *arg)
{
	uint64_t *jobs = opt->value;

	if (!guac_parse_u64("job count", arg, jobs))
		return false;
	if (!*jobs || *jobs > GUAC_IO_MAX_JOBS) {
		guac_err("invalid job count '%s': expected 1 to %u", arg, GUAC_IO_MAX_JOBS);
		return false;
	}
	return true;
}

bool guac_opt_progress(const struct guac_option *opt, const char *arg)
{
	enum guac_progress_mode *mode = opt->value;

	if (!strcmp(arg, "auto"))
		*mode = guac_progress_auto();
	else if (!strcmp(arg, "tty"))
		*mode = GUAC_PROGRESS_TTY;
	else if (!strcmp(arg, "log"))
		*mode = GUAC_PROGRESS_LOG;
	else if (!strcmp(arg, "none"))
		*mode = GUAC_PROGRESS_NONE;
	else {
		guac_err("invalid --progress '%s': expected auto, tty, log or none", arg);
		return false;
	}
	return true;
}

bool guac_opt_progress_interval(const struct guac_option *opt, const char *arg)
{
	double *seconds = opt->value;
	char *end;

	errno = 0;
	*seconds = strtod(arg, &end);
	if (errno || end == arg || *end || !(*seconds > 0 && *seconds <= 86400)) {
		guac_err("invalid --progress-interval '%s': expected seconds, above 0 and at "
			 "most 86400", arg);
		return false;
	}
	return true;
}

bool guac_opt_flush_interval(const struct guac_option *opt, const char *arg)
{
	double *seconds = opt->value;
	char *end;

	errno = 0;
	*seconds = strtod(arg, &end);
	if (errno || end == arg || *end || !(*seconds >= 0.001 && *seconds <= 3600)) {
		guac_err("invalid --flush-interval '%s': expected seconds, 0.001 to 3600", arg);
		return false;
	}
	return true;
}

void guac_target_say_refusal(const struct guac_target *t)
{
	switch (t->refused) {
	case GUAC_TARGET_SAID:
		break;
	case GUAC_TARGET_STDIN_READ_ONLY:
		guac_err("'-' is standard input, which can only be read: name a file or block "
			 "device to write (./- for a file named '-')");
		break;
	case GUAC_TARGET_STDIN_NOT_DIRECT:
		guac_err("standard input cannot be read with --direct (O_DIRECT)");
		break;
	case GUAC_TARGET_DIRECT_IMPOSSIBLE:
		guac_err("'%s' is a pipe or character device: O_DIRECT (--direct) is "
			 "impossible there", t->path);
		break;
	case GUAC_TARGET_DIRECT_UNSUPPORTED:
		guac_err("'%s' does not support O_DIRECT (its file system, e.g. ramfs, or tmpfs "
			 "before Linux 6.6, has no direct I/O): refusing to go through the page "
			 "cache instead; use --buffered to accept cached I/O", t->path);
		break;
	case GUAC_TARGET_DIRECT_NOT_DONE:
		guac_err("'%s' accepts O_DIRECT but its file system does not do direct I/O on it "
			 "(statx reports no direct I/O alignment: ext4 mounted data=journal, for "
			 "one, goes through the page cache instead): refusing --direct; use "
			 "--buffered to accept cached I/O, or a file system that does direct I/O",
			 t->path);
		break;
	}
}

const char *guac_rate_limit_str(char *buf, size_t size, uint64_t rate)
{
	char mb[32], binary[32];

	guac_fmt_bytes(binary, sizeof(binary), (double)rate);
	if (rate < 100000) {
		snprintf(buf, size, "%s/s", binary);	/* "0.0 MB/s" would say nothing */
		return buf;
	}
	snprintf(buf, size, "%s (%s/s)", guac_fmt_rate(mb, sizeof(mb), (double)rate), binary);
	return buf;
}

bool guac_opt_rate(const struct guac_option *opt, const char *arg)
{
	uint64_t *rate = opt->value;

	if (!guac_parse_u64("rate", arg, rate))
		return false;
	if (!*rate) {
		guac_err("invalid --rate 0: expected bytes a second over all jobs, at least one "
			 "--bs block an hour (leave --rate out for no limit)");
		return false;
	}
	return true;
}

bool guac_rate_fits(uint64_t rate, uint64_t bs, const char *op, const char *tail)
{
	uint64_t least = bs / 3600 + (bs % 3600 != 0);

	if (!rate || rate >= least)
		return true;
	guac_err("invalid --rate %" PRIu64 ": less than one --bs block (%" PRIu64 " bytes) an hour, "
		 "each %s would wait longer; give at least --rate %" PRIu64 ", or a smaller --bs%s",
		 rate, bs, op, least, tail);
	return false;
}
