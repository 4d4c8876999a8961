/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac gen in two steps (cmd/cmd_gen.c), for callers other than
 * guac_cmd_gen() (the fuzz targets): its options parsed, then the stream
 * written to standard output.
 */
#ifndef GUAC_CMD_GEN_H
#define GUAC_CMD_GEN_H

#include <stdbool.h>
#include <stdint.h>

struct guac_gen_args {
	uint64_t offset, length, origin;
	bool bounded;			/* --length given: a reader gone early is an error */
	bool force;			/* write to a terminal too */
	int impl;
};

/*
 * Parse guac gen's @argc/@argv (reordered) into @a: GUAC_EXIT_OK,
 * GUAC_PARSE_DONE after --help or --version, or an exit status after a
 * message. Nothing is written.
 */
int guac_gen_parse(int argc, char **argv, struct guac_gen_args *a);

/* Write the stream @a asks for to standard output; the exit status. */
int guac_gen_run(const struct guac_gen_args *a);

#endif /* GUAC_CMD_GEN_H */
