"""Multi-head latent attention (MLA), DeepSeek-V2's way to shrink the key/value cache.

Plain multi-head attention caches, for every token, a key and a value of d_head numbers per head.
MLA caches one latent vector c of width d_c per token instead, shared by every head, and makes each
head's keys and values from it with up-projections W_UK, W_UV (models.REFERENCES["deepseek2024"],
section 2.1, equations (9)-(19); the symbols W^{DKV}, W^{UK}, W^{UV}, W^{KR}, W^{QR}, W^O there
are w_dkv, w_uk, w_uv, w_kr, w_qr, w_o here, in the row-vector layout of attention.py).

Position cannot live in the latent: rotary positions (rope.py) would sit between W_UK and the query,
and differ from key to key, so W_UK could no longer be folded into the query (see `absorbed`).
So each key also gets a small rotary part k_rope, of width d_rope, made from x and shared by the
heads; it is cached beside the latent. A token costs d_c + d_rope numbers a layer in the cache.

`absorbed=True` computes the same output without making any head's keys or values:
q_i . (c W_UK,i) = (q_i W_UK,i^T) . c, so the query is carried into the latent space once, and
(weights @ c) W_UV,i W_O,i folds W_UV into the output side (`absorbed_weights`). That is how the
cache of latents is read at inference. tests/test_modern_attention.py checks both paths against a
loop over heads written from the paper's equations.

Left out, as they change nothing here: the queries' own low-rank compression (DeepSeek-V2-Lite has
none either), the normalisation of the latent, and the cache itself (MLATrace marks what it holds).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import checks
from .attention import merge_heads, softmax, split_heads
from .rope import rope


class MLAParams(NamedTuple):
    """One MLA block's matrices (no biases, as in DeepSeek-V2). d_c: the latent's width; d_head:
    each head's query, key and value width without position; d_rope: the rotary part's width."""

    w_dkv: np.ndarray  # [d_model, d_c]: x -> the latent c (W^{DKV}), what the cache keeps
    w_uk: np.ndarray  # [d_c, h * d_head]: c -> each head's key (W^{UK})
    w_uv: np.ndarray  # [d_c, h * d_head]: c -> each head's value (W^{UV})
    w_kr: np.ndarray  # [d_model, d_rope]: x -> the rotary key shared by the heads (W^{KR}), cached too
    w_q: np.ndarray  # [d_model, h * d_head]: x -> each head's query (W^{Q} of DeepSeek-V2-Lite)
    w_qr: np.ndarray  # [d_model, h * d_rope]: x -> each head's rotary query (W^{QR})
    w_o: np.ndarray  # [h * d_head, d_model]: the heads side by side -> the output (W^O)


class MLATrace(NamedTuple):
    """One forward pass of mla_attention, for the figures. Per-head arrays are [..., h, n, ·];
    with absorbed=True the per-head keys and values are never made (None)."""

    latent: np.ndarray  # [..., n, d_c]: c, cached
    k_rope: np.ndarray  # [..., n, d_rope]: the rotary key, after rope, cached
    q: np.ndarray  # [..., h, n, d_head], or [..., h, n, d_c] absorbed: the query carried into the latent space
    q_rope: np.ndarray  # [..., h, n, d_rope]: after rope
    k: np.ndarray | None  # [..., h, n, d_head + d_rope]: each head's key, [c W_UK,i ; k_rope]
    v: np.ndarray | None  # [..., h, n, d_head]
    scores: np.ndarray  # [..., h, n, n], divided by sqrt(d_head + d_rope); -inf above the diagonal
    weights: np.ndarray  # [..., h, n, n]
    heads: np.ndarray  # [..., h, n, d_head], or [..., h, n, d_c] absorbed: weights @ c, before W_UV
    out: np.ndarray  # [..., n, d_model]


class AbsorbedWeights(NamedTuple):
    """W_UK folded into the query side, W_UV into the output side, head by head."""

    w_q_latent: np.ndarray  # [h, d_model, d_c]: W_Q,i W_UK,i^T
    w_o_latent: np.ndarray  # [h, d_c, d_model]: W_UV,i W_O,i


def init_mla_params(d_model: int, h: int, d_c: int, d_head: int, d_rope: int, seed: int = 0) -> MLAParams:
    """Random MLA parameters, float64, each matrix scaled by 1 / sqrt(its input width).
    d_rope must be even (rope turns pairs); the same seed draws the same numbers."""
    d_model = checks.whole(d_model, "d_model", least=1)
    h = checks.whole(h, "h, the number of heads,", least=1)
    d_c = checks.whole(d_c, "d_c, the latent's width,", least=1)
    d_head = checks.whole(d_head, "d_head", least=1)
    d_rope = checks.whole(d_rope, "d_rope, the rotary part's width,", least=2)
    if d_rope % 2:
        raise ValueError(f"d_rope={d_rope} must be even: rotary positions turn it in pairs")
    rng = np.random.default_rng(checks.seed(seed))
    shapes = _shapes(d_model, h, d_c, d_head, d_rope)
    return MLAParams(*(rng.standard_normal(s) / math.sqrt(s[0]) for s in shapes.values()))


def _shapes(d_model, h, d_c, d_head, d_rope) -> dict[str, tuple[int, int]]:
    return {"w_dkv": (d_model, d_c), "w_uk": (d_c, h * d_head), "w_uv": (d_c, h * d_head),
            "w_kr": (d_model, d_rope), "w_q": (d_model, h * d_head), "w_qr": (d_model, h * d_rope),
            "w_o": (h * d_head, d_model)}


def _checked(params, d_model: int | None, h: int) -> MLAParams:
    """params must be an MLAParams whose shapes agree with x's width (None: w_dkv's rows), h and each other."""
    if not isinstance(params, MLAParams):
        raise TypeError(f"params must be an MLAParams (see init_mla_params), got {type(params).__name__}")
    shapes = [np.shape(w) for w in params]
    if any(len(s) != 2 for s in shapes):
        raise ValueError(f"params' matrices must be 2-D, got shapes {dict(zip(MLAParams._fields, shapes))}")
    d_c, d_rope, width = shapes[0][1], shapes[3][1], shapes[4][1]
    d_model = shapes[0][0] if d_model is None else d_model
    if width % h or shapes[5][1] % h:
        raise ValueError(f"h={h} does not divide params.w_q's width {width} (h * d_head) "
                         f"or params.w_qr's width {shapes[5][1]} (h * d_rope)")
    if d_rope < 2 or d_rope % 2:
        raise ValueError(f"params.w_kr's width d_rope={d_rope} must be even and at least 2: rope turns pairs")
    expected = _shapes(d_model, h, d_c, width // h, d_rope)
    return MLAParams(*(checks.matrix(w, f"params.{name}", expected[name]) for name, w in zip(MLAParams._fields, params)))


def absorbed_weights(params: MLAParams, h: int) -> AbsorbedWeights:
    """Fold W_UK into the query side and W_UV into the output side, once, before any token comes."""
    params = _checked(params, None, checks.whole(h, "h, the number of heads,", least=1))
    d_model, d_c = params.w_dkv.shape
    d_head = params.w_q.shape[1] // h
    w_q = params.w_q.reshape(d_model, h, d_head).transpose(1, 0, 2)  # [h, d_model, d_head]
    w_uk = params.w_uk.reshape(d_c, h, d_head).transpose(1, 0, 2)  # [h, d_c, d_head]
    w_uv = params.w_uv.reshape(d_c, h, d_head).transpose(1, 0, 2)  # [h, d_c, d_head]
    w_o = params.w_o.reshape(h, d_head, d_model)  # [h, d_head, d_model]: head i's rows of W_O
    return AbsorbedWeights(w_q @ np.swapaxes(w_uk, -1, -2), w_uv @ w_o)


def mla_trace(x, params: MLAParams, h: int, absorbed: bool = False) -> MLATrace:
    """MLA over x [n, d_model] or [batch, n, d_model], causal (a decoder's attention), positions
    0 .. n - 1, with every intermediate returned (see MLATrace)."""
    x = checks.tokens(x)
    h = checks.whole(h, "h, the number of heads,", least=1)
    params = _checked(params, x.shape[-1], h)
    absorbed = checks.flag(absorbed, "absorbed")
    *batch, n, _ = x.shape
    checks.scores_fit((*batch, h, n, n), np.float64, f"MLA over {n} tokens with {h} heads",
                      "batch x h x n x n" if batch else "h x n x n")
    d_head, d_rope = params.w_q.shape[1] // h, params.w_kr.shape[1]
    pos = np.arange(n)
    # --8<-- [start:mla]
    latent = x @ params.w_dkv  # [..., n, d_c]: all the cache keeps of keys and values
    k_rope = rope(x @ params.w_kr, pos)  # [..., n, d_rope]: cached beside it, one for all heads
    q_rope = rope(split_heads(x @ params.w_qr, h), pos)  # [..., h, n, d_rope]
    rotary = q_rope @ np.swapaxes(k_rope, -1, -2)[..., None, :, :]  # [..., h, n, n]
    if not absorbed:  # every head's keys and values, made from the latent
        q = split_heads(x @ params.w_q, h)  # [..., h, n, d_head]
        k_content = split_heads(latent @ params.w_uk, h)  # [..., h, n, d_head]
        v = split_heads(latent @ params.w_uv, h)  # [..., h, n, d_head]
        k = np.concatenate([k_content, np.broadcast_to(k_rope[..., None, :, :], (*k_content.shape[:-1], d_rope))], -1)
        content = q @ np.swapaxes(k_content, -1, -2)  # [..., h, n, n]
    else:  # the query goes to the latent instead: q W_UK^T, folded into one matrix per head
        w = absorbed_weights(params, h)
        q = x[..., None, :, :] @ w.w_q_latent  # [..., h, n, d_c]
        k = v = None
        content = q @ np.swapaxes(latent, -1, -2)[..., None, :, :]  # [..., h, n, n]
    scores = (content + rotary) / math.sqrt(d_head + d_rope)  # = [q ; q_rope] . [k ; k_rope]
    checks.finite_scores(scores)
    scores = np.where(np.tri(n, dtype=bool), scores, -np.inf)  # causal
    weights = softmax(scores)
    if not absorbed:
        heads = weights @ v  # [..., h, n, d_head]
        out = merge_heads(heads) @ params.w_o
    else:
        heads = weights @ latent[..., None, :, :]  # [..., h, n, d_c]: a weighted sum of latents
        out = (heads @ w.w_o_latent).sum(axis=-3)  # each head through W_UV,i W_O,i, then added up
    # --8<-- [end:mla]
    checks.not_overflowed(out, "the output projection", "heads @ w_o")
    return MLATrace(latent, k_rope, q, q_rope, k, v, scores, weights, heads, out)


def mla_attention(x, params: MLAParams, h: int, absorbed: bool = False):
    """x [n, d_model] or [batch, n, d_model] -> out (x's shape), weights [..., h, n, n].
    Causal; absorbed=True gives the same numbers (to rounding) without per-head keys or values."""
    t = mla_trace(x, params, h, absorbed=absorbed)
    return t.out, t.weights
