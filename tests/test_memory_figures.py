"""attention-memory and kv-heads (what-it-costs#weights-grow-with-h, #kv-cache): what each figure
draws, read back from its artists, against formulas written here from the published configuration;
and every number the page and captions print about them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from figures.engine import registry
from figures.kit.style import narrow
from mha_ref import init_params, mha_trace
from mha_ref import costs, models
from figures.numbers import quantities

GPT2 = models.model("GPT-2 small")
LLAMA3 = models.model("Llama 3 8B")
value = quantities.value


def _drawn(fig_id, frame=None, lang="en", is_narrow=False):
    if is_narrow:
        with narrow():
            fig = registry.get(fig_id).draw(lang, frame)
    else:
        fig = registry.get(fig_id).draw(lang, frame)
    plt.close(fig)
    return fig


def _titled(fig, words):
    (ax,) = [ax for ax in fig.axes if words in ax.get_title()]
    return ax


# attention-memory -------------------------------------------------------------------------------
def _curves(ax):
    """The lines drawn over the whole context grid (not the marker lines or the dot)."""
    from figures.gallery.attention_memory import CONTEXTS
    return [line for line in ax.get_lines() if list(line.get_xdata()) == list(CONTEXTS)]


def _memory_panels(lang="en", is_narrow=False):
    fig = _drawn("attention-memory", None, lang, is_narrow)
    ops, mem = fig.axes
    return ops, mem


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("is_narrow", [False, True])
def test_multiply_adds_are_one_curve_for_every_h(lang, is_narrow):
    from figures.gallery import attention_memory as mod
    ops, _ = _memory_panels(lang, is_narrow)
    lines = _curves(ops)
    assert len(lines) == len(mod.HS) >= 3
    n = lines[0].get_xdata()
    for line in lines:
        np.testing.assert_array_equal(line.get_ydata(), 2 * n.astype(float) ** 2 * GPT2.d_model)  # 2 n^2 d_model
        np.testing.assert_array_equal(line.get_xdata(), n)
    for h in mod.HS:  # and it is what mha_ref counts at each h
        assert [costs.multiply_adds(int(k), GPT2.d_model, h).attention for k in n] == list(lines[0].get_ydata())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_weight_entries_are_h_times_the_one_head_line(lang):
    from figures.gallery import attention_memory as mod
    _, mem = _memory_panels(lang)
    lines = _curves(mem)
    assert len(lines) == len(mod.HS)
    n = lines[0].get_xdata().astype(float)
    one = lines[mod.HS.index(1)].get_ydata()
    np.testing.assert_array_equal(one, n ** 2)
    for h, line in zip(mod.HS, lines):
        np.testing.assert_array_equal(line.get_ydata(), h * n ** 2)  # h n^2, from the definition
        np.testing.assert_array_equal(line.get_ydata(), h * one)
    assert len({tuple(line.get_ydata()) for line in lines}) == len(mod.HS)  # no two h draw the same line


def test_both_bills_grow_fourfold_when_the_context_doubles():
    """The page: double the context and both bills grow fourfold (the grid doubles n at each step)."""
    ops, mem = _memory_panels()
    n = ops.get_lines()[0].get_xdata()
    assert list(n[1:] / n[:-1]) == [2] * (len(n) - 1)
    for line in _curves(ops) + _curves(mem):
        y = line.get_ydata()
        assert list(y[1:] / y[:-1]) == [4] * (len(y) - 1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_marked_point_is_gpt2_small_in_entries_and_bytes(lang):
    _, mem = _memory_panels(lang)
    (dot,) = [line for line in mem.get_lines() if len(line.get_xdata()) == 1]
    entries = GPT2.heads * GPT2.context ** 2
    assert (dot.get_xdata()[0], dot.get_ydata()[0]) == (GPT2.context, entries) == (1024, 12_582_912)
    (note,) = [t for t in mem.texts if "MiB" in t.get_text()]
    assert f"{entries:,}" in note.get_text() and "24 MiB" in note.get_text()
    assert costs.bytes_of(entries) == 2 * entries == 24 * 2 ** 20


def test_memory_quantities():
    """What the caption and page print: 16-bit floats, 2 bytes; 24 MiB in one layer, 288 MiB in twelve."""
    assert (value("store.bits"), value("store.bytes")) == (16, 2)
    one_layer = GPT2.heads * GPT2.context ** 2 * 2
    assert value("gpt2.weights_all_heads_mib") * 2 ** 20 == one_layer
    assert value("gpt2.layers") == 12
    assert value("gpt2.weights_all_layers_mib") * 2 ** 20 == 12 * one_layer
    assert (value("gpt2.weights_all_heads_mib"), value("gpt2.weights_all_layers_mib")) == (24, 288)


def test_the_memory_table_holds_the_formulas():
    from figures.gallery import attention_memory as mod
    head, rows = mod.data("en")
    assert len(head) == len(rows[0]) == 3 + len(mod.HS)
    for row in rows:
        n = int(row[0])
        assert int(row[1].replace(",", "")) == 2 * n * n * GPT2.d_model
        assert [int(c.replace(",", "")) for c in row[2:-1]] == [h * n * n for h in mod.HS]
        assert float(row[-1].replace(",", "")) == pytest.approx(GPT2.heads * n * n * 2 / 2 ** 20, rel=1e-2)
    assert [int(r[0]) for r in rows] == list(mod.CONTEXTS) and GPT2.context in mod.CONTEXTS


# kv-heads ---------------------------------------------------------------------------------------
KV = registry.get("kv-heads").CONTROL.values


def test_the_slider_is_every_divisor_of_the_query_heads_and_opens_on_llama3():
    mod = registry.get("kv-heads")
    assert list(KV) == [k for k in range(1, LLAMA3.heads + 1) if LLAMA3.heads % k == 0] == [1, 2, 4, 8, 16, 32]
    assert mod.CONTROL.start == LLAMA3.kv_heads == 8


def _config(kv):
    """From the published source (mha_ref/models.py)'s configuration, by hand: W_K and W_V map d_model to kv heads of d_head; a token
    keeps a key and a value of d_head per key/value head in each layer, 2 bytes a number."""
    m = LLAMA3
    return 2 * m.d_model * kv * m.d_head, int(m.layers) * 2 * kv * m.d_head * 2


@pytest.mark.parametrize("kv", KV)
@pytest.mark.parametrize("is_narrow", [False, True])
def test_kv_bars_are_the_configurations_counts(kv, is_narrow):
    fig = _drawn("kv-heads", kv, "en", is_narrow)
    weights, cache = _titled(fig, "weights of"), _titled(fig, "cache per token")
    for ax, pick in ((weights, 0), (cache, 1)):
        every, chosen = ax.containers
        heights = [bar.get_height() for bar in every]
        assert heights == [_config(k)[pick] for k in KV]
        assert [bar.get_height() for bar in chosen] == [_config(kv)[pick]]
        assert chosen[0].get_x() == every[KV.index(kv)].get_x()  # the coloured bar is the chosen count


@pytest.mark.parametrize("kv", KV)
def test_kv_plan_groups_each_query_head_under_its_key_value_head(kv):
    fig = _drawn("kv-heads", kv)
    plan = _titled(fig, "share" if kv < LLAMA3.heads else "its own")
    queries = sorted((p for p in plan.patches if p.get_y() == 1.0), key=lambda p: p.get_x())
    shared = sorted((p for p in plan.patches if p.get_y() == 0.0), key=lambda p: p.get_x())
    assert (len(queries), len(shared)) == (LLAMA3.heads, kv)
    group = LLAMA3.heads // kv
    for i, q in enumerate(queries):  # query head i sits over key/value head i // group, and its colour
        g = shared[i // group]
        assert g.get_x() <= q.get_x() and q.get_x() + q.get_width() <= g.get_x() + g.get_width() + 1e-9
        assert q.get_facecolor() == g.get_facecolor()
    for a, b in zip(shared, shared[1:]):  # neighbouring groups are told apart
        assert a.get_facecolor() != b.get_facecolor()


def test_the_cache_shrinks_by_the_query_heads_per_key_value_head():
    """The page: however many query heads share a key/value head, the cache (and W_K, W_V) shrink by
    that factor; one shared set is 1/h of plain multi-head attention."""
    m = LLAMA3
    plain = costs.kv_cache_per_token(m.d_model, m.heads, layers=m.layer_count)
    for kv in KV:
        group = m.heads // kv
        assert costs.kv_cache_per_token(m.d_model, m.heads, kv, layers=m.layer_count) * group == plain
        assert costs.kv_param_count(m.d_model, m.heads, kv, bias=False) * group == costs.kv_param_count(
            m.d_model, m.heads, bias=False)
    for d, h in ((768, 12), (4096, 32), (12, 6)):  # multi-query: 1/h
        assert costs.kv_cache_per_token(d, h, 1) * h == costs.kv_cache_per_token(d, h)


def test_kv_quantities():
    m = LLAMA3
    assert (value("llama3.d_model"), value("llama3.layers"), value("llama3.heads"), value("llama3.kv_heads"),
            value("llama3.d_k"), value("llama3.context")) == (4096, 32, 32, 8, 128, 8192)  # the published source (mha_ref/models.py)
    assert value("llama3.group") == 4
    assert value("llama3.cache_kib_mha") == value("llama3.group") * value("llama3.cache_kib_gqa")
    for name, kv in (("mha", 32), ("gqa", 8), ("mqa", 1)):
        weights, cache = _config(kv)
        if name != "mqa":  # the pages print the weights of these two only
            assert value(f"llama3.kv_weights_{name}") == weights
        assert value(f"llama3.cache_kib_{name}") * 2 ** 10 == cache
    assert (value("llama3.cache_kib_mha"), value("llama3.cache_kib_gqa"), value("llama3.cache_kib_mqa")) == (512, 128, 16)
    assert value("llama3.cache_context_gib_gqa") * 2 ** 30 == m.context * _config(8)[1]
    assert value("llama3.cache_context_gib_mha") * 2 ** 30 == m.context * _config(32)[1]
    assert (value("llama3.cache_context_gib_gqa"), value("llama3.cache_context_gib_mha")) == (1, 4)
    g = models.GQA_T5_XXL
    assert [value(f"gqa.{k}") for k in ("kv_heads", "gqa_score", "mha_score", "mqa_score", "gqa_time", "mha_time",
                                        "mqa_time")] == [8, 47.1, 47.2, 46.6, 0.28, 1.51, 0.24]
    assert value("gqa.gqa_score") == g["gqa8_score"]


@pytest.mark.parametrize("kv_heads", [1, 2, 3, 6])
def test_sharing_keys_and_values_keeps_every_weight_table(kv_heads):
    """The page: sharing does not save the weight tables; there are still h of n x n, each query
    head's own (and, with more than one query head to a group, they differ within a group)."""
    d_model, h, n = 12, 6, 5
    x = np.random.default_rng(0).normal(size=(n, d_model))
    t = mha_trace(x, init_params(d_model, h, kv_heads=kv_heads, seed=2), h, kv_heads=kv_heads)
    assert t.weights.shape == (h, n, n) and t.weights.size == costs.attention_weights(n, h)
    assert len({t.weights[i].tobytes() for i in range(h)}) == h


def test_the_kv_table_holds_the_configurations_counts():
    head, rows = registry.get("kv-heads").data("en")
    assert len(rows) == len(KV) and len(head) == len(rows[0])
    for kv, row in zip(KV, rows):
        weights, cache = _config(kv)
        assert int(row[0]) == kv and int(row[2]) == LLAMA3.heads // kv
        assert row[1] == {1: "MQA", LLAMA3.heads: "MHA"}.get(kv, "GQA (Llama 3)" if kv == LLAMA3.kv_heads else "GQA")
        assert int(row[3].replace(",", "")) == weights
        assert int(row[4].replace(",", "")) == weights + 2 * LLAMA3.d_model ** 2  # W_Q and W_O unchanged
        assert int(row[5].replace(",", "")) * 2 == int(row[6].replace(",", "")) == cache
