// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's reports (verify_run.h): the text one, every finding named
 * with its bytes, sectors and class, and the JSON summary of --json; both
 * give the verdict of verify_result(), never one of their own.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "diag.h"
#include "io_options.h"
#include "libguac.h"
#include "target.h"
#include "util.h"
#include "verify.h"
#include "verify_run.h"

static double verify_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void verify_json_ranges(const struct guac_badlog *log)
{
	uint64_t i;

	for (i = 0; i < log->nranges && i < log->cap; i++)
		printf("%s{\"start\":%" PRIu64 ",\"length\":%" PRIu64 "}", i ? "," : "",
		       log->kept[i].start, log->kept[i].end - log->kept[i].start);
}

/* The local classes in report order, OTHER (left to the search) last. */
static const enum guac_diag_class verify_class_order[] = {
	GUAC_DIAG_ALL_ZERO, GUAC_DIAG_ALL_ONES, GUAC_DIAG_TORN, GUAC_DIAG_STALE_ORIGIN,
	GUAC_DIAG_PARTIAL_MATCH, GUAC_DIAG_OK,
};
static const enum guac_diag_class verify_search_order[] = {
	GUAC_DIAG_STALE_ORIGIN, GUAC_DIAG_MISDIRECTED, GUAC_DIAG_WRAPPED, GUAC_DIAG_UNKNOWN,
};
#define VERIFY_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The origins the origin search found (OTHER sectors it made STALE_ORIGIN),
 * each once, in the order of the sectors: how many, and into @origin,
 * @count and @result (one of the sectors, for its source) at most @max.
 */
static size_t verify_searched_origins(const struct verify_run *run, uint64_t *origin,
				      uint64_t *count, size_t *result, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < run->ndiag; i++) {
		if (!run->sample[i].other || run->diag[i].cls != GUAC_DIAG_STALE_ORIGIN)
			continue;
		for (j = 0; j < n && origin[j] != run->diag[i].found_origin; j++)
			;
		if (j < n) {
			count[j]++;
		} else if (n < max) {
			origin[n] = run->diag[i].found_origin;
			count[n] = 1;
			result[n++] = i;
		}
	}
	return n;
}

static uint64_t verify_other(const struct verify_run *run)
{
	return run->classes.cls[GUAC_DIAG_UNKNOWN];
}

/*
 * The past origins of the STALE_ORIGIN sectors. One: "(origin 7)"; several:
 * "(origin 7: 1000, origin 5: 200)"; a random fill's earlier pass named:
 * "(origin 7, pass 2 of 3)".
 */
static void verify_stale_text(const struct verify_run *run)
{
	const struct verify_classes *c = &run->classes;
	const char *sep = " (";
	size_t j, nstale = 0;

	for (j = 0; j < run->diag_cfg.nhistory; j++)
		nstale += c->stale[j] != 0;
	if (!nstale)
		return;
	for (j = 0; j < run->diag_cfg.nhistory; j++) {
		if (!c->stale[j])
			continue;
		printf("%sorigin %" PRIu64, sep, run->diag_history[j].origin);
		if (j < run->diag_npasses)
			printf(", pass %zu of %u", run->manifest->passes - 1 - j,
			       run->manifest->passes);
		if (nstale > 1)
			printf(": %" PRIu64, c->stale[j]);
		sep = ", ";
	}
	printf(")");
}

/*
 * "classes: 1500 ALL_ZERO, 1200 STALE_ORIGIN (origin 7), 3 TORN, 5 OTHER (all
 * 5 searched: 4 MISDIRECTED, 1 UNKNOWN)": every bad sector of this run.
 */
