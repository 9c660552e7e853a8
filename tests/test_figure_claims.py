"""Each figure's claim (what its caption says), asserted on the numbers the figure draws (read back from
the artists of the Figure its draw() returns: bar heights, line data, texts) and on the mha_ref
functions behind them; never on pixels, never on a constant the figure does not draw."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from mha_ref import split_heads
from mha_ref import costs
from mha_ref.example import toy
from figures.gallery import flops_vs_context, width_slices
from mha_ref.example import scale

LANGS = ("zh", "en")


# reading back what a figure drew ----------------------------------------------------------------
def _axes(fig_id, value=None, lang="en"):
    """The axes of figure `fig_id` as drawn for one frame (closed: its artists stay readable)."""
    import matplotlib.pyplot as plt
    from figures.engine import registry
    fig = registry.get(fig_id).draw(lang, value)
    plt.close(fig)
    return fig.axes


def _heights(container):
    """[bars] the heights of one ax.bar call, in drawing order."""
    return np.array([bar.get_height() for bar in container])


def _lines_in(ax, colour):
    """The lines drawn in one colour, in drawing order."""
    from matplotlib.colors import same_color
    return [line for line in ax.lines if same_color(line.get_color(), colour)]


# peak-dip ---------------------------------------------------------------------------------------
FINE = np.linspace(0.0, 1.0, 2001)


def _fine_rows(query: str) -> np.ndarray:
    """[len(FINE), n] the blended row of `query`, computed afresh at every ratio of a fine grid."""
    return np.stack([toy.blend_weights(a)[toy.token_index(query)] for a in FINE])


def _drawn_peak_dip():
    from figures.gallery import peak_dip
    fig = peak_dip.draw("en")
    lines = fig.axes[0].lines
    plt.close(fig)
    return lines


def test_peak_dip_high_at_both_ends_lowest_between_the_middle_stops():
    stops = toy.blend_curve("it").max(axis=1)
    mid = len(stops) // 2
    assert toy.blend_ratios()[mid] == 0.5
    assert stops[0] >= 0.9 and stops[-1] >= 0.9
    assert np.argmin(stops) == mid  # of the slider's stops, the middle one is lowest (the page says so)
    at, low = toy.blend_minimum("it")
    fine = _fine_rows("it").max(axis=1)
    assert low <= fine.min() + 1e-12  # no ratio of the fine grid goes lower than the computed minimum
    near = np.linspace(at - 1e-3, at + 1e-3, 1001)  # nor any ratio right next to it
    assert low <= min(toy.blend_peak(r) for r in near) + 1e-12
    assert low < stops[mid] <= 0.6  # and the minimum is not the midpoint stop's value
    assert abs(at - 0.5) < 1 / (toy.BLEND_STEPS - 1)  # between the two stops next to the middle
    assert toy.blend_peak(at) == pytest.approx(low, abs=1e-12)


def test_peak_dip_minimum_is_where_and_and_ran_tie():
    at, low = toy.blend_minimum("it")
    row = toy.blend_weights(at)[toy.token_index("it")]
    assert row[toy.token_index("and")] == pytest.approx(row[toy.token_index("ran")], abs=1e-6)
    assert low < 0.5  # two tokens level, and the row sums to one: neither can reach half
    switch = [s.end for s in toy.blend_top_keys("it")][0]
    assert at == pytest.approx(switch, abs=1e-6)


def test_peak_dip_draws_the_computed_curve_and_marks_the_true_minimum():
    lines = _drawn_peak_dip()
    at, low = toy.blend_minimum("it")
    marked = [ln for ln in lines if len(ln.get_xdata()) == 1]
    assert len(marked) == 1 and marked[0].get_xdata()[0] == at and marked[0].get_ydata()[0] == low
    black = max(lines, key=lambda ln: ln.get_linewidth())
    xs, ys = np.asarray(black.get_xdata()), np.asarray(black.get_ydata())
    expected = [toy.blend_peak(x) for x in xs[::40]]
    np.testing.assert_allclose(ys[::40], expected, rtol=1e-12)


def _it_row_by_hand(ratios) -> np.ndarray:
    """[len(ratios), n] the blended head's row for `it`, computed here from the running example's
    inputs and parameters: each head's scores q.k / sqrt(d_k) (head 0, position: columns 0:2; head
    1, syntax: columns 2:4), mixed (1 - ratio) position + ratio syntax, through a softmax of our own."""
    x, p = toy.inputs(), toy.params()
    q = x @ p.w_q + (0 if p.b_q is None else p.b_q)
    k = x @ p.w_k + (0 if p.b_k is None else p.b_k)
    it = list(toy.TOKENS).index("it")
    pos = q[it, 0:2] @ k[:, 0:2].T / np.sqrt(2)
    syn = q[it, 2:4] @ k[:, 2:4].T / np.sqrt(2)
    rows = []
    for a in ratios:
        s = (1 - a) * pos + a * syn
        e = np.exp(s - s.max())
        rows.append(e / e.sum())
    return np.array(rows)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("word", ["and", "ran"])
def test_peak_dip_lines_of_and_and_ran_are_the_weights_on_those_words(lang, word):
    from figures.gallery import peak_dip
    fig = peak_dip.draw(lang)
    plt.close(fig)
    line, = [ln for ln in fig.axes[0].lines if f"“{word}”" in ln.get_label()]  # the legend names its word
    xs, ys = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    assert xs[0] == 0 and xs[-1] == 1 and len(xs) > 100
    np.testing.assert_allclose(ys, _it_row_by_hand(xs)[:, list(toy.TOKENS).index(word)], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("query", toy.TOKENS)
def test_blend_top_keys_are_exact_for_every_query(query):
    """The spans from the score lines' crossings agree with the argmax on a fine grid, for every query."""
    spans = toy.blend_top_keys(query)
    assert spans[0].start == 0.0 and spans[-1].end == 1.0
    assert all(a.end == b.start for a, b in zip(spans, spans[1:]))
    top = _fine_rows(query).argmax(axis=1)
    for ratio, j in zip(FINE, top):
        inside = [s.token for s in spans if s.start < ratio < s.end]
        if inside:  # a ratio exactly on a crossing is a tie
            assert inside == [toy.TOKENS[j]], (query, ratio)


