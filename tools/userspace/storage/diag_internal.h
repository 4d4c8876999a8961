/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the diagnosis's two halves share: the local classification (diag.c)
 * defines these, the misdirection search (diag_search.c) uses them to
 * regenerate a pass's bytes and to describe a sector left unexplained.
 */
#ifndef GUAC_DIAG_INTERNAL_H
#define GUAC_DIAG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "diag.h"

/* Every one of the @n bytes at @p is @v (true for n == 0). */
bool diag_all(const uint8_t *p, size_t n, uint8_t v);

/* Shannon entropy of the byte histogram of @p[0..n), 0..8 bits per byte. */
double diag_entropy(const uint8_t *p, size_t n);

/* @len stream bytes of pass @p at stream offset @soff into @buf. */
void diag_pass_fill(const struct guac_diag_config *cfg, const struct guac_diag_pass *p,
		    uint8_t *buf, uint64_t soff, size_t len);

#endif /* GUAC_DIAG_INTERNAL_H */
