// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The module file as the kernel sees it at load time: the bytes after
 * decompression, the signature trailer (kernel/module/signing.c,
 * mod_check_sig and mod_verify_sig), the PKCS#7 message and its digest
 * (crypto/asymmetric_keys/pkcs7_parser.c), the signature over the module's
 * bytes, and .modinfo's vermagic (check_modinfo).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include "doctor.h"

#define DOC_MAGIC "~Module signature appended~\n"
#define DOC_MAGIC_LEN (sizeof(DOC_MAGIC) - 1)
#define DOC_TRAILER_LEN 12	/* struct module_signature */
#define DOC_PKEY_ID_PKCS7 2
#define DOC_MAX_MODULE ((size_t)64 << 20)

static void doc_hex(const unsigned char *p, size_t n, char *out, size_t outn)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < n && o + 2 < outn; i++) {
		out[o++] = digits[p[i] >> 4];
		out[o++] = digits[p[i] & 15];
	}
	out[o] = 0;
}

static void doc_serial(const ASN1_INTEGER *serial, char *out, size_t n)
{
	BIGNUM *bn = ASN1_INTEGER_to_BN(serial, NULL);
	char *hex = bn ? BN_bn2hex(bn) : NULL;
	const char *p = hex ? hex : "";

	while (*p == '0' && p[1])
		p++;
	snprintf(out, n, "%s", p);
	OPENSSL_free(hex);
	BN_free(bn);
}

static void doc_cn(const X509_NAME *name, char *out, size_t n)
{
	out[0] = 0;
	if (name)
		X509_NAME_get_text_by_NID((X509_NAME *)name, NID_commonName, out, (int)n);
}

int doc_cert_read(const char *path, struct doc_cert *c)
{
	const ASN1_OCTET_STRING *skid;
	unsigned char *der = NULL;
	FILE *f = fopen(path, "r");

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	c->x509 = d2i_X509_fp(f, NULL);
	if (!c->x509) {
		rewind(f);
		c->x509 = PEM_read_X509(f, NULL, NULL, NULL);
	}
	fclose(f);
	if (!c->x509)
		return -EINVAL;
	doc_cn(X509_get_subject_name(c->x509), c->cn, sizeof(c->cn));
	doc_serial(X509_get0_serialNumber(c->x509), c->serial, sizeof(c->serial));
	skid = X509_get0_subject_key_id(c->x509);
	if (skid)
		doc_hex(ASN1_STRING_get0_data(skid), (size_t)ASN1_STRING_length(skid),
			c->keyid, sizeof(c->keyid));
	else	/* the kernel names a key without one by its serial number */
		for (size_t i = 0; c->serial[i] && i + 1 < sizeof(c->keyid); i++)
			c->keyid[i] = (char)tolower((unsigned char)c->serial[i]);
	c->der_len = i2d_X509(c->x509, &der);
	c->der = c->der_len > 0 ? der : NULL;
	return 0;
}

void doc_cert_free(struct doc_cert *c)
{
	X509_free(c->x509);
	OPENSSL_free(c->der);
	memset(c, 0, sizeof(*c));
}

static int doc_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Append N bytes to *BUF (grown as needed, at most DOC_MAX_MODULE). */
static int doc_append(unsigned char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n > DOC_MAX_MODULE)
		return -EFBIG;
	if (*len + n > *cap) {
		size_t want = *cap ? *cap : 1 << 20;
		unsigned char *b;

		while (want < *len + n)
			want *= 2;
		b = realloc(*buf, want);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = want;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

static int doc_read_fd(int fd, unsigned char **buf, size_t *len)
{
	unsigned char chunk[65536];
	size_t cap = 0;
	ssize_t r;
	int err;

	*buf = NULL;
	*len = 0;
	for (;;) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return 0;
		err = doc_append(buf, len, &cap, chunk, (size_t)r);
		if (err)
			return err;
	}
}

/*
 * A compressed module through its program (gzip, xz, zstd), where kmod links
 * their libraries: guac links none of them, as libzstd's headers are not on
 * the build host and the static arm64 tool's sysroot holds only libcrypto.
 */