def test_blend_of_it_peaks_only_on_its_two_answers():
    assert [s.token for s in toy.blend_top_keys("it")] == ["and", "ran"]


def test_blend_can_peak_on_a_third_token():
    """Not a law: the row of `and` puts its top weight on `and` itself for mid ratios, a token that
    neither rule ranks first (the page says so, with this span)."""
    assert [s.token for s in toy.blend_top_keys("and")] == ["ate", "and", "ran"]
    for rule in (0.0, 1.0):
        assert toy.TOKENS[toy.blend_scores(rule)[toy.token_index("and")].argmax()] != "and"
    start, end = toy.blend_top_keys("and")[1][1:]
    inner = FINE[(FINE > start) & (FINE < end)]
    rows = np.stack([toy.blend_weights(a)[toy.token_index("and")] for a in inner])
    assert set(rows.argmax(axis=1)) == {toy.token_index("and")}


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
def _drawn_slices(h, lang):
    """[(first column, width)] of the pieces width-slices outlines for the frame h, left to right."""
    (ax,) = _axes("width-slices", h, lang)
    outlines = [p for p in ax.patches if not p.get_fill()]  # one frame per piece; cells are filled
    return sorted((p.get_x(), p.get_width()) for p in outlines)


@pytest.mark.parametrize("lang", LANGS)
def test_width_slices_ends_never_move(lang):
    q = (toy.inputs() @ toy.params().w_q)[toy.token_index("it")]  # [d_model] the vector it cuts
    ends = set()
    for h in width_slices.CONTROL.values:
        pieces = _drawn_slices(h, lang)
        assert len(pieces) == h
        assert {w for _, w in pieces} == {toy.D_MODEL / h}  # equal pieces of width d_k
        assert sum(w for _, w in pieces) == toy.D_MODEL  # h x d_k = d_model
        for (x, w), (next_x, _) in zip(pieces, pieces[1:]):
            assert x + w == next_x  # no gap, no overlap
        ends.add((pieces[0][0], pieces[-1][0] + pieces[-1][1]))
        # each drawn piece holds the columns split_heads hands to that head
        for head, (x, w) in zip(split_heads(q[None, :], h), pieces):
            np.testing.assert_array_equal(head[0], q[int(x):int(x + w)])
    assert ends == {(0, toy.D_MODEL)}  # the same two ends in every frame


def test_width_slices_control_is_the_divisors_and_opens_on_the_running_example():
    assert list(width_slices.CONTROL.values) == [h for h in range(1, toy.D_MODEL + 1) if toy.D_MODEL % h == 0]
    assert width_slices.CONTROL.start == toy.H


# position-vs-rare-lines ------------------------------------------------------------------------
def _drawn_targets(head, lang="en"):
    """position-vs-rare-lines for one head: (query positions, attended positions)."""
    from figures.kit.style import HEAD_COLOURS
    (ax,) = _axes("position-vs-rare-lines", None, lang)
    (line,) = _lines_in(ax, HEAD_COLOURS[head])
    y = np.asarray(line.get_ydata(), dtype=float)
    np.testing.assert_array_equal(y, np.rint(y))  # every point sits exactly on a token: none is moved
    return line.get_xdata().astype(int), y.astype(int)


@pytest.mark.parametrize("lang", LANGS)
def test_position_head_draws_the_diagonal_one_step_behind(lang):
    queries, target = _drawn_targets("position", lang)
    assert list(queries) == list(range(toy.N))
    assert list(target) == [max(q - 1, 0) for q in queries]  # the first token can only look at itself


@pytest.mark.parametrize("lang", LANGS)
def test_rare_head_draws_a_flat_line_at_cat(lang):
    queries, target = _drawn_targets("rare", lang)
    assert list(queries) == list(range(toy.N))
    assert set(target) == {toy.TOKENS.index("cat")}
    assert min(toy.FREQUENCIES, key=toy.FREQUENCIES.get) == "cat"  # the rarest token


@pytest.mark.parametrize("lang", LANGS)
def test_syntax_head_jumps(lang):
    queries, target = _drawn_targets("syntax", lang)
    offsets = target - queries
    assert offsets[toy.TOKENS.index("it")] == +1  # forward at `it`
    assert offsets[toy.TOKENS.index("ate")] == -1  # back at `ate`
    assert len(set(offsets)) >= 3  # no fixed offset, unlike the position head
    assert [toy.TOKENS[j] for j in target] == [toy.SYNTAX_TARGET[t] for t in toy.TOKENS]


def test_lines_heads_are_sure_of_their_picks():
    """what-trained-heads-do: every query's top weight in the three coloured heads is at least
    heads.top_min, and that is the smallest such weight."""
    from figures.numbers import quantities
    tops = np.stack([toy.trace().weights[toy.head_index(h)].max(axis=-1) for h in ("position", "syntax", "rare")])
    assert quantities.value("heads.top_min") == tops.min()


# flops-vs-context ------------------------------------------------------------------------------
def _flops_curves(h, lang="en"):
    """flops-vs-context for the frame h: {name: (n, multiply-adds)} of the three curves and the two dots."""
    from figures.kit.style import HEAD_COLOURS, INK
    (ax,) = _axes("flops-vs-context", h, lang)
    (one,), (many,), (proj,), (dots,) = (_lines_in(ax, c) for c in
                                         ("#BBBBBB", HEAD_COLOURS["syntax"], HEAD_COLOURS["position"], INK))
    return {name: (line.get_xdata(), line.get_ydata()) for name, line in
            (("one head", one), ("h heads", many), ("projections", proj), ("dots", dots))}


@pytest.mark.parametrize("h", flops_vs_context.CONTROL.values)
def test_flops_one_head_and_h_heads_coincide_at_every_context(h):
    c = _flops_curves(h)
    n, one = c["one head"]
    assert list(n) == list(c["h heads"][0]) == list(flops_vs_context.CONTEXTS)
    np.testing.assert_array_equal(c["h heads"][1], one)  # the same curve, not merely close
    # and it is the attention mha_ref counts: Q K^T plus weights @ V, at every n
    d = flops_vs_context.GPT2.d_model
    assert list(one) == [costs.multiply_adds(int(k), d, h).attention for k in n]
    assert not np.allclose(c["projections"][1], one)


