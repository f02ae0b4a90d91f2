/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kallsyms section of a trace.dat, resolved only when a caller needs
 * it (docs/performance.md, "Import").
 *
 * libtracecmd parses the section inside tracecmd_open_fd() with
 * libtraceevent's tep_parse_kallsyms(), an sscanf() and two strdup()s a
 * symbol, and has no flag to skip it (libtracecmd 1.3 to 1.5; trace-cmd
 * lib/trace-cmd/trace-input.c, read_proc_kallsyms()).  While vmaptool
 * opens a recording (vt_ksyms_capture_begin() .. _end()), its own
 * tep_parse_kallsyms() keeps the text instead; vt_ksyms_attach() then
 * hands the tep a function resolver (tep_set_function_resolver(),
 * libtraceevent's hook for tools that resolve functions themselves), which
 * builds the address map at its first lookup.  A recording whose records
 * need no function name (no function-tracer event, no kprobe under an
 * unknown name) never parses its kallsyms.
 *
 * The map is the one tep_parse_kallsyms() builds, entry for entry and in
 * the same order, and a lookup is libtraceevent's bsearch() with its
 * comparator: tep_find_function() answers exactly as before
 * (tests/unit/test-import-kallsyms.c checks it against libtraceevent).
 * Outside a capture, tep_parse_kallsyms() is libtraceevent's.
 */
#ifndef VT_IMPORT_KALLSYMS_H
#define VT_IMPORT_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct vt_ksyms;

/* A capture for the opening of one recording; NULL if out of memory. */
struct vt_ksyms *vt_ksyms_new(void);
void vt_ksyms_free(struct vt_ksyms *ks);

/* Keep the text every tep_parse_kallsyms() of this thread is given. */
void vt_ksyms_capture_begin(struct vt_ksyms *ks);
void vt_ksyms_capture_end(void);

/*
 * Resolve @tep's functions from what was captured: tep_set_function_resolver().
 * Text captured for another tep (none is, from tracecmd_open_fd()) goes to
 * libtraceevent's parser for @tep instead.  0, or -ENOMEM (then @tep
 * has the functions from libtraceevent's parser: slower, the same names).
 */
int vt_ksyms_attach(struct vt_ksyms *ks, struct tep_handle *tep);

/* Captured texts, and whether the map has been built (tests, benchmarks). */
size_t vt_ksyms_texts(const struct vt_ksyms *ks);
const char *vt_ksyms_text(const struct vt_ksyms *ks, size_t i);
bool vt_ksyms_parsed(const struct vt_ksyms *ks);
/* The map could not be built (out of memory): the import must fail. */
bool vt_ksyms_failed(const struct vt_ksyms *ks);

/*
 * The same map over @text (tests): what tep_find_function() on a tep
 * given tep_parse_kallsyms(@text) returns for @addr.
 */
struct vt_ksyms *vt_ksyms_from_text(const char *text);
const char *vt_ksyms_find(struct vt_ksyms *ks, uint64_t addr);

#endif
