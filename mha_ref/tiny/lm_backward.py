"""lm.py's backward pass, the forward's steps in reverse, one function per step: layer norm, the
MLP, the gated attention (the reference's mha_ref.backward steps inside), a block, the embeddings,
and loss_and_grads, which runs the forward on a masked batch and every step back.
"""

from __future__ import annotations

import math

import numpy as np

from ..attention import merge_heads, split_heads
from ..backward import attention_backward, projection_backward
from ..params import MHAParams
from .lm import (IGNORE, MLP, AttentionTrace, Batch, BlockTrace, Layer, MLPTrace, Model, Norm, NormTrace,
                 cross_entropy, encode, ones, read_out)


def _rows(a: np.ndarray) -> np.ndarray:
    """[..., k] -> [(...), k]."""
    return a.reshape(-1, a.shape[-1])


def layer_norm_backward(norm: Norm, t: NormTrace, d_y: np.ndarray) -> tuple[Norm, np.ndarray]:
    """d_y [..., d_model] -> (d_norm (gain, bias), d_x [..., d_model]).
    d x = inv_std (g - mean(g) - x_hat mean(g x_hat)), with g = d_y * gain."""
    g = d_y * norm.gain
    d_x = t.inv_std * (g - g.mean(axis=-1, keepdims=True) - t.x_hat * (g * t.x_hat).mean(axis=-1, keepdims=True))
    return Norm(_rows(d_y * t.x_hat).sum(axis=0), _rows(d_y).sum(axis=0)), d_x


def relu_backward(u: np.ndarray, d_z: np.ndarray) -> np.ndarray:
    """[...] -> d_u [...]: d_z where u > 0, else 0."""
    return d_z * (u > 0)


def mlp_backward(x: np.ndarray, p: MLP, t: MLPTrace, d_out: np.ndarray) -> tuple[MLP, np.ndarray]:
    """x [..., d_model] (the MLP's input), d_out [..., d_model] -> (d_mlp, d_x [..., d_model])."""
    d_w_2, d_b_2, d_z = projection_backward(t.z, p.w_2, p.b_2, d_out)
    d_w_1, d_b_1, d_x = projection_backward(x, p.w_1, p.b_1, relu_backward(t.u, d_z))
    return MLP(d_w_1, d_b_1, d_w_2, d_b_2), d_x


def gated_attention_backward(a: np.ndarray, p: MHAParams, h: int, t: AttentionTrace, gates: np.ndarray,
                             d_out: np.ndarray) -> tuple[MHAParams, np.ndarray, np.ndarray]:
    """a [batch, n, d_model] (the input), gates [h], d_out [batch, n, d_model]
    -> (d_params, d_gates [h], d_a [batch, n, d_model])."""
    m = t.heads
    d_w_o, d_b_o, d_gated = projection_backward(t.gated, p.w_o, p.b_o, d_out)
    d_gated = split_heads(d_gated, h)  # [batch, h, n, d_k]
    d_gates = np.einsum("bhnk,bhnk->h", d_gated, m.heads)  # gated_i = xi_i head_i
    d_q, d_k, d_v = attention_backward(m.q, m.k, m.v, m.weights, d_gated * gates[:, None, None],
                                       1.0 / math.sqrt(m.q.shape[-1]))
    d_w_q, d_b_q, d_a_q = projection_backward(a, p.w_q, p.b_q, merge_heads(d_q))
    d_w_k, d_b_k, d_a_k = projection_backward(a, p.w_k, p.b_k, merge_heads(d_k))
    d_w_v, d_b_v, d_a_v = projection_backward(a, p.w_v, p.b_v, merge_heads(d_v))
    d_params = MHAParams(d_w_q, d_w_k, d_w_v, d_w_o, d_b_q, d_b_k, d_b_v, d_b_o)
    return d_params, d_gates, d_a_q + d_a_k + d_a_v


def block_backward(layer: Layer, h: int, t: BlockTrace, gates: np.ndarray, d_x_out: np.ndarray):
    """d_x_out [batch, n, d_model] -> (d_layer, d_gates [h], d_x [batch, n, d_model])."""
    # x_out = mid + MLP(LN_2(mid)): the residual passes d_x_out on, the branch adds its part
    d_mlp, d_m = mlp_backward(t.m, layer.mlp, t.mlp, d_x_out)
    d_norm_2, d_mid = layer_norm_backward(layer.norm_2, t.norm_2, d_m)
    d_mid += d_x_out
    # mid = x + Attention(LN_1(x))
    d_mha, d_gates, d_a = gated_attention_backward(t.a, layer.mha, h, t.attention, gates, d_mid)
    d_norm_1, d_x = layer_norm_backward(layer.norm_1, t.norm_1, d_a)
    return Layer(d_norm_1, d_mha, d_norm_2, d_mlp), d_gates, d_x + d_mid


def embed_backward(model: Model, tokens: np.ndarray, d_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x = E[tokens] + P[:n]: d_x [batch, n, d_model] -> (d_E [vocab, d_model], d_P [MAX_LEN, d_model])."""
    d_embed = np.zeros_like(model.embed)
    np.add.at(d_embed, tokens, d_x)  # each word's row collects the gradient of its tokens
    d_position = np.zeros_like(model.position)
    d_position[: tokens.shape[1]] = d_x.sum(axis=0)
    return d_embed, d_position


def loss_and_grads(model: Model, batch: Batch, gates: np.ndarray | None = None):
    """-> (the mean cross-entropy at the masked tokens, grads: a Model of d loss / d each weight,
    d_gates [L, h]). Only the masked tokens are read out: no other position has a loss."""
    gates = ones(model) if gates is None else gates
    e = encode(model, batch.inputs, batch.real, gates)
    scored = batch.targets != IGNORE  # [batch, n]
    y = e.y[scored]  # [masked, d_model]
    loss, d_logits = cross_entropy(read_out(model, y), batch.targets[scored])  # d_logits [masked, vocab]
    # logits = y E^T + c, y = LN_f(x): the read-out is E itself, so E gets a gradient here too
    d_y = np.zeros_like(e.y)
    d_y[scored] = d_logits @ model.embed
    d_norm_f, d_x = layer_norm_backward(model.norm_f, e.norm_f, d_y)
    d_layers, d_gates = [], []
    for layer, bt, g in reversed(list(zip(model.layers, e.blocks, gates))):
        d_layer, d_g, d_x = block_backward(layer, model.h, bt, g, d_x)
        d_layers.insert(0, d_layer)
        d_gates.insert(0, d_g)
    d_embed, d_position = embed_backward(model, batch.inputs, d_x)
    d_embed += d_logits.T @ y  # [vocab, d_model]: the read-out's share
    grads = Model(d_embed, d_position, tuple(d_layers), d_norm_f, d_logits.sum(axis=0), model.h)
    return loss, grads, np.stack(d_gates)
