// SPDX-License-Identifier: GPL-2.0
/*
 * "Did you mean ...?" for a mistyped long option, from core/suggest.c's
 * vt_suggest() (which commands, strategies and metrics use directly).
 */
#include <argp.h>
#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"

/* ---- long options ------------------------------------------------------ */

/* Every option of @argp and its children, in @f(opt, data) until it says
 * stop (true). */
static const struct argp_option *each_option(const struct argp *argp,
					     bool (*f)(const struct argp_option *, void *),
					     void *data)
{
	for (const struct argp_option *o = argp->options; o && (o->name || o->key || o->doc); o++)
		if (!(o->flags & OPTION_DOC) && (o->name || o->key) && f(o, data))
			return o;
	for (const struct argp_child *c = argp->children; c && c->argp; c++) {
		const struct argp_option *o = each_option(c->argp, f, data);

		if (o)
			return o;
	}
	return NULL;
}

struct opt_match {
	const char *word;	/* the name as given, up to any '=' */
	size_t len;
	char key;		/* the short option looked for, or 0 */
	const struct argp_option *found;
	const char *cands[256];
	size_t nr;
};

static bool long_match(const struct argp_option *o, void *data)
{
	struct opt_match *m = data;

	if (o->name && !strncmp(o->name, m->word, m->len)) {
		m->found = o;	/* getopt_long takes a prefix too */
		return true;
	}
	if (o->name && !(o->flags & OPTION_HIDDEN) && m->nr < 256)
		m->cands[m->nr++] = o->name;
	return false;
}

static bool short_match(const struct argp_option *o, void *data)
{
	struct opt_match *m = data;

	return o->key == m->key;
}

/* Whether @o takes the next argv word (a required argument given apart);
 * an alias row has the arg of the option above it (argp.h, OPTION_ALIAS),
 * and an argp table never starts with an alias. */
static bool takes_next(const struct argp_option *o)
{
	while (o->flags & OPTION_ALIAS)
		o--;
	return o->arg && !(o->flags & OPTION_ARG_OPTIONAL);
}

void vt_check_long_options(struct argp_state *state)
{
	const struct argp *root = state->root_argp;

	for (int i = 1; i < state->argc; i++) {
		const char *w = state->argv[i];
		struct opt_match m = { 0 };

		if (!strcmp(w, "--"))
			return;
		if (w[0] != '-' || !w[1]) {	/* an operand */
			if (state->flags & ARGP_IN_ORDER)
				return;	/* the command word: the rest is its own */
			continue;
		}
		if (w[1] != '-') {	/* -abc, -oFILE, -o FILE */
			for (size_t k = 1; w[k]; k++) {
				m.key = w[k];
				m.found = each_option(root, short_match, &m);
				if (!m.found)
					break;	/* getopt says so */
				if (takes_next(m.found)) {
					i += !w[k + 1];
					break;
				}
			}
			continue;
		}
		m.word = w + 2;
		m.len = strcspn(m.word, "=");
		each_option(root, long_match, &m);
		if (m.found) {
			if (!m.word[m.len] && takes_next(m.found))
				i++;
			continue;
		}
		{
			char name[64];
			const char *hint;

			snprintf(name, sizeof(name), "%.*s", (int)m.len, m.word);
			hint = vt_suggest(name, m.cands, m.nr);
			/* argp names the program only after ARGP_KEY_INIT: as it
			 * will (the command's "vmaptool replay", argv[0]'s base) */
			if (hint && !state->name) {
				char *base = strrchr(state->argv[0], '/');

				state->name = base ? base + 1 : state->argv[0];
			}
			if (hint)
				argp_error(state, "unrecognized option '--%s'; did you mean '--%s'?",
					   name, hint);
		}
		return;	/* getopt words it */
	}
}
