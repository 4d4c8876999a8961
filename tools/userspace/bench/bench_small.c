// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac bench small: what one small request costs, in ns per call, on one
 * thread. A read of /dev/guac is a system call plus a copy; this puts it
 * beside the cheapest character-device read there is (/dev/zero: the floor
 * for any device), read() of /dev/urandom, the getrandom system call, the
 * kernel vDSO's getrandom (what glibc 2.41 and later call: no system call),
 * glibc's getrandom() as this binary links it (vDSO or system call, decided
 * at run time and said in the output) and the core in-process
 * (guac_stream_fill), at the same request sizes.
 *
 * Each trial calls the source in a tight loop for --seconds, reading the
 * clock every BENCH_SMALL_BATCH calls; the sources take turns trial by
 * trial. ns per call is wall time / calls, and per CPU (the thread's CPU
 * time, user and system, / calls): the figure a loaded machine does not
 * skew. Ratios are per CPU, against /dev/zero and the vDSO getrandom at the
 * same size.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "libguac.h"
#include "util.h"

#define BENCH_SMALL_BATCH 64		/* calls between clock reads */
#define BENCH_SMALL_MAX_SIZES 32
#define BENCH_SMALL_ZERO "/dev/zero"
#define BENCH_SMALL_VDSO "getrandom-vdso"

/* ============================ the kernel vDSO ============================ */

/* What __vdso_getrandom() reports when asked with opaque_len == ~0UL (uapi vgetrandom). */
struct bench_vgetrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

typedef ssize_t (*bench_vgetrandom_fn)(void *buf, size_t len, unsigned int flags,
				       void *state, size_t state_len);

/*
 * A function the vDSO exports, by name (through DT_HASH, as the kernel's
 * tools/testing/selftests/vDSO/parse_vdso.c does); NULL if there is none.
 */
static void *bench_vdso_sym(const char *name)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL, *d;
	const Elf64_Sym *symtab = NULL;
	const Elf64_Word *hash = NULL;
	const char *strtab = NULL;
	uintptr_t load = 0;
	bool loaded = false;
	Elf64_Word i;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !loaded) {
			load = (uintptr_t)base + ph[i].p_offset - ph[i].p_vaddr;
			loaded = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
		}
	}
	if (!loaded || !dyn)
		return NULL;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)(d->d_un.d_ptr + load);
		else if (d->d_tag == DT_SYMTAB)
			symtab = (const Elf64_Sym *)(d->d_un.d_ptr + load);
		else if (d->d_tag == DT_HASH)
			hash = (const Elf64_Word *)(d->d_un.d_ptr + load);
	}
	if (!strtab || !symtab || !hash)
		return NULL;
	for (i = 0; i < hash[1]; i++) {		/* nchain: the number of symbols */
		const Elf64_Sym *s = &symtab[i];

		if (ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_shndx != SHN_UNDEF &&
		    !strcmp(strtab + s->st_name, name))
			return (void *)(s->st_value + load);
	}
	return NULL;
}

static bench_vgetrandom_fn bench_vgetrandom(void)
{
	return (bench_vgetrandom_fn)bench_vdso_sym("__vdso_getrandom");
}

/* glibc 2.41 and later call the vDSO's getrandom when the kernel has one. */
static bool bench_libc_has_vgetrandom(void)
{
	unsigned int major = 0, minor = 0;

	if (sscanf(gnu_get_libc_version(), "%u.%u", &major, &minor) != 2)
		return false;
	return major > 2 || (major == 2 && minor >= 41);
}

/* ============================== the sources ============================== */

struct bench_small_state {
	int fd;
	int impl;
	uint64_t pos;
	bench_vgetrandom_fn vgetrandom;
	void *vstate;
	size_t vstate_len, vmap_len;
};

struct bench_small_source {
	const char *name;
	const char *mode;		/* filled in at run time for some */
	int (*open)(struct bench_small_state *s, const struct bench_small_source *src);
	ssize_t (*call)(struct bench_small_state *s, unsigned char *buf, size_t len);
	void (*close)(struct bench_small_state *s);
};

