// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A fleet's report: the rows and their verdicts (fleet.h, docs/fleet.md);
 * guac report's table, JSON and SVG picture of them are cmd/report_print.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "fleet.h"
#include "identity.h"
#include "util.h"

/* Room for @more rows without moving them; false after a message. */
static bool fleet_reserve(struct guac_fleet *f, unsigned int more)
{
	unsigned int cap = f->cap ? f->cap : 64;
	struct guac_fleet_disk *d;

	while (cap - f->n < more)
		cap *= 2;
	if (cap == f->cap)
		return true;
	d = realloc(f->disk, cap * sizeof(*d));
	if (!d) {
		guac_err("out of memory");
		return false;
	}
	f->disk = d;
	f->cap = cap;
	return true;
}

/* A new row, its strings empty (not NULL); NULL after a message. */
static struct guac_fleet_disk *fleet_new(struct guac_fleet *f)
{
	struct guac_fleet_disk *d;

	if (!fleet_reserve(f, 1))
		return NULL;
	d = &f->disk[f->n];
	memset(d, 0, sizeof(*d));
	d->source = strdup("");
	d->target = strdup("");
	if (!d->source || !d->target) {
		free(d->source);
		free(d->target);
		guac_err("out of memory");
		return NULL;
	}
	f->n++;
	return d;
}

/* Set a row's string @s (source or target) to a copy of @v; false when out of memory. */
static bool fleet_set(char **s, const char *v)
{
	char *c = strdup(v);

	if (!c) {
		guac_err("out of memory");
		return false;
	}
	free(*s);
	*s = c;
	return true;
}

/* What a row holds besides itself. */
static void fleet_row_free(struct guac_fleet_disk *d)
{
	free(d->source);
	free(d->target);
	free(d->medium);
	free(d->bad);
	free(d->part);
	free(d->history);
}

/*
 * The loader says what is wrong on standard error: catch it for the row
 * (guac report is single-threaded), without guac_err's "guac report: ".
 */
static bool fleet_load(const char *path, struct guac_manifest *m, char *why, size_t size)
{
	FILE *saved = stderr, *mem;
	char *text = NULL, *p;
	size_t len = 0;
	bool ok;

	mem = open_memstream(&text, &len);
	if (!mem)
		return guac_manifest_load(path, m);
	stderr = mem;
	ok = guac_manifest_load(path, m);
	stderr = saved;
	fclose(mem);
	p = text ? strstr(text, ": ") : NULL;
	snprintf(why, size, "%s", p ? p + 2 : "cannot load it");
	why[strcspn(why, "\n")] = '\0';
	free(text);
	return ok;
}

/*
 * The medium the row's manifest recorded (its identity, as a key and as
 * recorded, "KEY\nIDENTITY"): the same file under two names, a device under
 * two host labels, is one target (issue 35 item 7).
 */
static bool fleet_set_medium(struct guac_fleet_disk *d, const char *identity)
{
	char key[1024];

	if (!guac_ident_medium_key(identity, key, sizeof(key)))
		return true;
	if (asprintf(&d->medium, "%s\n%s", key, identity) < 0) {
		d->medium = NULL;
		guac_err("out of memory");
		return false;
	}
	return true;
}

/* What the record's status adds to its findings (a partial check: @d's hint). */
static const char *fleet_check_note(struct guac_fleet_disk *d, enum guac_fill_status status)
{
	if (status == GUAC_STATUS_PARTIAL)
		d->hint = GUAC_FLEET_HINT_PARTIAL_CHECK;
	if (status == GUAC_STATUS_COMPLETE || status == GUAC_STATUS_PARTIAL)
		return "";
	return " (the check did not finish)";
}

/* What row @d keeps of the loaded manifest @m: its target, its fill and the parts of it. */
static bool fleet_row_of(struct guac_fleet_disk *d, const struct guac_manifest *m)
{
	unsigned int i;

	snprintf(d->host, sizeof(d->host), "%s", m->host);
	if (!fleet_set(&d->target, m->target_path))
		return false;
	snprintf(d->serial, sizeof(d->serial), "%s", m->serial);
	snprintf(d->wwid, sizeof(d->wwid), "%s", m->wwid);
	if (!fleet_set_medium(d, m->identity))
		return false;
	d->shard_index = m->shard_index;
	d->shard_count = m->shard_count;
	d->size = m->target_size;
	d->device_offset = m->device_offset;
	d->fill_length = m->length;
	d->origin = m->origin;
	d->stream_offset = m->stream_offset;
	d->sector_size = m->sector_size;
	d->is_file = !strcmp(m->target_type, "file");
	guac_ident_machine(m->identity, d->machine, sizeof(d->machine));
	d->length = guac_manifest_ranges_length(m);
	d->written = guac_manifest_done(m);
	snprintf(d->run, sizeof(d->run), "%s", m->run);
	snprintf(d->when, sizeof(d->when), "%s", m->finished[0] ? m->finished : m->started);
	snprintf(d->started, sizeof(d->started), "%s", m->started);
	d->part = calloc(m->nranges ? m->nranges : 1, sizeof(*d->part));
	if (!d->part) {
		guac_err("out of memory");
		return false;
	}
	if (m->nhistory) {
		d->history = malloc(m->nhistory * sizeof(*d->history));
		if (!d->history) {
			guac_err("out of memory");
			return false;
		}
		memcpy(d->history, m->history, m->nhistory * sizeof(*d->history));
		d->nhistory = m->nhistory;
	}
	d->nparts = m->nranges;
	for (i = 0; i < m->nranges; i++) {
		d->part[i] = (struct guac_fleet_part){ m->range[i].device_offset, m->range[i].length,
						       m->range[i].done, m->range[i].verified };
		d->verified += m->range[i].verified;
	}
	return true;
}

