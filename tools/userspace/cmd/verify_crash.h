/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* guac verify --after-crash (verify_crash.c): what cmd_verify.c parsed for it. */
#ifndef GUAC_VERIFY_CRASH_H
#define GUAC_VERIFY_CRASH_H

#include <stdbool.h>
#include <stdint.h>
#include "io_engine.h"
#include "target.h"

struct verify_crash_args {
	const char *path;		/* the target */
	const char *journal;		/* --journal, or NULL: the target's last 16 KiB */
	bool prior_given;		/* --prior-origin: what the device held before */
	uint64_t prior_origin;
	unsigned int sector;		/* --sector: the atomic unit; 0 the physical sector */
	enum guac_direct direct;
	int impl;
	enum guac_progress_mode progress;	/* --progress: tty, log or none */
	double progress_interval;		/* log: seconds between lines */
};

/* The check, its report on standard output: the exit status. */
int guac_verify_after_crash(const struct verify_crash_args *a);

#endif /* GUAC_VERIFY_CRASH_H */
