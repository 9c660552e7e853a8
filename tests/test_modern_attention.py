"""Page 8's reference (rotary positions, sliding windows, tiles, latent attention), each checked
against an independent formulation: plain loops, complex numbers, the papers' equations."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

import mha_ref
from mha_ref import rope, rope_frequencies, rope_wavelengths, sliding_window_mask, window_reach


# --------------------------------------------------------------------------------------------
# RoPE
# --------------------------------------------------------------------------------------------

def rope_complex(x, positions, base=10000.0):
    """RoPE as complex multiplication: pair (j, j + d/2) is the number x_j + i x_{j+d/2}, turned by
    e^{i m theta_j}. Python's cmath, one number at a time."""
    x = np.asarray(x, dtype=float)
    n, d = x.shape
    half = d // 2
    out = np.zeros_like(x)
    for t in range(n):
        for j in range(half):
            theta = base ** (-2 * j / d)
            z = complex(x[t, j], x[t, j + half]) * cmath.exp(1j * positions[t] * theta)
            out[t, j], out[t, j + half] = z.real, z.imag
    return out


def rope_roformer(x, positions, base=10000.0):
    """RoFormer's equation (34): neighbours (2i, 2i+1) form pair i, turned by m * theta_i,
    theta_i = base^(-2(i-1)/d) counting i from 1."""
    x = np.asarray(x, dtype=float)
    n, d = x.shape
    out = np.zeros_like(x)
    for t in range(n):
        for i in range(1, d // 2 + 1):
            a, b = x[t, 2 * i - 2], x[t, 2 * i - 1]
            angle = positions[t] * base ** (-2 * (i - 1) / d)
            out[t, 2 * i - 2] = a * math.cos(angle) - b * math.sin(angle)
            out[t, 2 * i - 1] = b * math.cos(angle) + a * math.sin(angle)
    return out


def neighbour_order(d):
    """The reordering that takes the halves' pairs (j, j + d/2) to neighbours (2j, 2j + 1)."""
    return np.array([j for pair in zip(range(d // 2), range(d // 2, d)) for j in pair])


@pytest.mark.parametrize("d, base", [(2, 10000.0), (8, 10000.0), (16, 500000.0), (6, 3.0)])
def test_rope_is_complex_multiplication_of_the_paired_halves(d, base):
    rng = np.random.default_rng(d)
    x = rng.normal(size=(7, d))
    pos = np.array([0, 1, 2, 5, 17, 1000, 123456])
    assert np.allclose(rope(x, pos, base), rope_complex(x, pos, base), rtol=0, atol=1e-9)


@pytest.mark.parametrize("d", [2, 4, 10, 64])
def test_rope_is_roformers_neighbour_pairing_on_a_reordered_basis(d):
    rng = np.random.default_rng(100 + d)
    q, k = rng.normal(size=(2, 9, d))
    pos = np.arange(9) * 3
    order = neighbour_order(d)
    # the same rotations: reorder, rotate the RoFormer way, and get rope's output reordered
    assert np.allclose(rope_roformer(q[:, order], pos), rope(q, pos)[:, order], rtol=0, atol=1e-12)
    # the same scores: a dot product does not see the order of the axis
    roformer_scores = rope_roformer(q[:, order], pos) @ rope_roformer(k[:, order], pos).T
    assert np.allclose(roformer_scores, rope(q, pos) @ rope(k, pos).T, rtol=0, atol=1e-12)
    # ... but the pairing matters: RoFormer's rotation applied to the unreordered axis is another map
    if d > 2:
        assert not np.allclose(rope_roformer(q, pos), rope(q, pos))


def rotation_matrix(m, d, base=10000.0):
    """R_m of RoFormer's equation (15), in the halves' pairing: a d x d matrix, built entry by entry."""
    r = np.zeros((d, d))
    half = d // 2
    for j in range(half):
        a = m * base ** (-2 * j / d)
        r[j, j], r[j, j + half] = math.cos(a), -math.sin(a)
        r[j + half, j], r[j + half, j + half] = math.sin(a), math.cos(a)
    return r


def test_rope_score_is_q_times_the_rotation_by_the_offset():
    """(R_m q) . (R_n k) = q^T R_{n-m} k: the score sees n - m only (RoFormer's equation (16))."""
    rng = np.random.default_rng(5)
    d = 8
    q, k = rng.normal(size=(2, d))
    for m, n in [(0, 0), (3, 7), (7, 3), (100, 40), (5000, 5001)]:
        rotated = rope(q[None], [m])[0] @ rope(k[None], [n])[0]
        assert math.isclose(rotated, q @ rotation_matrix(n - m, d) @ k, rel_tol=0, abs_tol=1e-9)
        assert np.allclose(rope(q[None], [m])[0], rotation_matrix(m, d) @ q, atol=1e-9)


def test_rope_score_depends_on_the_offset_only():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        d = int(rng.choice([2, 4, 8, 32]))
        q, k = rng.normal(size=(2, d))
        m, n = rng.integers(0, 4000, size=2)
        score = rope(q[None], [m])[0] @ rope(k[None], [n])[0]
        for shift in rng.integers(-m, 100000, size=10):  # both positions moved by the same amount
            shifted = rope(q[None], [m + shift])[0] @ rope(k[None], [n + shift])[0]
            assert math.isclose(score, shifted, rel_tol=0, abs_tol=1e-8), (seed, m, n, shift)
        other = rope(q[None], [m])[0] @ rope(k[None], [n + 1])[0]  # another offset, another score
        assert not math.isclose(score, other, abs_tol=1e-6)


def test_rope_keeps_lengths_and_position_zero_is_no_turn():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 12))  # a batch axis in front
    out = rope(x, np.arange(5))
    assert out.shape == x.shape and out.dtype == np.float64
    assert np.allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13)
    assert np.array_equal(rope(x, np.zeros(5))[..., :], x)


@pytest.mark.parametrize("d, base", [(8, 10000.0), (128, 500000.0), (64, 10000.0)])
def test_wavelengths_are_two_pi_base_to_the_2i_over_d(d, base):
    expected = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]
    assert np.allclose(rope_wavelengths(d, base), expected, rtol=1e-13)
    assert np.allclose(rope_frequencies(d, base), [base ** (-2 * i / d) for i in range(d // 2)], rtol=1e-13)
    assert rope_wavelengths(d, base)[0] == pytest.approx(2 * math.pi)


def test_a_pair_comes_back_after_one_wavelength():
    """A vector living in pair i alone returns to itself after rope_wavelengths()[i] positions,
    and not halfway there: the wavelength is what the rotation does, not only a formula."""
    d = 8
    for i, wavelength in enumerate(rope_wavelengths(d)):
        x = np.zeros((1, d))
        x[0, i], x[0, i + d // 2] = 1.0, 0.5
        assert np.allclose(rope(x, [wavelength]), x, atol=1e-9)
        assert np.allclose(rope(x, [wavelength / 2]), -x, atol=1e-9)


# --------------------------------------------------------------------------------------------
# Sliding windows and sinks
# --------------------------------------------------------------------------------------------

def window_mask_loops(n, window, sinks):
    m = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if j > i:
                continue  # causal: no key after the query
            recent = i - window + 1 <= j  # among the last `window` keys up to i
            m[i][j] = recent or j < sinks
    return np.array(m, dtype=bool)


def test_sliding_window_mask_against_a_double_loop():
    for n in range(1, 13):
        for window in range(1, n + 3):
            for sinks in range(0, n + 2):
                got = sliding_window_mask(n, window, sinks)
                assert got.dtype == bool and got.shape == (n, n)
                assert np.array_equal(got, window_mask_loops(n, window, sinks)), (n, window, sinks)


def test_sliding_window_mask_counts_and_limits():
    n, window, sinks = 20, 5, 3
    m = sliding_window_mask(n, window, sinks)
    # every row keeps the query itself; a late row keeps exactly window + sinks keys
    assert m.diagonal().all()
    assert m[-1].sum() == window + sinks and m[-1, :sinks].all() and m[-1, -window:].all()
    # a window as long as the text is the causal mask; a window of 1 is the diagonal
    assert np.array_equal(sliding_window_mask(n, n), np.tril(np.ones((n, n), dtype=bool)))
    assert np.array_equal(sliding_window_mask(n, 1), np.eye(n, dtype=bool))


@pytest.mark.parametrize("window, layers", [(2, 1), (4, 3), (5, 4), (1, 6)])
def test_window_reach_is_what_the_layers_let_through(window, layers):
    """Following the mask through the layers (a boolean matrix product): the earliest position the
    last token can draw on is window_reach positions back."""
    n = layers * window + 5
    m = sliding_window_mask(n, window).astype(int)
    paths = np.eye(n, dtype=int)
    for _ in range(layers):
        paths = np.minimum(paths @ m, 1)
    earliest = int(np.argmax(paths[-1] > 0))
    assert (n - 1) - earliest == window_reach(window, layers)


def test_window_mask_goes_to_attention():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 10, 4))
    _, w = mha_ref.attention(q, k, v, mask=sliding_window_mask(10, 3, sinks=1))
    assert np.count_nonzero(w[-1]) == 4 and w[-1, 0] > 0 and np.all(w[-1, 1:7] == 0)


# --------------------------------------------------------------------------------------------
# Bad input: one clear error naming the argument
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("x, positions, base, error, words", [
    (np.ones((3, 5)), np.arange(3), 10000.0, ValueError, "last axis d=5 must be even"),
    (np.ones(4), [0], 10000.0, ValueError, "at least two axes"),
    (np.full((3, 4), np.nan), np.arange(3), 10000.0, ValueError, "x contains non-finite"),
    (np.ones((3, 4)), np.arange(4), 10000.0, ValueError, "positions of shape (4,) do not broadcast"),
    (np.ones((3, 4)), [0, 1, np.inf], 10000.0, ValueError, "positions contains non-finite"),
    (np.ones((3, 4)), ["a", "b", "c"], 10000.0, TypeError, "positions must be a real numeric array"),
    (np.ones((3, 4)), np.arange(3), 0.0, ValueError, "base must be a finite real number > 0"),
    (np.ones((3, 4)), np.arange(3), float("inf"), ValueError, "base must be a finite real number > 0"),
    (np.ones((3, 4)), np.arange(3), "10000", TypeError, "base must be a finite real number > 0"),
    (np.ones((3, 4)) * 1j, np.arange(3), 10000.0, TypeError, "x must be a real numeric array"),
])
def test_rope_bad_input(x, positions, base, error, words):
    with pytest.raises(error, match=None) as e:
        rope(x, positions, base)
    assert words in str(e.value)


@pytest.mark.parametrize("call, error, words", [
    (lambda: sliding_window_mask(0, 2), ValueError, "n, the number of tokens, must be a whole number >= 1"),
    (lambda: sliding_window_mask(5, 0), ValueError, "window must be a whole number >= 1"),
    (lambda: sliding_window_mask(5, 2.0), TypeError, "window must be a whole number"),
    (lambda: sliding_window_mask(5, 2, sinks=-1), ValueError, "sinks must be a whole number >= 0"),
    (lambda: sliding_window_mask(5, True), TypeError, "window must be a whole number"),
    (lambda: window_reach(4, 0), ValueError, "layers must be a whole number >= 1"),
    (lambda: rope_wavelengths(7), ValueError, "d=7 must be even"),
    (lambda: rope_frequencies(8, -2.0), ValueError, "base must be a finite real number > 0"),
])
def test_window_and_wavelength_bad_input(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value)