static void verify_classes_text(const struct verify_run *run)
{
	const struct verify_classes *c = &run->classes;
	const char *sep = "", *ssep;
	size_t i, j;

	if (!run->classify)
		return;
	printf("classes:");
	for (i = 0; i < VERIFY_NELEM(verify_class_order); i++) {
		enum guac_diag_class k = verify_class_order[i];

		if (!c->cls[k])
			continue;
		printf("%s %" PRIu64 " %s", sep, c->cls[k], guac_diag_class_name(k));
		sep = ",";
		if (k == GUAC_DIAG_STALE_ORIGIN)
			verify_stale_text(run);
	}
	if (verify_other(run)) {
		ssep = ": ";

		printf("%s %" PRIu64 " OTHER (", sep, verify_other(run));
		if (run->other_searched == verify_other(run))
			printf("all %" PRIu64 " searched", run->other_searched);
		else
			printf("the first %" PRIu64 " searched", run->other_searched);
		if (run->other_extended)
			printf(", the next %" PRIu64 " read again: the rest of the incident the "
			       "search's bound cut", run->other_extended);
		for (i = 0; i < VERIFY_NELEM(verify_search_order); i++) {
			enum guac_diag_class k = verify_search_order[i];

			if (!run->searched[k])
				continue;
			printf("%s%" PRIu64 " %s", ssep, run->searched[k], guac_diag_class_name(k));
			ssep = ", ";
			if (k == GUAC_DIAG_STALE_ORIGIN) {
				uint64_t o[8], cnt[8];
				size_t r[8], n = verify_searched_origins(run, o, cnt, r, 8);

				/* "(origin 7, not in the history; origin 9: 2, named by --origins)" */
				for (j = 0; j < n; j++) {
					printf("%sorigin %" PRIu64, j ? "; " : " (", o[j]);
					if (n > 1)
						printf(": %" PRIu64, cnt[j]);
					printf(", %s", run->diag[r[j]].origin_source ==
					       GUAC_DIAG_ORIGIN_NEAR ? "not in the history" :
					       "named by --origins");
				}
				printf("%s", n ? ")" : "");
			}
		}
		if (run->other_searched + run->other_extended < verify_other(run))
			printf("; %" PRIu64 " not searched: the search takes at most %u",
			       verify_other(run) - run->other_searched - run->other_extended,
			       VERIFY_DIAG_MAX);
		printf(")");
		sep = ",";
	}
	if (c->unclassified)
		printf("%s %" PRIu64 " unclassified (only part of the sector was checked)", sep,
		       c->unclassified);
	printf("\n");
}

static void verify_classes_json(const struct verify_run *run)
{
	const struct verify_classes *c = &run->classes;
	const char *sep = "";
	size_t i;

	printf(",\"classes\":{");
	for (i = 0; i < VERIFY_NELEM(verify_class_order); i++) {
		if (verify_class_order[i] == GUAC_DIAG_OK)
			continue;
		printf("%s\"%s\":%" PRIu64, i ? "," : "",
		       guac_diag_class_name(verify_class_order[i]), c->cls[verify_class_order[i]]);
	}
	printf(",\"OTHER\":%" PRIu64 ",\"unclassified\":%" PRIu64 "},\"stale_origins\":[",
	       verify_other(run), c->unclassified);
	for (i = 0; i < run->diag_cfg.nhistory; i++) {
		if (!c->stale[i])
			continue;
		printf("%s{\"origin\":%" PRIu64 ",\"sectors\":%" PRIu64, sep,
		       run->diag_history[i].origin, c->stale[i]);
		if (i < run->diag_npasses)
			printf(",\"pass\":%zu", run->manifest->passes - 2 - i);	/* from 0 */
		printf("}");
		sep = ",";
	}
	printf("],\"search_bound\":%u,\"other_searched\":%" PRIu64 ",\"other_extended\":%" PRIu64
	       ",\"other_not_searched\":%" PRIu64 ",\"searched_classes\":{", VERIFY_DIAG_MAX,
	       run->other_searched, run->other_extended,
	       verify_other(run) - run->other_searched - run->other_extended);
	for (i = 0; i < VERIFY_NELEM(verify_search_order); i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "",
		       guac_diag_class_name(verify_search_order[i]),
		       run->searched[verify_search_order[i]]);
	printf("},\"searched_stale_origins\":[");
	{
		uint64_t o[64], cnt[64];
		size_t r[64], n = verify_searched_origins(run, o, cnt, r, 64);

		for (i = 0; i < n; i++)
			printf("%s{\"origin\":%" PRIu64 ",\"sectors\":%" PRIu64
			       ",\"source\":\"%s\"}", i ? "," : "", o[i], cnt[i],
			       run->diag[r[i]].origin_source == GUAC_DIAG_ORIGIN_NEAR ? "near" :
			       "named");
	}
	printf("],\"origin_search\":{\"radius\":%" PRIu64 ",\"ranges\":%zu"
	       ",\"sectors\":%" PRIu64 ",\"windows\":%" PRIu64 ",\"blocks\":%" PRIu64
	       ",\"found\":%" PRIu64 ",\"exhaustive\":%s,\"seconds\":%.6f}",
	       run->diag_cfg.origin_radius, run->diag_cfg.norigin_ranges,
	       run->search.origin_sectors, run->search.origin_windows, run->search.origin_blocks,
	       run->search.origin_found, run->search.origin_exhaustive ? "true" : "false",
	       run->search.origin_seconds);
}

