// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac write's options and every check it makes before the target is
 * opened for writing: its parse and its plan (cmd/cmd_write.h), called
 * directly; fuzz_opts.h's oracles: 0 for --help, --version and a plan that
 * passed (--dry-run's, or a write that would now open its target), else 2.
 * Neither step exits or opens the target for writing. The plan reads its
 * target (stat, libblkid's probe, its size and sector) and may create and
 * remove an empty probe file beside a missing one: a target outside fuzz_dir
 * is planned as the stand-in t.img (when it exists) or missing.img (when
 * not), so that a fuzzed /dev/sda or /dev/watchdog is never opened.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "cmd_write.h"
#include "fuzz_opts.h"
#include "util.h"

/* One parse and plan of the arguments in @data into @f: the exit status they come to. */
static int fuzz_write_once(const uint8_t *data, size_t size, struct guac_fill *f)
{
	char buf[4096];
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc = fuzz_split_args(data, size, "guac write", argv, FUZZ_MAX_ARGS, buf,
				   sizeof(buf));
	struct write_args a;
	int ret = write_parse_args(&a, argc, argv);

	if (ret)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	if (!fuzz_in_dir(a.fill.target, true))
		a.fill.target = access(a.fill.target, F_OK) ? "missing.img" : "t.img";
	memset(f, 0, sizeof(*f));
	ret = write_plan_fill(&a, f);
	fflush(stdout);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int allowed[] = { GUAC_EXIT_OK, GUAC_EXIT_ERROR, -1 };
	struct guac_fill *f = calloc(1, sizeof(*f));
	int a, b;

	if (!f)
		fuzz_fail("cannot allocate a fill");
	fuzz_opts_fixtures();
	fuzz_no_io = true;
	a = fuzz_write_once(data, size, f);
	b = fuzz_write_once(data, size, f);
	fuzz_no_io = false;
	free(f);
	return fuzz_opts_judge("guac write", a, b, allowed);
}
