"""Costs (parameters, multiply-adds), the published configurations and the named quantities."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from mha_ref.example import toy
from mha_ref import checks, costs, models
from figures.numbers import quantities
from mha_ref.params import MHAParams
from mha_ref.attention import init_params, merge_heads, mha_trace, multi_head_attention, split_heads
from figures.kit.control import divisors
from own_process import in_own_process


# --------------------------------------------------------------------------------------------
# the head counts a width allows (figures.kit.control.divisors: the sliders of h)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 7, 8, 12, 64, 768])
def test_divisors_are_every_head_count_that_cuts_the_width(d):
    got = divisors(d)
    assert list(got) == sorted(set(got))  # increasing, no repeats
    assert set(got) == {h for h in range(1, d + 1) if (d // h) * h == d}
    for h in got:  # each is a head count mha_ref accepts at this width
        checks.heads(d, h)


def test_divisors_hand_values_and_the_cap():
    assert divisors(12) == (1, 2, 3, 4, 6, 12)
    assert len(divisors(768)) == 18  # 768 = 2^8 * 3: (8 + 1) * (1 + 1)
    assert divisors(768, at_most=96) == tuple(h for h in divisors(768) if h <= 96)
    assert divisors(768, at_most=96)[-1] == 96 and divisors(8, at_most=3) == (1, 2)


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("h", divisors(768))
def test_param_count_closed_form_for_every_divisor_of_768(h):
    d = 768
    assert costs.param_count(d, h) == 4 * d * d + 4 * d
    assert costs.param_count(d, h, bias=False) == 4 * d * d


def test_param_count_gpt2_small():
    """the published source (mha_ref/models.py): 4 d^2 weights + 4 d biases; for d = 768: 2,359,296 + 3,072 = 2,362,368."""
    g = models.model("GPT-2 small")
    total, weights = costs.param_count(g.d_model, g.heads), costs.param_count(g.d_model, g.heads, bias=False)
    assert (total, weights, total - weights) == (2_362_368, 2_359_296, 3_072)
    # counted again on the arrays of a real block of that size: the four matrices, the four biases
    p = init_params(g.d_model, g.heads)
    assert sum(getattr(p, name).size for name in ("w_q", "w_k", "w_v", "w_o")) == weights
    assert sum(getattr(p, name).size for name in ("b_q", "b_k", "b_v", "b_o")) == total - weights


def _count_arrays(p):
    return sum(a.size for a in p if a is not None)


@pytest.mark.parametrize("d_model", [1, 6, 8, 12])
def test_param_count_equals_the_real_arrays(d_model):
    for h in divisors(d_model):
        assert _count_arrays(init_params(d_model, h)) == costs.param_count(d_model, h)
        assert _count_arrays(init_params(d_model, h, bias=False)) == costs.param_count(d_model, h, bias=False)


def test_param_count_equals_the_real_arrays_at_gpt2_small():
    assert _count_arrays(init_params(768, 12)) == 2_362_368 == costs.param_count(768, 12)


# --------------------------------------------------------------------------------------------
# multiply-adds
# --------------------------------------------------------------------------------------------

def test_multiply_adds_attention_part_does_not_depend_on_h():
    n, d = 1024, 768
    results = {h: costs.multiply_adds(n, d, h) for h in divisors(d)}
    assert {r.attention for r in results.values()} == {2 * n * n * d}
    assert {r.projections for r in results.values()} == {4 * n * d * d}
    assert {r.scores for r in results.values()} == {n * n * d}
    assert {r.weighted_sum for r in results.values()} == {n * n * d}
    for r in results.values():
        assert r.total == r.projections + r.scores + r.weighted_sum


def test_multiply_adds_gpt2_small():
    m = costs.multiply_adds(1024, 768, 12)
    assert m.projections == 2_415_919_104
    assert m.attention == 1_610_612_736
    assert isinstance(m.projections, int) and isinstance(m.attention, int)
    assert Fraction(m.projections, m.attention) == Fraction(3, 2)
    assert Fraction(m.projections, m.attention) == Fraction(2 * 768, 1024)  # ratio 2d / n
    assert m.total == 4_026_531_840


def test_crossover_context():
    assert costs.crossover_context(768) == 1536
    m = costs.multiply_adds(1536, 768, 12)
    assert m.projections == m.attention
    below, above = costs.multiply_adds(1535, 768, 12), costs.multiply_adds(1537, 768, 12)
    assert below.projections > below.attention and above.projections < above.attention
    for d, h in [(8, 2), (64, 4), (512, 8)]:
        n = costs.crossover_context(d)
        assert n == 2 * d
        m = costs.multiply_adds(n, d, h)
        assert m.projections == m.attention


def _matmul_cost(a_shape, b_shape):
    """(..., p, q) @ (..., q, r): prod(batch) * p * q * r multiply-adds."""
    assert a_shape[-1] == b_shape[-2]
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    return math.prod(batch) * a_shape[-2] * a_shape[-1] * b_shape[-1]


@pytest.mark.parametrize("n,d,h", [(5, 8, 4), (5, 8, 1), (5, 8, 8), (3, 12, 3), (7, 6, 2)])
def test_multiply_adds_from_the_shapes_of_a_real_forward_pass(n, d, h):
    p = init_params(d, h, seed=0)
    x = np.random.default_rng(0).normal(size=(n, d))
    t = mha_trace(x, p, h)
    d_k = d // h
    assert t.q.shape == (h, n, d_k) and t.weights.shape == (h, n, n)

    projections = (
        _matmul_cost(x.shape, p.w_q.shape)
        + _matmul_cost(x.shape, p.w_k.shape)
        + _matmul_cost(x.shape, p.w_v.shape)
        + _matmul_cost(t.concat.shape, p.w_o.shape)
    )
    scores = _matmul_cost(t.q.shape, np.swapaxes(t.k, -1, -2).shape)
    weighted_sum = _matmul_cost(t.weights.shape, t.v.shape)

    m = costs.multiply_adds(n, d, h)
    assert m.projections == projections == 4 * n * d * d
    assert m.scores == scores == n * n * d
    assert m.weighted_sum == weighted_sum == n * n * d
    assert m.total == projections + scores + weighted_sum


# --------------------------------------------------------------------------------------------
# published configurations (each with its source in mha_ref/models.py)
# --------------------------------------------------------------------------------------------

# name, d_model, layers, heads, d_head, context, source key, key/value heads
FACTS_MODELS = [
    ("Transformer base", 512, "6+6", 8, 64, None, "vaswani2017", None),
    ("Transformer big", 1024, "6+6", 16, 64, None, "vaswani2017", None),
    ("BERT base", 768, "12", 12, 64, 512, "devlin2019", None),
    ("BERT large", 1024, "24", 16, 64, 512, "devlin2019", None),
    ("GPT-2 small", 768, "12", 12, 64, 1024, "radford2019", None),
    ("GPT-2 medium", 1024, "24", 16, 64, 1024, "radford2019", None),
    ("GPT-2 large", 1280, "36", 20, 64, 1024, "radford2019", None),
    ("GPT-2 XL", 1600, "48", 25, 64, 1024, "radford2019", None),
    ("GPT-3 175B", 12288, "96", 96, 128, 2048, "brown2020", None),
    ("LLaMA 7B", 4096, "32", 32, 128, 2048, "touvron2023", None),
    ("LLaMA 13B", 5120, "40", 40, 128, 2048, "touvron2023", None),
    ("LLaMA 33B", 6656, "60", 52, 128, 2048, "touvron2023", None),
    ("LLaMA 65B", 8192, "80", 64, 128, 2048, "touvron2023", None),
    ("Llama 3 8B", 4096, "32", 32, 128, 8192, "meta2024", 8),
    ("Llama 3 70B", 8192, "80", 64, 128, 8192, "meta2024", 8),
]

# what the published source (mha_ref/models.py) names as the source of each family, checked against the reference entries
SOURCE_DETAILS = {
    "vaswani2017": ("Attention Is All You Need", 2017, "1706.03762"),
    "devlin2019": ("google-research/bert", None, None),
    "radford2019": ("openai/gpt-2", 2019, None),
    "brown2020": ("Language Models are Few-Shot Learners", 2020, "2005.14165"),
    "touvron2023": ("LLaMA (2023) model card", 2023, None),
    "meta2024": ("Llama 3 model card", 2024, None),
}


def test_published_models_equal_the_facts_table():
    assert [tuple(m) for m in models.PUBLISHED_MODELS] == FACTS_MODELS
    assert models.PUBLISHED_MODELS[0]._fields == (
        "name", "d_model", "layers", "heads", "d_head", "context", "source", "kv_heads")


def test_published_models_hand_picked_rows():
    assert models.model("GPT-2 small")[1:6:] == (768, "12", 12, 64, 1024)
    g3 = models.model("GPT-3 175B")
    assert (g3.d_model, g3.heads, g3.d_head, g3.context) == (12288, 96, 128, 2048)
    l33 = models.model("LLaMA 33B")
    assert (l33.d_model, l33.heads, l33.d_head, l33.context) == (6656, 52, 128, 2048)
    l3 = models.model("Llama 3 8B")
    assert (l3.d_model, l3.heads, l3.d_head, l3.context, l3.kv_heads) == (4096, 32, 128, 8192, 8)


@pytest.mark.parametrize("m", models.PUBLISHED_MODELS, ids=lambda m: m.name)
def test_published_model_is_consistent(m):
    assert m.heads * m.d_head == m.d_model
    assert 64 <= m.d_head <= 128
    assert m.source in models.REFERENCES
    assert models.model(m.name) is m
    if m.kv_heads is not None:
        assert m.heads % m.kv_heads == 0 and m.kv_heads < m.heads
    # the shapes are what mha_ref accepts: checks.heads passes and d_k comes out as d_head
    checks.heads(m.d_model, m.heads)
    x = np.zeros((2, m.d_model))
    s = split_heads(x, m.heads)
    assert s.shape == (m.heads, 2, m.d_head)
    assert merge_heads(s).shape == (2, m.d_model)
    assert costs.param_count(m.d_model, m.heads) == 4 * m.d_model ** 2 + 4 * m.d_model


@pytest.mark.parametrize("key", sorted(SOURCE_DETAILS))
def test_reference_entries(key):
    ref = models.REFERENCES[key]
    assert ref.key == key
    text, year, arxiv = SOURCE_DETAILS[key]
    assert text in ref.title or text in ref.venue
    if year is not None:
        assert ref.year == year
    assert ref.arxiv == arxiv


def _data_sources():
    """The reference keys the published data names as its source: every model, every table."""
    sources = {m.source for m in models.PUBLISHED_MODELS} | {models.HEAD_COUNT_SOURCE}
    for name in dir(models):  # any dict of published numbers carries its own "source"
        data = getattr(models, name)
        if isinstance(data, dict) and isinstance(data.get("source"), str):
            sources.add(data["source"])
        elif isinstance(getattr(data, "source", None), str):  # a record of its own (models.DEEPSEEK_V3)
            sources.add(data.source)
    return sources


def _cited_keys():
    """{key: [where]} of every link to the references page, in every page and every caption."""
    import re
    from pathlib import Path
    from figures.engine import registry
    link = re.compile(r"references\.md#([^)\s\"'>]+)")
    texts = {str(p.name): p.read_text(encoding="utf-8")
             for p in (Path(__file__).resolve().parents[1] / "docs").glob("*.md")}
    for fig_id in registry.ORDER:
        mod = registry.get(fig_id)
        texts[f"{fig_id} caption"] = mod.CAPTION_ZH + "\n" + mod.CAPTION_EN
    cited = {}
    for where, text in texts.items():
        for key in link.findall(text):
            cited.setdefault(key, []).append(where)
    return cited


def test_every_reference_key_is_used_or_cited():
    sources, cited = _data_sources(), _cited_keys()
    assert len(sources) >= 6 and len(cited) >= 3  # the scans found what they look for
    # every source the data names, and every key a page or caption links to, is a reference
    assert sources <= set(models.REFERENCES), sources - set(models.REFERENCES)
    assert set(cited) <= set(models.REFERENCES), {k: cited[k] for k in set(cited) - set(models.REFERENCES)}
    # and every reference is one of them: the references page lists nothing the site never uses
    unused = set(models.REFERENCES) - sources - set(cited)
    assert not unused, unused
    assert models.REFERENCES["voita2019"].arxiv == "1905.09418"
    assert models.REFERENCES["michel2019"].arxiv == "1905.10650"




# From this width on, a forward pass at a published shape takes seconds and hundreds of MB: slow,
# and run in a process of its own (tests/own_process.py).
WIDE = 6000


def _model_groups():
    groups = {}
    for m in models.PUBLISHED_MODELS:
        groups.setdefault((m.d_model, m.heads), []).append(m.name)
    return [pytest.param(d, h, names, id=" / ".join(names), marks=[pytest.mark.slow] if d >= WIDE else [])
            for (d, h), names in groups.items()]


def _shifted_params(d_model: int, seed: int = 0) -> MHAParams:
    """Four different float32 d_model x d_model weights in the memory of one: w_q, w_k, w_v and w_o
    are the rows of one buffer starting one row apart, and the buffer repeats a small random block
    of rows. At GPT-3's width that is 0.6 GB and 3M random numbers instead of 2.4 GB and 604M."""
    rows = d_model + 3
    block = np.random.default_rng(seed).standard_normal((min(rows, 257), d_model), dtype=np.float32)
    block *= np.float32(1 / math.sqrt(d_model))
    buf = np.resize(block, (rows, d_model))  # the block's rows again and again
    return MHAParams(*(buf[i:i + d_model] for i in range(4)))


