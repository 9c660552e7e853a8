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


# blend-rows ------------------------------------------------------------------------------------
def _row(head, query):
    return toy.trace().weights[toy.head_index(head)][toy.token_index(query)]


def test_blend_rows_peak_on_different_tokens_at_it():
    assert _row("position", "it").argmax() == toy.token_index("and")
    assert _row("syntax", "it").argmax() == toy.token_index("ran")


# blend-slider ----------------------------------------------------------------------------------
def test_blend_slider_midpoint_is_close_to_no_token():
    from figures import blend_slider
    assert len(blend_slider.CONTROL.values) >= 11
    mid = blend_slider.CONTROL.start
    assert toy.blend_ratios()[mid] == 0.5  # the page opens on the midpoint
    assert toy.blend_curve("it")[mid].max() <= 0.6


# what-a-head-reads -----------------------------------------------------------------------------
def test_every_head_output_moves_when_any_input_number_moves():
    s = toy.head_sensitivity()
    assert s.shape == (toy.H, toy.D_MODEL)
    assert (s > 1e-3).all()  # not only inside the head's own slice


def test_head_sensitivity_is_a_real_nudge():
    """Independent check of one cell: head 1 reads x[:, 6], far outside its own columns 2-3."""
    from mha_ref import mha_trace
    x, p = toy.inputs(), toy.params()
    nudged = x.copy()
    nudged[:, 6] += 0.01
    before = mha_trace(x, p, toy.H).heads[1]
    after = mha_trace(nudged, p, toy.H).heads[1]
    assert np.abs(after - before).max() > 1e-4


# projection-columns ----------------------------------------------------------------------------
@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_projection_columns_are_cut_the_same_way(h):
    x, p = toy.inputs(), toy.params()
    d_k = toy.D_MODEL // h
    for w in (p.w_q, p.w_k, p.w_v):
        heads = split_heads(x @ w, h)
        for i in range(h):
            np.testing.assert_allclose(heads[i], x @ w[:, i * d_k:(i + 1) * d_k], rtol=1e-12, atol=1e-12)


