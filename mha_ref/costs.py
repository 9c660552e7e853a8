"""What one multi-head attention block costs: parameters, multiply-adds and memory, for any h.

Counts follow the row-vector layout of attention.py. A multiply-add is one product added into a
sum; an (a x b) @ (b x c) product costs a * b * c of them. Memory is counted in numbers; bytes_of
turns a count into bytes at STORE_DTYPE, the number format the pages state.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import checks, models

# Memory on the pages is counted at 16-bit floats: 2 bytes a number. (numpy's float16 stands for
# any 16-bit format: bfloat16 takes the same 2 bytes.)
STORE_DTYPE = np.dtype(np.float16)


def head_param_count(d_model: int, h: int, *, bias: bool = True) -> int:
    """One head's blocks of W_Q, W_K, W_V (d_model x d_k each) and of their biases."""
    checks.heads(d_model, h)
    d_k = d_model // h
    return 3 * (d_model * d_k + (d_k if checks.flag(bias, "bias") else 0))


def param_count(d_model: int, h: int, *, bias: bool = True, kv_heads: int | None = None) -> int:
    """W_Q, W_K, W_V, W_O (d_model x d_model each) and their biases: h only cuts, it never adds.
    With kv_heads key/value heads (grouped-query attention) W_K and W_V shrink to d_model x kv_heads d_k."""
    checks.heads(d_model, h)
    kv = checks.kv_heads(h, kv_heads)
    block = head_param_count(d_model, h, bias=bias) // 3  # one head's block of W_Q, W_K or W_V, and its bias
    # h blocks of W_Q, kv_heads blocks of W_K and of W_V (3 h blocks in all when kv_heads = h), W_O, b_O
    return (h + 2 * kv) * block + d_model * d_model + (d_model if bias else 0)


def kv_param_count(d_model: int, h: int, kv_heads: int | None = None, *, bias: bool = True) -> int:
    """W_K and W_V (d_model x kv_heads d_k each) and their biases: the part that sharing keys and
    values between query heads shrinks. kv_heads=None (= h): 2 d_model^2 (+ 2 d_model), whatever h is."""
    checks.heads(d_model, h)
    width = checks.kv_heads(h, kv_heads) * (d_model // h)  # kv_heads * d_k columns
    return 2 * (d_model * width + (width if checks.flag(bias, "bias") else 0))


def kv_cache_per_token(d_model: int, h: int, kv_heads: int | None = None, *, layers: int = 1) -> int:
    """Numbers kept for every token of the context when a model generates one token at a time: each
    layer keeps the token's key and value for each key/value head, 2 kv_heads d_k numbers. With
    kv_heads=None (= h) that is 2 d_model a layer, whatever h is."""
    checks.heads(d_model, h)
    kv = checks.kv_heads(h, kv_heads)
    return checks.count(layers, "layers") * 2 * kv * (d_model // h)


def bytes_of(count: int, dtype=STORE_DTYPE) -> int:
    """count numbers stored as dtype (by default the pages' 16-bit floats): count * itemsize bytes."""
    return checks.count(count, "count") * checks.float_dtype(dtype).itemsize


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


# ---- page 8: what the cache and the tiles hold -------------------------------------------------

def mla_cache_per_token(d_c: int, d_rope: int, *, layers: int = 1) -> int:
    """Numbers multi-head latent attention keeps per token of the context (latent.py): each layer
    keeps the token's latent (d_c) and its rotary key (d_rope), whatever the number of heads."""
    d_c = checks.count(d_c, "d_c, the latent's width,")
    d_rope = checks.count(d_rope, "d_rope, the rotary key's width,")
    return checks.count(layers, "layers") * (d_c + d_rope)


def flash_numbers(n: int, block: int, d_k: int) -> int:
    """Numbers flash_attention (flash.py) holds besides q, k and v, for one head of n queries and
    keys: one tile of n x block scores, the running maximum and denominator (n each) and the running
    output (n x d_k). It grows like n; the full table of scores, attention_weights(n, 1), like n^2.
    (The GPU kernels cut the queries into tiles too, so what they hold on chip does not grow at all.)"""
    n = checks.count(n, "the context length n")
    block = min(checks.count(block, "block"), n)  # a tile never holds more keys than there are
    return n * block + 2 * n + n * checks.count(d_k, "d_k")


class CacheRow(NamedTuple):
    name: str
    kind: str  # "MHA", "GQA", "MQA" or "MLA"
    numbers: int  # kept per token of the context, over every layer
    bytes: int  # numbers at STORE_DTYPE (2 bytes, as bfloat16)
    source: str  # a key of models.REFERENCES
    published: bool  # False: the same model with its key/value heads changed, computed, never built


def cache_per_token_rows(dtype=STORE_DTYPE) -> tuple[CacheRow, ...]:
    """The key/value cache per token of published configurations (models.py), and of Llama 3 70B
    recomputed with every head its own keys (MHA) and with one key/value head (MQA), so that the
    four kinds meet on one model. DeepSeek-V3's "MHA" row is what its own code caches without the
    latent: each head's key (d_nope + d_rope) and value (d_v)."""
    def row(name, kind, numbers, source, published=True):
        return CacheRow(name, kind, numbers, bytes_of(numbers, dtype), source, published)

    llama, falcon, ds = models.model("Llama 3 70B"), models.FALCON_7B, models.DEEPSEEK_V3
    per_layer_mha = ds.heads * (ds.d_nope + ds.d_rope + ds.d_v)
    return (
        row(llama.name, "MHA", kv_cache_per_token(llama.d_model, llama.heads, layers=llama.layer_count),
            llama.source, published=False),
        row(llama.name, "GQA", kv_cache_per_token(llama.d_model, llama.heads, llama.kv_heads, layers=llama.layer_count),
            llama.source),
        row(llama.name, "MQA", kv_cache_per_token(llama.d_model, llama.heads, 1, layers=llama.layer_count),
            llama.source, published=False),
        row(falcon.name, "MQA", kv_cache_per_token(falcon.d_model, falcon.heads, falcon.kv_heads, layers=falcon.layer_count),
            falcon.source),
        row(ds.name, "MHA", ds.layers * per_layer_mha, ds.source, published=False),
        row(ds.name, "MLA", mla_cache_per_token(ds.d_c, ds.d_rope, layers=ds.layers), ds.source),
    )
