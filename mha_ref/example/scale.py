"""Why each head divides by its own sqrt(d_k), on a signal of fixed strength.

For query and key components of unit variance, q.k is a sum of d_k terms: its spread grows like
sqrt(d_k). A key that stands out by a fixed number of those spreads (STRENGTH) therefore has a
raw score STRENGTH * sqrt(d_k) above the rest. Dividing by sqrt(d_k) cancels the width, so the
softmax sees the same margin at every d_k; dividing by sqrt(d_model) instead, as a single-head
implementation would, shrinks the margin by sqrt(d_k / d_model) and quietly flattens the head.
"""

from __future__ import annotations

import numpy as np

from .. import checks
from ..attention import attention

D_MODEL = 64  # the model width the wrong divisor is copied from
N_KEYS = 6  # as many keys as the running example has tokens
STRENGTH = 4.0  # how many spreads of q.k the matching key stands out by
D_KS = (1, 2, 4, 8, 16, 32, 64)  # head widths d_k = D_MODEL / h for h = 64 ... 1
SEED = 3


def query_and_keys(d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """q [d_k], k [N_KEYS, d_k]: key 0 meets q at STRENGTH * sqrt(d_k); the others at exactly 0."""
    d_k = checks.count(d_k, "the head width d_k")
    if D_MODEL % d_k:
        raise ValueError(f"the head width d_k={d_k} does not divide d_model={D_MODEL}")
    rng = np.random.default_rng(SEED)
    q = rng.normal(0.0, 1.0, d_k)
    k = rng.normal(0.0, 1.0, (N_KEYS, d_k))
    k -= np.outer(k @ q, q) / (q @ q)  # every key orthogonal to q: score 0 (d_k = 1: the zero key)
    k[0] = q * (STRENGTH * np.sqrt(d_k) / (q @ q))  # the one that matches
    return q, k


def dot_spread(d_k: int, samples: int = 20_000) -> float:
    """The measured spread (standard deviation) of q.k over random q, k with unit-variance
    components: the unit STRENGTH is counted in. The premise above says it is sqrt(d_k)."""
    d_k = checks.count(d_k, "the head width d_k")
    samples = checks.count(samples, "the number of samples")
    rng = np.random.default_rng(SEED)
    q = rng.normal(0.0, 1.0, (samples, d_k))
    k = rng.normal(0.0, 1.0, (samples, d_k))
    return float(np.einsum("sd,sd->s", q, k).std())  # one q.k per sample: [samples]


def weights(d_k: int, divisor: str) -> np.ndarray:
    """[N_KEYS] the query's attention weights, dividing by sqrt(d_k) or by sqrt(d_model)."""
    if divisor not in ("d_k", "d_model"):
        raise ValueError(f"divisor must be 'd_k' or 'd_model', got {divisor!r}")
    q, k = query_and_keys(d_k)
    width = d_k if divisor == "d_k" else D_MODEL
    _, w = attention(q[None, :], k, np.eye(N_KEYS), scale=1.0 / np.sqrt(width))
    return w[0]


def peak(d_k: int, divisor: str) -> float:
    """The weight on the matching key."""
    return float(weights(d_k, divisor)[0])
