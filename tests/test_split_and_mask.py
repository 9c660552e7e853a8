"""The claims of the-code's two teaching figures, asserted on mha_ref and on what the figures draw:
reshape-pitfall (splitting heads without the transpose) and causal-mask (the running example
under a causal mask)."""

import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from figures.engine import registry
from mha_ref import merge_heads, mha_trace, split_heads
from mha_ref.example import causal, reshape, toy
from mha_ref import models
from figures.numbers import quantities
from mha_ref.example.reshape import split_heads_without_transpose

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("zh", "en")
SIZES = [(n, d_model, h) for n in (1, 3, 6, 7) for d_model in (4, 8, 12) for h in (1, 2, 4)
         if d_model % h == 0]


def _drawn(fig_id, value, lang="en"):
    fig = registry.get(fig_id).draw(lang, value)
    plt.close(fig)
    return fig


# split_heads, with and without the transpose -----------------------------------------------------
@pytest.mark.parametrize("n, d_model, h", SIZES)
def test_the_right_split_is_the_per_head_column_slices(n, d_model, h):
    d_k = d_model // h
    x = np.random.default_rng(n * d_model + h).normal(size=(2, n, d_model))  # a batch axis in front
    s = split_heads(x, h)
    assert s.shape == (2, h, n, d_k)
    for i in range(h):
        np.testing.assert_array_equal(s[:, i], x[..., i * d_k:(i + 1) * d_k])
    np.testing.assert_array_equal(merge_heads(s), x)


