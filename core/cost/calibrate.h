/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calibration: published figures, the experiments that say what each one
 * measured, predictions from a profile, and the fit of the profiles' free
 * prices to the figures (log-space least squares with weak priors around
 * hardware anchors; docs/cost-model.md, "Calibration").
 *
 * The replays that turn an experiment into counts are the caller's job
 * (cli/cmd-calibrate.c runs 'gen' and the replay driver); everything here
 * is arithmetic on counts, so the fit and its leave-one-out refits are
 * cheap and deterministic.
 */
#ifndef VT_COST_CALIBRATE_H
#define VT_COST_CALIBRATE_H

#include <stdbool.h>

#include "core/cost/estimate.h"
#include "core/cost/profile.h"
#include "core/error.h"
#include "core/model.h"

/* What a figure's headline number is. */
enum vt_fig_quantity {
	VT_Q_SPEEDUP,		/* T_before / T_after ("1.5x faster", ">0 is faster" percent) */
	VT_Q_TIME_RATIO,	/* T_after / T_before (a percentage change of time) */
	VT_Q_TIME_BEFORE,	/* the before time itself (ns) */
	VT_Q_TIME_AFTER,	/* the after time itself (ns) */
};
extern const char *const vt_fig_quantity_names[4];

enum vt_fig_state {
	VT_FIG_EXPRESSED,	/* has an experiment this build can run */
	VT_FIG_INEXPRESSIBLE,	/* no experiment: the reason says why */
	VT_FIG_PENDING,		/* experiment written, needs counts/strategies this build lacks */
};

/* One side (before or after) of an experiment. */
struct vt_exp_side {
	char strategy[96];
	char options[256];	/* what-if options as "key=value" words, as the replay options */
};

#define VT_EXP_MAX_NEEDS 8

struct vt_figure {
	char id[128];
	enum vt_fig_state state;
	char why[768];		/* inexpressible or pending: the reason */

	/* published, in the headline's terms (ratios, or ns for times) */
	enum vt_fig_quantity q;
	double published;
	bool has_before_ns, has_after_ns;
	double before_ns, after_ns;

	/* the experiment */
	char profile[64];
	char trace_gen[512];	/* 'vmaptool gen' arguments, or "" */
	char trace_file[512];	/* a trace in the project, or "" */
	void *trace_inline;	/* json_t * of an inline trace document, or NULL */
	struct vt_exp_side before, after;
	bool op_timed[VT_OP__NR];
	long from_event;	/* events before it are warm-up, not timed */
	long to_event;		/* events from it on are not timed (0: to the end) */
	char same_as[128];	/* the same measurement as this figure (left out together) */
	int loo_group;		/* figures of one group are left out together */
	bool covers[VT_CE__NR];	/* the cost events the published timing includes */
	double scale;		/* published repetitions per simulated timed repetition */
	bool fit_times;		/* also fit the absolute times (pins the frequency scale) */
	int erratum;		/* -1: the profile's; 0/1: forced for this measurement */
	char needs[VT_EXP_MAX_NEEDS][48];	/* metric names the experiment needs */
	unsigned int nr_needs;
	char assumptions[768];

	/* filled by the runner: counts of the timed region x scale */
	struct vt_cost_counts cb, ca;
	bool ran;

	/* filled by vt_calibrate_fit() / vt_calibrate_predict() */
	int prof;		/* index into the profile set */
	double predicted, err, loo_pred, loo_err;
	bool has_loo;
	double pred_before_ns, pred_after_ns;
};

struct vt_figure_set {
	struct vt_figure *v;
	unsigned int nr;
};

/* At most this many figures in one file (published.json has 176); the
 * message in calibrate.c names the number. */
#define VT_FIGURES_MAX 100000
/* ... and at most 64 MiB of file, refused unread past it. */
#define VT_FIGURES_MAX_INPUT (64ull << 20)

/*
 * vt_figures_load() - read a figures file: a JSON array of figure objects
 * in the format of published.json, each with an "experiment" object or an
 * "inexpressible" reason.  Figures with neither are refused.
 */
int vt_figures_load(const char *path, struct vt_figure_set *set,
		    struct vt_error *err);
void vt_figure_set_release(struct vt_figure_set *set);

/* Parse one side's option words into @o (on top of what @o holds). */
int vt_exp_side_opts(const struct vt_exp_side *s, struct vt_model_opts *o,
		     struct vt_error *err);

/* Time in ns of the covered events of @c under @p (erratum: -1 profile's). */
double vt_calibrate_time_ns(const struct vt_profile *p, const struct vt_cost_counts *c,
			    const bool covers[VT_CE__NR], int erratum);
/* The headline prediction of @f under @p (needs f->ran). */
double vt_calibrate_predict(const struct vt_profile *p, struct vt_figure *f);

/* A fitted group of prices: one factor on the anchors of its members. */
struct vt_fit_group {
	char name[32];
	int prof;
	double theta;		/* log factor on the anchors */
	double sigma;		/* prior sd (log) */
	double bound;		/* |theta| <= bound: the plausible range */
	double determined;	/* 1 - posterior var / prior var */
	bool active;		/* some experiment of the profile counts a member */
};

struct vt_fit {
	struct vt_fit_group *g;
	unsigned int nr;
	double obs_sigma;	/* log-space sd of one observation */
	/* summaries over expressed figures (ratio headlines, then times) */
	unsigned int n_ratio, n_time;
	double med_ratio, worst_ratio, med_ratio_loo, worst_ratio_loo;
	double med_time, worst_time, med_time_loo, worst_time_loo;
};

/*
 * vt_calibrate_fit() - fit the free prices of @profs to the expressed
 * figures, compute every figure's prediction, error and leave-one-out
 * error, and write the fitted prices back into @profs (source "fitted",
 * "determined" set).  Prices with fit=false stay as they are, unless
 * @free_measured frees the measured ones too.
 */
int vt_calibrate_fit(struct vt_profile *profs, unsigned int nr_profs,
		     struct vt_figure_set *set, bool free_measured,
		     struct vt_fit *fit, struct vt_error *err);
void vt_fit_release(struct vt_fit *fit);

/* Predictions and errors of every expressed figure, without fitting. */
void vt_calibrate_check(const struct vt_profile *profs, unsigned int nr_profs,
			struct vt_figure_set *set, struct vt_fit *summary);

#endif