/*
 * --resume: where the earlier run's bad sectors are, from the manifest's
 * record (version 4), one line a range, then their classes; or why the
 * places are not known.
 */
static void verify_earlier_text(const struct verify_run *run)
{
	const struct verify_record *e = &run->earlier;
	const char *sep = "";
	unsigned int i;

	if (e->unknown) {
		printf("  their places are not in the manifest (its record was made by a guac that "
		       "kept only counts, manifest version 3): see that run's output and "
		       "--bad-list\n");
		return;
	}
	for (i = 0; i < e->n; i++) {
		const struct guac_manifest_bad *b = &e->list[i];
		uint64_t first = b->device_offset / run->sector;
		uint64_t last = (b->device_offset + b->length - 1) / run->sector;

		printf("  %s bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes, sector%s %" PRIu64,
		       b->unreadable ? "unreadable" : "mismatch", b->device_offset,
		       b->device_offset + b->length - 1, b->length, first == last ? "" : "s",
		       first);
		if (first != last)
			printf("-%" PRIu64, last);
		printf(")%s%s\n", strcmp(b->cls, "-") ? ": " : "", strcmp(b->cls, "-") ? b->cls : "");
	}
	if (e->nranges > e->n)
		printf("  ... and %" PRIu64 " more ranges (the manifest keeps the first %d; "
		       "--bad-list of that run has them all)\n", e->nranges - e->n,
		       GUAC_MANIFEST_MAX_BAD);
	if (!run->earlier_bad)
		return;
	printf("  classes:");
	for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++) {
		if (!e->classes[i])
			continue;
		printf("%s %" PRIu64 " %s", sep, e->classes[i], guac_manifest_class_names[i]);
		sep = ",";
	}
	printf("\n");
}

/* The same for --json: "resumed_bad_ranges" (null: not known), "resumed_bad", "resumed_classes". */
static void verify_earlier_json(const struct verify_run *run)
{
	const struct verify_record *e = &run->earlier;
	unsigned int i;

	if (e->unknown) {
		printf(",\"resumed_bad_ranges\":null,\"resumed_bad\":[],\"resumed_classes\":null");
		return;
	}
	printf(",\"resumed_bad_ranges\":%" PRIu64 ",\"resumed_bad\":[", e->nranges);
	for (i = 0; i < e->n; i++)
		printf("%s{\"kind\":\"%s\",\"start\":%" PRIu64 ",\"length\":%" PRIu64
		       ",\"class\":\"%s\"}", i ? "," : "",
		       e->list[i].unreadable ? "unreadable" : "mismatch", e->list[i].device_offset,
		       e->list[i].length, e->list[i].cls);
	printf("],\"resumed_classes\":{");
	for (i = 0; i < GUAC_MANIFEST_NCLASSES; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", guac_manifest_class_names[i],
		       e->classes[i]);
	printf("}");
}