static int bench_small_dev_open(struct bench_small_state *s, const struct bench_small_source *src)
{
	s->fd = open(src->name, O_RDONLY | O_CLOEXEC);
	return s->fd < 0 ? errno : 0;
}

static void bench_small_dev_close(struct bench_small_state *s)
{
	close(s->fd);
}

static ssize_t bench_small_read(struct bench_small_state *s, unsigned char *buf, size_t len)
{
	ssize_t n = read(s->fd, buf, len);

	return n < 0 ? -errno : n;
}

static ssize_t bench_small_libc(struct bench_small_state *s, unsigned char *buf, size_t len)
{
	ssize_t n = getrandom(buf, len, 0);

	(void)s;
	return n < 0 ? -errno : n;
}

static ssize_t bench_small_syscall(struct bench_small_state *s, unsigned char *buf, size_t len)
{
	long n = syscall(SYS_getrandom, buf, len, 0);

	(void)s;
	return n < 0 ? -errno : (ssize_t)n;
}

/*
 * The vDSO getrandom as glibc 2.41+ drives it: ask for the opaque state's
 * size and mapping, map one page of state for this thread, then call.
 */
static int bench_small_vdso_open(struct bench_small_state *s, const struct bench_small_source *src)
{
	struct bench_vgetrandom_params p = { 0 };
	long page = sysconf(_SC_PAGESIZE);

	(void)src;
	s->vgetrandom = bench_vgetrandom();
	if (!s->vgetrandom)
		return ENOSYS;
	if (s->vgetrandom(NULL, 0, 0, &p, ~0UL) || !p.size_of_opaque_state ||
	    p.size_of_opaque_state > (uint32_t)page)
		return ENOSYS;
	s->vmap_len = (size_t)page;
	s->vstate = mmap(NULL, s->vmap_len, (int)p.mmap_prot, (int)p.mmap_flags, -1, 0);
	if (s->vstate == MAP_FAILED)
		return errno;
	s->vstate_len = p.size_of_opaque_state;
	return 0;
}

static ssize_t bench_small_vdso(struct bench_small_state *s, unsigned char *buf, size_t len)
{
	return s->vgetrandom(buf, len, 0, s->vstate, s->vstate_len);
}

static void bench_small_vdso_close(struct bench_small_state *s)
{
	munmap(s->vstate, s->vmap_len);
}

static int bench_small_core_open(struct bench_small_state *s, const struct bench_small_source *src)
{
	(void)src;
	return guac_impl_usable(s->impl, guac_cpu_features()) ? 0 : ENOTSUP;
}

static ssize_t bench_small_core(struct bench_small_state *s, unsigned char *buf, size_t len)
{
	guac_stream_fill(s->impl, buf, 0, s->pos, len);
	s->pos += len;
	return (ssize_t)len;
}

#define BENCH_SMALL_DEV(path) \
	{ .name = path, .mode = "read", .open = bench_small_dev_open, \
	  .call = bench_small_read, .close = bench_small_dev_close }

static struct bench_small_source bench_small_sources[] = {
	{ .name = BENCH_SMALL_VDSO, .mode = "vdso", .open = bench_small_vdso_open,
	  .call = bench_small_vdso, .close = bench_small_vdso_close },
	{ .name = "getrandom-libc", .call = bench_small_libc },	/* mode: vdso or syscall */
	{ .name = "getrandom-sys", .mode = "syscall", .call = bench_small_syscall },
	BENCH_SMALL_DEV("/dev/urandom"),
	BENCH_SMALL_DEV(BENCH_SMALL_ZERO),
	BENCH_SMALL_DEV("/dev/guac"),
	{ .name = "guac_stream_fill", .open = bench_small_core_open,	/* mode: the impl */
	  .call = bench_small_core },
};

#define BENCH_SMALL_NR (sizeof(bench_small_sources) / sizeof(bench_small_sources[0]))

/* ============================== measurement ============================== */