/* The check @m records: its counts, and its bad ranges and classes. */
static bool fleet_row_check(struct guac_fleet_disk *d, const struct guac_manifest *m)
{
	if (!m->have_verify)
		return true;
	d->bad_sectors = m->verify_bad_sectors;
	d->unreadable_sectors = m->verify_unreadable_sectors;
	d->places = m->verify_places;
	d->bad_ranges = m->verify_bad_ranges;
	d->nbad = m->nverify_bad;
	if (m->nverify_bad) {
		d->bad = malloc(m->nverify_bad * sizeof(*d->bad));
		if (!d->bad) {
			guac_err("out of memory");
			return false;
		}
		memcpy(d->bad, m->verify_bad, m->nverify_bad * sizeof(*d->bad));
	}
	memcpy(d->classes, m->verify_classes, sizeof(d->classes));
	return true;
}

/* Row @d's state and reason: from the fill first, then from the check. */
static void fleet_row_verdict(struct guac_fleet_disk *d, const struct guac_manifest *m)
{
	if (m->status == GUAC_STATUS_FAILED) {
		d->state = "FAILED";
		snprintf(d->reason, sizeof(d->reason), "the write failed: %s; %" PRIu64 " of %"
			 PRIu64 " bytes durable", m->error[0] ? m->error : "no error recorded",
			 d->written, d->length);
	} else if (m->status == GUAC_STATUS_RUNNING) {
		d->state = "UNFINISHED";
		snprintf(d->reason, sizeof(d->reason), "the manifest says running: the writer "
			 "died (crash, kill, node lost) or is still writing; started %s", m->started);
	} else if (m->status == GUAC_STATUS_INTERRUPTED) {
		d->state = "INTERRUPTED";
		snprintf(d->reason, sizeof(d->reason), "the write was interrupted: %" PRIu64 " of %"
			 PRIu64 " bytes durable", d->written, d->length);
		d->hint = GUAC_FLEET_HINT_RESUME_WRITE;
	} else if (d->unreadable_sectors) {
		d->state = "UNREADABLE";
		snprintf(d->reason, sizeof(d->reason), "%" PRIu64 " unreadable and %" PRIu64
			 " mismatching sectors in the %" PRIu64 " bytes checked%s",
			 d->unreadable_sectors, d->bad_sectors, d->verified,
			 fleet_check_note(d, m->verify_status));
	} else if (d->bad_sectors) {
		d->state = "MISMATCH";
		snprintf(d->reason, sizeof(d->reason), "%" PRIu64 " bad sectors in %" PRIu64
			 " ranges in the %" PRIu64 " bytes checked%s", d->bad_sectors, d->bad_ranges,
			 d->verified, fleet_check_note(d, m->verify_status));
		if (!d->places)
			snprintf(d->reason + strlen(d->reason), sizeof(d->reason) - strlen(d->reason),
				 "; their places and classes are not recorded (a check begun "
				 "under manifest version 3)");
	} else if (!m->have_verify) {
		d->state = "UNVERIFIED";
		snprintf(d->reason, sizeof(d->reason), "written, never checked");
		d->hint = GUAC_FLEET_HINT_VERIFY;
	} else if (m->verify_status != GUAC_STATUS_COMPLETE || d->verified != d->written) {
		d->state = "UNVERIFIED";
		snprintf(d->reason, sizeof(d->reason), "the check is %s at %" PRIu64 " of %" PRIu64
			 " bytes, none bad so far", guac_fill_status_name(m->verify_status),
			 d->verified, d->written);
		d->hint = GUAC_FLEET_HINT_RESUME_VERIFY;
	} else {
		/* A complete, clean check: the one trust rule, and this host's re-read. */
		d->state = guac_record_verdict(m, d->reason, sizeof(d->reason));
		d->seen_here = m->identity[0] && guac_ident_here(m->identity);
	}
}

/* The row @d of the manifest at @path, loaded into @m (large: the caller's, on the heap). */
static bool fleet_add_loaded(struct guac_fleet *f, struct guac_fleet_disk *d, const char *path,
			     struct guac_manifest *m)
{
	if (!fleet_set(&d->source, path))
		return false;
	if (!fleet_load(path, m, d->reason, sizeof(d->reason))) {
		d->state = "INVALID";
		return fleet_set(&d->target, path);
	}
	if (!fleet_row_of(d, m))
		return false;
	if (f->run && strcmp(m->run, f->run)) {
		/*
		 * Last week's manifest speaks for last week: this run has none of the
		 * disk. Its places stay known: a later fill of another run over this
		 * run's fill still voids it (fleet_supersede_by_other_runs).
		 */
		d->other_run = true;
		d->state = "MISSING";
		snprintf(d->reason, sizeof(d->reason), "no manifest of run %.127s: '%.400s' is %s%.127s "
			 "(%s %s, status %s)", f->run, path, m->run[0] ? "of run " : "of no run",
			 m->run, m->finished[0] ? "finished" : "started", d->when,
			 guac_fill_status_name(m->status));
		return true;
	}
	if (!fleet_row_check(d, m))
		return false;
	fleet_row_verdict(d, m);
	return true;
}

static bool fleet_add_manifest(struct guac_fleet *f, const char *path)
{
	struct guac_fleet_disk *d = fleet_new(f);
	struct guac_manifest *m;
	bool ok;

	if (!d)
		return false;
	m = calloc(1, sizeof(*m));
	if (!m) {
		guac_err("out of memory");
		return false;
	}
	ok = fleet_add_loaded(f, d, path, m);
	free(m);
	return ok;
}

