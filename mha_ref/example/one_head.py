"""One head's output, worked through: a single query step by step, and what a blended head returns.

Built on the running example (toy.py). worked_example() computes one row of one head the way one
would by hand, from the inputs and the head's own d_model x d_k blocks; the figure worked-example
prints every step and ends in the numbers concat-slots places. The rest is what blending costs in
the output (figure output-blend): the blended head of toy.blend_weights carries the position head's
query and key block and the syntax head's side by side; here it carries their value blocks side by
side too, so that it returns as many numbers (2 d_k) as the two heads together.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import checks
from . import toy
from ..attention import mha_trace, softmax


class WorkedExample(NamedTuple):
    """One query through one head, every step (worked_example). The head's part is [d_k] wide."""

    x: np.ndarray  # [d_model] the query token's input row
    w_q: np.ndarray  # [d_model, d_k] the head's own columns of W_Q
    b_q: np.ndarray  # [d_k] its part of the query bias (zero for a head that has none)
    q: np.ndarray  # [d_k] x @ w_q + b_q
    k: np.ndarray  # [n, d_k] every token's key in this head
    dots: np.ndarray  # [n] q . k_j
    scores: np.ndarray  # [n] dots / sqrt(d_k)
    weights: np.ndarray  # [n] softmax(scores)
    v: np.ndarray  # [n, d_k] every token's value in this head
    weighted: np.ndarray  # [n, d_k] weights[j] * v[j]
    out: np.ndarray  # [d_k] their sum: the head's output for the query, its slots of the concatenation


def worked_example(query: str = "it", head: str = "position") -> WorkedExample:
    """One row of one head, computed step by step from the inputs and the head's own d_model x d_k
    blocks, as one would by hand; not read off the batched trace, which the tests check it against."""
    t, i = toy.token_index(query), toy.head_index(head)
    x, p = toy.inputs(), toy.params()
    cols = slice(i * toy.D_K, (i + 1) * toy.D_K)

    def bias(b):  # [d_model] or None -> [d_k]
        return np.zeros(toy.D_K) if b is None else b[cols]

    w_q = p.w_q[:, cols]
    q = x[t] @ w_q + bias(p.b_q)  # [d_k]
    k = x @ p.w_k[:, cols] + bias(p.b_k)  # [n, d_k]
    v = x @ p.w_v[:, cols] + bias(p.b_v)  # [n, d_k]
    dots = k @ q  # [n]
    scores = dots / np.sqrt(toy.D_K)
    weights = softmax(scores)
    weighted = weights[:, None] * v  # [n, d_k]
    return WorkedExample(x[t], w_q, bias(p.b_q), q, k, dots, scores, weights, v, weighted, weighted.sum(axis=0))


# ---- what blending costs in the output ----

_PAIR = ("position", "syntax")


def _trace_of(x):
    """The block's trace on inputs x ([n, d_model]; the example's own when None)."""
    if x is None:
        return toy.trace()
    return mha_trace(checks.matrix(x, "x", (toy.N, toy.D_MODEL)), toy.params(), toy.H)


def blend_values(x=None) -> np.ndarray:
    """[n, 2 d_k] the blended head's values: the position head's and the syntax head's side by side,
    on inputs x (the example's own unless given)."""
    t = _trace_of(x)
    return np.concatenate([t.v[toy.head_index(h)] for h in _PAIR], axis=-1)


def blend_output(alpha: float, query: str = "it", x=None) -> np.ndarray:
    """[2 d_k] what the blended head returns for `query` at ratio alpha, on inputs x: its one row of
    weights times its values, sum_j a_j v_j."""
    return toy.blend_weights(alpha, _trace_of(x))[toy.token_index(query)] @ blend_values(x)


def two_head_output(query: str = "it", x=None) -> np.ndarray:
    """[2 d_k] the position head's and the syntax head's outputs for `query` on inputs x, side by
    side: each head its own row of weights over its own values."""
    t, i = _trace_of(x), toy.token_index(query)
    return np.concatenate([t.heads[toy.head_index(h)][i] for h in _PAIR])


def rule_answers(query: str = "it") -> tuple[str, str]:
    """The tokens the position head and the syntax head put their top weight on for `query`."""
    i = toy.token_index(query)
    return toy.TOKENS[toy.targets("position")[i]], toy.TOKENS[toy.targets("syntax")[i]]


def blend_twin_inputs(alpha: float, query: str = "it") -> np.ndarray:
    """[n, d_model] a twin of the example's inputs: the rows of the two rules' answers (rule_answers)
    are changed so that in the position and syntax heads their keys stay exactly as they were and
    their values both become m = (a v_p + b v_s) / (a + b), a and b the weights the blended row of
    `query` gives them at ratio alpha. Every query and key the row of `query` meets is unchanged,
    so its weights are too, and the blended head returns a m + b m = a v_p + b v_s: the same output
    for inputs whose two answers carry different values and for inputs whose two carry one.

    Each changed row adds dx with dx [W_K | W_V] = [0 | m - v] over the two heads' columns: 4 d_k
    equations in d_model unknowns (here as many), solved by least squares and checked exact.
    """
    p_, s_ = (toy.token_index(t) for t in rule_answers(query))
    if p_ == s_:
        raise ValueError(f"for the query {query!r} both rules pick {toy.TOKENS[p_]!r}: there is no blend to undo")
    w = toy.blend_weights(alpha)[toy.token_index(query)]
    v = blend_values()
    m = (w[p_] * v[p_] + w[s_] * v[s_]) / (w[p_] + w[s_])  # [2 d_k]
    pm = toy.params()
    cols = np.r_[tuple(slice(toy.head_index(h) * toy.D_K, (toy.head_index(h) + 1) * toy.D_K) for h in _PAIR)]
    reads = np.concatenate([pm.w_k[:, cols], pm.w_v[:, cols]], axis=1)  # [d_model, 4 d_k]
    x = toy.inputs()
    for j in (p_, s_):
        target = np.concatenate([np.zeros(2 * toy.D_K), m - v[j]])
        dx = np.linalg.lstsq(reads.T, target, rcond=None)[0]
        if not np.allclose(dx @ reads, target, atol=1e-9):
            raise ValueError("no input row gives these keys and values: the two heads read too little of it")
        x[j] += dx
    return x