/* The JSON report's opening: what was checked, where, and how. */
static void verify_json_head(const struct verify_run *run)
{
	char soff[32];

	printf("{\"source\":");
	guac_json_string(stdout, run->path);
	printf(",\"result\":\"%s\",\"io_mode\":\"%s\",\"offset\":%s,\"origin\":%" PRIu64
	       ",\"device_offset\":%" PRIu64 ",\"sector\":%u,\"sector_source\":\"%s\""
	       ",\"logical_sector\":%u,\"impl\":\"%s\",\"jobs\":%" PRIu64
	       ",\"block_size\":%" PRIu64 ",\"bytes_described\":%" PRIu64
	       ",\"bytes_compared\":%" PRIu64,
	       verify_result(run), guac_target_mode(&run->target),
	       guac_spos_str(soff, sizeof(soff), run->first_stream), run->origin,
	       run->first_dev, run->sector, run->sector_source, run->target.sector,
	       guac_impl_names[run->req.impl], run->jobs, run->bs,
	       run->planned, verify_covered(run));
	if (run->req.rate)
		printf(",\"rate_limit\":%" PRIu64, run->req.rate);
	else
		printf(",\"rate_limit\":null");
	printf(",\"shard\":");
	if (run->req.shard.count > 1) {
		printf("{\"index\":%u,\"count\":%u,\"from\":", run->req.shard.index,
		       run->req.shard.count);
		guac_json_string(stdout, run->req.shard.source);
		printf("},");
	} else {
		printf("null,");
	}
	if (run->manifest) {
		printf("\"manifest\":");
		guac_json_string(stdout, run->req.manifest_path);
		printf(",");
	}
	/* A random fill stopped in a later pass: its blocks hold two origins (verify_random). */
	if (run->random.on)
		printf("\"random_pass\":{\"pass\":%u,\"passes\":%u,\"origin\":%" PRIu64
		       ",\"origin_before\":%" PRIu64 "},", run->random.pass, run->random.passes,
		       run->random.origin_new, run->random.origin_old);
	printf("\"length\":%" PRIu64 ",", run->planned);
}

void verify_report_json(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	double cpu = verify_cpu_seconds(), secs = run->seconds;
	size_t i;

	verify_json_head(run);
	printf("\"bytes_checked\":%" PRIu64 ",\"short\":%s,\"interrupted\":%s,"
	       "\"max_errors_reached\":%s,\"incomplete_bytes\":%" PRIu64 ",\"seconds\":%.6f,"
	       "\"bytes_per_second\":%.0f,\"cpu_seconds\":%.6f,\"bytes_per_cpu_second\":%.0f,"
	       "\"bad_sectors\":%" PRIu64 ",\"bad_bytes\":%" PRIu64 ",\"bad_ranges\":%" PRIu64
	       ",\"ranges\":[",
	       run->checked, run->short_data ? "true" : "false",
	       run->interrupted ? "true" : "false", run->max_reached ? "true" : "false",
	       run->incomplete, secs, secs > 0 ? run->checked / secs : 0.0, cpu,
	       cpu > 0 ? run->checked / cpu : 0.0, log->bad_sectors + run->earlier_bad,
	       log->bad_bytes, log->nranges);
	verify_json_ranges(log);
	printf("],\"first_mismatch\":");
	if (log->have_first)
		printf("{\"byte\":%" PRIu64 ",\"expected\":%u,\"actual\":%u}", log->first_pos,
		       log->first_expected, log->first_actual);
	else
		printf("null");
	printf(",\"unreadable_sectors\":%" PRIu64 ",\"unreadable_ranges\":%" PRIu64
	       ",\"unreadable\":[", run->unreadable.bad_sectors + run->earlier_unreadable,
	       run->unreadable.nranges);
	verify_json_ranges(&run->unreadable);
	printf("]");
	if (run->req.resume)
		printf(",\"resumed_bad_sectors\":%" PRIu64 ",\"resumed_unreadable_sectors\":%" PRIu64
		       ",\"already_complete\":%s", run->earlier_bad, run->earlier_unreadable,
		       run->already_complete ? "true" : "false");
	if (run->req.resume)
		verify_earlier_json(run);
	if (run->mismatch.nranges)
		verify_classes_json(run);
	printf(",\"search_interrupted\":%s", run->search.interrupted ? "true" : "false");
	printf(",\"diagnosed_sectors\":%zu,\"diagnosis\":[", run->ndiag);
	for (i = 0; i < run->ndiag; i++) {
		printf("%s{\"byte\":%" PRIu64 ",\"lba\":%" PRIu64 ",\"class\":", i ? "," : "",
		       run->sample[i].device_offset, run->sample[i].device_offset / run->sector);
		guac_diag_json(stdout, &run->diag[i], run->sector);
		printf("}");
	}
	printf("],\"incidents\":[");
	for (i = 0; i < run->nincident; i++) {
		printf("%s", i ? "," : "");
		guac_diag_incident_json(stdout, &run->incident[i], run->diag, run->sector);
	}
	printf("],\"error\":");
	if (run->fatal)
		guac_json_string(stdout, strerror(run->fatal_errno));
	else if (run->first_errno)
		guac_json_string(stdout, strerror(run->first_errno));
	else
		printf("null");
	printf("}\n");
}

