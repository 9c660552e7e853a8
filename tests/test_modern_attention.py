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


# --------------------------------------------------------------------------------------------
# Attention a tile of keys at a time
# --------------------------------------------------------------------------------------------

from mha_ref import flash_attention, flash_trace  # noqa: E402


def masks_for(n, rng):
    """No mask, causal, a sliding window with a sink, and a random one with a fully masked row."""
    random = rng.random((n, n)) < 0.4
    random[0] = False  # query 0 may read nothing: its output must be 0, as in attention()
    return {"none": None, "causal": np.tril(np.ones((n, n), dtype=bool)),
            "window": sliding_window_mask(n, 3, sinks=1), "random": random}


@pytest.mark.parametrize("n", [1, 2, 5, 7, 12])
def test_flash_equals_attention_for_every_block_and_mask(n):
    rng = np.random.default_rng(n)
    q, k, v = rng.normal(size=(3, n, 4)) * 2
    worst = 0.0
    for name, mask in masks_for(n, rng).items():
        expected, _ = mha_ref.attention(q, k, v, mask=mask)
        for block in range(1, n + 3):  # 1, every divisor and non-divisor of n, and more than n
            got = flash_attention(q, k, v, block, mask=mask)
            assert got.shape == expected.shape and got.dtype == np.float64
            worst = max(worst, float(np.max(np.abs(got - expected))))
            assert np.allclose(got, expected, rtol=0, atol=1e-12), (name, block)
    print(f"n={n}: largest difference from attention() over every block and mask: {worst:.1e}")


