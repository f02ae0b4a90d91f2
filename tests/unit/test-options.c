// SPDX-License-Identifier: GPL-2.0
/*
 * The what-if option table (core/options.def): the defaults and what each
 * --kernel generation sets, written out by hand from spec/interfaces.md
 * 1.3 and docs/vmaptool-replay.md; the table's own rules (unique names,
 * every generation or none, the default generation's value as default,
 * words and values matching); the word helpers the CLI and the report
 * use; and the Kconfig-valid granule/VA pairs arch reports.
 */
#include <string.h>

#include "core/model.h"
#include "test.h"

/* Hand-written: the knobs of each generation (interfaces.md 1.3,
 * docs/model.md "Kernel generations"). */
static const struct {
	const char *name;
	bool eager_barriers, vmap_cont, vmalloc_high_order, flush_per_page;
	bool modules_128m, vb_dirty_keep, vfree_bulk, linear_old;
	bool vmalloc_end_256m;
} kernels[] = {
	{ "v6.1", true, false, false, true, true, true, false, true, true },
	{ "v6.12", true, false, false, true, false, false, false, false, false },
	{ "v6.16", false, true, false, false, false, false, false, false, false },
	{ "v7.2", false, true, true, false, false, false, true, false, false },
	{ "mainline", false, true, true, false, false, false, true, false, false },
};

static void test_defaults(void)
{
	struct vt_model_opts o;

	memset(&o, 0xa5, sizeof(o));
	vt_model_opts_init(&o);
	TEST_ASSERT_EQ("page_shift", o.page_shift, 12);
	TEST_ASSERT_EQ("va_bits", o.va_bits, 48);
	TEST_ASSERT_EQ("kernel", o.kernel, VT_KERNEL_MAINLINE);
	TEST_ASSERT_EQ("default generation", VT_KERNEL_DEFAULT, VT_KERNEL_MAINLINE);
	TEST_ASSERT_EQ("eager_barriers", o.eager_barriers, false);
	TEST_ASSERT_EQ("vmap_cont", o.vmap_cont, true);
	TEST_ASSERT_EQ("vmalloc_high_order", o.vmalloc_high_order, true);
	TEST_ASSERT_EQ("purge_immediate", o.purge_immediate, false);
	TEST_ASSERT_EQ("purge_at_end", o.purge_at_end, false);
	TEST_ASSERT_EQ("tlbi_range", o.tlbi_range, false);
	TEST_ASSERT_EQ("flush_per_page", o.flush_per_page, false);
	TEST_ASSERT_EQ("nohugevmalloc", o.nohugevmalloc, false);
	TEST_ASSERT_EQ("nohugeiomap", o.nohugeiomap, false);
	TEST_ASSERT_EQ("initial_empty", o.initial_empty, false);
	TEST_ASSERT_EQ("cpus", o.cpus, 8);
	TEST_ASSERT_EQ("verify", o.verify, false);
	TEST_ASSERT_EQ("use_trace_va", o.use_trace_va, false);
	TEST_ASSERT_EQ("skip_unknown", o.skip_unknown, false);
	TEST_ASSERT_EQ("modules_128m", o.modules_128m, false);
	TEST_ASSERT_EQ("vb_dirty_keep", o.vb_dirty_keep, false);
	TEST_ASSERT_EQ("vmalloc_end_256m", o.vmalloc_end_256m, false);
	TEST_ASSERT_VAL("defaults are the default generation",
			!vt_model_kernel_overridden(&o));
}

