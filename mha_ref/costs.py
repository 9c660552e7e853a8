"""What one multi-head attention block costs: parameters and multiply-adds, for any h.

Counts follow the row-vector layout of attention.py. A multiply-add is one product added into a
sum; an (a x b) @ (b x c) product costs a * b * c of them.
"""

from __future__ import annotations

from typing import NamedTuple

from . import checks


def head_param_count(d_model: int, h: int, *, bias: bool = True) -> int:
    """One head's blocks of W_Q, W_K, W_V (d_model x d_k each) and of their biases."""
    checks.heads(d_model, h)
    d_k = d_model // h
    return 3 * (d_model * d_k + (d_k if bias else 0))


def param_count(d_model: int, h: int, *, bias: bool = True) -> int:
    """W_Q, W_K, W_V, W_O (d_model x d_model each) and their biases: h only cuts, it never adds."""
    return h * head_param_count(d_model, h, bias=bias) + d_model * d_model + (d_model if bias else 0)  # + W_O, b_O


class MultiplyAdds(NamedTuple):
    projections: int  # x @ W_Q, x @ W_K, x @ W_V and concat @ W_O
    scores: int  # Q K^T, summed over the heads
    weighted_sum: int  # weights @ V, summed over the heads

    @property
    def attention(self) -> int:
        """The part that grows with n^2: scores plus weighted sum."""
        return self.scores + self.weighted_sum

    @property
    def total(self) -> int:
        return self.projections + self.attention


def multiply_adds(n: int, d_model: int, h: int) -> MultiplyAdds:
    """Multiply-adds of one block on n tokens, counted head by head."""
    checks.heads(d_model, h)
    n = checks.count(n, "the context length n")
    d_k = d_model // h
    projections = 4 * n * d_model * d_model
    scores = h * (n * d_k * n)  # each head: (n x d_k) @ (d_k x n)
    weighted_sum = h * (n * n * d_k)  # each head: (n x n) @ (n x d_k)
    return MultiplyAdds(projections, scores, weighted_sum)


def crossover_context(d_model: int) -> int:
    """The n at which the projections cost as much as the attention: 4 n d^2 = 2 n^2 d, n = 2d."""
    checks.heads(d_model, 1)
    return 2 * d_model


def attention_weights(n: int, h: int) -> int:
    """The entries of one block's h weight matrices of n x n: the softmax takes one exponential per
    entry, and standard attention keeps the whole table in memory. This part grows with h."""
    checks.heads(h, 1)
    return h * checks.count(n, "the context length n") ** 2


def attention_weights_bytes(n: int, h: int, dtype="float32") -> int:
    """The memory that keeping attention_weights(n, h) takes, in bytes, at `dtype` (a float type)."""
    return attention_weights(n, h) * checks.float_dtype(dtype).itemsize
