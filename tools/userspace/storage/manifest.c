// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The manifest (manifest.h, docs/manifest.md): its writer, and its reader.
 * The strict parser of json.c builds a tree, then every field is looked up
 * with its type; unknown keys are rejected too, so a typo in a hand-edited
 * manifest is an error rather than a silently ignored field.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "identity.h"
#include "json.h"
#include "manifest.h"
#include "shard.h"
#include "util.h"

bool guac_manifest_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len;

	for (; n; p += len, n -= len)
		if (!(len = json_utf8_len(p, n)))
			return false;
	return true;
}

/* Field access with types; each failure names the field. */
struct mf_ctx {
	const char *path;
	char err[256];
};

static bool mf_fail(struct mf_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool mf_fail(struct mf_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return false;
}

static const struct json *mf_get(const struct json *obj, const char *key)
{
	const struct json *m;

	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

static bool mf_known_keys(struct mf_ctx *c, const struct json *obj, const char *where,
			  const char *const *keys)
{
	const struct json *m, *o;
	size_t i;

	for (m = obj->child; m; m = m->next) {
		for (i = 0; keys[i] && strcmp(keys[i], m->key); i++)
			;
		if (!keys[i])
			return mf_fail(c, "unknown field \"%s\" in %s", m->key, where);
		for (o = obj->child; o != m; o = o->next)
			if (!strcmp(o->key, m->key))
				return mf_fail(c, "field \"%s\" appears twice in %s", m->key, where);
	}
	return true;
}

static bool mf_u64(struct mf_ctx *c, const struct json *obj, const char *key, uint64_t *out)
{
	const struct json *v = mf_get(obj, key);
	unsigned long long n;
	char *end;

	if (!v)
		return mf_fail(c, "missing field \"%s\"", key);
	if (v->type != JSON_NUMBER || strchr(v->str, '.'))
		return mf_fail(c, "field \"%s\" must be a non-negative integer", key);
	errno = 0;
	n = strtoull(v->str, &end, 10);
	if (errno || *end || (v->str[0] == '0' && v->str[1]))
		return mf_fail(c, "field \"%s\" is not a valid 64-bit integer: %s", key, v->str);
	*out = n;
	return true;
}

static bool mf_uint(struct mf_ctx *c, const struct json *obj, const char *key, unsigned int *out)
{
	uint64_t v;

	if (!mf_u64(c, obj, key, &v))
		return false;
	if (v > UINT32_MAX)
		return mf_fail(c, "field \"%s\" is too large", key);
	*out = (unsigned int)v;
	return true;
}

static bool mf_double(struct mf_ctx *c, const struct json *obj, const char *key, double *out)
{
	const struct json *v = mf_get(obj, key);

	if (!v)
		return mf_fail(c, "missing field \"%s\"", key);
	if (v->type != JSON_NUMBER)
		return mf_fail(c, "field \"%s\" must be a number", key);
	if (v->str[0] == '0' && isdigit((unsigned char)v->str[1]))
		return mf_fail(c, "field \"%s\" has a leading zero: %s", key, v->str);
	*out = strtod(v->str, NULL);
	return true;
}

static bool mf_bool(struct mf_ctx *c, const struct json *obj, const char *key, bool *out)
{
	const struct json *v = mf_get(obj, key);

	if (!v)
		return mf_fail(c, "missing field \"%s\"", key);
	if (v->type != JSON_BOOL)
		return mf_fail(c, "field \"%s\" must be true or false", key);
	*out = v->boolean;
	return true;
}

/* A string field; null reads as "" when @nullable. */
static bool mf_str(struct mf_ctx *c, const struct json *obj, const char *key, char *out,
		   size_t size, bool nullable)
{
	const struct json *v = mf_get(obj, key);

	if (!v)
		return mf_fail(c, "missing field \"%s\"", key);
	if (v->type == JSON_NULL && nullable) {
		out[0] = 0;
		return true;
	}
	if (v->type != JSON_STRING)
		return mf_fail(c, "field \"%s\" must be a string", key);
	if (strlen(v->str) >= size)
		return mf_fail(c, "field \"%s\" is too long", key);
	strcpy(out, v->str);
	return true;
}

static const struct json *mf_typed(struct mf_ctx *c, const struct json *obj, const char *key,
				   enum json_type type)
{
	const struct json *v = mf_get(obj, key);

	if (!v)
		mf_fail(c, "missing field \"%s\"", key);
	else if (v->type != type)
		mf_fail(c, "field \"%s\" must be an %s", key, type == JSON_ARRAY ? "array" : "object");
	else
		return v;
	return NULL;
}

const char *const guac_manifest_class_names[GUAC_MANIFEST_NCLASSES] = {
	"ALL_ZERO", "ALL_ONES", "TORN", "STALE_ORIGIN", "MISDIRECTED", "WRAPPED", "PARTIAL_MATCH",
	"OTHER", "unclassified",
};

bool guac_manifest_class_in(unsigned int i, unsigned int version)
{
	return i < GUAC_MANIFEST_NCLASSES &&
	       (version >= 5 || (strcmp(guac_manifest_class_names[i], "MISDIRECTED") &&
				 strcmp(guac_manifest_class_names[i], "WRAPPED")));
}

static bool mf_class_ok(const char *s, bool unreadable, unsigned int version)
{
	unsigned int i;

	if (!strcmp(s, "-"))
		return true;
	for (i = 0; !unreadable && i + 1 < GUAC_MANIFEST_NCLASSES; i++)
		if (!strcmp(s, guac_manifest_class_names[i]))
			return guac_manifest_class_in(i, version);
	return false;
}

/*
 * Version 4's places of a verify record's bad sectors: "bad_ranges" (a count,
 * or null: not known), "classes" (sectors per class, or null with it) and
 * "bad", the first ranges. Version 5 adds the classes MISDIRECTED and WRAPPED.
 */
static bool mf_decode_places(struct mf_ctx *c, const struct json *v, struct guac_manifest *m)
{
	static const char *const bad_keys[] = { "kind", "device_offset", "length", "class",
						NULL };
	const struct json *n = mf_get(v, "bad_ranges"), *cls = mf_get(v, "classes"), *t, *e;
	const char *class_keys[GUAC_MANIFEST_NCLASSES + 1];
	unsigned int i, k;
	char kind[16];

	if (!n || !cls)
		return mf_fail(c, "missing field \"%s\"", n ? "classes" : "bad_ranges");
	t = mf_typed(c, v, "bad", JSON_ARRAY);
	if (!t)
		return false;
	if (n->type == JSON_NULL || cls->type == JSON_NULL) {
		if (n->type != cls->type)
			return mf_fail(c, "\"bad_ranges\" and \"classes\" are null together or "
				       "not at all");
		if (t->child)
			return mf_fail(c, "a verify record without \"bad_ranges\" lists no \"bad\"");
		return true;
	}
	m->verify_places = true;
	if (!mf_u64(c, v, "bad_ranges", &m->verify_bad_ranges))
		return false;
	if (cls->type != JSON_OBJECT)
		return mf_fail(c, "field \"classes\" must be an object or null");
	/* mf_known_keys() wants a NULL-terminated list of this version's class names. */
	for (i = 0, k = 0; i < GUAC_MANIFEST_NCLASSES; i++)
		if (guac_manifest_class_in(i, m->version))
			class_keys[k++] = guac_manifest_class_names[i];
	class_keys[k] = NULL;
	if (!mf_known_keys(c, cls, "\"classes\"", class_keys))
		return false;
	for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++)
		if (guac_manifest_class_in(i, m->version) &&
		    !mf_u64(c, cls, guac_manifest_class_names[i], &m->verify_classes[i]))
			return false;
	for (e = t->child; e; e = e->next) {
		struct guac_manifest_bad *b = &m->verify_bad[m->nverify_bad];

		if (m->nverify_bad == GUAC_MANIFEST_MAX_BAD)
			return mf_fail(c, "more than %d bad ranges in \"verify\"",
				       GUAC_MANIFEST_MAX_BAD);
		if (e->type != JSON_OBJECT)
			return mf_fail(c, "bad range %u is not an object", m->nverify_bad);
		if (!mf_known_keys(c, e, "a bad range", bad_keys) ||
		    !mf_str(c, e, "kind", kind, sizeof(kind), false) ||
		    !mf_u64(c, e, "device_offset", &b->device_offset) ||
		    !mf_u64(c, e, "length", &b->length) ||
		    !mf_str(c, e, "class", b->cls, sizeof(b->cls), false))
			return false;
		if (strcmp(kind, "mismatch") && strcmp(kind, "unreadable"))
			return mf_fail(c, "bad range %u: kind \"%s\" is neither \"mismatch\" nor "
				       "\"unreadable\"", m->nverify_bad, kind);
		b->unreadable = !strcmp(kind, "unreadable");
		if (!mf_class_ok(b->cls, b->unreadable, m->version))
			return mf_fail(c, "bad range %u: unknown class \"%s\"%s", m->nverify_bad,
				       b->cls, m->version < 5 && !b->unreadable &&
				       (!strcmp(b->cls, "MISDIRECTED") || !strcmp(b->cls, "WRAPPED")) ?
				       " (it came with manifest version 5)" : "");
		m->nverify_bad++;
	}
	return true;
}

static const char *const mf_status_names[] = {
	[GUAC_STATUS_NONE] = "", [GUAC_STATUS_RUNNING] = "running",
	[GUAC_STATUS_COMPLETE] = "complete", [GUAC_STATUS_INTERRUPTED] = "interrupted",
	[GUAC_STATUS_FAILED] = "failed", [GUAC_STATUS_PARTIAL] = "partial",
};

const char *guac_fill_status_name(enum guac_fill_status s)
{
	return (unsigned int)s < sizeof(mf_status_names) / sizeof(mf_status_names[0]) ?
	       mf_status_names[s] : "";
}

bool guac_fill_status_parse(const char *name, enum guac_fill_status *s)
{
	unsigned int i;

	for (i = GUAC_STATUS_RUNNING; i < sizeof(mf_status_names) / sizeof(mf_status_names[0]); i++) {
		if (!strcmp(name, mf_status_names[i])) {
			*s = (enum guac_fill_status)i;
			return true;
		}
	}
	return false;
}

/* The status word @s read as the fill's (or, @verify, its record's), as @version has them. */
static bool mf_status_ok(const char *s, bool verify, unsigned int version,
			 enum guac_fill_status *out)
{
	if (!guac_fill_status_parse(s, out))
		return false;
	switch (*out) {
	case GUAC_STATUS_COMPLETE:
	case GUAC_STATUS_INTERRUPTED:
		return true;
	case GUAC_STATUS_RUNNING:
		return !verify || version >= 3;
	case GUAC_STATUS_FAILED:
		return !verify;
	case GUAC_STATUS_PARTIAL:
		return verify && version >= 7;
	default:
		return false;
	}
}

/* "format", "version" and "checksum" first: a newer manifest gets the message that helps. */
static bool mf_decode_version(struct mf_ctx *c, const struct json *root, struct guac_manifest *m,
			      char *checksum, size_t checksum_size)
{
	char fmt[32];
	uint64_t version;

	if (!mf_str(c, root, "format", fmt, sizeof(fmt), false) || strcmp(fmt, GUAC_MANIFEST_FORMAT))
		return mf_fail(c, "\"format\" is not \"%s\": not a guac manifest", GUAC_MANIFEST_FORMAT);
	if (!mf_u64(c, root, "version", &version))
		return false;
	if (version == 1)
		return mf_fail(c, "manifest version 1 is no longer read: it has no checksum, so an "
			       "edited field could not be told from a real one (this guac reads "
			       "version %d; rewrite the manifest with guac write)",
			       GUAC_MANIFEST_VERSION);
	if (version < 2 || version > GUAC_MANIFEST_VERSION)
		return mf_fail(c, "manifest version %" PRIu64 " is not supported (this guac reads "
			       "versions 2 to %d%s)", version, GUAC_MANIFEST_VERSION,
			       version > GUAC_MANIFEST_VERSION ? "; a newer guac wrote it: read it "
			       "with that one" : "");
	m->version = (unsigned int)version;
	if (!mf_get(root, "checksum"))
		return mf_fail(c, "missing field \"checksum\": a version %d manifest carries the "
			       "SHA-256 of its fields; without it an edit cannot be detected",
			       GUAC_MANIFEST_VERSION);
	return mf_str(c, root, "checksum", checksum, checksum_size, false);
}

/* The top level's own fields: the fill, its writer and its outcome. */
static bool mf_decode_fill(struct mf_ctx *c, const struct json *root, struct guac_manifest *m)
{
	static const char *const top_keys[] = {
		"format", "version", "tool", "tool_version", "stream_version", "origin",
		"stream_offset", "device_offset", "length", "block_size", "sector_size",
		"direct", "sync", "target", "shard", "status", "error", "started", "finished",
		"seconds", "ranges", "history", "verify", "checksum", "host", "run", "workload",
		NULL };
	char tool[16], status[16];

	/* "host" came with version 4. */
	if (m->version < 4 && mf_get(root, "host"))
		return mf_fail(c, "unknown field \"host\" in the manifest (version %u has none)",
			       m->version);
	/* "run" came with version 6. */
	if (m->version < 6 && mf_get(root, "run"))
		return mf_fail(c, "unknown field \"run\" in the manifest (version %u has none)",
			       m->version);
	if (!mf_known_keys(c, root, "the manifest", top_keys) ||
	    (m->version >= 4 && !mf_str(c, root, "host", m->host, sizeof(m->host), true)) ||
	    (m->version >= 6 && !mf_str(c, root, "run", m->run, sizeof(m->run), true)) ||
	    !mf_str(c, root, "tool", tool, sizeof(tool), false) ||
	    !mf_str(c, root, "tool_version", m->tool_version, sizeof(m->tool_version), false) ||
	    !mf_uint(c, root, "stream_version", &m->stream_version) ||
	    !mf_u64(c, root, "origin", &m->origin) ||
	    !mf_u64(c, root, "stream_offset", &m->stream_offset) ||
	    !mf_u64(c, root, "device_offset", &m->device_offset) ||
	    !mf_u64(c, root, "length", &m->length) ||
	    !mf_u64(c, root, "block_size", &m->block_size) ||
	    !mf_uint(c, root, "sector_size", &m->sector_size) ||
	    !mf_bool(c, root, "direct", &m->direct) || !mf_bool(c, root, "sync", &m->sync) ||
	    !mf_str(c, root, "status", status, sizeof(status), false) ||
	    !mf_str(c, root, "error", m->error, sizeof(m->error), true) ||
	    !mf_str(c, root, "started", m->started, sizeof(m->started), false) ||
	    !mf_str(c, root, "finished", m->finished, sizeof(m->finished), true) ||
	    !mf_double(c, root, "seconds", &m->seconds))
		return false;
	if (strcmp(tool, "guac"))
		return mf_fail(c, "\"tool\" is \"%s\", not \"guac\"", tool);
	if (m->stream_version != GUAC_STREAM_VERSION)
		return mf_fail(c, "stream version %u is not this guac's (%d)", m->stream_version,
			       GUAC_STREAM_VERSION);
	if (!mf_status_ok(status, false, m->version, &m->status))
		return mf_fail(c, "unknown status \"%s\"", status);
	return true;
}

/* "target" and "shard": what was filled, and which part of the fill this is. */
static bool mf_decode_target(struct mf_ctx *c, const struct json *root, struct guac_manifest *m)
{
	static const char *const target_keys[] = { "path", "type", "size", "serial", "wwid",
						   "identity", NULL };
	static const char *const shard_keys[] = { "index", "count", NULL };
	const struct json *t = mf_typed(c, root, "target", JSON_OBJECT);

	if (!t || !mf_known_keys(c, t, "\"target\"", target_keys) ||
	    !mf_str(c, t, "path", m->target_path, sizeof(m->target_path), false) ||
	    !mf_str(c, t, "type", m->target_type, sizeof(m->target_type), false) ||
	    !mf_u64(c, t, "size", &m->target_size) ||
	    !mf_str(c, t, "serial", m->serial, sizeof(m->serial), true) ||
	    !mf_str(c, t, "wwid", m->wwid, sizeof(m->wwid), true))
		return false;
	/* "identity" came with version 6. */
	if (m->version < 6 && mf_get(t, "identity"))
		return mf_fail(c, "unknown field \"identity\" in \"target\" (version %u has none)",
			       m->version);
	if (m->version >= 6 && !mf_str(c, t, "identity", m->identity, sizeof(m->identity), true))
		return false;
	if (strcmp(m->target_type, "file") && strcmp(m->target_type, "block"))
		return mf_fail(c, "target type \"%s\" is neither \"file\" nor \"block\"",
			       m->target_type);

	t = mf_typed(c, root, "shard", JSON_OBJECT);
	return t && mf_known_keys(c, t, "\"shard\"", shard_keys) &&
	       mf_uint(c, t, "index", &m->shard_index) && mf_uint(c, t, "count", &m->shard_count);
}

/* "ranges": the jobs' parts, what each has written and verified. */
static bool mf_decode_ranges(struct mf_ctx *c, const struct json *root, struct guac_manifest *m)
{
	static const char *const range_keys[] = { "device_offset", "stream_offset", "length",
						  "done", "verified", NULL };
	const struct json *t = mf_typed(c, root, "ranges", JSON_ARRAY), *e;

	if (!t)
		return false;
	for (e = t->child; e; e = e->next) {
		struct guac_manifest_range *r = &m->range[m->nranges];

		if (m->nranges == GUAC_MANIFEST_MAX_RANGES)
			return mf_fail(c, "more than %d ranges", GUAC_MANIFEST_MAX_RANGES);
		if (e->type != JSON_OBJECT)
			return mf_fail(c, "range %u is not an object", m->nranges);
		if (!mf_known_keys(c, e, "a range", range_keys) ||
		    !mf_u64(c, e, "device_offset", &r->device_offset) ||
		    !mf_u64(c, e, "stream_offset", &r->stream_offset) ||
		    !mf_u64(c, e, "length", &r->length) || !mf_u64(c, e, "done", &r->done) ||
		    !mf_u64(c, e, "verified", &r->verified))
			return false;
		m->nranges++;
	}
	return true;
}

/* "history": the earlier fills of the target. */
static bool mf_decode_history(struct mf_ctx *c, const struct json *root, struct guac_manifest *m)
{
	static const char *const hist_keys[] = { "origin", "stream_offset", "device_offset",
						 "length", "finished", NULL };
	const struct json *t = mf_typed(c, root, "history", JSON_ARRAY), *e;

	if (!t)
		return false;
	for (e = t->child; e; e = e->next) {
		struct guac_manifest_history *h = &m->history[m->nhistory];

		if (m->nhistory == GUAC_MANIFEST_MAX_HISTORY)
			return mf_fail(c, "more than %d history entries", GUAC_MANIFEST_MAX_HISTORY);
		if (e->type != JSON_OBJECT)
			return mf_fail(c, "history entry %u is not an object", m->nhistory);
		if (!mf_known_keys(c, e, "a history entry", hist_keys) ||
		    !mf_u64(c, e, "origin", &h->origin) ||
		    !mf_u64(c, e, "stream_offset", &h->stream_offset) ||
		    !mf_u64(c, e, "device_offset", &h->device_offset) ||
		    !mf_u64(c, e, "length", &h->length) ||
		    !mf_str(c, e, "finished", h->finished, sizeof(h->finished), true))
			return false;
		m->nhistory++;
	}
	return true;
}

/*
 * "bs_split" of the workload (guac write --bs-split): the write sizes each
 * block drew from, [{"size": 4096, "percent": 50}, ...], checked against the
 * block and sector sizes by guac_manifest_consistent().
 */
static bool mf_decode_bs_split(struct mf_ctx *c, const struct json *w, struct guac_manifest *m)
{
	static const char *const keys[] = { "size", "percent", NULL };
	const struct json *a = mf_typed(c, w, "bs_split", JSON_ARRAY), *e;
	struct guac_bs_split *s = &m->bs_split;

	if (!a)
		return false;
	for (e = a->child; e; e = e->next) {
		if (s->n == GUAC_BS_SPLIT_MAX)
			return mf_fail(c, "workload bs_split has more than %d entries",
				       GUAC_BS_SPLIT_MAX);
		if (e->type != JSON_OBJECT)
			return mf_fail(c, "an entry of workload bs_split must be an object");
		if (!mf_known_keys(c, e, "a bs_split entry", keys) ||
		    !mf_u64(c, e, "size", &s->size[s->n]) ||
		    !mf_uint(c, e, "percent", &s->percent[s->n]))
			return false;
		s->n++;
	}
	return s->n || mf_fail(c, "workload bs_split is empty (a fill without one has none)");
}

/*
 * "workload" (version 8): the pattern, and a random one's seed, passes, the
 * pass its ranges' progress is of, and the stride between its passes'
 * origins; "iodepth" where more than one write a job was in flight;
 * "bs_split" where the blocks went out in writes of sizes drawn from one.
 */
static bool mf_decode_workload(struct mf_ctx *c, const struct json *root,
			       struct guac_manifest *m)
{
	static const char *const keys[] = { "pattern", "seed", "passes", "pass", "pass_stride",
					    "iodepth", "bs_split", NULL };
	const struct json *w;
	char pattern[16];

	m->passes = 1;
	m->iodepth = 1;
	if (m->version < 8) {
		if (mf_get(root, "workload"))
			return mf_fail(c, "unknown field \"workload\" in the manifest (version %u has "
				       "none)", m->version);
		return true;
	}
	w = mf_typed(c, root, "workload", JSON_OBJECT);
	if (!w || !mf_known_keys(c, w, "\"workload\"", keys) ||
	    !mf_str(c, w, "pattern", pattern, sizeof(pattern), false))
		return false;
	if (mf_get(w, "iodepth") && (!mf_uint(c, w, "iodepth", &m->iodepth) || !m->iodepth))
		return mf_fail(c, "workload iodepth: expected 1 to %d writes in flight a job",
			       GUAC_MANIFEST_MAX_IODEPTH);
	if (mf_get(w, "bs_split") && !mf_decode_bs_split(c, w, m))
		return false;
	if (!strcmp(pattern, "sequential"))
		return true;
	if (strcmp(pattern, "random"))
		return mf_fail(c, "unknown pattern \"%s\" in \"workload\"", pattern);
	m->random = true;
	return mf_u64(c, w, "seed", &m->seed) && mf_uint(c, w, "passes", &m->passes) &&
	       mf_uint(c, w, "pass", &m->pass) && mf_u64(c, w, "pass_stride", &m->pass_stride);
}

/* "verify": guac verify's record, or null. */
static bool mf_decode_verify(struct mf_ctx *c, const struct json *root, struct guac_manifest *m)
{
	static const char *const verify_keys[] = { "status", "bad_sectors",
						   "unreadable_sectors", "target_stamp", NULL };
	static const char *const verify_keys_v4[] = { "status", "bad_sectors",
						      "unreadable_sectors", "target_stamp",
						      "bad_ranges", "classes", "bad", NULL };
	static const char *const verify_keys_v2[] = { "status", "bad_sectors",
						      "unreadable_sectors", NULL };
	const struct json *v = mf_get(root, "verify");
	char status[16];

	if (!v)
		return mf_fail(c, "missing field \"verify\"");
	if (v->type == JSON_NULL)
		return true;
	if (v->type != JSON_OBJECT)
		return mf_fail(c, "field \"verify\" must be an object or null");
	m->have_verify = true;
	if (!mf_known_keys(c, v, "\"verify\"", m->version >= 4 ? verify_keys_v4 :
			   m->version >= 3 ? verify_keys : verify_keys_v2) ||
	    !mf_str(c, v, "status", status, sizeof(status), false) ||
	    !mf_u64(c, v, "bad_sectors", &m->verify_bad_sectors) ||
	    !mf_u64(c, v, "unreadable_sectors", &m->verify_unreadable_sectors) ||
	    (m->version >= 3 && !mf_str(c, v, "target_stamp", m->verify_stamp,
					sizeof(m->verify_stamp), true)) ||
	    (m->version >= 4 && !mf_decode_places(c, v, m)))
		return false;
	if (!mf_status_ok(status, true, m->version, &m->verify_status))
		return mf_fail(c, "unknown verify status \"%s\"", status);
	return true;
}

static bool mf_decode(struct mf_ctx *c, const struct json *root, struct guac_manifest *m,
		      char *checksum, size_t checksum_size)
{
	memset(m, 0, sizeof(*m));
	if (root->type != JSON_OBJECT)
		return mf_fail(c, "not a JSON object");
	return mf_decode_version(c, root, m, checksum, checksum_size) &&
	       mf_decode_fill(c, root, m) && mf_decode_target(c, root, m) &&
	       mf_decode_ranges(c, root, m) && mf_decode_history(c, root, m) &&
	       mf_decode_verify(c, root, m) && mf_decode_workload(c, root, m);
}

uint64_t guac_manifest_ranges_length(const struct guac_manifest *m)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < m->nranges; i++)
		sum += m->range[i].length;
	return sum;
}

