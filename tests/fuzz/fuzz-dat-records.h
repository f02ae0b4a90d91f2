/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the fast trace.dat fuzz target: the importer's trace.dat
 * front end and reconstruction below libtracecmd.  The whole-file target
 * (fuzz-trace-dat.h) runs at a few hundred inputs a second because every
 * input goes through libtracecmd's parse of the headers, formats, kallsyms
 * and printk sections; here that parse is done once: the tep_handle is
 * built from the formats and symbols of a real recording (dat-events.h,
 * made by make-dat-records.c from fix256_x10.trace.dat), and the input is
 * a run of ring-buffer records (dat-records.h) handed to the front end's
 * record callback as tracecmd_iterate_events() would
 * (vt_import_open_records(), vt_import_feed_record()).  Then the checks of
 * fuzz-trace-dat.h: a failure has a message, what is reconstructed reads
 * back with the same number of events.
 *
 * The trace.dat header checks (core/import/dat-check.c) and libtracecmd's
 * reading of pages stay with the whole-file target.
 * Shared by fuzz-dat-records.c and tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_DAT_RECORDS_H
#define VT_FUZZ_DAT_RECORDS_H

#include <traceevent/event-parse.h>

#include "fuzz-trace-dat.h"
#include "dat-records.h"
#include "dat-events.h"

#define VT_DAT_NEVENTS (sizeof(vt_dat_event_format) / sizeof(vt_dat_event_format[0]))

static struct tep_handle *vt_fuzz_dat_tep;
static int vt_fuzz_dat_ids[VT_DAT_MAX_EVENTS];

/* The recording's formats and symbols, parsed once. */
static struct tep_handle *vt_fuzz_dat_tep_get(void)
{
	struct tep_handle *tep = vt_fuzz_dat_tep;

	if (tep)
		return tep;
	tep = tep_alloc();
	VT_FUZZ_CHECK(tep);
	/* the recording: arm64, little endian, 8-byte longs, 4K pages */
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	VT_FUZZ_CHECK(VT_DAT_NEVENTS <= VT_DAT_MAX_EVENTS);
	for (size_t i = 0; i < VT_DAT_NEVENTS; i++) {
		const char *f = vt_dat_event_format[i];
		struct tep_event *e = NULL;

		VT_FUZZ_CHECK(tep_parse_format(tep, &e, f, strlen(f),
					       vt_dat_event_system[i]) == 0 && e);
		vt_fuzz_dat_ids[i] = e->id;
	}
	for (size_t i = 0; i < sizeof(vt_dat_funcs) / sizeof(vt_dat_funcs[0]); i++)
		VT_FUZZ_CHECK(!tep_register_function(tep, (char *)vt_dat_funcs[i].name,
						     vt_dat_funcs[i].addr, NULL));
	vt_fuzz_dat_tep = tep;
	return tep;
}

static int vt_fuzz_dat_records(const uint8_t *data, size_t size)
{
	struct tep_handle *tep = vt_fuzz_dat_tep_get();
	unsigned long long ts = 1000000000ull;
	unsigned char buf[256 + 16];
	struct vt_import_opts o;
	struct vt_import *im;
	struct vt_error err;
	size_t pos = 0;
	int ret;

	vt_fuzz_import_opts(&o);
	vt_error_init(&err);
	ret = vt_import_open_records("fuzz-records", tep, &o, &im, &err);
	VT_FUZZ_CHECK(!ret && im);
	while (pos + VT_DAT_REC_HEAD <= size) {
		unsigned int sel = data[pos];
		unsigned int dt = data[pos + 1] | (unsigned int)data[pos + 2] << 8;
		size_t len = data[pos + 3];
		struct tep_record r;

		pos += VT_DAT_REC_HEAD;
		if (len > size - pos)
			len = size - pos;
		/*
		 * libtracecmd's records lie inside a ring-buffer page: the
		 * bytes past the record's size are there (zeroes here), and
		 * the importer must not take them for fields
		 */
		memset(buf, 0, sizeof(buf));
		memcpy(buf, data + pos, len);
		pos += len;
		if ((sel & VT_DAT_SEL_EVENT) < VT_DAT_NEVENTS) {
			int id = vt_fuzz_dat_ids[sel & VT_DAT_SEL_EVENT];

			buf[0] = (unsigned char)id;
			buf[1] = (unsigned char)(id >> 8);
		}
		ts += (unsigned long long)dt * 1000;
		memset(&r, 0, sizeof(r));
		r.ts = ts;
		r.size = (int)len;
		r.record_size = (int)len;
		r.data = buf;
		r.cpu = sel & VT_DAT_SEL_CPU1 ? 1 : 0;
		r.missed_events = sel & VT_DAT_SEL_MISSED ? 1 : 0;
		if (vt_import_feed_record(im, &r, r.cpu))
			break;	/* out of memory: vt_import_run() says so */
	}
	ret = vt_import_run(im, &err);
	return vt_fuzz_import_check(im, ret, &err);
}

#endif