@pytest.mark.parametrize("n, d_model, h", SIZES)
def test_the_split_without_transpose_has_the_right_shape_and_other_contents(n, d_model, h):
    x = np.random.default_rng(n * d_model + h).normal(size=(n, d_model))
    wrong, right = split_heads_without_transpose(x, h), split_heads(x, h)
    assert wrong.shape == right.shape == (h, n, d_model // h)
    # the same numbers, dealt out in memory order: head 0 takes the first n * d_k of the run
    np.testing.assert_array_equal(np.sort(wrong.ravel()), np.sort(right.ravel()))
    np.testing.assert_array_equal(wrong.reshape(h, -1)[0], x.ravel()[:n * (d_model // h)])
    # they agree only where nothing is there to mix: one head, or one token
    assert np.array_equal(wrong, right) == (h == 1 or n == 1)


def test_the_examples_queries_split_both_ways():
    q = toy.inputs() @ toy.params().w_q + toy.params().b_q
    right, wrong = split_heads(q, toy.H), split_heads_without_transpose(q, toy.H)
    assert right.shape == wrong.shape == (toy.H, toy.N, toy.D_K)
    assert not np.array_equal(right, wrong)
    np.testing.assert_array_equal(right, toy.trace().q)  # the trace's q is the right split


def test_provenance_is_where_each_number_came_from():
    x = toy.inputs()
    for split in (split_heads, split_heads_without_transpose):
        token, column = reshape.provenance(split)
        np.testing.assert_array_equal(x[token, column], split(x, toy.H))


def test_each_head_gets_all_tokens_in_its_own_columns_only_with_the_transpose():
    token, column = reshape.provenance(split_heads)
    for i in range(toy.H):
        assert set(token[i].ravel()) == set(range(toy.N))
        assert set(column[i].ravel() // toy.D_K) == {i}
    token, column = reshape.provenance(split_heads_without_transpose)
    counts = [len(np.unique(token[i])) for i in range(toy.H)]
    assert counts == [quantities.value("reshape.tokens_per_head")] * toy.H  # caption: "of just 2 tokens"
    assert all(len(set(column[i].ravel() // toy.D_K)) > 1 for i in range(toy.H))  # other heads' columns
    # a row of a block never spans two tokens (the figure labels each row with one token)
    assert (token == token[..., :1]).all()
    # the page: the first head's rows are every piece of `the`, then the first pieces of `cat`
    the, cat = toy.token_index("the"), toy.token_index("cat")
    pieces = toy.D_MODEL // toy.D_K
    assert list(token[0, :, 0]) == [the] * pieces + [cat] * (toy.N - pieces)
    assert list(column[0, :pieces].ravel()) == list(range(toy.D_MODEL))
    assert list(column[0, pieces:].ravel()) == list(range((toy.N - pieces) * toy.D_K))


def test_the_weights_of_the_two_splits_differ_and_the_right_ones_are_the_traces():
    right, wrong = reshape.weights(split_heads), reshape.weights(split_heads_without_transpose)
    np.testing.assert_allclose(right, toy.trace().weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(wrong.sum(axis=-1), 1.0, rtol=0, atol=1e-12)  # still rows that sum to one
    change = np.abs(right - wrong).max()
    assert reshape.largest_weight_change() == quantities.value("reshape.largest_change") == change
    assert change > 0.99  # the caption: "by more than 0.99"
    assert (np.abs(right - wrong).max(axis=(1, 2)) > 0.5).all()  # every head changes, not one


# the reshape-pitfall figure draws those numbers -------------------------------------------------
def _grid_texts(fig):
    """The token names written in q's grid and in the blocks panel, in drawing order (row by row;
    head, row, column): the two panels without an image, added in that order."""
    source, blocks = [ax for ax in fig.axes if not ax.images]
    return ([t.get_text() for t in ax.texts if t.get_text() in toy.TOKENS] for ax in (source, blocks))


@pytest.mark.parametrize("how", ["reshape-only", "transpose"])
@pytest.mark.parametrize("lang", LANGS)
def test_reshape_pitfall_draws_the_provenance_and_the_weights(how, lang):
    from figures.gallery import reshape_pitfall as mod
    split = mod.SPLITS[how]
    fig = _drawn("reshape-pitfall", how, lang)
    token, _ = reshape.provenance(split)
    source, blocks = _grid_texts(fig)
    assert source == [t for t in toy.TOKENS for _ in range(toy.D_MODEL)]
    assert blocks == [toy.TOKENS[t] for t in token.ravel()]
    # each cell's colour: the head whose columns the number sat in
    from matplotlib.colors import to_rgb
    from figures.kit.style import SLICE_COLOURS
    _, blocks_ax = [ax for ax in fig.axes if not ax.images]
    _, column = reshape.provenance(split)
    assert [to_rgb(p.get_facecolor()) for p in blocks_ax.patches] == [
        to_rgb(SLICE_COLOURS[c // toy.D_K]) for c in column.ravel()]
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert len(images) == toy.H
    for i, img in enumerate(images):
        np.testing.assert_array_equal(img, reshape.weights(split)[i])
    assert mod.CONTROL.start == "reshape-only" and mod.SPLITS["transpose"] is split_heads


def test_the_code_page_shows_split_heads_with_a_shape_comment_on_every_line():
    source = (ROOT / "mha_ref/attention.py").read_text(encoding="utf-8")
    snippet = source.split("# --8<-- [start:split]\n")[1].split("# --8<-- [end:split]")[0]
    assert "def split_heads(" in snippet and "def merge_heads(" in snippet
    body = [line for line in snippet.splitlines()
            if line.strip() and not line.startswith("def ") and not line.strip().startswith('"""')]
    assert len(body) == 8 and sum("checks." in line for line in body) == 2  # each: its input checked, then 3 lines
    for line in body:
        assert re.search(r"# .*\[[^\]]*\]", line), line  # a comment naming a shape: [..., n, d_model]
    for lang in LANGS:
        page = (ROOT / f"docs/the-code.{lang}.md").read_text(encoding="utf-8")
        assert '--8<-- "mha_ref/attention.py:split"' in page


# the causal mask --------------------------------------------------------------------------------
def test_the_causal_mask_allows_each_key_up_to_the_query():
    for n in (1, 2, 6, 9):
        m = causal.causal_mask(n)
        assert m.dtype == bool and m.shape == (n, n)
        i, j = np.indices((n, n))
        np.testing.assert_array_equal(m, j <= i)


def test_masked_weights_are_exactly_zero_above_the_diagonal_and_rows_sum_to_one():
    w = causal.trace().weights  # [h, n, n]
    above = np.triu(np.ones((toy.N, toy.N), bool), k=1)
    assert (w[:, above] == 0.0).all()  # exactly: exp(-inf) is 0
    assert (w[:, ~above] > 0.0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    # the scores are computed in full, then the masked ones set to -inf (the page says so)
    s = causal.trace().scores
    assert np.isneginf(s[:, above]).all() and np.isfinite(s[:, ~above]).all()
    np.testing.assert_array_equal(s[:, ~above], toy.trace().scores[:, ~above])


def test_the_mask_is_the_same_whichever_way_the_heads_are_run():
    from mha_ref import multi_head_attention_loop
    _, loop = multi_head_attention_loop(toy.inputs(), toy.params(), toy.H, mask=causal.causal_mask(toy.N))
    np.testing.assert_allclose(loop, causal.trace().weights, rtol=0, atol=1e-14)


def test_it_to_ran_is_impossible_because_ran_comes_later():
    it, ran = toy.token_index("it"), toy.token_index("ran")
    assert ran > it and toy.SYNTAX_TARGET["it"] == "ran"
    assert causal.weight("syntax", "it", "ran") == 0.0
    assert causal.weight("syntax", "it", "ran", masked=False) == quantities.value("heads.syntax_it_ran") > 0.99


def test_the_queries_that_lose_their_syntax_target_are_those_whose_target_comes_later():
    assert causal.hidden_targets() == ("the", "cat", "and", "it")
    syn = toy.head_index("syntax")
    for q, t in enumerate(toy.TOKENS):
        target = toy.token_index(toy.SYNTAX_TARGET[t])
        if t in causal.hidden_targets():
            assert causal.trace().weights[syn, q, target] == 0.0
        else:  # ate and ran: the target is behind them, and the mask barely touches the row
            assert causal.top_keys("syntax")[q] == toy.SYNTAX_TARGET[t]
            assert np.abs(causal.trace().weights[syn, q] - toy.trace().weights[syn, q]).max() < 0.01


def test_what_the_syntax_head_falls_back_to_is_what_mha_ref_computes():
    """The page's account of each query, against a fresh masked forward pass."""
    m = causal.causal_mask(toy.N)
    fresh = mha_trace(toy.inputs(), toy.params(), toy.H, mask=m).weights[toy.head_index("syntax")]
    tops = tuple(toy.TOKENS[j] for j in fresh.argmax(axis=-1))
    assert tops == causal.top_keys("syntax") == ("the", "the", "cat", "and", "it", "ate")
    it, cat, and_ = (toy.token_index(t) for t in ("it", "cat", "and"))
    # it: spread over the, and and itself, the largest share small
    row = fresh[it]
    shares = {t: row[toy.token_index(t)] for t in ("the", "and", "it")}
    assert sum(shares.values()) > 0.99 and max(row) < 0.5
    assert {k: quantities.value(f"causal.syntax_it_{k}") for k in shares} == shares
    assert quantities.value("causal.syntax_it_top") == row.max() == shares["it"]
    # cat -> nearly all on the; and -> its largest weight on itself
    assert quantities.value("causal.syntax_cat_the") == fresh[cat, toy.token_index("the")] > 0.99
    assert quantities.value("causal.syntax_and_and") == fresh[and_, and_] == fresh[and_].max()


def test_why_it_falls_back_to_the_and_and_itself():
    """The page: no word attaches to the, and or it, so their syntax keys are near zero and so are
    their scores; the keys of cat and ate point elsewhere and score below zero."""
    x, syn, it = toy.inputs(), toy.head_index("syntax"), toy.token_index("it")
    scores = toy.trace().scores[syn, it]
    for t in ("the", "and", "it"):
        assert t not in toy.ROLE_ANGLE and not x[toy.token_index(t), 2:4].any()
        assert abs(scores[toy.token_index(t)]) < 1.0
    for t in ("cat", "ate"):
        assert scores[toy.token_index(t)] < -4.0


def test_the_first_token_gives_itself_the_whole_weight_in_every_head():
    np.testing.assert_array_equal(causal.trace().weights[:, 0], np.eye(toy.N)[np.zeros(toy.H, int)])


def test_the_position_head_barely_moves_and_the_diffuse_head_looks_more_focused_early():
    assert causal.largest_change("position") == quantities.value("causal.position_change") <= 0.001
    peaks = causal.trace().weights[toy.head_index("diffuse")].max(axis=-1)  # by query, in order
    assert (np.diff(peaks) < 0).all()


def test_causal_gpt2_keeps_just_over_half_of_each_weight_table():
    n = models.model("GPT-2 small").context
    allowed = quantities.value("gpt2.causal_allowed")
    assert allowed == n * (n + 1) // 2 == causal.causal_mask(n).sum()
    assert quantities.value("gpt2.weights_one_head") == n * n
    assert 0.5 < allowed / (n * n) < 0.51


# the causal-mask figure draws those numbers ----------------------------------------------------
@pytest.mark.parametrize("query", range(toy.N))
@pytest.mark.parametrize("lang", LANGS)
def test_causal_mask_draws_each_heads_row_with_and_without_the_mask(query, lang):
    fig = _drawn("causal-mask", query, lang)
    assert len(fig.axes) == toy.H
    for ax, head in zip(fig.axes, toy.HEADS):
        i = toy.head_index(head)
        free, masked = ax.containers  # outlined bars first, filled second
        np.testing.assert_array_equal([b.get_height() for b in free], toy.trace().weights[i, query])
        np.testing.assert_array_equal([b.get_height() for b in masked], causal.trace().weights[i, query])
        spans = [p for p in ax.patches if p.get_hatch()]  # the masked keys' shading
        if query == toy.N - 1:
            assert spans == []
        else:
            (span,) = spans
            x0, x1 = span.get_x(), span.get_x() + span.get_width()
            assert (x0, x1) == (query + 0.5, toy.N - 0.5)


def test_causal_mask_data_prints_a_masked_weight_as_zero():
    _, rows = registry.get("causal-mask").data("en")
    assert len(rows) == toy.N * toy.H * 2
    for row in rows:
        if row[2] == "causal mask":
            q = toy.token_index(row[0])
            assert row[3 + q + 1:] == ["0"] * (toy.N - q - 1)
            assert "0" not in row[3:3 + q + 1]
