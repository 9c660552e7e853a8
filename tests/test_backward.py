"""The backward pass (mha_ref.backward) and the tiny model's gradients, checked against central
finite differences in float64.

The loss for the block is L = sum(out * d_out) for a fixed random d_out, so that d L / d out = d_out
and multi_head_attention_backward(x, params, h, d_out) must return exactly dL/dparams and dL/dx,
with and without biases, masks (one with a query that may read no key) and kv_heads < h (grouped-query
and multi-query attention, whose W_K and W_V gradients are kv_heads * d_k wide).
With a step of 1e-5 the finite differences are good to about 1e-9 here; the tolerances below
(1e-6 relative, 1e-7 absolute) sit well under what a wrong factor does (a missing 1/sqrt(d_k) is
off by sqrt(3), a missing softmax subtraction by far more): each of those two breaks, made on
purpose in a copy of backward.py, fails every gradient test here.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mha_ref.params import MHAParams
from mha_ref.attention import init_params, multi_head_attention
from mha_ref.backward import multi_head_attention_backward

STEP = 1e-5
RTOL, ATOL = 1e-6, 1e-7
N, D_MODEL, H, BATCH = 4, 6, 2, 2  # d_k = 3: a scale 1/sqrt(3) that a break cannot hide


def numeric_grad(f, a: np.ndarray, entries=None) -> np.ndarray:
    """Central differences of the scalar f() in each entry of a (every entry, or those given),
    perturbing a in place and restoring it. Entries not asked for are left 0."""
    grad = np.zeros_like(a)
    for i in (np.ndindex(a.shape) if entries is None else entries):
        old = a[i]
        a[i] = old + STEP
        up = f()
        a[i] = old - STEP
        down = f()
        a[i] = old
        grad[i] = (up - down) / (2 * STEP)
    return grad


def random_mask(rng, shape):
    """A boolean mask in which every query row keeps at least one key (its own position)."""
    return (rng.random(shape) < 0.5) | np.eye(shape[-1], dtype=bool)


def case(shape, bias: bool, mask_shape=None, seed=0, h=H, kv_heads=None):
    """x, params, d_out and mask (or None) for one check, all float64; x's last axis is d_model."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    params = init_params(shape[-1], h, kv_heads=kv_heads, seed=seed + 1, bias=bias)
    d_out = rng.standard_normal(shape)
    mask = None if mask_shape is None else random_mask(rng, mask_shape)
    return x, params, d_out, mask


def assert_gradients_match(x, params, h, d_out, mask=None, kv_heads=None):
    """multi_head_attention_backward against central differences of L = sum(out * d_out), for
    every entry of every array."""
    def loss():
        return float(np.sum(multi_head_attention(x, params, h, mask=mask, kv_heads=kv_heads)[0] * d_out))

    d_params, d_x = multi_head_attention_backward(x, params, h, d_out, mask=mask, kv_heads=kv_heads)
    assert isinstance(d_params, MHAParams)
    assert d_x.shape == x.shape
    for field, p, g in zip(MHAParams._fields, params, d_params):
        if p is None:
            assert g is None, f"{field}: the params have no such bias, so its gradient must be None"
            continue
        assert g.shape == p.shape, field
        np.testing.assert_allclose(g, numeric_grad(loss, p), rtol=RTOL, atol=ATOL, err_msg=field)
    np.testing.assert_allclose(d_x, numeric_grad(loss, x), rtol=RTOL, atol=ATOL, err_msg="x")
    return d_params


WIDE, HEADS = 12, 4  # grouped-query: 4 query heads of d_k = 3 sharing 2 (or 1) key/value heads

CASES = {  # name: (x's shape, bias, mask's shape or None, h, kv_heads)
    "2d": ((N, D_MODEL), True, None, H, None),
    "2d no bias": ((N, D_MODEL), False, None, H, None),
    "2d mask": ((N, D_MODEL), True, (N, N), H, None),
    "batch": ((BATCH, N, D_MODEL), True, None, H, None),
    "batch no bias": ((BATCH, N, D_MODEL), False, None, H, None),
    "batch, one mask per sentence": ((BATCH, N, D_MODEL), True, (BATCH, N, N), H, None),
    "batch, one mask for all, no bias": ((BATCH, N, D_MODEL), False, (N, N), H, None),
    "kv_heads = h": ((N, D_MODEL), True, (N, N), H, H),
    "multi-query, 2 heads": ((N, D_MODEL), True, None, H, 1),
    "grouped, 4 heads on 2": ((N, WIDE), True, None, HEADS, 2),
    "grouped, 4 heads on 2, batch, one mask per sentence": ((BATCH, N, WIDE), True, (BATCH, N, N), HEADS, 2),
    "grouped, 4 heads on 2, batch, one mask for all, no bias": ((BATCH, N, WIDE), False, (N, N), HEADS, 2),
    "multi-query, 4 heads, mask": ((N, WIDE), True, (N, N), HEADS, 1),
    "multi-query, 4 heads, batch, no bias": ((BATCH, N, WIDE), False, None, HEADS, 1),
}


