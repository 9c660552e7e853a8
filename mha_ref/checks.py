"""Input checks: every bad input is refused with a message that names the problem."""

from __future__ import annotations

import math

import numpy as np

from .params import MHAParams


def _real(x, name: str) -> np.ndarray:
    """x as a real floating-point array; strings, complex numbers and ragged lists refused by name."""
    try:
        a = np.asarray(x)
    except Exception as e:  # ragged lists and the like
        raise TypeError(f"{name} must be a numeric array: {e}") from None
    if not (np.issubdtype(a.dtype, np.number) or a.dtype == bool) or np.iscomplexobj(a):
        raise TypeError(f"{name} must be a real numeric array, got dtype {a.dtype}")
    if not np.issubdtype(a.dtype, np.floating):
        a = a.astype(float)  # floats keep their precision: float32 weights are not copied
    return a


def _array(x, name: str) -> np.ndarray:
    a = _real(x, name)
    if not _all_finite(a):
        raise ValueError(f"{name} contains non-finite values (nan or inf)")
    return a


def _all_finite(a: np.ndarray) -> bool:
    """No nan or inf in a, without np.isfinite's boolean copy of it (151 MB for a GPT-3 weight).
    min and max are nan if any element is, and +-inf if one is; a sum would overflow on finite values."""
    return a.size == 0 or bool(np.isfinite(a.min()) and np.isfinite(a.max()))


def flag(value, name: str) -> bool:
    """True or False (numpy's bool too), not merely something truthy: bias='no' would count as True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def seed(value) -> int:
    """A random seed: a whole number >= 0, what numpy's generator takes. None (fresh entropy) is
    refused too: the same seed must draw the same numbers, build after build."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"seed must be a whole number >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {value!r}")
    return int(value)


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


def split_input(x, h: int) -> np.ndarray:
    """split_heads' x: an array of at least two axes [..., n, d_model], h a whole number >= 1 that
    divides d_model. Not copied: split_heads makes a view of it."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"split_heads: x must have at least two axes [..., n, d_model], got shape {x.shape}")
    heads(x.shape[-1], h)
    return x


def merge_input(x) -> np.ndarray:
    """merge_heads' x: an array of at least three axes [..., h, n, d_k], with at least one head."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"merge_heads: x must have at least three axes [..., h, n, d_k], got shape {x.shape}")
    if x.shape[-3] < 1:
        raise ValueError(f"merge_heads: x has no heads: shape {x.shape} (h = 0)")
    return x


# The largest scores array attention may make: 1 GiB. Its exponentials and its weights are as
# large and alive at the same time, so a call may hold about three times this. Larger, numpy would
# ask for the memory all at once and fail (MemoryError) or send the machine into swap, rather
# than say why.
SCORES_LIMIT = 2**30  # bytes


def scores_fit(shape: tuple[int, ...], dtype, what: str, layout: str) -> None:
    """Refuse a computation whose scores, of `shape` and `dtype`, would pass SCORES_LIMIT, in one
    line that says how much they would need: "attention over 30000 tokens with 8 heads would need
    about 53.6 GiB for its scores (h x n x n float64); the limit is 1 GiB"."""
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    if size > SCORES_LIMIT:
        raise ValueError(f"{what} would need about {size / 2**30:.1f} GiB for its scores ({layout} {dtype.name}); "
                         f"the limit is {SCORES_LIMIT / 2**30:g} GiB (mha_ref.checks.SCORES_LIMIT): use fewer tokens")


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


def kv_heads(h: int, kv_heads) -> int:
    """Grouped-query attention's key/value head count: None means h (every head its own keys and
    values); otherwise a whole number >= 1 that divides h, so that each key/value head serves the
    same number of query heads (1 is multi-query attention). h must have been checked already."""
    if kv_heads is None:
        return h
    if isinstance(kv_heads, bool) or not isinstance(kv_heads, (int, np.integer)):
        raise TypeError(f"kv_heads must be a whole number >= 1 (or None for h), got {kv_heads!r}")
    if kv_heads < 1:
        raise ValueError(f"kv_heads, the number of key/value heads, must be at least 1, got kv_heads={kv_heads}")
    if h % kv_heads:
        raise ValueError(f"kv_heads={kv_heads} does not divide the head count h={h}: "
                         f"each key/value head must serve the same number of query heads")
    return int(kv_heads)


