// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac gen: write the stream to stdout from any position. Its options
 * parsed (guac_gen_parse), then the stream written (guac_gen_run):
 * cmd_gen.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_gen.h"
#include "cmds.h"
#include "libguac.h"
#include "parse_options.h"
#include "util.h"

#define GEN_BUF_SIZE (1u << 20)

static const struct guac_usage gen_usage = {
	.synopsis =
		"Usage: guac gen [--offset BYTES] [--length BYTES] [--origin BLOCK] [--impl NAME]\n"
		"                [--force]\n",
	.about =
		"Write the guacamole stream to standard output, starting at byte --offset of\n"
		"the stream as seen from block --origin (the /dev/guac origin ioctl).\n",
	.after =
		GUAC_NUMBERS_HELP
		"Without --length, a closed pipe ends the output quietly with status 0; with\n"
		"it, a reader that goes away before --length bytes is an error.\n"
		"Exit status: 0 on success, 2 on a usage or write error or a short --length.\n",
};

int guac_gen_parse(int argc, char **argv, struct guac_gen_args *a)
{
	char impl_help[256];
	const struct guac_option opts[] = {
		GUAC_OPT_U64('o', "offset", &a->offset, "BYTES", "first byte (default 0)"),
		GUAC_OPT_U64_GIVEN('n', "length", &a->length, "BYTES",
				   "bytes to write (default: unbounded, until the reader closes the pipe)",
				   &a->bounded),
		GUAC_OPT_U64(0, "origin", &a->origin, "BLOCK",
			     "block index added to the position, mod 2^64 (default 0)"),
		GUAC_OPT_IMPL("impl", &a->impl, impl_help),
		GUAC_OPT_FLAG('f', "force", &a->force,
			      "write to a terminal too (refused by default: binary data garbles it; "
			      "redirect to a file or a pipe)"),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n;

	*a = (struct guac_gen_args){ .impl = guac_impl_best() };
	snprintf(impl_help, sizeof(impl_help), "%s (default auto)", guac_impl_choices());
	n = guac_parse_options(argc, argv, opts, &gen_usage, 0);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? n : guac_parse_exit(n);
	if (n) {
		guac_err("unexpected argument '%s'", argv[0]);
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}

/* What ended the output (@err, 0 or an errno) as an exit status, worded. */
static int gen_exit_status(const struct guac_gen_args *a, int err, uint64_t left)
{
	/*
	 * Unbounded output ends when the reader has had enough: normal. A bounded
	 * one promised --length bytes, so a reader gone early is worth saying.
	 */
	if (err == EPIPE && !a->bounded)
		return GUAC_EXIT_OK;
	if (err == EPIPE) {
		guac_err("the reader closed the pipe with %llu of the requested bytes not "
			 "written", (unsigned long long)left);
		return GUAC_EXIT_ERROR;
	}
	if (err) {
		guac_err("write to standard output failed: %s", strerror(err));
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}

int guac_gen_run(const struct guac_gen_args *a)
{
	uint64_t length = a->length;
	struct guac_spos pos;
	u8 *buf;
	int err = 0;

	/* As zstd and gzip do: binary output to a terminal is a slip, not a wish. */
	if (!a->force && isatty(STDOUT_FILENO)) {
		guac_err("refusing to write binary data to a terminal: redirect it (guac gen ... "
			 "> FILE, or | cmp - FILE), or --force");
		return GUAC_EXIT_ERROR;
	}

	/* A reader that stops early (head, dieharder) is normal, not an error. */
	signal(SIGPIPE, SIG_IGN);
	buf = guac_try_alloc(GEN_BUF_SIZE);
	if (!buf) {
		guac_err("cannot allocate %zu bytes: %s", (size_t)GEN_BUF_SIZE, strerror(ENOMEM));
		return GUAC_EXIT_ERROR;
	}

	/* A position, not a 64-bit offset: offset + written may pass 2^64 bytes. */
	pos = guac_spos_of(a->offset);
	while (!a->bounded || length) {
		size_t n = GEN_BUF_SIZE - pos.byte;

		if (a->bounded && n > length)
			n = (size_t)length;
		guac_spos_fill(a->impl, buf, a->origin, pos, n);
		err = guac_write_all(STDOUT_FILENO, buf, n);
		if (err)
			break;
		pos = guac_spos_add(pos, n);
		length -= n;
	}
	free(buf);
	return gen_exit_status(a, err, length);
}

int guac_cmd_gen(int argc, char **argv)
{
	struct guac_gen_args a;
	int ret = guac_gen_parse(argc, argv, &a);

	if (ret != GUAC_EXIT_OK)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return guac_gen_run(&a);
}