static void verify_text_ranges(const struct verify_run *run, const struct guac_badlog *log)
{
	uint64_t i;

	for (i = 0; i < log->nranges && i < log->cap; i++) {
		const struct guac_range *r = &log->kept[i];
		uint64_t first = r->start / run->sector, last = (r->end - 1) / run->sector;

		printf("  bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes, sector%s %" PRIu64,
		       r->start, r->end - 1, r->end - r->start, first == last ? "" : "s", first);
		if (first != last)
			printf("-%" PRIu64, last);
		printf(")\n");
	}
	if (log->nranges > log->cap)
		printf("  ... and %" PRIu64 " more ranges\n", log->nranges - log->cap);
}

/*
 * What of the fill the check covered, when not all of it: ", shard 1/2 of
 * the fill (from SLURM_ARRAY_TASK_ID)" or ", fill bytes 0-4095 only".
 */
static void verify_scope(const struct verify_run *run, char *buf, size_t size)
{
	buf[0] = 0;
	if (run->req.shard.count > 1)
		snprintf(buf, size, ", shard %u/%u of the %s (from %s)", run->req.shard.index,
			 run->req.shard.count, run->manifest ? "fill" : "data", run->req.shard.source);
	else if (run->manifest && run->subrange)
		snprintf(buf, size, ", fill bytes %" PRIu64 "-%" PRIu64 " only", run->skip,
			 run->end - run->manifest->device_offset - 1);
}

/* The stream position of the range's first byte, whatever this run resumed from. */
static struct guac_spos verify_range_stream(const struct verify_run *run)
{
	return run->nseg ? run->seg[0].stream :
	       guac_spos_add(guac_spos_of(run->offset), run->skip);
}

/* "  sectors 10-17 (bytes 40960-73727, 8 sectors): CLASS: ..." or "  sector 10 (byte 40960): ...". */
static void verify_incident_text(const struct verify_run *run, const struct guac_diag_incident *inc,
				 char *line, size_t size)
{
	uint64_t first = inc->device_offset / run->sector, n = inc->length / run->sector;
	char extended[80] = "";

	if (inc->extended)
		snprintf(extended, sizeof(extended), ", the last %" PRIu64 " read again past the "
			 "search's bound", inc->extended);
	guac_diag_describe_incident(inc, run->diag, run->sector, line, size);
	if (n == 1)
		printf("  sector %" PRIu64 " (byte %" PRIu64 "): %s\n", first, inc->device_offset,
		       line);
	else
		printf("  sectors %" PRIu64 "-%" PRIu64 " (bytes %" PRIu64 "-%" PRIu64 ", %" PRIu64
		       " sectors%s): %s\n", first, first + n - 1, inc->device_offset,
		       inc->device_offset + inc->length - 1, n, extended, line);
}

/* Where the sector size came from: "the device's physical sector; logical 512", "--sector". */
static const char *verify_sector_why(const struct verify_run *run, char *buf, size_t size)
{
	if (strcmp(run->sector_source, "physical"))
		snprintf(buf, size, "%s", run->sector_source);
	else if (run->target.sector != run->sector)
		snprintf(buf, size, "the device's physical sector; logical %u", run->target.sector);
	else
		snprintf(buf, size, "the device's physical sector");
	return buf;
}

/* The diagnosis lines, one per incident, and what bounded the search. */
static void verify_text_diagnosis(const struct verify_run *run)
{
	char line[512];
	size_t i;

	if (!run->ndiag)
		return;
	if (run->ndiag == run->nfirst)
		printf("DIAGNOSIS of the first %zu bad sector%s", run->ndiag,
		       run->ndiag == 1 ? "" : "s");
	else
		printf("DIAGNOSIS of %zu bad sectors: the first %zu, and %zu more of class "
		       "OTHER (the search takes the first %u OTHER ones)", run->ndiag, run->nfirst,
		       run->ndiag - run->nfirst, VERIFY_DIAG_MAX);
	printf(", by incident (a run of adjacent sectors with one class and cause):\n");
	for (i = 0; i < run->nincident; i++)
		verify_incident_text(run, &run->incident[i], line, sizeof(line));
	if (run->extend_stopped)
		printf("  the incident the search's bound cut may go on past byte %" PRIu64
		       ": reading it again stopped (time bound or Ctrl-C)\n", run->extend_end);
	if (run->search.interrupted)
		printf("  search interrupted: not exhaustive (Ctrl-C); an UNKNOWN sector may "
		       "hold data from a place not searched\n");
	if (run->search.origin_sectors && !run->search.origin_exhaustive)
		printf("  origin search stopped (time bound or Ctrl-C) after %" PRIu64
		       " blocks: an UNKNOWN sector may hold an origin not searched\n",
		       run->search.origin_blocks);
}

