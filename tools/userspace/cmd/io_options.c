// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The options guac write and guac verify share (io_options.h). */
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
	return guac_progress_parse(arg, opt->value);
}

bool guac_opt_progress_interval(const struct guac_option *opt, const char *arg)
{
	return guac_progress_parse_interval(arg, opt->value);
}
