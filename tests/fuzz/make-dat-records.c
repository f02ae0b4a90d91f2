// SPDX-License-Identifier: GPL-2.0
/*
 * Makes what the fast trace.dat harness (fuzz-dat-records.h) is built
 * from, out of a real trace-cmd recording: the event formats and symbols
 * the importer reads (tests/fuzz/dat-events.h) and seeds in the harness's
 * record encoding (tests/fuzz/corpus/dat-records/).  Run by hand when the
 * bundled formats are to change; not part of the build:
 *
 *   cc -O2 -Wall -I. -o /tmp/mkrec tests/fuzz/make-dat-records.c \
 *      $(pkg-config --cflags --libs libtracecmd libtraceevent)
 *   /tmp/mkrec tests/data/recordings/fix256_x10.trace.dat \
 *      tests/fuzz/dat-events.h tests/fuzz/corpus/dat-records
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "tests/fuzz/dat-records.h"

#define MAX_FUNCS 256
/*
 * A seed is a window of the recording from an alloc_vmap_area on: the
 * area's pages, its mapping and (part of) its vfree, without the function
 * tracer's and the __free_pages kprobe's records, which outnumber the rest
 */
#define SEED_RECORDS 160
#define MAX_SEEDS 16

static struct tep_event *events[VT_DAT_MAX_EVENTS];
static int nevents;
static unsigned long long func_addr[MAX_FUNCS];
static const char *func_name[MAX_FUNCS];
static int nfuncs;
static unsigned char seed[SEED_RECORDS * (4 + 255)];
static size_t seed_len, seed_recs;
static int nseeds;
static bool in_seed;
static unsigned long long last_ts;
static const char *seed_dir;

/* The events the importer reads (core/import/reconstruct.c kev_descs):
 * the kprobes of docs/recording.md (system "kp" there) by their field */
static bool wanted(struct tep_event *e)
{
	return !strcmp(e->system, "vmalloc") || tep_find_field(e, "__probe_ip") ||
	       (!strcmp(e->system, "kmem") && (!strcmp(e->name, "mm_page_alloc") ||
					       !strcmp(e->name, "mm_page_free"))) ||
	       (!strcmp(e->system, "ftrace") && !strcmp(e->name, "function"));
}

static void see_func(struct tep_handle *tep, unsigned long long ip)
{
	unsigned long long start = tep_find_function_address(tep, ip);
	const char *name = tep_find_function(tep, ip);

	if (!name || !start)
		return;
	for (int i = 0; i < nfuncs; i++)
		if (func_addr[i] == start)
			return;
	if (nfuncs < MAX_FUNCS) {
		func_addr[nfuncs] = start;
		func_name[nfuncs++] = name;
	}
}

static void flush_seed(void)
{
	char path[512];
	FILE *f;

	in_seed = false;
	if (!seed_recs || nseeds >= MAX_SEEDS) {
		seed_len = seed_recs = 0;
		return;
	}
	snprintf(path, sizeof(path), "%s/fix256-%02d.rec", seed_dir, nseeds++);
	f = fopen(path, "wb");
	if (!f || fwrite(seed, 1, seed_len, f) != seed_len || fclose(f)) {
		perror(path);
		exit(1);
	}
	seed_len = seed_recs = 0;
}

static int cb(struct tracecmd_input *h, struct tep_record *r, int cpu,
	      void *data)
{
	struct tep_handle *tep = data;
	struct tep_event *e = tep_find_event_by_record(tep, r);
	unsigned long long dt, v;
	struct tep_format_field *f;
	int idx = -1;

	(void)h;
	if (!e)
		return 0;
	for (int i = 0; i < nevents; i++)
		if (events[i] == e)
			idx = i;
	if (idx < 0 || r->size > 255)
		return 0;
	/* the symbols the importer looks up: kprobe and function-tracer ips */
	for (const char *n = "__probe_ip"; n; n = !strcmp(n, "__probe_ip") ? "ip" :
	     !strcmp(n, "ip") ? "parent_ip" : NULL) {
		f = tep_find_field(e, n);
		if (f && !tep_read_number_field(f, r->data, &v))
			see_func(tep, v);
	}
	if (!strcmp(e->name, "alloc_vmap_area") && !in_seed)
		in_seed = true;
	if (!in_seed || !strcmp(e->name, "function") || !strcmp(e->name, "free_pages"))
		return 0;
	dt = last_ts && r->ts > last_ts ? (r->ts - last_ts) / 1000 : 0;
	last_ts = r->ts;
	if (dt > 0xffff)
		dt = 0xffff;
	seed[seed_len++] = (unsigned char)(idx | (r->missed_events > 0 ? VT_DAT_SEL_MISSED : 0) |
					   (cpu ? VT_DAT_SEL_CPU1 : 0));
	seed[seed_len++] = (unsigned char)dt;
	seed[seed_len++] = (unsigned char)(dt >> 8);
	seed[seed_len++] = (unsigned char)r->size;
	memcpy(seed + seed_len, r->data, r->size);
	seed_len += r->size;
	if (++seed_recs == SEED_RECORDS)
		flush_seed();
	return 0;
}

