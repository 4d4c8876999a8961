// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac gen: write the stream to stdout from any position. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "libguac.h"
#include "util.h"

#define GEN_BUF_SIZE (1u << 20)

static void gen_usage(FILE *f)
{
	fprintf(f,
		"Usage: guac gen [--offset BYTES] [--length BYTES] [--origin BLOCK] [--impl NAME]\n"
		"                [--force]\n\n"
		"Write the guacamole stream to standard output, starting at byte --offset of\n"
		"the stream as seen from block --origin (the /dev/guac origin ioctl).\n\n"
		"  -o, --offset BYTES  first byte (default 0)\n"
		"  -n, --length BYTES  bytes to write (default: unbounded, until the reader\n"
		"                      closes the pipe)\n"
		"      --origin BLOCK  block index added to the position, mod 2^64 (default 0)\n"
		"      --impl NAME     %s (default auto)\n"
		"  -f, --force         write to a terminal too (refused by default: binary\n"
		"                      data garbles it; redirect to a file or a pipe)\n"
		"      --version       print the version\n"
		"  -h, --help          show this help\n\n"
		GUAC_NUMBERS_HELP
		"Without --length, a closed pipe ends the output quietly with status 0; with\n"
		"it, a reader that goes away before --length bytes is an error.\n"
		"Exit status: 0 on success, 2 on a usage or write error or a short --length.\n",
		guac_impl_choices());
}

int guac_cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'n' },
		{ "origin", required_argument, NULL, 'r' },
		{ "impl", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t offset = 0, length = 0, origin = 0;
	struct guac_spos pos;
	bool bounded = false, force = false;
	int impl = guac_impl_best();
	u8 *buf;
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "o:n:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!guac_parse_u64("offset", optarg, &offset))
				return GUAC_EXIT_ERROR;
			break;
		case 'n':
			if (!guac_parse_u64("length", optarg, &length))
				return GUAC_EXIT_ERROR;
			bounded = true;
			break;
		case 'r':
			if (!guac_parse_u64("origin", optarg, &origin))
				return GUAC_EXIT_ERROR;
			break;
		case 'i':
			impl = guac_parse_impl(optarg);
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			gen_usage(stdout);
			return GUAC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'guac gen --help'.\n");
			return GUAC_EXIT_ERROR;
		}
	}
	if (optind != argc) {
		guac_err("unexpected argument '%s'", argv[optind]);
		return GUAC_EXIT_ERROR;
	}
	/* As zstd and gzip do: binary output to a terminal is a slip, not a wish. */
	if (!force && isatty(STDOUT_FILENO)) {
		guac_err("refusing to write binary data to a terminal: redirect it (guac gen ... "
			 "> FILE, or | cmp - FILE), or --force");
		return GUAC_EXIT_ERROR;
	}

	/* A reader that stops early (head, dieharder) is normal, not an error. */
	signal(SIGPIPE, SIG_IGN);
	buf = guac_alloc(GEN_BUF_SIZE);

	/* A position, not a 64-bit offset: offset + written may pass 2^64 bytes. */
	pos = guac_spos_of(offset);
	while (!bounded || length) {
		size_t n = GEN_BUF_SIZE - pos.byte;

		if (bounded && n > length)
			n = (size_t)length;
		guac_spos_fill(impl, buf, origin, pos, n);
		err = guac_write_all(STDOUT_FILENO, buf, n);
		if (err)
			break;
		pos = guac_spos_add(pos, n);
		length -= n;
	}
	free(buf);
	/*
	 * Unbounded output ends when the reader has had enough: normal. A bounded
	 * one promised --length bytes, so a reader gone early is worth saying.
	 */
	if (err == EPIPE && !bounded)
		return GUAC_EXIT_OK;
	if (err == EPIPE) {
		guac_err("the reader closed the pipe with %llu of the requested bytes not "
			 "written", (unsigned long long)length);
		return GUAC_EXIT_ERROR;
	}
	if (err) {
		guac_err("write to standard output failed: %s", strerror(err));
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}
