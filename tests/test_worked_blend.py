"""The claims of worked-example (one query through one head, every step) and output-blend (what
blending costs in the output), asserted on mha_ref and on the numbers the figures draw, read back
from the texts of the drawn Figure (each tagged with a gid)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Text

from figures.engine import registry
from figures.kit.readouts import decimals
from figures.kit.style import narrow
from mha_ref import mha_trace, multi_head_attention_loop
from mha_ref.example import one_head, toy

IT = toy.token_index("it")
AND, RAN = toy.token_index("and"), toy.token_index("ran")
MID = float(toy.blend_ratios()[toy.BLEND_STEPS // 2])


def drawn(fig_id, value=None, lang="en", thin=False) -> dict[str, str]:
    """The tagged texts of one drawn frame, by gid."""
    mod = registry.get(fig_id)
    if thin:
        with narrow():
            fig = mod.draw(lang, value)
    else:
        fig = mod.draw(lang, value)
    plt.close(fig)
    return {t.get_gid(): t.get_text() for t in fig.findobj(Text) if t.get_gid()}


def cols(i: int) -> slice:
    return slice(i * toy.D_K, (i + 1) * toy.D_K)


# worked-example --------------------------------------------------------------------------------
@pytest.mark.parametrize("head", toy.HEADS)
def test_each_step_is_the_attention_formula_and_agrees_with_the_batched_block(head):
    """Recomputed here from the inputs and the head's columns of W_Q, W_K, W_V; then against the
    batched trace and the per-head loop, which worked_example does not read."""
    i, w = toy.head_index(head), one_head.worked_example("it", head)
    x, p, t = toy.inputs(), toy.params(), toy.trace()
    b_q = p.b_q[cols(i)]
    assert np.allclose(w.x, x[IT]) and np.allclose(w.w_q, p.w_q[:, cols(i)]) and np.allclose(w.b_q, b_q)
    assert np.allclose(w.q, sum(x[IT, d] * p.w_q[d, cols(i)] for d in range(toy.D_MODEL)) + b_q)
    assert np.allclose(w.dots, [w.q @ w.k[j] for j in range(toy.N)])
    assert np.allclose(w.scores, w.dots / np.sqrt(toy.D_K))
    assert np.allclose(w.weights, np.exp(w.scores) / np.exp(w.scores).sum()) and w.weights.sum() == pytest.approx(1)
    assert np.allclose(w.weighted, w.weights[:, None] * w.v) and np.allclose(w.out, w.weighted.sum(axis=0))
    for mine, batched in ((w.q, t.q[i][IT]), (w.k, t.k[i]), (w.v, t.v[i]), (w.scores, t.scores[i][IT]),
                          (w.weights, t.weights[i][IT]), (w.out, t.heads[i][IT])):
        assert np.allclose(mine, batched, rtol=0, atol=1e-12)
    _, loop_weights = multi_head_attention_loop(x, p, toy.H)
    assert np.allclose(w.weights, loop_weights[i][IT])


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("thin", [False, True], ids=["wide", "narrow"])
def test_each_frame_ends_in_the_numbers_concat_slots_places_for_that_head(lang, thin):
    """The brief's check: the frame's final d_k numbers are that head's slots of the concatenation,
    as mha_ref computes them and as concat-slots draws them."""
    assert registry.get("concat-slots").QUERY == registry.get("worked-example").QUERY == "it"
    concat = toy.trace().concat[IT]
    slots_drawn = [t.get_text() for t in registry.get("concat-slots").draw(lang, toy.H).axes[0].texts
                   if t.get_text().lstrip("-")[:1].isdigit()]
    plt.close("all")
    assert slots_drawn == [f"{v:.2f}" for v in concat]
    for i, head in enumerate(toy.HEADS):
        out = one_head.worked_example("it", head).out
        assert np.allclose(out, concat[cols(i)], rtol=0, atol=1e-12)
        texts = drawn("worked-example", i, lang, thin)
        assert [texts[f"output-{c}"] for c in range(toy.D_K)] == slots_drawn[cols(i)]


def test_only_the_rare_token_head_has_a_query_bias():
    biased = [h for h in toy.HEADS if np.any(one_head.worked_example("it", h).b_q != 0)]
    assert biased == ["rare"]
    assert toy.params().b_k is None and toy.params().b_v is None  # keys and values have none at all


def test_the_position_head_lifts_and_well_above_the_rest_and_gets_nearly_all_the_weight():
    w = one_head.worked_example("it", "position")
    order = np.argsort(w.scores)[::-1]
    assert order[0] == AND
    assert w.scores[AND] - w.scores[order[1]] > 3  # e^3: twenty times the next key's weight
    assert w.weights[AND] > 0.9


def test_the_diffuse_heads_output_is_close_to_the_plain_average_of_its_values():
    w = one_head.worked_example("it", "diffuse")
    assert np.ptp(w.dots) < 0.1 and np.abs(w.weights - 1 / toy.N).max() < 0.01
    assert np.abs(w.out - w.v.mean(axis=0)).max() < 0.02 * np.ptp(w.v, axis=0).min()


def test_the_table_keeps_one_decimal_more_than_the_figure_and_holds_every_step():
    _, rows = registry.get("worked-example").data("en")
    texts = drawn("worked-example", 0)
    assert all(len(texts[f"output-{c}"].split(".")[1]) == 2 for c in range(toy.D_K))
    for i, head in enumerate(toy.HEADS):
        w = one_head.worked_example("it", head)
        mine = [r for r in rows if r[0].startswith(f"head {i + 1} ")]
        numbers = [[float(c) for c in r[2:] if c] for r in mine]
        assert all(len(c.split(".")[1]) == 3 for r in mine for c in r[2:] if c)
        expected = [w.x, *w.w_q.T, w.b_q, w.q, *w.k.T, w.dots, w.scores, w.weights, *w.v.T, *w.weighted.T, w.out]
        assert len(numbers) == len(expected)
        for got, want in zip(numbers, expected):
            assert got == pytest.approx(want, abs=0.0005)
        assert mine[-1][1].endswith(f"slots {i * toy.D_K + 1}–{(i + 1) * toy.D_K} of the concatenation")


# output-blend ----------------------------------------------------------------------------------
def test_the_one_heads_output_is_the_blended_weights_times_both_heads_values():
    t = toy.trace()
    a = toy.blend_weights(MID)[IT]
    v = np.concatenate([t.v[toy.head_index("position")], t.v[toy.head_index("syntax")]], axis=1)
    assert np.allclose(one_head.blend_values(), v)
    assert np.allclose(one_head.blend_output(MID), sum(a[j] * v[j] for j in range(toy.N)), rtol=0, atol=1e-12)
    # a v_and + b v_ran plus a little of the other words: both weights real, the rest small
    assert a[AND] > 0.4 and a[RAN] > 0.4 and 0 < 1 - a[AND] - a[RAN] < 0.15


def test_the_two_heads_slots_are_each_heads_own_output():
    mine = one_head.two_head_output()
    own = np.concatenate([one_head.worked_example("it", "position").out, one_head.worked_example("it", "syntax").out])
    assert np.allclose(mine, own, rtol=0, atol=1e-12)
    assert np.allclose(mine, toy.trace().concat[IT, :2 * toy.D_K], rtol=0, atol=1e-12)


def test_the_two_heads_keep_and_and_ran_in_separate_slots():
    """Slots of the position head: mostly `and`'s value (weight above 0.9); of the syntax head:
    `ran`'s value, all but unchanged (equal at the figure's two decimals)."""
    v, out, w = one_head.blend_values(), one_head.two_head_output(), toy.trace().weights
    assert one_head.rule_answers("it") == ("and", "ran")
    assert w[toy.head_index("position")][IT, AND] > 0.9
    assert np.abs(out[:toy.D_K] - v[AND, :toy.D_K]).max() < 0.1
    assert np.abs(out[toy.D_K:] - v[RAN, toy.D_K:]).max() < 0.005


def test_twin_inputs_give_the_one_head_the_same_output_and_the_two_heads_another():
    x, twin = toy.inputs(), one_head.blend_twin_inputs(MID)
    changed = np.flatnonzero(np.abs(twin - x).max(axis=1) > 0)
    assert list(changed) == [AND, RAN]  # only the two answers' input rows
    t, t2 = toy.trace(), mha_trace(twin, toy.params(), toy.H)
    for head in ("position", "syntax"):  # the row of `it` meets the same query and keys ...
        i = toy.head_index(head)
        assert np.allclose(t2.k[i], t.k[i], rtol=0, atol=1e-12) and np.allclose(t2.q[i][IT], t.q[i][IT])
        assert np.allclose(t2.weights[i][IT], t.weights[i][IT], rtol=0, atol=1e-12)
    a = toy.blend_weights(MID)[IT]
    v, v2 = one_head.blend_values(), one_head.blend_values(twin)
    m = (a[AND] * v[AND] + a[RAN] * v[RAN]) / (a[AND] + a[RAN])
    assert np.allclose(v2[AND], m) and np.allclose(v2[RAN], m)  # ... but both answers now carry m
    assert np.abs(v[AND] - v[RAN]).max() > 1  # where the sentence's two values differ
    assert np.allclose(one_head.blend_output(MID, x=twin), one_head.blend_output(MID), rtol=0, atol=1e-12)
    moved = np.abs(one_head.two_head_output(x=twin) - one_head.two_head_output())
    assert moved[:toy.D_K].max() > 0.5 and moved[toy.D_K:].max() > 0.5  # both pairs of slots change


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("thin", [False, True], ids=["wide", "narrow"])
def test_output_blend_draws_mha_refs_numbers_and_marks_only_the_one_head_equal(lang, thin):
    texts = drawn("output-blend", None, lang, thin)
    twin = one_head.blend_twin_inputs(MID)
    for panel, x in (("sentence", None), ("twin", twin)):
        v = one_head.blend_values(x)
        for row, numbers in (("first-answer", v[AND]), ("second-answer", v[RAN]),
                             ("two-heads", one_head.two_head_output("it", x)), ("one-head", one_head.blend_output(MID, "it", x))):
            assert [texts[f"{panel}-{row}-{c}"] for c in range(2 * toy.D_K)] == [decimals(n) for n in numbers]
    assert [texts[f"compare-{row}"] for row in ("first-answer", "second-answer", "two-heads", "one-head")] == \
        ["≠", "≠", "≠", "="]


def test_output_blends_table_is_what_it_draws():
    _, rows = registry.get("output-blend").data("en")
    texts = drawn("output-blend")
    cells = [[float(c) for c in r[2:]] for r in rows]
    tags = [f"{p}-{r}" for p in ("sentence", "twin") for r in ("first-answer", "second-answer", "two-heads", "one-head")]
    for tag, row in zip(tags, cells, strict=True):
        # the table's three decimals round to the figure's two (within half a unit of either)
        assert row == pytest.approx([float(texts[f"{tag}-{k}"]) for k in range(2 * toy.D_K)], abs=0.0051)


def test_output_blend_is_drawn_at_the_blend_sliders_middle_stop():
    assert registry.get("output-blend").ALPHA == MID == 0.5
