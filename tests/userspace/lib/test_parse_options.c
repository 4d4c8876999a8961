// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The option tables' parser (lib/parse_options.c): what getopt_long gave the
 * commands before (options among the operands, --name=VALUE, unambiguous
 * prefixes, bundled flags, -xVALUE, "--", "-" as an operand), its refusals
 * (unknown, ambiguous, a missing or an unwanted value, a bad number), no
 * state kept from one call to the next, and --help's layout.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "parse_options.h"
#include "util.h"

struct opts_seen {
	bool force, json, length_given;
	uint64_t length, offset;
	const char *manifest, *json_out;
	int callbacks;
};

static bool count_callback(const struct guac_option *opt, const char *arg)
{
	struct opts_seen *s = opt->value;

	s->callbacks++;
	return strcmp(arg, "bad") != 0;
}

static const struct guac_usage test_usage = {
	.synopsis = "Usage: guac test [OPTIONS] FILE...\n",
	.about = "A test.\n",
	.after = "Exit status: 0.\n",
};

/* Parse the NULL-terminated @words as "guac test WORDS" into @s. */
static int parse(struct opts_seen *s, char **argv_out, unsigned int flags, ...)
{
	static char *argv[32];
	const struct guac_option opts[] = {
		GUAC_OPT_FLAG('f', "force", &s->force, "do it anyway"),
		GUAC_OPT_FLAG(0, "json", &s->json, "print JSON"),
		GUAC_OPT_STRING(0, "json-out", &s->json_out, "FILE", "write JSON to FILE"),
		GUAC_OPT_U64_GIVEN('n', "length", &s->length, "BYTES", "how much", &s->length_given),
		GUAC_OPT_U64('o', "offset", &s->offset, "BYTES", "from where"),
		GUAC_OPT_STRING('m', "manifest", &s->manifest, "FILE", "the manifest"),
		GUAC_OPT_CALLBACK(0, "call", s, "WORD", "a callback", count_callback),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	va_list ap;
	int argc = 0, n, i;
	char *w;

	memset(s, 0, sizeof(*s));
	argv[argc++] = "guac test";
	va_start(ap, flags);
	while ((w = va_arg(ap, char *)))
		argv[argc++] = w;
	va_end(ap);
	argv[argc] = NULL;
	n = guac_parse_options(argc, argv, opts, &test_usage, flags);
	for (i = 0; i >= 0 && i < n; i++)
		argv_out[i] = argv[i];
	return n;
}

static void test_options_among_operands(void **state)
{
	struct opts_seen s;
	char *ops[32];

	(void)state;
	assert_int_equal(parse(&s, ops, 0, "a", "--length", "4K", "b", "-f", "-o1M", "c",
			       (char *)NULL), 3);
	assert_string_equal(ops[0], "a");
	assert_string_equal(ops[1], "b");
	assert_string_equal(ops[2], "c");
	assert_true(s.force);
	assert_true(s.length_given);
	assert_int_equal(s.length, 4096);
	assert_int_equal(s.offset, 1 << 20);
}

static void test_long_forms(void **state)
{
	struct opts_seen s;
	char *ops[32];

	(void)state;
	/* --name=VALUE, a value that starts with '-', an unambiguous prefix. */
	assert_int_equal(parse(&s, ops, 0, "--manifest=m.json", "--off", "-5x", (char *)NULL),
			 GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "--manifest=m.json", "--off", "0x10", "--man", "-",
			       (char *)NULL), 0);
	assert_string_equal(s.manifest, "-");
	assert_int_equal(s.offset, 16);
	/* An exact name wins over the longer one it is a prefix of. */
	assert_int_equal(parse(&s, ops, 0, "--json", (char *)NULL), 0);
	assert_true(s.json);
	assert_null(s.json_out);
	/* A prefix of two names is refused. */
	assert_int_equal(parse(&s, ops, 0, "--js", (char *)NULL), GUAC_PARSE_ERROR);
}

static void test_short_forms(void **state)
{
	struct opts_seen s;
	char *ops[32];

	(void)state;
	assert_int_equal(parse(&s, ops, 0, "-fn64K", (char *)NULL), 0);
	assert_true(s.force);
	assert_int_equal(s.length, 65536);
	assert_int_equal(parse(&s, ops, 0, "-fm", "x.json", "-", (char *)NULL), 1);
	assert_string_equal(s.manifest, "x.json");
	assert_string_equal(ops[0], "-");
}

static void test_refusals(void **state)
{
	struct opts_seen s;
	char *ops[32];

	(void)state;
	assert_int_equal(parse(&s, ops, 0, "--bogus", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "-x", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "--length", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "-n", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "--force=yes", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "--length", "ten", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(parse(&s, ops, 0, "--call", "bad", (char *)NULL), GUAC_PARSE_ERROR);
	assert_int_equal(s.callbacks, 1);
	assert_int_equal(parse(&s, ops, 0, "--call", "ok", "--call=again", (char *)NULL), 0);
	assert_int_equal(s.callbacks, 2);
	assert_int_equal(guac_parse_exit(GUAC_PARSE_ERROR), GUAC_EXIT_ERROR);
	assert_int_equal(guac_parse_exit(GUAC_PARSE_DONE), GUAC_EXIT_OK);
}

static void test_end_of_options(void **state)
{
	struct opts_seen s;
	char *ops[32];

	(void)state;
	assert_int_equal(parse(&s, ops, 0, "-f", "--", "-n", "--force", (char *)NULL), 2);
	assert_string_equal(ops[0], "-n");
	assert_string_equal(ops[1], "--force");
	assert_false(s.length_given);
	/* A subcommand's words are its own: the first operand ends the options. */
	assert_int_equal(parse(&s, ops, GUAC_PARSE_STOP_AT_OPERAND, "-f", "show", "--help",
			       (char *)NULL), 2);
	assert_string_equal(ops[1], "--help");
}

static void test_no_state_between_calls(void **state)
{
	struct opts_seen s;
	char *ops[32];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(parse(&s, ops, 0, "a", "-n", "1", "b", (char *)NULL), 2);
		assert_string_equal(ops[1], "b");
		assert_int_equal(parse(&s, ops, 0, "-n", (char *)NULL), GUAC_PARSE_ERROR);
	}
}

/* --help: every line within 79 columns, each option's help aligned, none lost. */
static void test_help_layout(void **state)
{
	struct opts_seen s;
	char *ops[32], line[256], *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);
	FILE *saved = stdout;
	int n;

	(void)state;
	assert_non_null(f);
	stdout = f;
	n = parse(&s, ops, 0, "--he", (char *)NULL);
	stdout = saved;
	fclose(f);
	assert_int_equal(n, GUAC_PARSE_DONE);
	assert_non_null(strstr(out, "Usage: guac test [OPTIONS] FILE...\n\nA test.\n\n"));
	assert_non_null(strstr(out, "\n\nExit status: 0.\n"));
	f = fmemopen(out, size, "r");
	while (fgets(line, sizeof(line), f))
		assert_true(strlen(line) <= 80);
	fclose(f);
	/* The help column: two spaces after the widest option, --json-out FILE. */
	assert_non_null(strstr(out, "  -n, --length BYTES   how much\n"));
	assert_non_null(strstr(out, "      --json-out FILE  write JSON to FILE\n"));
	assert_non_null(strstr(out, "  -h, --help           show this help\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_among_operands),
		cmocka_unit_test(test_long_forms),
		cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_end_of_options),
		cmocka_unit_test(test_no_state_between_calls),
		cmocka_unit_test(test_help_layout),
	};

	guac_prog = "guac test";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