@pytest.mark.parametrize("lang", LANGS)
def test_flops_projections_are_one_and_a_half_times_attention_at_gpt2_context(lang):
    m = flops_vs_context.GPT2
    assert (m.d_model, m.heads, m.context) == (768, 12, 1024)  # GPT-2 small, the published source (mha_ref/models.py)
    (at_n, (attention, projections)) = _flops_curves(m.heads, lang)["dots"]
    assert set(at_n) == {m.context}
    assert 2 * projections == 3 * attention  # exactly 1.5
    assert (projections, attention) == (2_415_919_104, 1_610_612_736)


# blend-rows ------------------------------------------------------------------------------------
def _row(head, query):
    return toy.trace().weights[toy.head_index(head)][toy.token_index(query)]


def test_blend_rows_peak_on_different_tokens_at_it():
    assert _row("position", "it").argmax() == toy.token_index("and")
    assert _row("syntax", "it").argmax() == toy.token_index("ran")


# blend-slider ----------------------------------------------------------------------------------
def test_blend_slider_midpoint_is_close_to_no_token():
    from figures.gallery import blend_slider
    assert len(blend_slider.CONTROL.values) >= 11
    mid = blend_slider.CONTROL.start
    assert toy.blend_ratios()[mid] == 0.5  # the page opens on the midpoint
    assert toy.blend_curve("it")[mid].max() <= 0.6


# what-a-head-reads -----------------------------------------------------------------------------
RARITY = 6  # the input number that holds rarity, as the caption, the page and quantities name it


def test_every_head_output_moves_when_any_input_number_moves():
    s = toy.head_sensitivity()
    for grid in s:
        assert grid.shape == (toy.H, toy.D_MODEL)
    # "no cell of either grid is zero": not only inside each head's own slice
    assert (s.attention_path > 0).all() and (s.value_path > 0).all() and (s.total > 0).all()
    # the weights respond most to what each head's W_Q, W_K blocks are built to read
    attn = s.attention_path
    position, syntax, rare = (toy.head_index(h) for h in ("position", "syntax", "rare"))
    assert set(np.argsort(attn[position])[-2:]) == {0, 1}
    assert attn[syntax, 2:6].min() > np.delete(attn[syntax], range(2, 6)).max()
    assert attn[rare].argmax() == RARITY
    assert attn[syntax].max() == attn.max(axis=1).min()  # the surest head moves least


def test_what_a_head_reads_draws_the_computed_grids():
    from figures.gallery import what_a_head_reads
    s = toy.head_sensitivity()
    fig = what_a_head_reads.draw("en", "right")
    drawn = [np.asarray(im.get_array()) for ax in fig.axes for im in ax.get_images()]
    assert len(drawn) == 2
    np.testing.assert_array_equal(drawn[0], s.attention_path)
    np.testing.assert_array_equal(drawn[1], s.value_path)


def _head_output(i, x_q, x_k, x_v):
    """[n, d_k] head i's output, computed from scratch with each of q, k, v fed its own input."""
    from mha_ref import attention
    p, cols = toy.params(), slice(i * toy.D_K, (i + 1) * toy.D_K)
    return attention(x_q @ p.w_q[:, cols] + p.b_q[cols], x_k @ p.w_k[:, cols], x_v @ p.w_v[:, cols])[0]


def _central_difference(i, d, tokens, feeds, eps=1e-5):
    """[n, d_k] d head_i / d x[tokens, d] when the nudge feeds only `feeds` (a subset of "qkv")."""
    x = toy.inputs()
    step = np.zeros_like(x)
    step[tokens, d] = eps

    def out(sign):
        return _head_output(i, *(x + sign * step if f in feeds else x for f in "qkv"))

    return (out(1) - out(-1)) / (2 * eps)


@pytest.mark.parametrize("every_token", [False, True])
def test_head_sensitivity_is_a_real_nudge(every_token):
    """The exact derivatives against central differences through mha_ref.attention, head by head."""
    s = toy.head_sensitivity(every_token=every_token)
    nudges = [list(range(toy.N))] if every_token else [[j] for j in range(toy.N)]
    for grid, feeds in ((s.attention_path, "qk"), (s.value_path, "v"), (s.total, "qkv")):
        expected = np.array([[max(np.abs(_central_difference(i, d, j, feeds)).max() for j in nudges)
                              for d in range(toy.D_MODEL)] for i in range(toy.H)])
        np.testing.assert_allclose(grid, expected, rtol=1e-5, atol=1e-10)


def test_rare_head_weights_read_rarity_only_when_one_token_is_nudged():
    rare = toy.head_index("rare")
    # x6 is the rarity, and it is what the rare head's key block reads
    np.testing.assert_array_equal(toy.inputs()[:, RARITY], toy.rarity())
    assert np.abs(toy.params().w_k[:, rare * toy.D_K:(rare + 1) * toy.D_K]).sum(axis=1).argmax() == RARITY
    one, every = toy.head_sensitivity(), toy.head_sensitivity(every_token=True)
    row = one.attention_path[rare]
    assert row[RARITY] > 5 * np.delete(row, RARITY).max()  # clearly the head's own feature
    assert row[RARITY] > one.value_path[rare, RARITY]  # more than it carries through its values
    assert every.attention_path[rare, RARITY] < row[RARITY] / 5  # the all-at-once nudge hides it
    # why: moving every key alike moves a whole row of scores alike, and the softmax cancels that
    keys_only = _central_difference(rare, RARITY, list(range(toy.N)), "k")
    assert np.abs(keys_only).max() < 1e-9 * row[RARITY]
    # what is left comes through the query: the page's "the little that reaches it through the query"
    np.testing.assert_allclose(every.attention_path[rare, RARITY],
                               np.abs(_central_difference(rare, RARITY, list(range(toy.N)), "q")).max(), rtol=1e-5)


# projection-columns ----------------------------------------------------------------------------
def _framed_columns(ax):
    """[(first, last) output column] inside each coloured frame of one matrix panel, left to right."""
    spans = []
    for frame in ax.patches:
        left, right = frame.get_x(), frame.get_x() + frame.get_width()
        columns = [c for c in range(toy.D_MODEL) if left < c < right]  # imshow centres column c at x = c
        spans.append((columns[0], columns[-1]))
    return sorted(spans)


