"""The backward pass of multi-head attention: what training needs, in the same row-vector convention.

The forward pass (attention.mha_trace) goes x -> Q, K, V -> split -> scores -> softmax -> weighted
sum -> merge -> W_O. This module walks the same steps in reverse, one function per step, each
taking the gradient of the loss with respect to a step's output and returning it with respect to
the step's inputs. Shapes are written as in attention.py: [..., n, d_model] for rows of tokens,
[..., h, n, d_k] per head, and "..." is an optional batch axis.
"""

from __future__ import annotations

import math

import numpy as np

from . import checks
from .params import MHAParams
from .attention import merge_heads, mha_trace, split_heads


def _rows(a: np.ndarray) -> np.ndarray:
    """[..., n, d] -> [(... n), d]: every token of every sentence as one row."""
    return a.reshape(-1, a.shape[-1])


def projection_backward(x, w, b, d_y):
    """y = x @ w + b, with x [..., n, d_in], w [d_in, d_out], d_y [..., n, d_out]
    -> (d_w [d_in, d_out], d_b [d_out] or None, d_x [..., n, d_in])."""
    d_w = _rows(x).T @ _rows(d_y)  # sum over every token of x_i^T d_y_i
    d_b = None if b is None else _rows(d_y).sum(axis=0)
    return d_w, d_b, d_y @ w.T


def softmax_backward(weights, d_weights):
    """weights = softmax(scores) along the last axis; [..., n_q, n_k] -> d_scores [..., n_q, n_k].

    d s_j = a_j (d a_j - sum_k a_k d a_k). A masked key has a_j = 0, so it gets no gradient.
    """
    return weights * (d_weights - np.sum(weights * d_weights, axis=-1, keepdims=True))


def attention_backward(q, k, v, weights, d_out, scale):
    """out = softmax(scale * q @ k^T) @ v per head: q, k, v [..., h, n, d_k], weights [..., h, n, n],
    d_out [..., h, n, d_k] -> (d_q, d_k, d_v), each [..., h, n, d_k]."""
    d_weights = d_out @ np.swapaxes(v, -1, -2)  # [..., h, n, n]
    d_v = np.swapaxes(weights, -1, -2) @ d_out  # [..., h, n, d_k]
    d_scores = softmax_backward(weights, d_weights) * scale  # [..., h, n, n]
    d_q = d_scores @ k  # [..., h, n, d_k]
    d_k = np.swapaxes(d_scores, -1, -2) @ q  # [..., h, n, d_k]
    return d_q, d_k, d_v


def _sum_groups(d: np.ndarray, kv_heads: int) -> np.ndarray:
    """[..., h, n, d_k] -> [..., kv_heads, n, d_k]: grouped-query attention hands key/value head g to
    the h / kv_heads query heads g * group ... (g + 1) * group - 1 (attention._repeat_kv), so its
    gradient is the sum of theirs."""
    *lead, h, n, d_k = d.shape
    return d.reshape(*lead, kv_heads, h // kv_heads, n, d_k).sum(axis=-3)


def multi_head_attention_backward(x, params: MHAParams, h: int, d_out, *, mask=None, kv_heads: int | None = None):
    """Gradients of a loss through multi_head_attention(x, params, h, mask=mask, kv_heads=kv_heads).

    x [n, d_model] or [batch, n, d_model]; d_out has the output's shape (x's) and holds
    d loss / d out, real and finite. Returns (d_params, d_x): d_params an MHAParams of the gradients
    of each weight and bias, of the same shapes (W_K, W_V kv_heads * d_k wide with kv_heads; None
    for a bias the params do not have), d_x [x's shape]. A query whose mask row allows no key
    passes no gradient back through the attention (its weights are all 0).
    """
    x = checks.tokens(x)
    checks.heads(x.shape[-1], h)
    kv = checks.kv_heads(h, kv_heads)
    params = checks.params(params, x.shape[-1], h=h, kv_heads=kv_heads)
    d_out = checks.output_gradient(d_out, x.shape, np.result_type(x.dtype, np.float32))
    # The forward pass again, keeping every intermediate (and checking the mask).
    t = mha_trace(x, params, h, mask=mask, kv_heads=kv_heads)
    d_k = x.shape[-1] // h
    # out = concat @ W_O + b_O
    d_w_o, d_b_o, d_concat = projection_backward(t.concat, params.w_o, params.b_o, d_out)
    # concat = merge(heads): the gradient is cut back into the heads' column blocks
    d_heads = split_heads(d_concat, h)  # [..., h, n, d_k]
    # heads = softmax(q k^T / sqrt(d_k)) v, every head at once
    d_q, d_kk, d_v = attention_backward(t.q, t.k, t.v, t.weights, d_heads, 1.0 / math.sqrt(d_k))
    if kv != h:  # t.k and t.v hold each key/value head once per query head that shares it
        d_kk, d_v = _sum_groups(d_kk, kv), _sum_groups(d_v, kv)
    # q = split(x @ W_Q + b_Q), and likewise k, v; x feeds all three, so d_x adds up
    d_w_q, d_b_q, d_x_q = projection_backward(x, params.w_q, params.b_q, merge_heads(d_q))
    d_w_k, d_b_k, d_x_k = projection_backward(x, params.w_k, params.b_k, merge_heads(d_kk))
    d_w_v, d_b_v, d_x_v = projection_backward(x, params.w_v, params.b_v, merge_heads(d_v))
    d_params = MHAParams(d_w_q, d_w_k, d_w_v, d_w_o, d_b_q, d_b_k, d_b_v, d_b_o)
    return d_params, d_x_q + d_x_k + d_x_v