static int doc_decompress(const char *tool, const char *path, unsigned char **out,
			  size_t *outlen)
{
	int pipefd[2], st, err;
	pid_t pid;

	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (!pid) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execlp(tool, tool, "-dcq", "--", path, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	err = doc_read_fd(pipefd[0], out, outlen);
	close(pipefd[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return err ? err : -EILSEQ;
	if (WEXITSTATUS(st) == 127)
		return -ENOEXEC;	/* the program is not installed */
	return err ? err : WEXITSTATUS(st) ? -EILSEQ : 0;
}

static int doc_load(const char *path, struct doc_module *m, unsigned char **buf, size_t *len)
{
	static const struct {
		const char *suffix, *tool, *says;
	} compressed[] = {
		{ ".gz", "gzip", "gzip -dc" },
		{ ".xz", "xz", "xz -dc" },
		{ ".zst", "zstd", "zstd -dc" },
	};
	int fd, err;

	for (size_t i = 0; i < sizeof(compressed) / sizeof(compressed[0]); i++)
		if (doc_ends_with(path, compressed[i].suffix)) {
			m->decompressed_by = compressed[i].says;
			return doc_decompress(compressed[i].tool, path, buf, len);
		}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = doc_read_fd(fd, buf, len);
	close(fd);
	return err;
}

static uint64_t doc_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* .modinfo's "vermagic=" of a 64-bit little-endian ELF (the modules of x86-64 and arm64). */
static void doc_vermagic(const unsigned char *b, size_t len, struct doc_module *m)
{
	uint64_t shoff, off, size, name_off, str_off, str_size;
	unsigned int shentsize, shnum, shstrndx, i;

	m->is_elf = len >= 64 && !memcmp(b, "\177ELF", 4);
	if (!m->is_elf || b[4] != 2 || b[5] != 1)
		return;
	shoff = doc_le(b + 40, 8);
	shentsize = (unsigned int)doc_le(b + 58, 2);
	shnum = (unsigned int)doc_le(b + 60, 2);
	shstrndx = (unsigned int)doc_le(b + 62, 2);
	if (shentsize < 64 || shstrndx >= shnum || shoff > len ||
	    (uint64_t)shnum * shentsize > len - shoff)
		return;
	str_off = doc_le(b + shoff + (uint64_t)shstrndx * shentsize + 24, 8);
	str_size = doc_le(b + shoff + (uint64_t)shstrndx * shentsize + 32, 8);
	if (str_off > len || str_size > len - str_off)
		return;
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = b + shoff + (uint64_t)i * shentsize;

		name_off = doc_le(sh, 4);
		off = doc_le(sh + 24, 8);
		size = doc_le(sh + 32, 8);
		if (name_off + sizeof(".modinfo") > str_size ||
		    memcmp(b + str_off + name_off, ".modinfo", sizeof(".modinfo")) ||
		    off > len || size > len - off)
			continue;
		/* NUL-separated "key=value" strings */
		for (uint64_t p = off; p < off + size;) {
			const char *s = (const char *)b + p;
			size_t n = strnlen(s, off + size - p);

			if (n > 9 && !strncmp(s, "vermagic=", 9)) {
				/* the kernel's vermagic ends with a space */
				while (n > 9 && s[n - 1] == ' ')
					n--;
				snprintf(m->vermagic, sizeof(m->vermagic), "%.*s", (int)(n - 9), s + 9);
			}
			p += n + 1;
		}
		return;
	}
}

/* The kernel's name of a digest (pkcs7_sig_note_digest_algo), "" for one it has no name for. */
static const char *doc_digest_name(int nid)
{
	switch (nid) {
	case NID_md4: return "md4";
	case NID_md5: return "md5";
	case NID_sha1: return "sha1";
	case NID_sha224: return "sha224";
	case NID_sha256: return "sha256";
	case NID_sha384: return "sha384";
	case NID_sha512: return "sha512";
	case NID_sm3: return "sm3";
	case NID_id_GostR3411_2012_256: return "streebog256";
	case NID_id_GostR3411_2012_512: return "streebog512";
	case NID_sha3_256: return "sha3-256";
	case NID_sha3_384: return "sha3-384";
	case NID_sha3_512: return "sha3-512";
	default: return "";
	}
}

/*
 * Whether the kernel RELEASE parses a PKCS#7 digest: 6.7 dropped MD4 and MD5
 * and added SHA-3 ("crypto: pkcs7: remove md4 md5", "support SHA3"); a
 * release doctor cannot read is taken as a current one.
 */
static int doc_digest_supported(const char *digest, const char *release)
{
	unsigned int major = 99, minor = 0;
	int since_6_7;

	if (!digest[0])
		return 0;
	sscanf(release, "%u.%u", &major, &minor);
	since_6_7 = major > 6 || (major == 6 && minor >= 7);
	if (!strcmp(digest, "md4") || !strcmp(digest, "md5"))
		return !since_6_7;
	if (!strncmp(digest, "sha3-", 5))
		return since_6_7;
	return 1;
}

static int doc_signer_is_cert(CMS_SignerInfo *si, const X509 *x)
{
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;
	const ASN1_OCTET_STRING *skid;

	if (!x || !CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial))
		return 0;
	if (keyid) {
		skid = X509_get0_subject_key_id((X509 *)x);
		return skid && !ASN1_OCTET_STRING_cmp(keyid, skid);
	}
	return issuer && serial && !X509_NAME_cmp(issuer, X509_get_issuer_name(x)) &&
	       !ASN1_INTEGER_cmp(serial, X509_get0_serialNumber(x));
}

/* The message's signer, digest, and the signature checked with the certificate. */
static void doc_pkcs7(const unsigned char *body, size_t body_len, const unsigned char *sig,
		      size_t sig_len, const char *release, const struct doc_cert *cert,
		      struct doc_module *m)
{
	const unsigned char *p = sig;
	CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, (long)sig_len);
	STACK_OF(CMS_SignerInfo) *infos = cms ? CMS_get0_SignerInfos(cms) : NULL;
	CMS_SignerInfo *si = infos && sk_CMS_SignerInfo_num(infos) == 1 ?
			     sk_CMS_SignerInfo_value(infos, 0) : NULL;
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;
	X509_ALGOR *digest = NULL;

	/* bytes after the message are no error: the kernel's BER decoder stops at its end too */
	m->sig = DOC_SIG_BAD_MESSAGE;
	if (!si ||
	    OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed ||
	    !CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial)) {
		snprintf(m->sig_problem, sizeof(m->sig_problem),
			 "the PKCS#7 message does not parse (cut or damaged)");
		goto out;
	}
	if (keyid) {
		m->signer_by_keyid = 1;
		doc_hex(ASN1_STRING_get0_data(keyid), (size_t)ASN1_STRING_length(keyid),
			m->signer_keyid, sizeof(m->signer_keyid));
	} else {
		doc_cn(issuer, m->signer_cn, sizeof(m->signer_cn));
		doc_serial(serial, m->signer_serial, sizeof(m->signer_serial));
	}
	CMS_SignerInfo_get0_algs(si, NULL, NULL, &digest, NULL);
	snprintf(m->digest, sizeof(m->digest), "%s",
		 digest ? doc_digest_name(OBJ_obj2nid(digest->algorithm)) : "");
	if (!doc_digest_supported(m->digest, release)) {
		m->sig = DOC_SIG_UNSUPPORTED;
		snprintf(m->sig_problem, sizeof(m->sig_problem),
			 "digest %s, which kernel %s does not support",
			 m->digest[0] ? m->digest : "(unknown)", release);
		goto out;
	}
	m->sig = DOC_SIG_PARSED;
	m->signer_is_cert = cert && doc_signer_is_cert(si, cert->x509);
	if (m->signer_is_cert) {
		STACK_OF(X509) *certs = sk_X509_new_null();
		/*
		 * Behind a buffer BIO: OpenSSL 3.0's CMS_verify() copies a memory
		 * BIO's content into one of its own, which it leaks when
		 * CMS_dataInit() fails (the fuzzer's find).
		 */
		BIO *mem = BIO_new_mem_buf(body, (int)body_len);
		BIO *content = mem ? BIO_push(BIO_new(BIO_f_buffer()), mem) : NULL;

		if (!content)
			BIO_free(mem);
		if (certs && content && sk_X509_push(certs, cert->x509))
			m->verifies = CMS_verify(cms, certs, NULL, content, NULL,
						 CMS_BINARY | CMS_NOINTERN |
						 CMS_NO_SIGNER_CERT_VERIFY) == 1;
		ERR_clear_error();
		BIO_free_all(content);
		sk_X509_free(certs);
	}