def params(p, d_model: int, *, h: int | None = None, kv_heads: int | None = None):
    """An MHAParams: w_q and w_o d_model x d_model, each bias (d_model,) or None; x's width must match.
    w_k, w_v and their biases are kv_heads * d_k wide when kv_heads is given (checked against h)."""

    if not isinstance(p, MHAParams):
        raise TypeError(f"params must be an MHAParams (see init_params), got {type(p).__name__}")
    kv_width = d_model if kv_heads is None else kv_heads * (d_model // h)
    fields = {}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        w = _array(getattr(p, name), f"params.{name}")
        width = kv_width if name in ("w_k", "w_v") else d_model
        if w.shape != (d_model, width):
            raise ValueError(f"params.{name} has shape {w.shape}, expected ({d_model}, {width}) "
                             + _for_widths(name, d_model, h, kv_heads, w.shape))
        fields[name] = w
    for name in ("b_q", "b_k", "b_v", "b_o"):
        b = getattr(p, name)
        if b is not None:
            b = _array(b, f"params.{name}")
            width = kv_width if name in ("b_k", "b_v") else d_model
            if b.shape != (width,):
                raise ValueError(f"params.{name} has shape {b.shape}, expected ({width},)"
                                 + ("" if kv_heads is None or name in ("b_q", "b_o")
                                    else f" for kv_heads={kv_heads} key/value heads of d_k={d_model // h}"))
        fields[name] = b
    return type(p)(**fields)


def _for_widths(name: str, d_model: int, h: int | None, kv_heads: int | None, shape) -> str:
    """What the expected shape of a matrix follows from, for its error message."""
    said = f"for x of width d_model={d_model}"
    if name in ("w_q", "w_o"):
        return said
    if kv_heads is not None:
        return f"{said} with kv_heads={kv_heads} key/value heads of d_k={d_model // h}"
    d_k = d_model // h if h else 0
    if len(shape) == 2 and shape[0] == d_model and 0 < shape[1] < d_model and d_k and shape[1] % d_k == 0 \
            and h % (shape[1] // d_k) == 0:  # it fits grouped-query attention: say how to ask for it
        return f"{said}; {shape[1] // d_k} key/value heads of d_k={d_k} need kv_heads={shape[1] // d_k}"
    return said


def qkv(q, k, v):
    q, k, v = _array(q, "q"), _array(k, "k"), _array(v, "v")
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise ValueError(f"q, k, v must be at least 2-D, got shapes {q.shape}, {k.shape}, {v.shape}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share their last axis d_k, got {q.shape} and {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of keys, got {k.shape} and {v.shape}")
    if q.shape[-1] == 0:
        raise ValueError(f"q and k have width d_k = 0: shapes {q.shape} and {k.shape}")
    if k.shape[-2] == 0:
        raise ValueError(f"k has no keys: shape {k.shape}; every query needs one to attend to")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch axes of q, k, v do not broadcast: "
                         f"{q.shape[:-2]}, {k.shape[:-2]}, {v.shape[:-2]}") from None
    return q, k, v


def scale(s) -> float:
    """attention's scale: a finite number >= 0. 0 gives every key the same weight (the limit of
    an infinite temperature); a negative scale would rank the keys backwards, so it is refused."""
    if isinstance(s, bool) or not isinstance(s, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale must be a finite real number >= 0, got {s!r}")
    try:
        f = float(s)  # a Python float keeps float32 inputs float32
    except OverflowError:  # an int beyond any float
        f = float("inf")
    if not (np.isfinite(f) and f >= 0):
        raise ValueError(f"scale must be a finite real number >= 0, got {s!r}")
    return f


def finite_scores(s: np.ndarray) -> np.ndarray:
    """Inputs too large for their dtype overflow q.k to inf, which the softmax turns into nan
    everywhere; refuse them."""
    return not_overflowed(s, "the attention scores", "q.k")


def not_overflowed(a: np.ndarray, what: str, formula: str) -> np.ndarray:
    """a, computed from finite inputs, must still be finite: float16 tops out at 65504, so a product
    of finite numbers can overflow to inf (and inf - inf, 0 * inf to nan). min and max see inf and
    nan without a copy of a."""
    if a.size and not (np.isfinite(a.min()) and np.isfinite(a.max())):
        raise ValueError(f"{what} overflowed {a.dtype.name} ({formula} is inf or nan): the inputs are "
                         f"too large for this dtype; scale them down or use float64")
    return a


def softmax_input(x) -> np.ndarray:
    """softmax's x: real, each entry finite or -inf (a masked entry). nan is refused: it has no
    weight to give. +inf is refused: the weights would be inf / inf, and a score only becomes +inf
    by overflowing, which attention refuses upstream (finite_scores)."""
    a = _real(x, "softmax's x")
    top = a.max() if a.size else 0.0  # nan if any entry is nan, +inf if any is +inf
    for bad, found in (("nan", np.isnan), ("+inf", np.isposinf)):
        if found(top):
            where = tuple(int(i) for i in np.argwhere(found(a))[0])
            raise ValueError(f"softmax's x contains {bad} (first at index {where}): each entry must be "
                             f"finite, or -inf for a masked one")
    return a


def output_gradient(d_out, shape: tuple[int, ...], dtype) -> np.ndarray:
    """d loss / d out for the backward pass: real, of the output's shape, finite once in dtype
    (nan or inf would make every gradient nan)."""
    d_out = _real(d_out, "d_out")
    if d_out.shape != shape:
        raise ValueError(f"d_out must have the output's shape {shape}, got {d_out.shape}")
    with np.errstate(over="ignore"):  # a value too large for dtype becomes inf, refused just below
        d_out = d_out.astype(dtype, copy=False)
    if not _all_finite(d_out):
        raise ValueError(f"d_out contains non-finite values (nan or inf) in {d_out.dtype.name}")
    return d_out


def float_dtype(dtype) -> np.dtype:
    """A numpy dtype-like ("float32", np.float32, ...) that names a real floating-point type."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or not np.issubdtype(dt, np.floating):
        raise TypeError(f"dtype must be a real floating-point dtype such as float32 or float64, got {dtype!r}")
    return dt


def mask(m, shape: tuple[int, ...]) -> np.ndarray:
    """Boolean and broadcastable to the scores' shape. A query row with no key allowed is accepted:
    its weights are all 0 (see attention.softmax), so it reads nothing."""
    try:
        m = np.asarray(m)
    except ValueError as e:  # ragged nested lists
        raise TypeError(f"mask must be a boolean array (True = may attend) with rows of one length: {e}") from None
    if m.dtype != bool:
        raise TypeError(f"mask must be boolean (True = may attend), got dtype {m.dtype}")
    try:
        m = np.broadcast_to(m, shape)
    except ValueError:
        raise ValueError(f"mask of shape {m.shape} does not broadcast to the scores' shape {shape}") from None
    return m


def matrix(m, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """A real, finite array of exactly `shape` (a table of value vectors, say)."""
    m = _array(m, name)
    if m.shape != shape:
        raise ValueError(f"{name} has shape {m.shape}, expected {shape}")
    return m


# ---- page 8's pieces: rotary positions, windows, tiles, latent attention ---------------------

def whole(value, what: str, *, least: int) -> int:
    """A whole number >= least (numpy integers are welcome; True and 2.0 are not)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be a whole number >= {least}, got {value!r}")
    if value < least:
        raise ValueError(f"{what} must be a whole number >= {least}, got {value!r}")
    return int(value)


def rotary_input(x, name: str = "x") -> np.ndarray:
    """rope's x: real, finite, at least [n, d] with d even and >= 2 (the axis is rotated in pairs)."""
    x = _array(x, name)
    if x.ndim < 2:
        raise ValueError(f"{name} must have at least two axes [..., n, d], got shape {x.shape}")
    if x.shape[-1] < 2 or x.shape[-1] % 2:
        raise ValueError(f"{name}'s last axis d={x.shape[-1]} must be even and at least 2: "
                         f"rotary positions turn it in pairs")
    return x


def positions(p, shape: tuple[int, ...]) -> np.ndarray:
    """Token positions for rope: real, finite, broadcastable to x's shape without its last axis
    ([n] for x [..., n, d]). Whole numbers in practice; any finite real is a valid angle."""
    p = _array(p, "positions")
    try:
        return np.broadcast_to(p, shape)
    except ValueError:
        raise ValueError(f"positions of shape {p.shape} do not broadcast to x's positions {shape} "
                         f"(x's shape without its last axis)") from None


def rope_base(base) -> float:
    """RoPE's base (10000 in RoFormer, 500000 in Llama 3): a finite real number > 0."""
    if isinstance(base, bool) or not isinstance(base, (int, float, np.integer, np.floating)):
        raise TypeError(f"base must be a finite real number > 0, got {base!r}")
    try:
        f = float(base)
    except OverflowError:
        f = float("inf")
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"base must be a finite real number > 0, got {base!r}")
    return f
