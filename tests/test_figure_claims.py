"""Each figure's claim from FIGURES.md, asserted on the numbers mha_ref produces (not on pixels)."""

import numpy as np
import pytest

from mha_ref import costs, split_heads, merge_heads, toy
from figures import flops_vs_context, width_slices


# peak-dip ---------------------------------------------------------------------------------------
def test_peak_dip_high_at_both_ends_lowest_at_midpoint():
    peak = toy.blend_curve("it").max(axis=1)
    mid = len(peak) // 2
    assert toy.blend_ratios()[mid] == 0.5
    assert peak[0] >= 0.9 and peak[-1] >= 0.9
    assert peak[mid] <= 0.6
    assert np.argmin(peak) == mid


def test_peak_dip_never_peaks_on_a_third_token():
    top = toy.blend_curve("it").argmax(axis=1)
    assert set(top) <= {toy.token_index("and"), toy.token_index("ran")}
    # and it really moves from one answer to the other
    assert top[0] == toy.token_index("and") and top[-1] == toy.token_index("ran")


def test_blend_has_at_least_eleven_steps():
    assert toy.BLEND_STEPS >= 11 and toy.BLEND_STEPS % 2 == 1  # odd: the midpoint is a stop


def test_blend_in_one_rotating_code_would_land_between_targets():
    """The pitfall the construction avoids, shown on the position code itself: had the syntax
    query also been a position, the average of a query aimed at `and` and one aimed at `ran`
    would aim at `it`, the token between them (a third answer)."""
    t = toy.trace()
    keys = t.k[toy.head_index("position")]
    q_blend = (keys[toy.token_index("and")] + keys[toy.token_index("ran")]) / 2
    scores = q_blend @ keys.T
    assert scores.argmax() == toy.token_index("it")


# width-slices -----------------------------------------------------------------------------------
@pytest.mark.parametrize("h", width_slices.CONTROL.values)
def test_width_slices_ends_never_move(h):
    x = np.arange(toy.D_MODEL, dtype=float)[None, :]  # one token
    pieces = split_heads(x, h)  # [h, 1, d_k]
    assert pieces.shape == (h, 1, toy.D_MODEL // h)
    assert h * pieces.shape[-1] == toy.D_MODEL
    assert pieces[0, 0, 0] == x[0, 0] and pieces[-1, 0, -1] == x[0, -1]  # the two ends
    np.testing.assert_array_equal(merge_heads(pieces), x)


def test_width_slices_control_is_the_divisors_and_opens_on_the_running_example():
    assert list(width_slices.CONTROL.values) == [1, 2, 4, 8]
    assert width_slices.CONTROL.start == toy.H


# position-vs-rare-lines ------------------------------------------------------------------------
def test_position_head_draws_the_diagonal_one_step_behind():
    assert list(toy.targets("position")) == [max(i - 1, 0) for i in range(toy.N)]


def test_rare_head_draws_a_flat_line_at_cat():
    assert set(toy.targets("rare")) == {toy.token_index("cat")}
    assert min(toy.FREQUENCIES, key=toy.FREQUENCIES.get) == "cat"


def test_syntax_head_jumps():
    target = toy.targets("syntax")
    offsets = target - np.arange(toy.N)
    assert offsets[toy.token_index("it")] == +1  # forward at `it`
    assert offsets[toy.token_index("ate")] == -1  # back at `ate`
    assert len(set(offsets)) >= 3  # no fixed offset, unlike the position head
    assert [toy.TOKENS[j] for j in target] == [toy.SYNTAX_TARGET[t] for t in toy.TOKENS]


# flops-vs-context ------------------------------------------------------------------------------
def test_flops_one_head_and_h_heads_coincide_at_every_context():
    d = flops_vs_context.GPT2.d_model
    for n in flops_vs_context.CONTEXTS:
        one = costs.multiply_adds(int(n), d, 1).attention
        assert all(costs.multiply_adds(int(n), d, h).attention == one for h in flops_vs_context.CONTROL.values)


def test_flops_projections_are_one_and_a_half_times_attention_at_gpt2_context():
    m = flops_vs_context.GPT2
    c = costs.multiply_adds(m.context, m.d_model, m.heads)
    assert (m.d_model, m.heads, m.context) == (768, 12, 1024)  # GPT-2 small, FACTS.md
    assert 2 * c.projections == 3 * c.attention  # exactly 1.5, in integers
    assert c.projections == 2_415_919_104 and c.attention == 1_610_612_736