struct bench_small_row {
	const struct bench_small_source *src;
	size_t size;
	int err;			/* 0, or why the source was not measured */
	double ns, ns_min, ns_max;	/* wall ns per call: median, min, max */
	double cpu_ns;			/* CPU ns per call, median */
	double vs_zero, vs_vdso;	/* cpu_ns over /dev/zero's and the vDSO's; NAN if none */
};

static double bench_small_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One trial: ns per call, wall and CPU; 0 or an errno value. */
static int bench_small_trial(const struct bench_small_source *src, int impl, size_t size,
			     double seconds, unsigned char *buf, double *wall_ns, double *cpu_ns)
{
	struct bench_small_state s = { .fd = -1, .impl = impl };
	uint64_t calls = 0;
	double start, cpu, now;
	int err = src->open ? src->open(&s, src) : 0;
	unsigned int i;

	if (err)
		return err;
	start = guac_now();
	cpu = bench_small_cpu();
	do {
		for (i = 0; i < BENCH_SMALL_BATCH; i++) {
			ssize_t n = src->call(&s, buf, size);

			if (n == -EINTR)
				continue;
			if (n < 0)
				err = (int)-n;
			else if (!n)
				err = EIO;	/* an end of file where there is none */
			if (err)
				goto out;
			/* The bytes are used, as far as the compiler knows. */
			__asm__ volatile("" : : "r"(buf) : "memory");
		}
		calls += BENCH_SMALL_BATCH;
		now = guac_now();
	} while (now - start < seconds);
	*wall_ns = (now - start) * 1e9 / (double)calls;
	*cpu_ns = (bench_small_cpu() - cpu) * 1e9 / (double)calls;
out:
	if (src->close)
		src->close(&s);
	return err;
}

static int bench_small_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double bench_small_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_small_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Every source at @size, trial by trial in turn, into @rows (BENCH_SMALL_NR of them). */
static void bench_small_size(const struct bench_config *cfg, int impl, size_t size,
			     unsigned char *buf, struct bench_small_row *rows)
{
	double *wall = calloc(BENCH_SMALL_NR * cfg->trials, sizeof(*wall));
	double *cpu = calloc(BENCH_SMALL_NR * cfg->trials, sizeof(*cpu));
	unsigned int trial;
	size_t k;

	if (!wall || !cpu) {
		guac_err("out of memory");
		exit(GUAC_EXIT_ERROR);
	}
	for (k = 0; k < BENCH_SMALL_NR; k++)
		rows[k] = (struct bench_small_row){ .src = &bench_small_sources[k], .size = size,
						    .vs_zero = NAN, .vs_vdso = NAN };
	for (trial = 0; trial < cfg->trials; trial++)
		for (k = 0; k < BENCH_SMALL_NR; k++)
			if (!rows[k].err)
				rows[k].err = bench_small_trial(rows[k].src, impl, size,
								cfg->seconds, buf,
								&wall[k * cfg->trials + trial],
								&cpu[k * cfg->trials + trial]);
	for (k = 0; k < BENCH_SMALL_NR; k++) {
		if (rows[k].err)
			continue;
		rows[k].ns = bench_small_median(&wall[k * cfg->trials], cfg->trials);
		rows[k].ns_min = wall[k * cfg->trials];
		rows[k].ns_max = wall[k * cfg->trials + cfg->trials - 1];
		rows[k].cpu_ns = bench_small_median(&cpu[k * cfg->trials], cfg->trials);
	}
	for (k = 0; k < BENCH_SMALL_NR; k++) {
		size_t j;

		if (rows[k].err)
			continue;
		for (j = 0; j < BENCH_SMALL_NR; j++) {
			if (rows[j].err || j == k)
				continue;
			if (!strcmp(rows[j].src->name, BENCH_SMALL_ZERO))
				rows[k].vs_zero = rows[k].cpu_ns / rows[j].cpu_ns;
			if (!strcmp(rows[j].src->name, BENCH_SMALL_VDSO))
				rows[k].vs_vdso = rows[k].cpu_ns / rows[j].cpu_ns;
		}
	}
	free(wall);
	free(cpu);
}

/* ================================ output ================================ */

