"""Page 8 (attention-today), sections #rotary and #windows: every claim the text and the captions
make, checked over every case there is to compute (many seeds, widths, bases, offsets), unrounded,
against mha_ref's rope and sliding_window_mask and the running example."""

from __future__ import annotations

import math

import numpy as np
import pytest

from figures.engine import registry
from figures.numbers import quantities
from mha_ref import models, rope, rope_frequencies, rope_wavelengths, sliding_window_mask, window_reach
from mha_ref.example import rotary, toy, windowed

THE, CAT, ATE, AND, IT, RAN = range(toy.N)
POS, SYN, RARE, DIFF = range(toy.H)
BASES = (3.0, 10000.0, 500000.0, 1e6)
ROFORMER, LLAMA3 = models.ROPE_BASES["roformer"], models.LLAMA3_ROPE_BASE["llama3"]
L3 = models.model("Llama 3 8B")


# #rotary ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [2, 8, 128])
@pytest.mark.parametrize("base", BASES)
def test_a_rotated_score_depends_only_on_the_offset(d, base):
    """Shift both positions by the same amount: the score does not move (any query, key, width, base)."""
    rng = np.random.default_rng(d)
    q, k = rng.normal(size=(2, 1, d))
    for m, n in ((0, 0), (3, 1), (1, 3), (7, 0), (0, 40)):
        score = (rope(q, [m], base) @ rope(k, [n], base).T).item()
        for shift in (1, 5, 100, 12345, 10 ** 6):
            moved = (rope(q, [m + shift], base) @ rope(k, [n + shift], base).T).item()
            assert moved == pytest.approx(score, rel=1e-9, abs=1e-9), (m, n, shift)
    # and a change of offset does change it (the score is not simply constant)
    assert not np.isclose((rope(q, [4], base) @ rope(k, [1], base).T).item(),
                          (rope(q, [4], base) @ rope(k, [2], base).T).item())


def test_the_rotary_position_head_does_not_move_with_the_sentence():
    w0 = rotary.position_head(0).weights
    for shift in (*rotary.SHIFTS, 3, 77, 123456):
        np.testing.assert_allclose(rotary.position_head(shift).weights, w0, rtol=0, atol=1e-12)
    assert rotary.largest_change_over_shifts() < 1e-12
    assert quantities.value("today.rope.shift_max") == max(rotary.SHIFTS)


def test_the_query_of_it_points_at_the_key_of_and_at_every_start():
    for shift in rotary.SHIFTS:
        head = rotary.position_head(shift)
        q, k = head.q[IT], head.k[AND]
        assert q @ k == pytest.approx(np.linalg.norm(q) * np.linalg.norm(k), rel=1e-12)  # the same direction


def test_the_rotary_head_finds_the_predecessor_except_for_the_first_token():
    rotary_targets, page_one = rotary.targets(), rotary.page_one_targets()
    assert rotary_targets == ("ran", "the", "cat", "ate", "and", "it")
    assert page_one == ("the", "the", "cat", "ate", "and", "it")  # `the` looks at itself on the first page
    assert rotary_targets[1:] == page_one[1:]
    # "so the head is sharper": every row that has a predecessor gives it more weight than the first page's
    w, w1 = rotary.position_head().weights, toy.trace().weights[POS]
    for i in range(1, toy.N):
        assert w[i, i - 1] > w1[i, i - 1]
    assert quantities.value("today.rope.it_and") == w[IT, AND] > quantities.value("heads.position_it_and")


def test_one_radian_a_token_whatever_the_base_and_the_wrap_of_ran():
    for base in BASES:
        for d in (2, 8, 128):
            assert rope_frequencies(d, base)[0] == 1.0
    assert quantities.value("today.rope.step_deg") == pytest.approx(180 / math.pi, rel=1e-12)
    assert quantities.value("today.rope.toy_step_deg") == pytest.approx(36.0, rel=1e-12)
    assert quantities.value("today.rope.turn_tokens") == pytest.approx(2 * math.pi, rel=1e-12)
    # `ran` is five places after `the`: a whole turn less the printed amount, i.e. that far behind
    behind = quantities.value("today.rope.wrap_behind")
    assert (RAN - THE) == pytest.approx(2 * math.pi - behind, rel=1e-12)
    assert 1 < behind < 1.5  # "close to the one place back that the query asks for"
    # among the keys `the` can weigh, `ran` is the one whose angle is nearest one place back
    offsets = np.arange(toy.N) - THE  # each key's offset from `the`, as an angle of one radian a token
    distance = np.abs((offsets + 1 + np.pi) % (2 * np.pi) - np.pi)
    assert distance.argmin() == RAN
    assert quantities.value("today.rope.the_ran") == rotary.position_head().weights[THE, RAN] > 0.99


