// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac report's outputs (report_print.h): the table, the JSON and the SVG
 * picture of a judged fleet (storage/fleet.c), each row's reason worded with
 * what to do about it, in the command's words.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fleet.h"
#include "json.h"
#include "report_print.h"
#include "util.h"

/* A row's reason with its hint and its job's state (guac_fleet_disk's room for each). */
#define REPORT_REASON_MAX (768 + 320 + 4400)

/*
 * Row @d's reason as the report prints it: the row's own, what to do about it
 * (its hint, in the options' words) and its job's end state.
 */
static const char *report_reason(const struct guac_fleet_disk *d, char *buf, size_t size)
{
	static const char *const hint[] = {
		[GUAC_FLEET_HINT_NONE] = "",
		[GUAC_FLEET_HINT_RESUME_WRITE] = " (guac write --resume continues it)",
		[GUAC_FLEET_HINT_VERIFY] = " (guac verify --manifest ",
		[GUAC_FLEET_HINT_RESUME_VERIFY] = " (guac verify --resume continues it)",
		[GUAC_FLEET_HINT_PARTIAL_CHECK] = " (found by a check of part of the fill: --shard, "
						  "--skip or --length; they stand until a whole "
						  "check)",
		[GUAC_FLEET_HINT_WHOLE] = ", and --whole wants all of it",
	};
	bool verify = d->hint == GUAC_FLEET_HINT_VERIFY;

	snprintf(buf, size, "%s%s%s%s%s%s", d->reason, hint[d->hint], verify ? d->source : "",
		 verify ? ")" : "", d->job[0] ? "; " : "", d->job);
	return buf;
}

/* Every state, best first: the summary's order. */
static const char *const report_states[] = {
	"OK", "MISMATCH", "UNREADABLE", "CHANGED", "GONE", "SUPERSEDED", "FAILED", "INTERRUPTED",
	"UNFINISHED", "UNVERIFIED", "PARTIAL",
	"DUPLICATE", "INVALID", "MISSING",
};
#define REPORT_NSTATES (sizeof(report_states) / sizeof(report_states[0]))

static const char *report_id(const struct guac_fleet_disk *d)
{
	return d->wwid[0] ? d->wwid : d->serial[0] ? d->serial : "-";
}

/* "ALL_ZERO 8, STALE_ORIGIN 1", "-", or the counts alone when the classes are unknown. */
static void report_bad_text(char *buf, size_t size, const struct guac_fleet_disk *d)
{
	size_t n = 0;
	unsigned int c;

	buf[0] = '\0';
	if (!d->bad_sectors && !d->unreadable_sectors) {
		snprintf(buf, size, "-");
		return;
	}
	if (d->places) {
		for (c = 0; c < GUAC_MANIFEST_NCLASSES && n < size; c++)
			if (d->classes[c])
				n += snprintf(buf + n, size - n, "%s%s %" PRIu64, n ? ", " : "",
					      guac_manifest_class_names[c], d->classes[c]);
	} else if (d->bad_sectors && n < size) {
		n += snprintf(buf + n, size - n, "%" PRIu64 " (classes not recorded)",
			      d->bad_sectors);
	}
	if (d->unreadable_sectors && n < size)
		snprintf(buf + n, size - n, "%sUNREADABLE %" PRIu64, n ? ", " : "",
			 d->unreadable_sectors);
}

static void report_target_text(char *buf, size_t size, const struct guac_fleet_disk *d)
{
	if (d->shard_count > 1)
		snprintf(buf, size, "%s [%u/%u]", d->target, d->shard_index, d->shard_count);
	else
		snprintf(buf, size, "%s", d->target);
}

static const char *report_bytes(char *buf, size_t size, const struct guac_fleet_disk *d, uint64_t v)
{
	if (!strcmp(d->state, "INVALID") || !strcmp(d->state, "MISSING"))
		return "-";
	return guac_fmt_bytes(buf, size, (double)v);
}

