// SPDX-License-Identifier: GPL-2.0
/*
 * The cost model: the estimate is count x price per event (with the
 * erratum doubling the broadcast TLBIs and their dsb ish), every built-in
 * profile loads, malformed profiles are refused with a reason, a saved
 * profile reads back the same, and the fit recovers known prices from
 * synthetic figures while leaving unobserved prices at their anchors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost/calibrate.h"
#include "prng.h"
#include "test.h"

static void test_estimate(void)
{
	struct vt_profile p;
	struct vt_error err;
	struct vt_stats s;
	struct vt_cost_counts c;
	struct vt_cost_estimate est;

	vt_error_init(&err);
	TEST_ASSERT_VAL("load rk3588-a55", !vt_profile_load("rk3588-a55", &p, &err));
	vt_stats_clear(&s);
	s.m[VT_M_pte_writes] = 100;
	s.m[VT_M_pte_clears] = 50;
	s.m[VT_M_pmd_writes] = 2;
	s.m[VT_M_set_pte_at_calls] = 100;
	s.m[VT_M_tlbi_vaale1is] = 3;
	s.m[VT_M_dsb_ish] = 1;
	s.m[VT_M_dsb_ishst] = 4;
	s.m[VT_M_isb] = 4;
	vt_cost_counts_from_stats(&c, &s, 2);
	TEST_ASSERT_VAL("stores of every level are one event", c.n[VT_CE_pte_store] == 152);
	TEST_ASSERT_VAL("api calls", c.n[VT_CE_api_call] == 2);
	TEST_ASSERT_VAL("dsb ish is the flush completion", c.n[VT_CE_tlb_sync] == 1);
	TEST_ASSERT_VAL("set_pte_at counted", c.counted[VT_CE_set_pte_at]);
	vt_cost_estimate(&p, &c, &est);
	{
		double want = 152 * p.p[VT_CE_pte_store].cycles +
			      100 * p.p[VT_CE_set_pte_at].cycles +
			      2 * p.p[VT_CE_api_call].cycles +
			      3 * p.p[VT_CE_tlbi_vaale1is].cycles +
			      p.p[VT_CE_tlb_sync].cycles +
			      4 * p.p[VT_CE_dsb_ishst].cycles + 4 * p.p[VT_CE_isb].cycles;
		double tlbi = 3 * p.p[VT_CE_tlbi_vaale1is].cycles + p.p[VT_CE_tlb_sync].cycles;
		double total = est.total;

		TEST_ASSERT_VAL("total is the sum of count x price", fabs(est.total - want) < 1e-6);
		TEST_ASSERT_VAL("ns from the clock",
				fabs(est.ns - est.total * 1000 / p.freq_mhz) < 1e-6);
		p.erratum_4118414 = true;
		vt_cost_estimate(&p, &c, &est);
		TEST_ASSERT_VAL("the erratum doubles each broadcast TLBI and its dsb ish",
				fabs(est.total - (total + tlbi)) < 1e-6);
		TEST_ASSERT_VAL("per-event cycles add up", fabs(est.cycles[VT_CE_tlb_sync] -
				2 * p.p[VT_CE_tlb_sync].cycles) < 1e-9);
	}
	TEST_ASSERT_EQ("rounding", vt_cost_round(2.5), 3);
	TEST_ASSERT_EQ("rounding of nothing", vt_cost_round(-1), 0);
}

static void test_profiles(void)
{
	struct vt_error err;
	struct vt_profile p, q;
	unsigned int nr;
	char **names, path[] = "/tmp/vt-test-cost.XXXXXX", file[128];
	FILE *f;
	bool has_default = false;

	vt_error_init(&err);
	TEST_ASSERT_VAL("list", !vt_profile_names(&names, &nr, &err));
	TEST_ASSERT_VAL("seven built-in profiles or more", nr >= 7);
	for (unsigned int i = 0; i < nr; i++) {
		TEST_ASSERT_VAL(names[i], !vt_profile_load(names[i], &p, &err));
		TEST_ASSERT_VAL("name matches the file", !strcmp(p.name, names[i]));
		has_default |= !strcmp(names[i], VT_PROFILE_DEFAULT);
		for (int e = 0; e < VT_CE__NR; e++) {
			const struct vt_cost_param *cp = &p.p[e];

			/* Physically plausible: every price within its stated range. */
			TEST_ASSERT_VAL("price within the plausible range of its anchor",
					cp->cycles >= cp->anchor / cp->range * 0.999 &&
					cp->cycles <= cp->anchor * cp->range * 1.001);
			TEST_ASSERT_VAL("every price says where it comes from", cp->basis[0]);
		}
	}
	TEST_ASSERT_VAL("the default profile exists", has_default);
	vt_profile_names_free(names, nr);

	TEST_ASSERT_VAL("unknown name", vt_profile_load("no-such-cpu", &p, &err) ==
			VT_ERR_NO_PROFILE);
	TEST_ASSERT_VAL("names are not paths", vt_profile_load("../x", &p, &err) < 0);
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(path));
	snprintf(file, sizeof(file), "%s/bad.json", path);
	f = fopen(file, "w");
	fputs("{\"format\": \"vmaptool-profile\", \"version\": 1, \"name\": \"x\", "
	      "\"freq_mhz\": 1000, \"costs\": {}}", f);
	fclose(f);
	TEST_ASSERT_VAL("a price missing", vt_profile_load(file, &p, &err) == VT_ERR_BAD_PROFILE &&
			strstr(err.msg, "no price"));
	f = fopen(file, "w");
	fputs("{\"format\": ", f);
	fclose(f);
	vt_error_init(&err);
	TEST_ASSERT_VAL("syntax error located", vt_profile_load(file, &p, &err) ==
			VT_ERR_BAD_PROFILE && err.line == 1);
	/* save + load round trip */
	TEST_ASSERT_VAL("load", !vt_profile_load("altra-vm", &p, &err));
	snprintf(file, sizeof(file), "%s/rt.json", path);
	TEST_ASSERT_VAL("save", !vt_profile_save(&p, file, &err));
	TEST_ASSERT_VAL("reload", !vt_profile_load(file, &q, &err));
	for (int e = 0; e < VT_CE__NR; e++)
		TEST_ASSERT_VAL("round trip keeps prices",
				fabs(p.p[e].cycles - q.p[e].cycles) <= 1e-5 * p.p[e].cycles &&
				p.p[e].source == q.p[e].source && p.p[e].fit == q.p[e].fit);
	TEST_ASSERT_VAL("round trip keeps the erratum", p.erratum_4118414 == q.erratum_4118414);
	unlink(file);
	snprintf(file, sizeof(file), "%s/bad.json", path);
	unlink(file);
	rmdir(path);
}