static void test_kernels(void)
{
	TEST_ASSERT_EQ("generations", VT_KERNEL__NR,
		       sizeof(kernels) / sizeof(kernels[0]));
	for (int k = 0; k < VT_KERNEL__NR; k++) {
		struct vt_model_opts o;

		TEST_ASSERT_VAL(kernels[k].name,
				!strcmp(vt_kernels[k].name, kernels[k].name));
		TEST_ASSERT_VAL("summary", vt_kernels[k].summary &&
				vt_kernels[k].summary[0]);
		vt_model_opts_init(&o);
		/* --kernel leaves what it does not set alone */
		o.cpus = 3;
		o.tlbi_range = true;
		o.purge_at_end = true;
		o.page_shift = 14;
		o.va_bits = 47;
		vt_model_opts_kernel(&o, (enum vt_kernel_gen)k);
		TEST_ASSERT_EQ("kernel", o.kernel, k);
		TEST_ASSERT_EQ("eager_barriers", o.eager_barriers,
			       kernels[k].eager_barriers);
		TEST_ASSERT_EQ("vmap_cont", o.vmap_cont, kernels[k].vmap_cont);
		TEST_ASSERT_EQ("vmalloc_high_order", o.vmalloc_high_order,
			       kernels[k].vmalloc_high_order);
		TEST_ASSERT_EQ("flush_per_page", o.flush_per_page,
			       kernels[k].flush_per_page);
		TEST_ASSERT_EQ("modules_128m", o.modules_128m,
			       kernels[k].modules_128m);
		TEST_ASSERT_EQ("vb_dirty_keep", o.vb_dirty_keep,
			       kernels[k].vb_dirty_keep);
		TEST_ASSERT_EQ("vmalloc_end_256m", o.vmalloc_end_256m,
			       kernels[k].vmalloc_end_256m);
		TEST_ASSERT_EQ("vfree_bulk", vt_kernels[k].vfree_bulk,
			       kernels[k].vfree_bulk);
		TEST_ASSERT_EQ("linear axis", vt_axes_resolve(0, k) & VT_AXES_LINEAR,
			       kernels[k].linear_old ? VT_AXIS_LINEAR_OLD :
						       VT_AXIS_LINEAR_NEW);
		TEST_ASSERT_EQ("cpus kept", o.cpus, 3);
		TEST_ASSERT_EQ("tlbi_range kept", o.tlbi_range, true);
		TEST_ASSERT_EQ("purge_at_end kept", o.purge_at_end, true);
		TEST_ASSERT_EQ("page_shift kept", o.page_shift, 14);
		TEST_ASSERT_EQ("va_bits kept", o.va_bits, 47);
		/* only an option the generation sets is an override */
		TEST_ASSERT_VAL("no override", !vt_model_kernel_overridden(&o));
		o.vmap_cont = !o.vmap_cont;
		TEST_ASSERT_VAL("override", vt_model_kernel_overridden(&o));
	}
}

static void test_table_rules(void)
{
	for (int i = 0; i < VT_OPT__NR; i++) {
		const struct vt_option *t = &vt_options[i];
		int set = 0, nwords = 0;
		char buf[64];

		TEST_ASSERT_VAL("name", t->name && t->name[0]);
		TEST_ASSERT_VAL("json key", t->json && t->json[0]);
		TEST_ASSERT_VAL("help", t->help && t->help[0]);
		for (int j = 0; j < i; j++) {
			TEST_ASSERT_VAL(t->name, strcmp(t->name, vt_options[j].name));
			TEST_ASSERT_VAL(t->json, strcmp(t->json, vt_options[j].json));
		}
		for (int k = 0; k < VT_KERNEL__NR; k++)
			set += t->kernel[k] != 0;
		TEST_ASSERT_VAL("a generation sets it or none does",
				set == 0 || set == VT_KERNEL__NR);
		if (set)
			TEST_ASSERT_EQ(t->name, t->def, t->kernel[VT_KERNEL_DEFAULT] - 1);
		switch (t->kind) {
		case VT_OK_WORD:
			TEST_ASSERT_VAL("words", t->words != NULL);
			while (vt_option_word(t, (unsigned int)nwords, buf, sizeof(buf)))
				nwords++;
			TEST_ASSERT_VAL("2 to 4 words", nwords >= 2 && nwords <= 4);
			for (int w = 0; w < nwords; w++) {
				vt_option_word(t, (unsigned int)w, buf, sizeof(buf));
				TEST_ASSERT_EQ("word index", vt_option_word_index(t, buf), w);
				TEST_ASSERT_VAL("value has a word",
						vt_option_value_word(t, t->values[w], buf,
								     sizeof(buf)));
			}
			TEST_ASSERT_VAL("default has a word",
					vt_option_value_word(t, t->def, buf, sizeof(buf)));
			break;
		case VT_OK_FLAG:
			TEST_ASSERT_VAL("flag default off", t->def == 0 && !t->words);
			break;
		case VT_OK_NUMBER:
			TEST_ASSERT_VAL("range", t->min <= t->def && t->def <= t->max);
			break;
		}
	}
}