@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_projection_columns_are_cut_the_same_way(h):
    from figures.gallery import projection_columns
    assert h in projection_columns.CONTROL.values
    x, p = toy.inputs(), toy.params()
    panels = _axes("projection-columns", h)
    assert len(panels) == 3
    cuts = [_framed_columns(ax) for ax in panels]
    assert cuts[0] == cuts[1] == cuts[2] and len(cuts[0]) == h  # the three are cut the same way
    covered = [c for first, last in cuts[0] for c in range(first, last + 1)]
    assert covered == list(range(toy.D_MODEL))  # every output column, each once
    for ax, w in zip(panels, (p.w_q, p.w_k, p.w_v)):
        np.testing.assert_array_equal(ax.images[0].get_array(), w)  # the real matrix is what is drawn
        heads = split_heads(x @ w, h)  # what the heads compute from those columns
        for i, (first, last) in enumerate(cuts[0]):
            np.testing.assert_allclose(heads[i], x @ w[:, first:last + 1], rtol=1e-12, atol=1e-12)


# two-heads-full-strength -----------------------------------------------------------------------
def _drawn_rows(fig_id, query, lang="en"):
    """{head: [n] bar heights} of a figure that stacks one weight row per head, top to bottom;
    each row is told by its head's colour, as the reader tells them."""
    from matplotlib.colors import same_color
    from figures.kit.style import HEAD_COLOURS
    rows = {}
    for ax in _axes(fig_id, query, lang):
        (bars,) = ax.containers
        (head,) = [h for h, c in HEAD_COLOURS.items() if same_color(bars[0].get_facecolor(), c)]
        rows[head] = _heights(bars)
    return rows


@pytest.mark.parametrize("lang", LANGS)
def test_two_heads_answer_at_full_strength_at_once(lang):
    it = toy.token_index("it")
    rows = _drawn_rows("two-heads-full-strength", it, lang)
    assert list(rows) == ["position", "syntax"]
    pos, syn = rows["position"], rows["syntax"]
    np.testing.assert_array_equal(pos, toy.trace().weights[toy.head_index("position")][it])
    np.testing.assert_array_equal(syn, toy.trace().weights[toy.head_index("syntax")][it])
    assert (pos.argmax(), syn.argmax()) == (toy.token_index("and"), toy.token_index("ran"))  # two answers
    assert pos.max() >= 0.9 and syn.max() >= 0.9  # both at full strength, at once
    # the dashed line (the one blended head, for comparison) lies below both peaks, in every row
    dashed = {line.get_ydata()[0] for ax in _axes("two-heads-full-strength", it, lang) for line in ax.lines
              if line.get_linestyle() == "--"}
    assert len(dashed) == 1 and min(pos.max(), syn.max()) > dashed.pop()
    assert toy.D_K == 2


# four-heads ------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", range(toy.N))
def test_four_heads_follow_their_rules_for_every_query(query):
    rows = _drawn_rows("four-heads", query)
    assert list(rows) == list(toy.HEADS)
    assert rows["position"].argmax() == max(query - 1, 0)  # the previous token; the first sees itself
    assert toy.TOKENS[rows["syntax"].argmax()] == toy.SYNTAX_TARGET[toy.TOKENS[query]]
    assert rows["rare"].argmax() == toy.TOKENS.index("cat")
    for head in ("position", "syntax", "rare"):
        assert rows[head].max() >= 0.85
    assert rows["diffuse"].max() < 0.3  # commits to nothing
    for head, row in rows.items():
        np.testing.assert_array_equal(row, toy.trace().weights[toy.head_index(head)][query])


@pytest.mark.parametrize("fig_id", ["blend-rows", "two-heads-full-strength", "four-heads"])
def test_query_figures_open_on_it(fig_id):
    from figures.engine import registry
    assert registry.get(fig_id).CONTROL.start == toy.token_index("it")


# scale-pitfall ---------------------------------------------------------------------------------
def _scale_curves(d_k, lang):
    """The two curves and the two bar rows scale-pitfall draws for the frame d_k."""
    from figures.gallery import scale_pitfall as fig
    curve, bars = _axes("scale-pitfall", d_k, lang)
    (right,), (wrong,) = (
        [line for line in _lines_in(curve, colour) if len(line.get_xdata()) == len(scale.D_KS)]
        for colour in (fig.RIGHT, fig.WRONG))
    return right, wrong, bars.containers


@pytest.mark.parametrize("lang", LANGS)
def test_scale_right_divisor_keeps_the_peak_wrong_one_flattens_it(lang):
    right, wrong, _ = _scale_curves(8, lang)
    assert list(right.get_xdata()) == list(wrong.get_xdata()) == list(scale.D_KS)
    right, wrong = right.get_ydata(), wrong.get_ydata()
    np.testing.assert_allclose(right, right[0], rtol=1e-9)  # unchanged across d_k
    assert all(a < b for a, b in zip(wrong, wrong[1:]))  # falls as d_k shrinks
    assert scale.D_KS[-1] == scale.D_MODEL
    assert wrong[-1] == pytest.approx(right[-1], rel=1e-12)  # the same only when d_k = d_model
    assert all(w < r for w, r in zip(wrong[:-1], right[:-1]))
    assert wrong[0] < right[0] / 2


@pytest.mark.parametrize("d_k", scale.D_KS)
def test_scale_bars_are_the_weights_of_the_frame(d_k):
    right, wrong, (right_bars, wrong_bars) = _scale_curves(d_k, "en")
    np.testing.assert_allclose(_heights(right_bars), scale.weights(d_k, "d_k"), rtol=1e-12)
    np.testing.assert_allclose(_heights(wrong_bars), scale.weights(d_k, "d_model"), rtol=1e-12)
    at = list(scale.D_KS).index(d_k)  # the bars' matching key is this frame's point on each curve
    assert _heights(right_bars)[0] == pytest.approx(right.get_ydata()[at], rel=1e-12)
    assert _heights(wrong_bars)[0] == pytest.approx(wrong.get_ydata()[at], rel=1e-12)