/* A synthetic figure: a ratio of two count sets under one profile. */
static void synth(struct vt_figure *f, double stores, double calls, double api,
		  double huge, enum vt_fig_quantity q)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "synthetic-%g-%g", stores, calls);
	f->state = VT_FIG_EXPRESSED;
	f->ran = true;
	f->q = q;
	f->erratum = -1;
	f->scale = 1;
	for (int e = 0; e < VT_CE__NR; e++)
		f->covers[e] = true;
	f->cb.n[VT_CE_pte_store] = f->ca.n[VT_CE_pte_store] = stores;
	f->cb.n[VT_CE_set_pte_at] = calls;
	f->ca.n[VT_CE_set_huge_pte_at] = huge;
	f->cb.n[VT_CE_api_call] = f->ca.n[VT_CE_api_call] = api;
}

static void test_fit(void)
{
	struct vt_profile truth, p;
	struct vt_figure_set set;
	struct vt_fit fit;
	struct vt_error err;
	static const double shape[][4] = {
		{ 256, 256, 1, 16 }, { 25600, 25600, 1, 100 }, { 1024, 1024, 4, 4 },
		{ 16, 16, 1, 1 }, { 4096, 4096, 2, 16 }, { 512, 512, 1, 2 },
	};
	unsigned int n = sizeof(shape) / sizeof(shape[0]);

	vt_error_init(&err);
	TEST_ASSERT_VAL("load", !vt_profile_load("rk3588-a55", &truth, &err));
	for (int e = 0; e < VT_CE__NR; e++) {
		truth.p[e].cycles = truth.p[e].anchor;
		truth.p[e].fit = e == VT_CE_pte_store || e == VT_CE_set_pte_at ||
				 e == VT_CE_api_call || e == VT_CE_set_huge_pte_at;
	}
	/* the truth: prices moved inside their ranges */
	truth.p[VT_CE_pte_store].cycles = truth.p[VT_CE_pte_store].anchor * 1.6;
	truth.p[VT_CE_set_pte_at].cycles = truth.p[VT_CE_set_pte_at].anchor * 1.3;
	truth.p[VT_CE_api_call].cycles = truth.p[VT_CE_api_call].anchor * 0.7;

	set.nr = n + 1;
	set.v = calloc(set.nr, sizeof(*set.v));
	for (unsigned int i = 0; i < n; i++) {
		synth(&set.v[i], shape[i][0], shape[i][1], shape[i][2], shape[i][3], VT_Q_SPEEDUP);
		set.v[i].loo_group = i;
		set.v[i].published = vt_calibrate_predict(&truth, &set.v[i]);
	}
	/* one absolute time pins the scale */
	synth(&set.v[n], 25600, 25600, 1, 100, VT_Q_TIME_BEFORE);
	set.v[n].loo_group = n;
	set.v[n].published = vt_calibrate_predict(&truth, &set.v[n]);

	p = truth;
	for (int e = 0; e < VT_CE__NR; e++)
		p.p[e].cycles = p.p[e].anchor;
	TEST_ASSERT_VAL("fit", !vt_calibrate_fit(&p, 1, &set, false, &fit, &err));
	TEST_ASSERT_VAL("in-sample error small", fit.worst_ratio < 0.01 && fit.worst_time < 0.01);
	TEST_ASSERT_VAL("leave-one-out error small", fit.worst_ratio_loo < 0.05);
	TEST_ASSERT_VAL("pte_store recovered",
			fabs(p.p[VT_CE_pte_store].cycles / truth.p[VT_CE_pte_store].cycles - 1) < 0.05);
	TEST_ASSERT_VAL("set_pte_at recovered",
			fabs(p.p[VT_CE_set_pte_at].cycles / truth.p[VT_CE_set_pte_at].cycles - 1) < 0.05);
	TEST_ASSERT_VAL("fitted prices say so", p.p[VT_CE_pte_store].source == VT_SRC_FITTED &&
			p.p[VT_CE_pte_store].determined > 0.9);
	TEST_ASSERT_VAL("an unobserved price stays at its anchor",
			p.p[VT_CE_table_alloc].cycles == p.p[VT_CE_table_alloc].anchor &&
			p.p[VT_CE_table_alloc].source == VT_SRC_HARDWARE);
	vt_fit_release(&fit);

	/* a published value outside every plausible price: the fit stays in range */
	set.v[0].published *= 50;
	p = truth;
	TEST_ASSERT_VAL("fit", !vt_calibrate_fit(&p, 1, &set, false, &fit, &err));
	for (int e = 0; e < VT_CE__NR; e++)
		TEST_ASSERT_VAL("prices never leave their range",
				p.p[e].cycles <= p.p[e].anchor * p.p[e].range * 1.0001 &&
				p.p[e].cycles >= p.p[e].anchor / p.p[e].range * 0.9999);
	TEST_ASSERT_VAL("the impossible figure is reported, not hidden", fabs(set.v[0].err) > 0.5);
	vt_fit_release(&fit);
	free(set.v);
}