static void test_words(void)
{
	const struct vt_option *b = &vt_options[VT_OPT_eager_barriers];
	const struct vt_option *c = &vt_options[VT_OPT_vmap_cont];
	const struct vt_option *f = &vt_options[VT_OPT_purge_at_end];
	struct vt_model_opts o;
	char buf[64];

	TEST_ASSERT_VAL("--barriers", !strcmp(b->name, "barriers"));
	TEST_ASSERT_EQ("per-entry", vt_option_word_index(b, "per-entry"), 2);
	TEST_ASSERT_EQ("per-entry is eager", b->values[2], 1);
	TEST_ASSERT_VAL("report word of eager",
			!strcmp(vt_option_value_word(b, 1, buf, sizeof(buf)), "eager"));
	TEST_ASSERT_EQ("prefix is no word", vt_option_word_index(b, "laz"), -1);
	TEST_ASSERT_EQ("no word", vt_option_word_index(b, ""), -1);
	TEST_ASSERT_VAL("vmap_cont json", !strcmp(c->json, "vmap_cont"));
	TEST_ASSERT_VAL("vmap-cont off",
			!strcmp(vt_option_value_word(c, 0, buf, sizeof(buf)), "off"));
	TEST_ASSERT_VAL("flag on",
			!strcmp(vt_option_value_word(f, 1, buf, sizeof(buf)), "on"));
	TEST_ASSERT_EQ("flag word", vt_option_word_index(f, "off"), 0);
	TEST_ASSERT_VAL("short buffer",
			!strcmp(vt_option_word(b, 2, buf, 4), "per"));

	vt_model_opts_init(&o);
	vt_option_set(&o, VT_OPT_cpus, 4096);
	vt_option_set(&o, VT_OPT_initial_empty, 1);
	TEST_ASSERT_EQ("cpus", o.cpus, 4096);
	TEST_ASSERT_EQ("initial_empty", o.initial_empty, true);
	TEST_ASSERT_EQ("get cpus", vt_option_get(&o, VT_OPT_cpus), 4096);
	TEST_ASSERT_EQ("get vmap_cont", vt_option_get(&o, VT_OPT_vmap_cont), 1);
}

/* arch/arm64/Kconfig ARM64_VA_BITS_* by granule, written out by hand. */
static void test_geometry(void)
{
	static const unsigned int valid[][2] = {
		{ 12, 39 }, { 12, 48 }, { 12, 52 },
		{ 14, 36 }, { 14, 47 }, { 14, 48 }, { 14, 52 },
		{ 16, 42 }, { 16, 48 }, { 16, 52 },
	};
	unsigned int n = 0;

	for (unsigned int ps = 8; ps <= 20; ps++)
		for (unsigned int va = 0; va <= 64; va++) {
			bool want = false;

			for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
				want |= valid[i][0] == ps && valid[i][1] == va;
			n += want;
			if (vt_geometry_valid(ps, va) != want)
				fprintf(stderr, "page_shift %u va_bits %u\n", ps, va);
			TEST_ASSERT_EQ("valid pair", vt_geometry_valid(ps, va), want);
		}
	TEST_ASSERT_EQ("pairs", n, 10);
}

int main(void)
{
	test_defaults();
	test_kernels();
	test_table_rules();
	test_words();
	test_geometry();
	return test_result("test-options");
}
