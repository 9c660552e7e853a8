"""Grouped-query and multi-query attention (kv_heads < h): the block against plain multi-head
attention with its key/value heads repeated, the loop against the batched form, and the parameter
and cache counts of mha_ref.costs against formulas written here from the published configuration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mha_ref import costs, models
from mha_ref.attention import init_params, mha_trace, multi_head_attention, multi_head_attention_loop
from own_process import in_own_process
from test_attention import random_mask, reference_mha
from test_costs_models import WIDE

# (d_model, h, kv_heads): every divisor of h for a few widths, multi-query (1) and plain (h) included
SHAPES = [(d, h, kv) for d, h in ((8, 4), (12, 6), (8, 8), (6, 3)) for kv in range(1, h + 1) if h % kv == 0]


def _x(d_model, batched, seed=0, n=5):
    return np.random.default_rng(seed).normal(size=(2, n, d_model) if batched else (n, d_model))


def _repeated(p, h, kv_heads):
    """Plain multi-head parameters in which query head i has key/value head i // (h / kv_heads):
    each key/value column block repeated on the head axis, built here without mha_ref."""
    def widen(a):  # [..., kv_heads * d_k] -> [..., h * d_k]
        if a is None:
            return None
        *lead, width = a.shape
        heads = a.reshape(*lead, kv_heads, width // kv_heads)
        return np.repeat(heads, h // kv_heads, axis=-2).reshape(*lead, -1)
    return p._replace(w_k=widen(p.w_k), w_v=widen(p.w_v), b_k=widen(p.b_k), b_v=widen(p.b_v))


# the block --------------------------------------------------------------------------------------
@pytest.mark.parametrize("d_model,h", [(8, 1), (8, 2), (8, 4), (12, 6)])
@pytest.mark.parametrize("bias", [True, False])
def test_kv_heads_equal_to_h_is_plain_multi_head_attention(d_model, h, bias):
    plain, same = init_params(d_model, h, seed=3, bias=bias), init_params(d_model, h, seed=3, bias=bias, kv_heads=h)
    assert all(a is None and b is None or np.array_equal(a, b) for a, b in zip(plain, same))
    for batched in (False, True):
        x = _x(d_model, batched)
        for block in (mha_trace, multi_head_attention_loop):
            a, b = block(x, plain, h), block(x, plain, h, kv_heads=h)
            for u, v in zip(a, b):
                assert np.array_equal(u, v)  # the very same numbers, not merely close


@pytest.mark.parametrize("d_model,h,kv_heads", [s for s in SHAPES if s[2] < s[1]])
@pytest.mark.parametrize("bias", [True, False])
def test_grouped_query_is_plain_attention_with_the_key_value_heads_repeated(d_model, h, kv_heads, bias):
    p = init_params(d_model, h, kv_heads=kv_heads, seed=7, bias=bias)
    d_k = d_model // h
    assert p.w_k.shape == p.w_v.shape == (d_model, kv_heads * d_k)
    assert p.w_q.shape == p.w_o.shape == (d_model, d_model)
    full = _repeated(p, h, kv_heads)
    rng = np.random.default_rng(h + kv_heads)
    for batched in (False, True):
        x = _x(d_model, batched, seed=kv_heads)
        for mask in (None, random_mask(rng, (5, 5))):
            out, w = multi_head_attention(x, p, h, kv_heads=kv_heads, mask=mask)
            ref_out, ref_w = multi_head_attention(x, full, h, mask=mask)
            np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
            # and against the plain-loops implementation of test_attention, which calls no mha_ref
            ind_out, ind_w = reference_mha(x, full, h, mask)
            np.testing.assert_allclose(out, ind_out, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(w, ind_w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("d_model,h,kv_heads", SHAPES)
def test_loop_and_batched_agree_for_every_kv_heads(d_model, h, kv_heads):
    p = init_params(d_model, h, kv_heads=kv_heads, seed=h * 10 + kv_heads)
    rng = np.random.default_rng(kv_heads)
    for batched in (False, True):
        x = _x(d_model, batched, seed=h)
        for mask in (None, random_mask(rng, (5, 5))):
            out_a, w_a = multi_head_attention(x, p, h, kv_heads=kv_heads, mask=mask)
            out_b, w_b = multi_head_attention_loop(x, p, h, kv_heads=kv_heads, mask=mask)
            assert out_a.shape == out_b.shape == x.shape and w_a.shape == w_b.shape == (*x.shape[:-2], h, 5, 5)
            np.testing.assert_allclose(out_a, out_b, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(w_a, w_b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("d_model,h,kv_heads", [(8, 4, 2), (12, 6, 3), (8, 4, 1)])
def test_query_heads_of_a_group_read_the_same_keys_and_values_and_other_groups_do_not(d_model, h, kv_heads):
    """What sharing means: in the trace, query heads i and j see the same k and v exactly when
    i // (h / kv_heads) == j // (h / kv_heads); their queries (and so their weights) still differ."""
    t = mha_trace(_x(d_model, False), init_params(d_model, h, kv_heads=kv_heads, seed=1), h, kv_heads=kv_heads)
    group = h // kv_heads
    for i in range(h):
        for j in range(h):
            same = i // group == j // group
            assert np.array_equal(t.k[i], t.k[j]) == same and np.array_equal(t.v[i], t.v[j]) == same
            assert np.array_equal(t.q[i], t.q[j]) == (i == j)


