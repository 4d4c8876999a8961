/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The options guac write and guac verify share, as parse-options callbacks:
 * each takes what it sets as the option's value (and marks the option's
 * given flag, when it has one), and says why it refuses an argument.
 */
#ifndef GUAC_IO_OPTIONS_H
#define GUAC_IO_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "parse_options.h"
#include "target.h"

/* --direct or --buffered (by the option's name), into an enum guac_direct; once. */
bool guac_opt_direct(const struct guac_option *opt, const char *arg);
/* --bs: a uint64_t of 512 bytes to GUAC_IO_MAX_BS. */
bool guac_opt_bs(const struct guac_option *opt, const char *arg);
/* --jobs: a uint64_t of 1 to GUAC_IO_MAX_JOBS. */
bool guac_opt_jobs(const struct guac_option *opt, const char *arg);
/* --progress: an enum guac_progress_mode. */
bool guac_opt_progress(const struct guac_option *opt, const char *arg);
/* --progress-interval: a double, seconds. */
bool guac_opt_progress_interval(const struct guac_option *opt, const char *arg);
/* --flush-interval: a double, seconds (write --crash-safe). */
bool guac_opt_flush_interval(const struct guac_option *opt, const char *arg);

/*
 * --rate's limit, for the reports: in decimal MB/s as a rate achieved is
 * said, and in the binary units of the size given (50M: "52.4 MB/s (50.00
 * MiB/s)"); under 100 kB/s in bytes ("300 B/s"). @buf: 48 bytes are enough.
 */
const char *guac_rate_limit_str(char *buf, size_t size, uint64_t rate);

/* --rate (write and verify): bytes a second, 0 refused (leave --rate out for no limit). */
bool guac_opt_rate(const struct guac_option *opt, const char *arg);

/*
 * --rate @rate against the plan's block size @bs: a block must get its turn
 * within the hour. False after a message naming @op ("write", "read") and
 * ending with @tail.
 */
bool guac_rate_fits(uint64_t rate, uint64_t bs, const char *op, const char *tail);

/* Why guac_target_open() refused @t, in the options' words (none when it said so itself). */
void guac_target_say_refusal(const struct guac_target *t);

#define GUAC_OPT_CALLBACK_GIVEN(s, l, ctx, a, h, cb, g) \
	{ GUAC_OPT_CALLBACK, (s), (l), (ctx), (a), (h), (cb), (g) }

#define GUAC_IO_PROGRESS_HELP \
	"progress on standard error: tty (a line redrawn in place), log (a whole line every " \
	"--progress-interval: UTC time, bytes, percent, rate, ETA"

#endif /* GUAC_IO_OPTIONS_H */
