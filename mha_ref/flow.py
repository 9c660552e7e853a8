"""The shapes along one multi-head attention block, read off a real forward pass."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import models
from .attention import init_params, mha_trace

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
