/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac report's outputs of a judged fleet (storage/fleet.h): a table with
 * each not-OK disk's reason and the count per state, the JSON of --json, and
 * the SVG picture of --svg.
 */
#ifndef GUAC_REPORT_PRINT_H
#define GUAC_REPORT_PRINT_H

#include <stdio.h>
#include "fleet.h"

void guac_report_table(FILE *out, const struct guac_fleet *f);
void guac_report_json(FILE *out, const struct guac_fleet *f);
void guac_report_svg(FILE *out, const struct guac_fleet *f);

#endif /* GUAC_REPORT_PRINT_H */
