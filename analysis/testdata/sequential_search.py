#!/usr/bin/python3
"""sequential_search.py: the search behind the "Why 6 pairs is out of reach"
paragraph of docs/HACKING.md (issue 18): group-sequential t-tests on the log
values of an A/B run, +20% at lognormal sigma 0.1, looks after each pair.

    floor    the easy lower bound on the mean pairs (UMP invariant t power)
    dual     the Lagrangian dual bound by backward induction on the Markov
             chain of t (Hall, Wijsman and Ghosh 1965)
    dprules  the rules of that induction on a grid of (lambda, mu), each
             rescaled to spend the A/A budget, with binding futility
    search   Nelder-Mead over boundary shapes (knots in log n); arguments
             FIRST LAST TARGET2 (1: also the sigma 0.2 target) EVALS

Seeded; needs Debian's python3 (numpy, scipy). The figures of the table in
HACKING come from analysis/sequential_frontier_test.go, on other paths.
"""
import sys

import numpy as np
from scipy import stats
from scipy.optimize import minimize

ALPHA = 0.05
TH1 = np.log(1.2) / 0.1  # the effect in SD units at sigma 0.1
TH2 = np.log(1.2) / 0.2
NULL_PATHS, ALT_PATHS, M = 50000, 20000, 30
BUDGET = ALPHA - 2 * np.sqrt(ALPHA * (1 - ALPHA) / NULL_PATHS)


def t_paths(rng, paths, theta, m):
    """The pooled two-sample t statistics after 1..m pairs (column 0 is 0)."""
    x = rng.standard_normal((paths, m))
    y = rng.standard_normal((paths, m)) + theta
    n = np.arange(1, m + 1)
    sx, sy = np.cumsum(x, 1), np.cumsum(y, 1)
    qx, qy = np.cumsum(x * x, 1), np.cumsum(y * y, 1)
    with np.errstate(all="ignore"):
        sp = ((qx - sx**2 / n) + (qy - sy**2 / n)) / (2 * n - 2)
        t = (sy / n - sx / n) / np.sqrt(sp * 2 / n)
    t[:, 0] = 0
    return t


def z_paths(rng, paths, theta, m=M):
    """The t statistics as normal quantiles of their two-sided p-values."""
    t = t_paths(rng, paths, theta, m)
    z = np.zeros_like(t)
    for k in range(1, m):
        z[:, k] = np.sign(t[:, k]) * stats.norm.isf(stats.t.sf(np.abs(t[:, k]), 2 * k))
    return np.clip(z, -37, 37)


def fixed_power(n, theta=TH2):
    df = 2 * n - 2
    return stats.nct.sf(stats.t.isf(ALPHA / 2, df), df, theta * np.sqrt(n / 2))


def run(z, b, fut=None):
    """Decide B larger/smaller at the first look with |z| >= b (inf: no
    look), stop undecided where |z| < fut; the last finite b is the end."""
    hit = np.abs(z) >= b[None, :]
    stop = hit.copy()
    if fut is not None:
        stop |= np.abs(z) < fut[None, :]
    stop[:, np.nonzero(np.isfinite(b))[0].max()] = True
    first = np.argmax(stop, 1)
    rows = np.arange(z.shape[0])
    rej = hit[rows, first]
    zf = z[rows, first]
    return (rej & (zf > 0)).mean(), (rej & (zf < 0)).mean(), (first + 1).mean()


def calibrate(z0, shape, fut=None):
    lo, hi = 0.3, 20.0
    for _ in range(45):
        c = (lo + hi) / 2
        p, q, _ = run(z0, c * shape, fut)
        lo, hi = (c, hi) if p + q > BUDGET else (lo, c)
    return hi * shape


def paths():
    rng = np.random.default_rng(1)
    return z_paths(rng, NULL_PATHS, 0), z_paths(rng, ALT_PATHS, TH1), z_paths(rng, ALT_PATHS, TH2)


