"""Input checks: every bad input is refused with a message that names the problem."""

from __future__ import annotations

import numpy as np


def _array(x, name: str) -> np.ndarray:
    try:
        a = np.asarray(x)
    except Exception as e:  # ragged lists and the like
        raise TypeError(f"{name} must be a numeric array: {e}") from None
    if not (np.issubdtype(a.dtype, np.number) or a.dtype == bool) or np.iscomplexobj(a):
        raise TypeError(f"{name} must be a real numeric array, got dtype {a.dtype}")
    if not np.issubdtype(a.dtype, np.floating):
        a = a.astype(float)  # floats keep their precision: float32 weights are not copied
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains non-finite values (nan or inf)")
    return a


def heads(d_model: int, h: int) -> None:
    """h must be a whole number >= 1 that divides d_model."""
    for name, value in (("d_model", d_model), ("h", h)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if h < 1:
        raise ValueError(f"the head count h must be at least 1, got h={h}")
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got d_model={d_model}")
    if d_model % h:
        raise ValueError(f"the head count h={h} does not divide d_model={d_model}")


def count(value, what: str) -> int:
    """A whole number >= 1 (a context length, say); numpy integers are welcome."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be a whole number >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{what} must be a whole number >= 1, got {value!r}")
    return int(value)


def tokens(x) -> np.ndarray:
    """x is [n, d_model] or [batch, n, d_model], finite."""
    x = _array(x, "x")
    if x.ndim not in (2, 3):
        raise ValueError(f"x must be 2-D [n, d_model] or 3-D [batch, n, d_model], got shape {x.shape}")
    if x.shape[-2] < 1:
        raise ValueError(f"x has no tokens: shape {x.shape}")
    return x


def params(p, d_model: int):
    """Each matrix d_model x d_model, each bias (d_model,) or None; x's width must match."""
    fields = {}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        w = _array(getattr(p, name), f"params.{name}")
        if w.shape != (d_model, d_model):
            raise ValueError(
                f"params.{name} has shape {w.shape}, expected ({d_model}, {d_model}) "
                f"for x of width d_model={d_model}"
            )
        fields[name] = w
    for name in ("b_q", "b_k", "b_v", "b_o"):
        b = getattr(p, name)
        if b is not None:
            b = _array(b, f"params.{name}")
            if b.shape != (d_model,):
                raise ValueError(f"params.{name} has shape {b.shape}, expected ({d_model},)")
        fields[name] = b
    return type(p)(**fields)


def qkv(q, k, v):
    q, k, v = _array(q, "q"), _array(k, "k"), _array(v, "v")
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise ValueError(f"q, k, v must be at least 2-D, got shapes {q.shape}, {k.shape}, {v.shape}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share their last axis d_k, got {q.shape} and {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of keys, got {k.shape} and {v.shape}")
    return q, k, v


def mask(m, shape: tuple[int, ...]) -> np.ndarray:
    """Boolean, broadcastable to the scores' shape, and no query row left with no key."""
    m = np.asarray(m)
    if m.dtype != bool:
        raise TypeError(f"mask must be boolean (True = may attend), got dtype {m.dtype}")
    try:
        m = np.broadcast_to(m, shape)
    except ValueError:
        raise ValueError(f"mask of shape {m.shape} does not broadcast to the scores' shape {shape}") from None
    empty = ~m.any(axis=-1)
    if empty.any():
        rows = sorted({int(i) for i in np.argwhere(empty)[:, -1]})
        raise ValueError(f"the mask allows no key for query row(s) {rows}: softmax would be undefined")
    return m