uint64_t guac_manifest_done(const struct guac_manifest *m)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < m->nranges; i++)
		sum += m->range[i].done;
	return sum;
}

#define MF_BAD(...) do { snprintf(why, size, __VA_ARGS__); return false; } while (0)

/* The ranges tile exactly this shard's part, in order, with no gap or overlap. */
static bool mf_ranges_consistent(const struct guac_manifest *m, char *why, size_t size)
{
	struct guac_shard shard = { m->shard_index, m->shard_count, "the manifest" };
	uint64_t start, end, pos, want;
	unsigned int i;

	if (!m->nranges && m->length)
		MF_BAD("no ranges");
	guac_shard_range(&shard, m->length, m->sector_size, &start, &end);
	pos = m->device_offset + start;
	for (i = 0; i < m->nranges; i++) {
		const struct guac_manifest_range *r = &m->range[i];

		if (r->device_offset != pos)
			MF_BAD("range %u starts at byte %" PRIu64 ", expected %" PRIu64 " (a %s)", i,
			       r->device_offset, pos, r->device_offset > pos ? "gap" : "overlap");
		/* The low 64 bits of the range's position, mod 2^70 (util.h). */
		want = guac_spos_low64(guac_spos_add(guac_spos_of(m->stream_offset),
						     r->device_offset - m->device_offset));
		if (r->stream_offset != want)
			MF_BAD("range %u's stream_offset %" PRIu64 " does not match its place "
			       "(expected %" PRIu64 ")", i, r->stream_offset, want);
		if (r->done > r->length)
			MF_BAD("range %u: done %" PRIu64 " exceeds its length %" PRIu64, i, r->done,
			       r->length);
		/* A random pass's done counts steps, not the bytes from the range's start. */
		if (!strcmp(m->target_type, "file") && r->done && !m->random &&
		    r->device_offset + r->done > m->target_size)
			MF_BAD("range %u: done bytes end at %" PRIu64 ", past the file's size %" PRIu64,
			       i, r->device_offset + r->done, m->target_size);
		if (r->verified > r->done)
			MF_BAD("range %u: verified %" PRIu64 " exceeds done %" PRIu64, i,
			       r->verified, r->done);
		if (pos + r->length < pos)
			MF_BAD("range %u's length overflows", i);
		pos += r->length;
	}
	if (pos != m->device_offset + end)
		MF_BAD("the ranges cover %" PRIu64 " bytes but shard %u/%u of length %" PRIu64
		       " is %" PRIu64 " bytes", guac_manifest_ranges_length(m), m->shard_index,
		       m->shard_count, m->length, end - start);
	if (m->status == GUAC_STATUS_COMPLETE && guac_manifest_done(m) != end - start)
		MF_BAD("status is complete but only %" PRIu64 " of %" PRIu64 " bytes are done",
		       guac_manifest_done(m), end - start);
	return true;
}

