// SPDX-License-Identifier: GPL-2.0
/* The line arenas of the JSON Lines reader (see below). */
#include <stdlib.h>

#include "core/input.h"
#include "core/trace/trace-reader.h"

#if defined(__SANITIZE_ADDRESS__)
#define VT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VT_ASAN 1
#endif
#endif
#ifdef VT_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

/* ---- line arenas ---------------------------------------------------- */

/*
 * json_loadb() of one JSON Lines line makes a dozen small mallocs (the
 * object, its hash buckets, one per key and string) and json_decref() frees
 * them again: with glibc that is a sixth of the parse time, plus the tree
 * walk of json_delete().  So each line is parsed into a per-reader bump
 * arena that is reset, not walked, when the next line is read.
 *
 * jansson's allocator is process-global, so the hooks installed below (once,
 * before main(), while the process is single-threaded) are plain
 * malloc()/free() except on a thread that is inside an arena window:
 * tl_arena is thread-local and set only around json_loadb() of a line and
 * around a json_decref() of such a tree.  Other threads and all other
 * jansson users (the header, one-document traces, the report writer) never
 * see the arena.  A block that does not fit (a long string) comes from
 * malloc(); a line that spilled is freed with json_decref() (arena blocks
 * are ignored by arena_free()), and the arena grows for the next line.
 */
#define ARENA_MIN (64 * 1024)
#define ARENA_MAX (4 * 1024 * 1024)
#define ARENA_ALIGN 16
#ifdef VT_ASAN
#define ARENA_REDZONE 16	/* poisoned gap between blocks */
#else
#define ARENA_REDZONE 0
#endif

static _Thread_local struct line_arena *tl_arena;

static void *arena_malloc(size_t size)
{
	struct line_arena *a = tl_arena;
	void *p;

	if (a) {
		size_t need = (size + ARENA_REDZONE + ARENA_ALIGN - 1) &
			      ~(size_t)(ARENA_ALIGN - 1);

		if (size <= a->cap && need <= a->cap - a->used) {
			p = a->buf + a->used;

			a->used += need;
			ASAN_UNPOISON_MEMORY_REGION(p, size);
			return p;
		}
		a->spilled = true;
	}
	/* a document's tree is bounded (core/input.h): refused, not failed */
	if (!vt_json_budget_charge(size))
		return NULL;
	p = malloc(size);
	if (!p)
		vt_json_alloc_failed();	/* out of memory, not bad JSON: core/input.c */
	return p;
}

static void arena_free(void *p)
{
	struct line_arena *a = tl_arena;

	if (a && (char *)p >= a->buf && (char *)p < a->buf + a->cap)
		return;
	free(p);
}

__attribute__((constructor)) static void arena_install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

struct line_arena *vt_line_arena_new(void)
{
	struct line_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->buf = malloc(ARENA_MIN);
	if (!a->buf) {
		free(a);
		return NULL;
	}
	a->cap = ARENA_MIN;
	ASAN_POISON_MEMORY_REGION(a->buf, a->cap);
	return a;
}

/* Drop @r->cur and empty the arena for the next line. */
void vt_line_arena_reset(struct vt_trace_reader *r)
{
	struct line_arena *a = r->arena;

	if (!a) {
		json_decref(r->cur);
		r->cur = NULL;
		return;
	}
	if (a->spilled) {
		struct line_arena *saved = tl_arena;

		/* free the malloc()ed blocks; arena ones are skipped */
		tl_arena = a;
		json_decref(r->cur);
		tl_arena = saved;
		if (a->cap < ARENA_MAX) {
			char *nb = malloc(a->cap * 2);

			if (nb) {
				ASAN_UNPOISON_MEMORY_REGION(a->buf, a->cap);
				free(a->buf);
				a->buf = nb;
				a->cap *= 2;
				a->used = 1;	/* poison it below */
			}
		}
		a->spilled = false;
	}
	r->cur = NULL;
	if (a->used) {
		ASAN_POISON_MEMORY_REGION(a->buf, a->cap);
		a->used = 0;
	}
}

void vt_line_arena_destroy(struct line_arena *a)
{
	if (!a)
		return;
	ASAN_UNPOISON_MEMORY_REGION(a->buf, a->cap);
	free(a->buf);
	free(a);
}

/* json_loadb() of one line into @r's arena. */
json_t *vt_line_arena_loadb(struct vt_trace_reader *r, const char *line,
			    size_t n, json_error_t *je)
{
	struct line_arena *saved = tl_arena;
	struct vt_json_budget b;
	json_t *j;

	/* what spills from the arena is bounded per line (core/input.h) */
	vt_json_budget_begin(&b, r->max_input);
	tl_arena = r->arena;
	j = json_loadb(line, n, JSON_REJECT_DUPLICATES, je);
	if (vt_json_budget_end(&b))
		r->budget_hit = true;
	else
		j = vt_json_whole(j);	/* freed into the arena it came from */
	tl_arena = saved;
	return j;
}

