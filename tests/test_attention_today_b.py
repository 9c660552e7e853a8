"""Page 8's #tiles and #latent: each figure's claim, read back from what its draw() drew, against
numbers computed here in plain numpy or by mha_ref's reference functions (never the figure's own
lists); and the page's claims about tiles and latents over every case we can compute."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import same_color

from figures.numbers import quantities
from mha_ref import attention, costs, rope
from mha_ref.example import mla_toy, tiles, toy

LANGS = ("zh", "en")


def _drawn(fig_id, value=None, lang="en"):
    from figures.engine import registry
    fig = registry.get(fig_id).draw(lang, value)
    plt.close(fig)
    return fig.axes


# tile-steps ---------------------------------------------------------------------------------------
POS, IT = toy.head_index("position"), toy.token_index("it")


def _row():
    """The position head's scores for `it` and its values, in plain numpy from the example's inputs."""
    x, p = toy.inputs(), toy.params()
    c = slice(POS * toy.D_K, (POS + 1) * toy.D_K)
    q, k, v = (x @ w[:, c] + (0 if b is None else b[c]) for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    return q[IT] @ k.T / math.sqrt(toy.D_K), v


S, V = _row()
STOPS = [stop for _, stop in tiles.tiles()]


def test_the_tiles_are_the_row_cut_in_twos():
    assert tiles.BLOCK == 2 and STOPS == [2, 4, 6]
    np.testing.assert_allclose(S, toy.trace().scores[POS][IT], rtol=0, atol=1e-12)


@pytest.mark.parametrize("t", range(3))
@pytest.mark.parametrize("lang", LANGS)
def test_tile_steps_draws_the_running_maximum_and_the_terms_of_l(t, lang):
    scores, terms, plane = _drawn("tile-steps", t, lang)
    stop = STOPS[t]
    m = S[:stop].max()
    # the bars: every score, the ones read in the head's colour
    bars = [p for p in scores.patches]
    np.testing.assert_allclose([b.get_height() for b in bars], S, atol=1e-12)
    coloured = [same_color(b.get_facecolor(), "#0072B2") for b in bars]
    assert coloured == [j < stop for j in range(toy.N)]
    # the dashed line is the largest score read so far
    dashed = [line for line in scores.lines if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_ydata()[0] == pytest.approx(m, abs=1e-12)
    # the filled terms are e^(s - m) for the keys read; their sum is l, as flash_trace has it
    filled = [b for b in terms.patches if b.get_fill()]
    heights = np.array([b.get_height() for b in filled])
    np.testing.assert_allclose(heights, np.exp(S[:stop] - m), rtol=1e-12)
    assert heights.sum() == pytest.approx(tiles.trace().l[t, 0], rel=1e-12)
    # outlined boxes only where this tile raised the maximum: the earlier terms before the rescale
    outlined = [b for b in terms.patches if not b.get_fill()]
    start = stop - tiles.BLOCK
    raised = t > 0 and S[start:stop].max() > S[:start].max()
    assert bool(outlined) == raised
    if raised:
        np.testing.assert_allclose([b.get_height() for b in outlined], np.exp(S[:start] - S[:start].max()), rtol=1e-12)


def test_only_the_second_tile_rescales_and_by_e_to_the_gap():
    assert tiles.rescaling_tiles() == [2]
    r = tiles.trace().rescale[:, 0]
    assert r[1] == pytest.approx(math.exp(S[:2].max() - S[:4].max()), rel=1e-12) and r[2] == 1.0
    assert quantities.value("today.tiles.rescale2") == r[1]
    # cat's term is exactly one after the first tile (its score is the tile's largest)
    assert S[:2].argmax() == toy.token_index("cat")


@pytest.mark.parametrize("lang", LANGS)
def test_tile_steps_output_path_is_the_softmax_so_far_and_ends_on_attention(lang):
    *_, plane = _drawn("tile-steps", 2, lang)
    path = next(line for line in plane.lines if line.get_marker() == "o" and len(line.get_xdata()) == 3)
    ring = next(line for line in plane.lines if line.get_markerfacecolor() == "none")
    for t, stop in enumerate(STOPS):
        w = np.exp(S[:stop] - S[:stop].max())
        expected = (w / w.sum()) @ V[:stop]
        assert (path.get_xdata()[t], path.get_ydata()[t]) == pytest.approx(tuple(expected), abs=1e-12)
    out, _ = attention(*(a[POS] for a in (toy.trace().q, toy.trace().k, toy.trace().v)))
    assert (ring.get_xdata()[0], ring.get_ydata()[0]) == pytest.approx(tuple(out[IT]), abs=1e-12)
    assert np.abs(np.array([path.get_xdata()[-1], path.get_ydata()[-1]]) - out[IT]).max() < 1e-12
    # the earlier points are elsewhere: the ring is met at the last tile only
    assert np.abs(np.array([path.get_xdata()[0], path.get_ydata()[0]]) - out[IT]).max() > 1
    # after the first tile the output is almost cat's value, after the second almost and's
    assert np.abs(np.array([path.get_xdata()[0], path.get_ydata()[0]]) - V[toy.token_index("cat")]).max() < 0.01
    assert np.abs(np.array([path.get_xdata()[1], path.get_ydata()[1]]) - V[toy.token_index("and")]).max() < 0.1


def test_tiles_equal_attention_over_the_whole_example_to_rounding():
    from mha_ref import flash_attention
    worst = 0.0
    for h in range(toy.H):
        t = toy.trace()
        for block in range(1, toy.N + 1):
            worst = max(worst, np.abs(flash_attention(t.q[h], t.k[h], t.v[h], block) - t.heads[h]).max())
    assert worst < 1e-14
    assert 0 < quantities.value("today.tiles.largest_difference") < 1e-14


# tile-memory ----------------------------------------------------------------------------------------
GPT2_HEADS, GPT2_D_K = 12, 64  # GPT-2 small, typed from its release


@pytest.mark.parametrize("lang", LANGS)
def test_tile_memory_draws_the_tables_and_the_tiles_of_gpt2_small(lang):
    mem, ratio = _drawn("tile-memory", None, lang)
    table, tiled = mem.lines[0], mem.lines[1]
    n = table.get_xdata().astype(int)
    np.testing.assert_allclose(table.get_ydata(), GPT2_HEADS * n ** 2 * 2 / 2 ** 20, rtol=1e-12)
    block = tiles.MEMORY_BLOCK
    held = GPT2_HEADS * (n * np.minimum(block, n) + 2 * n + n * GPT2_D_K)  # a tile, m, l, the output
    np.testing.assert_allclose(tiled.get_ydata(), held * 2 / 2 ** 20, rtol=1e-12)
    r = ratio.lines[0].get_ydata()
    np.testing.assert_allclose(r, n ** 2 / (n * np.minimum(block, n) + 2 * n + n * GPT2_D_K), rtol=1e-12)
    # the caption: past one tile each doubling doubles the ratio; up to one tile the tiles hold more
    longer = n > block
    np.testing.assert_allclose(r[1:][longer[1:] & longer[:-1]] / r[:-1][longer[1:] & longer[:-1]], 2.0, rtol=1e-12)
    assert np.all(r[n <= block] < 1)


def test_tile_memory_numbers_the_page_prints():
    assert quantities.value("today.tiles.table_mib") == GPT2_HEADS * 1024 ** 2 * 2 / 2 ** 20
    held = GPT2_HEADS * (1024 * 128 + 2 * 1024 + 1024 * GPT2_D_K)
    assert quantities.value("today.tiles.tiles_mib") == pytest.approx(held * 2 / 2 ** 20, rel=1e-12)
    n = quantities.value("today.tiles.longest")
    assert quantities.value("today.tiles.ratio_longest") == pytest.approx(n / (128 + 2 + GPT2_D_K), rel=1e-12)


# latent-absorb ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", mla_toy.SEEDS)
def test_absorbed_and_made_outputs_agree_to_rounding_for_every_seed(seed):
    made, absorbed = mla_toy.outputs(seed)
    assert np.abs(made - absorbed).max() < 1e-12
    assert np.abs(made).max() > 0.1  # a real output, not zeros


@pytest.mark.parametrize("lang", LANGS)
def test_latent_absorb_draws_both_outputs_and_the_cache_cells(lang):
    cache, equal = _drawn("latent-absorb", None, lang)
    made, absorbed = mla_toy.outputs()
    points = equal.collections[0].get_offsets()
    np.testing.assert_array_equal(points[:, 0], made.ravel())
    np.testing.assert_array_equal(points[:, 1], absorbed.ravel())
    assert np.abs(points[:, 0] - points[:, 1]).max() == quantities.value("today.mla.largest_difference")
    # the cells: a key and a value per head, against one latent and one rotary key
    assert len(cache.patches) == 2 * toy.H * toy.D_K + mla_toy.D_C + mla_toy.D_ROPE
    from mha_ref import mla_trace
    t = mla_trace(toy.inputs(), mla_toy.params(), toy.H)
    assert t.latent.shape[-1] + t.k_rope.shape[-1] == quantities.value("today.mla.toy_cache")
    assert t.k.shape[0] * (t.k.shape[-1] - mla_toy.D_ROPE + t.v.shape[-1]) == quantities.value("today.mla.toy_mha_cache")


def test_a_rotated_key_cannot_be_absorbed_into_one_matrix():
    """The page's formula: (q R_s)(c W R_t)^T = q R_(s-t) W^T c^T, and the matrix W_Q W_UK^T made once
    gives these scores only where s = t."""
    rng = np.random.default_rng(0)
    d_c, d = 4, 6
    w_uk, c, q = rng.normal(size=(d_c, d)), rng.normal(size=d_c), rng.normal(size=d)
    for s in range(4):
        for t in range(4):
            rotated = rope(q[None], [s])[0] @ rope((c @ w_uk)[None], [t])[0]
            relative = rope(q[None], [s - t])[0] @ (c @ w_uk)
            assert rotated == pytest.approx(relative, rel=1e-12, abs=1e-12)
            once = q @ w_uk.T @ c  # absorbed without the rotation
            assert (rotated == pytest.approx(once, rel=1e-9)) == (s == t)


# kv-cache-bytes ----------------------------------------------------------------------------------------
PUBLISHED = {  # numbers per token over every layer, from the configurations (sources in mha_ref/models.py)
    ("Llama 3 70B", "GQA"): 80 * 2 * 8 * 128,
    ("Llama 3 70B", "MHA"): 80 * 2 * 64 * 128,
    ("Llama 3 70B", "MQA"): 80 * 2 * 1 * 128,
    ("Falcon-7B", "MQA"): 32 * 2 * 1 * 64,
    ("DeepSeek-V3", "MLA"): 61 * (512 + 64),
    ("DeepSeek-V3", "MHA"): 61 * 128 * (128 + 64 + 128),
}


@pytest.mark.parametrize("n", (1024, 131072))
@pytest.mark.parametrize("lang", LANGS)
def test_kv_cache_bytes_draws_the_cache_of_each_configuration(lang, n):
    token, seq = _drawn("kv-cache-bytes", n, lang)
    rows = costs.cache_per_token_rows()
    assert {(r.name, r.kind) for r in rows} == set(PUBLISHED)
    widths = [p.get_width() for p in token.patches]
    assert widths == pytest.approx([PUBLISHED[r.name, r.kind] * 2 / 2 ** 10 for r in rows], rel=1e-12)
    widths = [p.get_width() for p in seq.patches]
    assert widths == pytest.approx([PUBLISHED[r.name, r.kind] * 2 * n / 2 ** 30 for r in rows], rel=1e-12)
    # hatched exactly where the configuration was never built
    assert [bool(p.get_hatch()) for p in token.patches] == [not r.published for r in rows]


def test_the_cache_numbers_the_page_prints():
    assert quantities.value("today.mla.v3_bytes") == 70_272  # DeepSeek-V3, as the issue states it
    assert quantities.value("today.mla.llama70_gqa_bytes") == PUBLISHED["Llama 3 70B", "GQA"] * 2
    assert quantities.value("today.mla.v3_mha_ratio") == PUBLISHED["DeepSeek-V3", "MHA"] / PUBLISHED["DeepSeek-V3", "MLA"]
    # "although DeepSeek-V3 has more query heads" and still caches less than Llama 3 70B's GQA
    assert quantities.value("today.mla.v3_heads") > quantities.value("today.mla.llama70_heads")
    assert quantities.value("today.mla.llama70_over_v3") > 1
    # MQA keeps even less than MLA (Falcon-7B's bar)
    assert PUBLISHED["Falcon-7B", "MQA"] < PUBLISHED["DeepSeek-V3", "MLA"]
