"""Scaled dot-product attention and multi-head attention, in plain numpy.

Row-vector convention throughout, as in the source documents: a token is a row, and a
projection is ``x @ w + b``. Vocabulary (used on the pages too): ``n`` tokens, width
``d_model``, ``h`` heads, ``d_k = d_model / h`` per head (and ``d_v = d_k``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import checks


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """[...] -> [...]; subtracting the max first keeps exp() from overflowing."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(q, k, v, mask=None, scale=None):
    """Scaled dot-product attention.

    q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v]
    -> out [..., n_q, d_v], weights [..., n_q, n_k]

    ``mask`` is boolean and broadcastable to [..., n_q, n_k]; True means "may attend".
    ``scale`` defaults to 1 / sqrt(d_k): the spread of q.k grows like sqrt(d_k). It must be a finite
    number >= 0: 0 weighs every key the same, a negative scale (keys ranked backwards) is refused.
    Inputs so large that q.k overflows their dtype are refused, not turned into nan.
    """
    q, k, v = checks.qkv(q, k, v)
    # a Python float keeps float32 inputs float32
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else checks.scale(scale)
    scores = (q @ np.swapaxes(k, -1, -2)) * scale  # [..., n_q, n_k]
    checks.finite_scores(scores)
    if mask is not None:
        mask = checks.mask(mask, scores.shape)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


class MHAParams(NamedTuple):
    """The four d_model x d_model matrices of one block, and their biases (or None)."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None


def init_params(d_model: int, h: int, *, seed: int = 0, bias: bool = True, dtype=np.float64) -> MHAParams:
    """Random parameters for one block; the shapes do not depend on h (it is only checked).

    dtype=np.float32 (or "float32") halves the memory, for running the block at published model widths.
    """
    checks.heads(d_model, h)
    dtype = checks.float_dtype(dtype)
    # the generator draws float32 and float64 directly; other floats are drawn as float64 and cast
    drawn = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((4, d_model, d_model), dtype=drawn).astype(dtype, copy=False)
    w *= dtype.type(1.0 / np.sqrt(d_model))
    b = (rng.standard_normal((4, d_model), dtype=drawn) * 0.1).astype(dtype, copy=False) if bias else [None] * 4
    return MHAParams(*w, *b)


# --8<-- [start:split]
def split_heads(x: np.ndarray, h: int) -> np.ndarray:
    """[..., n, d_model] -> [..., h, n, d_k], without copying a number."""
    *lead, n, d_model = x.shape  # x: [..., n, d_model]
    x = x.reshape(*lead, n, h, d_model // h)  # [..., n, h, d_k]: rows cut in h
    return np.swapaxes(x, -3, -2)  # [..., h, n, d_k]: heads first


def merge_heads(x: np.ndarray) -> np.ndarray:
    """[..., h, n, d_k] -> [..., n, h * d_k]: the heads side by side."""
    *lead, h, n, d_k = x.shape  # x: [..., h, n, d_k]
    x = np.swapaxes(x, -3, -2)  # [..., n, h, d_k]: tokens first again
    return x.reshape(*lead, n, h * d_k)  # [..., n, d_model]: pieces end to end
# --8<-- [end:split]


def _project(x, w, b):
    return x @ w if b is None else x @ w + b


class MHATrace(NamedTuple):
    """Everything one forward pass computes, for the figures. Per-head arrays are [..., h, n, ·]."""

    q: np.ndarray  # [..., h, n, d_k]
    k: np.ndarray  # [..., h, n, d_k]
    v: np.ndarray  # [..., h, n, d_k]
    scores: np.ndarray  # [..., h, n, n], already divided by sqrt(d_k); -inf where masked
    weights: np.ndarray  # [..., h, n, n]
    heads: np.ndarray  # [..., h, n, d_k]: each head's output
    concat: np.ndarray  # [..., n, d_model]: the heads side by side
    out: np.ndarray  # [..., n, d_model]: concat @ w_o + b_o


def mha_trace(x, params: MHAParams, h: int, *, mask=None) -> MHATrace:
    """Multi-head attention with every intermediate returned. x [n, d_model] or [batch, n, d_model]."""
    x = checks.tokens(x)
    checks.heads(x.shape[-1], h)
    params = checks.params(params, x.shape[-1])
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
    return MHATrace(q, k, v, scores, weights, heads, concat, out)


def multi_head_attention(x, params: MHAParams, h: int, *, mask=None):
    """x [n, d_model] or [batch, n, d_model] -> out (x's shape), weights [..., h, n, n]."""
    t = mha_trace(x, params, h, mask=mask)
    return t.out, t.weights


def multi_head_attention_loop(x, params: MHAParams, h: int, *, mask=None):
    """The same computation as a loop over heads, for reading (and for testing the batched one).

    Head i owns columns i*d_k:(i+1)*d_k of w_q, w_k and w_v: its own d_model x d_k blocks.
    """
    x = checks.tokens(x)
    checks.heads(x.shape[-1], h)
    params = checks.params(params, x.shape[-1])
    d_k = x.shape[-1] // h
    outputs, weights = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        q = x @ params.w_q[:, cols] + (0 if params.b_q is None else params.b_q[cols])
        k = x @ params.w_k[:, cols] + (0 if params.b_k is None else params.b_k[cols])
        v = x @ params.w_v[:, cols] + (0 if params.b_v is None else params.b_v[cols])
        out_i, w_i = attention(q, k, v, mask=mask)  # scale 1/sqrt(d_k) by default
        outputs.append(out_i)
        weights.append(w_i)
    concat = np.concatenate(outputs, axis=-1)  # [..., n, h * d_k]
    return _project(concat, params.w_o, params.b_o), np.stack(weights, axis=-3)
