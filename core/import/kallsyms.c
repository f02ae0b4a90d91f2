// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms section of a trace.dat, parsed only when a caller needs
 * resolving: see kallsyms.h.  What is modelled is libtraceevent 1.7's
 * tep_parse_kallsyms(), tep_register_function(), func_map_init() and
 * __find_func() (src/event-parse.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "core/alloc.h"
#include "core/import/kallsyms.h"

/* libtraceevent's struct func_map, less the module name nobody reads */
struct ksym {
	unsigned long long addr;
	const char *name;
};

struct vt_ksyms {
	char **text;			/* captured, in the order given */
	struct tep_handle **tep;	/* the tep each was meant for */
	size_t ntext, cap;
	struct ksym *map;		/* sorted, then a {0, NULL} sentinel */
	size_t n;
	bool parsed, failed;
};

static __thread struct vt_ksyms *capturing;

typedef int (*parse_fn)(struct tep_handle *, const char *);

/* libtraceevent's tep_parse_kallsyms(): the next definition after ours */
static parse_fn real_parse(void)
{
	static parse_fn fn;

	if (!fn) {
		void *p = dlsym(RTLD_NEXT, "tep_parse_kallsyms");

		memcpy(&fn, &p, sizeof(fn));
	}
	return fn;
}

static int keep(struct vt_ksyms *ks, struct tep_handle *tep, const char *text)
{
	char *copy;

	if (ks->ntext == ks->cap) {
		size_t ncap = vt_alloc_nr(ks->cap, ks->ntext + 1);

		/* the two arrays in step (core/alloc.h) */
		if (VT_REALLOC_ARRAY(ks->text, ncap) ||
		    VT_REALLOC_ARRAY(ks->tep, ncap))
			return -ENOMEM;
		ks->cap = ncap;
	}
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	ks->text[ks->ntext] = copy;
	ks->tep[ks->ntext++] = tep;
	return 0;
}

/*
 * Called by libtracecmd's read_proc_kallsyms() (through the PLT, so the
 * executable's definition wins): inside a capture the text is kept for
 * the resolver, else (or if it cannot be kept) libtraceevent parses it.
 */
int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	struct vt_ksyms *ks = capturing;
	parse_fn fn;

	if (ks && kallsyms && !keep(ks, tep, kallsyms))
		return 0;
	fn = real_parse();
	return fn ? fn(tep, kallsyms) : -1;
}

struct vt_ksyms *vt_ksyms_new(void)
{
	return calloc(1, sizeof(struct vt_ksyms));
}

void vt_ksyms_free(struct vt_ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->ntext; i++)
		free(ks->text[i]);
	free(ks->text);
	free(ks->tep);
	free(ks->map);
	free(ks);
}

void vt_ksyms_capture_begin(struct vt_ksyms *ks)
{
	capturing = ks;
}

void vt_ksyms_capture_end(void)
{
	capturing = NULL;
}

size_t vt_ksyms_texts(const struct vt_ksyms *ks)
{
	return ks ? ks->ntext : 0;
}

bool vt_ksyms_parsed(const struct vt_ksyms *ks)
{
	return ks && ks->parsed;
}

bool vt_ksyms_failed(const struct vt_ksyms *ks)
{
	return ks && ks->failed;
}

const char *vt_ksyms_text(const struct vt_ksyms *ks, size_t i)
{
	return ks && i < ks->ntext ? ks->text[i] : NULL;
}

/* ---- the map ------------------------------------------------------- */

/* isspace() of the C locale: what sscanf's %s and ' ' stop at */
static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The common line, "ADDR T NAME" with ADDR 1 to 16 hex digits and single
 * spaces, read as sscanf(line, "%16llx %c %n%*s%n...") reads it: the
 * address, the type and where the name starts and ends.  False for any
 * other shape (a 0x prefix, a sign, more spaces, ...): then sscanf
 * itself reads the line.
 */
static bool fast_line(const char *l, unsigned long long *addr, char *ch,
		      int *fs, int *fe)
{
	unsigned long long a = 0;
	int i = 0, v, j;

	while (i < 16 && (v = hexval(l[i])) >= 0) {
		a = a << 4 | (unsigned int)v;
		i++;
	}
	if (!i || l[i] != ' ' || !l[i + 1] || is_space(l[i + 1]) ||
	    l[i + 2] != ' ' || !l[i + 3] || is_space(l[i + 3]))
		return false;
	j = i + 3 + (int)strcspn(l + i + 3, " \t\n\v\f\r");
	*addr = a;
	*ch = l[i + 1];
	*fs = i + 3;
	*fe = j;
	return true;
}

static bool push(struct vt_ksyms *ks, size_t *cap, unsigned long long addr,
		 const char *name)
{
	if (VT_ALLOC_GROW(ks->map, ks->n + 2, *cap))
		return false;
	ks->map[ks->n].addr = addr;
	ks->map[ks->n++].name = name;
	return true;
}

/*
 * tep_parse_kallsyms() over @s (modified in place: names are
 * NUL-terminated where they end): every line strtok_r(s, "\n") yields,
 * until the first that does not parse; '$' names (arm mapping symbols)
 * and absolute ('A', 'a') symbols are left out.
 */
