#!/usr/bin/python3
"""Reference values for contend/analysis on extreme but valid inputs:
subnormal, tiny, huge and near-largest floats, and samples that mix
magnitudes or signs. Computed with SciPy and NumPy on rescaled data, which
is what location/scale-invariant statistics must agree with whatever the
magnitude of the values.

Regenerate (from the repository root) with Debian's python3-scipy:

    /usr/bin/python3 analysis/testdata/gen_extreme.py > analysis/testdata/extreme.json

Conventions as in gen_reference.py: statistics of B against A. Each case
stores its inputs exactly (JSON floats round-trip) and:
- welch: scipy.stats.ttest_ind(b, a, equal_var=False) on the values times
  2**-k (k the binary exponent of the largest |value|); Diff, SE and the
  95% interval are multiplied back by 2**k;
- mw_p: two-sided Mann-Whitney p on the ranks of the values (SciPy's rankdata
  gives NaN on values of both signs near the largest float);
- summaries: median, quartiles (type 7) and mean computed exactly with
  fractions, standard deviation by NumPy on the rescaled values;
- rel: the Hodges-Lehmann relative change: on log values (Python's
  math.log, correct for subnormals) when all values are positive, else the
  shift of the rescaled values over |median(A)|; its interval at 95% from
  the exact null distribution of U, enumerated by brute force.
"""

import itertools
import json
import math
import sys
from fractions import Fraction

import numpy as np
import scipy
from scipy import stats

rng = np.random.RandomState(20261130)


def base(n, loc, scale):
    """n distinct values, 3 decimals, in [1, 1.75]."""
    while True:
        xs = [round(float(x), 3) for x in rng.normal(loc, scale, n)]
        xs = [min(1.75, max(1.0, x)) for x in xs]
        if len(set(xs)) == n:
            return xs


A0, B0 = base(8, 1.15, 0.05), base(10, 1.30, 0.08)
while set(A0) & set(B0):
    B0 = base(10, 1.30, 0.08)


def scaled(xs, s):
    return [float(x * s) for x in xs]


CASES = [
    ("subnormal 1e-310", scaled(A0, 1e-310), scaled(B0, 1e-310)),
    ("tiny 1e-300", scaled(A0, 1e-300), scaled(B0, 1e-300)),
    ("1e78", scaled(A0, 1e78), scaled(B0, 1e78)),
    ("1e154", scaled(A0, 1e154), scaled(B0, 1e154)),
    ("1e300", scaled(A0, 1e300), scaled(B0, 1e300)),
    ("near the largest float", scaled(A0, 1e308), scaled(B0, 1e308)),
    ("mixed magnitudes",
     [1e-310, 3e-300, 0.5, 2.0, 7e77, 1e154, 4e300, 1.5e308],
     [2e-310, 5e-300, 0.75, 3.0, 9e77, 2e154, 6e300, 1.7e308, 1.6e308, 1e200]),
    ("both signs near the largest float",
     [-1.7e308, -1.2e308, -0.9e308, 1.1e308, 1.3e308, 1.5e308, 1.6e308, 1.7e308],
     [-1.6e308, -1.0e308, 1.2e308, 1.4e308, 1.55e308, 1.65e308, 1.75e308, 1.78e308,
      -1.5e308, 1.45e308]),
]


def exponent(xs):
    """k with max|x| = m·2**k, m in [0.5, 1)."""
    return math.frexp(max(abs(x) for x in xs))[1]