/*
 * Verify progress needs its record (version 2 merges kept "verified"
 * without one: such a manifest's progress is ignored, not refused), and
 * a complete check has verified every done byte.
 */
static bool mf_record_consistent(const struct guac_manifest *m, char *why, size_t size)
{
	uint64_t pos;
	unsigned int i;

	for (i = 0; m->version >= 3 && i < m->nranges; i++) {
		const struct guac_manifest_range *r = &m->range[i];

		if (r->verified && !m->have_verify)
			MF_BAD("range %u: verified %" PRIu64 " without a verify record", i,
			       r->verified);
		if (m->have_verify && m->verify_status == GUAC_STATUS_COMPLETE &&
		    r->verified != r->done)
			MF_BAD("the verify record is complete but range %u has %" PRIu64 " of %"
			       PRIu64 " done bytes verified", i, r->verified, r->done);
	}
	/* Version 4: the record's bad ranges, in order, within the fill, all kept or the first. */
	if (m->verify_places && m->nverify_bad != (m->verify_bad_ranges < GUAC_MANIFEST_MAX_BAD ?
						    m->verify_bad_ranges : GUAC_MANIFEST_MAX_BAD))
		MF_BAD("the verify record lists %u bad ranges of %" PRIu64 " (it keeps the first %d)",
		       m->nverify_bad, m->verify_bad_ranges, GUAC_MANIFEST_MAX_BAD);
	pos = m->device_offset;
	for (i = 0; m->verify_places && i < m->nverify_bad; i++) {
		const struct guac_manifest_bad *b = &m->verify_bad[i];

		if (!b->length || b->device_offset < pos ||
		    b->length > m->device_offset + m->length - b->device_offset)
			MF_BAD("the verify record's bad range %u (byte %" PRIu64 ", %" PRIu64 " bytes) "
			       "is empty, out of order or outside the fill", i, b->device_offset,
			       b->length);
		pos = b->device_offset + b->length;
	}
	return true;
}