out:
	CMS_ContentInfo_free(cms);
}

/* struct module_signature: algo, hash, id_type, signer_len, key_id_len, pad[3], sig_len (BE). */
static void doc_signature(const unsigned char *b, size_t len, const char *release,
			  const struct doc_cert *cert, struct doc_module *m)
{
	const unsigned char *ms;
	size_t sig_len, modlen;

	m->sig = DOC_SIG_NONE;
	if (len <= DOC_MAGIC_LEN || memcmp(b + len - DOC_MAGIC_LEN, DOC_MAGIC, DOC_MAGIC_LEN))
		return;
	modlen = len - DOC_MAGIC_LEN;
	m->sig = DOC_SIG_BAD_MESSAGE;
	if (modlen <= DOC_TRAILER_LEN) {
		snprintf(m->sig_problem, sizeof(m->sig_problem), "the trailer is cut off");
		return;
	}
	ms = b + modlen - DOC_TRAILER_LEN;
	sig_len = (size_t)ms[8] << 24 | (size_t)ms[9] << 16 | (size_t)ms[10] << 8 | ms[11];
	if (sig_len >= modlen - DOC_TRAILER_LEN) {
		snprintf(m->sig_problem, sizeof(m->sig_problem),
			 "the trailer's sig_len (%zu) is more than the file holds", sig_len);
		return;
	}
	if (ms[2] != DOC_PKEY_ID_PKCS7) {
		m->sig = DOC_SIG_NOT_PKCS7;
		snprintf(m->sig_problem, sizeof(m->sig_problem),
			 "the trailer's id_type is %u, not PKCS#7 (2)", ms[2]);
		return;
	}
	if (ms[0] || ms[1] || ms[3] || ms[4] || ms[5] || ms[6] || ms[7]) {
		snprintf(m->sig_problem, sizeof(m->sig_problem),
			 "the trailer has non-zero algo/hash/signer_len/key_id_len fields");
		return;
	}
	modlen -= DOC_TRAILER_LEN + sig_len;
	doc_pkcs7(b, modlen, b + modlen, sig_len, release, cert, m);
}

