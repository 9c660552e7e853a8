"""Why split_heads transposes: the split done with a reshape alone, kept only to show the mistake.

A row of q = x W_Q is one token's d_model numbers, and head i owns its columns i*d_k:(i+1)*d_k.
Read the [n, d_model] array as [n, h, d_k] and each row is cut into its h pieces; moving the head
axis in front (the transpose) then gives head i every token's piece i. Reading the same numbers
straight as [h, n, d_k] also gives the right shape, but it deals the numbers out in memory order:
head 0 gets the first n * d_k numbers, which are whole rows of the first few tokens. Nothing fails;
every head then attends between pieces of a few tokens instead of between the n tokens.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import checks
from . import toy
from ..attention import attention, split_heads

Split = Callable[[np.ndarray, int], np.ndarray]


def split_heads_without_transpose(x: np.ndarray, h: int) -> np.ndarray:
    """THE MISTAKE, for the figure reshape-pitfall only: [..., n, d_model] -> [..., h, n, d_k] by a
    reshape alone. The shape is right, the contents are not: head i gets numbers i*n*d_k to
    (i+1)*n*d_k of the array read row by row, pieces of a few tokens, not column block i of all."""
    x = _tokens_by_width(x, h)
    *lead, n, d_model = x.shape
    return x.reshape(*lead, h, n, d_model // h)


def _tokens_by_width(x, h: int) -> np.ndarray:
    """x is a real array of at least two axes [..., n, d_model], and h divides d_model."""
    x = checks._array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must have at least two axes [..., n, d_model], got shape {x.shape}")
    checks.heads(x.shape[-1], h)
    return x


def provenance(split: Split, n: int = toy.N, d_model: int = toy.D_MODEL, h: int = toy.H):
    """(token, column), each an int array [h, n, d_k]: where in an [n, d_model] array each number
    that `split` hands to a head came from. Computed by splitting the arrays of row and column indices."""
    n = checks.count(n, "the number of tokens n")
    checks.heads(d_model, h)
    rows, cols = np.indices((n, d_model))  # [n, d_model] each
    return split(rows, h).astype(int), split(cols, h).astype(int)


def weights(split: Split) -> np.ndarray:
    """[h, n, n] the running example's attention weights when q, k and v are split by `split`.

    With split_heads these are the weights of toy.trace(); with split_heads_without_transpose, each
    head's rows and columns are the pieces that head was dealt (see provenance), not the tokens."""
    if split not in (split_heads, split_heads_without_transpose):
        raise ValueError("split must be split_heads or split_heads_without_transpose")
    x, p = toy.inputs(), toy.params()
    q, k, v = (split(x @ w + (0 if b is None else b), toy.H)
               for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    return attention(q, k, v)[1]


def largest_weight_change() -> float:
    """The largest difference, over every head, query and key, between the weights of the two splits."""
    return float(np.abs(weights(split_heads) - weights(split_heads_without_transpose)).max())
