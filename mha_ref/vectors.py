"""Test vectors for a learner's own multi-head attention, computed by mha_ref (the checker is selfcheck.py).

For each configuration in CONFIGS: the inputs (x, the parameters, the mask, d_out), every stage of the
forward pass (STAGES) and the gradients of the fixed loss sum(out * d_out) with respect to x and every
parameter. For each common mistake in MISTAKES, the same forward pass with that one mistake, the stages it
changes, so that the checker can name the mistake a learner's first wrong stage matches.

Inputs are drawn as float16 and stored so: the numbers a learner reads are exactly the ones mha_ref
computed with (in float64). Results are stored as float32, close enough for the checker's tolerance
and half the bytes; a published width's four matrices are what the file weighs. A weight's gradient
is its layer's input (n rows) transposed times a factor of n rows: the file keeps that factor, which
the checker multiplies out (selfcheck.check, load_vectors), not the d_model rows of the product.
"""

from __future__ import annotations

import io
import math
import zipfile
from typing import NamedTuple

import numpy as np

from .attention import init_params, merge_heads, mha_trace, softmax, split_heads
from .backward import multi_head_attention_backward
from .models import model
from .params import MHAParams
from .selfcheck.check import LEFT, MISTAKES, RIGHT, STAGES  # the checker names the mistakes; it needs numpy only

PARAMS = MHAParams._fields  # w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # every member's date: the same configurations give the same bytes


class Config(NamedTuple):
    name: str
    n: int
    d_model: int
    h: int
    kv_heads: int | None = None  # None: as many key/value heads as heads
    bias: bool = True
    causal: bool = False  # a causal mask: token i may attend to tokens 0 ... i
    seed: int = 0
    key_bias: float = 0.0  # not 0: every entry of b_k is this, a term each query's scores share


_BASE = model("Transformer base")
CONFIGS = (
    Config("small", n=4, d_model=8, h=2),  # d_k = n: a forgotten transpose still runs
    Config("one-head-causal", n=5, d_model=6, h=1, causal=True, seed=1),
    Config("eight-heads-no-bias", n=6, d_model=32, h=8, bias=False, causal=True, seed=2),
    Config("grouped-kv", n=4, d_model=16, h=4, kv_heads=2, causal=True, seed=3),
    Config("transformer-base", n=4, d_model=_BASE.d_model, h=_BASE.heads, causal=True, seed=4),
    # b_k adds q_i . b_k to every score of query i: the softmax removes it, but its size (|scaled| far
    # above 745) makes exp overflow or underflow in a softmax without its maximum subtracted
    Config("large-scores", n=4, d_model=8, h=2, seed=5, key_bias=1024.0),
)


def inputs(c: Config):
    """x [n, d_model], params (float16 values, as float64), mask [n, n] or None, d_out [n, d_model]."""
    p = init_params(c.d_model, c.h, kv_heads=c.kv_heads, seed=c.seed, bias=c.bias)
    if c.key_bias:
        p = p._replace(b_k=np.full_like(p.b_k, c.key_bias))
    p = MHAParams(*(None if a is None else a.astype(np.float16).astype(np.float64) for a in p))
    rng = np.random.default_rng(1000 + c.seed)
    x = rng.standard_normal((c.n, c.d_model)).astype(np.float16).astype(np.float64)
    d_out = rng.standard_normal((c.n, c.d_model)).astype(np.float16).astype(np.float64)
    mask = np.tril(np.ones((c.n, c.n), dtype=bool)) if c.causal else None
    return x, p, mask, d_out


