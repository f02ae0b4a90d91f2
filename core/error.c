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
	case VT_ERR_BAD_OPTION:
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

/* The length of the UTF-8 sequence at @s (n bytes left), 0 if it is not
 * one (overlong forms, surrogates and code points past U+10FFFF are not);
 * the code point in *@cp. */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned int *cp)
{
	static const unsigned int min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;

	if (!len || s[0] > 0xf4 || len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

size_t vt_escape(char *buf, size_t len, const char *str, bool keep_nl)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0, n = strlen(str);

	if (!len)
		return 0;
	for (size_t i = 0; i < n;) {
		char e[8];
		size_t el, step = 1;
		unsigned int cp = s[i];

		if (cp < 0x80) {
			if ((cp < 0x20 && !(cp == '\n' && keep_nl) && cp != '\t') ||
			    cp == 0x7f)
				el = (size_t)snprintf(e, sizeof(e), "\\x%02x", cp);
			else
				el = (e[0] = (char)cp, 1);
		} else if ((step = utf8_seq(s + i, n - i, &cp)) == 0) {
			step = 1;	/* not UTF-8: a lone byte, 0x9b is CSI */
			el = (size_t)snprintf(e, sizeof(e), "\\x%02x", s[i]);
		} else if (cp <= 0x9f) {	/* C1 controls */
			el = (size_t)snprintf(e, sizeof(e), "\\u%04x", cp);
		} else {
			memcpy(e, s + i, step);
			el = step;
		}
		if (o + el >= len)
			break;
		memcpy(buf + o, e, el);
		o += el;
		i += step;
	}
	buf[o] = '\0';
	return o;
}
