// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The option tables' parser and --help printer (parse_options.h). Messages
 * name the option as the user wrote it and end with "Try 'guac CMD --help'".
 */
#include <string.h>
#include "parse_options.h"
#include "util.h"

#define HELP_WIDTH 79		/* --help fits an 80-column terminal */
#define HELP_MAX_COLUMN 28	/* a longer option starts its help on the next line */

static bool takes_arg(const struct guac_option *o)
{
	return o->argh != NULL;
}

/* The option of --@name (@len bytes): exact, else the one it is a prefix of. */
static const struct guac_option *find_long(const struct guac_option *opts, const char *name,
					   size_t len, bool *ambiguous)
{
	const struct guac_option *o, *found = NULL;

	*ambiguous = false;
	for (o = opts; o->kind != GUAC_OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	for (o = opts; o->kind != GUAC_OPT_END; o++) {
		if (!o->long_name || strncmp(o->long_name, name, len))
			continue;
		*ambiguous = found != NULL;
		found = o;
	}
	return *ambiguous ? NULL : found;
}

static const struct guac_option *find_short(const struct guac_option *opts, char c)
{
	const struct guac_option *o;

	for (o = opts; o->kind != GUAC_OPT_END; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* Apply @o with @arg (NULL for a flag); GUAC_PARSE_DONE, _ERROR or 0. */
static int apply(const struct guac_option *o, const char *arg, const struct guac_option *opts,
		 const struct guac_usage *usage)
{
	if (o->given)
		*o->given = true;
	switch (o->kind) {
	case GUAC_OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case GUAC_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case GUAC_OPT_U64:
		return guac_parse_u64(o->long_name, arg, o->value) ? 0 : GUAC_PARSE_ERROR;
	case GUAC_OPT_CALLBACK:
		return o->callback(o, arg) ? 0 : GUAC_PARSE_ERROR;
	case GUAC_OPT_IMPL:
		/* An implementation this build or CPU lacks: its message lists the choices. */
		*(int *)o->value = guac_impl_check(arg);
		return *(int *)o->value < 0 ? GUAC_PARSE_REFUSED : 0;
	case GUAC_OPT_HELP:
		guac_usage_print(stdout, opts, usage);
		return GUAC_PARSE_DONE;
	case GUAC_OPT_VERSION:
		guac_print_version();
		return GUAC_PARSE_DONE;
	case GUAC_OPT_END:
		break;
	}
	return GUAC_PARSE_ERROR;
}

/* --name[=value] at argv[*i]; takes the next argument as the value if it needs one. */
static int parse_long(int argc, char **argv, int *i, const struct guac_option *opts,
		      const struct guac_usage *usage)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct guac_option *o;
	bool ambiguous;

	o = find_long(opts, name, len, &ambiguous);
	if (!o) {
		guac_err("%s option '--%.*s'", ambiguous ? "ambiguous" : "unknown", (int)len, name);
		return GUAC_PARSE_ERROR;
	}
	if (!takes_arg(o)) {
		if (eq) {
			guac_err("option '--%s' takes no value", o->long_name);
			return GUAC_PARSE_ERROR;
		}
		return apply(o, NULL, opts, usage);
	}
	if (eq)
		return apply(o, eq + 1, opts, usage);
	if (*i + 1 >= argc) {
		guac_err("option '--%s' needs a value (%s)", o->long_name, o->argh);
		return GUAC_PARSE_ERROR;
	}
	return apply(o, argv[++*i], opts, usage);
}

/* -abc at argv[*i]: flags, the last of which may take the rest or the next argument. */
static int parse_short(int argc, char **argv, int *i, const struct guac_option *opts,
		       const struct guac_usage *usage)
{
	const char *p = argv[*i] + 1;
	const struct guac_option *o;
	int ret;

	for (; *p; p++) {
		o = find_short(opts, *p);
		if (!o) {
			guac_err("unknown option '-%c'", *p);
			return GUAC_PARSE_ERROR;
		}
		if (!takes_arg(o)) {
			ret = apply(o, NULL, opts, usage);
			if (ret)
				return ret;
			continue;
		}
		if (p[1])
			return apply(o, p + 1, opts, usage);
		if (*i + 1 >= argc) {
			guac_err("option '-%c' needs a value (%s)", *p, o->argh);
			return GUAC_PARSE_ERROR;
		}
		return apply(o, argv[++*i], opts, usage);
	}
	return 0;
}

int guac_parse_options(int argc, char **argv, const struct guac_option *opts,
		       const struct guac_usage *usage, unsigned int flags)
{
	const char *prog = argv[0];	/* argv[0] may take an operand */
	int i, n = 0, ret = 0;
	bool options_end = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options_end || a[0] != '-' || !a[1]) {
			/* Operands keep their order; argv[n] was already read. */
			argv[n++] = argv[i];
			options_end = options_end || (flags & GUAC_PARSE_STOP_AT_OPERAND);
			continue;
		}
		if (!strcmp(a, "--"))
			options_end = true;
		else if (a[1] == '-')
			ret = parse_long(argc, argv, &i, opts, usage);
		else
			ret = parse_short(argc, argv, &i, opts, usage);
		if (ret)
			break;
	}
	if (ret == GUAC_PARSE_ERROR)
		fprintf(stderr, "Try '%s --help'.\n", prog);
	if (ret)
		return ret;
	argv[n] = NULL;
	return n;
}

int guac_parse_exit(int result)
{
	return result == GUAC_PARSE_DONE ? GUAC_EXIT_OK : GUAC_EXIT_ERROR;
}

/* "  -o, --offset BYTES" into @buf; its length. */
static int option_left(char *buf, size_t size, const struct guac_option *o)
{
	char shortname[8] = "    ";

	if (o->short_name)
		snprintf(shortname, sizeof(shortname), "-%c, ", o->short_name);
	return snprintf(buf, size, "  %s--%s%s%s", shortname, o->long_name,
			o->argh ? " " : "", o->argh ? o->argh : "");
}

/* @text from column @col, wrapped at HELP_WIDTH; the first line already at @col. */
static void print_wrapped(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t word = strcspn(text, " ");

		if (at > col && at + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)word, text);
		at += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void guac_usage_print(FILE *f, const struct guac_option *opts, const struct guac_usage *usage)
{
	const struct guac_option *o;
	char left[96];
	int width = 0, len;

	fputs(usage->synopsis, f);
	if (usage->about)
		fprintf(f, "\n%s", usage->about);
	for (o = opts; o->kind != GUAC_OPT_END; o++) {
		len = option_left(left, sizeof(left), o);
		if (len <= HELP_MAX_COLUMN && len > width)
			width = len;
	}
	fputc('\n', f);
	for (o = opts; o->kind != GUAC_OPT_END; o++) {
		len = option_left(left, sizeof(left), o);
		if (len > width)
			fprintf(f, "%s\n%*s", left, width + 2, "");
		else
			fprintf(f, "%-*s", width + 2, left);
		print_wrapped(f, o->help, width + 2);
	}
	if (usage->after)
		fprintf(f, "\n%s", usage->after);
}