/*
 * The workload: a queue depth in range, a split that fits the blocks; a random
 * fill whole blocks, one part, a pass of its passes, the last when complete.
 */
static bool mf_workload_consistent(const struct guac_manifest *m, char *why, size_t size)
{
	unsigned int i;

	if (m->iodepth > GUAC_MANIFEST_MAX_IODEPTH)	/* 0: not recorded, one at a time */
		MF_BAD("workload iodepth %u is not 1 to %d", m->iodepth, GUAC_MANIFEST_MAX_IODEPTH);
	if (guac_bs_split_check(&m->bs_split, m->block_size, m->sector_size, &i))
		MF_BAD("workload bs_split entry %u (size %" PRIu64 ", %u%%): the sizes must be "
		       "distinct, divide block_size %" PRIu64 " and be whole %u-byte sectors, the "
		       "percentages 1 to 100 summing to 100", i + 1, m->bs_split.size[i],
		       m->bs_split.percent[i], m->block_size, m->sector_size);
	if (!m->random)
		return true;
	if (!m->passes || m->pass >= m->passes)
		MF_BAD("workload pass %u is not one of its %u passes", m->pass, m->passes);
	if (!m->pass_stride)
		MF_BAD("workload pass_stride 0: the passes would write one origin");
	if (m->length % m->block_size || m->shard_count != 1)
		MF_BAD("a random fill is whole blocks (length %" PRIu64 ", block_size %" PRIu64
		       ") of one part (shard %u/%u)", m->length, m->block_size, m->shard_index,
		       m->shard_count);
	for (i = 0; i < m->nranges; i++)
		if ((m->range[i].device_offset - m->device_offset) % m->block_size ||
		    m->range[i].done % m->block_size)
			MF_BAD("range %u of a random fill is not whole blocks", i);
	if (m->status == GUAC_STATUS_COMPLETE && m->pass != m->passes - 1)
		MF_BAD("status is complete but pass %u of %u is the last one recorded", m->pass + 1,
		       m->passes);
	return true;
}