def report(name, Z, b, fut=None):
    z0, z1, z2 = Z
    p, q, _ = run(z0, b, fut)
    c1, w1, m1 = run(z1, b, fut)
    c2, _, m2 = run(z2, b, fut)
    n = int(np.ceil(m2))
    print(f"{name}: A/A {p + q:.4f} | s0.1 {c1:.4f} correct, {m1:.2f} pairs | "
          f"s0.2 {c2:.4f} at {m2:.2f}, fixed {n}+{n} {fixed_power(n):.4f}")
    return c1, m1, c2, m2


def floor():
    def tpow(n, a):
        if n < 2:
            return a if n == 1 else 0.0
        df = 2 * n - 2
        return stats.nct.sf(stats.t.isf(a, df), df, TH1 * np.sqrt(n / 2))

    def zpow(n, a):
        return 0.0 if n < 1 else stats.norm.sf(stats.norm.isf(a) - TH1 * np.sqrt(n / 2))

    for a in (0.025, 0.05):
        print(f"one-sided level {a}: t power at 2..9 pairs",
              [round(float(tpow(n, a)), 3) for n in range(2, 10)])
        print(f"  floor, sigma unknown {sum(max(0, 0.95 - tpow(n, a)) for n in range(60)):.2f},"
              f" sigma known {sum(max(0, 0.95 - zpow(n, a)) for n in range(60)):.2f}")
    kl = TH1**2 / 4  # per pair, sigma known
    print("Wald SPRT, sigma known:",
          round((0.95 * np.log(0.95 / 0.025) + 0.05 * np.log(0.05 / 0.975)) / kl, 2))


class Chain:
    """The t statistic after 2..nmax pairs under +20% (sigma 0.1), binned at
    each look in B quantile bins, with the likelihood ratio null/alternative
    of each bin (exact, from the central and noncentral t) and the
    transitions between looks (simulated)."""

    def __init__(self, nmax, paths=300000, bins=300):
        rng = np.random.default_rng(7)
        t = t_paths(rng, paths, TH1, nmax)
        self.nmax, self.bins = nmax, bins
        self.edges, self.L, self.p, self.T = {}, {}, {}, {}
        idx = {}
        for k in range(1, nmax):
            n, df = k + 1, 2 * k
            e = np.quantile(t[:, k], np.linspace(0, 1, bins + 1))
            self.edges[k] = e.copy()
            e[0], e[-1] = -np.inf, np.inf
            idx[k] = np.clip(np.searchsorted(e, t[:, k], side="right") - 1, 0, bins - 1)
            with np.errstate(all="ignore"):
                p0 = np.diff(stats.t.cdf(e, df))
                p1 = np.maximum(np.nan_to_num(np.diff(stats.nct.cdf(e, df, TH1 * np.sqrt(n / 2)))), 1e-300)
            self.L[k] = p0 / p1
            self.p[k] = np.bincount(idx[k], minlength=bins) / paths
        for k in range(1, nmax - 1):
            tr = np.zeros((bins, bins))
            np.add.at(tr, (idx[k], idx[k + 1]), 1)
            self.T[k] = tr / np.maximum(tr.sum(1, keepdims=True), 1)

    def value(self, lam, mu, last=None):
        """E[pairs] + lam P0(decide) + mu P1(not correct) of the best rule;
        last: the cost after the last look (at least 1 pair more, the bound)."""
        k = self.nmax - 1
        v = np.minimum(lam * self.L[k], mu)
        if last is not None:
            v = np.minimum(v, last)
        for k in range(self.nmax - 2, 0, -1):
            v = np.minimum(np.minimum(lam * self.L[k], mu), 1 + self.T[k] @ v)
        return 2 + self.p[1] @ v

    def rule(self, lam, mu):
        """The bounds (normal scale, index n-1) of the truncated rule."""
        nm = self.nmax
        b, f = np.full(nm, np.inf), np.full(nm, -np.inf)
        v = np.minimum(lam * self.L[nm - 1], mu)
        for k in range(nm - 1, 0, -1):
            cont = 1 + self.T[k] @ v if k < nm - 1 else np.full(self.bins, np.inf)
            rej, fut = lam * self.L[k], np.full(self.bins, mu)
            isrej = (rej <= fut) & (rej <= cont)
            isfut = (fut < rej) & (fut <= cont)
            e, df = self.edges[k], 2 * k
            pos = np.arange(self.bins) >= np.searchsorted(e, 0)
            first = np.argmax(isrej & pos) if (isrej & pos).any() else self.bins
            if first < self.bins:
                b[k] = stats.norm.isf(stats.t.sf(e[first], df))
            fb = np.nonzero(isfut & pos & (np.arange(self.bins) < first))[0]
            if len(fb):
                f[k] = stats.norm.isf(stats.t.sf(e[fb.max() + 1], df))
            v = np.minimum(np.minimum(rej, fut), cont)
        b[nm - 1] = min(b[nm - 1], 40)
        return b, f


