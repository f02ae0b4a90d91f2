// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection for tests/cli/test-oom-inject.sh (issue 22, item 7): an
 * LD_PRELOAD library that makes the Nth allocation of the process fail,
 * and with it every one after it, as memory that has run out stays out.
 * It counts malloc(), calloc(), realloc(), posix_memalign(),
 * aligned_alloc() and pthread_create() (a thread's stack is an mmap() that
 * fails under `ulimit -v`), in every library: glibc routes its own
 * allocations (stdio buffers, strdup) through an interposed malloc, and
 * jansson, liblzma, zlib and libtracecmd call malloc().
 *
 *   VT_FAIL_AT=N      the Nth counted call fails (ENOMEM, EAGAIN), and
 *                     every later one; unset or 0: none fails
 *   VT_FAIL_COUNT=F   at exit, write the number of counted calls to F
 *   VT_FAIL_ONCE=1    only the Nth call fails: memory comes back, as it
 *                     does under `ulimit -v` when another thread frees some
 *
 * Not for sanitizer builds, which replace malloc themselves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long fail_at;	/* 0: never */
static unsigned long calls;
static int ready, once;

__attribute__((constructor)) static void failalloc_init(void)
{
	const char *s = getenv("VT_FAIL_AT");

	fail_at = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("VT_FAIL_ONCE");
	once = s && *s == '1';
	ready = 1;
}

__attribute__((destructor)) static void failalloc_fini(void)
{
	const char *path = getenv("VT_FAIL_COUNT");
	char buf[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
	if (write(fd, buf, n) != n)
		n = 0;
	close(fd);
}

/* Whether this call fails: counted only once main's environment is read. */
static int fail(void)
{
	unsigned long n;

	if (!ready)
		return 0;
	n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return fail_at && (once ? n == fail_at : n >= fail_at);
}

void *malloc(size_t size)
{
	if (fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (size && fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (fail())
		return ENOMEM;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	if (fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, size);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);

	if (fail())
		return EAGAIN;
	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	return real(t, attr, fn, arg);
}