def test_scale_weights_come_from_real_attention():
    from mha_ref import attention
    from mha_ref.example import scale
    q, k = scale.query_and_keys(8)
    scores = k @ q
    assert scores[0] == pytest.approx(scale.STRENGTH * np.sqrt(8))
    np.testing.assert_allclose(scores[1:], 0, atol=1e-12)
    _, w = attention(q[None], k, np.eye(len(k)), scale=1 / np.sqrt(8))
    np.testing.assert_allclose(w[0], scale.weights(8, "d_k"))


def test_spread_of_q_dot_k_grows_like_sqrt_d_k():
    """The premise of mha_ref.scale, measured by it: q.k of unit-variance components spreads
    like sqrt(d_k) (20,000 samples: the statistical error is about 1%)."""
    for d_k in scale.D_KS:
        assert scale.dot_spread(d_k) == pytest.approx(np.sqrt(d_k), rel=0.03), d_k


@pytest.mark.parametrize("d_k", scale.D_KS)
def test_matching_key_stands_out_by_strength_spreads_at_every_width(d_k):
    q, k = scale.query_and_keys(d_k)
    scores = k @ q  # [N_KEYS] raw q.k
    margin = scores[0] - scores[1:]  # over each other key
    np.testing.assert_allclose(margin, scale.STRENGTH * np.sqrt(d_k), rtol=1e-12)
    # in the unit the caption uses, the measured spread of q.k: STRENGTH at every width
    assert margin.min() / scale.dot_spread(d_k) == pytest.approx(scale.STRENGTH, rel=0.03)


@pytest.mark.parametrize("d_k", scale.D_KS)
def test_softmax_margin_is_strength_with_sqrt_d_k_and_shrinks_with_sqrt_d_model(d_k):
    """The margin the softmax saw, read back from the weights it returned: log(w_match / w_other)."""
    for divisor, width in (("d_k", d_k), ("d_model", scale.D_MODEL)):
        w = scale.weights(d_k, divisor)
        np.testing.assert_allclose(np.log(w[0] / w[1:]), scale.STRENGTH * np.sqrt(d_k / width), rtol=1e-9)


def test_scale_refuses_a_width_that_does_not_divide():
    from mha_ref.example import scale
    with pytest.raises(ValueError, match="d_k=3"):
        scale.peak(3, "d_k")
    with pytest.raises(ValueError, match="divisor"):
        scale.weights(8, "d_x")


# position-vs-rare-rows -------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_position_peak_moves_with_the_query_rare_peak_stays_on_cat(lang):
    tops = {q: {head: row.argmax() for head, row in _drawn_rows("position-vs-rare-rows", q, lang).items()}
            for q in range(toy.N)}
    assert all(list(top) == ["position", "rare"] for top in tops.values())  # position on top
    assert [tops[q]["position"] for q in range(toy.N)] == [max(q - 1, 0) for q in range(toy.N)]
    assert {tops[q]["rare"] for q in range(toy.N)} == {toy.TOKENS.index("cat")}


# syntax-walk -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_syntax_walk_goes_forward_at_it_and_back_at_ate(lang):
    from matplotlib.colors import same_color
    from figures.kit.style import HEAD_COLOURS
    for query in range(toy.N):
        (ax,) = _axes("syntax-walk", query, lang)
        # ((from, to), drawn in the head's colour); above or below the words: test_figures_render.py
        arcs = [((a[0], b[0]), same_color(arc.get_edgecolor()[:3], HEAD_COLOURS["syntax"]))
                for arc in ax.patches for a, b in [arc._posA_posB]]
        assert sorted(int(start) for (start, _), _ in arcs) == list(range(toy.N))  # one arc per word
        for (start, end), _ in arcs:  # each to the word it attaches to
            assert toy.TOKENS[int(end)] == toy.SYNTAX_TARGET[toy.TOKENS[int(start)]]
        (bold,) = [ends for ends, strong in arcs if strong]
        assert bold[0] == query  # the chosen query's arc is the one in colour
        step = {toy.TOKENS[int(start)]: end - start for (start, end), _ in arcs}
        assert step["it"] == +1 and step["ate"] == -1  # forward at `it`, back at `ate`


# head-ablation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_ablation_diffuse_costs_almost_nothing_specialised_heads_a_lot(lang):
    (ax,) = _axes("head-ablation", None, lang)
    (bars,) = ax.containers
    cost = dict(zip(toy.HEADS, _heights(bars)))  # one bar per head, in the heads' order
    np.testing.assert_array_equal(list(cost.values()), toy.ablation())
    assert cost["diffuse"] < 0.05
    for head in ("position", "syntax", "rare"):
        assert cost[head] > 0.2 and cost[head] > 10 * cost["diffuse"]
    # the number printed over each bar is that bar's height
    printed = sorted((t.get_position()[0], float(t.get_text())) for t in ax.texts)
    assert [x for x, _ in printed] == list(range(toy.H))
    np.testing.assert_allclose([v for _, v in printed], list(cost.values()), atol=5e-4)


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


# pruning-evidence / heads-vs-bleu: published numbers equal the published source (mha_ref/models.py) ----------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_pruning_numbers_equal_facts(lang):
    """the published source (mha_ref/models.py): 6 layers x 8 = 48 encoder heads; WMT EN-RU 10 kept for -0.15 BLEU;
    OpenSubtitles 4 kept for -0.25 BLEU. Read off the bars and their labels."""
    (ax,) = _axes("pruning-evidence", None, lang)
    rows = {}
    for bars in ax.containers:
        (bar,) = bars
        rows.setdefault(round(bar.get_y() + bar.get_height() / 2), []).append(bar.get_width())
    assert rows == {0: [48, 10], 1: [48, 4]}  # all heads, then the heads kept
    labels = sorted((t.get_position()[1], t.get_text()) for t in ax.texts)
    assert "0.15" in labels[0][1] and "0.25" in labels[1][1]


