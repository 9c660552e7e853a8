"""What a narrow head can still express: how many keys it can make its top choice at all.

A head ranks keys by q . k. With d_k = 1 both are single numbers, and the top key is the largest
key for any positive q and the smallest for any negative q: two choices, whatever the query.
Wider heads can single out every key that sits on the outside (the convex hull) of the keys.
"""

from __future__ import annotations

import numpy as np

from . import checks

D_MODEL = 16  # a small model, so that h runs from 1 to d_model
N_KEYS = 16  # the tokens of a context
N_QUERIES = 20000  # random query directions tried
SEED = 5


def reachable_top_keys(d_k: int) -> int:
    """How many of N_KEYS fixed random keys are the top choice (argmax of q . k) of some query."""
    d_k = checks.count(d_k, "the head width d_k")
    rng = np.random.default_rng(SEED)
    keys = rng.normal(size=(N_KEYS, d_k))
    queries = rng.normal(size=(N_QUERIES, d_k))
    return len(np.unique((queries @ keys.T).argmax(axis=1)))


def head_widths() -> tuple[int, ...]:
    """d_k = D_MODEL / h for every h that divides D_MODEL, narrowest first."""
    return tuple(D_MODEL // h for h in range(D_MODEL, 0, -1) if D_MODEL % h == 0)
