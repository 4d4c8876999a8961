// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench sources: the userspace core, one source per implementation,
 * and yardsticks: libcrypto's EVP ChaCha20 encrypting zeros (what `openssl
 * speed -evp chacha20` measures), the reference that makes results portable
 * ratios; EVP AES-128-CTR encrypting zeros (`openssl speed -evp aes-128-ctr`),
 * the other fast stream cipher, hardware-assisted where the CPU has AES
 * instructions; and memcpy of the request size from a buffer of its own,
 * the cost of merely writing that many bytes: the cache and memory ceiling.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* An EVP cipher encrypting a buffer of zeros of the request size. */
struct bench_evp {
	EVP_CIPHER_CTX *ctx;
	unsigned char *zeros;
};

static int bench_evp_open(struct bench_thread *t, const EVP_CIPHER *cipher)
{
	static const unsigned char key[32] = { 1 }, iv[16] = { 2 };
	struct bench_evp *c = calloc(1, sizeof(*c));

	if (!c)
		return ENOMEM;
	c->zeros = malloc(t->size);
	c->ctx = EVP_CIPHER_CTX_new();
	if (!c->zeros || !c->ctx || EVP_EncryptInit_ex(c->ctx, cipher, NULL, key, iv) != 1) {
		EVP_CIPHER_CTX_free(c->ctx);
		free(c->zeros);
		free(c);
		return EIO;
	}
	/* Written, so that every page is a page of its own, not the shared zero page. */
	memset(c->zeros, 0, t->size);
	t->ctx = c;
	return 0;
}

static int bench_chacha_open(struct bench_thread *t)
{
	return bench_evp_open(t, EVP_chacha20());
}

static int bench_aes_ctr_open(struct bench_thread *t)
{
	return bench_evp_open(t, EVP_aes_128_ctr());
}

static ssize_t bench_evp_fill(struct bench_thread *t)
{
	struct bench_evp *c = t->ctx;
	int n;

	if (EVP_EncryptUpdate(c->ctx, t->buf, &n, c->zeros, (int)t->size) != 1)
		return -EIO;
	return n;
}

static void bench_evp_close(struct bench_thread *t)
{
	struct bench_evp *c = t->ctx;

	EVP_CIPHER_CTX_free(c->ctx);
	free(c->zeros);
	free(c);
}

/* memcpy from a source buffer written once (so backed by pages of its own). */
static int bench_memcpy_open(struct bench_thread *t)
{
	unsigned char *src = malloc(t->size);

	if (!src)
		return ENOMEM;
	memset(src, 0x5a, t->size);
	t->ctx = src;
	return 0;
}

static ssize_t bench_memcpy_fill(struct bench_thread *t)
{
	memcpy(t->buf, t->ctx, t->size);
	return (ssize_t)t->size;
}

static void bench_memcpy_close(struct bench_thread *t)
{
	free(t->ctx);
}

#define BENCH_CORE_SOURCE(i, label) \
	[i] = { .name = label, .impl = i, .open = bench_core_open, .fill = bench_core_fill }

/* The architecture's implementations first, at their own index (guac_impl_best()). */
const struct bench_source bench_core_sources[] = {
	BENCH_CORE_SOURCE(GUAC_IMPL_GENERIC, "guac-generic"),
#if defined(__x86_64__)
	BENCH_CORE_SOURCE(GUAC_IMPL_SSE2, "guac-sse2"),
	BENCH_CORE_SOURCE(GUAC_IMPL_AVX2, "guac-avx2"),
	BENCH_CORE_SOURCE(GUAC_IMPL_AVX512, "guac-avx512"),
#elif defined(__aarch64__)
	BENCH_CORE_SOURCE(GUAC_IMPL_NEON, "guac-neon"),
#endif
	[GUAC_IMPL_COUNT] = { .name = BENCH_CHACHA20, .open = bench_chacha_open, .fill = bench_evp_fill,
	  .close = bench_evp_close },
	{ .name = "aes128-ctr-evp", .open = bench_aes_ctr_open, .fill = bench_evp_fill,
	  .close = bench_evp_close },
	{ .name = "memcpy", .open = bench_memcpy_open, .fill = bench_memcpy_fill,
	  .close = bench_memcpy_close },
	{ .name = NULL },
};
