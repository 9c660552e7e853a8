"""Scaled dot-product attention and multi-head attention, in plain numpy.

Row-vector convention throughout, as in the source documents: a token is a row, and a
projection is ``x @ w + b``. Vocabulary (used on the pages too): ``n`` tokens, width
``d_model``, ``h`` heads, ``d_k = d_model / h`` per head (and ``d_v = d_k``). Grouped-query
attention: ``kv_heads`` key/value heads (a divisor of h; None means h), each shared by
``h / kv_heads`` query heads in a row; ``kv_heads = 1`` is multi-query attention.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import checks
from .params import MHAParams


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """[...] -> [...]: exp(x_j) / sum_l exp(x_l) along axis; subtracting the max first keeps exp()
    from overflowing.

    -inf marks a masked entry: its weight is 0. A row that is -inf throughout (every key masked)
    gets weights that are all 0, summing to 0 rather than 1: there is no key left to give weight to,
    and a uniform row would hand weight to keys the mask forbids. attention and multi-head attention
    follow it: such a query reads nothing (its output is 0) and sends no gradient back. nan and +inf
    are refused with a ValueError naming the first one found; so are strings and complex numbers
    (TypeError).
    """
    x = checks.softmax_input(x)
    if x.size == 0:  # no entries, no weights
        return x.copy()
    top = np.max(x, axis=axis, keepdims=True)
    top[top == -np.inf] = 0  # rows of -inf only: exp(-inf - 0) = 0, where -inf - -inf would be nan
    e = np.exp(x - top)
    total = np.sum(e, axis=axis, keepdims=True)
    total[total == 0] = 1  # only those rows (any other holds exp(0) = 1): 0 / 1 = 0
    return e / total


def attention(q, k, v, mask=None, scale=None):
    """Scaled dot-product attention.

    q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v]
    -> out [..., n_q, d_v], weights [..., n_q, n_k]

    ``mask`` is boolean and broadcastable to [..., n_q, n_k]; True means "may attend". A query whose
    row of the mask is False throughout gets weights of 0 and an output of 0 (see softmax).
    ``scale`` defaults to 1 / sqrt(d_k): the spread of q.k grows like sqrt(d_k). It must be a finite
    number >= 0: 0 weighs every key the same, a negative scale (keys ranked backwards) is refused.
    Inputs so large that q.k overflows their dtype are refused, not turned into nan.
    """
    q, k, v = checks.qkv(q, k, v)
    *lead, n_q, _ = np.broadcast_shapes(q.shape, k.shape[:-2] + q.shape[-2:])
    checks.scores_fit((*lead, n_q, k.shape[-2]), np.result_type(q, k),
                      f"attention of {n_q} queries over {k.shape[-2]} keys", "batch x n_q x n_k" if lead else "n_q x n_k")
    # a Python float keeps float32 inputs float32
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else checks.scale(scale)
    scores = (q @ np.swapaxes(k, -1, -2)) * scale  # [..., n_q, n_k]
    checks.finite_scores(scores)
    if mask is not None:
        mask = checks.mask(mask, scores.shape)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def init_params(d_model: int, h: int, *, kv_heads: int | None = None, seed: int = 0, bias: bool = True,
                dtype=np.float64) -> MHAParams:
    """Random parameters for one block. Without kv_heads the shapes do not depend on h (it is only
    checked); with kv_heads < h, W_K and W_V (and their biases) keep the column blocks of the first
    kv_heads heads, and the numbers drawn are the same.

    seed is a whole number >= 0 (the same seed, the same numbers); bias is True or False.
    dtype=np.float32 (or "float32") halves the memory, for running the block at published model widths.
    """
    checks.heads(d_model, h)
    kv_width = checks.kv_heads(h, kv_heads) * (d_model // h)
    dtype = checks.float_dtype(dtype)
    seed, bias = checks.seed(seed), checks.flag(bias, "bias")
    # the generator draws float32 and float64 directly; other floats are drawn as float64 and cast
    drawn = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((4, d_model, d_model), dtype=drawn).astype(dtype, copy=False)
    w *= dtype.type(1.0 / np.sqrt(d_model))
    b = (rng.standard_normal((4, d_model), dtype=drawn) * 0.1).astype(dtype, copy=False) if bias else [None] * 4
    p = MHAParams(*w, *b)
    return p if kv_width == d_model else p._replace(
        w_k=p.w_k[:, :kv_width], w_v=p.w_v[:, :kv_width],
        b_k=None if p.b_k is None else p.b_k[:kv_width], b_v=None if p.b_v is None else p.b_v[:kv_width])


# --8<-- [start:split]
def split_heads(x: np.ndarray, h: int) -> np.ndarray:
    """[..., n, d_model] -> [..., h, n, d_k], without copying a number."""
    x = checks.split_input(x, h)  # at least [n, d_model]; h divides d_model
    *lead, n, d_model = x.shape  # x: [..., n, d_model]
    x = x.reshape(*lead, n, h, d_model // h)  # [..., n, h, d_k]: rows cut in h
    return np.swapaxes(x, -3, -2)  # [..., h, n, d_k]: heads first


def merge_heads(x: np.ndarray) -> np.ndarray:
    """[..., h, n, d_k] -> [..., n, h * d_k]: the heads side by side."""
    x = checks.merge_input(x)  # at least [h, n, d_k]
    *lead, h, n, d_k = x.shape  # x: [..., h, n, d_k]
    x = np.swapaxes(x, -3, -2)  # [..., n, h, d_k]: tokens first again
    return x.reshape(*lead, n, h * d_k)  # [..., n, d_model]: pieces end to end
# --8<-- [end:split]


def _project(x, w, b):
    return x @ w if b is None else x @ w + b


def _repeat_kv(params: MHAParams, h: int, kv_heads: int) -> MHAParams:
    """Grouped-query parameters written as plain multi-head ones: w_k, w_v
    [d_model, kv_heads * d_k] -> [d_model, h * d_k], b_k, b_v [kv_heads * d_k] -> [h * d_k].

    Each key/value head's column block is repeated h / kv_heads times in a row, so that query head i
    meets key/value head i // (h / kv_heads). A real implementation keeps one copy; the copies here
    let the batched code below stay the same for every kv_heads. The memory saved is counted in
    costs.py (kv_cache_per_token), not by this function.
    """
    group = h // kv_heads

    def repeat(a):  # [..., kv_heads * d_k] -> [..., h * d_k]
        if a is None:
            return None
        *lead, width = a.shape
        heads = a.reshape(*lead, kv_heads, width // kv_heads)  # [..., kv_heads, d_k]
        return np.repeat(heads, group, axis=-2).reshape(*lead, h * (width // kv_heads))

    return params._replace(w_k=repeat(params.w_k), w_v=repeat(params.w_v),
                           b_k=repeat(params.b_k), b_v=repeat(params.b_v))


class MHATrace(NamedTuple):
    """Everything one forward pass computes, for the figures. Per-head arrays are [..., h, n, ·]."""

    q: np.ndarray  # [..., h, n, d_k]
    k: np.ndarray  # [..., h, n, d_k]: with kv_heads < h, query head i's copy of its key/value head
    v: np.ndarray  # [..., h, n, d_k]: likewise
    scores: np.ndarray  # [..., h, n, n], already divided by sqrt(d_k); -inf where masked
    weights: np.ndarray  # [..., h, n, n]
    heads: np.ndarray  # [..., h, n, d_k]: each head's output
    concat: np.ndarray  # [..., n, d_model]: the heads side by side
    out: np.ndarray  # [..., n, d_model]: concat @ w_o + b_o


def mha_trace(x, params: MHAParams, h: int, *, mask=None, kv_heads: int | None = None) -> MHATrace:
    """Multi-head attention with every intermediate returned. x [n, d_model] or [batch, n, d_model].

    kv_heads (a divisor of h; None means h): grouped-query attention, params as init_params(..., kv_heads=...).
    Inputs or weights so large that the scores, the values or the output overflow their dtype are
    refused with a ValueError naming the dtype, not returned as inf or nan.
    """
    x = checks.tokens(x)
    checks.heads(x.shape[-1], h)
    kv = checks.kv_heads(h, kv_heads)
    params = checks.params(params, x.shape[-1], h=h, kv_heads=kv_heads)
    _scores_fit(x, params, h)
    if kv != h:  # each key/value head's columns, once for every query head that shares them
        params = _repeat_kv(params, h, kv)
    d_k = x.shape[-1] // h
    # --8<-- [start:core]
    # The split only reads the projections' output columns in groups.
    q = split_heads(_project(x, params.w_q, params.b_q), h)
    k = split_heads(_project(x, params.w_k, params.b_k), h)
    v = split_heads(_project(x, params.w_v, params.b_v), h)
    # Each head divides by its own sqrt(d_k).
    scores = (q @ np.swapaxes(k, -1, -2)) / math.sqrt(d_k)
    checks.finite_scores(scores)  # inputs too large for their dtype overflow here: refused, not nan
    if mask is not None:
        # A [..., n, n] mask gets a unit head axis, to apply to every head.
        mask = checks.mask(mask, scores.shape[:-3] + scores.shape[-2:])
        scores = np.where(mask[..., None, :, :], scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = weights @ v
    concat = merge_heads(heads)
    out = _project(concat, params.w_o, params.b_o)
    # --8<-- [end:core]
    # Values and outputs that overflowed their dtype (float16 tops out at 65504) are refused, as
    # overflowing scores are; an overflowing query or key makes the scores overflow.
    checks.not_overflowed(v, "the value projection", "x @ w_v + b_v")
    checks.not_overflowed(out, "the output projection", "concat @ w_o + b_o")
    return MHATrace(q, k, v, scores, weights, heads, concat, out)


def _scores_fit(x: np.ndarray, params: MHAParams, h: int) -> None:
    """The block's scores, [..., h, n, n], must fit checks.SCORES_LIMIT: refused before any is made."""
    *batch, n, _ = x.shape
    checks.scores_fit((*batch, h, n, n), np.result_type(x, params.w_q, params.w_k),
                      f"attention over {n} tokens with {h} heads", "batch x h x n x n" if batch else "h x n x n")


