// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench sources: the userspace core, one source per implementation,
 * and libcrypto's EVP ChaCha20 encrypting zeros (what `openssl speed -evp
 * chacha20` measures) as the yardstick that makes results portable ratios.
 */
#include <errno.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include "bench.h"
#include "libguac.h"

static int bench_core_open(struct bench_thread *t)
{
	return guac_impl_usable(t->src->impl, guac_cpu_features()) ? 0 : ENOTSUP;
}

static ssize_t bench_core_fill(struct bench_thread *t)
{
	guac_fill(t->src->impl, t->buf, t->pos, 0, t->size);
	t->pos += (t->size + GUAC_BLOCK_SIZE - 1) / GUAC_BLOCK_SIZE;
	return (ssize_t)t->size;
}

struct bench_chacha {
	EVP_CIPHER_CTX *ctx;
	unsigned char *zeros;
};

static int bench_chacha_open(struct bench_thread *t)
{
	static const unsigned char key[32] = { 1 }, iv[16] = { 2 };
	struct bench_chacha *c = calloc(1, sizeof(*c));

	if (!c)
		return ENOMEM;
	c->zeros = calloc(1, t->size);
	c->ctx = EVP_CIPHER_CTX_new();
	if (!c->zeros || !c->ctx ||
	    EVP_EncryptInit_ex(c->ctx, EVP_chacha20(), NULL, key, iv) != 1) {
		EVP_CIPHER_CTX_free(c->ctx);
		free(c->zeros);
		free(c);
		return EIO;
	}
	t->ctx = c;
	return 0;
}

static ssize_t bench_chacha_fill(struct bench_thread *t)
{
	struct bench_chacha *c = t->ctx;
	int n;

	if (EVP_EncryptUpdate(c->ctx, t->buf, &n, c->zeros, (int)t->size) != 1)
		return -EIO;
	return n;
}

static void bench_chacha_close(struct bench_thread *t)
{
	struct bench_chacha *c = t->ctx;

	EVP_CIPHER_CTX_free(c->ctx);
	free(c->zeros);
	free(c);
}

#define BENCH_CORE_SOURCE(i, label) \
	{ .name = label, .impl = i, .open = bench_core_open, .fill = bench_core_fill }

const struct bench_source bench_core_sources[] = {
	BENCH_CORE_SOURCE(GUAC_IMPL_GENERIC, "guac-generic"),
	BENCH_CORE_SOURCE(GUAC_IMPL_SSE2, "guac-sse2"),
	BENCH_CORE_SOURCE(GUAC_IMPL_AVX2, "guac-avx2"),
	BENCH_CORE_SOURCE(GUAC_IMPL_AVX512, "guac-avx512"),
	{ .name = BENCH_CHACHA20, .open = bench_chacha_open, .fill = bench_chacha_fill,
	  .close = bench_chacha_close },
	{ .name = NULL },
};
