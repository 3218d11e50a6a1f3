#!/usr/bin/python3
"""Reference values for the tests of contend/analysis, computed with SciPy
and NumPy as an independent implementation.

Regenerate (from the repository root) with Debian's python3-scipy:

    /usr/bin/python3 analysis/testdata/gen_reference.py > analysis/testdata/reference.json

Conventions match the Go package: every two-sample statistic is of B
against A, so scipy is called as f(b, a). The exact null distribution of
the Mann-Whitney U used for the Hodges-Lehmann intervals is obtained here
by brute-force enumeration of all arrangements, not by a recursion.
"""

import itertools
import json
import math
import sys

import numpy as np
import scipy
from scipy import stats

rng = np.random.RandomState(20240601)


def r(xs, nd=3):
    """Round to nd decimals so that the JSON holds the exact inputs."""
    return [round(float(x), nd) for x in xs]


def distinct(xs):
    return len(set(xs)) == len(xs)


def sample(n, loc=100.0, scale=5.0, nd=3, lognormal=False):
    if lognormal:
        return r(np.exp(rng.normal(math.log(loc), scale / loc, n)), nd)
    return r(rng.normal(loc, scale, n), nd)


def no_ties(a, b):
    return distinct(a + b)


# ---- Mann-Whitney U -------------------------------------------------------

def mw_cases():
    cases = []
    pairs = [
        ([1, 2, 3, 4], [5, 6, 7, 8]),
        ([1.5, 3.2, 0.7], [2.2, 4.1, 5.0]),
        ([10.1, 9.8, 10.4, 10.0, 9.9], [10.3, 10.6, 10.2, 10.8, 10.5, 10.7]),
    ]
    for n1, n2, shift in [(5, 5, 3), (7, 9, 2), (12, 10, 1), (20, 20, 2), (8, 30, 4), (25, 30, 1.5), (50, 50, 1)]:
        while True:
            a, b = sample(n1), sample(n2, loc=100 + shift)
            if no_ties(a, b):
                break
        pairs.append((a, b))
    for a, b in pairs:
        assert no_ties(a, b)
        for method in ("exact", "asymptotic"):
            for alt in ("two-sided", "less", "greater"):
                res = stats.mannwhitneyu(b, a, alternative=alt, method=method, use_continuity=True)
                cases.append(dict(a=a, b=b, alternative=alt, method=method, ties=False,
                                  u=float(res.statistic), p=float(res.pvalue)))
    # Ties: asymptotic only (with tie correction and continuity correction).
    tied = [
        ([1, 2, 2, 3], [2, 3, 3, 4, 5]),
        ([5, 5, 5, 6], [5, 6, 6, 7]),
        ([1, 1, 1], [2, 2, 2]),
        (r(rng.normal(10, 2, 15), 0), r(rng.normal(11, 2, 18), 0)),
        (r(rng.normal(10, 2, 60), 0), r(rng.normal(10.5, 2, 70), 0)),
    ]
    for a, b in tied:
        for alt in ("two-sided", "less", "greater"):
            res = stats.mannwhitneyu(b, a, alternative=alt, method="asymptotic", use_continuity=True)
            cases.append(dict(a=a, b=b, alternative=alt, method="asymptotic", ties=True,
                              u=float(res.statistic), p=float(res.pvalue)))
    return cases


# ---- Welch ----------------------------------------------------------------

def welch_cases():
    cases = []
    pairs = [
        ([1, 2, 3, 4], [5, 6, 7, 8]),
        ([10.0, 10.5], [11.0, 13.0, 12.5]),
        (sample(10, scale=2), sample(12, loc=102, scale=6)),
        (sample(30, scale=5), sample(8, loc=99, scale=1)),
    ]
    for a, b in pairs:
        na, nb = len(a), len(b)
        va, vb = np.var(a, ddof=1) / na, np.var(b, ddof=1) / nb
        df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
        se = math.sqrt(va + vb)
        diff = float(np.mean(b) - np.mean(a))
        for alt in ("two-sided", "less", "greater"):
            res = stats.ttest_ind(b, a, equal_var=False, alternative=alt)
            for conf in (0.95, 0.99):
                q = stats.t.ppf((1 + conf) / 2, df)
                cases.append(dict(a=a, b=b, alternative=alt, confidence=conf,
                                  t=float(res.statistic), df=float(df), p=float(res.pvalue),
                                  diff=diff, se=se, lo=diff - q * se, hi=diff + q * se))
    return cases