/* How long ago @when (UTC, ISO 8601) was: "5m", "3h", "8d"; "-" when unknown. */
static void report_age(char *buf, size_t size, const char *when, time_t now)
{
	struct tm tm;
	time_t t;
	long s;

	memset(&tm, 0, sizeof(tm));
	if (!*when || !strptime(when, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		snprintf(buf, size, "-");
		return;
	}
	t = timegm(&tm);
	s = now > t ? (long)(now - t) : 0;
	if (s < 3600)
		snprintf(buf, size, "%ldm", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, size, "%ldh", s / 3600);
	else
		snprintf(buf, size, "%ldd", s / 86400);
}

/* Why, for each disk that is not OK; then the count per state, in this order. */
static void report_table_reasons(FILE *out, const struct guac_fleet *f)
{
	char why[GUAC_ESCAPED(REPORT_REASON_MAX)], reason[REPORT_REASON_MAX];
	char host[GUAC_ESCAPED(sizeof(f->disk[0].host))], target[GUAC_ESCAPED(4200)];
	unsigned int counts[REPORT_NSTATES];
	unsigned int i, k, nstates = 0;

	memset(counts, 0, sizeof(counts));
	for (i = 0; i < f->n; i++) {
		const struct guac_fleet_disk *d = &f->disk[i];

		for (k = 0; k < REPORT_NSTATES && strcmp(report_states[k], d->state); k++)
			;
		counts[k < REPORT_NSTATES ? k : REPORT_NSTATES - 1]++;
		if (strcmp(d->state, "OK"))
			fprintf(out, "%s %s: %s: %s\n",
				guac_escape(host, sizeof(host), d->host[0] ? d->host : "-"),
				guac_escape(target, sizeof(target), d->target), d->state,
				guac_escape(why, sizeof(why),
					    report_reason(d, reason, sizeof(reason))));
	}
	fprintf(out, "%u disk%s:", f->n, f->n == 1 ? "" : "s");
	for (k = 0; k < REPORT_NSTATES; k++)
		if (counts[k])
			fprintf(out, "%s %u %s", nstates++ ? "," : "", counts[k], report_states[k]);
	fprintf(out, "%s\n", f->n ? "" : " none");
}

/*
 * The table: a row per disk. Without --run, each manifest's run and age
 * (since it finished, or started) too, so that last week's verdict is not
 * read as this week's.
 */
void guac_report_table(FILE *out, const struct guac_fleet *f)
{
	enum { HOST, TARGET, ID, SIZE, RUN, AGE, STATE, WRITTEN, VERIFIED, BAD, NCOLS };
	static const char *const head[NCOLS] = { "HOST", "TARGET", "SERIAL/WWN", "SIZE", "RUN",
						 "AGE", "STATE", "WRITTEN", "VERIFIED",
						 "BAD SECTORS" };
	static const bool right[NCOLS] = { [SIZE] = true, [WRITTEN] = true, [VERIFIED] = true };
	static char cell[NCOLS][GUAC_ESCAPED(4200)], raw[4200];
	size_t w[NCOLS];
	unsigned int i, k, pass;
	time_t now = time(NULL);

	for (k = 0; k < NCOLS; k++)
		w[k] = strlen(head[k]);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i <= f->n; i++) {
			/* Row 0 is the heading; an empty fleet has no array at all. */
			const struct guac_fleet_disk *d = i ? &f->disk[i - 1] : NULL;

			if (!d) {
				for (k = 0; k < NCOLS; k++)
					snprintf(cell[k], sizeof(cell[k]), "%s", head[k]);
			} else {
				/* A manifest's strings, escaped: one row a line (guac_escape). */
				guac_escape(cell[HOST], sizeof(cell[HOST]), d->host[0] ? d->host : "-");
				report_target_text(raw, sizeof(raw), d);
				guac_escape(cell[TARGET], sizeof(cell[TARGET]), raw);
				guac_escape(cell[ID], sizeof(cell[ID]), report_id(d));
				report_bytes(cell[SIZE], sizeof(cell[SIZE]), d, d->size);
				guac_escape(cell[RUN], sizeof(cell[RUN]), d->run[0] ? d->run : "-");
				report_age(cell[AGE], sizeof(cell[AGE]), d->when, now);
				snprintf(cell[STATE], sizeof(cell[STATE]), "%s", d->state);
				report_bytes(cell[WRITTEN], sizeof(cell[WRITTEN]), d, d->written);
				report_bytes(cell[VERIFIED], sizeof(cell[VERIFIED]), d, d->verified);
				if (!strcmp(d->state, "INVALID") || !strcmp(d->state, "MISSING")) {
					strcpy(cell[SIZE], "-");
					strcpy(cell[WRITTEN], "-");
					strcpy(cell[VERIFIED], "-");
					strcpy(cell[BAD], "-");
				} else {
					report_bad_text(cell[BAD], sizeof(cell[BAD]), d);
				}
			}
			for (k = 0; k < NCOLS; k++) {
				if (f->run && (k == RUN || k == AGE))
					continue;	/* one run: the table is the run's */
				if (!pass) {
					if (strlen(cell[k]) > w[k])
						w[k] = strlen(cell[k]);
				} else if (k == BAD) {
					fprintf(out, "%s\n", cell[k]);
				} else {
					fprintf(out, right[k] ? "%*s  " : "%-*s  ", (int)w[k], cell[k]);
				}
			}
		}
	}
	report_table_reasons(out, f);
}