bool guac_manifest_consistent(const struct guac_manifest *m, char *why, size_t size)
{
	if (m->sector_size < 512 || m->sector_size > 65536 || (m->sector_size & (m->sector_size - 1)))
		MF_BAD("sector_size %u is not a power of two from 512 to 65536", m->sector_size);
	if (!m->block_size || m->block_size % m->sector_size || m->block_size > GUAC_IO_MAX_BS)
		MF_BAD("block_size %" PRIu64 " is not a multiple of the sector size up to 64 MiB",
		       m->block_size);
	if (!m->shard_count || m->shard_index >= m->shard_count)
		MF_BAD("shard %u/%u is not K/N with K < N", m->shard_index, m->shard_count);
	/* guac never splits a fill further; merge sizes its bookkeeping by it. */
	if (m->shard_count > GUAC_SHARD_MAX)
		MF_BAD("shard count %u is above %u", m->shard_count, GUAC_SHARD_MAX);
	if (m->device_offset + m->length < m->device_offset)
		MF_BAD("device_offset + length overflows");
	/* A file's size is the one after the fill, which may have ended early. */
	if (m->target_size && m->device_offset + m->length > m->target_size &&
	    strcmp(m->target_type, "file"))
		MF_BAD("the fill (bytes %" PRIu64 " to %" PRIu64 ") ends past the target's size %"
		       PRIu64, m->device_offset, m->device_offset + m->length, m->target_size);
	return mf_ranges_consistent(m, why, size) && mf_record_consistent(m, why, size) &&
	       mf_workload_consistent(m, why, size);
}
#undef MF_BAD

