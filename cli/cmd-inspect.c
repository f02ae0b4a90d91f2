// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool inspect --vmlinux=FILE [--kconfig=FILE]: what a real arm64 kernel
 * image says about the modelled kernel (docs/vmaptool-inspect.md): release,
 * granule, VA_BITS, page-table levels, CONTPTE, huge vmalloc/vmap, LPA2, the
 * nearest --kernel generation and the options replay takes from it.  The
 * reading is core/inspect/'s; this file prints.  Nothing is printed that was
 * not read from the image or its configuration.
 */
#include <argp.h>
#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report-doc.h"	/* vt_wrap() */
#include "core/inspect/kimage.h"

static error_t inspect_parse(int key, char *arg, struct argp_state *state)
{
	const struct vt_cli *cli = state->input;

	(void)arg;
	if (key == ARGP_KEY_INIT)
		vt_common_input(state, state->input);	/* the input is the vt_cli */
	if (key == ARGP_KEY_ARG)
		argp_error(state, "inspect takes no arguments: the image is --vmlinux=FILE");
	if (key == ARGP_KEY_END && !cli->vmlinux)
		argp_error(state, "no kernel image given (--vmlinux=FILE)");
	return ARGP_ERR_UNKNOWN;
}

static const struct argp inspect_argp = {
	.parser = inspect_parse,
	.doc = "Read an arm64 kernel image (ELF vmlinux, Image, Image.gz or EFI "
	       "zboot vmlinuz) and its configuration (embedded IKCONFIG, or "
	       "--kconfig=FILE) and print the release, granule, VA_BITS, "
	       "page-table levels, CONTPTE, HAVE_ARCH_HUGE_VMALLOC/VMAP, LPA2 and "
	       "the nearest --kernel generation.\v"
	       "Exit status: 0 success, 2 usage, 3 not an arm64 kernel image, "
	       "truncated, or no configuration (the message says which values "
	       "that leaves unknown), 4 system error.",
	.children = vt_common_children,
};

static const char *tri_word(enum vt_tri t)
{
	return t == VT_TRI_YES ? "yes" : t == VT_TRI_NO ? "no" : "unknown";
}

static json_t *tri_json(enum vt_tri t)
{
	return t == VT_TRI_UNKNOWN ? json_null() : json_boolean(t == VT_TRI_YES);
}

/* The options replay --vmlinux takes from the image (cli/vmlinux.c). */
static void replay_options(const struct vt_kimage_info *in, char *buf, size_t len)
{
	snprintf(buf, len, "--granule=%s --va-bits=%u", vt_kimage_granule(in->page_shift),
		 in->va_bits);
	if (in->has_nearest)
		snprintf(buf + strlen(buf), len - strlen(buf), " --kernel=%s",
			 vt_kernels[in->nearest].name);
	if (in->huge_vmalloc == VT_TRI_NO || in->huge_vmap == VT_TRI_NO)
		snprintf(buf + strlen(buf), len - strlen(buf), " --nohugevmalloc");
	if (in->huge_vmap == VT_TRI_NO)
		snprintf(buf + strlen(buf), len - strlen(buf), " --nohugeiomap");
}

/* @path into @buf as one word of vt_wrap() (its spaces never broken at). */
static const char *path_word(const char *path, char *buf, size_t len)
{
	size_t i;

	for (i = 0; path[i] && i + 1 < len; i++)
		buf[i] = path[i] == ' ' ? VT_WRAP_SPACE : path[i];
	buf[i] = '\0';
	return buf;
}

static void config_text(const struct vt_cli *cli, const struct vt_kimage_info *in,
			char *buf, size_t len)
{
	char pw[PATH_MAX];

	if (in->config_source == VT_KCONFIG_FILE)
		snprintf(buf, len, "%s (--kconfig, %zu bytes)",
			 path_word(cli->kconfig, pw, sizeof(pw)), in->config_bytes);
	else
		snprintf(buf, len, "IKCONFIG (%zu bytes, embedded by CONFIG_IKCONFIG)",
			 in->config_bytes);
}

/* "@label  @text" with @text wrapped at 79 columns under its start, as
 * argp's --help (a path or a word longer than a line stays whole). */
static void field(FILE *f, const char *label, const char *text)
{
	fprintf(f, "%-14s", label);
	vt_wrap(f, text, 14, 14, 79);
}