def multi_head_attention(x, params: MHAParams, h: int, *, mask=None, kv_heads: int | None = None):
    """x [n, d_model] or [batch, n, d_model] -> out (x's shape), weights [..., h, n, n]."""
    t = mha_trace(x, params, h, mask=mask, kv_heads=kv_heads)
    return t.out, t.weights


def multi_head_attention_loop(x, params: MHAParams, h: int, *, mask=None, kv_heads: int | None = None):
    """The same computation as a loop over heads, for reading (and for testing the batched one).

    Head i owns columns i*d_k:(i+1)*d_k of w_q: its own d_model x d_k block. Its keys and values come
    from key/value head g = i // (h / kv_heads), columns g*d_k:(g+1)*d_k of w_k and w_v; without
    kv_heads, g = i: every head its own blocks.
    """
    x = checks.tokens(x)
    checks.heads(x.shape[-1], h)
    kv = checks.kv_heads(h, kv_heads)
    params = checks.params(params, x.shape[-1], h=h, kv_heads=kv_heads)
    _scores_fit(x, params, h)  # the heads' weights, stacked at the end, are as large
    d_k = x.shape[-1] // h
    outputs, weights = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        g = i // (h // kv)  # the key/value head that query head i shares with its group
        kv_cols = slice(g * d_k, (g + 1) * d_k)
        q = x @ params.w_q[:, cols] + (0 if params.b_q is None else params.b_q[cols])
        k = x @ params.w_k[:, kv_cols] + (0 if params.b_k is None else params.b_k[kv_cols])
        v = x @ params.w_v[:, kv_cols] + (0 if params.b_v is None else params.b_v[kv_cols])
        for a, name in ((q, "query"), (k, "key"), (v, "value")):  # attention() would only call them non-finite
            checks.not_overflowed(a, f"the {name} projection", f"x @ w_{name[0]} + b_{name[0]}")
        out_i, w_i = attention(q, k, v, mask=mask)  # scale 1/sqrt(d_k) by default
        outputs.append(out_i)
        weights.append(w_i)
    concat = np.concatenate(outputs, axis=-1)  # [..., n, h * d_k]
    out = _project(concat, params.w_o, params.b_o)
    checks.not_overflowed(out, "the output projection", "concat @ w_o + b_o")
    return out, np.stack(weights, axis=-3)