static bool parse_text(struct vt_ksyms *ks, size_t *cap, char *s)
{
	char *p = s;

	while (*p) {
		char *line, *nl, *next;
		unsigned long long addr = 0;
		char ch = 0;
		int fs = 0, fe = 0;

		if (*p == '\n') {
			p++;
			continue;
		}
		line = p;
		nl = strchr(p, '\n');
		if (nl) {
			*nl = '\0';
			next = nl + 1;
		} else {
			next = line + strlen(line);
		}
		if (!fast_line(line, &addr, &ch, &fs, &fe)) {
			int ms = 0, me = 0, n;

			errno = 0;
			n = sscanf(line, "%16llx %c %n%*s%n%*1[\t][%n%*s%n",
				   &addr, &ch, &fs, &fe, &ms, &me);
			if (errno || n != 2 || !fe)
				return true;	/* libtraceevent stops here */
		}
		if (line[fs] != '$' && ch != 'A' && ch != 'a') {
			line[fe] = '\0';
			if (!push(ks, cap, addr, line + fs))
				return false;
		}
		p = next;
	}
	return true;
}

/*
 * tep_register_function() pushes on a list, func_map_init() copies it
 * (so the last registered first) and qsort()s it by address; glibc's
 * qsort() is a stable merge sort, so equal addresses stay last registered
 * first: by address, then by line, the later first.  The same order, from
 * the lines in file order (nearly sorted: the kernel's symbols ascend,
 * the modules' follow): a stable merge of the ascending runs, then each
 * group of equal addresses reversed.
 */
static bool sort_map(struct vt_ksyms *ks)
{
	struct ksym *a = ks->map, *tmp = NULL, *src = a, *dst;
	size_t n = ks->n, nruns = 0, i, j, *run = NULL;

	for (i = 1; i < n && a[i - 1].addr <= a[i].addr; i++)
		;
	if (i < n) {
		tmp = malloc(n * sizeof(*tmp));
		run = malloc((n + 1) * sizeof(*run));
		if (!tmp || !run) {
			free(tmp);
			free(run);
			return false;
		}
		for (i = 0; i < n; i++)
			if (!i || a[i - 1].addr > a[i].addr)
				run[nruns++] = i;
		run[nruns] = n;
		dst = tmp;
		while (nruns > 1) {
			size_t k, m = 0;

			for (k = 0; k < nruns; k += 2) {
				size_t l = run[k], mid = run[k + 1];
				/* an odd last run is copied alone */
				size_t r = mid, e = k + 2 <= nruns ? run[k + 2] : mid;
				size_t o = l;

				while (l < mid && r < e)
					dst[o++] = src[r].addr < src[l].addr ?
						   src[r++] : src[l++];
				while (l < mid)
					dst[o++] = src[l++];
				while (r < e)
					dst[o++] = src[r++];
				run[m++] = run[k];
			}
			run[m] = n;
			nruns = m;
			src = dst;
			dst = dst == a ? tmp : a;
		}
		if (src != a)
			memcpy(a, src, n * sizeof(*a));
		free(tmp);
		free(run);
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && a[j].addr == a[i].addr; j++)
			;
		for (size_t l = i, r = j - 1; l < r; l++, r--) {
			struct ksym t = a[l];

			a[l] = a[r];
			a[r] = t;
		}
	}
	return true;
}

static bool build(struct vt_ksyms *ks)
{
	size_t cap = 0;

	ks->parsed = true;
	for (size_t i = 0; i < ks->ntext; i++)
		if (!parse_text(ks, &cap, ks->text[i]))
			goto oom;
	if (!ks->map && !(ks->map = malloc(sizeof(*ks->map))))
		goto oom;
	if (!sort_map(ks))
		goto oom;
	/* func_map_init()'s sentinel, which func_bcmp() reads */
	ks->map[ks->n].addr = 0;
	ks->map[ks->n].name = NULL;
	return true;
oom:
	ks->failed = true;
	ks->n = 0;
	return false;
}

/* libtraceevent's func_bcmp(): @b's range reaches to the next entry */
static int func_bcmp(const void *a, const void *b)
{
	const struct ksym *fa = a, *fb = b;

	if (fa->addr == fb->addr ||
	    (fa->addr > fb->addr && fa->addr < (fb + 1)->addr))
		return 0;
	return fa->addr < fb->addr ? -1 : 1;
}

const char *vt_ksyms_find(struct vt_ksyms *ks, uint64_t addr)
{
	struct ksym key = { .addr = addr }, *hit;

	if (!ks->parsed && !build(ks))
		return NULL;
	if (ks->failed || !ks->n)
		return NULL;
	hit = bsearch(&key, ks->map, ks->n, sizeof(*ks->map), func_bcmp);
	return hit ? hit->name : NULL;
}

static char *ksyms_tep_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	(void)modp;
	return (char *)vt_ksyms_find(priv, *addrp);
}

/* Hand every captured text to libtraceevent's parser for @tep. */
static void parse_for_real(struct vt_ksyms *ks, struct tep_handle *tep)
{
	parse_fn fn = real_parse();

	for (size_t i = 0; fn && i < ks->ntext; i++)
		fn(tep, ks->text[i]);
	for (size_t i = 0; i < ks->ntext; i++)
		free(ks->text[i]);
	ks->ntext = 0;
}

int vt_ksyms_attach(struct vt_ksyms *ks, struct tep_handle *tep)
{
	if (!ks->ntext)
		return 0;	/* no kallsyms, or libtraceevent parsed it */
	for (size_t i = 0; i < ks->ntext; i++)
		if (ks->tep[i] != tep) {
			parse_for_real(ks, tep);
			return 0;
		}
	if (tep_set_function_resolver(tep, ksyms_tep_resolve, ks)) {
		parse_for_real(ks, tep);
		return -ENOMEM;
	}
	return 0;
}

struct vt_ksyms *vt_ksyms_from_text(const char *text)
{
	struct vt_ksyms *ks = vt_ksyms_new();

	if (ks && keep(ks, NULL, text)) {
		vt_ksyms_free(ks);
		return NULL;
	}
	return ks;
}