# ---- Summaries --------------------------------------------------------------

def median_ci(x, conf):
    s = sorted(x)
    n = len(s)
    best, cov = 0, 0.0
    for l in range(1, n // 2 + 1):
        c = 1 - 2 * stats.binom.cdf(l - 1, n, 0.5)
        if c >= conf:
            best, cov = l, c
        else:
            break
    if best == 0:
        return dict(ok=False, coverage=float(1 - 2 * stats.binom.cdf(0, n, 0.5)))
    return dict(ok=True, lo=s[best - 1], hi=s[n - best], coverage=float(cov))


def summary_cases():
    xs = [
        [5.0],
        [2.0, 1.0],
        [3, 1, 2],
        [4, 4, 4, 4],
        [1, 2, 3, 4, 5, 6],
        [7.5, 1.25, 3.0, 9.0, 2.5, 6.0, 4.75],
        sample(10), sample(20), sample(37, lognormal=True), sample(100),
    ]
    cases = []
    for x in xs:
        q1, med, q3 = np.percentile(x, [25, 50, 75])
        case = dict(x=x, q1=float(q1), median=float(med), q3=float(q3),
                    mean=float(np.mean(x)),
                    stddev=float(np.std(x, ddof=1)) if len(x) > 1 else 0.0,
                    median_ci={})
        for conf in (0.9, 0.95, 0.99):
            case["median_ci"][str(conf)] = median_ci(x, conf)
        cases.append(case)
    return cases


# ---- Hodges-Lehmann ---------------------------------------------------------

def u_null_cdf(m, n):
    """P(U <= u) by enumerating all C(m+n, m) arrangements."""
    counts = np.zeros(m * n + 1)
    for pos in itertools.combinations(range(m + n), n):  # positions of B
        # U = pairs with b above a = sum over b of (#a below it).
        u = sum(p - k for k, p in enumerate(pos))
        counts[u] += 1
    return np.cumsum(counts) / counts.sum()


def hl(a, b, conf):
    d = np.sort(np.subtract.outer(np.asarray(b, float), np.asarray(a, float)).ravel())
    out = dict(shift=float(np.median(d)))
    cdf = u_null_cdf(len(a), len(b))
    half = (1 - conf) / 2
    k = 0
    # The slack counts a coverage equal to conf (up to rounding) as reaching it.
    while k < len(cdf) and cdf[k] <= half * (1 + 1e-12):
        k += 1
    # Now cdf[k-1] <= half < cdf[k]: k is the rank of the lower bound.
    if k == 0:
        out.update(ok=False, coverage=float(1 - 2 * cdf[0]))
    else:
        out.update(ok=True, lo=float(d[k - 1]), hi=float(d[len(d) - k]), coverage=float(1 - 2 * cdf[k - 1]))
    return out


def hl_cases():
    pairs = [
        ([1, 2, 3], [4, 5, 6]),
        ([1, 2, 3, 4], [2, 4, 6, 8]),
        ([10.1, 9.8, 10.4, 10.0, 9.9], [10.3, 10.6, 10.2, 10.8, 10.5, 10.7]),
        (sample(6), sample(7, loc=104)),
        (sample(8, lognormal=True), sample(8, loc=110, lognormal=True)),
        (sample(9, loc=50, scale=10), sample(10, loc=45, scale=10)),
    ]
    cases = []
    for a, b in pairs:
        for conf in (0.9, 0.95):
            c = dict(a=a, b=b, confidence=conf, **hl(a, b, conf))
            if min(a + b) > 0:
                lg = hl(np.log(a).tolist(), np.log(b).tolist(), conf)
                c["rel_estimate"] = math.expm1(lg["shift"])
                if lg["ok"]:
                    c["rel_lo"], c["rel_hi"] = math.expm1(lg["lo"]), math.expm1(lg["hi"])
                c["rel_change"] = float(np.median(b) / np.median(a) - 1)
            cases.append(c)
    return cases


def hl_zeros_cases():
    """Non-negative samples with zeros (kernel counters that are mostly 0):
    the interval is of the shift B-A itself, in the unit of the values,
    and the estimate of the relative change is shift / median(A). A
    RandomState of their own, so that the other cases keep their values."""
    zrng = np.random.RandomState(20261201)

    def counts(n, lam, pzero):
        return [0.0 if zrng.rand() < pzero else float(zrng.poisson(lam)) for _ in range(n)]

    pairs = [
        ([0, 0, 0, 1, 2, 5], [0, 0, 1, 0, 0, 0]),
        ([0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7]),
        ([3, 3, 3, 3, 3, 3, 3], [0, 0, 0, 0, 0, 0, 0]),
        ([0, 6, 1, 9, 0, 2, 4, 0], [15, 0, 1, 0, 3, 0, 0, 2]),
        (counts(9, 4, 0.3), counts(10, 2, 0.5)),
        (counts(11, 30, 0.2), counts(10, 60, 0.2)),
        (counts(10, 3, 0.6), counts(10, 3, 0.6)),
    ]
    cases = []
    for a, b in pairs:
        for conf in (0.9, 0.95):
            c = dict(a=a, b=b, confidence=conf, **hl(a, b, conf))
            ma, mb = float(np.median(a)), float(np.median(b))
            c["median_a"] = ma
            if ma != 0:
                c["rel_estimate"] = c["shift"] / abs(ma)
                c["rel_change"] = (mb - ma) / abs(ma)
            cases.append(c)
    return cases


# ---- Trend ------------------------------------------------------------------

def trend_cases():
    xs = [
        [1, 2, 3, 4, 5, 6],
        [3, 1, 4, 1, 5, 9, 2, 6],
        [5, 5, 6, 6, 7, 7, 7, 8],
        sample(15),
        r(np.arange(20) * 0.3 + rng.normal(0, 1, 20)),
        r(rng.normal(0, 1, 40), 0),
    ]
    cases = []
    for x in xs:
        n = len(x)
        t = np.arange(n)
        s = sum(np.sign(x[j] - x[i]) for i in range(n) for j in range(i + 1, n))
        _, counts = np.unique(x, return_counts=True)
        var_s = (n * (n - 1) * (2 * n + 5) - sum(c * (c - 1) * (2 * c + 5) for c in counts)) / 18
        z_cc = (s - np.sign(s)) / math.sqrt(var_s) if s != 0 else 0.0
        kt = stats.kendalltau(t, x, method="asymptotic")
        sp = stats.spearmanr(t, x)
        cases.append(dict(x=x, s=float(s), var_s=float(var_s), z=float(z_cc),
                          mk_p=float(2 * stats.norm.sf(abs(z_cc))),
                          tau_b=float(kt.correlation), kendall_p_no_cc=float(kt.pvalue),
                          rho=float(sp.correlation), spearman_p=float(sp.pvalue)))
    return cases


# ---- Small things -----------------------------------------------------------

def cliff_cases():
    pairs = [([1, 2, 3], [4, 5, 6]), ([1, 2, 2, 3], [2, 3, 3, 4, 5]), (sample(10), sample(11, loc=101))]
    out = []
    for a, b in pairs:
        d = np.sign(np.subtract.outer(np.asarray(b, float), np.asarray(a, float))).mean()
        out.append(dict(a=a, b=b, delta=float(d)))
    return out


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        adj[i] = run
    return adj


def holm_cases():
    pss = [[0.01], [0.01, 0.04, 0.03, 0.005], [0.5, 0.2, 0.9], [0.001, 0.001, 0.2, 0.04, 0.3]]
    return [dict(p=ps, adjusted=holm(ps)) for ps in pss]


def min_p_cases():
    out = []
    for n1, n2 in [(3, 3), (4, 4), (3, 5), (5, 5), (6, 8), (10, 10)]:
        out.append(dict(n1=n1, n2=n2, two_sided=min(1.0, 2 / scipy.special.comb(n1 + n2, n1, exact=True))))
    return out


out = dict(
    generator="analysis/testdata/gen_reference.py",
    scipy=scipy.__version__, numpy=np.__version__,
    mannwhitney=mw_cases(), welch=welch_cases(), summary=summary_cases(),
    hodges_lehmann=hl_cases(), hl_zeros=hl_zeros_cases(), trend=trend_cases(), cliffs_delta=cliff_cases(),
    holm=holm_cases(), min_p=min_p_cases(),
)
# One case per line keeps diffs readable.
lines = []
for key, val in out.items():
    if isinstance(val, list):
        body = ",\n".join("  " + json.dumps(c) for c in val)
        lines.append(" %s: [\n%s\n ]" % (json.dumps(key), body))
    else:
        lines.append(" %s: %s" % (json.dumps(key), json.dumps(val)))
sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")