static bool mf_checksum(const struct guac_manifest *m, unsigned int version, char *out,
			size_t size);

bool guac_manifest_load(const char *path, struct guac_manifest *m)
{
	struct mf_ctx c = { path, "" };
	struct json *root = NULL;
	char *text, sum[96], want[96], err[160];
	size_t n, cap;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f) {
		guac_err("cannot open manifest '%s': %s", path, strerror(errno));
		return false;
	}
	/* A buffer that grows with the file (a few KiB, usually), up to one byte past the limit. */
	for (n = 0, cap = 0, text = NULL;;) {
		size_t got;

		if (n == cap) {
			char *more;

			cap = cap ? 4 * cap : 64 << 10;
			if (cap > GUAC_MANIFEST_MAX_BYTES + 1)
				cap = GUAC_MANIFEST_MAX_BYTES + 1;
			more = realloc(text, cap);
			if (!more) {
				free(text);
				fclose(f);
				guac_err("out of memory");
				return false;
			}
			text = more;
		}
		got = fread(text + n, 1, cap - n, f);
		n += got;
		if (!got || n > GUAC_MANIFEST_MAX_BYTES)
			break;
	}
	fclose(f);
	if (n > GUAC_MANIFEST_MAX_BYTES) {
		free(text);
		guac_err("manifest '%s' is larger than %u bytes: not a guac manifest", path,
			 GUAC_MANIFEST_MAX_BYTES);
		return false;
	}
	ok = json_parse(text, n, &root, err, sizeof(err));
	if (!ok) {
		guac_err("invalid manifest '%s': %s", path, err);
	} else if (!mf_decode(&c, root, m, sum, sizeof(sum))) {
		guac_err("invalid manifest '%s': %s", path, c.err);
		ok = false;
	} else if (!guac_manifest_consistent(m, c.err, sizeof(c.err))) {
		guac_err("inconsistent manifest '%s': %s", path, c.err);
		ok = false;
	} else if (!mf_checksum(m, m->version, want, sizeof(want))) {
		ok = false;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	} else if (strcmp(sum, want)) {
#else
	} else if (strcmp(sum, want) && strcmp(sum, "fuzz")) {
		/* The fuzz build (tests/fuzz) takes "fuzz" for any checksum, to reach what follows. */
#endif
		/* After the structural checks, which name a clumsy edit more precisely. */
		guac_err("invalid manifest '%s': checksum mismatch: its fields were edited or "
			 "damaged after guac wrote them (\"checksum\" is %s, the fields give %s)",
			 path, sum, want);
		ok = false;
	}
	json_free(root);
	free(text);
	return ok;
}

unsigned int guac_manifest_save_version(const struct guac_manifest *m)
{
	return m->random || m->iodepth > 1 || m->bs_split.n ? GUAC_MANIFEST_VERSION :
							      GUAC_MANIFEST_SEQUENTIAL_VERSION;
}

uint64_t guac_manifest_pass_origin(const struct guac_manifest *m, unsigned int pass)
{
	if (!m->random || pass >= m->passes)
		return m->origin;
	return m->origin - (uint64_t)(m->passes - 1 - pass) * m->pass_stride;	/* mod 2^64 */
}

void guac_fill_key_of(const struct guac_manifest *m, struct guac_fill_key *k)
{
	*k = (struct guac_fill_key){
		.origin = m->origin, .stream_offset = m->stream_offset,
		.device_offset = m->device_offset, .length = m->length,
		.random = m->random, .seed = m->random ? m->seed : 0,
		.passes = m->random ? m->passes : 1,
		.block_size = m->block_size, .target_size = m->target_size,
		.sector_size = m->sector_size, .shard_index = m->shard_index,
		.shard_count = m->shard_count, .is_file = !strcmp(m->target_type, "file"),
		.direct = m->direct, .target_path = m->target_path, .serial = m->serial,
		.wwid = m->wwid, .identity = m->identity,
	};
	guac_ident_machine(m->identity, k->machine, sizeof(k->machine));
}

/* True, with @d naming field @f and both values, when they differ. */
static bool mf_fill_num(struct guac_fill_diff *d, enum guac_fill_field f, uint64_t a, uint64_t b)
{
	if (a == b)
		return false;
	d->field = f;
	d->a = a;
	d->b = b;
	return true;
}

static bool mf_fill_str(struct guac_fill_diff *d, enum guac_fill_field f, const char *a,
			const char *b)
{
	if (!strcmp(a, b))
		return false;
	d->field = f;
	d->sa = a;
	d->sb = b;
	return true;
}

