// SPDX-License-Identifier: GPL-2.0
/*
 * What-if options of the modelled kernel (interfaces.md 1.3), expanded
 * from the one table in options.def.
 */
#include <stddef.h>
#include <string.h>

#include "arch/arch.h"
#include "core/model.h"

#define VT_KERNEL(id, n, s, vb, lo)						\
	[VT_KERNEL_##id] = { .name = n, .summary = s, .vfree_bulk = vb,	\
			     .linear_old = lo },
const struct vt_kernel_info vt_kernels[VT_KERNEL__NR] = {
#include "options.def"
};

#define VT_OPTION(field, type, ...)                                        \
	[VT_OPT_##field] = {                                               \
		.off = offsetof(struct vt_model_opts, field),              \
		.is_bool = sizeof(type) == sizeof(bool), __VA_ARGS__       \
	},
const struct vt_option vt_options[VT_OPT__NR] = {
#include "options.def"
};

unsigned int vt_option_get(const struct vt_model_opts *o, enum vt_option_id id)
{
	const char *p = (const char *)o + vt_options[id].off;

	if (vt_options[id].is_bool)
		return *(const bool *)p;
	return *(const unsigned int *)p;
}

void vt_option_set(struct vt_model_opts *o, enum vt_option_id id,
		   unsigned int v)
{
	char *p = (char *)o + vt_options[id].off;

	if (vt_options[id].is_bool)
		*(bool *)p = v != 0;
	else
		*(unsigned int *)p = v;
}

uint32_t vt_axes_resolve(uint32_t axes, enum vt_kernel_gen gen)
{
	if (!(axes & VT_AXES_VFREE))
		axes |= vt_kernels[gen].vfree_bulk ? VT_AXIS_VFREE_BULK :
						     VT_AXIS_VFREE_PERPAGE;
	if (!(axes & VT_AXES_LINEAR))
		axes |= vt_kernels[gen].linear_old ? VT_AXIS_LINEAR_OLD :
						     VT_AXIS_LINEAR_NEW;
	return axes;
}

void vt_model_opts_init(struct vt_model_opts *o)
{
	*o = (struct vt_model_opts){
		.page_shift = 12,
		.va_bits = 48,
	};
	for (int i = 0; i < VT_OPT__NR; i++)
		vt_option_set(o, (enum vt_option_id)i, vt_options[i].def);
	vt_model_opts_kernel(o, VT_KERNEL_DEFAULT);
}

void vt_model_opts_kernel(struct vt_model_opts *o, enum vt_kernel_gen gen)
{
	o->kernel = gen;
	for (int i = 0; i < VT_OPT__NR; i++)
		if (vt_options[i].kernel[gen])
			vt_option_set(o, (enum vt_option_id)i,
				      vt_options[i].kernel[gen] - 1);
}

bool vt_model_kernel_overridden(const struct vt_model_opts *o)
{
	for (int i = 0; i < VT_OPT__NR; i++)
		if (vt_options[i].kernel[o->kernel] &&
		    vt_option_get(o, (enum vt_option_id)i) !=
		    vt_options[i].kernel[o->kernel] - 1)
			return true;
	return false;
}

const char *vt_option_word(const struct vt_option *opt, unsigned int i,
			   char *buf, size_t len)
{
	const char *p = opt->kind == VT_OK_FLAG ? "off|on" : opt->words;
	size_t n;

	if (!p || !len)
		return NULL;
	for (; i; i--) {
		p = strchr(p, '|');
		if (!p)
			return NULL;
		p++;
	}
	n = strcspn(p, "|");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

int vt_option_word_index(const struct vt_option *opt, const char *word)
{
	char buf[64];

	for (unsigned int i = 0; vt_option_word(opt, i, buf, sizeof(buf)); i++)
		if (!strcmp(buf, word))
			return (int)i;
	return -1;
}

const char *vt_option_value_word(const struct vt_option *opt, unsigned int v,
				 char *buf, size_t len)
{
	if (opt->kind == VT_OK_FLAG)
		return vt_option_word(opt, v != 0, buf, len);
	for (unsigned int i = 0; vt_option_word(opt, i, buf, len); i++)
		if (opt->values[i] == v)
			return buf;
	return NULL;
}

/* The Kconfig-valid pairs are arch's (arm64_geom_valid()). */
bool vt_geometry_valid(unsigned int page_shift, unsigned int va_bits)
{
	return arm64_geom_valid(page_shift, va_bits);
}