@pytest.mark.parametrize("lang", LANGS)
def test_one_head_is_point_nine_bleu_behind_the_best(lang):
    """the published source (mha_ref/models.py), Vaswani et al. Table 3 (A), h = 1, 4, 8, 16, 32: what heads-vs-bleu plots."""
    from figures.numbers import quantities
    bleu, ppl = (ax.lines[0].get_ydata() for ax in _axes("heads-vs-bleu", None, lang))
    assert list(bleu) == [24.9, 25.5, 25.8, 25.8, 25.4]
    assert list(ppl) == [5.29, 5.00, 4.92, 4.91, 5.01]
    assert max(bleu) - bleu[0] == pytest.approx(0.9, abs=1e-9)  # one head: 0.9 behind the best
    assert bleu[-1] < max(bleu)  # and too many heads fall off again (the caption)
    assert quantities.value("bleu.gap") == pytest.approx(max(bleu) - bleu[0], abs=1e-12)


# concat-slots ----------------------------------------------------------------------------------
def _filled_slots(placed, lang="en"):
    """{slot: printed number} of concat-slots with `placed` heads in (numbers sit mid-slot, y = 0.5)."""
    (ax,) = _axes("concat-slots", placed, lang)
    return {int(t.get_position()[0]): float(t.get_text()) for t in ax.texts if t.get_position()[1] == 0.5}