bool guac_fill_same(const struct guac_fill_key *a, const struct guac_fill_key *b,
		    unsigned int flags, struct guac_fill_diff *d)
{
	/* A file is named by its path (its serial is its disk's); a device by its serial and WWN. */
	bool by_id = !a->is_file && (a->serial[0] || a->wwid[0]);
	struct guac_fill_diff scratch;

	if (!d)
		d = &scratch;
	*d = (struct guac_fill_diff){ .field = GUAC_FILL_SAME, .sa = "", .sb = "" };
	if (mf_fill_num(d, GUAC_FILL_ORIGIN, a->origin, b->origin) ||
	    mf_fill_num(d, GUAC_FILL_STREAM_OFFSET, a->stream_offset, b->stream_offset) ||
	    mf_fill_num(d, GUAC_FILL_DEVICE_OFFSET, a->device_offset, b->device_offset) ||
	    mf_fill_num(d, GUAC_FILL_LENGTH, a->length, b->length) ||
	    mf_fill_num(d, GUAC_FILL_PATTERN, a->random, b->random) ||
	    mf_fill_num(d, GUAC_FILL_SEED, a->seed, b->seed) ||
	    mf_fill_num(d, GUAC_FILL_PASSES, a->passes, b->passes) ||
	    ((flags & GUAC_FILL_SAME_LAYOUT) &&
	     (mf_fill_num(d, GUAC_FILL_SECTOR_SIZE, a->sector_size, b->sector_size) ||
	      mf_fill_num(d, GUAC_FILL_BLOCK_SIZE, a->block_size, b->block_size))) ||
	    ((flags & GUAC_FILL_SAME_SIZE) && !a->is_file &&
	     mf_fill_num(d, GUAC_FILL_TARGET_SIZE, a->target_size, b->target_size)) ||
	    mf_fill_num(d, GUAC_FILL_TARGET_TYPE, a->is_file, b->is_file) ||
	    ((by_id || (flags & GUAC_FILL_SAME_DISK)) &&
	     (mf_fill_str(d, GUAC_FILL_SERIAL, a->serial, b->serial) ||
	      mf_fill_str(d, GUAC_FILL_WWID, a->wwid, b->wwid))) ||
	    mf_fill_num(d, GUAC_FILL_SHARD_COUNT, a->shard_count, b->shard_count) ||
	    ((flags & GUAC_FILL_SAME_PART) &&
	     mf_fill_num(d, GUAC_FILL_SHARD_INDEX, a->shard_index, b->shard_index)) ||
	    ((!by_id || (flags & GUAC_FILL_SAME_PATH)) &&
	     mf_fill_str(d, GUAC_FILL_TARGET_PATH, a->target_path, b->target_path)) ||
	    /* A target only one machine holds (a local file, issue 35 F7): on one machine. */
	    (!(flags & GUAC_FILL_SAME_IDENTITY) && a->machine[0] && b->machine[0] &&
	     mf_fill_str(d, GUAC_FILL_MACHINE, a->machine, b->machine)) ||
	    ((flags & GUAC_FILL_SAME_IO_MODE) &&
	     mf_fill_num(d, GUAC_FILL_IO_MODE, a->direct, b->direct)))
		return false;
	/* Another target (identity.h): a part on another host's local file system, too. */
	if ((flags & GUAC_FILL_SAME_IDENTITY) && a->identity[0] && b->identity[0] &&
	    !guac_ident_part_diff(a->identity, b->identity, d->why, sizeof(d->why))) {
		d->field = GUAC_FILL_IDENTITY;
		d->sa = a->identity;
		d->sb = b->identity;
		return false;
	}
	return true;
}

bool guac_manifest_same_fill(const struct guac_manifest *a, const struct guac_manifest *b,
			     unsigned int flags, struct guac_fill_diff *d)
{
	struct guac_fill_key ka, kb;

	guac_fill_key_of(a, &ka);
	guac_fill_key_of(b, &kb);
	return guac_fill_same(&ka, &kb, flags, d);
}

void guac_manifest_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void mf_nullable(FILE *f, const char *s)
{
	if (*s)
		guac_json_string(f, s);
	else
		fputs("null", f);
}

/* Version 4's places of the verify record's bad sectors (mf_decode_places()). */
static void mf_print_places(FILE *f, const struct guac_manifest *m, unsigned int version)
{
	const char *sep = "";
	unsigned int i;

	if (!m->verify_places) {
		fputs(", \"bad_ranges\": null, \"classes\": null, \"bad\": []", f);
		return;
	}
	fprintf(f, ", \"bad_ranges\": %" PRIu64 ", \"classes\": {", m->verify_bad_ranges);
	for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++) {
		if (!guac_manifest_class_in(i, version))
			continue;
		fprintf(f, "%s\"%s\": %" PRIu64, sep, guac_manifest_class_names[i],
			m->verify_classes[i]);
		sep = ", ";
	}
	fputs("}, \"bad\": [", f);
	for (i = 0; i < m->nverify_bad; i++)
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"device_offset\": %" PRIu64
			", \"length\": %" PRIu64 ", \"class\": \"%s\"}", i ? "," : "",
			m->verify_bad[i].unreadable ? "unreadable" : "mismatch",
			m->verify_bad[i].device_offset, m->verify_bad[i].length, m->verify_bad[i].cls);
	fputs(m->nverify_bad ? "\n  ]" : "]", f);
}

/* "workload" (version 8): the pattern, a random one's order, the queue depth above 1, a split. */
static void mf_print_workload(FILE *f, const struct guac_manifest *m)
{
	unsigned int i;

	if (m->random)
		fprintf(f, ",\n  \"workload\": {\"pattern\": \"random\", \"seed\": %" PRIu64
			", \"passes\": %u, \"pass\": %u, \"pass_stride\": %" PRIu64, m->seed,
			m->passes, m->pass, m->pass_stride);
	else
		fputs(",\n  \"workload\": {\"pattern\": \"sequential\"", f);
	if (m->iodepth > 1)
		fprintf(f, ", \"iodepth\": %u", m->iodepth);
	if (m->bs_split.n) {
		fputs(", \"bs_split\": [", f);
		for (i = 0; i < m->bs_split.n; i++)
			fprintf(f, "%s{\"size\": %" PRIu64 ", \"percent\": %u}", i ? ", " : "",
				m->bs_split.size[i], m->bs_split.percent[i]);
		fputc(']', f);
	}
	fputc('}', f);
}
/*
 * The canonical text: every field but "checksum", exactly as guac writes
 * it. The checksum covers this, so it is re-made from the decoded fields on
 * load: whitespace does not matter, any changed value does.
 */