static void bench_small_cpuinfo_field(const char *line, const char *key, char *out, size_t len)
{
	const char *colon = strchr(line, ':');
	size_t klen = strlen(key);

	/* The whole key: "model" is not "model name". */
	if (!colon || strncmp(line, key, klen) || line + klen + strspn(line + klen, " \t") != colon)
		return;
	colon += 1 + strspn(colon + 1, " \t");
	snprintf(out, len, "%.*s", (int)strcspn(colon, "\n"), colon);
}

void bench_cpu_describe(char *buf, size_t len)
{
	char model[128] = "unknown CPU", family[16] = "?", num[16] = "?", stepping[16] = "?";
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '\n')
			break;		/* the first CPU is enough */
		bench_small_cpuinfo_field(line, "model name", model, sizeof(model));
		bench_small_cpuinfo_field(line, "cpu family", family, sizeof(family));
		bench_small_cpuinfo_field(line, "model", num, sizeof(num));
		bench_small_cpuinfo_field(line, "stepping", stepping, sizeof(stepping));
	}
	if (f)
		fclose(f);
	snprintf(buf, len, "%s (family %s, model %s, stepping %s), %u CPUs", model, family, num,
		 stepping, guac_nr_cpus());
}

void bench_print_header(FILE *out, const char *what)
{
	char cpu[256], date[32];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	bench_cpu_describe(cpu, sizeof(cpu));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, "# guac bench %s on %s\n# Linux %s, glibc %s, %s\n", what, cpu, u.release,
		gnu_get_libc_version(), date);
}

static void bench_small_num(double v, const char *none)
{
	if (isnan(v))
		fputs(none, stdout);
	else
		printf("%.6g", v);
}

static void bench_small_cell(double v)
{
	if (isnan(v))
		printf(" %9s", "-");
	else
		printf(" %9.*f", v >= 1000 ? 0 : v >= 100 ? 1 : 2, v);
}

static const char *bench_small_why(int err)
{
	if (err == ENOSYS)
		return "the kernel's vDSO has no getrandom";
	if (err == ENOTSUP)
		return "not supported by this CPU";
	return strerror(err);
}

/* What comes before the rows: the CSV header, the JSON's opening, the table's. */
static void bench_small_print_head(const struct bench_config *cfg, enum bench_format fmt,
				   const char *libc_mode)
{
	char cpu[256];

	if (fmt == BENCH_FORMAT_CSV) {
		printf("suite,source,mode,size,status,ns_per_call,min,max,cpu_ns_per_call,"
		       "vs_dev_zero,vs_getrandom_vdso,note\n");
	} else if (fmt == BENCH_FORMAT_JSON) {
		bench_cpu_describe(cpu, sizeof(cpu));
		printf("{\"machine\":{\"cpu\":");
		guac_json_string(stdout, cpu);
		printf(",\"glibc\":\"%s\",\"libc_getrandom\":\"%s\"},\"seconds\":%g,\"trials\":%u,"
		       "\"results\":[", gnu_get_libc_version(), libc_mode, cfg->seconds,
		       cfg->trials);
	} else {
		bench_print_header(stdout, "small");
		printf("# glibc's getrandom() here is the %s; ns per call: median [min, max] of %u "
		       "trials of %.2f s on one thread;\n# per CPU: the thread's CPU time (user + "
		       "system) per call; ratios per CPU, at the same size\n\n", libc_mode,
		       cfg->trials, cfg->seconds);
		printf("%-6s %-17s %-8s %5s %9s %9s %9s %9s %9s %9s\n", "suite", "source", "mode",
		       "size", "ns/call", "min", "max", "CPU ns", "/zero", "/vdso");
	}
}