def dual():
    ch = Chain(40)
    best = max((ch.value(lam, mu, last=1.0) - 0.025 * lam - 0.05 * mu, lam, mu)
               for lam in np.geomspace(1, 3000, 40) for mu in np.geomspace(0.5, 200, 40))
    print(f"dual bound on the mean pairs (one-sided level 0.025, 95% correct): "
          f"{best[0]:.3f} at lambda {best[1]:.1f}, mu {best[2]:.1f}")


def dprules():
    Z = paths()
    ch = Chain(M, paths=200000)
    for lam in (32.0, 37.4, 43.8, 51.3, 60.0):
        for mu in (9.5, 10.0, 10.5, 11.0, 11.5):
            b, f = ch.rule(lam, mu)
            b = calibrate(Z[0], b, f)
            report(f"DP lambda {lam} mu {mu}", Z, b, f)
            if (lam, mu) == (60.0, 10.0):
                print("  reject", [0] + [round(float(x), 3) if np.isfinite(x) else 0 for x in b])
                print("  futility", [0] + [round(float(x), 3) if x > 0 else 0 for x in f])


def search(first, last, target2, evals):
    Z = paths()
    n = np.arange(1, M + 1).astype(float)
    knots = np.unique(np.round(np.geomspace(first, last, 7)))
    v0 = np.zeros(len(knots))
    if last == M:
        knots = np.array([3, 4, 5, 6, 8, 10, 14, 20, 30.0])
        v0 = 0.1 * np.log(knots / M)

    def bounds(v):
        s = np.exp(np.interp(np.log(n), np.log(knots), v))
        s[(n < first) | (n > last)] = np.inf
        return calibrate(Z[0], s)

    def cost(v):
        b = bounds(v)
        c1, _, m1 = run(Z[1], b)
        f = m1 + 100 * max(0, 0.95 - c1)
        if target2:
            c2, _, m2 = run(Z[2], b)
            f += 50 * max(0, fixed_power(int(np.ceil(m2))) - c2)
        return f

    simplex = np.vstack([v0] + [v0 + 0.15 * (-1) ** i * np.eye(len(v0))[i] for i in range(len(v0))])
    r = minimize(cost, v0, method="Nelder-Mead",
                 options=dict(maxfev=evals, xatol=1e-3, fatol=1e-4, initial_simplex=simplex))
    b = bounds(r.x)
    report(f"searched {first}..{last}", Z, b)
    print("  bounds", {k + 1: round(float(b[k]), 3) for k in range(M) if np.isfinite(b[k])})


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "floor"
    if cmd == "floor":
        floor()
    elif cmd == "dual":
        dual()
    elif cmd == "dprules":
        dprules()
    elif cmd == "search":
        a = sys.argv[2:] + ["3", "11", "0", "300"][len(sys.argv[2:]):]
        search(int(a[0]), int(a[1]), a[2] == "1", int(a[3]))
    else:
        sys.exit("usage: sequential_search.py floor|dual|dprules|search [FIRST LAST TARGET2 EVALS]")