static int fleet_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool fleet_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Every *.json of a directory, in name order; a manifest's temporary files are not. */
static bool fleet_add_dir(struct guac_fleet *f, const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[8192];
	size_t n = 0, cap = 0, i;
	bool ok = true;

	if (!dp) {
		guac_err("cannot read the directory '%s': %s", dir, strerror(errno));
		return false;
	}
	while ((e = readdir(dp))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*p));

			if (!p) {
				ok = false;
				break;
			}
			names = p;
		}
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			ok = false;
			break;
		}
		n++;
	}
	closedir(dp);
	if (!ok)
		guac_err("out of memory");
	if (n)	/* qsort(NULL, 0, ...) is undefined: an empty directory has no list */
		qsort(names, n, sizeof(*names), fleet_name_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			 names[i]);
		if (ok && !fleet_is_dir(path))
			ok = fleet_add_manifest(f, path);
		free(names[i]);
	}
	free(names);
	if (ok && !n)
		guac_err("note: no *.json manifest in '%s'", dir);
	return ok;
}

bool guac_fleet_add(struct guac_fleet *f, const char *path)
{
	return fleet_is_dir(path) ? fleet_add_dir(f, path) : fleet_add_manifest(f, path);
}

/* One line of an expected list: "HOST TARGET". */
struct guac_fleet_line {
	char host[256], target[4096];
	unsigned int lineno;
};

/* @a and @b have one short name (the part before the first dot), not empty. */
static bool fleet_short_eq(const char *a, const char *b)
{
	size_t n = strcspn(a, ".");

	return n && n == strcspn(b, ".") && !strncmp(a, b, n);
}

/* Order of two names by their short names (the part before the first dot). */
static int fleet_short_cmp(const char *a, const char *b)
{
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : na < nb ? -1 : na > nb;
}

static int fleet_long_cmp(const void *pa, const void *pb)
{
	const char *a = *(char *const *)pa, *b = *(char *const *)pb;
	int c = fleet_short_cmp(a, b);

	return c ? c : strcmp(a, b);
}

/*
 * The long host names (with a dot) of the rows, but INVALID ones, and of the
 * expected list's lines, sorted by short name then name: fleet_host_eq looks
 * its short names up there. Rows added later (MISSING ones) take their host
 * from a line, or have none.
 */
static void fleet_free_hosts(struct guac_fleet *f)
{
	size_t i;

	for (i = 0; i < f->nlongs; i++)
		free(f->longs[i]);
	free(f->longs);
	f->longs = NULL;
	f->nlongs = 0;
}

static bool fleet_index_hosts(struct guac_fleet *f)
{
	unsigned int i;
	size_t n = 0;

	fleet_free_hosts(f);
	/* Copies: the rows move when more are added. */
	f->longs = malloc((f->n + f->nlines + 1) * sizeof(*f->longs));
	if (!f->longs)
		goto oom;
	for (i = 0; i < f->n + f->nlines; i++) {
		const char *h = i < f->n ? f->disk[i].host : f->line[i - f->n].host;

		if ((i >= f->n || strcmp(f->disk[i].state, "INVALID")) && strchr(h, '.')) {
			f->longs[n] = strdup(h);
			if (!f->longs[n])
				goto oom;
			f->nlongs = ++n;
		}
	}
	qsort(f->longs, n, sizeof(*f->longs), fleet_long_cmp);
	return true;
oom:
	fleet_free_hosts(f);
	guac_err("out of memory");
	return false;
}

/*
 * Do hosts @h and @m name one host? The one rule for an expected list's host
 * against a manifest's, and for two manifests' hosts (duplicates): the
 * same name, or a short name and its FQDN (guacn1, guacn1.lab.example): hosts
 * whose hostname is the FQDN while the inventory, or Slurm, says the short
 * name, and the other way round. Only while the manifests and the list know
 * one long name of that short name: guacn1 next to guacn1.a.example and
 * guacn1.b.example is none of them (it would be two hosts). Nothing else:
 * guacn1 is not guacn10, guacn1.a.example not guacn1.a.
 */