def stages(x, p: MHAParams, h: int, mask=None, kv_heads=None) -> dict[str, np.ndarray]:
    """Every stage of the forward pass, from mha_trace. k and v are [kv_heads, n, d_k]: one per
    key/value head, as a grouped-query implementation keeps them; scores is q k^T before the scale,
    scaled after it and before the mask."""
    t = mha_trace(x, p, h, mask=mask, kv_heads=kv_heads)
    kv = kv_heads or h
    d_k = x.shape[-1] // h
    scores = t.q @ np.swapaxes(t.k, -1, -2)
    return {"q": t.q, "k": t.k[:: h // kv], "v": t.v[:: h // kv], "scores": scores,
            "scaled": scores / math.sqrt(d_k), "weights": t.weights, "heads": t.heads, "concat": t.concat,
            "out": t.out}


def gradients(x, p: MHAParams, h: int, d_out, mask=None, kv_heads=None) -> dict[str, np.ndarray]:
    """d_x and d_<param> for every parameter the block has, of the loss sum(out * d_out)."""
    d_p, d_x = multi_head_attention_backward(x, p, h, d_out, mask=mask, kv_heads=kv_heads)
    return {"d_x": d_x, **{f"d_{name}": a for name, a in zip(PARAMS, d_p) if a is not None}}


# --- the common mistakes: the forward pass again, each with one thing wrong -----------------------

def _proj(x, w, b):
    return x @ w if b is None else x @ w + b


def _split_strided(a, h):
    """[n, d_model] -> [h, n, d_k] with head i taking columns i, i + h, i + 2h ...: the mistake."""
    n, d = a.shape
    return a.reshape(n, d // h, h).transpose(2, 0, 1)


def _split_reshaped(a, h):
    """[n, d_model] -> [h, n, d_k] by a reshape alone, no transpose: the mistake (tokens mixed)."""
    n, d = a.shape
    return a.reshape(h, n, d // h)


def _softmax(s, axis=-1, stable=True):
    """The softmax as a learner writes it: a row whose every key is masked gives nan (0 / 0), and
    without the maximum subtracted exp overflows (inf / inf) or underflows (0 / 0) on large scores."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(s - s.max(axis=axis, keepdims=True) if stable else s)
        return e / e.sum(axis=axis, keepdims=True)


MASKS = {"mask_after_softmax", "mask_inverted", "causal_plus_one", "causal_minus_one"}  # need a mask to show


def _mistaken(x, p: MHAParams, h: int, mask, kv_heads, mistake: str) -> dict[str, np.ndarray] | None:
    """The stages with one mistake; None when it cannot run (a forgotten transpose needs d_k = n) or
    changes nothing here (a mask applied late, without a mask; the output bias dropped, without one)."""
    n, d_model = x.shape
    kv = kv_heads or h
    d_k = d_model // h
    if (mistake == "transpose" and d_k != n) or (mistake in MASKS and mask is None) \
            or (mistake == "no_b_o" and p.b_o is None):
        return None
    split = {"strided_split": _split_strided, "split_no_transpose": _split_reshaped}.get(mistake, split_heads)
    q = split(_proj(x, p.w_q, p.b_q), h)
    k = split(_proj(x, p.w_k, p.b_k), kv)
    v = k if mistake == "keys_as_values" else split(_proj(x, p.w_v, p.b_v), kv)
    k_all, v_all = np.repeat(k, h // kv, axis=0), np.repeat(v, h // kv, axis=0)  # query head i: kv head i // group
    scores = q @ (k_all if mistake == "transpose" else np.swapaxes(k_all, -1, -2))
    scaled = scores if mistake == "no_scale" else scores / math.sqrt(d_model if mistake == "scale_d_model" else d_k)
    causal = np.ones((n, n), dtype=bool)
    allowed = causal if mask is None else {"mask_inverted": ~mask, "causal_plus_one": np.tril(causal, 1),
                                           "causal_minus_one": np.tril(causal, -1)}.get(mistake, mask)
    if mistake == "mask_after_softmax":
        weights = np.where(allowed, _softmax(scaled), 0.0)
    else:
        weights = _softmax(np.where(allowed, scaled, -np.inf), axis=-2 if mistake == "softmax_axis" else -1,
                           stable=mistake != "softmax_unstable")
    heads = weights @ v_all
    concat = {"merge_no_transpose": lambda: heads.reshape(n, d_model),
              "merge_strided": lambda: heads.transpose(1, 2, 0).reshape(n, d_model),
              "merge_reversed": lambda: merge_heads(heads[::-1])}.get(mistake, lambda: merge_heads(heads))()
    out = {"no_w_o": lambda: _proj(concat, np.eye(d_model), p.b_o),
           "no_b_o": lambda: concat @ p.w_o}.get(mistake, lambda: _proj(concat, p.w_o, p.b_o))()
    return {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "weights": weights, "heads": heads,
            "concat": concat, "out": out}


def _differs(wrong: np.ndarray, right: np.ndarray) -> bool:
    """Whether a mistaken stage is not the right one (to float64's rounding): only those are kept."""
    scale = float(np.max(np.abs(right[np.isfinite(right)]), initial=1.0))
    return wrong.shape != right.shape or not np.allclose(wrong, right, rtol=1e-9, atol=1e-12 * scale)


# --- the file ---------------------------------------------------------------------------------------

def arrays() -> dict[str, np.ndarray]:
    """Every array of the file, named '<config>/<what>': inputs as float16 (exact), results float32."""
    out: dict[str, np.ndarray] = {}
    for c in CONFIGS:
        x, p, mask, d_out = inputs(c)
        out[f"{c.name}/config"] = np.array([c.n, c.d_model, c.h, c.kv_heads or c.h, c.bias, c.causal], dtype=np.int64)
        out[f"{c.name}/x"], out[f"{c.name}/d_out"] = x.astype(np.float16), d_out.astype(np.float16)
        out.update({f"{c.name}/{name}": a.astype(np.float16) for name, a in zip(PARAMS, p) if a is not None})
        if mask is not None:
            out[f"{c.name}/mask"] = mask
        expected = stages(x, p, c.h, mask, c.kv_heads)
        out.update({f"{c.name}/expected/{s}": a.astype(np.float32) for s, a in expected.items()})
        for g, a in gradients(x, p, c.h, d_out, mask, c.kv_heads).items():
            out.update(_kept_gradient(c.name, g, a, x if LEFT.get(g) == "x" else expected["concat"]))
        for m in MISTAKES:  # a mistaken pass keeps only the stages it changes: the others are the expected ones
            wrong = _mistaken(x, p, c.h, mask, c.kv_heads, m) or {}
            out.update({f"{c.name}/mistake/{m}/{s}": a.astype(np.float32) for s, a in wrong.items()
                        if _differs(a, expected[s])})
    return out


def _kept_gradient(config: str, g: str, a: np.ndarray, left: np.ndarray) -> dict[str, np.ndarray]:
    """A gradient as the file keeps it (float32): a weight's as the factor RIGHT with left^T @ right =
    the gradient (left its layer's input, n rows: selfcheck.check, LEFT), solved exactly since the
    input's rows are independent; the rest, and a weight whose input's rows are not, whole."""
    if g in LEFT and np.linalg.matrix_rank(left) == left.shape[0] < left.shape[1]:
        right = np.linalg.lstsq(left.T, a, rcond=None)[0]  # [n, width]
        if np.allclose(left.T @ right, a, rtol=1e-12, atol=1e-12 * np.abs(a).max()):
            return {f"{config}/grad/{g}{RIGHT}": right.astype(np.float32)}
    return {f"{config}/grad/{g}": a.astype(np.float32)}


def npz_bytes(found: dict[str, np.ndarray] | None = None) -> bytes:
    """The arrays as an .npz that np.load reads, the same bytes each time: np.savez dates each
    member with the clock, so the members are written here with one fixed date."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
        for name, a in (arrays() if found is None else found).items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(a), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", ZIP_TIME)
            info.external_attr = 0o644 << 16  # rw-r--r-- once unpacked (none: unzip makes it 0600)
            z.writestr(info, member.getvalue(), zipfile.ZIP_DEFLATED)
    return raw.getvalue()