@pytest.mark.parametrize("name", CASES)
def test_mha_backward_matches_finite_differences(name):
    shape, bias, mask_shape, h, kv_heads = CASES[name]
    x, params, d_out, mask = case(shape, bias, mask_shape, seed=len(name), h=h, kv_heads=kv_heads)
    if mask is not None:
        assert not mask.all(), "the mask must hide some keys, or it tests nothing"
    if kv_heads is not None:
        assert params.w_k.shape == params.w_v.shape == (shape[-1], kv_heads * shape[-1] // h)
    assert_gradients_match(x, params, h, d_out, mask, kv_heads)


@pytest.mark.parametrize("kv_heads", [None, 2])
def test_a_query_with_no_key_sends_no_gradient_through_attention(kv_heads):
    x, params, d_out, _ = case((BATCH, N, WIDE), True, h=HEADS, kv_heads=kv_heads)
    mask = np.tril(np.ones((BATCH, N, N), dtype=bool))
    mask[1, 2] = False  # sentence 1's third token may read nothing: its output is b_O
    d_params = assert_gradients_match(x, params, HEADS, d_out, mask, kv_heads)
    # its d_out still reaches b_O, and nothing else: the same gradients with its d_out set to 0, but for b_O
    quiet = d_out.copy()
    quiet[1, 2] = 0
    d_quiet, _ = multi_head_attention_backward(x, params, HEADS, quiet, mask=mask, kv_heads=kv_heads)
    np.testing.assert_allclose(d_params.b_o - d_quiet.b_o, d_out[1, 2], rtol=1e-12)
    for field in ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v"):
        np.testing.assert_allclose(getattr(d_params, field), getattr(d_quiet, field), rtol=1e-12, atol=1e-15,
                                   err_msg=field)


def test_grouped_gradient_is_the_sum_over_the_query_heads_that_share():
    """A key/value head's gradient is its query heads' gradients added: the same block written as
    plain multi-head attention with each key/value head repeated, its W_K gradient summed by group."""
    from test_grouped_query import _repeated
    x, params, d_out, _ = case((BATCH, N, WIDE), True, h=HEADS, kv_heads=2)
    d_grouped, d_x = multi_head_attention_backward(x, params, HEADS, d_out, kv_heads=2)
    d_plain, d_x_plain = multi_head_attention_backward(x, _repeated(params, HEADS, 2), HEADS, d_out)
    d_k = WIDE // HEADS
    for field in ("w_k", "w_v", "b_k", "b_v"):
        plain = getattr(d_plain, field)
        summed = plain.reshape(*plain.shape[:-1], 2, 2, d_k).sum(axis=-2).reshape(getattr(d_grouped, field).shape)
        np.testing.assert_allclose(getattr(d_grouped, field), summed, rtol=1e-12, atol=1e-15, err_msg=field)
    np.testing.assert_allclose(d_x, d_x_plain, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("shape", [(N, D_MODEL - 1), (N + 1, D_MODEL), (1, N, D_MODEL), (D_MODEL,)])
def test_d_out_of_the_wrong_shape_is_refused(shape):
    x, params, _, _ = case((N, D_MODEL), True)
    message = f"d_out must have the output's shape {(N, D_MODEL)}, got {shape}"
    with pytest.raises(ValueError, match=re.escape(message)):
        multi_head_attention_backward(x, params, H, np.zeros(shape))


@pytest.mark.parametrize("d_out,error,message", [
    (np.full((N, D_MODEL), np.nan), ValueError, r"d_out contains non-finite values \(nan or inf\) in float64"),
    (np.where(np.eye(N, D_MODEL) > 0, np.inf, 1.0), ValueError, r"d_out contains non-finite values"),
    (-np.inf * np.ones((N, D_MODEL)), ValueError, r"d_out contains non-finite values"),
    (np.ones((N, D_MODEL)) * (1 + 1j), TypeError, r"d_out must be a real numeric array, got dtype complex128"),
    (np.full((N, D_MODEL), "a"), TypeError, r"d_out must be a real numeric array, got dtype <U1"),
    ([[0.0] * D_MODEL] * (N - 1) + [[0.0]], TypeError, r"d_out must be a numeric array: .*inhomogeneous"),
], ids=["nan", "inf", "-inf", "complex", "str", "ragged"])
def test_d_out_that_is_not_real_and_finite_is_refused(d_out, error, message):
    x, params, _, _ = case((N, D_MODEL), True)
    with pytest.raises(error, match=message):
        multi_head_attention_backward(x, params, H, d_out)


def test_d_out_too_large_for_float32_x_is_refused():
    # the gradients are computed in x's float32, where 1e39 is inf
    x, params, _, _ = case((N, D_MODEL), True)
    x32, p32 = x.astype(np.float32), MHAParams(*(a.astype(np.float32) for a in params))
    with pytest.raises(ValueError, match=r"d_out contains non-finite values \(nan or inf\) in float32"):
        multi_head_attention_backward(x32, p32, H, np.full((N, D_MODEL), 1e39))
    d_params, _ = multi_head_attention_backward(x32, p32, H, np.ones((N, D_MODEL)))
    assert d_params.w_q.dtype == np.float32


@pytest.mark.parametrize("kv_heads,error,message", [
    (5, ValueError, r"kv_heads=5 does not divide the head count h=4"),
    (0, ValueError, r"kv_heads, the number of key/value heads, must be at least 1, got kv_heads=0"),
    ("2", TypeError, r"kv_heads must be a whole number >= 1 \(or None for h\), got '2'"),
    (1, ValueError, r"params\.w_k has shape \(12, 6\), expected \(12, 3\) .* kv_heads=1"),  # params for 2
])
def test_backward_checks_kv_heads_as_the_forward_pass_does(kv_heads, error, message):
    x, params, d_out, _ = case((N, WIDE), True, h=HEADS, kv_heads=2)
    with pytest.raises(error, match=message):
        multi_head_attention_backward(x, params, HEADS, d_out, kv_heads=kv_heads)
    with pytest.raises(ValueError, match=r"params\.w_k has shape \(12, 6\), expected \(12, 12\) .* need kv_heads=2"):
        multi_head_attention_backward(x, params, HEADS, d_out)  # grouped params, kv_heads forgotten
