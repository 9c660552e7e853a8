"""The shapes along one multi-head attention block, read off a real forward pass."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import checks, models
from .attention import init_params, merge_heads, mha_trace

_BASE = models.model("Transformer base")


class FlowShapes(NamedTuple):
    h: int
    d_k: int
    x: str  # each shape as text, the token axis written as "n"
    q_i: str
    head_i: str
    concat: str
    w_o: str
    out: str


def flow_shapes(d_model: int = _BASE.d_model, h: int = _BASE.heads, n: int = 3) -> FlowShapes:
    """Run mha_trace at this size on n random tokens and report the shapes it produced."""
    params = init_params(d_model, h, seed=0)
    x = np.random.default_rng(0).normal(size=(n, d_model))
    t = mha_trace(x, params, h)

    def text(shape) -> str:
        if n in (d_model, d_model // h):
            raise ValueError(f"pick n different from d_model and d_k, got n={n}")
        return " × ".join("n" if s == n else str(s) for s in shape)

    return FlowShapes(h=t.q.shape[0], d_k=t.q.shape[-1], x=text(x.shape), q_i=text(t.q[0].shape),
                      head_i=text(t.heads[0].shape), concat=text(t.concat.shape),
                      w_o=text(params.w_o.shape), out=text(t.out.shape))


class TensorShape(NamedTuple):
    step: str  # a name of BLOCK_STEPS
    shape: tuple[int, ...]  # as the forward pass produced it
    axes: tuple[str, ...]  # each axis by its name in the pages' vocabulary: "n", "h", "d_k", "d_model"


# Every tensor of one block, in the order the forward pass makes them. Two are not fields of
# MHATrace: "reshaped" is split_heads' [n, h, d_k] before it moves the head axis to the front,
# "heads_moved" is merge_heads' [n, h, d_k] before it reshapes back to [n, d_model].
BLOCK_STEPS = ("x", "projected", "reshaped", "split", "one_head", "scores", "weights", "heads",
               "heads_moved", "concat", "out")


def block_shapes(d_model: int, h: int, n: int = 5, *, seed: int = 0) -> tuple[TensorShape, ...]:
    """Run mha_trace at this size on n random tokens; the shape of each of BLOCK_STEPS, axes named.

    An axis is named by its size, so n, h, d_k and d_model must be four different numbers.
    """
    checks.heads(d_model, h)
    n = checks.count(n, "the token count n")
    sizes = {"n": n, "h": h, "d_k": d_model // h, "d_model": d_model}
    if len(set(sizes.values())) < len(sizes):
        raise ValueError(f"n, h, d_k and d_model must be four different numbers to name each axis, got "
                         f"{', '.join(f'{k}={v}' for k, v in sizes.items())}; pick another n")
    x = np.random.default_rng(seed).normal(size=(n, d_model))
    t = mha_trace(x, init_params(d_model, h, seed=seed), h)
    projected = merge_heads(t.q)  # x @ w_q + b_q: merging undoes the split exactly
    tensors = {
        "x": x,
        "projected": projected,
        "reshaped": projected.reshape(n, h, d_model // h),
        "split": t.q,  # k and v alike
        "one_head": t.q[0],
        "scores": t.scores,
        "weights": t.weights,
        "heads": t.heads,
        "heads_moved": np.moveaxis(t.heads, -3, -2),
        "concat": t.concat,
        "out": t.out,
    }
    name = {size: axis for axis, size in sizes.items()}
    return tuple(TensorShape(step, a.shape, tuple(name[s] for s in a.shape)) for step, a in tensors.items())
