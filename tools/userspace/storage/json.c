// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A small strict JSON parser (json.h), for exactly what guac writes: the
 * text becomes a tree, or an error naming the byte where it stopped being
 * valid; nothing is guessed or repaired.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "util.h"

#define JSON_MAX_DEPTH 8

struct json_parser {
	const char *s, *end, *p;
	char err[160];
};

static struct json *json_new(enum json_type type)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	j->type = type;
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		json_free(j->child);
		free(j->str);
		free(j->key);
		free(j);
		j = next;
	}
}

size_t json_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool json_fail(struct json_parser *ps, const char *what)
{
	if (!ps->err[0]) {
		if (ps->p >= ps->end)
			snprintf(ps->err, sizeof(ps->err),
				 "truncated: the text ends (byte %zu) where %s was expected",
				 (size_t)(ps->end - ps->s), what);
		else
			snprintf(ps->err, sizeof(ps->err), "syntax error at byte %zu: expected %s",
				 (size_t)(ps->p - ps->s), what);
	}
	return false;
}

static void json_ws(struct json_parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
				   *ps->p == '\r'))
		ps->p++;
}

/* The escape after a backslash inside a string: its character to *@c. */
static bool json_escape(struct json_parser *ps, char *c)
{
	if (ps->p >= ps->end)
		return json_fail(ps, "an escape");
	*c = *ps->p++;
	if (*c == 'n') {
		*c = '\n';
	} else if (*c == 't') {
		*c = '\t';
	} else if (*c == 'u') {
		unsigned int v = 0, i;

		/*
		 * Four hex digits, read here: not sscanf(), which needs a
		 * NUL-terminated string and the text is not one (it read
		 * past the end of a manifest ending in an escape).
		 */
		for (i = 0; i < 4 && ps->end - ps->p > (long)i &&
			    isxdigit((unsigned char)ps->p[i]); i++)
			v = v << 4 | (unsigned int)(isdigit((unsigned char)ps->p[i]) ?
				ps->p[i] - '0' : (tolower((unsigned char)ps->p[i]) - 'a' + 10));
		if (i < 4 || v > 0x7f || !v)
			return json_fail(ps, "\\u00XX with a non-zero ASCII value");
		ps->p += 4;
		*c = (char)v;
	} else if (*c != '"' && *c != '\\' && *c != '/') {
		ps->p--;
		return json_fail(ps, "a known escape");
	}
	return true;
}

/* A string without escapes beyond \" \\ \/ \n \t and \u00XX: all this format writes. */
static bool json_string(struct json_parser *ps, char **out)
{
	size_t cap = 64, n = 0;
	char *buf;

	if (ps->p >= ps->end || *ps->p != '"')
		return json_fail(ps, "a string");
	ps->p++;
	buf = malloc(cap);
	while (buf) {
		char c;

		if (ps->p >= ps->end) {
			free(buf);
			return json_fail(ps, "the end of a string");
		}
		c = *ps->p++;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			free(buf);
			ps->p--;
			return json_fail(ps, "no control character inside a string");
		}
		/* JSON text is UTF-8: a stray byte (a path's 0xff) makes it invalid. */
		if ((unsigned char)c >= 0x80) {
			size_t len = json_utf8_len((const unsigned char *)ps->p - 1,
						 (size_t)(ps->end - ps->p + 1));

			if (!len) {
				free(buf);
				ps->p--;
				return json_fail(ps, "valid UTF-8 inside a string");
			}
			/* The lead byte is added below; its continuation bytes here. */
			for (; len > 1; len--) {
				if (n + 2 > cap)
					buf = realloc(buf, cap *= 2);
				if (buf)
					buf[n++] = c;
				c = *ps->p++;
			}
		}
		if (c == '\\' && !json_escape(ps, &c)) {
			free(buf);
			return false;
		}
		if (n + 2 > cap)
			buf = realloc(buf, cap *= 2);
		if (buf)
			buf[n++] = c;
	}
	if (!buf) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	buf[n] = 0;
	*out = buf;
	return true;
}

static bool json_value(struct json_parser *ps, struct json **out, int depth);

static bool json_container(struct json_parser *ps, struct json *j, int depth)
{
	bool object = j->type == JSON_OBJECT;
	char close = object ? '}' : ']';
	struct json **tail = &j->child;

	ps->p++;
	json_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		char *key = NULL;
		struct json *v = NULL;

		json_ws(ps);
		if (object) {
			if (!json_string(ps, &key))
				return false;
			json_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return json_fail(ps, "':'");
			}
			ps->p++;
		}
		if (!json_value(ps, &v, depth + 1)) {
			/* A container or string that failed inside was allocated: free it. */
			json_free(v);
			free(key);
			return false;
		}
		v->key = key;
		*tail = v;
		tail = &v->next;
		json_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return true;
		}
		return json_fail(ps, object ? "',' or '}'" : "',' or ']'");
	}
}

static bool json_value(struct json_parser *ps, struct json **out, int depth)
{
	struct json *j;
	const char *start;

	if (depth > JSON_MAX_DEPTH)
		return json_fail(ps, "less nesting");
	json_ws(ps);
	if (ps->p >= ps->end)
		return json_fail(ps, "a value");
	start = ps->p;
	switch (*ps->p) {
	case '{':
	case '[':
		j = json_new(*ps->p == '{' ? JSON_OBJECT : JSON_ARRAY);
		*out = j;
		return json_container(ps, j, depth);
	case '"':
		j = json_new(JSON_STRING);
		*out = j;
		return json_string(ps, &j->str);
	case 't':
	case 'f':
	case 'n':
		if (ps->end - ps->p >= 4 && !strncmp(ps->p, "true", 4)) {
			j = json_new(JSON_BOOL);
			j->boolean = true;
			ps->p += 4;
		} else if (ps->end - ps->p >= 5 && !strncmp(ps->p, "false", 5)) {
			j = json_new(JSON_BOOL);
			ps->p += 5;
		} else if (ps->end - ps->p >= 4 && !strncmp(ps->p, "null", 4)) {
			j = json_new(JSON_NULL);
			ps->p += 4;
		} else {
			return json_fail(ps, "true, false or null");
		}
		*out = j;
		return true;
	default:
		/*
		 * Non-negative numbers only (this format has no negative quantity):
		 * digits, then at most one '.' followed by digits; "1.2.3" or "1."
		 * is a syntax error, not a number read up to where it stops.
		 */
		while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
			ps->p++;
		if (ps->p == start)
			return json_fail(ps, "a value");
		if (ps->p < ps->end && *ps->p == '.') {
			const char *frac = ++ps->p;

			while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
				ps->p++;
			if (ps->p == frac)
				return json_fail(ps, "a digit after the decimal point");
		}
		if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E' ||
					isalpha((unsigned char)*ps->p)))
			return json_fail(ps, "the end of a number");
		j = json_new(JSON_NUMBER);
		j->str = strndup(start, (size_t)(ps->p - start));
		*out = j;
		return true;
	}
}

bool json_parse(const char *text, size_t len, struct json **root, char *err, size_t size)
{
	struct json_parser ps = { 0 };
	bool ok;

	ps.s = ps.p = text;
	ps.end = text + len;
	*root = NULL;
	ok = json_value(&ps, root, 0);
	if (ok) {
		json_ws(&ps);
		if (ps.p != ps.end)
			ok = json_fail(&ps, "the end of the text after the object");
	}
	if (!ok) {
		json_free(*root);
		*root = NULL;
		snprintf(err, size, "%s", ps.err);
	}
	return ok;
}
