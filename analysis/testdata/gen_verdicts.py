#!/usr/bin/python3
"""Reference values for analysis/verdicts_test.go (Equivalence, Drift),
computed with SciPy and NumPy as an independent implementation.

Regenerate (from the repository root) with Debian's python3-scipy:

    /usr/bin/python3 analysis/testdata/gen_verdicts.py > analysis/testdata/verdicts_reference.json

Equivalence: two one-sided tests at alpha 0.05 in their interval form,
the 90% Hodges-Lehmann interval of log(B) - log(A) (its ranks from the
exact null distribution of the Mann-Whitney U, enumerated here by brute
force) turned into a ratio and checked against [1-margin, 1+margin].

Drift: the Mann-Kendall test of the values against their run order:
Kendall's tau-b from scipy.stats.kendalltau, the two-sided p-value with
continuity correction, (|S| - 1) / sqrt(VarS) with the tie-corrected
variance, S recovered from tau-b.
"""

import itertools
import json
import math
import sys

import numpy as np
import scipy
from scipy import stats

rng = np.random.RandomState(20261201)


def r(xs, nd=3):
    return [round(float(x), nd) for x in xs]


def u_null_cdf(m, n):
    """P(U <= u) by enumerating all C(m+n, m) arrangements."""
    counts = np.zeros(m * n + 1)
    for pos in itertools.combinations(range(m + n), n):
        u = sum(p - k for k, p in enumerate(pos))
        counts[u] += 1
    return np.cumsum(counts) / counts.sum()


def hl_log_interval(a, b, conf):
    la, lb = np.log(np.asarray(a, float)), np.log(np.asarray(b, float))
    d = np.sort(np.subtract.outer(lb, la).ravel())
    cdf = u_null_cdf(len(a), len(b))
    half = (1 - conf) / 2
    k = 0
    while k < len(cdf) and cdf[k] <= half * (1 + 1e-12):
        k += 1
    if k == 0:
        return None
    return math.exp(d[k - 1]), math.exp(d[len(d) - k])


def equivalence(a, b, margin):
    if min(a + b) == 0:
        return dict(verdict="none", why="zeros")
    iv = hl_log_interval(a, b, 0.90)
    if iv is None:
        return dict(verdict="none", why="too few")
    lo, hi = iv
    if lo >= 1 - margin and hi <= 1 + margin:
        v = "equivalent"
    elif lo > 1 + margin or hi < 1 - margin:
        v = "different"
    else:
        v = "not shown equivalent"
    return dict(verdict=v, lo=lo, hi=hi)


def equivalence_cases():
    def s(n, loc, sd=1.0):
        return r(rng.normal(loc, sd, n))
    cases = [
        (s(8, 100), s(8, 100.3), 0.05),    # the same: equivalent
        (s(8, 100), s(8, 120), 0.05),      # 20% apart: different
        (s(5, 100, 6), s(5, 103, 6), 0.05),  # noisy: not shown
        (s(10, 50, 0.5), s(9, 50.2, 0.5), 0.02),
        (s(6, 100), s(7, 96), 0.03),
        ([1.0, 2.0], [1.0, 2.0], 0.05),    # too few for a 90% interval
        ([0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0], 0.05),  # a zero: no ratio
    ]
    out = []
    for a, b, m in cases:
        c = dict(a=a, b=b, margin=m)
        c.update(equivalence(a, b, m))
        out.append(c)
    return out


def mann_kendall(x):
    n = len(x)
    kt = stats.kendalltau(np.arange(n), x, method="asymptotic")
    _, counts = np.unique(x, return_counts=True)
    n0 = n * (n - 1) / 2
    n2 = sum(c * (c - 1) / 2 for c in counts)
    s = kt.correlation * math.sqrt(n0 * (n0 - n2))
    var_s = (n * (n - 1) * (2 * n + 5) - sum(c * (c - 1) * (2 * c + 5) for c in counts)) / 18
    z = (abs(s) - 1) / math.sqrt(var_s) if abs(s) >= 1 else 0.0
    return float(kt.correlation), float(2 * stats.norm.sf(z))


def drift_cases():
    xs = [
        r(100 + np.arange(12) * 0.8 + rng.normal(0, 1, 12)),  # rising
        r(100 - np.arange(10) * 1.5 + rng.normal(0, 1, 10)),  # falling
        r(rng.normal(100, 1, 12)),                            # flat
        [5, 5, 6, 6, 7, 7, 8, 8],                              # ties, rising
        [3, 1, 2],                                             # too few: no test
    ]
    out = []
    for x in xs:
        c = dict(x=x, alpha=0.05)
        if len(x) >= 4:
            tau, p = mann_kendall(x)
            c.update(tested=True, tau=tau, p=p, drifts=p < 0.05)
        else:
            c.update(tested=False, drifts=False)
        out.append(c)
    return out


json.dump(dict(scipy=scipy.__version__, equivalence=equivalence_cases(), drift=drift_cases()),
          sys.stdout, indent=1)
sys.stdout.write("\n")
