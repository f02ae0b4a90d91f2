// SPDX-License-Identifier: GPL-2.0
/*
 * --vmlinux=FILE and --kconfig=FILE of replay, compare, gate, ptdump and
 * import (docs/vmaptool-inspect.md): the kernel image is read once
 * (core/inspect/), and its geometry, --kernel generation and huge-mapping
 * support become the defaults that options given on the command line
 * override, whatever their order.
 */
#include <string.h>

#include "cli/cli.h"
#include "core/inspect/kimage.h"

static struct vt_kimage *image;

int vt_cli_kimage(const struct vt_cli *cli, struct vt_kimage **out)
{
	struct vt_error err;
	int ret;

	*out = NULL;
	if (!image) {
		vt_error_init(&err);
		ret = vt_kimage_open(cli->vmlinux, cli->model.max_input, &image, &err);
		if (!ret && cli->kconfig)
			ret = vt_kimage_set_config_file(image, cli->kconfig, &err);
		if (ret) {
			vt_kimage_close(image);
			image = NULL;
			return vt_report_error(&err);
		}
	}
	*out = image;
	return 0;
}

void vt_cli_kimage_close(void)
{
	vt_kimage_close(image);
	image = NULL;
}

/* The image's values under those given; @need_geometry as for
 * vt_cli_vmlinux_apply().  0 or the exit code (reported). */
static int image_defaults(struct vt_cli *cli, bool need_geometry)
{
	struct vt_model_opts *m = &cli->model, save;
	const struct vt_kimage_info *in;
	struct vt_kimage *k;
	struct vt_error err;
	int rc = vt_cli_kimage(cli, &k);

	if (rc)
		return rc;
	in = vt_kimage_info(k);
	vt_error_init(&err);
	if (vt_kimage_need_config(k, &err)) {
		if (need_geometry)
			return vt_report_error(&err);
		return 0;	/* import: the symbols are what it needs */
	}
	if (!cli->granule_set)
		m->page_shift = in->page_shift;
	if (!cli->va_bits_set)
		m->va_bits = in->va_bits;
	cli->granule_set = cli->va_bits_set = true;
	if (!cli->kernel_given && in->has_nearest) {
		save = *m;
		vt_model_opts_kernel(m, in->nearest);
		for (int i = 0; i < VT_OPT__NR; i++)
			if (cli->opt_given[i])
				vt_option_set(m, (enum vt_option_id)i,
					      vt_option_get(&save, (enum vt_option_id)i));
		cli->kernel_given = true;
	}
	/*
	 * Without CONFIG_HAVE_ARCH_HUGE_VMALLOC mm/vmalloc.c's vmap_allow_huge
	 * is the constant false, as under nohugevmalloc; without
	 * CONFIG_HAVE_ARCH_HUGE_VMAP ioremap_max_page_shift is PAGE_SHIFT, as
	 * under nohugeiomap (and arch/Kconfig's HAVE_ARCH_HUGE_VMALLOC depends on
	 * HAVE_ARCH_HUGE_VMAP).
	 */
	if ((in->huge_vmalloc == VT_TRI_NO || in->huge_vmap == VT_TRI_NO) &&
	    !cli->opt_given[VT_OPT_nohugevmalloc]) {
		vt_option_set(m, VT_OPT_nohugevmalloc, 1);
		cli->opt_given[VT_OPT_nohugevmalloc] = true;
	}
	if (in->huge_vmap == VT_TRI_NO && !cli->opt_given[VT_OPT_nohugeiomap]) {
		vt_option_set(m, VT_OPT_nohugeiomap, 1);
		cli->opt_given[VT_OPT_nohugeiomap] = true;
	}
	vt_dbg(1, "--vmlinux=%s: granule %s, VA_BITS %u, --kernel=%s",
	       cli->vmlinux, vt_kimage_granule(m->page_shift), m->va_bits,
	       vt_kernels[m->kernel].name);
	return 0;
}

int vt_cli_vmlinux_apply(struct vt_cli *cli, bool need_geometry, const char *prog)
{
	char msg[256];
	int rc;

	if (!cli->vmlinux)
		return 0;
	rc = image_defaults(cli, need_geometry);
	if (!rc && vt_common_geometry_error(&cli->model, msg, sizeof(msg)))
		rc = vt_usage_error(prog, "%s", msg);
	return rc;
}

bool vt_cli_symbolize(void *ctx, uint64_t addr, bool offset, char *buf, size_t len)
{
	return vt_kimage_symbolize(ctx, addr, offset, buf, len);
}