static void bench_small_print(const struct bench_small_row *rows, size_t n,
			      const struct bench_config *cfg, enum bench_format fmt,
			      const char *libc_mode)
{
	char sz[16];
	size_t i;

	bench_small_print_head(cfg, fmt, libc_mode);
	for (i = 0; i < n; i++) {
		const struct bench_small_row *r = &rows[i];
		const char *status = !r->err ? "ok" : r->err == ENOENT || r->err == ENODEV ||
			r->err == ENXIO || r->err == ENOTSUP || r->err == ENOSYS ? "absent" : "error";

		if (fmt == BENCH_FORMAT_CSV) {
			printf("small,%s,%s,%zu,%s,", r->src->name, r->src->mode, r->size, status);
			bench_small_num(r->err ? NAN : r->ns, "");
			putchar(',');
			bench_small_num(r->err ? NAN : r->ns_min, "");
			putchar(',');
			bench_small_num(r->err ? NAN : r->ns_max, "");
			putchar(',');
			bench_small_num(r->err ? NAN : r->cpu_ns, "");
			putchar(',');
			bench_small_num(r->vs_zero, "");
			putchar(',');
			bench_small_num(r->vs_vdso, "");
			printf(",%s\n", r->err ? bench_small_why(r->err) : "");
		} else if (fmt == BENCH_FORMAT_JSON) {
			printf("%s\n{\"suite\":\"small\",\"source\":\"%s\",\"mode\":\"%s\",\"size\":%zu,"
			       "\"status\":\"%s\",\"why\":", i ? "," : "", r->src->name,
			       r->src->mode, r->size, status);
			guac_json_string(stdout, r->err ? bench_small_why(r->err) : "");
			printf(",\"unit\":\"ns/call\",\"median\":");
			bench_small_num(r->err ? NAN : r->ns, "null");
			printf(",\"min\":");
			bench_small_num(r->err ? NAN : r->ns_min, "null");
			printf(",\"max\":");
			bench_small_num(r->err ? NAN : r->ns_max, "null");
			printf(",\"cpu_ns_per_call\":");
			bench_small_num(r->err ? NAN : r->cpu_ns, "null");
			printf(",\"vs_dev_zero\":");
			bench_small_num(r->vs_zero, "null");
			printf(",\"vs_getrandom_vdso\":");
			bench_small_num(r->vs_vdso, "null");
			putchar('}');
		} else if (r->err) {
			printf("%-6s %-17s %-8s %5s %s (%s)\n", "small", r->src->name, r->src->mode,
			       bench_fmt_size(sz, sizeof(sz), r->size), status,
			       bench_small_why(r->err));
		} else {
			printf("%-6s %-17s %-8s %5s", "small", r->src->name, r->src->mode,
			       bench_fmt_size(sz, sizeof(sz), r->size));
			bench_small_cell(r->ns);
			bench_small_cell(r->ns_min);
			bench_small_cell(r->ns_max);
			bench_small_cell(r->cpu_ns);
			bench_small_cell(r->vs_zero);
			bench_small_cell(r->vs_vdso);
			putchar('\n');
		}
	}
	if (fmt == BENCH_FORMAT_JSON)
		printf("\n]}\n");
}

int bench_small_run(const struct bench_config *cfg, const size_t *sizes, size_t nsizes, int impl,
		    enum bench_format fmt)
{
	struct bench_small_row *rows = calloc(nsizes * BENCH_SMALL_NR, sizeof(*rows));
	size_t max = 0, s, k;
	unsigned char *buf;
	const char *libc_mode;

	if (!rows) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	/* Honest about glibc: vDSO only with glibc 2.41+ on a kernel that has it. */
	libc_mode = bench_libc_has_vgetrandom() && bench_vgetrandom() ? "vdso" : "syscall";
	for (k = 0; k < BENCH_SMALL_NR; k++) {
		if (!strcmp(bench_small_sources[k].name, "getrandom-libc"))
			bench_small_sources[k].mode = libc_mode;
		if (bench_small_sources[k].call == bench_small_core)
			bench_small_sources[k].mode = guac_impl_names[impl];
	}
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > max)
			max = sizes[s];
	buf = guac_alloc(max);
	for (s = 0; s < nsizes; s++)
		bench_small_size(cfg, impl, sizes[s], buf, &rows[s * BENCH_SMALL_NR]);
	bench_small_print(rows, nsizes * BENCH_SMALL_NR, cfg, fmt, libc_mode);
	free(buf);
	free(rows);
	return GUAC_EXIT_OK;
}