def test_shifted_params_are_four_different_matrices_and_init_params_keeps_float32():
    p = _shifted_params(300)
    assert all(w.shape == (300, 300) and w.dtype == np.float32 and w.flags.c_contiguous for w in p[:4])
    assert len({w.tobytes() for w in p[:4]}) == 4
    assert init_params(8, 2, bias=False, dtype=np.float32).w_q.dtype == np.float32


@pytest.mark.parametrize("d_model,h,names", _model_groups())
def test_forward_runs_unchanged_at_published_shapes(d_model, h, names):
    """The same code at every published (d_model, h), GPT-3's 12288 x 96 included: float32
    weights sharing one buffer (0.6 GB at that width) and n = 2 tokens keep it to seconds."""
    if d_model >= WIDE:
        in_own_process(_forward_runs_unchanged, d_model, h)
    else:
        _forward_runs_unchanged(d_model, h)


def _forward_runs_unchanged(d_model: int, h: int) -> None:
    n = 2
    p = _shifted_params(d_model)
    x = np.random.default_rng(0).standard_normal((n, d_model), dtype=np.float32)
    out, w = multi_head_attention(x, p, h)
    assert out.shape == (n, d_model) and out.dtype == np.float32
    assert w.shape == (h, n, n)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(w.sum(axis=-1), np.ones((h, n)), atol=1e-5)

    # the same numbers computed directly (cheap at n = 2): per-head softmax, concatenate, W_O
    d_k = d_model // h
    q, k, v = x @ p.w_q, x @ p.w_k, x @ p.w_v
    q, k, v = (a.reshape(n, h, d_k).transpose(1, 0, 2) for a in (q, k, v))
    s = np.einsum("hid,hjd->hij", q, k) / math.sqrt(d_k)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    ww = e / e.sum(axis=-1, keepdims=True)
    concat = np.einsum("hij,hjd->ihd", ww, v).reshape(n, d_model)
    np.testing.assert_allclose(w, ww, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out, concat @ p.w_o, rtol=1e-3, atol=1e-4)