def test_grouped_query_keeps_the_first_heads_columns_of_the_plain_draw():
    """init_params' docstring: with kv_heads < h, W_K and W_V are the plain draw's first column blocks."""
    plain, grouped = init_params(12, 6, seed=5), init_params(12, 6, kv_heads=2, seed=5)
    assert np.array_equal(grouped.w_k, plain.w_k[:, :4]) and np.array_equal(grouped.b_v, plain.b_v[:4])
    assert np.array_equal(grouped.w_q, plain.w_q) and np.array_equal(grouped.w_o, plain.w_o)


# the counts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("d_model,h,kv_heads", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
def test_param_counts_are_the_real_arrays(d_model, h, kv_heads, bias):
    p = init_params(d_model, h, kv_heads=kv_heads, bias=bias)
    assert costs.param_count(d_model, h, kv_heads=kv_heads, bias=bias) == sum(a.size for a in p if a is not None)
    kv_arrays = (p.w_k, p.w_v) + ((p.b_k, p.b_v) if bias else ())
    assert costs.kv_param_count(d_model, h, kv_heads, bias=bias) == sum(a.size for a in kv_arrays)


LLAMA3 = models.model("Llama 3 8B")


def _from_config(m: models.Model, kv_heads: int):
    """the published source (mha_ref/models.py)'s configuration, by hand: per layer, W_K and W_V each map d_model to kv_heads heads
    of d_head; per token, every layer keeps one key and one value of d_head per key/value head, at
    two bytes a number (16-bit)."""
    kv_weights_per_layer = 2 * m.d_model * (kv_heads * m.d_head)
    cache_bytes_per_token = int(m.layers) * 2 * kv_heads * m.d_head * 2
    return kv_weights_per_layer, cache_bytes_per_token


@pytest.mark.parametrize("kv_heads", [LLAMA3.heads, LLAMA3.kv_heads, 1], ids=["MHA", "GQA", "MQA"])
def test_llama3_counts_match_a_formula_from_its_configuration(kv_heads):
    m = LLAMA3
    assert (m.d_model, m.layers, m.heads, m.kv_heads, m.d_head) == (4096, "32", 32, 8, 128)  # the published source (mha_ref/models.py)
    weights, cache = _from_config(m, kv_heads)
    assert costs.kv_param_count(m.d_model, m.heads, kv_heads, bias=False) == weights
    numbers = costs.kv_cache_per_token(m.d_model, m.heads, kv_heads, layers=m.layer_count)
    assert costs.bytes_of(numbers) == cache
    assert costs.STORE_DTYPE.itemsize == 2
    # W_Q and W_O do not shrink: the rest of the block is the same for every variant
    assert (costs.param_count(m.d_model, m.heads, kv_heads=kv_heads, bias=False) - weights
            == 2 * m.d_model * m.d_model)


def test_llama3_hand_values():
    """The same numbers written out: per layer 2 x 4096 x 1024 weights for 8 key/value heads; per token
    32 layers x 2 x 8 x 128 numbers x 2 bytes = 128 KiB; a quarter of the plain block's, 8 times MQA's."""
    m = LLAMA3
    assert costs.kv_param_count(m.d_model, m.heads, 8, bias=False) == 8_388_608
    cache = {kv: costs.bytes_of(costs.kv_cache_per_token(m.d_model, m.heads, kv, layers=32)) for kv in (32, 8, 1)}
    assert cache == {32: 524_288, 8: 131_072, 1: 16_384}


