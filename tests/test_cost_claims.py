"""What the pages say about costs, checked against mha_ref and against the arrays of a real pass."""

import numpy as np
import pytest

from mha_ref import init_params, mha_trace
from mha_ref import costs, models
from figures.numbers import quantities

GPT2 = models.model("GPT-2 small")


@pytest.mark.parametrize("h", [1, 2, 3, 4, 6, 12])
def test_attention_weights_are_the_entries_a_real_pass_computes(h):
    """h n^2: the weight tables mha_trace really builds (one exponential each), at a small width."""
    d_model, n = 12, 5
    t = mha_trace(np.random.default_rng(0).normal(size=(n, d_model)), init_params(d_model, h), h)
    assert costs.attention_weights(n, h) == t.weights.size == t.scores.size


def test_weights_grow_with_h_while_multiply_adds_and_parameters_do_not():
    n, d = GPT2.context, GPT2.d_model
    hs = [h for h in range(1, d + 1) if d % h == 0]
    assert len({costs.multiply_adds(n, d, h) for h in hs}) == 1
    assert len({costs.param_count(d, h) for h in hs}) == 1
    assert [costs.attention_weights(n, h) for h in hs] == [h * costs.attention_weights(n, 1) for h in hs]
    assert quantities.value("gpt2.weights_all_heads") == GPT2.heads * quantities.value("gpt2.weights_one_head")


@pytest.mark.parametrize("h", [1, 2, 4, 8])
@pytest.mark.parametrize("bias", [True, False])
def test_head_by_head_parameter_count_includes_the_biases(h, bias):
    """The page's per-head derivation: h blocks of (d_model d_k + d_k) for each of Q, K, V, then W_O
    and b_O; counted here on the real arrays, sliced head by head as multi_head_attention_loop does."""
    d_model = 8
    p = init_params(d_model, h, bias=bias)
    d_k = d_model // h
    per_head = 0
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)):
            per_head += w[:, cols].size + (0 if b is None else b[cols].size)
    total = per_head + p.w_o.size + (0 if p.b_o is None else p.b_o.size)
    assert costs.param_count(d_model, h, bias=bias) == total
    assert per_head == 3 * (d_model ** 2 + (d_model if bias else 0))


def test_heads_are_independent_and_additive_within_a_block():
    """concatenate-then-mix#w-o: out = sum_i head_i W_O^i + b_O, and head i's term does not move when
    another head's parameters change (Elhage et al. 2021): W_O adds, it does not make heads interact."""
    from mha_ref.example import toy

    x, p = toy.inputs(), toy.params()
    t = mha_trace(x, p, toy.H)
    d_k = toy.D_K
    terms = [t.heads[i] @ p.w_o[i * d_k:(i + 1) * d_k] for i in range(toy.H)]
    np.testing.assert_allclose(sum(terms) + p.b_o if p.b_o is not None else sum(terms), t.out, atol=1e-12)
    w_v = p.w_v.copy()
    w_v[:, 3 * d_k:4 * d_k] *= 5.0  # change only the last head
    t2 = mha_trace(x, p._replace(w_v=w_v), toy.H)
    for i in range(toy.H - 1):
        np.testing.assert_allclose(t2.heads[i] @ p.w_o[i * d_k:(i + 1) * d_k], terms[i], atol=1e-12)
    assert not np.allclose(t2.out, t.out)


@pytest.mark.parametrize("d_k", [1, 2, 4, 8, 16, 32, 64])
def test_the_wrong_divisor_is_absorbed_by_a_larger_w_q(d_k):
    """heads-side-by-side#per-head-scale: dividing by sqrt(d_model) instead of sqrt(d_k) is a constant
    factor that a W_Q grown by sqrt(h) undoes exactly, so the pitfall is about the start, not what a
    head can express."""
    from mha_ref import attention
    from mha_ref.example import scale

    q, k = scale.query_and_keys(d_k)
    h = scale.D_MODEL // d_k
    _, grown = attention(np.sqrt(h) * q[None, :], k, np.eye(scale.N_KEYS), scale=1 / np.sqrt(scale.D_MODEL))
    np.testing.assert_allclose(grown[0], scale.weights(d_k, "d_k"), rtol=1e-12)
    if h > 1:
        assert scale.peak(d_k, "d_model") < scale.peak(d_k, "d_k")  # without the growth: flatter


def test_equal_split_holds_for_the_table_and_not_for_the_named_exceptions():
    """slicing-the-width#cutting-the-width: every model of the published table splits d_model evenly;
    T5-11B and Gemma 7B (published, with sources in mha_ref/models.py) do not, which the page says."""
    assert all(m.heads * m.d_head == m.d_model for m in models.PUBLISHED_MODELS)
    assert all(w.inner != w.d_model for w in models.WIDE_HEADS)
    assert [w.source in models.REFERENCES for w in models.WIDE_HEADS] == [True, True]