/* The verdict's first line: EMPTY, a resumed check already complete, or OK. */
static void verify_text_verdict(const struct verify_run *run, const char *scope)
{
	double secs = run->seconds;
	char human[32], speed[32];

	if (verify_empty(run)) {
		printf("EMPTY: '%s' holds no data to check\n", run->path);
	} else if (run->already_complete && (run->earlier_bad || run->earlier_unreadable)) {
		printf("MISMATCH: the check was already complete: it had found %" PRIu64
		       " bad and %" PRIu64 " unreadable %u-byte sectors; nothing left to resume\n",
		       run->earlier_bad, run->earlier_unreadable, run->sector);
		verify_earlier_text(run);
	} else if (run->already_complete && verify_ok(run)) {
		guac_fmt_bytes(human, sizeof(human), (double)run->planned);
		printf("OK: the recorded check of this fill was complete: all %" PRIu64 " bytes "
		       "(%s) matched%s, and the target is unchanged since (%s); nothing left to "
		       "resume\n", run->planned, human, scope,
		       run->target.kind == GUAC_TARGET_BLOCK ? "its identity, size, diskseq and "
		       "boot: a block device's writes leave no time stamp" : "its identity, inode, "
		       "size and times");
	} else if (run->already_complete) {
		printf("RESUMED: the recorded check had compared every written byte, all matching; "
		       "nothing left to resume\n");
	} else if (verify_ok(run)) {
		double cpu = verify_cpu_seconds();
		uint64_t covered = verify_covered(run);
		char soff[32], all[32];

		guac_fmt_rate(speed, sizeof(speed), secs > 0 ? run->checked / secs : 0.0);
		guac_fmt_bytes(all, sizeof(all), (double)covered);
		/* The bytes that match start where the range does, not where this run did. */
		printf("OK: %" PRIu64 " bytes (%s) match the stream at offset %s, origin %" PRIu64
		       "%s%s", covered, all, guac_spos_str(soff, sizeof(soff), verify_range_stream(run)),
		       run->random.on ? run->random.origin_new : run->origin,
		       run->random.on ? " in the blocks its pass wrote, the pass before's in the "
		       "others (below)" : "", scope);
		if (covered != run->checked)
			printf("; %" PRIu64 " of them checked by the run resumed, the rest by this "
			       "run from offset %s", covered - run->checked,
			       guac_spos_str(soff, sizeof(soff), run->first_stream));
		printf("; %.3f s, %s, %.2f GB per CPU-second\n", secs, speed,
		       cpu > 0 ? run->checked / cpu / 1e9 : 0.0);
	}
}

/* Why the check began again, or ended before the range's end. */
static void verify_text_stops(const struct verify_run *run, const char *human)
{
	if (run->restart_partial)
		printf("NOTE: --resume started from the beginning: the last check recorded was "
		       "of part of the fill (--shard, --skip or --length), which a whole check "
		       "cannot continue\n");
	else if (run->restart_why)
		printf("NOTE: --resume started from the beginning: %s\n", run->restart_why);
	if (run->interrupted)
		printf("INTERRUPTED: stopped after %" PRIu64 " bytes (%s) checked; the findings "
		       "so far follow%s\n", run->checked, human,
		       run->manifest ? " (progress saved in the manifest: --resume continues)" : "");
	if (run->max_reached)
		printf("STOPPED: --max-errors %" PRIu64 " reached after %" PRIu64 " bytes (%s)\n",
		       run->req.max_errors, run->checked, human);
}