int doc_module_check(const char *path, const char *release, const struct doc_cert *cert,
		     struct doc_module *m)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int err;

	memset(m, 0, sizeof(*m));
	m->verifies = -1;
	err = doc_load(path, m, &buf, &len);
	if (err) {
		snprintf(m->read_error, sizeof(m->read_error), "%s%s%s",
			 err == -EILSEQ ? "not a valid compressed file" :
			 err == -ENOEXEC ? "the program is not installed" : strerror(-err),
			 m->decompressed_by ? ", through " : "",
			 m->decompressed_by ? m->decompressed_by : "");
		free(buf);
		return -1;
	}
	doc_signature(buf, len, release, cert && cert->x509 ? cert : NULL, m);
	doc_vermagic(buf, len, m);
	free(buf);
	return 0;
}

/* The signature check's errno: mod_verify_sig() with the keyrings doctor sees. */
static int doc_sig_errno(const struct doc_module *m, const struct doc_keys *k, int *unknown)
{
	switch (m->sig) {
	case DOC_SIG_NONE:
		return -ENODATA;
	case DOC_SIG_BAD_MESSAGE:
		return -EBADMSG;
	case DOC_SIG_NOT_PKCS7:
	case DOC_SIG_UNSUPPORTED:
		return -ENOPKG;
	case DOC_SIG_PARSED:
		break;
	}
	if (!m->signer_is_cert) {
		/* another key: doctor has no certificate to check it with */
		*unknown = 1;
		return -ENOKEY;
	}
	/* the kernel finds the key by the signer's id, then checks the signature with it */
	if (k->trusted == 0)
		return -ENOKEY;
	if (k->trusted < 0) {
		/* trusted or not: the worse of the two answers, flagged unknown */
		*unknown = 1;
		return m->verifies == 1 ? -ENOKEY : -EKEYREJECTED;
	}
	return m->verifies == 1 ? 0 : -EKEYREJECTED;
}

void doc_kernel_answer(const struct doc_module *m, const struct doc_keys *cert_keys,
		       const char *release, int sig_enforce, int locked_down,
		       struct doc_answer *a)
{
	size_t rl = strlen(release);

	memset(a, 0, sizeof(*a));
	a->sig_err = doc_sig_errno(m, cert_keys, &a->unknown);
	switch (a->sig_err) {
	case 0:
		break;
	case -ENODATA:
	case -ENOPKG:
	case -ENOKEY:
		/* not fatal unless enforced; lockdown refuses them too (EPERM) */
		if (sig_enforce) {
			a->err = -EKEYREJECTED;
			return;
		}
		if (locked_down) {
			a->err = -EPERM;
			return;
		}
		a->taints = 1;
		break;
	default:
		/* "even if signatures aren't required" */
		a->err = a->sig_err;
		return;
	}
	/* check_modinfo: the vermagic's first word is the kernel release */
	if (!m->is_elf || strncmp(m->vermagic, release, rl) ||
	    (m->vermagic[rl] != ' ' && m->vermagic[rl]))
		a->err = -ENOEXEC;
}
