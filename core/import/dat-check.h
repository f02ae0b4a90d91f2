/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of a trace-cmd trace.dat (versions 6 and 7) made before
 * libtracecmd reads it: libtracecmd trusts sizes, counts and offsets in
 * the file, so a truncated header double-frees in the library, a page size
 * of 0 or 1 divides by zero, and a wrong page size silently misreads the
 * data (docs/reliability.md).  The layout is trace-cmd's
 * Documentation/trace-cmd/trace-cmd.dat.v6.5.txt and .v7.5.txt
 * (trace-cmd 3.1).
 */
#ifndef VT_IMPORT_DAT_CHECK_H
#define VT_IMPORT_DAT_CHECK_H

#include <stdint.h>

#include "core/error.h"

/*
 * Check the trace.dat of @size bytes readable at descriptor @fd (pread, the
 * offset is not moved): the fixed header (version 6 or 7, endianness, long
 * size, a page size of 4, 16 or 64 KiB), then every size and offset of
 * the headers and sections up to the per-CPU data, against the file's
 * size; and the uncompressed size every compressed section declares
 * against @max (--max-input; 0: VT_MAX_INPUT_DEFAULT), because libtracecmd
 * allocates it whole.  0, VT_ERR_IMPORT with what is wrong and where in
 * @err, or VT_ERR_INPUT_LIMIT naming the section and the limit; @name is
 * the error's file (err->file, when not set already), which the message
 * does not repeat.
 */
int vt_dat_check(int fd, uint64_t size, uint64_t max, const char *name,
		 struct vt_error *err);

#endif