@pytest.mark.parametrize("d_model", [8, 12, 768, 4096])
def test_plain_attention_caches_two_d_model_a_layer_whatever_h(d_model):
    hs = [h for h in range(1, d_model + 1) if d_model % h == 0]
    assert {costs.kv_cache_per_token(d_model, h, layers=3) for h in hs} == {3 * 2 * d_model}
    assert {costs.kv_param_count(d_model, h) for h in hs} == {2 * d_model * d_model + 2 * d_model}


def test_cache_per_token_is_what_the_trace_keeps_for_one_token():
    """One token's keys and values in a real pass: kv_heads distinct rows of d_k, for k and for v."""
    d_model, h = 12, 6
    for kv_heads in (1, 2, 3, 6):
        t = mha_trace(_x(d_model, False, n=1), init_params(d_model, h, kv_heads=kv_heads), h, kv_heads=kv_heads)
        distinct_k = {t.k[i, 0].tobytes() for i in range(h)}
        distinct_v = {t.v[i, 0].tobytes() for i in range(h)}
        assert len(distinct_k) == len(distinct_v) == kv_heads
        kept = sum(np.frombuffer(b).size for b in distinct_k | distinct_v)
        assert costs.kv_cache_per_token(d_model, h, kv_heads) == kept


def test_layer_count_of_a_single_stack_and_not_of_an_encoder_decoder():
    assert LLAMA3.layer_count == 32 and models.model("GPT-2 small").layer_count == 12
    with pytest.raises(ValueError, match=r"Transformer base has layers '6\+6', not a single stack"):
        models.model("Transformer base").layer_count


def test_gqa_t5_numbers_equal_facts():
    """the published source (mha_ref/models.py), Ainslie et al. 2023: T5-XXL inference time / average score, MHA 1.51 s / 47.2,
    MQA 0.24 / 46.6, GQA-8 0.28 / 47.1."""
    g = models.GQA_T5_XXL
    assert (g["mha_time_s"], g["mha_score"], g["mqa_time_s"], g["mqa_score"], g["gqa8_time_s"], g["gqa8_score"],
            g["gqa8_kv_heads"], g["source"]) == (1.51, 47.2, 0.24, 46.6, 0.28, 47.1, 8, "ainslie2023")
    assert math.isclose(g["mha_score"] - g["gqa8_score"], 0.1)


@pytest.mark.parametrize("m", [pytest.param(m, id=m.name, marks=[pytest.mark.slow] if m.d_model >= WIDE else [])
                               for m in models.PUBLISHED_MODELS if m.kv_heads])
def test_the_block_runs_at_the_published_grouped_query_shapes(m):
    """Llama 3's own shapes, its key/value heads shared as its model card says, checked against a
    direct computation at n = 2 in which query head i reads key/value head i // (heads / kv_heads).
    Wide ones in a process of their own: the key/value heads repeated take twice the weights."""
    if m.d_model >= WIDE:
        in_own_process(_block_runs_at, m.name)
    else:
        _block_runs_at(m.name)


def _block_runs_at(name: str) -> None:
    from test_costs_models import _shifted_params
    m = models.model(name)
    n, d_k, group = 2, m.d_head, m.heads // m.kv_heads
    full = _shifted_params(m.d_model)
    p = full._replace(w_k=full.w_k[:, :m.kv_heads * d_k], w_v=full.w_v[:, :m.kv_heads * d_k])
    x = np.random.default_rng(0).standard_normal((n, m.d_model), dtype=np.float32)
    out, w = multi_head_attention(x, p, m.heads, kv_heads=m.kv_heads)
    assert out.shape == (n, m.d_model) and out.dtype == np.float32 and w.shape == (m.heads, n, n)

    q = (x @ p.w_q).reshape(n, m.heads, d_k)
    k, v = ((x @ a).reshape(n, m.kv_heads, d_k) for a in (p.w_k, p.w_v))
    kv_of = np.arange(m.heads) // group  # the key/value head of each query head
    s = np.einsum("ihd,jhd->hij", q, k[:, kv_of]) / math.sqrt(d_k)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    ww = e / e.sum(axis=-1, keepdims=True)
    concat = np.einsum("hij,jhd->ihd", ww, v[:, kv_of]).reshape(n, m.d_model)
    np.testing.assert_allclose(w, ww, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out, concat @ p.w_o, rtol=1e-3, atol=1e-4)
