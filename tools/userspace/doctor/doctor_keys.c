// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Which keys the kernel verifies modules with (certs/system_keyring.c,
 * kernel/module/signing.c), and the shim's EFI variables.
 *
 * /proc/keys lists the keys the reader may view, one a line: serial, flags,
 * usage, expiry, permissions, uid, gid, the type cut to 9 characters, and the
 * description; an X.509 key's description is "SUBJECT: KEYID" (then ": " and
 * the subtype), a keyring's is "NAME: COUNT". It does not say which keyring
 * holds a key: that is the keyring's content, which the kernel gives only to
 * keyctl(KEYCTL_READ) (the serials linked to it; keyrings may hold keyrings,
 * as .secondary_trusted_keys holds .builtin_trusted_keys and .machine).
 * The system keyrings are root's: another user sees none of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "doctor.h"

#define DOC_KEYCTL_READ 11	/* <linux/keyctl.h>; its types.h clashes with our include/linux */
#define DOC_KEYRING_DEPTH 8	/* keyring_search() nests no deeper than 6 */
#define DOC_EFI_GLOBAL "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define DOC_SHIM_GUID "605dab50-e046-4300-abb6-3dd810dd8b23"

struct doc_key_line {
	int32_t serial;
	int is_keyring;
	int matches;		/* an asymmetric key with the key id asked */
	char name[48];		/* a keyring's name */
};

struct doc_proc_keys {
	struct doc_key_line *line;
	size_t n, cap;
};

static const struct {
	const char *name;
	int bit;
} doc_keyrings[] = {
	{ ".builtin_trusted_keys", DOC_KR_BUILTIN },
	{ ".secondary_trusted_keys", DOC_KR_SECONDARY },
	{ ".machine", DOC_KR_MACHINE },
	{ ".platform", DOC_KR_PLATFORM },
	{ ".blacklist", DOC_KR_BLACKLIST },
};

static FILE *doc_open(const char *root, const char *path, const char *mode)
{
	char full[4200];
	int r = snprintf(full, sizeof(full), "%s%s", root, path);

	if (r < 0 || (size_t)r >= sizeof(full))
		return NULL;
	return fopen(full, mode);
}

/* "SUBJECT: KEYID" then ':', ' ' or the end; SUBJECT may hold ": " itself. */
static int doc_desc_has_keyid(const char *desc, const char *keyid)
{
	size_t n = strlen(keyid);

	while ((desc = strstr(desc, ": "))) {
		char end = desc[2 + n];

		if (!strncasecmp(desc + 2, keyid, n) &&
		    (end == ':' || end == ' ' || end == '\n' || !end))
			return 1;
		desc++;
	}
	return 0;
}

static void doc_parse_proc_keys(FILE *f, const char *keyid, struct doc_proc_keys *pk)
{
	char line[2048], type[16];
	unsigned int serial;
	int off;

	while (fgets(line, sizeof(line), f)) {
		struct doc_key_line *l;

		if (sscanf(line, "%x %*s %*s %*s %*s %*s %*s %15s %n", &serial, type, &off) != 2)
			continue;
		if (pk->n == pk->cap) {
			size_t cap = pk->cap ? pk->cap * 2 : 64;
			struct doc_key_line *b = realloc(pk->line, cap * sizeof(*b));

			if (!b)
				return;
			pk->line = b;
			pk->cap = cap;
		}
		l = &pk->line[pk->n++];
		memset(l, 0, sizeof(*l));
		l->serial = (int32_t)serial;
		l->is_keyring = !strcmp(type, "keyring");
		if (l->is_keyring)
			snprintf(l->name, sizeof(l->name), "%.*s",
				 (int)strcspn(line + off, ":\n"), line + off);
		else	/* the type is cut to 9 characters in /proc/keys */
			l->matches = !strcmp(type, "asymmetri") && doc_desc_has_keyid(line + off, keyid);
	}
}

