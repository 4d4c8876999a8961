/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A small strict JSON parser, for the manifest (manifest.c): one value and
 * nothing after it, nesting at most 8 deep, non-negative numbers only (kept
 * as their text), strings in valid UTF-8 with no escapes beyond \" \\ \/ \n
 * \t and \u00XX. The caller looks each field up with its type.
 */
#ifndef GUAC_JSON_H
#define GUAC_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	char *str;			/* string value, or a number's text */
	bool boolean;
	char *key;			/* member name inside an object */
	struct json *child, *next;	/* array elements or object members */
};

/*
 * Parse the @len bytes of @text: true with the tree in *@root (json_free()
 * it); false with *@root NULL and in @err what is wrong and at which byte
 * ("syntax error at byte 12: expected ':'", "truncated: ...").
 */
bool json_parse(const char *text, size_t len, struct json **root, char *err, size_t size);

/* Free a tree (and its siblings); NULL is nothing to free. */
void json_free(struct json *j);

/*
 * Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if invalid:
 * no overlong forms, surrogates or code points past U+10FFFF.
 */
size_t json_utf8_len(const unsigned char *s, size_t n);

#endif /* GUAC_JSON_H */