@pytest.mark.parametrize("placed", range(1, toy.H + 1))
def test_placing_a_head_never_changes_filled_slots(placed):
    t = toy.trace()
    partial = np.concatenate(list(t.heads[:placed]), axis=-1)  # [n, placed * d_k]
    np.testing.assert_array_equal(partial, t.concat[:, :placed * toy.D_K])
    assert t.concat.shape[-1] == toy.D_MODEL
    # what the frame shows: the first placed * d_k slots, each the placed head's own output number
    from figures.gallery import concat_slots
    drawn = _filled_slots(placed)
    assert sorted(drawn) == list(range(placed * toy.D_K))
    query = toy.token_index(concat_slots.QUERY)
    for slot, number in drawn.items():
        assert number == pytest.approx(t.heads[slot // toy.D_K][query, slot % toy.D_K], abs=5e-3)
    if placed > 1:  # the slots the previous frame had filled are shown unchanged
        before = _filled_slots(placed - 1)
        assert {slot: drawn[slot] for slot in before} == before


# head-outputs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("query", range(toy.N))
def test_each_pair_is_that_heads_weights_times_its_values(query):
    from matplotlib.colors import same_color
    from figures.kit.style import HEAD_COLOURS
    (ax,) = _axes("head-outputs", query)
    (bars,) = ax.containers
    drawn = _heights(bars)  # [d_model] the concatenated outputs of this query
    t = toy.trace()
    for i, head in enumerate(toy.HEADS):
        pair = slice(i * toy.D_K, (i + 1) * toy.D_K)
        np.testing.assert_allclose(drawn[pair], t.weights[i][query] @ t.v[i], rtol=1e-12, atol=1e-15)
        assert all(same_color(bar.get_facecolor(), HEAD_COLOURS[head]) for bar in bars[pair])


# wo-mixing -------------------------------------------------------------------------------------
def _stacked_contributions(mix, lang="en"):
    """wo-mixing for one mixing strength: ({head: [2] drawn bar heights}, [2] the drawn totals)."""
    from matplotlib.colors import same_color
    from figures.kit.style import HEAD_COLOURS, INK
    (ax,) = _axes("wo-mixing", mix, lang)
    parts = {}
    for bars in ax.containers:
        (head,) = [h for h, c in HEAD_COLOURS.items() if same_color(bars[0].get_facecolor(), c)]
        parts[head] = _heights(bars)
    (totals,) = [line for line in _lines_in(ax, INK) if line.get_marker() == "D"]  # not the zero line
    return parts, totals.get_ydata()


@pytest.mark.parametrize("lang", LANGS)
def test_block_diagonal_w_o_keeps_heads_apart_mixing_brings_all_four(lang):
    from figures.gallery import wo_mixing
    it = toy.token_index("it")
    assert wo_mixing.CONTROL.values[0] == 0.0
    for mix in wo_mixing.CONTROL.values:
        parts, totals = _stacked_contributions(mix, lang)
        assert list(parts) == list(toy.HEADS)
        if mix == 0:  # block-diagonal W_O: the position head's slots hold the position head alone
            assert np.abs(parts["position"]).sum() > 0
            assert all(np.all(parts[h] == 0) for h in toy.HEADS[1:])
        else:
            assert all(np.abs(parts[h]).sum() > 1e-3 for h in toy.HEADS)  # every head reaches them
        # the stack adds up to the block's real output in those slots
        np.testing.assert_allclose(sum(parts.values()), toy.trace(mix).out[it, :toy.D_K], rtol=1e-12)
        np.testing.assert_allclose(totals, toy.trace(mix).out[it, :toy.D_K], rtol=1e-12)


# four-matrices ---------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_four_matrices_share_one_shape(lang):
    p = toy.params()
    drawn = [ax.images[0].get_array() for ax in _axes("four-matrices", None, lang)]
    assert len(drawn) == 4
    for image, w in zip(drawn, (p.w_q, p.w_k, p.w_v, p.w_o)):
        np.testing.assert_array_equal(image, w)  # the real matrices, all four
    assert {image.shape for image in drawn} == {(toy.D_MODEL, toy.D_MODEL)}


# params-vs-h -----------------------------------------------------------------------------------
@pytest.mark.parametrize("h", [1, 12, 96])
def test_params_are_exactly_4d2_plus_4d_for_every_h(h):
    from figures.gallery import params_vs_h
    d = params_vs_h.D
    (ax,) = _axes("params-vs-h", h)
    full, *blocks = ax.containers  # the bar of every h, then the chosen h's stack, bottom to top
    assert list(_heights(full)) == [4 * d * d + 4 * d] * len(params_vs_h.HS) == [2_362_368] * len(params_vs_h.HS)
    heads, w_o = blocks[:-1], blocks[-1]
    assert len(heads) == h
    d_k = d // h
    assert {b[0].get_height() for b in heads} == {3 * (d * d_k + d_k)}  # one head's W_Q, W_K, W_V and biases
    assert w_o[0].get_height() == d * d + d  # W_O and its bias
    assert h * heads[0][0].get_height() + w_o[0].get_height() == full[params_vs_h.HS.index(h)].get_height()


# dk-expressiveness -----------------------------------------------------------------------------
def _winners(keys) -> set[int]:
    from mha_ref.example import expressiveness as ex
    return {int(j) for j in np.flatnonzero(ex.can_be_top(keys))}


def test_a_width_one_head_can_point_only_two_ways():
    """At d_k = 1 exactly the largest and the smallest key can win, for every draw of keys tried."""
    from mha_ref.example import expressiveness as ex
    assert ex.head_widths()[0] == 1 and ex.reachable_top_keys(1) == 2
    for seed in range(20):
        rng = np.random.default_rng(seed)
        keys = rng.normal(size=(int(rng.integers(2, 40)), 1))
        assert _winners(keys) == {int(keys.argmax()), int(keys.argmin())}


def test_width_one_argument_by_hand():
    """With d_k = 1 the top key is the largest key for q > 0 and the smallest for q < 0: the
    query the project finds for each winner has that sign, and no query makes a middle key win."""
    from mha_ref.example import expressiveness as ex
    keys = ex.head_keys(1)  # [N_KEYS, 1]
    assert ex.key_margin(keys, int(keys.argmax())).query[0] > 0
    assert ex.key_margin(keys, int(keys.argmin())).query[0] < 0
    middle = [j for j in range(ex.N_KEYS) if j not in (keys.argmax(), keys.argmin())]
    assert all(ex.key_margin(keys, j).margin <= ex.MARGIN_TOL for j in middle)


@pytest.mark.parametrize("d_k", [2, 3])
def test_keys_that_can_win_are_the_convex_hull_vertices(d_k):
    """An independent check where one exists: qhull's vertices, on the figure's keys and on others."""
    from scipy.spatial import ConvexHull
    from mha_ref.example import expressiveness as ex
    cases = [ex.head_keys(d_k)] + [np.random.default_rng(s).normal(size=(n, d_k))
                                   for s, n in enumerate((6, 16, 40, 100))]
    for keys in cases:
        assert _winners(keys) == {int(v) for v in ConvexHull(keys).vertices}


def test_each_counted_key_wins_for_the_query_found_and_wider_heads_keep_it():
    """For every width the figure draws: the witness query puts its key strictly first (checked
    here in numpy), the other keys have no positive margin, and a key that can win at one width
    can win at every wider one (the reason the page gives)."""
    from mha_ref.example import expressiveness as ex
    before = set()
    for d_k in ex.head_widths():
        keys = ex.head_keys(d_k)
        won = set()
        for j in range(ex.N_KEYS):
            found = ex.key_margin(keys, j)
            if found.margin > ex.MARGIN_TOL:
                scores = keys @ found.query  # [N_KEYS]
                assert scores[j] - np.delete(scores, j).max() == pytest.approx(found.margin, abs=1e-12)
                won.add(j)
            else:
                assert found.margin <= ex.MARGIN_TOL
        assert len(won) == ex.reachable_top_keys(d_k)
        assert before <= won
        before = won
    assert len(before) == ex.N_KEYS and ex.reachable_top_keys(ex.narrowest_reaching_all()) == ex.N_KEYS


def test_exact_count_finds_keys_that_random_queries_miss():
    """A key whose winning queries form a sliver is counted; 20,000 random queries miss it."""
    from mha_ref.example import expressiveness as ex
    eps = 1e-6  # how far the fifth key pokes out past the edge between (1, 0) and (0, 1)
    keys = np.array([[1, 0], [0, 1], [-1, 0], [0, -1], [0.5 + eps, 0.5 + eps]])
    queries = np.random.default_rng(0).normal(size=(20000, 2))
    sampled = {int(j) for j in np.unique((queries @ keys.T).argmax(axis=1))}
    assert sampled == {0, 1, 2, 3}
    assert _winners(keys) == {0, 1, 2, 3, 4}
    sliver = ex.key_margin(keys, 4)
    assert 0 < sliver.margin < 1e-5 and (keys @ sliver.query).argmax() == 4
    # on the figure's own keys, sampling can only find a subset of the exact answer
    for d_k in ex.head_widths():
        keys = ex.head_keys(d_k)
        queries = np.random.default_rng(0).normal(size=(20000, d_k))
        assert set(np.unique((queries @ keys.T).argmax(axis=1))) <= _winners(keys)


def test_identical_keys_cannot_be_strictly_first():
    from mha_ref.example import expressiveness as ex
    keys = ex.head_keys(2)
    winners = _winners(keys)
    j = min(winners)
    doubled = np.vstack([keys, keys[j]])  # key N_KEYS is a copy of key j
    assert _winners(doubled) == winners - {j}


@pytest.mark.parametrize("lang", LANGS)
def test_dk_expressiveness_bars_are_the_exact_counts(lang):
    from figures.gallery import dk_expressiveness as fig
    from mha_ref.example import expressiveness as ex
    exact = [ex.reachable_top_keys(d) for d in ex.head_widths()]
    for h in fig.CONTROL.values:
        (ax,) = _axes("dk-expressiveness", h, lang)
        assert list(_heights(ax.containers[0])) == exact


# published-models ------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_published_head_width_stays_in_64_to_128_while_h_spans_8_to_96(lang):
    from mha_ref import models
    (ax,) = _axes("published-models", None, lang)
    drawn = sorted(tuple(xy) for c in ax.collections for xy in c.get_offsets())  # [(h, d_k)] every point
    assert drawn == sorted((m.heads, m.d_model // m.heads) for m in models.PUBLISHED_MODELS)
    hs, dks = [h for h, _ in drawn], [d_k for _, d_k in drawn]
    assert (min(hs), max(hs)) == (8, 96)
    assert (min(dks), max(dks)) == (64, 128)


# flow-diagram ----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_flow_shapes_are_computed_from_the_config(lang):
    from mha_ref.flow import flow_shapes
    from mha_ref import models
    base = models.model("Transformer base")  # the published source (mha_ref/models.py): d_model 512, 8 heads of 64
    s = flow_shapes()
    assert (s.h, s.d_k) == (base.heads, base.d_head) == (8, 64)
    assert (s.x, s.q_i, s.head_i, s.concat, s.w_o, s.out) == \
        ("n × 512", "n × 64", "n × 64", "n × 512", "512 × 512", "n × 512")
    other = flow_shapes(d_model=24, h=3, n=5)
    assert (other.q_i, other.concat) == ("n × 8", "n × 24")
    # the figure prints those shapes: each box's last line
    (ax,) = _axes("flow-diagram", None, lang)
    printed = [t.get_text().splitlines()[-1] for t in ax.texts if "×" in t.get_text()]
    assert printed.count("n × 512") == 3  # input, concatenation, output
    assert printed.count("512 × 512") == 1  # W_O
    assert sum(line.endswith("n × 64") for line in printed) == 2 * 3  # Q_i, K_i, V_i and head i, 3 heads drawn


def test_voita_role_numbers_equal_facts():
    from mha_ref import models
    r = models.VOITA_ROLES
    assert (r["positional_pct"], r["rarest_pct"], r["two_rarest_pct"], r["all_roles_heads"]) == (90, 66, 83, 17)
    assert r["source"] in models.REFERENCES


# seed-roles ----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("trained_lm")
@pytest.mark.parametrize("lang", LANGS)
def test_seed_roles_legend_names_every_kind_of_line_its_curves_draw(lang):
    """Every line style of the pruning panels (the importance order, the random orders' dashed median)
    has a legend entry of the same colour and style, and so has the band."""
    from matplotlib.colors import same_color
    from matplotlib.collections import PolyCollection
    from figures.gallery import seed_roles
    fig = seed_roles.draw(lang)
    plt.close(fig)
    legend = next(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)
    handles = legend.legend_handles
    curves = [ax for ax in fig.axes if ax.collections and any(isinstance(c, PolyCollection) for c in ax.collections)]
    assert len(curves) == 5
    for ax in curves:
        for line in ax.lines:
            assert any(getattr(h, "get_linestyle", lambda: None)() == line.get_linestyle()
                       and same_color(h.get_color(), line.get_color()) for h in handles if hasattr(h, "get_xdata")), \
                (line.get_linestyle(), line.get_color())
    assert any(same_color(h.get_facecolor(), seed_roles.BAND) for h in handles if not hasattr(h, "get_xdata"))


@pytest.mark.usefixtures("trained_lm")
@pytest.mark.parametrize("lang", LANGS)
def test_seed_roles_table_gives_every_syntactic_pass_its_arcs_to_spare(lang):
    """The table under seed-roles names each pass (a head on one relation in one direction) with the
    hits it could lose and still pass, and marks those within NEAR_SE standard errors of the bar."""
    import re
    from figures.numbers import quantities
    from figures.keep import tiny_lm
    from mha_ref.tiny import lm_findings, voita
    from figures.gallery import seed_roles
    head, rows = seed_roles.data(lang)
    column = head.index("句法检验的富余" if lang == "zh" else "syntactic passes, margin")
    number = r"富余 (\d+) 条弧" if lang == "zh" else r"(\d+) arcs to spare"
    shown = {(r[0], r[2]): [int(n) for n in re.findall(number, r[column])] for r in rows}
    for s in tiny_lm.all_seeds():
        for v in s.heads:
            scores = [v.measures.relation_hits[k] for k in v.syntactic]
            assert shown[(str(s.seed), v.name)] == [lm_findings.spare_arcs(a) for a in scores]
            for a in scores:  # a pass has arcs to spare, and losing one more hit than that fails it
                assert voita.syntactic_on(a._replace(hits=a.hits - lm_findings.spare_arcs(a)))
                assert not voita.syntactic_on(a._replace(hits=a.hits - lm_findings.spare_arcs(a) - 1))
    near = "接近门槛" if lang == "zh" else "near the bar"
    assert sum(r[column].count(near) for r in rows) == quantities.value("lm.syntactic.near")


# trained-maps --------------------------------------------------------------------------------------
@pytest.mark.usefixtures("trained_lm")
def test_trained_maps_draw_each_seeds_named_heads_on_the_chosen_sentence():
    """Each frame draws, on the held-out sentence the module chooses, the weights of the seed's heads
    the caption names: the best previous- and next-word heads (whose dark cells run just under and
    just over the diagonal), a relation head passing in every seed that has a syntactic head, and the
    best repeat head, its arcs outlined where the caption says."""
    from figures.numbers import quantities
    from figures.keep import tiny_lm
    from mha_ref.tiny import language, lm, lm_heads, lm_train
    from figures.gallery import trained_maps as tm
    s = tm.sentence()
    assert len(s.tokens) - 1 <= tm.MOST_WORDS and any(a.relation == "repeat" for a in s.arcs)
    assert any(h is s for h in lm_train.held_out())
    keep = s.tokens != language.EOS
    passing = 0
    for seed in lm_train.SEEDS:
        fig = tm.draw("en", seed)
        plt.close(fig)
        heads = tiny_lm.seed_heads(seed)
        maps = lm.attention_maps(tiny_lm.trained(seed).model, s)
        for ax, (kind, title, v, outlined) in zip(fig.axes, tm.panels(seed, "en")):
            drawn = ax.images[0].get_array()
            assert np.array_equal(drawn, maps[v.measures.layer, v.measures.head][np.ix_(keep, keep)].astype(float))
            assert title.startswith(v.name)
            boxes = sorted((int(p.get_y() + 0.5), int(p.get_x() + 0.5)) for p in ax.patches if p.get_label() == "outline")
            assert boxes == sorted(outlined)
            if kind in ("relation", "repeat"):  # the arcs, read from the query end: (dependent, head) for dep->head
                _, key, _ = tm.relation_head(heads) if kind == "relation" else tm.repeat_head(heads)
                relation, direction = key.split(":")
                ends = [(a.dependent, a.head) for a in s.arcs if a.relation == relation and a.head >= 0]
                assert boxes == sorted(e if direction == "dep->head" else e[::-1] for e in ends), (seed, kind)
                assert boxes and f"{relation if kind == 'relation' else 'repeat'} (" in title
            if kind in ("previous", "next"):
                offset = -1 if kind == "previous" else 1
                assert v is lm_heads.best_at(heads, offset)
                rows = range(1, len(drawn)) if offset < 0 else range(len(drawn) - 1)
                assert np.mean([drawn[q].argmax() == q + offset for q in rows]) >= 0.75, (seed, kind)
        passing += tm.relation_head(heads)[2]
    assert passing == quantities.value("lm.seeds.syntactic")  # "passes a relation of this sentence in ... seeds"
