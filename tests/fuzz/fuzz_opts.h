/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The option targets (fuzz_opts_*.c): the input, split at NUL bytes, is the
 * argument list of one command, given to the command's own steps called
 * directly (its real option table, number parsing and checks): its parse
 * (gen), parse and plan (write, verify, bench) or parse and run (manifest,
 * report), with the files the input names kept inside the private directory
 * (fuzz_common.h: fuzz_no_io). No exit() is caught: the tool returns its
 * status on every command's path, and an exit() is a crash. Oracles: the
 * exit status is one the manual documents for a run that stopped before
 * any I/O (0 for --help and --version, and for a parse or plan that passed,
 * else 2), and a command run twice on the same arguments
 * answers the same (no state carried from one call to the next). The
 * private directory holds t.img (64 KiB of the stream) and m.json (its
 * manifest, written by guac write at start-up), so that seeds can name real
 * files.
 */
#ifndef GUAC_FUZZ_OPTS_H
#define GUAC_FUZZ_OPTS_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cmds.h"
#include "fuzz_common.h"
#include "parse_options.h"
#include "util.h"

#define FUZZ_MAX_ARGS 32

static inline void fuzz_opts_fixtures(void)
{
	static char *argv[] = { "guac write", "--length", "64K", "-m", "m.json", "t.img", NULL };
	struct stat st;

	fuzz_init();
	if (!stat("m.json", &st))
		return;
	fuzz_no_io = false;
	if (fuzz_run_cmd(guac_cmd_write, 6, argv))
		fuzz_fail("cannot make the fixtures t.img and m.json in %s", fuzz_dir);
}

static inline int fuzz_opts_once(int (*cmd)(int, char **), const char *argv0, const uint8_t *data,
			  size_t size)
{
	static char buf[4096];
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc = fuzz_split_args(data, size, argv0, argv, FUZZ_MAX_ARGS, buf, sizeof(buf));

	return fuzz_run_cmd(cmd, argc, argv);
}

/* The oracles on the statuses @a and @b of two runs on the same arguments. */
static inline int fuzz_opts_judge(const char *argv0, int a, int b, const int *allowed)
{
	int i;

	if (a != b)
		fuzz_fail("%s: status %d, then %d for the same arguments", argv0, a, b);
	for (i = 0; allowed[i] >= 0; i++)
		if (a == allowed[i])
			return 0;
	fuzz_fail("%s: exit status %d", argv0, a);
}

static inline int fuzz_opts(int (*cmd)(int, char **), const char *argv0, const uint8_t *data,
		     size_t size, const int *allowed)
{
	int a, b;

	fuzz_opts_fixtures();
	fuzz_no_io = true;
	a = fuzz_opts_once(cmd, argv0, data, size);
	b = fuzz_opts_once(cmd, argv0, data, size);
	fuzz_no_io = false;
	return fuzz_opts_judge(argv0, a, b, allowed);
}

#define FUZZ_OPTS_TARGET(cmd, argv0, ...)						\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);			\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)			\
	{										\
		static const int allowed[] = { __VA_ARGS__, -1 };			\
		return fuzz_opts(cmd, argv0, data, size, allowed);			\
	}

/*
 * A command split in two (cmd_NAME.h): @parse of the arguments into an
 * @args_type, then @run of them, called directly as guac_cmd_NAME() does.
 */
#define FUZZ_OPTS_PARSE_RUN_TARGET(args_type, parse, run, argv0, ...)			\
	static int fuzz_parse_run(int argc, char **argv)				\
	{										\
		args_type a;								\
		int ret = parse(argc, argv, &a);					\
											\
		if (ret != GUAC_EXIT_OK)						\
			return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;		\
		return run(&a);								\
	}										\
	FUZZ_OPTS_TARGET(fuzz_parse_run, argv0, __VA_ARGS__)

#endif
