#!/usr/bin/python3
"""Reference values of analysis.SignedRank (signedrank_test.go) from SciPy.

Run with Debian's /usr/bin/python3 (python3-scipy):
    /usr/bin/python3 analysis/testdata/gen_signedrank.py > analysis/testdata/signedrank_reference.json
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(38)
cases = [
    [0.3, -1.2, 2.5, 0.8, 1.9, -0.4, 1.1],
    [1, 2, 3, 4, 5, 6],
    [-0.05, 0.02, 0.11, -0.03, 0.07, 0.09, 0.04, -0.01, 0.06, 0.08],
    [1, 1, 2, -2, 3, 0, 0, 4, 4, -1],          # ties and zeros: normal approximation
    list(np.round(rng.normal(0.3, 1, 20), 6)),
    list(np.round(rng.normal(0, 1, 49), 6)),
    list(np.round(rng.normal(0.2, 1, 60), 6)),  # above 50: normal
    list(np.round(rng.standard_t(3, 15), 6)),
]
out = []
for d in cases:
    d = [float(x) for x in d]
    nz = [x for x in d if x != 0]
    absd = np.abs(nz)
    exact = len(nz) <= 50 and len(np.unique(absd)) == len(absd)
    res = stats.wilcoxon(d, zero_method="wilcox", correction=False,
                         alternative="two-sided", mode="exact" if exact else "approx")
    ranks = stats.rankdata(absd)
    wplus = float(np.sum(ranks[np.array(nz) > 0]))
    walsh = [(d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d))]
    out.append({"d": d, "p": float(res.pvalue), "w_plus": wplus, "exact": bool(exact),
                "estimate": float(np.median(walsh))})
print(json.dumps(out, indent=1))