static void report_json_nullable(FILE *out, const char *s)
{
	if (*s)
		guac_json_string(out, s);
	else
		fputs("null", out);
}

void guac_report_json(FILE *out, const struct guac_fleet *f)
{
	char reason[REPORT_REASON_MAX];
	unsigned int i, k, c, notok = 0;

	fputs("{\"disks\":[", out);
	for (i = 0; i < f->n; i++) {
		const struct guac_fleet_disk *d = &f->disk[i];
		bool real = strcmp(d->state, "INVALID") && strcmp(d->state, "MISSING");

		notok += strcmp(d->state, "OK") != 0;
		fprintf(out, "%s\n{\"host\":", i ? "," : "");
		report_json_nullable(out, d->host);
		fputs(",\"target\":", out);
		guac_json_string(out, d->target);
		fputs(",\"serial\":", out);
		report_json_nullable(out, d->serial);
		fputs(",\"wwid\":", out);
		report_json_nullable(out, d->wwid);
		fputs(",\"manifest\":", out);
		report_json_nullable(out, d->source);
		fputs(",\"run\":", out);
		report_json_nullable(out, d->run);
		fputs(",\"when\":", out);
		report_json_nullable(out, d->when);
		fprintf(out, ",\"state\":\"%s\",\"ok\":%s,\"reason\":", d->state,
			strcmp(d->state, "OK") ? "false" : "true");
		report_json_nullable(out, strcmp(d->state, "OK") ?
				     report_reason(d, reason, REPORT_REASON_MAX) : "");
		if (!real) {
			fputs("}", out);
			continue;
		}
		fprintf(out, ",\"shard\":{\"index\":%u,\"count\":%u},\"size\":%" PRIu64
			",\"length\":%" PRIu64 ",\"written\":%" PRIu64 ",\"verified\":%" PRIu64
			",\"bad_sectors\":%" PRIu64 ",\"unreadable_sectors\":%" PRIu64,
			d->shard_index, d->shard_count, d->size, d->length, d->written,
			d->verified, d->bad_sectors, d->unreadable_sectors);
		if (!d->places) {
			fputs(",\"bad_ranges\":null,\"classes\":null,\"bad\":[]}", out);
			continue;
		}
		fprintf(out, ",\"bad_ranges\":%" PRIu64 ",\"classes\":{", d->bad_ranges);
		for (c = 0; c < GUAC_MANIFEST_NCLASSES; c++)
			fprintf(out, "%s\"%s\":%" PRIu64, c ? "," : "", guac_manifest_class_names[c],
				d->classes[c]);
		fputs("},\"bad\":[", out);
		for (k = 0; k < d->nbad; k++)
			fprintf(out, "%s{\"kind\":\"%s\",\"device_offset\":%" PRIu64 ",\"length\":%"
				PRIu64 ",\"class\":\"%s\"}", k ? "," : "",
				d->bad[k].unreadable ? "unreadable" : "mismatch",
				d->bad[k].device_offset, d->bad[k].length, d->bad[k].cls);
		fputs("]}", out);
	}
	fprintf(out, "\n],\"disks_total\":%u,\"disks_ok\":%u,\"disks_not_ok\":%u}\n", f->n,
		f->n - notok, notok);
}

