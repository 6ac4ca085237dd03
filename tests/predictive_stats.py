"""Two-sample tests per observation, Holm-corrected: our predictive draws against PyMC's."""

from __future__ import annotations

import numpy as np
from scipy import stats


def two_sample_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """Kolmogorov-Smirnov for continuous draws; a chi-square test of the counts (categories with
    fewer than 10 pooled draws merged into their neighbour) for integer draws."""
    if not np.issubdtype(a.dtype, np.integer):
        return float(stats.ks_2samp(a, b).pvalue)
    values = np.union1d(a, b)
    counts = np.array([[np.sum(a == v), np.sum(b == v)] for v in values])
    merged: list[np.ndarray] = []
    for row in counts:
        if merged and merged[-1].sum() < 10:
            merged[-1] = merged[-1] + row
        else:
            merged.append(row.copy())
    if len(merged) > 1 and merged[-1].sum() < 10:
        merged[-2] = merged[-2] + merged.pop()
    if len(merged) < 2:
        return 1.0
    return float(stats.chi2_contingency(np.array(merged).T)[1])


def holm(pvalues: list[float]) -> np.ndarray:
    """Holm-adjusted p-values (family-wise error control), in the input order."""
    p = np.asarray(pvalues)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order]).clip(max=1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def per_observation_pvalues(ours: dict, stock: dict, names: list[str]) -> list[float]:
    """One p-value per variable and observation: draws flattened over (chain, draw)."""
    found = []
    for name in names:
        a = np.asarray(ours[name]).reshape(-1, *np.shape(ours[name])[2:])
        b = np.asarray(stock[name]).reshape(-1, *np.shape(stock[name])[2:])
        a2, b2 = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
        found += [two_sample_pvalue(a2[:, j], b2[:, j]) for j in range(a2.shape[1])]
    return found
