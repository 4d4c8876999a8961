// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The reference bytes: `guac gen`, run as a separate program and streamed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "vmtest.h"

#define VT_CMP_CHUNK (1u << 16)

bool vt_ref_open(struct vt_ref *ref, uint64_t origin, uint64_t offset, uint64_t len)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd),
		 "guac gen --origin %" PRIu64 " --offset %" PRIu64 " --length %" PRIu64,
		 origin, offset, len);
	ref->origin = origin;
	ref->offset = offset;
	ref->len = len;
	ref->pipe = popen(cmd, "r");
	if (!ref->pipe)
		vt_fail("cannot run '%s'", cmd);
	return ref->pipe;
}

bool vt_ref_compare(struct vt_ref *ref, const void *got, size_t len, const char *what)
{
	const uint8_t *p = got;
	uint8_t *want = guac_alloc(VT_CMP_CHUNK);
	bool ok = true;

	while (len && ok) {
		size_t n = len < VT_CMP_CHUNK ? len : VT_CMP_CHUNK;

		if (fread(want, 1, n, ref->pipe) != n) {
			vt_fail("%s: guac gen ended early at offset %" PRIu64,
				what, ref->offset);
			ok = false;
			break;
		}
		if (memcmp(want, p, n)) {
			size_t i = 0;

			while (want[i] == p[i])
				i++;
			vt_fail("%s: byte at origin %" PRIu64 " offset %" PRIu64
				" is %#04x, guac gen says %#04x",
				what, ref->origin, ref->offset + i, p[i], want[i]);
			ok = false;
		}
		ref->offset += n;
		p += n;
		len -= n;
	}
	free(want);
	return ok;
}

bool vt_ref_close(struct vt_ref *ref)
{
	/* Anything left over means the caller compared fewer bytes than it asked for. */
	bool drained = fgetc(ref->pipe) == EOF;
	int status = pclose(ref->pipe);

	if (!drained)
		vt_fail("guac gen had bytes left over at offset %" PRIu64, ref->offset);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		vt_fail("guac gen failed (status %#x)", status);
		return false;
	}
	return drained;
}

bool vt_check_bytes(const char *what, uint64_t origin, uint64_t offset,
		    const void *got, size_t len)
{
	struct vt_ref ref;
	bool ok;

	if (!vt_ref_open(&ref, origin, offset, len))
		return false;
	ok = vt_ref_compare(&ref, got, len, what);
	if (!ok) {
		/* Let guac gen finish quietly: a mismatch is already reported. */
		while (fgetc(ref.pipe) != EOF)
			;
		pclose(ref.pipe);
		return false;
	}
	return vt_ref_close(&ref);
}
