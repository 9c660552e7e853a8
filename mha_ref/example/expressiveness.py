"""What a narrow head can still express: how many keys it can make its top choice at all.

A head ranks keys by q . k. Key k_j is the strict top choice of some query (q . k_j > q . k_i for
every other key) exactly when a hyperplane separates k_j strictly from all the other keys, that is
when k_j lies outside the convex hull of the other keys (a vertex of the keys' hull that no other key
equals); q is the hyperplane's normal, pointing to k_j's side. One small linear program per key
finds the best such q, so the count below is exact, not an estimate from sampled queries.

With d_k = 1 both q and k are single numbers: the top key is the largest for q > 0 and the smallest
for q < 0, so at most two keys, whatever the query. The keys here are N_KEYS fixed random vectors
of width D_MODEL, and a head of width d_k reads their first d_k coordinates. A query that singles out
a key at width d_k still does in a wider head (give the extra coordinates weight zero), so the count
can only grow with d_k.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .. import checks

D_MODEL = 16  # a small model, so that h runs from 1 to d_model
N_KEYS = 16  # the tokens of a context
SEED = 5
# A key counts as a possible top choice when its best lead over the runner-up exceeds this.
# The lead is recomputed in numpy from the query the solver returns, so a key that cannot win
# comes out at 0 up to float rounding (~1e-15); the smallest lead of a key that can win, over
# every width below, is several orders of magnitude above this.
MARGIN_TOL = 1e-9


class TopChoice(NamedTuple):
    """How far one key can get ahead of every other key, and a query that gets it there."""

    margin: float  # max over q in [-1, 1]^d_k of min over i != j of q . (k_j - k_i); <= 0: never strictly first
    query: np.ndarray  # [d_k] a query attaining that margin


def key_margin(keys, j: int) -> TopChoice:
    """[n, d_k], j -> the best lead of k_j over the runner-up, by a linear program in (q, t).

    Maximise t subject to q . (k_j - k_i) >= t for every i != j. The box on q only fixes the scale
    (without it a positive t could be doubled forever); t > 0 exactly when k_j can win.
    """
    from scipy.optimize import linprog  # scipy loads only when a margin is computed, not with the quantities

    keys = _keys(keys)
    n, d_k = keys.shape
    if not 0 <= j < n:
        raise ValueError(f"key index j={j} is outside 0..{n - 1}")
    gaps = keys[j] - np.delete(keys, j, axis=0)  # [n-1, d_k]: k_j beats k_i for q when q . gap_i > 0
    a_ub = np.hstack([-gaps, np.ones((n - 1, 1))])  # t - q . gap_i <= 0
    cost = np.r_[np.zeros(d_k), -1.0]  # linprog minimises, so minimise -t
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n - 1),
                  bounds=[(-1.0, 1.0)] * d_k + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"the linear program for key {j} did not solve: {res.message}")
    q = res.x[:d_k]
    # the certificate, checked in numpy: q's own lead, not the solver's reported optimum
    return TopChoice(margin=float((gaps @ q).min()), query=q)


def can_be_top(keys) -> np.ndarray:
    """[n, d_k] -> [n] bool: which keys are the strict top choice of at least one query.

    A key equal to another never is: the two always tie, so neither is strictly first.
    """
    keys = _keys(keys)
    return np.array([key_margin(keys, j).margin > MARGIN_TOL for j in range(len(keys))])


def head_keys(d_k: int) -> np.ndarray:
    """-> [N_KEYS, d_k]: the first d_k coordinates of the fixed keys, what a head of width d_k reads."""
    d_k = checks.count(d_k, "the head width d_k")
    if d_k > D_MODEL:
        raise ValueError(f"the head width d_k={d_k} is wider than d_model={D_MODEL}")
    return np.random.default_rng(SEED).normal(size=(N_KEYS, D_MODEL))[:, :d_k]


@lru_cache(maxsize=None)
def key_margins(d_k: int) -> tuple[float, ...]:
    """The best lead of each of the N_KEYS keys at head width d_k (cached: every frame asks)."""
    keys = head_keys(d_k)
    return tuple(key_margin(keys, j).margin for j in range(N_KEYS))


def reachable_top_keys(d_k: int) -> int:
    """How many of the N_KEYS fixed keys are the strict top choice (argmax of q . k) of some query."""
    return sum(m > MARGIN_TOL for m in key_margins(d_k))


def head_widths() -> tuple[int, ...]:
    """d_k = D_MODEL / h for every h that divides D_MODEL, narrowest first."""
    return tuple(D_MODEL // h for h in range(D_MODEL, 0, -1) if D_MODEL % h == 0)


def narrowest_reaching_all() -> int:
    """The narrowest head width among head_widths() at which every key can be the top choice."""
    widths = [d for d in head_widths() if reachable_top_keys(d) == N_KEYS]
    if not widths:
        raise ValueError(f"no head width up to d_model={D_MODEL} lets all {N_KEYS} keys be the top choice")
    return widths[0]


def _keys(keys) -> np.ndarray:
    keys = checks._array(keys, "keys")
    if keys.ndim != 2 or len(keys) < 2:
        raise ValueError(f"keys must be [n, d_k] with at least two keys, got shape {keys.shape}")
    return keys


def hull_corners(keys) -> np.ndarray:
    """[n, 2] -> [m] the keys that can be the strict top choice (can_be_top), in counter-clockwise
    order round the keys' convex hull: the corners to join when the hull is drawn.

    Only for keys in a plane (d_k = 2), where "round the hull" has an order. The corners' mean lies
    inside the hull they span, so sorting them by their angle about it walks round the outline.
    """
    keys = _keys(keys)
    if keys.shape[1] != 2:
        raise ValueError(f"keys must lie in a plane, [n, 2], to be walked round; got shape {keys.shape}")
    corners = np.flatnonzero(can_be_top(keys))
    centre = keys[corners].mean(axis=0)
    angles = np.arctan2(*(keys[corners] - centre).T[::-1])  # arctan2(y, x) of each corner about the centre
    return corners[np.argsort(angles, kind="stable")]