# --------------------------------------------------------------------------------------------
# Vaswani et al. 2017, Table 3 (A)
# --------------------------------------------------------------------------------------------

def test_head_count_table():
    expected = [
        (1, 512, 5.29, 24.9),
        (4, 128, 5.00, 25.5),
        (8, 64, 4.92, 25.8),
        (16, 32, 4.91, 25.8),
        (32, 16, 5.01, 25.4),
    ]
    assert [tuple(r) for r in models.HEAD_COUNT_TABLE] == expected
    for r in models.HEAD_COUNT_TABLE:
        assert r.d_k * r.h == 512
    assert models.HEAD_COUNT_SOURCE == "vaswani2017"
    # "one head is 0.9 BLEU worse than the best setting"
    best = max(r.bleu for r in models.HEAD_COUNT_TABLE)
    assert round(best - models.HEAD_COUNT_TABLE[0].bleu, 6) == 0.9


def test_voita_pruning_numbers():
    assert models.VOITA_ENCODER_HEADS == 48 == 6 * 8
    assert models.VOITA_PRUNED == {"heads_kept": 10, "bleu_drop": 0.15, "source": "voita2019"}


# --------------------------------------------------------------------------------------------
# named quantities
# --------------------------------------------------------------------------------------------

# the masked language model's quantities measure five trained seeds (about a minute): slow, and
# each recounted by a second computation in test_lm_heads.py
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow, pytest.mark.trained]) if n.startswith("lm.") else n
                                  for n in sorted(quantities.QUANTITIES)])