@pytest.mark.parametrize("base", [ROFORMER, LLAMA3])
def test_most_pairs_of_a_real_head_turn_far_more_slowly_and_tell_back_from_ahead(base):
    theta = rope_frequencies(L3.d_head, base)
    assert (theta <= theta[0] / 10).mean() >= 0.75  # most pairs: ten times slower or more
    # a pair that turns by less than 2 pi / 6 a token gives offsets -1 and +5 different angles
    slow = theta[theta < 2 * np.pi / 6]
    assert len(slow) > L3.d_head // 4
    assert np.all(np.abs(np.exp(-1j * slow) - np.exp(5j * slow)) > 1e-6)


def test_pairing_neighbours_or_halves_gives_the_same_dot_products():
    """RoFormer's neighbours (2i, 2i+1) against rope's halves (j, j + d/2): one is the other on
    reordered numbers, and reordering queries and keys alike keeps every dot product."""
    d, n = 16, 9
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(2, n, d))
    order = np.array([j for pair in zip(range(d // 2), range(d // 2, d)) for j in pair])  # halves -> neighbours
    pos = np.arange(n) * 3
    halves = rope(q, pos) @ rope(k, pos).T

    def neighbours(x):
        out = np.empty_like(x)
        theta = rope_frequencies(d)
        a, b = x[:, 0::2], x[:, 1::2]
        c, s = np.cos(pos[:, None] * theta), np.sin(pos[:, None] * theta)
        out[:, 0::2], out[:, 1::2] = a * c - b * s, a * s + b * c
        return out

    np.testing.assert_allclose(neighbours(q[:, order]) @ neighbours(k[:, order]).T, halves, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q[:, order] @ k[:, order].T, q @ k.T, rtol=1e-12, atol=1e-12)


def test_a_larger_base_lengthens_every_pair_but_the_first():
    for small, large in ((ROFORMER, LLAMA3), (3.0, 10000.0), (10000.0, 1e6)):
        a, b = rope_wavelengths(L3.d_head, small), rope_wavelengths(L3.d_head, large)
        assert a[0] == b[0] == pytest.approx(2 * math.pi)
        assert np.all(b[1:] > a[1:])
    assert quantities.value("today.rope.slowest_roformer") == pytest.approx(2 * math.pi * ROFORMER ** (126 / 128))
    assert quantities.value("today.rope.slowest_llama3") == pytest.approx(2 * math.pi * LLAMA3 ** (126 / 128))
    assert quantities.value("today.rope.fastest_tokens") == pytest.approx(2 * math.pi)


def test_a_pair_that_turns_less_than_once_gives_every_earlier_token_its_own_angle():
    for base in (ROFORMER, LLAMA3):
        theta = rope_frequencies(L3.d_head, base)
        slow = theta[rope_wavelengths(L3.d_head, base) > L3.context]
        assert len(slow)
        offsets = np.arange(L3.context)  # a query and the tokens before it, within the context
        assert np.all((L3.context - 1) * slow < 2 * np.pi)  # the angles stay within one turn ...
        angles = np.outer(offsets, slow)
        assert np.all(np.diff(angles, axis=0) > 0)  # ... and grow with the offset: no two coincide
    turning = [int((rope_wavelengths(L3.d_head, b) <= L3.context).sum()) for b in (ROFORMER, LLAMA3)]
    assert turning[1] < turning[0]  # more pairs turn less than once with the larger base
    assert turning == [quantities.value("ex.today.rope.turning_roformer"), quantities.value("ex.today.rope.turning_llama3")]


# #windows --------------------------------------------------------------------------------------
@pytest.mark.parametrize("window", [1, 2, 3, 4, 7])
def test_each_layer_reaches_window_minus_one_further_back(window):
    for n in (5, 16, 40):
        for layers in range(1, 8):
            expected = min(window_reach(window, layers), n - 1)
            assert windowed.farthest_back(n, window, layers) == expected, (n, window, layers)
            # and every position in between is reached (the reach is one unbroken stretch)
            row = windowed.reachable(n, window, layers)[-1]
            assert row[n - 1 - expected:].all() and not row[:n - 1 - expected].any()


def test_a_band_mask_lets_each_query_read_the_last_w_keys_itself_included():
    for n, w in ((16, 4), (6, 3), (9, 1)):
        m = sliding_window_mask(n, w)
        for i in range(n):
            assert np.flatnonzero(m[i]).tolist() == list(range(max(0, i - w + 1), i + 1))


def test_window_reach_figure_frames_end_when_the_first_token_is_reached():
    mod = registry.get("window-reach")
    n, w = windowed.REACH_N, windowed.REACH_WINDOW
    frames = mod.CONTROL.values
    assert [windowed.farthest_back(n, w, L) == n - 1 for L in frames] == [False] * (len(frames) - 1) + [True]
    head, rows = mod.data("en")
    assert [int(r[1]) for r in rows] == [min(window_reach(w, L), n - 1) for L in frames]
    assert quantities.value("today.window.reach_step") == w - 1


def test_mistral_reach_and_the_papers_count():
    W, L = models.MISTRAL_7B_WINDOW, models.MISTRAL_7B.layer_count
    assert (W, L) == (4096, 32)
    assert quantities.value("today.window.mistral_reach") == L * (W - 1) == W * L - L
    assert quantities.value("today.window.mistral_paper_span") == W * L
    assert quantities.value("today.window.mistral_span_k") == round(W * L / 1000) == 131  # "approximately 131K"
    assert models.STREAMING_SINKS["sinks"] == 4


def test_each_windowed_row_sums_to_one_and_hides_what_the_mask_hides():
    for sinks in windowed.SINKS:
        w = windowed.trace(sinks).weights
        np.testing.assert_allclose(w.sum(-1), 1.0, rtol=0, atol=1e-12)
        assert np.all(w[:, ~sliding_window_mask(toy.N, windowed.WINDOW, sinks)] == 0)


def test_where_the_displaced_weight_goes_with_no_sinks():
    assert np.flatnonzero(sliding_window_mask(toy.N, windowed.WINDOW)[RAN]).tolist() == [AND, IT, RAN]
    # the rare-token head looks at `cat` from every query (unmasked), and from every query that can see it (causal)
    assert set(toy.targets("rare")) == {CAT}
    causal = windowed.causal_trace().weights
    assert all(causal[RARE, i].argmax() == CAT for i in range(CAT, toy.N))
    assert quantities.value("today.window.ran_rare_cat") == causal[RARE, RAN, CAT]
    rare = windowed.row("rare")
    rarity = toy.rarity()
    assert rare.argmax() == RAN == max((AND, IT, RAN), key=lambda j: rarity[j])  # the rarest token left
    assert rare[RAN] > 0.9  # "looks confident"
    syntax = windowed.row("syntax")
    assert set(np.argsort(syntax)[-2:]) == {AND, IT} and abs(syntax[AND] - syntax[IT]) < 0.05
    assert syntax[AND] + syntax[IT] > 0.99  # "splits its weight between `and` and `it`"
    assert causal[SYN, RAN].argmax() == ATE  # the target the window took away


def test_what_sinks_change():
    one = windowed.row("syntax", sinks=1)
    spread = one[[THE, AND, IT]]
    assert spread.max() - spread.min() < 0.03 and spread.sum() > 0.99  # about evenly over the, and, it
    assert quantities.value("today.window.sink1_syntax_the") == one[THE]
    assert windowed.row("rare", sinks=1).argmax() == RAN  # one sink is not yet `cat`
    assert windowed.top_key("rare", sinks=2) == "cat" and windowed.row("rare", sinks=2)[CAT] > 0.95
    # with this many sinks, window and sinks cover the sentence: every row of every head is the causal one
    all_sinks = quantities.value("today.window.sinks_all")
    assert all_sinks in windowed.SINKS
    np.testing.assert_array_equal(sliding_window_mask(toy.N, windowed.WINDOW, all_sinks),
                                  np.tril(np.ones((toy.N, toy.N), dtype=bool)))
    np.testing.assert_allclose(windowed.trace(all_sinks).weights, windowed.causal_trace().weights, rtol=0, atol=0)
    for fewer in range(all_sinks):
        assert not np.array_equal(sliding_window_mask(toy.N, windowed.WINDOW, fewer),
                                  np.tril(np.ones((toy.N, toy.N), dtype=bool)))


def test_the_figures_tables_hold_the_references_numbers():
    head, rows = registry.get("sink-weights").data("en")
    syntax_rows = [r for r in rows if r[0] == "syntax head"]
    assert len(syntax_rows) == 1 + len(windowed.SINKS)
    for r, sinks in zip(syntax_rows[1:], windowed.SINKS):
        row = windowed.trace(sinks).weights[SYN, RAN]
        assert [float(c) for c in r[2:]] == pytest.approx(row.tolist(), abs=0.005)
    head, rows = registry.get("rope-offset").data("en")
    assert len(rows) == len(rotary.SHIFTS)
    assert {r[4] for r in rows} == {f"{rotary.position_head().weights[IT, AND]:.3f}"}  # the same in every frame