/* An event's format as the kernel prints it in .../events/SYS/NAME/format. */
static void print_format(FILE *o, const struct tep_event *e)
{
	const struct tep_format_field *f;

	fprintf(o, "\"name: %s\\n\"\n\"ID: %d\\n\"\n\"format:\\n\"\n", e->name, e->id);
	for (int pass = 0; pass < 2; pass++) {
		f = pass ? e->format.fields : e->format.common_fields;
		for (; f; f = f->next) {
			char type[128];

			snprintf(type, sizeof(type), "%s", f->type);
			if (f->flags & TEP_FIELD_IS_ARRAY) {
				/* "char[16]" is written "char comm[16]" */
				char *br = strchr(type, '[');

				if (br)
					*br = '\0';
				fprintf(o, "\"\\tfield:%s %s[%u];\\toffset:%d;\\tsize:%d;\\tsigned:%d;\\n\"\n",
					type, f->name, f->arraylen, f->offset, f->size,
					!!(f->flags & TEP_FIELD_IS_SIGNED));
			} else {
				fprintf(o, "\"\\tfield:%s %s;\\toffset:%d;\\tsize:%d;\\tsigned:%d;\\n\"\n",
					type, f->name, f->offset, f->size,
					!!(f->flags & TEP_FIELD_IS_SIGNED));
			}
		}
		fprintf(o, "\"\\n\"\n");
	}
	/* the importer reads fields, never the print format */
	fprintf(o, "\"print fmt: \\\"%s\\\"\\n\",\n", e->name);
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h;
	struct tep_handle *tep;
	FILE *o;

	if (argc != 4) {
		fprintf(stderr, "usage: %s RECORDING.dat OUT.h SEED-DIR\n", argv[0]);
		return 2;
	}
	seed_dir = argv[3];
	h = tracecmd_open(argv[1], 0);
	if (!h) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		return 1;
	}
	tep = tracecmd_get_tep(h);
	for (int i = 0; i < tep_get_events_count(tep) && nevents < VT_DAT_MAX_EVENTS; i++) {
		struct tep_event *e = tep_get_event(tep, i);

		if (wanted(e))
			events[nevents++] = e;
	}
	tracecmd_iterate_events(h, NULL, 0, cb, tep);
	flush_seed();

	o = fopen(argv[2], "w");
	if (!o)
		return 1;
	fprintf(o, "/* SPDX-License-Identifier: GPL-2.0 */\n"
		"/*\n * Generated by tests/fuzz/make-dat-records.c from %s:\n"
		" * the formats of the events the importer reads and the symbols its\n"
		" * records resolve to (fuzz-dat-records.h).  Do not edit.\n */\n"
		"#ifndef VT_FUZZ_DAT_EVENTS_H\n#define VT_FUZZ_DAT_EVENTS_H\n\n",
		strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
	fprintf(o, "static const char *const vt_dat_event_system[] = {\n");
	for (int i = 0; i < nevents; i++)
		fprintf(o, "\t\"%s\",\n", events[i]->system);
	fprintf(o, "};\n\nstatic const char *const vt_dat_event_format[] = {\n");
	for (int i = 0; i < nevents; i++)
		print_format(o, events[i]);
	fprintf(o, "};\n\nstatic const struct { unsigned long long addr; const char *name; } vt_dat_funcs[] = {\n");
	for (int i = 0; i < nfuncs; i++)
		fprintf(o, "\t{ 0x%llxull, \"%s\" },\n", func_addr[i], func_name[i]);
	fprintf(o, "};\n\n#endif\n");
	fclose(o);
	fprintf(stderr, "%d events, %d functions, %d seeds\n", nevents, nfuncs, nseeds);
	tracecmd_close(h);
	return 0;
}