def test_every_quantity_is_a_finite_number(name):
    v = quantities.value(name)
    assert isinstance(v, (int, float)) and not isinstance(v, bool)
    assert math.isfinite(v)


def test_quantity_values():
    value = quantities.value
    assert value("gpt2.params") == 2_362_368
    assert value("gpt2.weights") == 2_359_296
    assert value("gpt2.projections") == 2_415_919_104
    assert value("gpt2.attention") == 1_610_612_736
    assert value("gpt2.ratio") == 1.5
    assert value("gpt2.crossover") == 1536
    assert (value("gpt2.d_model"), value("gpt2.h"), value("gpt2.d_k"), value("gpt2.context")) == (768, 12, 64, 1024)
    assert (value("toy.n"), value("toy.d_model"), value("toy.h"), value("toy.d_k")) == (6, 8, 4, 2)
    assert value("blend.steps") == 21
    assert value("blend.peak_mid") <= 0.6
    assert value("blend.peak_position") >= 0.9
    assert value("blend.peak_syntax") >= 0.9
    assert value("blend.min_peak") < value("blend.peak_mid")  # the true minimum lies between two stops
    assert value("diffuse.max_weight") < 0.3


def test_blend_quantities_agree_with_the_heads():
    it = toy.token_index("it")
    t = toy.trace()
    assert quantities.value("blend.peak_position") == pytest.approx(t.weights[0, it].max(), rel=1e-12)
    assert quantities.value("blend.peak_syntax") == pytest.approx(t.weights[1, it].max(), rel=1e-12)
    mid = toy.blend_weights(0.5)[it]
    assert quantities.value("blend.mid_and") == pytest.approx(mid[toy.token_index("and")], rel=1e-12)
    assert quantities.value("blend.mid_ran") == pytest.approx(mid[toy.token_index("ran")], rel=1e-12)
