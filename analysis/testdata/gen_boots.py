#!/usr/bin/python3
"""Reference values for analysis/boots_test.go, computed with SciPy and
statsmodels as an independent implementation of the boot-level comparison.

Regenerate (from the repository root) with Debian's python3-scipy and
python3-statsmodels:

    /usr/bin/python3 analysis/testdata/gen_boots.py > analysis/testdata/boots_reference.json

Each case is two sides, each a list of boots, each a list of positive
values. For every case:
- scipy.stats.ttest_ind(mean log per boot of B, of A, equal_var=True):
  t, p, and the 95% interval of the difference of log means
  (diff +- t.ppf(0.975, df) * se);
- for balanced cases, statsmodels' MixedLM (REML) of log y ~ side with a
  random intercept per boot: the side effect, its standard error, the
  between-boot variance (cov_re) and the within-boot variance (scale).
"""

import json
import math
import sys
import warnings

import numpy as np
import pandas as pd
import scipy
import statsmodels
import statsmodels.formula.api as smf
from scipy import stats

rng = np.random.RandomState(20261130)


def campaign(boots, runs, sd_between, sd_within, ratio=1.0, loc=100.0):
    sides = []
    for shift in (0.0, math.log(ratio)):
        side = []
        for k in range(boots if isinstance(boots, int) else len(boots)):
            n = runs if isinstance(runs, int) else runs[k]
            b = rng.normal(0, sd_between)
            side.append([round(float(math.exp(math.log(loc) + shift + b + e)), 4)
                         for e in rng.normal(0, sd_within, n)])
        sides.append(side)
    return sides


def case(a, b, balanced):
    la = [np.log(np.array(x)) for x in a]
    lb = [np.log(np.array(x)) for x in b]
    ma = np.array([x.mean() for x in la])
    mb = np.array([x.mean() for x in lb])
    t = stats.ttest_ind(mb, ma, equal_var=True)
    df = len(ma) + len(mb) - 2
    sp2 = (((ma - ma.mean()) ** 2).sum() + ((mb - mb.mean()) ** 2).sum()) / df
    se = math.sqrt(sp2 * (1 / len(ma) + 1 / len(mb)))
    diff = mb.mean() - ma.mean()
    q = stats.t.ppf(0.975, df)
    out = {"a": a, "b": b, "t": float(t.statistic), "p": float(t.pvalue), "df": df,
           "ratio": math.exp(diff), "lo": math.exp(diff - q * se), "hi": math.exp(diff + q * se)}
    if balanced:
        rows = []
        for side, groups in (("A", la), ("B", lb)):
            for k, g in enumerate(groups):
                for y in g:
                    rows.append({"y": float(y), "side": side, "boot": side + str(k)})
        d = pd.DataFrame(rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = smf.mixedlm("y ~ side", d, groups=d["boot"]).fit(reml=True)
        out["lmm"] = {"effect": float(m.fe_params["side[T.B]"]), "se": float(m.bse["side[T.B]"]),
                      "between": float(m.cov_re.iloc[0, 0]), "within": float(m.scale)}
    return out


cases = []
for boots, runs, sb, sw, ratio in [(3, 10, 0.01, 0.01, 1.0), (3, 10, 0.02, 0.01, 1.03),
                                   (4, 5, 0.01, 0.02, 0.97), (6, 8, 0.005, 0.01, 1.01)]:
    a, b = campaign(boots, runs, sb, sw, ratio)
    cases.append(case(a, b, True))
a, b = campaign([0, 0, 0], [4, 7, 5], 0.01, 0.01, 1.02)
cases.append(case(a, b, False))

json.dump({"scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "cases": cases},
          sys.stdout, indent=1)
sys.stdout.write("\n")
