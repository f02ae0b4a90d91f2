// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool import RECORDING -o TRACE: a real kernel recording (trace-cmd
 * trace.dat, or ftrace/trace-cmd report text, plain or xz) to a trace
 * (docs/vmaptool-import.md).  What cannot be reconstructed is a warning
 * with a count, never silent.
 */
#include <argp.h>
#include <inttypes.h>
#include <string.h>

#include "cli/cli.h"
#include "core/import/import.h"
#include "core/inspect/kimage.h"

/*
 * libtraceevent keeps a few strings of the event formats it parses for the
 * process lifetime (tep_parse_event); under -DVT_SANITIZE=ON LeakSanitizer
 * would fail every import of a trace.dat for them.  Nor does it print the
 * table of the suppressions it used at exit: an import's standard error is
 * what docs/exit-codes.md gives (test-reliability compares it whole).
 * Only the sanitizer runtime calls these; LSAN_OPTIONS still overrides.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\n";
}
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

enum { OPT_KEEP_OTHER = 0x300, OPT_NO_PAGES, OPT_NO_PURGES, OPT_DROP_OTHER };

struct import_args {
	struct vt_cli *cli;
	const char *recording;
	struct vt_import_opts opts;
};

static const struct argp_option import_options[] = {
	{ "drop-other-ranges", OPT_DROP_OTHER, NULL, 0,
	  "leave out areas outside the vmalloc range (module/execmem areas, kept in the module area by default)", 0 },
	{ "keep-other-ranges", OPT_KEEP_OTHER, NULL, 0,
	  "the default: keep module/execmem areas (in the module area)", 0 },
	{ "no-pages", OPT_NO_PAGES, NULL, 0,
	  "emit no page lists: the engine allocates every vmalloc's pages", 0 },
	{ "no-purges", OPT_NO_PURGES, NULL, 0,
	  "do not emit the recorded explicit purges (vm_unmap_aliases)", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t import_parse(int key, char *arg, struct argp_state *state)
{
	struct import_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case OPT_KEEP_OTHER:
		a->opts.drop_other_ranges = false;
		break;
	case OPT_DROP_OTHER:
		a->opts.drop_other_ranges = true;
		break;
	case OPT_NO_PAGES:
		a->opts.no_pages = true;
		break;
	case OPT_NO_PURGES:
		a->opts.explicit_purges = false;
		break;
	case ARGP_KEY_ARG:
		if (a->recording)
			argp_error(state, "more than one recording given");
		a->recording = arg;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no recording given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child import_children[] = {
	{ &vt_common_argp, 0, NULL, 0 },
	{ NULL, 0, NULL, 0 }
};

static const struct argp import_argp = {
	.options = import_options,
	.parser = import_parse,
	.args_doc = "RECORDING",
	.doc = "Reconstruct vmalloc/vmap/ioremap API events from a kernel "
	       "recording (trace-cmd trace.dat, or the text of ftrace's "
	       "trace/trace_pipe or of 'trace-cmd report', optionally "
	       "xz-compressed) and write them as a trace (-o, or stdout).\v"
	       "docs/recording.md lists the events to record.  Exit status: "
	       "0 success, 2 usage, 3 unreadable or corrupt recording "
	       "(nothing is written), 4 system error.",
	.children = import_children,
};

/* How many mappings of each kind the recording shows and the trace
 * reproduces; with -v, what the recording's walker kprobes add up to. */
static void mappings_line(const struct vt_import_summary *s, int verbose)
{
	char buf[512];
	size_t n = 0;

	for (int k = 0; k < VT_IMK__NR; k++) {
		if (k == VT_IMK_OTHER && !s->mappings_recorded[k])
			continue;
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s %" PRIu64 "/%" PRIu64,
			      k ? ", " : "", vt_import_mkind_names[k],
			      s->mappings_recorded[k], s->mappings_reproduced[k]);
		if (n >= sizeof(buf))
			break;
	}
	vt_info("mappings recorded/reproduced: %s", buf);
	if (verbose)
		vt_info("walker kprobes: %" PRIu64 " page(s) mapped, %" PRIu64
			" PMD block(s), %" PRIu64 " PUD block(s)", s->walker_pages,
			s->walker_pmd_blocks, s->walker_pud_blocks);
}

static void print_summary(const struct vt_import *im, int verbose)
{
	const struct vt_import_summary *s = vt_import_summary(im);
	const char *w = vt_import_warnings(im);
	char line[512];
	int i;

	while (*w) {
		size_t n = strcspn(w, "\n");

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, w, n);
		line[n] = '\0';
		vt_warn("%s", line);
		w += strcspn(w, "\n");
		if (*w)
			w++;
	}
	vt_info("imported %" PRIu64 " event(s) from %" PRIu64
		" record(s): %" PRIu64 " area(s), %" PRIu64
		" nested array(s) dropped",
		s->out_events, s->records, s->areas, s->nested_dropped);
	mappings_line(s, verbose);
	for (i = 0; i < VT_OP__NR; i++)
		if (s->out_by_op[i])
			vt_dbg(1, "  %-12s %" PRIu64, vt_op_names[i],
			       s->out_by_op[i]);
	vt_dbg(1, "pages from vfree: %" PRIu64 ", from huge chunks: %" PRIu64
	       ", from mm_page_alloc: %" PRIu64 "; explicit purges %" PRIu64,
	       s->pages_from_free, s->pages_from_chunks, s->pages_from_alloc,
	       s->purges_explicit);
}