void verify_report_text(const struct verify_run *run)
{
	const struct guac_badlog *log = &run->mismatch;
	char human[32], scope[160], why[96], limit[48];

	guac_fmt_bytes(human, sizeof(human), (double)run->checked);
	verify_scope(run, scope, sizeof(scope));
	verify_text_verdict(run, scope);
	if (!strcmp(verify_result(run), "unchecked"))
		printf("NOT CHECKED: %" PRIu64 " of the %" PRIu64 " bytes described were not "
		       "compared: no verdict can be given for them\n",
		       run->planned - (verify_covered(run) < run->planned ? verify_covered(run) :
				       run->planned), run->planned);
	verify_text_stops(run, human);
	if (log->nranges) {
		printf("MISMATCH: %" PRIu64 " bad %u-byte sector%s in %" PRIu64 " range%s, %" PRIu64
		       " bytes differ, of %" PRIu64 " bytes (%s) checked\n",
		       log->bad_sectors, run->sector, log->bad_sectors == 1 ? "" : "s",
		       log->nranges, log->nranges == 1 ? "" : "s", log->bad_bytes, run->checked,
		       human);
		verify_text_ranges(run, log);
		printf("first difference at byte %" PRIu64 ": expected 0x%02x, got 0x%02x\n",
		       log->first_pos, log->first_expected, log->first_actual);
		verify_classes_text(run);
	}
	if (run->unreadable.nranges) {
		printf("UNREADABLE: %" PRIu64 " %u-byte sector%s in %" PRIu64 " range%s could not "
		       "be read (%s), even one sector at a time\n", run->unreadable.bad_sectors,
		       run->sector, run->unreadable.bad_sectors == 1 ? "" : "s",
		       run->unreadable.nranges, run->unreadable.nranges == 1 ? "" : "s",
		       strerror(run->first_errno));
		verify_text_ranges(run, &run->unreadable);
	}
	if (run->short_data)
		printf("SHORT: the data ends at byte %" PRIu64 ", %" PRIu64 " bytes before the "
		       "requested %" PRIu64 "\n", run->short_at, run->end - run->short_at, run->end);
	/* And whether what was written matched: the line alone left that open (U10). */
	if (run->incomplete)
		printf("INCOMPLETE: the manifest records %" PRIu64 " bytes that were never "
		       "written (status \"%s\"); only the written ones were checked, and %s\n",
		       run->incomplete, guac_fill_status_name(run->manifest->status),
		       run->mismatch.nranges || run->unreadable.nranges || run->earlier_bad ||
		       run->earlier_unreadable || run->short_data ?
		       "they do not all match (above)" : "they all match the stream");
	if (!run->already_complete && (run->earlier_bad || run->earlier_unreadable)) {
		char soff[32];

		printf("RESUMED: this run checked %" PRIu64 " bytes (%s) from byte %" PRIu64
		       " (stream offset %s)%s\n", run->checked, human, run->first_dev,
		       guac_spos_str(soff, sizeof(soff), run->first_stream),
		       run->mismatch.nranges || run->unreadable.nranges ? "" : ", all matching");
		printf("MISMATCH: RESUMED: the earlier run had found %" PRIu64 " bad and %" PRIu64
		       " unreadable %u-byte sectors before where this one started (byte %" PRIu64
		       "):\n", run->earlier_bad, run->earlier_unreadable, run->sector,
		       run->first_dev);
		verify_earlier_text(run);
	}
	verify_text_diagnosis(run);
	if (run->random.on)
		printf("INCOMPLETE: random pattern, pass %u of %u not finished: each block checked against "
		       "origin %" PRIu64 " (its step recorded done in this pass) or %" PRIu64
		       " (the pass before), or either past the last record; the fill is not "
		       "complete: guac write --resume completes it\n",
		       run->random.pass + 1, run->random.passes, run->random.origin_new,
		       run->random.origin_old);
	printf("mode: %s I/O%s, %" PRIu64 " job%s, %" PRIu64 "-byte reads, %u-byte sectors (%s)",
	       guac_target_mode(&run->target), run->target.direct ? " (O_DIRECT)" : "",
	       run->jobs, run->jobs == 1 ? "" : "s", run->bs, run->sector,
	       verify_sector_why(run, why, sizeof(why)));
	if (run->req.rate)
		printf(", rate limit %s", guac_rate_limit_str(limit, sizeof(limit), run->req.rate));
	printf("\n");
}
