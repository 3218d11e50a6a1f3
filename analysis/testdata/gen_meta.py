#!/usr/bin/python3
"""Reference values for analysis/meta_test.go (RandomEffects,
LogRatioEffect), computed with NumPy and statsmodels as an independent
implementation.

Regenerate (from the repository root) with Debian's python3-statsmodels:

    /usr/bin/python3 analysis/testdata/gen_meta.py > analysis/testdata/meta_reference.json

Each case is a fleet: per host, two samples of positive values. The
per-host effect is mean(log b) - mean(log a) with variance
var(log a, ddof=1)/n_a + var(log b, ddof=1)/n_b; the fleet is
statsmodels.stats.meta_analysis.combine_effects(effect, variance,
method_re="chi2", use_t=True):
- "random effect" row: the DerSimonian-Laird estimate and standard error;
- "random effect wls" row: the Hartung-Knapp standard error (sd_eff_w_re_hksj);
- tau2, q, i2; test_homogeneity() for Q's p-value;
- statsmodels 0.13 does not truncate the DerSimonian-Laird tau2 at 0 as
  the method defines it: where its tau2 is negative, the random-effects
  model is the fixed-effect one, so the "fixed effect" and "fixed effect
  wls" rows are the reference, tau2 is 0 and I2 is max(0, I2);
- Welch's heterogeneity test: statsmodels.stats.oneway.anova_oneway(use_var="unequal") on raw groups (the "welch" list);
- the t interval and p of the modified Hartung-Knapp method (the larger of
  the two standard errors, t on k-1 degrees of freedom) from SciPy.
"""

import json
import math
import sys
import warnings

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.oneway import anova_oneway

warnings.simplefilter("ignore")
rng = np.random.RandomState(20261201)


def fleet(k, n, sd, effects):
    hosts = []
    for i in range(k):
        a = np.exp(math.log(100) + rng.normal(0, sd, n))
        b = np.exp(math.log(100) + effects[i] + rng.normal(0, sd, n))
        hosts.append([[round(float(x), 6) for x in a], [round(float(x), 6) for x in b]])
    return hosts


def case(hosts):
    y, v = [], []
    for a, b in hosts:
        la, lb = np.log(a), np.log(b)
        y.append(lb.mean() - la.mean())
        v.append(la.var(ddof=1) / len(la) + lb.var(ddof=1) / len(lb))
    y, v = np.array(y), np.array(v)
    r = combine_effects(y, v, method_re="chi2", use_t=True)
    k = len(y)
    if r.tau2 >= 0:
        mu, se_dl, se_hk, tau2 = r.mean_effect_re, r.sd_eff_w_re, r.sd_eff_w_re_hksj, r.tau2
    else:
        mu, se_dl, se_hk, tau2 = r.mean_effect_fe, r.sd_eff_w_fe, r.sd_eff_w_fe_hksj, 0.0
    se = max(se_dl, se_hk)
    crit = stats.t.ppf(0.975, k - 1)
    hom = r.test_homogeneity()
    return {
        "hosts": hosts,
        "y": y.tolist(), "v": v.tolist(),
        "estimate": mu, "se_dl": se_dl, "se_hk": se_hk,
        "fixed": r.mean_effect_fe,
        "tau2": tau2, "q": r.q, "qp": hom.pvalue, "i2": max(0.0, r.i2),
        "lo": mu - crit * se, "hi": mu + crit * se,
        "p": 2 * stats.t.sf(abs(mu / se), k - 1),
    }


def welch(groups):
    """Welch's heterogeneity test as RandomEffects computes it from
    effects (y = group mean, v = var/n, df = n - 1), against statsmodels'
    anova_oneway on the raw groups."""
    r = anova_oneway([np.array(g) for g in groups], use_var="unequal")
    return {"groups": groups, "f": r.statistic, "p": r.pvalue, "df1": r.df[0], "df2": r.df[1]}


welch_cases = [
    welch([[1, 2, 3, 4], [2, 3, 4, 5, 9], [5, 6, 7]]),
    welch([[round(float(x), 6) for x in rng.normal(m, s, n)] for m, s, n in
           [(0, 1, 5), (0.5, 2, 8), (0.1, 0.5, 4), (1, 1, 10)]]),
    welch([[round(float(x), 6) for x in rng.normal(0, 1, 6)] for _ in range(2)]),
]

cases = [
    case(fleet(2, 6, 0.02, [0.0, 0.0])),
    case(fleet(3, 6, 0.03, [0.05, 0.05, 0.05])),
    case(fleet(4, 10, 0.02, [0.1, 0.0, -0.05, 0.2])),
    case(fleet(5, 8, 0.05, [0.0] * 5)),
    case(fleet(8, 4, 0.01, [0.02, 0.03, 0.01, 0.02, 0.5, 0.02, 0.02, 0.03])),
]
json.dump({"generator": "gen_meta.py", "scipy": scipy.__version__,
           "statsmodels": statsmodels.__version__, "cases": cases, "welch": welch_cases}, sys.stdout, indent=1)
sys.stdout.write("\n")