/* The serials linked to a keyring: keyctl(KEYCTL_READ), or ROOT/keyctl/SERIAL's hex. */
static int doc_keyring_read(const char *root, int32_t serial, int32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!root[0]) {
		long size = 4096, got;

		for (;;) {
			int32_t *b = realloc(*out, (size_t)size);

			if (!b)
				return -ENOMEM;
			*out = b;
			got = syscall(SYS_keyctl, DOC_KEYCTL_READ, serial, *out, size);
			if (got < 0)
				return -errno;
			if (got <= size) {
				*n = (size_t)got / sizeof(int32_t);
				return 0;
			}
			size = got;
		}
	}
	char path[64];
	unsigned int member;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/keyctl/%08x", (unsigned int)serial);
	f = doc_open(root, path, "r");
	if (!f)
		return -errno;
	while (fscanf(f, "%x", &member) == 1) {
		if (*n == cap) {
			int32_t *b = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof(*b));

			if (!b) {
				fclose(f);
				return -ENOMEM;
			}
			*out = b;
		}
		(*out)[(*n)++] = (int32_t)member;
	}
	fclose(f);
	return 0;
}

static const struct doc_key_line *doc_line_of(const struct doc_proc_keys *pk, int32_t serial)
{
	for (size_t i = 0; i < pk->n; i++)
		if (pk->line[i].serial == serial)
			return &pk->line[i];
	return NULL;
}

/* Whether the keyring SERIAL holds a matching key, directly or in a keyring it holds. */
static int doc_keyring_holds(const char *root, const struct doc_proc_keys *pk, int32_t serial,
			     int depth, int *unreadable)
{
	int32_t *member;
	size_t n, i;
	int found = 0;

	if (depth > DOC_KEYRING_DEPTH)
		return 0;
	if (doc_keyring_read(root, serial, &member, &n)) {
		*unreadable = 1;
		return 0;
	}
	for (i = 0; i < n && !found; i++) {
		const struct doc_key_line *l = doc_line_of(pk, member[i]);

		if (l && l->matches)
			found = 1;
		else if (l && l->is_keyring)
			found = doc_keyring_holds(root, pk, member[i], depth + 1, unreadable);
	}
	free(member);
	return found;
}

void doc_keys_find(const char *root, const char *keyid, struct doc_keys *k)
{
	struct doc_proc_keys pk = { 0 };
	char version[512];
	FILE *f;
	size_t i, j;
	int any_match = 0;

	memset(k, 0, sizeof(*k));
	k->trusted = -1;
	f = doc_open(root, "/proc/version", "r");
	if (f) {
		/* Debian's kernels retry ENOKEY with .platform (mod_verify_sig) */
		k->platform_fallback = fgets(version, sizeof(version), f) && strstr(version, "Debian");
		fclose(f);
	}
	f = doc_open(root, "/proc/keys", "r");
	if (!f)
		return;
	k->proc_keys_read = 1;
	doc_parse_proc_keys(f, keyid && keyid[0] ? keyid : "\001", &pk);
	fclose(f);
	for (i = 0; i < pk.n; i++) {
		const struct doc_key_line *l = &pk.line[i];

		any_match |= l->matches;
		if (!l->is_keyring)
			continue;
		for (j = 0; j < sizeof(doc_keyrings) / sizeof(doc_keyrings[0]); j++) {
			int unreadable = 0;

			if (strcmp(l->name, doc_keyrings[j].name))
				continue;
			if (doc_keyrings[j].bit == DOC_KR_BUILTIN)
				k->keyrings_visible = 1;
			k->has_machine |= doc_keyrings[j].bit == DOC_KR_MACHINE;
			k->has_platform |= doc_keyrings[j].bit == DOC_KR_PLATFORM;
			if (doc_keyring_holds(root, &pk, l->serial, 0, &unreadable))
				k->where |= doc_keyrings[j].bit;
			k->members_unknown |= unreadable;
		}
	}
	if (any_match && !k->where)
		k->where = DOC_KR_OTHER;
	free(pk.line);
	if (!k->keyrings_visible || !keyid || !keyid[0])
		return;
	if (k->where & (DOC_KR_BUILTIN | DOC_KR_SECONDARY))
		k->trusted = 1;
	else if ((k->where & DOC_KR_PLATFORM) && k->platform_fallback)
		k->trusted = 1;
	else
		k->trusted = k->members_unknown ? -1 : 0;
}