/* The picture: a row per disk, its bytes along it, the bad ranges coloured by class. */
static const char *const fleet_legend[][2] = {
	{ "ALL_ZERO", "#1f77b4" }, { "ALL_ONES", "#17becf" }, { "TORN", "#ff7f0e" },
	{ "STALE_ORIGIN", "#bcbd22" }, { "MISDIRECTED", "#e377c2" }, { "WRAPPED", "#8c564b" },
	{ "PARTIAL_MATCH", "#9467bd" }, { "OTHER", "#d62728" }, { "unclassified", "#7f7f7f" },
	{ "unreadable", "#000000" },
};

static const char *report_colour(const struct guac_manifest_bad *b)
{
	unsigned int i;

	if (b->unreadable)
		return "#000000";
	for (i = 0; i < sizeof(fleet_legend) / sizeof(fleet_legend[0]); i++)
		if (!strcmp(fleet_legend[i][0], b->cls))
			return fleet_legend[i][1];
	return "#7f7f7f";
}

/* @s as XML text, its control characters escaped first (XML 1.0 has no place for them). */
static void report_xml(FILE *out, const char *s)
{
	size_t size = GUAC_ESCAPED(strlen(s));
	char *e = malloc(size);

	if (e)
		s = guac_escape(e, size, s);
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
	free(e);
}

#define SVG_LABEL 420
#define SVG_BAR 640
#define SVG_ROW 26
#define SVG_TOP 34

/*
 * A row spans the target, or the fill where it reaches further (a file whose
 * fill failed is smaller than the fill: the part never written shows).
 */
static uint64_t report_extent(const struct guac_fleet_disk *d)
{
	uint64_t end = d->size;
	unsigned int k;

	for (k = 0; k < d->nparts; k++)
		if (d->part[k].device_offset + d->part[k].length > end)
			end = d->part[k].device_offset + d->part[k].length;
	return end;
}

static double report_x(const struct guac_fleet_disk *d, uint64_t byte)
{
	uint64_t extent = report_extent(d);

	return SVG_LABEL + (extent ? (double)byte / (double)extent * SVG_BAR : 0);
}