int cmd_import(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool import";
	struct import_args a;
	struct vt_trace_config cfg;
	struct vt_trace_writer *w = NULL;
	struct vt_import *im = NULL;
	struct vt_error err;
	uint64_t nsym = 0, nunsym = 0;
	FILE *out;
	int rc, out_rc;
	bool va_given;

	memset(&a, 0, sizeof(a));
	a.cli = cli;
	vt_import_opts_init(&a.opts);
	argv[0] = name;
	rc = argp_parse(&import_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	/* import needs the image's symbols; its geometry where it has one */
	va_given = cli->va_bits_set;
	rc = vt_cli_vmlinux_apply(cli, false, name);
	if (rc)
		return rc;
	rc = vt_out_check(cli, &(struct vt_io){ "recording", a.recording,
					   VT_IO_READ }, 1, NULL, 0, NULL);
	if (rc)
		return rc;
	a.opts.max_input = cli->model.max_input;
	/* the importer checks what it emits against this geometry's PA size */
	if (cli->va_bits_set)
		a.opts.va_bits = cli->model.va_bits;
	if (cli->granule_set)
		a.opts.page_shift = cli->model.page_shift;
	vt_error_init(&err);
	/* --vmlinux: addresses the recording did not name become symbols */
	if (cli->vmlinux) {
		const struct vt_kimage_info *in;
		struct vt_kimage *k;

		rc = vt_cli_kimage(cli, &k);
		if (rc)
			return rc;
		in = vt_kimage_info(k);
		if (!in->nr_functions) {
			vt_err("%s: no function symbols (%s): import --vmlinux needs an "
			       "ELF vmlinux with its symbol table (Debian: "
			       "/usr/lib/debug/boot/vmlinux-RELEASE of linux-image-RELEASE-dbg)",
			       cli->vmlinux, in->elf ? "the ELF file has no symbol table" :
			       in->format);
			vt_cli_kimage_close();
			return VT_EC_INPUT;
		}
		a.opts.symbolize = vt_cli_symbolize;
		a.opts.symbolize_ctx = k;
		a.opts.symbolized = &nsym;
		a.opts.unsymbolized = &nunsym;
	}

	rc = vt_import_open(a.recording, &a.opts, &im, &err);
	if (rc)
		goto fail;
	rc = vt_import_run(im, &err);
	if (rc < 0)
		goto fail;
	cfg = *vt_import_config(im);
	print_summary(im, cli->verbose);
	/* a geometry given (--vmlinux of another build, --va-bits) that the
	 * recording's own linear-map pointers contradict: the trace takes
	 * the given one, and its walks have the other number of levels */
	if (vt_import_summary(im)->va_bits && cfg.va_bits &&
	    vt_import_summary(im)->va_bits != cfg.va_bits)
		vt_warn("the recording's linear-map addresses are those of a %u-bit VA "
			"kernel, but the trace is written with %u bits (%s): another "
			"kernel build?", vt_import_summary(im)->va_bits, cfg.va_bits,
			va_given ? "--va-bits" : "the --vmlinux image's");
	if (cli->vmlinux) {
		vt_info("--vmlinux: %" PRIu64 " address(es) resolved to symbols", nsym);
		if (nunsym)
			vt_warn("--vmlinux: %" PRIu64 " address(es) in no function of %s "
				"(another kernel build, or KASLR: record with nokaslr)",
				nunsym, cli->vmlinux);
	}

	vt_error_init(&err);
	/*
	 * cli/output.c publishes the file: a temporary beside it renamed on
	 * success, removed on failure or signal; a device or FIFO is written
	 * in place; "-" is stdout.
	 */
	out = vt_out_open(cli->output);
	if (!out) {
		vt_import_close(im);
		vt_cli_kimage_close();
		return VT_EC_SYSTEM;
	}
	rc = vt_trace_writer_open_file(out,
				       cli->output &&
				       vt_trace_path_is_jsonl(cli->output),
				       &cfg, vt_import_meta_json(im), &w, &err);
	if (!rc) {
		rc = vt_import_write(im, w, &err);
		if (rc)
			vt_trace_writer_abort(w);
		else
			rc = vt_trace_writer_commit(w, &err);
	}
	/* the trace's write failed: said as every output's failed write is,
	 * naming the output (the writer knows only its stream) */
	if (rc && ferror(out) && err.code < 0 && err.code > VT_ERR__START) {
		if (out == stdout)
			vt_err("write error on stdout: %s", strerror(-err.code));
		else
			vt_err("cannot write '%s': %s", cli->output, strerror(-err.code));
		vt_out_close(out, cli->output, false);
		vt_import_close(im);
		vt_cli_kimage_close();
		return VT_EC_SYSTEM;
	}
	out_rc = vt_out_close(out, cli->output, !rc);
	if (rc)
		goto fail;
	vt_import_close(im);
	vt_cli_kimage_close();
	return out_rc;
fail:
	vt_import_close(im);
	vt_cli_kimage_close();
	if (!err.file[0] && a.recording && rc == VT_ERR_IMPORT)
		snprintf(err.file, sizeof(err.file), "%s", a.recording);
	return vt_report_error(&err);
}