static bool fleet_host_eq(const struct guac_fleet *f, const char *h, const char *m)
{
	size_t lo = 0, hi = f->nlongs, a, b;

	if (!strcmp(h, m))
		return true;
	if (!fleet_short_eq(h, m) || (strchr(h, '.') && strchr(m, '.')))
		return false;
	/* The long names of h's short name (fleet_index_hosts): one or none make them one host. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fleet_short_cmp(f->longs[mid], h) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (a = b = lo; b < f->nlongs && !fleet_short_cmp(f->longs[b], h); b++)
		;
	return b - a < 2 || !strcmp(f->longs[a], f->longs[b - 1]);
}

/* Does row @d describe the disk TARGET (a path, serial or WWN) on HOST? */
static bool fleet_match(const struct guac_fleet *f, const struct guac_fleet_disk *d,
			const char *host, const char *target)
{
	if (!strcmp(d->state, "INVALID") || (!strcmp(d->state, "MISSING") && !d->other_run))
		return false;
	if (!(!strcmp(d->target, target) || (d->serial[0] && !strcmp(d->serial, target)) ||
	      (d->wwid[0] && !strcmp(d->wwid, target))))
		return false;
	return fleet_host_eq(f, host, d->host);
}

/* The lines of the expected list @list: false with the reason said. */
static bool fleet_read_expect(const char *list, struct guac_fleet_line **linep, unsigned int *nlinesp)
{
	FILE *in = fopen(list, "r");
	char buf[8192], extra[2];
	struct guac_fleet_line *line = NULL;
	unsigned int lineno = 0, n = 0, cap = 0;
	bool ok = true;

	if (!in) {
		guac_err("cannot open the expected list '%s': %s", list, strerror(errno));
		return false;
	}
	while (ok && fgets(buf, sizeof(buf), in)) {
		char *p = buf + strspn(buf, " \t");

		lineno++;
		if (!strchr(buf, '\n') && !feof(in)) {
			guac_err("%s:%u: line too long", list, lineno);
			ok = false;
			break;
		}
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (n == cap) {
			struct guac_fleet_line *l = realloc(line, (cap = cap ? 2 * cap : 16) * sizeof(*l));

			if (!l) {
				guac_err("out of memory");
				ok = false;
				break;
			}
			line = l;
		}
		if (sscanf(p, "%255s %4095s %1s", line[n].host, line[n].target, extra) != 2) {
			guac_err("%s:%u: expected \"HOST TARGET\" (TARGET: the path, serial or WWN "
				 "the manifest records), got '%.*s'", list, lineno,
				 (int)strcspn(p, "\n"), p);
			ok = false;
			break;
		}
		line[n++].lineno = lineno;
	}
	if (ok && ferror(in)) {
		guac_err("cannot read the expected list '%s'", list);
		ok = false;
	}
	fclose(in);
	if (!ok) {
		free(line);
		return false;
	}
	*linep = line;
	*nlinesp = n;
	return true;
}

/* The rows' names (path, serial, WWN), sorted: guac_fleet_expect's lookup. */
struct fleet_name {
	const char *name;
	unsigned int row;
};

static int fleet_name_entry_cmp(const void *pa, const void *pb)
{
	const struct fleet_name *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : a->row < b->row ? -1 : a->row > b->row;
}

/* The first entry of @names (@n, sorted) named @name; @n if none. */
static size_t fleet_name_find(const struct fleet_name *names, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool guac_fleet_expect(struct guac_fleet *f, const char *list)
{
	struct guac_fleet_line *line;
	struct fleet_name *names;
	unsigned int nlines, k, i, nrows = f->n;
	size_t nnames = 0, e;
	bool ok = true;

	if (!fleet_read_expect(list, &line, &nlines))
		return false;
	free(f->line);
	f->line = line;
	f->nlines = nlines;
	/*
	 * Each line looks its target up among the rows' names, not every row
	 * (issue 35, item 6). The names point into the rows: room is made for a
	 * MISSING row per line first, so that adding them moves none.
	 */
	names = malloc((3 * (size_t)nrows + 1) * sizeof(*names));
	if (!names || !fleet_reserve(f, nlines) || !fleet_index_hosts(f)) {
		free(names);
		guac_err("out of memory");
		return false;
	}
	for (i = 0; i < nrows; i++) {
		names[nnames++] = (struct fleet_name){ f->disk[i].target, i };
		if (f->disk[i].serial[0])
			names[nnames++] = (struct fleet_name){ f->disk[i].serial, i };
		if (f->disk[i].wwid[0])
			names[nnames++] = (struct fleet_name){ f->disk[i].wwid, i };
	}
	qsort(names, nnames, sizeof(*names), fleet_name_entry_cmp);
	for (k = 0; k < nlines; k++) {
		const char *host = line[k].host, *target = line[k].target;
		struct guac_fleet_disk *d;
		bool found = false;

		for (e = fleet_name_find(names, nnames, target);
		     e < nnames && !strcmp(names[e].name, target) && !found; e++)
			found = fleet_match(f, &f->disk[names[e].row], host, target);
		/* A disk listed twice is expected once. */
		for (i = nrows; i < f->n && !found; i++)
			found = !strcmp(f->disk[i].host, host) && !strcmp(f->disk[i].target, target);
		if (found)
			continue;
		d = fleet_new(f);
		if (!d) {
			ok = false;
			break;
		}
		snprintf(d->host, sizeof(d->host), "%s", host);
		if (!fleet_set(&d->target, target)) {
			ok = false;
			break;
		}
		d->state = "MISSING";
		snprintf(d->reason, sizeof(d->reason), "expected (%s line %u), but no manifest "
			 "given describes it", list, line[k].lineno);
	}
	free(names);
	return ok;
}

bool guac_fleet_jobs(struct guac_fleet *f, const char *list)
{
	FILE *in = fopen(list, "r");
	char buf[1024], host[256], state[64], *why;
	unsigned int lineno = 0, i;
	bool ok = true;

	if (!in) {
		guac_err("cannot open the jobs' states '%s': %s", list, strerror(errno));
		return false;
	}
	while (ok && fgets(buf, sizeof(buf), in)) {
		char *p = buf + strspn(buf, " \t");
		int end = 0;

		lineno++;
		buf[strcspn(buf, "\n")] = '\0';
		if (*p == '#' || !*p)
			continue;
		if (sscanf(p, "%255s %63s%n", host, state, &end) != 2) {
			guac_err("%s:%u: expected \"HOST STATE [WHY...]\", got '%s'", list, lineno, p);
			ok = false;
			break;
		}
		why = p + end + strspn(p + end, " \t");
		for (i = 0; i < f->n; i++) {
			struct guac_fleet_disk *d = &f->disk[i];

			if (!strcmp(d->state, "OK") || !(!strcmp(d->host, host) ||
							 fleet_short_eq(d->host, host)))
				continue;
			snprintf(d->job, sizeof(d->job), "its job: %s%s%s", state, *why ? " " : "",
				 why);
		}
	}
	if (ok && ferror(in)) {
		guac_err("cannot read the jobs' states '%s'", list);
		ok = false;
	}
	fclose(in);
	return ok;
}

static int fleet_row_cmp(const void *pa, const void *pb)
{
	const struct guac_fleet_disk *a = pa, *b = pb;
	int c = strcmp(a->host, b->host);

	if (!c)
		c = strcmp(a->target, b->target);
	if (!c)
		c = a->shard_index < b->shard_index ? -1 : a->shard_index > b->shard_index;
	if (!c)
		c = strcmp(a->source, b->source);
	return c;
}

/*
 * The target a row names, as one string: a disk by its serial and WWN when
 * it has either, else (a file too) by its path. Rows of one target have one
 * key, so the relations below (same identity, target, fill) hold only
 * between rows of one key: fleet_group() sorts the rows by it once.
 */
static char *fleet_target_key(const struct guac_fleet_disk *d)
{
	char *key;

	if (!d->is_file && (d->serial[0] || d->wwid[0])) {
		if (asprintf(&key, "i\x1f%s\x1f%s", d->serial, d->wwid) < 0)
			return NULL;
	} else if (asprintf(&key, "%c\x1f%s", d->is_file ? 'f' : 'p', d->target) < 0) {
		return NULL;
	}
	return key;
}

struct fleet_keyed {
	char *key;
	unsigned int row;
};

/* Each row @j of row @i's target (@i too), in row order; @k the position. */
#define fleet_for_target(f, i, k, j) \
	for ((k) = (f)->group_lo[i]; (k) < (f)->group_hi[i] && ((j) = (f)->by_target[k], 1); (k)++)

static int fleet_keyed_cmp(const void *pa, const void *pb)
{
	const struct fleet_keyed *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c ? c : a->row < b->row ? -1 : a->row > b->row;
}

/* The representative of row @i's group, in the union-find @up. */
static unsigned int fleet_root(unsigned int *up, unsigned int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * Joins in @up the rows of one key: the target's (fleet_target_key), or,
 * @by_medium, the medium's their identities name (a file under two names,
 * a device under two host labels), for the rows whose identity names one.
 */
static bool fleet_join(struct guac_fleet *f, unsigned int *up, bool by_medium)
{
	struct fleet_keyed *k = calloc(f->n + 1, sizeof(*k));
	unsigned int i, m = 0;
	bool ok = k != NULL;

	for (i = 0; ok && i < f->n; i++) {
		const char *medium = f->disk[i].medium;

		if (by_medium && !medium)
			continue;
		k[m] = (struct fleet_keyed){ by_medium ? strndup(medium, strcspn(medium, "\n")) :
					     fleet_target_key(&f->disk[i]), i };
		ok = k[m++].key != NULL;
	}
	if (ok) {
		qsort(k, m, sizeof(*k), fleet_keyed_cmp);
		for (i = 1; i < m; i++)
			if (!strcmp(k[i - 1].key, k[i].key))
				up[fleet_root(up, k[i].row)] = fleet_root(up, k[i - 1].row);
	}
	for (i = 0; k && i < m; i++)
		free(k[i].key);
	free(k);
	return ok;
}

static int fleet_pair_cmp(const void *pa, const void *pb)
{
	const unsigned int *a = pa, *b = pb;

	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1];
}

/*
 * (Re)make by_target and the groups, after rows were added, removed or
 * moved: rows of one target key, or of one medium, and so on, are a group.
 */
static bool fleet_group(struct guac_fleet *f)
{
	unsigned int *up = malloc((f->n + 1) * sizeof(*up));
	unsigned int *g = malloc(2 * (f->n + 1) * sizeof(*g));
	unsigned int i, j, start;
	bool ok = up && g;

	free(f->by_target);
	free(f->group_lo);
	free(f->group_hi);
	f->by_target = malloc((f->n + 1) * sizeof(*f->by_target));
	f->group_lo = malloc((f->n + 1) * sizeof(*f->group_lo));
	f->group_hi = malloc((f->n + 1) * sizeof(*f->group_hi));
	ok = ok && f->by_target && f->group_lo && f->group_hi;
	for (i = 0; ok && i < f->n; i++)
		up[i] = i;
	ok = ok && fleet_join(f, up, false) && fleet_join(f, up, true);
	if (ok) {
		for (i = 0; i < f->n; i++) {
			g[2 * i] = fleet_root(up, i);
			g[2 * i + 1] = i;
		}
		qsort(g, f->n, 2 * sizeof(*g), fleet_pair_cmp);
		for (start = i = 0; i < f->n; i++) {
			f->by_target[i] = g[2 * i + 1];
			if (i + 1 < f->n && g[2 * i] == g[2 * i + 2])
				continue;
			for (j = start; j <= i; j++) {
				f->group_lo[g[2 * j + 1]] = start;
				f->group_hi[g[2 * j + 1]] = i + 1;
			}
			start = i + 1;
		}
	}
	free(up);
	free(g);
	if (!ok)
		guac_err("out of memory");
	return ok;
}

/*
 * Two manifests of one disk: the same host (as --expect matches hosts:
 * fleet_host_eq) and target identity, shard and place.
 */
static bool fleet_same_identity(const struct guac_fleet *f, const struct guac_fleet_disk *a,
				const struct guac_fleet_disk *b)
{
	/* As guac manifest merge names a target: a file by its path, a disk by its ids. */
	bool by_id = !a->is_file && (a->serial[0] || a->wwid[0]);

	return a->is_file == b->is_file &&
	       a->shard_index == b->shard_index && a->shard_count == b->shard_count &&
	       a->device_offset == b->device_offset &&
	       (by_id ? !strcmp(a->serial, b->serial) && !strcmp(a->wwid, b->wwid) :
			!strcmp(a->target, b->target)) &&
	       fleet_host_eq(f, a->host, b->host);
}

/* A row that describes a fill: not a manifest that did not load, nor a missing disk. */
static bool fleet_same_disk_state(const struct guac_fleet_disk *d)
{
	return strcmp(d->state, "INVALID") && strcmp(d->state, "MISSING");
}

/* Two rows of one disk, each from a manifest of the run reported. */
static bool fleet_same_disk(const struct guac_fleet *f, const struct guac_fleet_disk *a,
			    const struct guac_fleet_disk *b)
{
	return fleet_same_disk_state(a) && fleet_same_disk_state(b) &&
	       fleet_same_identity(f, a, b);
}

/*
 * The identities rows @a and @b recorded name one medium (issue 35 item 7:
 * one file written under its path and under a symbolic link, a disk under
 * the host labels n1 and node01, a named disk moved to another host), as
 * guac_ident_diff() compares a target with a record.
 */
static bool fleet_same_medium(const struct guac_fleet_disk *a, const struct guac_fleet_disk *b)
{
	char why[512];
	size_t n;

	if (!a->medium || !b->medium)
		return false;
	n = strcspn(a->medium, "\n");
	return !strncmp(a->medium, b->medium, n + 1) &&
	       guac_ident_diff(a->medium + n + 1, b->medium + n + 1, why, sizeof(why));
}

/*
 * Rows @a and @b describe one target (the same host, as --expect matches
 * hosts, and target path or serial and WWN; or identities that name one
 * medium), wherever on it their fills lie.
 */
static bool fleet_same_target(const struct guac_fleet *f, const struct guac_fleet_disk *a,
			      const struct guac_fleet_disk *b)
{
	bool by_id = !a->is_file && (a->serial[0] || a->wwid[0]);

	return (a->is_file == b->is_file &&
		(by_id ? !strcmp(a->serial, b->serial) && !strcmp(a->wwid, b->wwid) :
			 !strcmp(a->target, b->target)) &&
		fleet_host_eq(f, a->host, b->host)) || fleet_same_medium(a, b);
}

/* The first device byte that rows @a and @b both filled; false if none. */
static bool fleet_overlap(const struct guac_fleet_disk *a, const struct guac_fleet_disk *b,
			  uint64_t *at)
{
	bool found = false;
	unsigned int i, j;

	*at = 0;
	for (i = 0; i < a->nparts; i++) {
		const struct guac_fleet_part *p = &a->part[i];

		for (j = 0; j < b->nparts; j++) {
			const struct guac_fleet_part *q = &b->part[j];
			uint64_t lo = p->device_offset > q->device_offset ? p->device_offset :
					q->device_offset;

			if (p->device_offset + p->length <= q->device_offset ||
			    q->device_offset + q->length <= p->device_offset || (found && lo >= *at))
				continue;
			*at = lo;
			found = true;
		}
	}
	return found;
}

/*
 * Two fills of one target whose places overlap (F3: a disk filled whole and
 * checked, half of it filled again later): the later fill holds the bytes
 * they share, so the earlier one's record speaks for bytes the target no
 * longer holds. The earlier is SUPERSEDED, never OK, whatever its own
 * state; two that started in the same second cannot be ordered, and both
 * are. Two manifests of one fill at one place are DUPLICATE instead.
 */
static bool fleet_mark_superseded(struct guac_fleet_disk *a, const struct guac_fleet_disk *b,
				  uint64_t at)
{
	int order = strcmp(a->started, b->started);

	if (order > 0)
		return false;
	if (order)
		snprintf(a->reason, sizeof(a->reason), "'%.500s', a fill started later (%.31s, this "
			 "one %.31s), wrote over this one from device byte %" PRIu64 " on: this record "
			 "no longer speaks for the target (its own state %.15s)", b->source, b->started,
			 a->started, at, a->state);
	else
		snprintf(a->reason, sizeof(a->reason), "'%.500s' and this fill overlap from device "
			 "byte %" PRIu64 " on and started in the same second (%.31s): which of them "
			 "the target holds cannot be told (its own state %.15s)", b->source, at,
			 a->started, a->state);
	a->state = "SUPERSEDED";
	a->hint = GUAC_FLEET_HINT_NONE;
	return true;
}

/* Rows @a and @b put the same stream bytes at the same device bytes. */
static bool fleet_same_stream(const struct guac_fleet_disk *a, const struct guac_fleet_disk *b)
{
	return a->origin == b->origin &&
	       a->stream_offset - a->device_offset == b->stream_offset - b->device_offset;
}

/*
 * Whether row @b's fill may void row @a's: both of this run (DUPLICATE
 * instead when they are of one place and shard); or, @other_runs (issue 35
 * item 7), @b of another run (--run) that put other bytes there: a later
 * fill of any run voids this run's record, as a fill of this run would.
 */
static bool fleet_may_supersede(const struct guac_fleet *f, const struct guac_fleet_disk *a,
				const struct guac_fleet_disk *b, bool other_runs)
{
	if (!fleet_same_disk_state(a) || a == b || !fleet_same_target(f, a, b))
		return false;
	/*
	 * A clean check this host re-read the target of, unchanged since it
	 * began, shows the fill there now, whatever another run wrote before
	 * (a week 1 fill in the same second as week 2's: no order to go by).
	 */
	if (other_runs)
		return !a->other_run && b->other_run && !fleet_same_stream(a, b) &&
		       !(a->seen_here && !strcmp(a->state, "OK"));
	return fleet_same_disk_state(b) && !fleet_same_identity(f, a, b);
}

/*
 * A fill another manifest of the target keeps only in its history (that
 * manifest was written again since) is a fill of the target all the same:
 * where it overlaps row @a's fill and did not finish before @a started (or
 * its finish is unknown), it may have written over @a's bytes, and @a's
 * record no longer speaks for them. A history entry of @a's own fill (the
 * same stream at the same place) is no other fill.
 */
static bool fleet_history_supersedes(struct guac_fleet_disk *a, const struct guac_fleet_disk *b)
{
	const struct guac_manifest_history *h;
	struct guac_fleet_part whole;
	struct guac_fleet_disk hist = { 0 };
	unsigned int i;
	uint64_t at;

	for (i = 0; i < b->nhistory; i++) {
		h = &b->history[i];
		hist.origin = h->origin;
		hist.stream_offset = h->stream_offset;
		hist.device_offset = h->device_offset;
		whole = (struct guac_fleet_part){ .device_offset = h->device_offset,
						  .length = h->length };
		hist.part = &whole;
		hist.nparts = 1;
		if ((fleet_same_stream(a, &hist) && a->device_offset == h->device_offset) ||
		    (h->finished[0] && strcmp(h->finished, a->started) < 0) ||
		    !fleet_overlap(a, &hist, &at))
			continue;
		snprintf(a->reason, sizeof(a->reason), "'%.360s' records in its history a fill "
			 "(origin %" PRIu64 ", finished %.31s) that overlaps this one from device "
			 "byte %" PRIu64 " on and did not end before this one started (%.31s): this "
			 "record no longer speaks for the target (its own state %.15s)", b->source,
			 h->origin, h->finished[0] ? h->finished : "unknown", at, a->started,
			 a->state);
		a->state = "SUPERSEDED";
		a->hint = GUAC_FLEET_HINT_NONE;
		return true;
	}
	return false;
}

/* Marks each row a later overlapping fill voids (fleet_may_supersede), or a fill in a history. */
static void fleet_supersede(struct guac_fleet *f, bool other_runs)
{
	unsigned int i, j, g;
	uint64_t at;

	for (i = 0; i < f->n; i++) {
		struct guac_fleet_disk *a = &f->disk[i];

		fleet_for_target(f, i, g, j) {
			struct guac_fleet_disk *b = &f->disk[j];

			if (fleet_may_supersede(f, a, b, other_runs) && fleet_overlap(a, b, &at) &&
			    fleet_mark_superseded(a, b, at))
				break;
			if (!other_runs && j != i && fleet_same_disk_state(a) &&
			    fleet_same_disk_state(b) && fleet_same_target(f, a, b) &&
			    fleet_history_supersedes(a, b))
				break;
		}
	}
}

/*
 * --run: a disk with a manifest of this run needs no row for the manifests
 * of other runs that describe it too (an older name, a copy), and a disk
 * with none needs one MISSING row, not one per old manifest. Drops them.
 */
static bool fleet_drop_other_runs(struct guac_fleet *f)
{
	unsigned int i, j, k, n = 0;
	bool *drop = calloc(f->n ? f->n : 1, sizeof(*drop));

	if (!drop || !fleet_group(f)) {
		free(drop);
		guac_err("out of memory");
		return false;
	}
	fleet_supersede(f, true);	/* before the rows that could void this run's go */
	for (i = 0; i < f->n; i++)
		fleet_for_target(f, i, k, j) {
			if (!f->disk[i].other_run || drop[i])
				break;
			drop[i] = j != i && strcmp(f->disk[j].state, "INVALID") &&
				  (f->disk[j].other_run ? j < i : strcmp(f->disk[j].state, "MISSING")) &&
				  fleet_same_identity(f, &f->disk[i], &f->disk[j]);
		}
	for (i = 0; i < f->n; i++) {
		if (drop[i]) {
			fleet_row_free(&f->disk[i]);
			continue;
		}
		if (n != i)
			f->disk[n] = f->disk[i];
		n++;
	}
	f->n = n;
	free(drop);
	return true;
}

/*
 * Rows @a and @b are shards of one sharded fill of one target: a target only
 * one machine holds (a local file), under one running kernel (issue 35, F7:
 * two machines' files at one path are two targets, whatever their names).
 */
static void fleet_fill_key(const struct guac_fleet_disk *d, struct guac_fill_key *k)
{
	*k = (struct guac_fill_key){
		.origin = d->origin, .stream_offset = d->stream_offset,
		.device_offset = d->device_offset, .length = d->fill_length,
		.shard_index = d->shard_index, .shard_count = d->shard_count,
		.is_file = d->is_file, .target_path = d->target, .serial = d->serial,
		.wwid = d->wwid, .identity = "",
	};
	snprintf(k->machine, sizeof(k->machine), "%s", d->machine);
}

/*
 * The report's rule (manifest.h) is the one of every fill: place, target
 * type, shard count, name and machine. It asks no more: the rows are
 * counted, not merged, and a part of another layout is still the fill's.
 */
static bool fleet_same_fill(const struct guac_fleet_disk *a, const struct guac_fleet_disk *b)
{
	struct guac_fill_key ka, kb;

	fleet_fill_key(a, &ka);
	fleet_fill_key(b, &kb);
	return guac_fill_same(&ka, &kb, 0, NULL);
}

static bool fleet_is_part(const struct guac_fleet_disk *d)
{
	return d->shard_count > 1 && strcmp(d->state, "INVALID") && strcmp(d->state, "MISSING");
}

/*
 * A sharded fill some of whose parts are given: each shard no manifest
 * describes is a MISSING row (a part lost, or a task that never ran), as a
 * disk of an expected list is. The shards may come from several hosts.
 */
static bool fleet_missing_shards(struct guac_fleet *f)
{
	unsigned int i, j, k, g, n = f->n;
	unsigned char *seen;

	if (!fleet_group(f))
		return false;
	for (i = 0; i < n; i++) {
		bool first = fleet_is_part(&f->disk[i]);

		fleet_for_target(f, i, g, j) {
			if (j >= i || !first)
				break;
			first = !(fleet_is_part(&f->disk[j]) && fleet_same_fill(&f->disk[j], &f->disk[i]));
		}
		if (!first)
			continue;	/* not a part, or its fill was counted at its first row */
		seen = calloc(f->disk[i].shard_count, 1);
		if (!seen) {
			guac_err("out of memory");
			return false;
		}
		fleet_for_target(f, i, g, j)
			if (j >= i && fleet_is_part(&f->disk[j]) &&
			    fleet_same_fill(&f->disk[j], &f->disk[i]))
				seen[f->disk[j].shard_index] = 1;
		for (k = 0; k < f->disk[i].shard_count; k++) {
			struct guac_fleet_disk *m, *s;

			if (seen[k])
				continue;
			m = fleet_new(f);
			if (!m) {
				free(seen);
				return false;
			}
			s = &f->disk[i];	/* fleet_new may have moved the rows */
			if (!fleet_set(&m->target, s->target)) {
				free(seen);
				return false;
			}
			snprintf(m->serial, sizeof(m->serial), "%s", s->serial);
			snprintf(m->wwid, sizeof(m->wwid), "%s", s->wwid);
			m->shard_index = k;
			m->shard_count = s->shard_count;
			m->state = "MISSING";
			snprintf(m->reason, sizeof(m->reason), "shard %u/%u of this fill (origin %"
				 PRIu64 ", %" PRIu64 " bytes at device byte %" PRIu64 "): no manifest "
				 "given describes it, though '%.600s' is of the same fill", k,
				 s->shard_count, s->origin, s->fill_length, s->device_offset, s->source);
		}
		free(seen);
	}
	return true;
}

static int fleet_span_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/*
 * How many bytes of row @i's target its fill has written: its parts, and
 * those of the other shards of a sharded fill, each counted once. *@spans
 * is the caller's buffer (two numbers a part), grown here. UINT64_MAX when
 * out of memory.
 */
static uint64_t fleet_covered(const struct guac_fleet *f, unsigned int i, uint64_t **spans,
			      size_t *cap)
{
	const struct guac_fleet_disk *d = &f->disk[i];
	uint64_t covered = 0, end = 0;
	size_t n = 0, k;
	unsigned int j, p, g;

	fleet_for_target(f, i, g, j) {
		const struct guac_fleet_disk *e = &f->disk[j];

		if (j != i && !(fleet_is_part(d) && fleet_is_part(e) && fleet_same_fill(d, e)))
			continue;
		for (p = 0; p < e->nparts; p++) {
			if (2 * (n + 1) > *cap) {
				size_t c = *cap ? 2 * *cap : 64;
				uint64_t *s = realloc(*spans, c * sizeof(*s));

				if (!s)
					return UINT64_MAX;
				*spans = s;
				*cap = c;
			}
			(*spans)[2 * n] = e->part[p].device_offset;
			(*spans)[2 * n + 1] = e->part[p].device_offset + e->part[p].done;
			n++;
		}
	}
	if (n)
		qsort(*spans, n, 2 * sizeof(**spans), fleet_span_cmp);
	for (k = 0; k < n; k++) {
		uint64_t a = (*spans)[2 * k], b = (*spans)[2 * k + 1];

		if (b > d->size)
			b = d->size;
		if (a < end)
			a = end;
		if (b > a) {
			covered += b - a;
			end = b;
		}
	}
	return covered;
}

/* --whole: each OK row whose fill leaves some of its target unwritten is PARTIAL. */
static bool fleet_whole(struct guac_fleet *f)
{
	uint64_t *spans = NULL, covered;
	size_t cap = 0;
	unsigned int i;
	char a[32], b[32];

	for (i = 0; i < f->n; i++) {
		struct guac_fleet_disk *d = &f->disk[i];

		if (strcmp(d->state, "OK"))
			continue;
		covered = fleet_covered(f, i, &spans, &cap);
		if (covered == UINT64_MAX) {
			free(spans);
			guac_err("out of memory");
			return false;
		}
		if (covered >= d->size)
			continue;
		d->state = "PARTIAL";
		d->hint = GUAC_FLEET_HINT_WHOLE;
		snprintf(d->reason, sizeof(d->reason), "the fill%s cover%s %s of the target's %s "
			 "(%.3g%%)", d->shard_count > 1 ?
			 "'s shards given" : "", d->shard_count > 1 ? "" : "s",
			 guac_fmt_bytes(a, sizeof(a), (double)covered),
			 guac_fmt_bytes(b, sizeof(b), (double)d->size),
			 100.0 * (double)covered / (double)d->size);
	}
	free(spans);
	return true;
}

bool guac_fleet_judge(struct guac_fleet *f, unsigned int *notok)
{
	unsigned int i, j, g, bad = 0;

	if (!fleet_index_hosts(f) || !fleet_drop_other_runs(f) || !fleet_missing_shards(f))
		return false;
	if (f->n)	/* no disk, no array: qsort(NULL, 0, ...) is undefined */
		qsort(f->disk, f->n, sizeof(f->disk[0]), fleet_row_cmp);
	if (!fleet_group(f))
		return false;
	fleet_supersede(f, false);
	if (f->whole && !fleet_whole(f))
		return false;
	/*
	 * One disk described twice: which manifest is the truth is not for the
	 * report to guess (a copy, an older fill kept elsewhere): both are named.
	 */
	for (i = 0; i < f->n; i++) {
		fleet_for_target(f, i, g, j) {
			char own[64];

			if (j >= i)
				break;
			if (!fleet_same_disk(f, &f->disk[i], &f->disk[j]))
				continue;
			snprintf(own, sizeof(own), "%s", f->disk[i].state);
			f->disk[i].duplicate_of = j + 1;
			snprintf(f->disk[i].reason, sizeof(f->disk[i].reason), "the same disk as "
				 "'%.600s' (its own state %s): one manifest per disk is expected",
				 f->disk[j].source, own);
			if (strcmp(f->disk[j].state, "DUPLICATE"))
				snprintf(f->disk[j].reason, sizeof(f->disk[j].reason), "the same disk "
					 "as '%.600s' (its own state %s): one manifest per disk is "
					 "expected", f->disk[i].source, f->disk[j].state);
			f->disk[j].state = "DUPLICATE";
			f->disk[i].state = "DUPLICATE";
			f->disk[j].hint = f->disk[i].hint = GUAC_FLEET_HINT_NONE;
			break;
		}
	}
	for (i = 0; i < f->n; i++)
		bad += strcmp(f->disk[i].state, "OK") != 0;
	*notok = bad;
	return true;
}

void guac_fleet_free(struct guac_fleet *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		fleet_row_free(&f->disk[i]);
	free(f->disk);
	free(f->line);
	fleet_free_hosts(f);
	free(f->by_target);
	free(f->group_lo);
	free(f->group_hi);
	memset(f, 0, sizeof(*f));
}