def test_flash_with_batch_and_head_axes_and_more_keys_than_queries():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 3, 5, 8))  # batch, heads, n_q, d_k
    k, v = rng.normal(size=(2, 2, 3, 11, 8))  # n_k = 11 keys
    mask = rng.random((5, 11)) < 0.7
    expected, _ = mha_ref.attention(q, k, v, mask=mask)
    for block in (1, 3, 4, 11, 20):
        assert np.allclose(flash_attention(q, k, v, block, mask=mask), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("size", [1e4, 1e300])
def test_flash_stays_finite_on_huge_scores(size):
    """Scores of 1e4 (exp overflows past about 709) and of 1e300: the running maximum keeps every
    exponent <= 0, so nothing overflows, and the result is still attention's."""
    rng = np.random.default_rng(2)
    n = 9
    q = rng.normal(size=(n, 1)) * math.sqrt(size)
    k = rng.normal(size=(n, 1)) * math.sqrt(size)
    v = rng.normal(size=(n, 3))
    assert np.max(np.abs(q @ k.T)) > 1000  # exp() of such a score is inf: the naive softmax fails
    with np.errstate(over="raise", invalid="raise"):  # an overflow or a nan anywhere raises here
        for block in (1, 2, 4, 9):
            got = flash_attention(q, k, v, block)
            assert np.all(np.isfinite(got))
            assert np.allclose(got, mha_ref.attention(q, k, v)[0], rtol=0, atol=1e-12)


def test_flash_trace_holds_attention_over_the_keys_seen_so_far():
    rng = np.random.default_rng(4)
    n, block = 10, 3
    q, k, v = rng.normal(size=(3, n, 4)) * 1.5
    mask = sliding_window_mask(n, 4, sinks=1)
    t = flash_trace(q, k, v, block, mask=mask)
    assert t.stops.tolist() == [3, 6, 9, 10]
    assert t.m.shape == t.l.shape == t.rescale.shape == (4, n) and t.acc.shape == t.out.shape == (4, n, 4)
    scores = np.where(mask, q @ k.T / 2.0, -np.inf)  # d_k = 4: divided by sqrt(4)
    for i, stop in enumerate(t.stops):
        seen = scores[:, :stop]  # the keys of tiles 0 .. i, straight from the definitions
        m = seen.max(axis=1)
        assert np.allclose(t.m[i], m, rtol=1e-15, atol=0)  # the tile products may round differently
        has_key = m > -np.inf
        e = np.exp(seen[has_key] - m[has_key, None])
        assert np.allclose(t.l[i][has_key], e.sum(axis=1), rtol=1e-13)
        assert np.allclose(t.acc[i][has_key], e @ v[:stop], rtol=0, atol=1e-12)
        assert np.all(t.l[i][~has_key] == 0) and np.all(t.out[i][~has_key] == 0)  # nothing allowed yet
        so_far, _ = mha_ref.attention(q, k[:stop], v[:stop], mask=mask[:, :stop])
        assert np.allclose(t.out[i], so_far, rtol=0, atol=1e-12)
    assert np.allclose(t.out[-1], mha_ref.attention(q, k, v, mask=mask)[0], rtol=0, atol=1e-12)
    assert np.array_equal(t.out[-1], flash_attention(q, k, v, block, mask=mask))


def test_a_new_maximum_rescales_what_came_before():
    """One query, keys whose scores rise from tile to tile: each tile brings a new maximum, and
    the old denominator and sum are multiplied by exp(old max - new max) < 1."""
    q = np.array([[1.0]])
    k = np.array([[0.0], [1.0], [5.0], [2.0], [9.0], [3.0]])  # scores (d_k = 1): the same numbers
    v = np.arange(6.0)[:, None]
    t = flash_trace(q, k, v, 2)
    assert t.m[:, 0].tolist() == [1.0, 5.0, 9.0]
    assert t.rescale[0, 0] == 0.0  # the first tile: nothing before it to rescale
    assert math.isclose(t.rescale[1, 0], math.exp(1.0 - 5.0)) and math.isclose(t.rescale[2, 0], math.exp(5.0 - 9.0))
    # the denominator after tile 1, by hand: tile 0's terms rescaled to the new maximum 5, plus tile 1's
    by_hand = (math.exp(0 - 1) + math.exp(1 - 1)) * math.exp(1 - 5) + math.exp(5 - 5) + math.exp(2 - 5)
    assert math.isclose(t.l[1, 0], by_hand, rel_tol=1e-15)
    # a tile whose scores stay below the maximum rescales by exactly 1
    t2 = flash_trace(q, k[::-1], v[::-1], 2)  # largest score (9) in the first tile
    assert np.all(t2.rescale[1:] == 1.0)
    assert np.allclose(t.out[-1], mha_ref.attention(q, k, v)[0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("call, error, words", [
    (lambda q: flash_attention(q, q, q, 0), ValueError, "block, the number of keys in a tile, must be a whole number >= 1"),
    (lambda q: flash_attention(q, q, q, 2.0), TypeError, "block, the number of keys in a tile, must be a whole number"),
    (lambda q: flash_attention(q, q, q, True), TypeError, "block, the number of keys in a tile, must be"),
    (lambda q: flash_attention(q, q[:, :2], q, 2), ValueError, "q and k must share their last axis d_k"),
    (lambda q: flash_attention(q, q, q[:3], 2), ValueError, "k and v must have the same number of keys"),
    (lambda q: flash_attention(q, q, q, 2, mask=np.ones((4, 4))), TypeError, "mask must be boolean"),
    (lambda q: flash_attention(q, q, q, 2, mask=np.ones((3, 5), dtype=bool)), ValueError, "does not broadcast"),
    (lambda q: flash_trace(np.full_like(q, np.nan), q, q, 2), ValueError, "q contains non-finite"),
    (lambda q: flash_attention(q * 1e200, q * 1e200, q, 2), ValueError, "the attention scores overflowed"),
])
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the overflow that is refused
def test_flash_bad_input(call, error, words):
    q = np.random.default_rng(0).normal(size=(5, 4)) + 1
    with pytest.raises(error) as e:
        call(q)
    assert words in str(e.value)


# --------------------------------------------------------------------------------------------
# Multi-head latent attention
# --------------------------------------------------------------------------------------------

from mha_ref.latent import MLAParams, absorbed_weights, init_mla_params, mla_attention, mla_trace  # noqa: E402


def mla_loops(x, p, h):
    """DeepSeek-V2's equations (9)-(19), one token and one head at a time, column vectors as in the
    paper (W^{DKV} h_t is w_dkv.T @ x_t), RoPE as the rotation matrices R_m of RoFormer."""
    n, d_model = x.shape
    d_c, d_rope = p.w_dkv.shape[1], p.w_kr.shape[1]
    d_h = p.w_q.shape[1] // h
    c = [p.w_dkv.T @ x[t] for t in range(n)]  # (9): the latent c_t^{KV}
    k_c = [p.w_uk.T @ c[t] for t in range(n)]  # (10): k_t^C, all heads end to end
    v_c = [p.w_uv.T @ c[t] for t in range(n)]  # (11)
    k_r = [rotation_matrix(t, d_rope) @ (p.w_kr.T @ x[t]) for t in range(n)]  # (15): RoPE(W^{KR} h_t)
    q_c = [p.w_q.T @ x[t] for t in range(n)]  # (12)-(13) without the query's compression: W^Q h_t
    q_r = [p.w_qr.T @ x[t] for t in range(n)]  # (14), before RoPE, from h_t rather than c_t^Q
    out = np.zeros((n, d_model))
    for t in range(n):
        o = []
        for i in range(h):
            head = slice(i * d_h, (i + 1) * d_h)
            q = np.concatenate([q_c[t][head], rotation_matrix(t, d_rope) @ q_r[t][i * d_rope:(i + 1) * d_rope]])  # (16)
            scores = []
            for j in range(t + 1):  # (18): keys 1 .. t, causal
                k = np.concatenate([k_c[j][head], k_r[j]])  # (17): the rotary part shared by every head
                scores.append(float(q @ k) / math.sqrt(d_h + d_rope))
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            o.append(sum(e[j] / sum(e) * v_c[j][head] for j in range(t + 1)))
        out[t] = p.w_o.T @ np.concatenate(o)  # (19)
    return out


MLA_SHAPES = [  # d_model, h, d_c, d_head, d_rope: widths that differ, so a misplaced axis shows
    (12, 3, 7, 5, 4), (16, 4, 6, 8, 2), (10, 1, 3, 9, 6), (24, 8, 16, 3, 8)]


@pytest.mark.parametrize("d_model, h, d_c, d_head, d_rope", MLA_SHAPES)
def test_mla_against_the_papers_equations(d_model, h, d_c, d_head, d_rope):
    p = init_mla_params(d_model, h, d_c, d_head, d_rope, seed=d_model)
    x = np.random.default_rng(h).normal(size=(6, d_model))
    expected = mla_loops(x, p, h)
    for absorbed in (False, True):
        out, w = mla_attention(x, p, h, absorbed=absorbed)
        assert out.shape == x.shape and w.shape == (h, 6, 6)
        assert np.allclose(out, expected, rtol=0, atol=1e-12), absorbed
        assert np.all(np.triu(w, 1) == 0) and np.allclose(w.sum(-1), 1)  # causal


def test_mla_absorbed_equals_materialised():
    worst = 0.0
    for seed, (d_model, h, d_c, d_head, d_rope) in enumerate(MLA_SHAPES):
        p = init_mla_params(d_model, h, d_c, d_head, d_rope, seed=seed)
        x = np.random.default_rng(seed).normal(size=(2, 11, d_model))  # a batch of two
        made, absorbed = mla_trace(x, p, h), mla_trace(x, p, h, absorbed=True)
        worst = max(worst, float(np.max(np.abs(made.out - absorbed.out))))
        assert np.allclose(made.weights, absorbed.weights, rtol=0, atol=1e-12)
        assert np.array_equal(made.latent, absorbed.latent) and np.array_equal(made.k_rope, absorbed.k_rope)
    print(f"MLA, absorbed against materialised: largest difference {worst:.1e}")
    assert worst < 1e-12


def test_the_absorbed_path_makes_no_per_head_key_or_value():
    """With widths all different, no array the absorbed pass makes has a d_head axis: it never holds
    a head's key or value. The materialised pass does, and both cache d_c + d_rope numbers a token."""
    d_model, h, d_c, d_head, d_rope = 12, 3, 7, 5, 4
    p = init_mla_params(d_model, h, d_c, d_head, d_rope)
    x = np.random.default_rng(0).normal(size=(6, d_model))
    t = mla_trace(x, p, h, absorbed=True)
    assert t.k is None and t.v is None
    assert all(d_head not in a.shape for a in t if a is not None), {f: a.shape for f, a in t._asdict().items() if a is not None}
    assert t.q.shape == (h, 6, d_c) and t.heads.shape == (h, 6, d_c)
    w = absorbed_weights(p, h)
    assert w.w_q_latent.shape == (h, d_model, d_c) and w.w_o_latent.shape == (h, d_c, d_model)
    made = mla_trace(x, p, h)
    assert made.k.shape == (h, 6, d_head + d_rope) and made.v.shape == (h, 6, d_head)
    assert made.latent.shape[-1] + made.k_rope.shape[-1] == d_c + d_rope  # the cache, per token


def test_rope_on_the_latent_key_would_not_fold_into_the_query():
    """Why the rotary part stays outside the latent. If RoPE turned the key made from the latent,
    the score of one query against one latent c would change with the key's position; an absorbed
    query q W_UK^T meets c itself, which carries no position, and gives one score for both. With
    the decoupled rotary key (mla_attention), the content part does not move with position at all."""
    rng = np.random.default_rng(7)
    d_c, d_head = 6, 4
    w_uk = rng.normal(size=(d_c, d_head))
    q, c = rng.normal(size=d_head), rng.normal(size=d_c)
    query_pos = 9
    rotated_q = rope(q[None], [query_pos])[0]
    inside = [rotated_q @ rope((c @ w_uk)[None], [j])[0] for j in (2, 5)]  # RoPE on the latent's key
    assert abs(inside[0] - inside[1]) > 1e-3  # the same latent, two scores: they depend on j
    absorbed_query = q @ w_uk.T  # any query folded into the latent space
    assert math.isclose(absorbed_query @ c, absorbed_query @ c)  # ... gives one score for the latent
    # what folding would need: R_{j - m} W_UK^T, a different matrix for every offset, not one per head
    needed = [rope(w_uk, np.full(d_c, j - query_pos)).T for j in (2, 5)]  # rows of W_UK turned by j - m
    assert np.allclose([q @ needed[a] @ c for a in range(2)], inside)
    assert not np.allclose(needed[0], needed[1])


@pytest.mark.parametrize("call, error, words", [
    (lambda p, x: mla_attention(x, p._asdict(), 3), TypeError, "params must be an MLAParams"),
    (lambda p, x: mla_attention(x, p, 2), ValueError, "h=2 does not divide params.w_q's width 15"),
    (lambda p, x: mla_attention(x[:, :10], p, 3), ValueError, "params.w_dkv has shape (12, 7), expected (10, 7)"),
    (lambda p, x: mla_attention(x, p._replace(w_uv=p.w_uv[:, :14]), 3), ValueError, "params.w_uv has shape (7, 14), expected (7, 15)"),
    (lambda p, x: mla_attention(x, p._replace(w_kr=p.w_kr[:, :3]), 3), ValueError, "d_rope=3 must be even"),
    (lambda p, x: mla_attention(x, p._replace(w_o=p.w_o * np.nan), 3), ValueError, "params.w_o contains non-finite"),
    (lambda p, x: mla_attention(x, p, 3, absorbed="yes"), TypeError, "absorbed must be True or False"),
    (lambda p, x: mla_attention(x[0], p, 3), ValueError, "x must be 2-D [n, d_model] or 3-D"),
    (lambda p, x: mla_attention(x, p, 0), ValueError, "h, the number of heads, must be a whole number >= 1"),
    (lambda p, x: init_mla_params(12, 3, 7, 5, 3), ValueError, "d_rope=3 must be even"),
    (lambda p, x: init_mla_params(12, 3, 0, 5, 4), ValueError, "d_c, the latent's width, must be a whole number >= 1"),
    (lambda p, x: init_mla_params(12, 3, 7, 5, 4, seed=-1), ValueError, "seed must be a whole number >= 0"),
])
def test_mla_bad_input(call, error, words):
    p = init_mla_params(12, 3, 7, 5, 4)
    x = np.random.default_rng(0).normal(size=(4, 12))
    with pytest.raises(error) as e:
        call(p, x)
    assert words in str(e.value)


# --------------------------------------------------------------------------------------------
# Published configurations and what their caches keep
# --------------------------------------------------------------------------------------------

from mha_ref import costs, models  # noqa: E402


def test_deepseek_v2_cache_equals_gqa_with_2_25_groups():
    """DeepSeek-V2, Table 1: d_c = 4 d_h and d_h^R = d_h / 2, so (d_c + d_h^R) l = 9/2 d_h l elements,
    "equal to GQA with only 2.25 groups" (2 n_g d_h l)."""
    v2 = models.DEEPSEEK_V2
    assert (v2.d_c, v2.d_rope, v2.d_nope, v2.layers, v2.heads) == (4 * 128, 128 // 2, 128, 60, 128)
    mla = costs.mla_cache_per_token(v2.d_c, v2.d_rope, layers=v2.layers)
    assert mla / (2 * v2.d_nope * v2.layers) == 2.25
    assert mla / (2 * v2.heads * v2.d_nope * v2.layers) == pytest.approx(0.0176, abs=1e-4)  # of MHA's cache


def test_deepseek_v3_caches_70272_bytes_a_token():
    """FACTS: (512 + 64) x 61 x 2 bytes = 70,272 bytes per token in bf16."""
    ds = models.DEEPSEEK_V3
    assert (ds.d_c, ds.d_rope, ds.layers, ds.heads, ds.d_model) == (512, 64, 61, 128, 7168)
    mla = {(r.name, r.kind): r for r in costs.cache_per_token_rows()}[("DeepSeek-V3", "MLA")]
    assert mla.numbers == (512 + 64) * 61
    assert mla.bytes == 70_272 and mla.published


def test_cache_rows_follow_the_configurations():
    rows = {(r.name, r.kind): r for r in costs.cache_per_token_rows()}
    assert [k for _, k in rows] == ["MHA", "GQA", "MQA", "MQA", "MHA", "MLA"]
    # Llama 3 70B: 80 layers x (key + value) x 8 key/value heads x d_head 128, 2 bytes each
    assert rows["Llama 3 70B", "GQA"].bytes == 80 * 2 * 8 * 128 * 2 == 327_680
    assert rows["Llama 3 70B", "MHA"].numbers == 8 * rows["Llama 3 70B", "GQA"].numbers  # 64 heads, not 8
    assert rows["Llama 3 70B", "MQA"].numbers * 8 == rows["Llama 3 70B", "GQA"].numbers  # 1 head, not 8
    assert not rows["Llama 3 70B", "MHA"].published and not rows["Llama 3 70B", "MQA"].published
    # Falcon-7B: one key/value head of 64 over 32 layers
    assert rows["Falcon-7B", "MQA"].numbers == 32 * 2 * 64
    # DeepSeek-V3 without its latent: every head's key (128 + 64) and value (128), 61 layers
    assert rows["DeepSeek-V3", "MHA"].numbers == 61 * 128 * (128 + 64 + 128)
    assert all(r.source in models.REFERENCES for r in rows.values())


def test_the_mla_cache_is_what_mla_attention_keeps():
    """costs.mla_cache_per_token counts what latent.py's trace marks as cached, per token and layer."""
    d_c, d_rope = 7, 4
    t = mla_trace(np.ones((3, 12)), init_mla_params(12, 3, d_c, 5, d_rope), 3, absorbed=True)
    assert t.latent.shape[-1] + t.k_rope.shape[-1] == costs.mla_cache_per_token(d_c, d_rope)
    assert costs.mla_cache_per_token(d_c, d_rope, layers=5) == 5 * (d_c + d_rope)


def test_flash_numbers_count_what_one_tile_holds():
    """Counted from the arrays flash_attention's loop holds at once (its scores tile, m, l, acc),
    and against the n x n table as the context grows."""
    from mha_ref.flash import _tiles
    n, d_k = 9, 4
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, n, d_k))
    for block in (1, 4, 9, 20):
        _, m, _, l, acc = next(_tiles(q, k, v, block, None))
        tile = n * min(block, n)  # the scores of the first (full) tile
        assert costs.flash_numbers(n, block, d_k) == tile + m.size + l.size + acc.size
    grows = [costs.flash_numbers(n, 128, 128) / costs.attention_weights(n, 1) for n in (1024, 4096, 16384, 65536)]
    assert grows == sorted(grows, reverse=True) and grows[-1] < 0.01  # the table outgrows the tiles


def test_mistral_window_and_its_reach():
    m = models.MISTRAL_7B
    assert (models.MISTRAL_7B_WINDOW, m.layer_count, m.kv_heads, m.heads, m.d_head) == (4096, 32, 8, 32, 128)
    # the paper's "approximately 131K": W x layers, with W + 1 keys a layer (i - W .. i)
    assert models.MISTRAL_7B_WINDOW * m.layer_count == 131_072
    # this site's mask counts W keys with the query itself: W - 1 back a layer
    assert window_reach(models.MISTRAL_7B_WINDOW, m.layer_count) == 32 * 4095


def test_rope_bases_recorded():
    assert models.ROPE_BASES["roformer"] == 10000.0 and models.LLAMA3_ROPE_BASE["llama3"] == 500000.0
    # Llama 3's longest wavelength at d_head 128: 2 pi 500000^(126/128), about 2.56 million positions
    assert rope_wavelengths(128, models.LLAMA3_ROPE_BASE["llama3"])[-1] == pytest.approx(2.559e6, rel=1e-3)


@pytest.mark.parametrize("call, error, words", [
    (lambda: costs.mla_cache_per_token(0, 64), ValueError, "d_c, the latent's width, must be a whole number >= 1"),
    (lambda: costs.mla_cache_per_token(512, 64, layers=0), ValueError, "layers must be a whole number >= 1"),
    (lambda: costs.flash_numbers(100, 0, 64), ValueError, "block must be a whole number >= 1"),
    (lambda: costs.flash_numbers(1.5, 4, 64), TypeError, "the context length n must be a whole number"),
])
def test_cost_bad_input(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value)