const char *doc_keyring_names(int where, char *out, size_t n)
{
	size_t o = 0, j;

	out[0] = 0;
	for (j = 0; j < sizeof(doc_keyrings) / sizeof(doc_keyrings[0]); j++)
		if (where & doc_keyrings[j].bit)
			o += (size_t)snprintf(out + o, o < n ? n - o : 0, "%s%s", o ? ", " : "",
					      doc_keyrings[j].name);
	if (where & DOC_KR_OTHER)
		snprintf(out + o, o < n ? n - o : 0, "%sanother keyring", o ? ", " : "");
	return out;
}

/* An efivarfs file: 4 bytes of attributes, then the value; its length, or -1. */
static long doc_efivar(const char *root, const char *name, unsigned char *buf, size_t n)
{
	char path[256];
	FILE *f;
	size_t got;

	snprintf(path, sizeof(path), "/sys/firmware/efi/efivars/%s", name);
	f = doc_open(root, path, "rb");
	if (!f)
		return -1;
	got = fread(buf, 1, n, f);
	fclose(f);
	return (long)got;
}

static uint32_t doc_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* EFI_CERT_X509_GUID a5c059a1-94e4-4aa7-87b5-ab155c2bf072, as it is stored. */
static const unsigned char doc_x509_guid[16] = {
	0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a,
	0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72,
};

/* MokNew: EFI_SIGNATURE_LISTs (type, list size, header size, entry size; entries: owner, data). */
static void doc_mok_new(const unsigned char *v, size_t len, const struct doc_cert *cert,
			struct doc_efi *e)
{
	size_t p = 4;

	while (p + 28 <= len) {
		uint32_t list = doc_le32(v + p + 16), header = doc_le32(v + p + 20);
		uint32_t entry = doc_le32(v + p + 24);
		size_t q;

		if (list < 28 || list > len - p || entry <= 16 || header > list - 28)
			return;
		for (q = p + 28 + header; q + entry <= p + list; q += entry) {
			if (memcmp(v + p, doc_x509_guid, 16))
				break;
			e->pending_keys++;
			if (cert && cert->der && entry - 16 == (uint32_t)cert->der_len &&
			    !memcmp(v + q + 16, cert->der, (size_t)cert->der_len))
				e->pending_has_cert = 1;
		}
		p += list;
	}
}

void doc_efi_read(const char *root, const struct doc_cert *cert, struct doc_efi *e)
{
	static unsigned char var[1 << 16];
	char path[4200];
	long n;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "%s/sys/firmware/efi", root);
	e->booted_efi = access(path, F_OK) == 0;
	if (!e->booted_efi)
		return;
	e->secure_boot = doc_efivar(root, "SecureBoot-" DOC_EFI_GLOBAL, var, 5) == 5 && var[4] == 1;
	/* shim's mirrors: validation off is 1; MokListTrustedRT empty or non-zero is trust */
	e->validation_off = doc_efivar(root, "MokSBStateRT-" DOC_SHIM_GUID, var, 5) == 5 &&
			    var[4] == 1;
	n = doc_efivar(root, "MokListTrustedRT-" DOC_SHIM_GUID, var, 5);
	e->mok_trusted = n == 4 || (n == 5 && var[4]);
	n = doc_efivar(root, "MokNew-" DOC_SHIM_GUID, var, sizeof(var));
	e->pending = n >= 0;
	if (n > 0)
		doc_mok_new(var, (size_t)n, cert, e);
}