# two-heads-full-strength -----------------------------------------------------------------------
def test_two_heads_answer_at_full_strength_at_once():
    pos, syn = _row("position", "it").max(), _row("syntax", "it").max()
    assert pos >= 0.9 and syn >= 0.9
    assert min(pos, syn) > toy.blend_curve("it")[toy.BLEND_STEPS // 2].max()  # unlike blend-slider
    assert toy.D_K == 2


# four-heads ------------------------------------------------------------------------------------
def test_four_heads_follow_their_rules_for_every_query():
    w = toy.trace().weights
    assert list(w[toy.head_index("position")].argmax(-1)) == list(toy.PREVIOUS)
    assert [toy.TOKENS[j] for j in w[toy.head_index("syntax")].argmax(-1)] == \
        [toy.SYNTAX_TARGET[t] for t in toy.TOKENS]
    assert set(w[toy.head_index("rare")].argmax(-1)) == {toy.token_index("cat")}
    for head in ("position", "syntax", "rare"):
        assert w[toy.head_index(head)].max(-1).min() >= 0.85
    assert w[toy.head_index("diffuse")].max() < 0.3


@pytest.mark.parametrize("fig_id", ["blend-rows", "two-heads-full-strength", "four-heads"])
def test_query_figures_open_on_it(fig_id):
    from figures import registry
    assert registry.get(fig_id).CONTROL.start == toy.token_index("it")


# scale-pitfall ---------------------------------------------------------------------------------
def test_scale_right_divisor_keeps_the_peak_wrong_one_flattens_it():
    from mha_ref import scale
    right = [scale.peak(d, "d_k") for d in scale.D_KS]
    wrong = [scale.peak(d, "d_model") for d in scale.D_KS]
    np.testing.assert_allclose(right, right[0], rtol=1e-9)  # unchanged across d_k
    assert all(a < b for a, b in zip(wrong, wrong[1:]))  # falls as d_k shrinks
    assert wrong[-1] == pytest.approx(right[-1])  # the same only when d_k = d_model
    assert wrong[0] < right[0] / 2


def test_scale_weights_come_from_real_attention():
    from mha_ref import attention, scale
    q, k = scale.query_and_keys(8)
    scores = k @ q
    assert scores[0] == pytest.approx(scale.STRENGTH * np.sqrt(8))
    np.testing.assert_allclose(scores[1:], 0, atol=1e-12)
    _, w = attention(q[None], k, np.eye(len(k)), scale=1 / np.sqrt(8))
    np.testing.assert_allclose(w[0], scale.weights(8, "d_k"))


def test_spread_of_q_dot_k_grows_like_sqrt_d_k():
    rng = np.random.default_rng(0)
    for d_k in (4, 16, 64):
        dots = np.einsum("ij,ij->i", rng.normal(size=(20000, d_k)), rng.normal(size=(20000, d_k)))
        assert dots.std() == pytest.approx(np.sqrt(d_k), rel=0.05)


def test_scale_refuses_a_width_that_does_not_divide():
    from mha_ref import scale
    with pytest.raises(ValueError, match="d_k=3"):
        scale.peak(3, "d_k")
    with pytest.raises(ValueError, match="divisor"):
        scale.weights(8, "d_x")


# position-vs-rare-rows -------------------------------------------------------------------------
def test_position_peak_moves_with_the_query_rare_peak_stays_on_cat():
    w = toy.trace().weights
    assert list(w[toy.head_index("position")].argmax(-1)) == [max(q - 1, 0) for q in range(toy.N)]
    assert set(w[toy.head_index("rare")].argmax(-1)) == {toy.token_index("cat")}


# head-ablation ---------------------------------------------------------------------------------
def test_ablation_diffuse_costs_almost_nothing_specialised_heads_a_lot():
    cost = dict(zip(toy.HEADS, toy.ablation()))
    assert cost["diffuse"] < 0.05
    for head in ("position", "syntax", "rare"):
        assert cost[head] > 0.2 and cost[head] > 10 * cost["diffuse"]


def test_ablation_replaces_the_head_by_the_mean_of_its_values():
    """Independent recomputation for the syntax head."""
    from mha_ref import merge_heads
    t, p = toy.trace(), toy.params()
    heads = t.heads.copy()
    i = toy.head_index("syntax")
    heads[i] = np.full_like(heads[i], 0) + t.v[i].mean(axis=0)
    full = t.concat @ p.w_o
    expected = np.linalg.norm(merge_heads(heads) @ p.w_o - full) / np.linalg.norm(full)
    assert toy.ablation()[i] == pytest.approx(expected)


# pruning-evidence / heads-vs-bleu: published numbers equal FACTS.md ----------------------------
def test_pruning_numbers_equal_facts():
    from mha_ref import models
    assert models.VOITA_ENCODER_HEADS == 6 * 8
    assert (models.VOITA_PRUNED["heads_kept"], models.VOITA_PRUNED["bleu_drop"]) == (10, 0.15)
    assert (models.VOITA_PRUNED_SUBTITLES["heads_kept"], models.VOITA_PRUNED_SUBTITLES["bleu_drop"]) == (4, 0.25)


def test_one_head_is_point_nine_bleu_behind_the_best():
    from mha_ref import quantities
    assert quantities.value("bleu.gap") == pytest.approx(0.9)


# concat-slots ----------------------------------------------------------------------------------
@pytest.mark.parametrize("placed", range(1, toy.H + 1))
def test_placing_a_head_never_changes_filled_slots(placed):
    t = toy.trace()
    partial = np.concatenate(list(t.heads[:placed]), axis=-1)  # [n, placed * d_k]
    np.testing.assert_array_equal(partial, t.concat[:, :placed * toy.D_K])
    assert t.concat.shape[-1] == toy.D_MODEL


# head-outputs ----------------------------------------------------------------------------------
def test_each_pair_is_that_heads_weights_times_its_values():
    t = toy.trace()
    for q in range(toy.N):
        for i in range(toy.H):
            np.testing.assert_allclose(t.concat[q, i * toy.D_K:(i + 1) * toy.D_K], t.weights[i][q] @ t.v[i])


# wo-mixing -------------------------------------------------------------------------------------
def test_block_diagonal_w_o_keeps_heads_apart_mixing_brings_all_four():
    alone = toy.contributions(0.0)
    assert np.abs(alone[0]).sum() > 0 and np.all(alone[1:] == 0)
    for mix in (0.25, 1.0):
        c = toy.contributions(mix)
        assert np.all(np.abs(c).sum(axis=1) > 1e-3)  # every head now reaches the slots
        t = toy.trace(mix)
        np.testing.assert_allclose(c.sum(axis=0), t.out[toy.token_index("it"), :toy.D_K])


# four-matrices ---------------------------------------------------------------------------------
def test_four_matrices_share_one_shape():
    p = toy.params()
    assert {w.shape for w in (p.w_q, p.w_k, p.w_v, p.w_o)} == {(toy.D_MODEL, toy.D_MODEL)}


# params-vs-h -----------------------------------------------------------------------------------
def test_params_are_exactly_4d2_plus_4d_for_every_h():
    from figures import params_vs_h
    d = params_vs_h.D
    for h in params_vs_h.CONTROL.values:
        assert costs.param_count(d, h) == 4 * d * d + 4 * d == 2_362_368


# dk-expressiveness -----------------------------------------------------------------------------
def test_a_width_one_head_can_point_only_two_ways():
    from mha_ref import expressiveness as ex
    counts = [ex.reachable_top_keys(d) for d in ex.head_widths()]
    assert ex.head_widths()[0] == 1 and counts[0] == 2
    assert all(a <= b for a, b in zip(counts, counts[1:])) and counts[-1] > 2


def test_width_one_argument_by_hand():
    """With d_k = 1 the top key is the largest key for q > 0 and the smallest for q < 0."""
    keys = np.array([0.3, -1.2, 2.5, 0.1])
    for q in (-3.0, -0.1, 0.2, 5.0):
        assert np.argmax(q * keys) == (keys.argmax() if q > 0 else keys.argmin())


# published-models ------------------------------------------------------------------------------
def test_published_head_width_stays_in_64_to_128_while_h_spans_8_to_96():
    from mha_ref import models
    hs = [m.heads for m in models.PUBLISHED_MODELS]
    dks = [m.d_model // m.heads for m in models.PUBLISHED_MODELS]
    assert (min(hs), max(hs)) == (8, 96)
    assert (min(dks), max(dks)) == (64, 128)


# flow-diagram ----------------------------------------------------------------------------------
def test_flow_shapes_are_computed_from_the_config():
    from mha_ref import flow_shapes
    s = flow_shapes()
    assert (s.h, s.d_k) == (8, 64)
    assert (s.x, s.q_i, s.head_i, s.concat, s.w_o, s.out) == \
        ("n × 512", "n × 64", "n × 64", "n × 512", "512 × 512", "n × 512")
    other = flow_shapes(d_model=24, h=3, n=5)
    assert (other.q_i, other.concat) == ("n × 8", "n × 24")


def test_voita_role_numbers_equal_facts():
    from mha_ref import models
    r = models.VOITA_ROLES
    assert (r["positional_pct"], r["rarest_pct"], r["two_rarest_pct"], r["all_roles_heads"]) == (90, 66, 83, 17)
    assert r["source"] in models.REFERENCES