static void test_explain(void)
{
	struct vt_profile p;
	struct vt_error err;
	struct vt_cost_counts a = { 0 }, b = { 0 };
	struct vt_cost_reason r[4];
	unsigned int n;

	vt_error_init(&err);
	TEST_ASSERT_VAL("load", !vt_profile_load("generic-a76", &p, &err));
	a.n[VT_CE_pte_store] = b.n[VT_CE_pte_store] = 25600;
	a.n[VT_CE_set_pte_at] = 25600;
	b.n[VT_CE_set_huge_pte_at] = 100;
	a.n[VT_CE_table_walk] = 1;
	b.n[VT_CE_table_walk] = 2;
	n = vt_cost_explain(&p, &a, &b, r, 2);
	TEST_ASSERT_EQ("two reasons asked for", n, 2);
	TEST_ASSERT_VAL("the per-page call explains most", r[0].e == VT_CE_set_pte_at &&
			r[0].n_a == 25600 && r[0].n_b == 0 && r[0].cycles > 0);
	TEST_ASSERT_VAL("then the batched call", r[1].e == VT_CE_set_huge_pte_at &&
			r[1].cycles < 0);
	n = vt_cost_explain(&p, &a, &a, r, 4);
	TEST_ASSERT_EQ("equal counts explain nothing", n, 0);
	TEST_ASSERT_VAL("api calls charged to the unmap side",
			!strcmp(vt_cost_function(VT_CE_api_call, VT_OP_VFREE), "free_vmap_area_noflush") &&
			!strcmp(vt_cost_function(VT_CE_api_call, VT_OP_VMAP), "alloc_vmap_area"));
}

int main(void)
{
	test_explain();
	test_estimate();
	test_profiles();
	test_fit();
	return test_result("test-cost");
}