static void mf_print_fields(FILE *f, const struct guac_manifest *m, unsigned int version)
{
	unsigned int i;

	fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"tool\": \"guac\",\n"
		"  \"tool_version\": ", GUAC_MANIFEST_FORMAT, version);
	guac_json_string(f, m->tool_version);
	if (version >= 4) {
		fputs(",\n  \"host\": ", f);
		mf_nullable(f, m->host);
	}
	if (version >= 6) {
		fputs(",\n  \"run\": ", f);
		mf_nullable(f, m->run);
	}
	fprintf(f, ",\n  \"stream_version\": %u,\n  \"origin\": %" PRIu64 ",\n"
		"  \"stream_offset\": %" PRIu64 ",\n  \"device_offset\": %" PRIu64 ",\n"
		"  \"length\": %" PRIu64 ",\n  \"block_size\": %" PRIu64 ",\n"
		"  \"sector_size\": %u,\n  \"direct\": %s,\n  \"sync\": %s,\n"
		"  \"target\": {\"path\": ", m->stream_version, m->origin, m->stream_offset,
		m->device_offset, m->length, m->block_size, m->sector_size,
		m->direct ? "true" : "false", m->sync ? "true" : "false");
	guac_json_string(f, m->target_path);
	fprintf(f, ", \"type\": \"%s\", \"size\": %" PRIu64 ", \"serial\": ", m->target_type,
		m->target_size);
	mf_nullable(f, m->serial);
	fputs(", \"wwid\": ", f);
	mf_nullable(f, m->wwid);
	if (version >= 6) {
		fputs(", \"identity\": ", f);
		mf_nullable(f, m->identity);
	}
	fprintf(f, "},\n  \"shard\": {\"index\": %u, \"count\": %u},\n  \"status\": \"%s\",\n"
		"  \"error\": ", m->shard_index, m->shard_count, guac_fill_status_name(m->status));
	mf_nullable(f, m->error);
	fputs(",\n  \"started\": ", f);
	guac_json_string(f, m->started);
	fputs(",\n  \"finished\": ", f);
	mf_nullable(f, m->finished);
	fprintf(f, ",\n  \"seconds\": %.3f,\n  \"ranges\": [", m->seconds);
	for (i = 0; i < m->nranges; i++)
		fprintf(f, "%s\n    {\"device_offset\": %" PRIu64 ", \"stream_offset\": %" PRIu64
			", \"length\": %" PRIu64 ", \"done\": %" PRIu64 ", \"verified\": %" PRIu64
			"}", i ? "," : "", m->range[i].device_offset, m->range[i].stream_offset,
			m->range[i].length, m->range[i].done, m->range[i].verified);
	fputs(m->nranges ? "\n  ],\n  \"history\": [" : "],\n  \"history\": [", f);
	for (i = 0; i < m->nhistory; i++) {
		const struct guac_manifest_history *h = &m->history[i];

		fprintf(f, "%s\n    {\"origin\": %" PRIu64 ", \"stream_offset\": %" PRIu64
			", \"device_offset\": %" PRIu64 ", \"length\": %" PRIu64 ", \"finished\": ",
			i ? "," : "", h->origin, h->stream_offset, h->device_offset, h->length);
		mf_nullable(f, h->finished);
		fputc('}', f);
	}
	fputs(m->nhistory ? "\n  ],\n  \"verify\": " : "],\n  \"verify\": ", f);
	if (m->have_verify) {
		fprintf(f, "{\"status\": \"%s\", \"bad_sectors\": %" PRIu64
			", \"unreadable_sectors\": %" PRIu64, guac_fill_status_name(m->verify_status),
			m->verify_bad_sectors, m->verify_unreadable_sectors);
		if (version >= 3) {
			fputs(", \"target_stamp\": ", f);
			mf_nullable(f, m->verify_stamp);
		}
		if (version >= 4)
			mf_print_places(f, m, version);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	if (version >= 8)
		mf_print_workload(f, m);
}

/* "sha256:" and the hex SHA-256 of the canonical text; false after a message. */
static bool mf_checksum(const struct guac_manifest *m, unsigned int version, char *out,
			size_t size)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool ok;

	if (!f) {
		guac_err("out of memory");
		return false;
	}
	mf_print_fields(f, m, version);
	ok = !fclose(f) && EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) == 1 &&
	     size > 7 + 2 * mdlen;
	free(text);
	if (!ok) {
		guac_err("cannot compute the manifest checksum (SHA-256)");
		return false;
	}
	snprintf(out, size, "sha256:");
	for (i = 0; i < mdlen; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
	return true;
}

void guac_manifest_print(FILE *f, const struct guac_manifest *m)
{
	char sum[96];

	mf_print_fields(f, m, m->version);
	if (mf_checksum(m, m->version, sum, sizeof(sum)))
		fprintf(f, ",\n  \"checksum\": \"%s\"", sum);
	fputs("\n}\n", f);
}

/* Every string of @m, for the UTF-8 check before a save. */
static const char *mf_bad_string(const struct guac_manifest *m)
{
	const struct { const char *name, *s; } f[] = {
		{ "tool_version", m->tool_version }, { "host", m->host }, { "run", m->run },
		{ "target.path", m->target_path },
		{ "target.type", m->target_type }, { "target.serial", m->serial },
		{ "target.wwid", m->wwid }, { "target.identity", m->identity },
		{ "error", m->error },
		{ "started", m->started }, { "finished", m->finished },
		{ "verify.target_stamp", m->verify_stamp },
	};
	unsigned int i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!guac_manifest_utf8(f[i].s))
			return f[i].name;
	for (i = 0; i < m->nhistory; i++)
		if (!guac_manifest_utf8(m->history[i].finished))
			return "history[].finished";
	return NULL;
}

bool guac_manifest_save(const char *path, const struct guac_manifest *m)
{
	char tmp[4200], dir[4200], sum[96];
	const char *bad = mf_bad_string(m);
	int fd, err = 0;
	FILE *f;

	/* JSON is UTF-8: a byte like 0xff would make a manifest no JSON parser reads. */
	if (bad) {
		guac_err("cannot write manifest '%s': its %s is not valid UTF-8", path, bad);
		return false;
	}
	if (!mf_checksum(m, guac_manifest_save_version(m), sum, sizeof(sum)))
		return false;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		guac_err("cannot write manifest '%s': %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	mf_print_fields(f, m, guac_manifest_save_version(m));
	fprintf(f, ",\n  \"checksum\": \"%s\"\n}\n", sum);
	/* A manifest that says "done" must not outlive the data it describes, nor vice versa. */
	if (fflush(f) || fsync(fd))
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		guac_err("cannot write manifest '%s': %s", path, strerror(err));
		unlink(tmp);
		return false;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);	/* the rename itself */
		close(fd);
	}
	return true;
}
