// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define VT_E(code, str) str
static const char *const vt_err_str[] = { VT_ERRORS };
#undef VT_E

void vt_error_init(struct vt_error *e)
{
	memset(e, 0, sizeof(*e));
	e->event = -1;
}

int vt_error_vset(struct vt_error *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return code;
	e->code = code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int vt_err_oom(struct vt_error *e)
{
	return vt_error_set(e, -ENOMEM, "out of memory");
}

int vt_error_set(struct vt_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_error_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}

const char *vt_strerror(int code, char *buf, size_t len)
{
	if (code > VT_ERR__START && code < VT_ERR__END)
		snprintf(buf, len, "%s", vt_err_str[code - VT_ERR__START - 1]);
	else if (code < 0)
		snprintf(buf, len, "%s", strerror(-code));
	else
		snprintf(buf, len, "success");
	return buf;
}

enum vt_err_class vt_err_class(int code)
{
	if (code >= 0)
		return VT_EC_OK;
	switch (code) {
	case VT_ERR_NO_STRATEGY:
	case VT_ERR_BAD_STRATEGY:
	case VT_ERR_NO_PROFILE:
		return VT_EC_USAGE;
	case VT_ERR_INVARIANT:
		return VT_EC_INTERNAL;
	case VT_ERR_UNSUPPORTED:
		return VT_EC_USAGE;
	default:
		break;
	}
	if (code > VT_ERR__START && code < VT_ERR__END)
		return VT_EC_INPUT;
	if (code == -EINVAL)
		return VT_EC_INPUT;
	return VT_EC_SYSTEM;
}
