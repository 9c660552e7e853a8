"""Attention, multi-head attention and the running example, checked against hand computations."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mha_ref
from mha_ref.example import toy
from mha_ref.attention import attention, init_params, merge_heads, mha_trace, multi_head_attention, multi_head_attention_loop, softmax, split_heads


# --------------------------------------------------------------------------------------------
# An independent multi-head attention: plain loops over batch, heads and tokens, np.exp on scalars.
# It does not call anything in mha_ref.
# --------------------------------------------------------------------------------------------

def reference_mha(x, p, h, mask=None):
    x = np.asarray(x, dtype=float)
    if x.ndim == 3:
        outs, ws = [], []
        for b in range(x.shape[0]):
            m_b = None if mask is None else (mask if np.ndim(mask) == 2 else mask[b])
            o, w = reference_mha(x[b], p, h, m_b)
            outs.append(o)
            ws.append(w)
        return np.stack(outs), np.stack(ws)

    n, d_model = x.shape
    d_k = d_model // h

    def project(w, b):
        rows = []
        for t in range(n):
            row = [sum(x[t, r] * w[r, c] for r in range(d_model)) for c in range(d_model)]
            if b is not None:
                row = [row[c] + b[c] for c in range(d_model)]
            rows.append(row)
        return rows

    q, k, v = project(p.w_q, p.b_q), project(p.w_k, p.b_k), project(p.w_v, p.b_v)
    weights = np.zeros((h, n, n))
    concat = [[0.0] * d_model for _ in range(n)]
    for i in range(h):
        cols = range(i * d_k, (i + 1) * d_k)
        for t in range(n):
            allowed = [j for j in range(n) if mask is None or bool(mask[t][j])]
            scores = {j: sum(q[t][c] * k[j][c] for c in cols) / math.sqrt(d_k) for j in allowed}
            top = max(scores.values())
            e = {j: float(np.exp(scores[j] - top)) for j in allowed}
            z = sum(e.values())
            for j in allowed:
                weights[i, t, j] = e[j] / z
            for c in cols:
                concat[t][c] = sum(weights[i, t, j] * v[j][c] for j in allowed)
    out = np.zeros((n, d_model))
    for t in range(n):
        for c in range(d_model):
            out[t, c] = sum(concat[t][r] * p.w_o[r, c] for r in range(d_model))
            if p.b_o is not None:
                out[t, c] += p.b_o[c]
    return out, weights


def random_mask(rng, shape):
    """A random boolean mask in which every query row keeps at least its own position."""
    m = rng.random(shape) < 0.5
    n = shape[-1]
    return m | np.eye(n, dtype=bool)


# --------------------------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------------------------

def test_softmax_rows_sum_to_one():
    x = np.random.default_rng(0).normal(0, 3, size=(4, 7))
    s = softmax(x)
    assert s.shape == x.shape
    assert np.all(s > 0)
    np.testing.assert_allclose(s.sum(axis=-1), np.ones(4), rtol=0, atol=1e-12)
    s0 = softmax(x, axis=0)
    np.testing.assert_allclose(s0.sum(axis=0), np.ones(7), rtol=0, atol=1e-12)
    assert not np.allclose(s0, s)  # the axis argument is honoured


def test_softmax_invariant_to_adding_a_constant():
    x = np.random.default_rng(1).normal(size=(3, 5))
    for c in (-50.0, 1.0, 123.4):
        np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=1e-12, atol=1e-15)
    # a different constant per row is also harmless along axis -1
    np.testing.assert_allclose(softmax(x + np.array([[1.0], [-7.0], [30.0]])), softmax(x), atol=1e-15)


def test_softmax_is_stable_for_huge_inputs():
    s = softmax(np.array([1e4, 1e4 - 1.0, -1e4]))
    assert np.all(np.isfinite(s))
    e = math.exp(-1.0)
    np.testing.assert_allclose(s, [1 / (1 + e), e / (1 + e), 0.0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(softmax(np.array([1e4, 1e4])), [0.5, 0.5], rtol=0, atol=1e-15)
    np.testing.assert_allclose(softmax(np.array([-1e4, 0.0, 1e4])), [0.0, 0.0, 1.0], atol=1e-300)


def test_softmax_matches_hand_computation():
    s = softmax(np.array([0.0, math.log(2.0), math.log(3.0)]))
    np.testing.assert_allclose(s, [1 / 6, 2 / 6, 3 / 6], rtol=1e-12)


def test_softmax_gives_a_row_of_minus_inf_weights_of_zero():
    x = np.array([[-np.inf, -np.inf, -np.inf],  # every entry masked: no weight to give
                  [0.0, -np.inf, math.log(3.0)],  # some masked: the rest share the weight
                  [-np.inf, 2.0, -np.inf]])
    s = softmax(x)
    assert not np.isnan(s).any()
    np.testing.assert_array_equal(s[0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(s[1], [0.25, 0.0, 0.75], rtol=1e-12)
    np.testing.assert_array_equal(s[2], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(s.sum(axis=-1), [0.0, 1.0, 1.0])
    # along the other axis: column 0 is -inf but for one entry, and no column is -inf throughout
    np.testing.assert_array_equal(softmax(x, axis=0)[:, 0], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(softmax(np.full((2, 4), -np.inf, dtype=np.float32), axis=0),
                                  np.zeros((2, 4), dtype=np.float32))
    assert softmax(np.full(3, -np.inf, dtype=np.float32)).dtype == np.float32


def test_softmax_of_rows_with_a_finite_entry_is_unchanged_by_the_rule_for_minus_inf_rows():
    # the same numbers, bit for bit, as the plain formula: the published values cannot move
    x = np.random.default_rng(2).normal(0, 4, size=(5, 7))
    x[1, 3] = x[4, :6] = -np.inf
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_array_equal(softmax(x), e / e.sum(axis=-1, keepdims=True))


def test_softmax_of_nothing_is_nothing():
    assert softmax(np.zeros((3, 0))).shape == (3, 0)
    assert softmax(np.zeros((0, 4))).shape == (0, 4)


def test_attention_query_with_no_key_reads_nothing():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    mask = random_mask(rng, (5, 5))
    mask[2] = False
    out, w = attention(q, k, v, mask=mask)
    np.testing.assert_array_equal(w[2], np.zeros(5))
    np.testing.assert_array_equal(out[2], np.zeros(2))
    # the other queries are as if the empty row were not there
    keep = [0, 1, 3, 4]
    out_rest, w_rest = attention(q[keep], k, v, mask=mask[keep])
    np.testing.assert_array_equal(out[keep], out_rest)
    np.testing.assert_array_equal(w[keep], w_rest)


@pytest.mark.parametrize("block", [multi_head_attention, multi_head_attention_loop], ids=["batched", "loop"])
def test_multi_head_query_with_no_key_outputs_the_output_bias(block):
    p = init_params(8, 2, seed=4)
    x = np.random.default_rng(4).normal(size=(2, 4, 8))
    mask = np.tril(np.ones((2, 4, 4), dtype=bool))
    mask[1, 3] = False  # sentence 1's last token may read nothing
    out, w = block(x, p, 2, mask=mask)
    assert not np.isnan(out).any()
    np.testing.assert_array_equal(w[1, :, 3], np.zeros((2, 4)))
    np.testing.assert_allclose(out[1, 3], p.b_o, rtol=0, atol=1e-15)  # every head's output 0, then W_O, b_O
    full_out, full_w = block(x, p, 2, mask=np.tril(np.ones((2, 4, 4), dtype=bool)))
    np.testing.assert_array_equal(out[0], full_out[0])  # the other rows do not notice
    np.testing.assert_array_equal(out[1, :3], full_out[1, :3])


# --------------------------------------------------------------------------------------------
# scaled dot-product attention, small cases worked by hand
# --------------------------------------------------------------------------------------------

def test_attention_d_k_1_by_hand():
    # d_k = 1: scale 1/sqrt(1) = 1, so the scores are just q * k
    q = np.array([[1.0], [2.0]])
    k = np.array([[1.0], [0.0]])
    v = np.array([[10.0, 0.0], [0.0, 1.0]])
    out, w = attention(q, k, v)
    e, e2 = math.exp(1), math.exp(2)
    expected_w = np.array([[e / (e + 1), 1 / (e + 1)], [e2 / (e2 + 1), 1 / (e2 + 1)]])
    np.testing.assert_allclose(w, expected_w, rtol=1e-12)
    expected_out = np.array([[10 * e / (e + 1), 1 / (e + 1)], [10 * e2 / (e2 + 1), 1 / (e2 + 1)]])
    np.testing.assert_allclose(out, expected_out, rtol=1e-12)


def _case_d_k_2():
    q = np.array([[1.0, 1.0], [1.0, -1.0]])
    k = np.array([[1.0, 0.0], [0.0, 2.0]])
    v = np.array([[1.0, 2.0], [3.0, -1.0]])
    return q, k, v


def _hand(scores_rows, v):
    w = []
    for row in scores_rows:
        e = [math.exp(s) for s in row]
        w.append([x / sum(e) for x in e])
    w = np.array(w)
    return w @ v, w


def test_attention_default_scale_is_one_over_sqrt_d_k():
    q, k, v = _case_d_k_2()
    out, w = attention(q, k, v)
    r = math.sqrt(2.0)
    # q0 . k = [1, 2], q1 . k = [1, -2], both divided by sqrt(2)
    exp_out, exp_w = _hand([[1 / r, 2 / r], [1 / r, -2 / r]], v)
    np.testing.assert_allclose(w, exp_w, rtol=1e-12)
    np.testing.assert_allclose(out, exp_out, rtol=1e-12)
    # and explicitly: weight ratio in row 0 is exp(1/sqrt 2)
    assert w[0, 1] / w[0, 0] == pytest.approx(math.exp(1 / r), rel=1e-12)


def test_attention_explicit_scale():
    q, k, v = _case_d_k_2()
    out, w = attention(q, k, v, scale=0.5)
    exp_out, exp_w = _hand([[0.5, 1.0], [0.5, -1.0]], v)
    np.testing.assert_allclose(w, exp_w, rtol=1e-12)
    np.testing.assert_allclose(out, exp_out, rtol=1e-12)
    # scale 0: every key gets the same weight, the output is the mean of the values
    out0, w0 = attention(q, k, v, scale=0.0)
    np.testing.assert_allclose(w0, np.full((2, 2), 0.5), rtol=1e-15)
    np.testing.assert_allclose(out0, np.tile(v.mean(axis=0), (2, 1)), rtol=1e-15)


def test_attention_batched_leading_axes():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 3, 4, 5))
    k = rng.normal(size=(2, 3, 6, 5))
    v = rng.normal(size=(2, 3, 6, 7))
    out, w = attention(q, k, v)
    assert out.shape == (2, 3, 4, 7)
    assert w.shape == (2, 3, 4, 6)
    for a in range(2):
        for b in range(3):
            o1, w1 = attention(q[a, b], k[a, b], v[a, b])
            np.testing.assert_allclose(out[a, b], o1, rtol=1e-12)
            np.testing.assert_allclose(w[a, b], w1, rtol=1e-12)
    # one slice by hand as well
    scores = q[1, 2] @ k[1, 2].T / math.sqrt(5)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(w[1, 2], e / e.sum(axis=1, keepdims=True), rtol=1e-12)


def test_attention_batched_hand_values():
    q, k, v = _case_d_k_2()
    qb = np.stack([q, -q])
    out, w = attention(qb, np.stack([k, k]), np.stack([v, v]))
    r = math.sqrt(2.0)
    o0, w0 = _hand([[1 / r, 2 / r], [1 / r, -2 / r]], v)
    o1, w1 = _hand([[-1 / r, -2 / r], [-1 / r, 2 / r]], v)
    np.testing.assert_allclose(w, np.stack([w0, w1]), rtol=1e-12)
    np.testing.assert_allclose(out, np.stack([o0, o1]), rtol=1e-12)


def test_attention_mask_hand_values():
    q = np.ones((3, 1))
    k = np.array([[0.0], [1.0], [2.0]])
    v = np.array([[1.0], [10.0], [100.0]])
    mask = np.array([[True, False, True], [False, True, False], [True, True, True]])
    out, w = attention(q, k, v, mask=mask)
    e0, e1, e2 = 1.0, math.exp(1), math.exp(2)
    expected = np.array([
        [e0 / (e0 + e2), 0.0, e2 / (e0 + e2)],
        [0.0, 1.0, 0.0],
        [e0 / (e0 + e1 + e2), e1 / (e0 + e1 + e2), e2 / (e0 + e1 + e2)],
    ])
    np.testing.assert_allclose(w, expected, rtol=1e-12)
    assert np.all(w[~mask] == 0.0)  # exactly zero, not just small
    np.testing.assert_allclose(w.sum(axis=-1), np.ones(3), atol=1e-15)
    np.testing.assert_allclose(out, expected @ v, rtol=1e-12)
    assert out[1, 0] == 10.0


def test_attention_causal_mask():
    # zero queries: every allowed key scores the same, so the causal weights are 1/(i+1)
    n = 4
    causal = np.tril(np.ones((n, n), dtype=bool))
    v = np.array([[1.0], [3.0], [5.0], [7.0]])
    out, w = attention(np.zeros((n, 2)), np.random.default_rng(4).normal(size=(n, 2)), v, mask=causal)
    expected = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    np.testing.assert_allclose(w, expected, rtol=1e-15)
    np.testing.assert_allclose(out[:, 0], [1.0, 2.0, 3.0, 4.0], rtol=1e-15)  # running means

    # random queries: strictly upper triangle is exactly zero and rows sum to one
    rng = np.random.default_rng(5)
    q, k, vv = rng.normal(size=(2, n, 3)), rng.normal(size=(2, n, 3)), rng.normal(size=(2, n, 3))
    _, w = attention(q, k, vv, mask=causal)
    assert np.all(w[:, np.triu(np.ones((n, n), dtype=bool), 1)] == 0.0)
    assert np.all(w[:, np.tril(np.ones((n, n), dtype=bool))] > 0)
    np.testing.assert_allclose(w.sum(axis=-1), np.ones((2, n)), atol=1e-15)
    assert np.all(w[:, 0, 0] == 1.0)  # the first query can only see itself


# --------------------------------------------------------------------------------------------
# multi-head attention against the independent loop implementation above
# --------------------------------------------------------------------------------------------

CASES = [  # (batch, mask kind)
    (None, None),
    (None, "nn"),
    (3, None),
    (3, "nn"),
    (3, "bnn"),
]


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
@pytest.mark.parametrize("batch,mask_kind", CASES, ids=[f"b{b}-{m}" for b, m in CASES])
@pytest.mark.parametrize("d_model,h", [(8, 2), (8, 4), (6, 3)])
def test_multi_head_attention_matches_independent_loops(bias, batch, mask_kind, d_model, h):
    n = 4
    rng = np.random.default_rng(10 + d_model + h)
    p = init_params(d_model, h, seed=11, bias=bias)
    x = rng.normal(size=(n, d_model) if batch is None else (batch, n, d_model))
    mask = None
    if mask_kind == "nn":
        mask = random_mask(rng, (n, n))
    elif mask_kind == "bnn":
        mask = random_mask(rng, (batch, n, n))
        assert not np.all(mask == mask[0])  # the batch rows really differ

    out, w = multi_head_attention(x, p, h, mask=mask)
    ref_out, ref_w = reference_mha(x, p, h, mask)

    assert out.shape == x.shape
    assert w.shape == ((h, n, n) if batch is None else (batch, h, n, n))
    np.testing.assert_allclose(w, ref_w, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.sum(axis=-1), np.ones(w.shape[:-1]), atol=1e-12)
    if mask is not None:
        # the same mask for every head: a (batch, n, n) mask gets a unit head axis
        full = np.broadcast_to(mask if mask.ndim == 2 else mask[:, None], w.shape)
        assert np.all(w[~full] == 0.0)
        assert np.all(w[full] > 0.0)


def test_multi_head_attention_bias_matters():
    p = init_params(8, 2, seed=4)
    p0 = p._replace(b_q=None, b_k=None, b_v=None, b_o=None)
    x = np.random.default_rng(0).normal(size=(3, 8))
    out, _ = multi_head_attention(x, p, 2)
    out0, _ = multi_head_attention(x, p0, 2)
    assert not np.allclose(out, out0)
    np.testing.assert_allclose(out0, reference_mha(x, p0, 2)[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("d_model,h", [(1, 1), (6, 1), (6, 2), (6, 6), (8, 1), (8, 4), (8, 8), (12, 3), (12, 12)])
@pytest.mark.parametrize("batched", [False, True])
def test_loop_equals_batched(d_model, h, batched):
    rng = np.random.default_rng(d_model * 100 + h)
    n = 5
    p = init_params(d_model, h, seed=h)
    x = rng.normal(size=(2, n, d_model) if batched else (n, d_model))
    for mask in (None, random_mask(rng, (n, n))):
        out_a, w_a = multi_head_attention(x, p, h, mask=mask)
        out_b, w_b = multi_head_attention_loop(x, p, h, mask=mask)
        assert out_a.shape == out_b.shape == x.shape
        assert w_a.shape == w_b.shape
        assert np.allclose(out_a, out_b, rtol=1e-12, atol=1e-12)
        assert np.allclose(w_a, w_b, rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------------------------
# split_heads / merge_heads
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("h", [1, 2, 3, 4, 6, 12])
def test_split_and_merge_heads(h):
    x = np.random.default_rng(h).normal(size=(5, 12))
    d_k = 12 // h
    s = split_heads(x, h)
    assert s.shape == (h, 5, d_k)
    for i in range(h):
        assert np.array_equal(s[i], x[:, i * d_k:(i + 1) * d_k])
    assert np.array_equal(merge_heads(s), x)
    assert np.shares_memory(s, x)  # "a reshape of the columns, nothing is copied out"

    xb = np.random.default_rng(h + 1).normal(size=(2, 5, 12))
    sb = split_heads(xb, h)
    assert sb.shape == (2, h, 5, d_k)
    for i in range(h):
        assert np.array_equal(sb[:, i], xb[..., i * d_k:(i + 1) * d_k])
    assert np.array_equal(merge_heads(sb), xb)


# --------------------------------------------------------------------------------------------
# mha_trace: the intermediates fit together
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("h", [1, 2, 4])
def test_mha_trace_intermediates(h):
    d_model, n = 8, 5
    d_k = d_model // h
    p = init_params(d_model, h, seed=2)
    x = np.random.default_rng(2).normal(size=(n, d_model))
    t = mha_trace(x, p, h)

    assert t.q.shape == t.k.shape == t.v.shape == t.heads.shape == (h, n, d_k)
    assert t.scores.shape == t.weights.shape == (h, n, n)
    assert t.concat.shape == t.out.shape == (n, d_model)

    assert np.array_equal(t.concat, np.concatenate([t.heads[i] for i in range(h)], axis=-1))
    np.testing.assert_allclose(t.out, t.concat @ p.w_o + p.b_o, rtol=1e-13, atol=1e-13)
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        np.testing.assert_allclose(t.q[i], x @ p.w_q[:, cols] + p.b_q[cols], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(t.k[i], x @ p.w_k[:, cols] + p.b_k[cols], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(t.v[i], x @ p.w_v[:, cols] + p.b_v[cols], rtol=1e-12, atol=1e-12)
        # divided by sqrt(d_k), the head's own width, not sqrt(d_model)
        np.testing.assert_allclose(t.scores[i], t.q[i] @ t.k[i].T / math.sqrt(d_k), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(t.heads[i], t.weights[i] @ t.v[i], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t.weights, softmax(t.scores), rtol=1e-15)
    out, w = multi_head_attention(x, p, h)
    assert np.array_equal(out, t.out) and np.array_equal(w, t.weights)


def test_mha_trace_masked_scores_are_minus_inf():
    p = init_params(8, 2, seed=0)
    x = np.random.default_rng(0).normal(size=(2, 4, 8))
    causal = np.tril(np.ones((4, 4), dtype=bool))
    t = mha_trace(x, p, 2, mask=causal)
    above = np.broadcast_to(~causal, t.scores.shape)
    assert np.all(t.scores[above] == -np.inf)
    assert np.all(np.isfinite(t.scores[~above]))
    assert np.all(t.weights[above] == 0.0)


@pytest.mark.parametrize("bias", [True, False])
def test_one_head_equals_plain_attention(bias):
    d_model, n = 6, 4
    p = init_params(d_model, 1, seed=5, bias=bias)
    x = np.random.default_rng(6).normal(size=(n, d_model))

    def proj(w, b):
        return x @ w if b is None else x @ w + b

    q, k, v = proj(p.w_q, p.b_q), proj(p.w_k, p.b_k), proj(p.w_v, p.b_v)
    for mask in (None, np.tril(np.ones((n, n), dtype=bool))):
        a_out, a_w = attention(q, k, v, mask=mask)  # scale 1/sqrt(d_model) = 1/sqrt(d_k) for h = 1
        out, w = multi_head_attention(x, p, 1, mask=mask)
        assert w.shape == (1, n, n)
        np.testing.assert_allclose(w[0], a_w, rtol=1e-12, atol=1e-12)
        expected = a_out @ p.w_o if p.b_o is None else a_out @ p.w_o + p.b_o
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-13)


# --------------------------------------------------------------------------------------------
# init_params
# --------------------------------------------------------------------------------------------

def test_init_params_deterministic_and_seeded():
    a, b, c = init_params(8, 2, seed=3), init_params(8, 2, seed=3), init_params(8, 2, seed=4)
    for name in a._fields:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert not np.array_equal(getattr(a, name), getattr(c, name)), name
    for name in ("w_q", "w_k", "w_v", "w_o"):
        assert getattr(a, name).shape == (8, 8)
    for name in ("b_q", "b_k", "b_v", "b_o"):
        assert getattr(a, name).shape == (8,)
    # the four matrices are different draws, not one matrix four times
    assert not np.array_equal(a.w_q, a.w_k) and not np.array_equal(a.w_v, a.w_o)
    # "the shapes do not depend on h": neither do the values for a given seed
    d = init_params(8, 4, seed=3)
    assert all(np.array_equal(getattr(a, f), getattr(d, f)) for f in a._fields)


def test_init_params_without_bias():
    p = init_params(8, 4, seed=1, bias=False)
    assert p.b_q is None and p.b_k is None and p.b_v is None and p.b_o is None
    assert all(getattr(p, f).shape == (8, 8) for f in ("w_q", "w_k", "w_v", "w_o"))
    assert isinstance(p, mha_ref.MHAParams)


# --------------------------------------------------------------------------------------------
# the running example
# --------------------------------------------------------------------------------------------

def test_toy_shapes():
    x = toy.inputs()
    assert x.shape == (6, 8)
    assert " ".join(toy.TOKENS) == "the cat ate and it ran"  # the running example's tokens, positions 0-5
    assert [toy.token_index(t) for t in toy.TOKENS] == list(range(6))
    assert (toy.N, toy.D_MODEL, toy.H, toy.D_K) == (6, 8, 4, 2)
    t = toy.trace()
    assert t.weights.shape == (4, 6, 6)
    np.testing.assert_allclose(t.weights.sum(axis=-1), np.ones((4, 6)), atol=1e-12)
    assert t.out.shape == (6, 8)


def _head(name):
    return toy.trace().weights[toy.HEADS.index(name)]


def _step_to_top_key(name):
    """[n] how far each query's top key lies from the query in the head's real weights
    (+1: the next token, -1: the previous one)."""
    return _head(name).argmax(axis=-1) - np.arange(toy.N)


def test_toy_position_head_attends_to_previous_token():
    step = _step_to_top_key("position")
    assert step[0] == 0  # the first token has no previous token: it looks at itself
    assert list(step[1:]) == [-1] * (toy.N - 1)


def test_toy_syntax_head_targets():
    expected = {"the": "cat", "cat": "ate", "ate": "cat", "and": "ran", "it": "ran", "ran": "ate"}  # the running example's syntax links
    got = {toy.TOKENS[i]: toy.TOKENS[j] for i, j in enumerate(_head("syntax").argmax(axis=-1))}
    assert got == expected
    # it -> ran is one step forward, ate -> cat one step back: no fixed offset
    step = _step_to_top_key("syntax")
    assert step[toy.token_index("it")] == +1
    assert step[toy.token_index("ate")] == -1


def test_toy_rare_head_points_at_the_rarest_token():
    rarest = min(toy.FREQUENCIES, key=toy.FREQUENCIES.get)
    assert rarest == "cat"
    assert sorted(toy.FREQUENCIES.values())[0] < sorted(toy.FREQUENCIES.values())[1]  # no tie
    assert set(toy.FREQUENCIES) == set(toy.TOKENS)
    assert list(_head("rare").argmax(axis=-1)) == [toy.token_index(rarest)] * toy.N


def test_toy_diffuse_head_is_flat_and_the_others_are_sharp():
    assert np.all(_head("diffuse").max(axis=-1) < 0.3)
    for name in ("position", "syntax", "rare"):
        peaks = _head(name).max(axis=-1)
        assert np.all(peaks >= 0.85), (name, peaks)


def test_toy_targets_helper_agrees():
    for name in toy.HEADS:
        assert np.array_equal(toy.targets(name), _head(name).argmax(axis=-1))


def test_toy_blend_pure_ends_are_the_two_heads():
    np.testing.assert_allclose(toy.blend_weights(0), _head("position"), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(toy.blend_weights(1), _head("syntax"), rtol=1e-12, atol=1e-14)
    mid = toy.blend_weights(0.5)
    np.testing.assert_allclose(mid.sum(axis=-1), np.ones(6), atol=1e-12)
    assert not np.allclose(mid, _head("position")) and not np.allclose(mid, _head("syntax"))


def test_toy_blend_curve_of_it_at_the_slider_stops():
    # the peak-dip figure's claim, for query `it`
    curve = toy.blend_curve("it")
    assert curve.shape == (toy.BLEND_STEPS, 6)
    assert set(curve.argmax(axis=1)) <= {toy.token_index("and"), toy.token_index("ran")}
    peaks = curve.max(axis=1)
    assert int(peaks.argmin()) == toy.BLEND_STEPS // 2
    assert peaks[0] >= 0.9 and peaks[-1] >= 0.9 and peaks[toy.BLEND_STEPS // 2] <= 0.6