static void print_text(const struct vt_cli *cli, FILE *f, const struct vt_kimage_info *in)
{
	char buf[PATH_MAX + 512], pw[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s (%s", path_word(cli->vmlinux, pw, sizeof(pw)),
		 in->format);
	if (in->header_page_shift)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", %s pages in its header", vt_kimage_granule(in->header_page_shift));
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ")");
	field(f, "image", buf);
	fprintf(f, "release       %s\n", in->release[0] ? in->release : "unknown (no linux_banner found)");
	if (in->banner[0])
		field(f, "banner", in->banner);
	config_text(cli, in, buf, sizeof(buf));
	field(f, "config", buf);
	fprintf(f, "granule       %-6s CONFIG_ARM64_%uK_PAGES=y\n",
		vt_kimage_granule(in->page_shift), 1u << (in->page_shift - 10));
	fprintf(f, "VA_BITS       %-6u CONFIG_ARM64_VA_BITS\n", in->va_bits);
	if (in->pgtable_levels)
		fprintf(f, "levels        %-6u CONFIG_PGTABLE_LEVELS\n", in->pgtable_levels);
	else
		fprintf(f, "levels        unknown (no CONFIG_PGTABLE_LEVELS)\n");
	fprintf(f, "CONTPTE       %-6s CONFIG_ARM64_CONTPTE\n", tri_word(in->contpte));
	fprintf(f, "huge vmalloc  %-6s CONFIG_HAVE_ARCH_HUGE_VMALLOC\n", tri_word(in->huge_vmalloc));
	fprintf(f, "huge vmap     %-6s CONFIG_HAVE_ARCH_HUGE_VMAP\n", tri_word(in->huge_vmap));
	fprintf(f, "LPA2          %-6s CONFIG_ARM64_LPA2\n", tri_word(in->lpa2));
	if (in->elf)
		fprintf(f, "symbols       %zu function(s) in the ELF symbol table\n",
			in->nr_functions);
	else
		field(f, "symbols", "none (not an ELF file: import --vmlinux needs the "
		      "vmlinux, Debian's linux-image-*-dbg)");
	if (in->has_nearest) {
		snprintf(buf, sizeof(buf), "%s: %s", vt_kernels[in->nearest].name, in->reason);
		field(f, "kernel", buf);
	} else
		fprintf(f, "kernel        unknown (no release to compare)\n");
	replay_options(in, buf, sizeof(buf));
	fprintf(f, "replay with   %s\n", buf);
}

static json_t *inspect_json(const struct vt_cli *cli, const struct vt_kimage_info *in)
{
	json_t *o = json_object(), *c = json_object(), *k;
	char buf[512];

	json_object_set_new(o, "format", json_string("vmaptool-inspect"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "image", json_string(cli->vmlinux));
	json_object_set_new(o, "image_format", json_string(in->format));
	json_object_set_new(o, "release", in->release[0] ? json_string(in->release) : json_null());
	json_object_set_new(o, "banner", in->banner[0] ? json_string(in->banner) : json_null());
	json_object_set_new(c, "source", json_string(in->config_source == VT_KCONFIG_FILE ?
						      "file" : "ikconfig"));
	json_object_set_new(c, "file", in->config_source == VT_KCONFIG_FILE ?
			    json_string(cli->kconfig) : json_null());
	json_object_set_new(c, "bytes", json_integer((json_int_t)in->config_bytes));
	json_object_set_new(o, "config", c);
	json_object_set_new(o, "granule", json_string(vt_kimage_granule(in->page_shift)));
	json_object_set_new(o, "header_granule", in->header_page_shift ?
			    json_string(vt_kimage_granule(in->header_page_shift)) : json_null());
	json_object_set_new(o, "va_bits", json_integer(in->va_bits));
	json_object_set_new(o, "pgtable_levels", in->pgtable_levels ?
			    json_integer(in->pgtable_levels) : json_null());
	json_object_set_new(o, "contpte", tri_json(in->contpte));
	json_object_set_new(o, "huge_vmalloc", tri_json(in->huge_vmalloc));
	json_object_set_new(o, "huge_vmap", tri_json(in->huge_vmap));
	json_object_set_new(o, "lpa2", tri_json(in->lpa2));
	json_object_set_new(o, "functions", in->elf ?
			    json_integer((json_int_t)in->nr_functions) : json_null());
	if (in->has_nearest) {
		k = json_object();
		json_object_set_new(k, "nearest", json_string(vt_kernels[in->nearest].name));
		json_object_set_new(k, "reason", json_string(in->reason));
	} else {
		k = json_null();
	}
	json_object_set_new(o, "kernel", k);
	replay_options(in, buf, sizeof(buf));
	json_object_set_new(o, "replay_options", json_string(buf));
	return o;
}

int cmd_inspect(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool inspect";
	const struct vt_kimage_info *in;
	struct vt_kimage *k;
	struct vt_error err;
	FILE *out;
	int rc, wr = 0;

	argv[0] = name;
	rc = argp_parse(&inspect_argp, argc, argv, 0, NULL, cli);
	if (rc)
		return vt_err_argp(rc);
	rc = vt_out_check(cli, NULL, 0, NULL, 0, NULL);
	if (rc)
		return rc;
	rc = vt_cli_kimage(cli, &k);
	if (rc)
		return rc;
	vt_error_init(&err);
	if (vt_kimage_need_config(k, &err)) {
		rc = vt_report_error(&err);
		vt_cli_kimage_close();
		return rc;
	}
	in = vt_kimage_info(k);
	out = vt_out_open(cli->output);
	if (!out) {
		vt_cli_kimage_close();
		return VT_EC_SYSTEM;
	}
	if (cli->format == VT_FMT_JSON) {
		json_t *o = inspect_json(cli, in);

		wr = json_dumpf(o, out, JSON_INDENT(2)) || fputc('\n', out) == EOF;
		json_decref(o);
	} else {
		print_text(cli, out, in);
	}
	vt_cli_kimage_close();
	return vt_out_close(out, cli->output, true) ?: (wr ? VT_EC_SYSTEM : 0);
}