/* Disk @d's row at @y: its label and state, the target, the fill written and checked, bad ranges. */
static void report_svg_row(FILE *out, const struct guac_fleet_disk *d, unsigned int y)
{
	char tgt[4200], label[4500], reason[REPORT_REASON_MAX];
	unsigned int k;
	bool ok = !strcmp(d->state, "OK");
	bool real = strcmp(d->state, "INVALID") && strcmp(d->state, "MISSING");

	report_target_text(tgt, sizeof(tgt), d);
	fprintf(out, "<g><title>");
	report_xml(out, d->host[0] ? d->host : "-");
	fputc(' ', out);
	report_xml(out, tgt);
	fprintf(out, ": %s%s", d->state, ok ? "" : ": ");
	if (!ok)
		report_xml(out, report_reason(d, reason, sizeof(reason)));
	fprintf(out, "</title>\n<text x=\"8\" y=\"%u\">", y + 15);
	/* The label's room: about 46 characters; a long path keeps its end. */
	snprintf(label, sizeof(label), "%s %s", d->host[0] ? d->host : "-", tgt);
	report_xml(out, strlen(label) > 46 ? "..." : "");
	report_xml(out, strlen(label) > 46 ? label + strlen(label) - 43 : label);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"%u\" text-anchor=\"end\" fill=\"%s\" "
		"font-weight=\"bold\">%s</text>\n", SVG_LABEL - 8, y + 15,
		ok ? "#2ca02c" : "#d62728", d->state);
	/* The whole target, then its fill: written, checked. */
	fprintf(out, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"18\" fill=\"%s\" "
		"stroke=\"%s\"%s/>\n", SVG_LABEL, y + 2, SVG_BAR, real ? "#eeeeee" : "#ffffff",
		ok ? "#999999" : "#d62728", real ? "" : " stroke-dasharray=\"6,4\"");
	for (k = 0; real && k < d->nparts; k++) {
		const struct guac_fleet_part *p = &d->part[k];

		if (p->done)
			fprintf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"18\" "
				"fill=\"#c6dbef\"/>\n", report_x(d, p->device_offset), y + 2,
				report_x(d, p->device_offset + p->done) -
				report_x(d, p->device_offset));
		if (p->verified)
			fprintf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"18\" "
				"fill=\"#a1d99b\"/>\n", report_x(d, p->device_offset), y + 2,
				report_x(d, p->device_offset + p->verified) -
				report_x(d, p->device_offset));
	}
	/* Bad ranges at least 2 pixels wide, so that one sector of a large disk shows. */
	for (k = 0; real && k < d->nbad; k++) {
		const struct guac_manifest_bad *b = &d->bad[k];
		double x = report_x(d, b->device_offset);
		double wd = report_x(d, b->device_offset + b->length) - x;

		fprintf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"18\" "
			"fill=\"%s\"><title>%s %s: device bytes %" PRIu64 "-%" PRIu64
			"</title></rect>\n", x, y + 2, wd < 2 ? 2 : wd, report_colour(b),
			b->unreadable ? "unreadable" : "mismatch", b->cls, b->device_offset,
			b->device_offset + b->length - 1);
	}
	if (real && d->bad_ranges > d->nbad)
		fprintf(out, "<text x=\"%d\" y=\"%u\" font-size=\"10\">+%" PRIu64
			" ranges not drawn</text>\n", SVG_LABEL + SVG_BAR - 130, y + 15,
			d->bad_ranges - d->nbad);
	fputs("</g>\n", out);
}

/* The legend at the foot of a picture @height pixels tall. */
static void report_svg_legend(FILE *out, unsigned int height)
{
	unsigned int k;

	/* The legend: ten entries of up to 13 characters (about 80 pixels) across the width. */
	for (k = 0; k < sizeof(fleet_legend) / sizeof(fleet_legend[0]); k++)
		fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%u\" y=\"%u\" font-size=\"10\">%s</text>\n", 8 + k * 105,
			height - 44, fleet_legend[k][1], 22 + k * 105, height - 35, fleet_legend[k][0]);
	fprintf(out, "<rect x=\"8\" y=\"%u\" width=\"10\" height=\"10\" fill=\"#a1d99b\"/>"
		"<text x=\"22\" y=\"%u\" font-size=\"10\">written and checked</text>\n"
		"<rect x=\"168\" y=\"%u\" width=\"10\" height=\"10\" fill=\"#c6dbef\"/>"
		"<text x=\"182\" y=\"%u\" font-size=\"10\">written, not checked</text>\n"
		"<rect x=\"328\" y=\"%u\" width=\"10\" height=\"10\" fill=\"#eeeeee\" "
		"stroke=\"#999999\"/><text x=\"342\" y=\"%u\" font-size=\"10\">not written"
		"</text>\n</svg>\n",
		height - 24, height - 15, height - 24, height - 15, height - 24, height - 15);
}

void guac_report_svg(FILE *out, const struct guac_fleet *f)
{
	unsigned int i, notok = 0;
	unsigned int height = SVG_TOP + f->n * SVG_ROW + 60;

	for (i = 0; i < f->n; i++)
		notok += strcmp(f->disk[i].state, "OK") != 0;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
		"font-family=\"monospace\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text x=\"8\" y=\"20\" font-size=\"14\">guac report: %u disks, %u OK, %u not OK"
		"</text>\n", SVG_LABEL + SVG_BAR + 20, height, f->n, f->n - notok, notok);
	for (i = 0; i < f->n; i++)
		report_svg_row(out, &f->disk[i], SVG_TOP + i * SVG_ROW);
	report_svg_legend(out, height);
}