def fr_median(xs):
    s = sorted(Fraction(x) for x in xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def fr_quantile7(xs, p):
    s = sorted(Fraction(x) for x in xs)
    h = (len(s) - 1) * Fraction(p)
    i = math.floor(h)
    if i >= len(s) - 1:
        return s[-1]
    return s[i] + (h - i) * (s[i + 1] - s[i])


U_CACHE = {}


def u_null_cdf(m, n):
    """P(U <= u) by enumerating all C(m+n, m) arrangements."""
    if (m, n) not in U_CACHE:
        counts = np.zeros(m * n + 1)
        for pos in itertools.combinations(range(m + n), n):
            counts[sum(p - k for k, p in enumerate(pos))] += 1
        U_CACHE[(m, n)] = np.cumsum(counts) / counts.sum()
    return U_CACHE[(m, n)]


def hl(a, b, conf=0.95):
    d = np.sort(np.subtract.outer(np.asarray(b, float), np.asarray(a, float)).ravel())
    cdf = u_null_cdf(len(a), len(b))
    half = (1 - conf) / 2
    k = 0
    while k < len(cdf) and cdf[k] <= half * (1 + 1e-12):
        k += 1
    out = dict(shift=float(np.median(d)), ok=k > 0)
    if k > 0:
        out.update(lo=float(d[k - 1]), hi=float(d[len(d) - k]))
    return out


def ranks(xs):
    """Mid-ranks by comparisons only (scipy.stats.rankdata gives NaN for
    values of both signs near the largest float)."""
    s = sorted(xs)
    first = {}
    for i, x in enumerate(s):
        first.setdefault(x, i)
    return np.array([first[x] + (s.count(x) + 1) / 2 for x in xs])


def fin(x):
    x = float(x)
    return x if math.isfinite(x) else None


def case(name, a, b):
    k = exponent(a + b)
    sa, sb = [math.ldexp(x, -k) for x in a], [math.ldexp(x, -k) for x in b]
    c = dict(name=name, a=a, b=b, scale_exp=k)

    t = stats.ttest_ind(sb, sa, equal_var=False)
    na, nb = len(sa), len(sb)
    va, vb = np.var(sa, ddof=1) / na, np.var(sb, ddof=1) / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    se = math.sqrt(va + vb)
    diff = float(np.mean(sb) - np.mean(sa))
    q = stats.t.ppf(0.975, df)
    c["welch"] = dict(t=float(t.statistic), df=float(df), p=float(t.pvalue),
                      diff=fin(math.ldexp(diff, k)), se=fin(math.ldexp(se, k)),
                      lo=fin(math.ldexp(diff - q * se, k)), hi=fin(math.ldexp(diff + q * se, k)))

    method = "exact" if len(set(a + b)) == len(a + b) and na * nb <= 2500 else "asymptotic"
    rk = ranks(a + b)  # U depends on the order only
    c["mw_p"] = float(stats.mannwhitneyu(rk[na:], rk[:na], alternative="two-sided", method=method).pvalue)

    def summ(xs, ss):
        return dict(median=float(fr_median(xs)), mean=float(sum(Fraction(x) for x in xs) / len(xs)),
                    q1=float(fr_quantile7(xs, 0.25)), q3=float(fr_quantile7(xs, 0.75)),
                    stddev=fin(math.ldexp(float(np.std(ss, ddof=1)), k)))
    c["summary_a"], c["summary_b"] = summ(a, sa), summ(b, sb)

    ma, mb = fr_median(a), fr_median(b)
    rel = dict(change=float((mb - ma) / abs(ma)))
    if min(a + b) > 0:
        h = hl([math.log(x) for x in a], [math.log(x) for x in b])
        rel.update(method="log", estimate=math.expm1(h["shift"]))
        if h["ok"]:
            rel.update(lo=math.expm1(h["lo"]), hi=math.expm1(h["hi"]))
    else:
        h = hl(sa, sb)
        m = abs(float(fr_median(sa)))
        rel.update(method="shift", estimate=h["shift"] / m)
        if h["ok"]:
            rel.update(lo=h["lo"] / m, hi=h["hi"] / m)
    c["rel"] = rel
    return c


out = dict(generator="analysis/testdata/gen_extreme.py", scipy=scipy.__version__, numpy=np.__version__,
           cases=[case(*x) for x in CASES])
lines = [" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in out.items() if k != "cases"]
lines.append(' "cases": [\n%s\n ]' % ",\n".join("  " + json.dumps(c) for c in out["cases"]))
sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")
