/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One declarative option table per command, as git's parse-options and
 * perf's: the table drives the parsing and the OPTIONS part of --help, so an
 * option is written once. guac(1)'s SYNOPSIS is held to --help by make check
 * (tests/userspace/cmd/test_man_page.sh).
 *
 * The parser keeps no state between calls (unlike getopt's optind), so a
 * command can be run twice in one process, as the fuzz targets do.
 */
#ifndef GUAC_PARSE_OPTIONS_H
#define GUAC_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum guac_opt_kind {
	GUAC_OPT_END,
	GUAC_OPT_FLAG,		/* bool *value = true */
	GUAC_OPT_STRING,	/* const char **value = the argument */
	GUAC_OPT_U64,		/* uint64_t *value, guac_parse_u64()'s numbers */
	GUAC_OPT_CALLBACK,	/* callback(opt, argument or NULL) */
	GUAC_OPT_IMPL,		/* int *value = the generator implementation named (guac_impl_check) */
	GUAC_OPT_HELP,		/* print --help to stdout, stop: exit 0 */
	GUAC_OPT_VERSION,	/* print the version, stop: exit 0 */
};

struct guac_option {
	enum guac_opt_kind kind;
	char short_name;	/* 0: none */
	const char *long_name;
	void *value;		/* what the kind sets; a callback's context */
	const char *argh;	/* the argument's name in --help; NULL: takes none */
	const char *help;	/* one paragraph, wrapped when printed */
	/* false (having said why) refuses the argument. */
	bool (*callback)(const struct guac_option *opt, const char *arg);
	bool *given;		/* if set: made true when the option is seen */
};

/* The value's type checked where the table is written: a bool * for a flag, ... */
#define GUAC_OPT_TYPED(v, type) _Generic((v), type: (v))
#define GUAC_OPT_FLAG(s, l, v, h) \
	{ GUAC_OPT_FLAG, (s), (l), GUAC_OPT_TYPED(v, bool *), NULL, (h), NULL, NULL }
#define GUAC_OPT_STRING(s, l, v, a, h) \
	{ GUAC_OPT_STRING, (s), (l), GUAC_OPT_TYPED(v, const char **), (a), (h), NULL, NULL }
#define GUAC_OPT_U64(s, l, v, a, h) \
	{ GUAC_OPT_U64, (s), (l), GUAC_OPT_TYPED(v, uint64_t *), (a), (h), NULL, NULL }
#define GUAC_OPT_U64_GIVEN(s, l, v, a, h, g) \
	{ GUAC_OPT_U64, (s), (l), GUAC_OPT_TYPED(v, uint64_t *), (a), (h), NULL, (g) }
#define GUAC_OPT_CALLBACK(s, l, ctx, a, h, cb) \
	{ GUAC_OPT_CALLBACK, (s), (l), (ctx), (a), (h), (cb), NULL }
#define GUAC_OPT_IMPL(l, v, h) \
	{ GUAC_OPT_IMPL, 0, (l), GUAC_OPT_TYPED(v, int *), "NAME", (h), NULL, NULL }
#define GUAC_OPT_VERSION() { GUAC_OPT_VERSION, 0, "version", NULL, NULL, "print the version", NULL, NULL }
#define GUAC_OPT_HELP() { GUAC_OPT_HELP, 'h', "help", NULL, NULL, "show this help", NULL, NULL }
#define GUAC_OPT_END() { GUAC_OPT_END, 0, NULL, NULL, NULL, NULL, NULL, NULL }

/* A command's --help around its options: each part printed as written. */
struct guac_usage {
	const char *synopsis;	/* "Usage: guac gen [--offset BYTES] ...\n" */
	const char *about;	/* what the command does, before the options */
	const char *after;	/* after them: numbers, exit status */
};

/* The operands' count, or one of these. */
#define GUAC_PARSE_ERROR (-1)	/* said why on stderr: exit 2 */
#define GUAC_PARSE_DONE (-2)	/* --help or --version printed: exit 0 */
#define GUAC_PARSE_REFUSED (-3)	/* said why, needing no --help hint: exit 2 */

/* Stop at the first operand (a subcommand's own words follow it). */
#define GUAC_PARSE_STOP_AT_OPERAND 1u

/*
 * Parse argv[1..argc-1] (argv[0] names the command in messages) against
 * @opts: long options as --name VALUE or --name=VALUE, or an unambiguous
 * prefix of the name; short ones as -x VALUE or -xVALUE, flags bundled (-fh);
 * "--" ends the options; anywhere else an argument that does not start with
 * '-' (or is "-" alone) is an operand. Returns the operands' count, with the
 * operands moved to argv[0..n-1] in their order and argv[n] = NULL.
 */
int guac_parse_options(int argc, char **argv, const struct guac_option *opts,
		       const struct guac_usage *usage, unsigned int flags);

/* The exit status a GUAC_PARSE_* result stands for. */
int guac_parse_exit(int result);

/* --help: the synopsis, the about text, the options table, the after text. */
void guac_usage_print(FILE *f, const struct guac_option *opts, const struct guac_usage *usage);

#endif /* GUAC_PARSE_OPTIONS_H */
