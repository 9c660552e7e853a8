"""The backward pass (mha_ref.backward) and the tiny model's gradients, checked against central
finite differences in float64.

The loss for the block is L = sum(out * d_out) for a fixed random d_out, so that d L / d out = d_out
and multi_head_attention_backward(x, params, h, d_out) must return exactly dL/dparams and dL/dx.
With a step of 1e-5 the finite differences are good to about 1e-9 here; the tolerances below
(1e-6 relative, 1e-7 absolute) sit well under what a wrong factor does (a missing 1/sqrt(d_k) is
off by sqrt(3), a missing softmax subtraction by far more): each of those two breaks, made on
purpose in a copy of backward.py, fails every gradient test here.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mha_ref.tiny import corpus, model as tinymodel
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


def case(shape, bias: bool, mask_shape=None, seed=0):
    """x, params, d_out and mask (or None) for one check, all float64."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    params = init_params(D_MODEL, H, seed=seed + 1, bias=bias)
    d_out = rng.standard_normal(shape)
    mask = None if mask_shape is None else random_mask(rng, mask_shape)
    return x, params, d_out, mask


CASES = {  # name: (x's shape, bias, mask's shape or None)
    "2d": ((N, D_MODEL), True, None),
    "2d no bias": ((N, D_MODEL), False, None),
    "2d mask": ((N, D_MODEL), True, (N, N)),
    "batch": ((BATCH, N, D_MODEL), True, None),
    "batch no bias": ((BATCH, N, D_MODEL), False, None),
    "batch, one mask per sentence": ((BATCH, N, D_MODEL), True, (BATCH, N, N)),
    "batch, one mask for all, no bias": ((BATCH, N, D_MODEL), False, (N, N)),
}


@pytest.mark.parametrize("name", CASES)
def test_mha_backward_matches_finite_differences(name):
    shape, bias, mask_shape = CASES[name]
    x, params, d_out, mask = case(shape, bias, mask_shape, seed=len(name))
    if mask is not None:
        assert not mask.all(), "the mask must hide some keys, or it tests nothing"

    def loss():
        return float(np.sum(multi_head_attention(x, params, H, mask=mask)[0] * d_out))

    d_params, d_x = multi_head_attention_backward(x, params, H, d_out, mask=mask)
    assert isinstance(d_params, MHAParams)
    assert d_x.shape == x.shape
    for field, p, g in zip(MHAParams._fields, params, d_params):
        if p is None:
            assert g is None, f"{field}: the params have no such bias, so its gradient must be None"
            continue
        assert g.shape == p.shape, field
        np.testing.assert_allclose(g, numeric_grad(loss, p), rtol=RTOL, atol=ATOL, err_msg=field)
    np.testing.assert_allclose(d_x, numeric_grad(loss, x), rtol=RTOL, atol=ATOL, err_msg="x")


def test_whole_model_gradient_matches_finite_differences():
    model = tinymodel.init(tinymodel.Config(8, 2), seed=0)
    b = corpus.batch(corpus.sentences(3, 0))
    _, grads = tinymodel.loss_and_grads(model, b)

    def loss():
        return tinymodel.loss_and_grads(model, b)[0]

    rng = np.random.default_rng(0)
    arrays, grad_arrays = model.arrays(), grads.arrays()
    assert len(arrays) == len(grad_arrays) == 2 + 8 + 2 * len(corpus.QUESTIONS)
    # b_k adds q . b_k to every score of a query's row, and softmax ignores a constant added to a
    # row: the loss does not depend on b_k, and its gradient is zero (the finite differences agree).
    b_k = next(i for i, a in enumerate(arrays) if a is model.mha.b_k)
    np.testing.assert_allclose(grad_arrays[b_k], 0.0, rtol=0, atol=1e-12)
    for i, (a, g) in enumerate(zip(arrays, grad_arrays)):
        assert g.shape == a.shape, i
        # the three entries of largest gradient (so that every array is checked where it matters),
        # and three drawn at random (so that zeros, e.g. an unused word's row, are checked too)
        largest = np.argsort(np.abs(g), axis=None)[-3:]
        drawn = rng.choice(a.size, size=3, replace=False)
        entries = [np.unravel_index(k, a.shape) for k in {*largest.tolist(), *drawn.tolist()}]
        assert i == b_k or np.abs(g).max() > 1e-3, f"array {i} gets no gradient: the check would be empty"
        numeric = numeric_grad(loss, a, entries)
        for e in entries:
            np.testing.assert_allclose(g[e], numeric[e], rtol=RTOL, atol=ATOL, err_msg=f"array {i}, entry {e}")


@pytest.mark.parametrize("shape", [(N, D_MODEL - 1), (N + 1, D_MODEL), (1, N, D_MODEL), (D_MODEL,)])
def test_d_out_of_the_wrong_shape_is_refused(shape):
    x, params, _, _ = case((N, D_MODEL), True)
    message = f"d_out must have the output's shape {(N, D_MODEL)}, got {shape}"
    with pytest.raises(ValueError, match=re.escape(message)):
        multi_head_attention_backward(x, params, H, np.zeros(shape))
