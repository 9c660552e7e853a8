"""The exercises at the end of every content page.

Each page's last section holds three to five exercises, each followed by one folded worked answer,
in both languages alike. Every number an exercise or an answer prints is recomputed here without
mha_ref's attention code (plain numpy on the running example's inputs and parameters, or the
published figures of the sources in mha_ref/models.py), and every claim an answer makes about the example is
asserted. Each "edit the code" exercise is made here exactly as the page words it, on a copy of
the module, and what the answer says the edit does is checked on that copy.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import types
from pathlib import Path

import numpy as np
import pytest

from figures.publish import numbering
from figures.text.constructs import VALUE
from mha_ref import split_heads, merge_heads
from mha_ref.example import expressiveness, scale, toy, windowed
from mha_ref import roles
from figures.numbers import quantities

attention_module = importlib.import_module("mha_ref.attention")  # the module, not the function of that name
ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGS = ("zh", "en")
ANSWER = {"zh": "参考解答", "en": "Worked answer"}
EDIT = {"zh": "改代码：", "en": "Edit the code: "}


def _content_pages() -> list[str]:
    """Pages 1-8 in nav order: everything between the home page and the reference page."""
    nav = numbering.mkdocs_config()["nav"]
    stems = [p.removesuffix(".md") for p in nav]
    return stems[stems.index("index") + 1:stems.index("reference")]


PAGES = _content_pages()


def section(page: str, lang: str) -> str:
    """The page's exercises: from its last second-level heading, which must be {#exercises}, to the end."""
    text = (DOCS / f"{page}.{lang}.md").read_text(encoding="utf-8")
    headings = list(re.finditer(r"^## .*\{#([^}]+)\}[ \t]*$", text, re.M))
    assert headings and headings[-1][1] == "exercises", f"{page}.{lang}.md does not end with its exercises"
    return text[headings[-1].start():]


def exercises(page: str, lang: str) -> list[tuple[str, str]]:
    """(title, answer title) of each exercise, in order: a paragraph opening with a bold title,
    then exactly one folded answer block, before the next exercise."""
    found, title = [], None
    for line in section(page, lang).splitlines():
        if m := re.match(r"\*\*(.+?)\*\*", line):
            assert title is None, f"{page}.{lang}: exercise {title!r} has no answer before {m[1]!r}"
            title = m[1]
        elif m := re.match(r"(\?\?\?\+?|!!!) *(\w+) *\"(.*)\"", line):
            assert title is not None, f"{page}.{lang}: an answer block with no exercise before it"
            assert m[1] == "???", f"{page}.{lang}: the answer to {title!r} must be folded (???), not {m[1]}"
            found.append((title, m[3]))
            title = None
    assert title is None, f"{page}.{lang}: exercise {title!r} has no answer"
    return found


def test_every_content_page_is_the_one_expected():
    assert PAGES == ["one-head-blends", "slicing-the-width", "heads-side-by-side", "what-trained-heads-do",
                     "concatenate-then-mix", "what-it-costs", "the-code", "attention-today"]


@pytest.mark.parametrize("page", PAGES)
def test_each_page_ends_with_three_to_five_answered_exercises_in_both_languages(page):
    zh, en = (exercises(page, lang) for lang in LANGS)
    assert 3 <= len(zh) <= 5 and len(zh) == len(en), (len(zh), len(en))
    for lang, found in (("zh", zh), ("en", en)):
        assert {answer for _, answer in found} == {ANSWER[lang]}
    # at least one asks for an edit and a rebuild, at the same place in both languages
    edits = [[title.startswith(EDIT[lang]) for title, _ in found] for lang, found in (("zh", zh), ("en", en))]
    assert edits[0] == edits[1] and any(edits[0])


@pytest.mark.parametrize("page", PAGES)
def test_no_answer_text_falls_out_of_its_fold(page):
    """After the first exercise, a paragraph is an exercise (**title**), an answer block (???) or
    the answer's text, indented into the block; an unindented paragraph would show the answer."""
    for lang in LANGS:
        lines = section(page, lang).splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("**"))
        for before, line in zip(lines[start:], lines[start + 1:]):
            if before == "" and line and not line.startswith(("**", "???", "    ")):
                raise AssertionError(f"{page}.{lang}: outside any answer block: {line[:60]!r}")
            if before.startswith("???"):
                assert line == "", f"{page}.{lang}: a blank line after {before!r}"


# every number the exercises print, recomputed -----------------------------------------------------
def _forward(mask=None, divisor=None, params=None):
    """The running example's block in plain numpy, one head at a time (not mha_ref.attention):
    scores, weights, per-head outputs [h, n, ·] and the concatenation [n, d_model]. params: other
    parameters than the example's (toy.params())."""
    x, p = toy.inputs(), params or toy.params()
    n, d = x.shape
    d_k = d // toy.H
    q, k, v = (x @ w + (0 if b is None else b) for w, b in ((p.w_q, p.b_q), (p.w_k, p.b_k), (p.w_v, p.b_v)))
    scores, weights, heads = [], [], []
    for i in range(toy.H):
        c = slice(i * d_k, (i + 1) * d_k)
        s = q[:, c] @ k[:, c].T / math.sqrt(divisor or d_k)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        w = e / e.sum(axis=1, keepdims=True)
        scores.append(s), weights.append(w), heads.append(w @ v[:, c])
    return np.array(scores), np.array(weights), np.array(heads), np.concatenate(heads, axis=1), v


S, W, HEADS, CONCAT, V = _forward()
CAUSAL = _forward(mask=np.tril(np.ones((toy.N, toy.N), dtype=bool)))
WRONG = _forward(divisor=toy.D_MODEL)
READS_X7 = _forward(params=toy.params(rare_reads=7))  # slicing-the-width's edit exercise
POS, SYN, RARE, DIFF = range(4)  # the heads, in toy.HEADS order (checked below)
THE, CAT, ATE, AND, IT, RAN = range(6)


def _softmax(s):
    e = np.exp(s - s.max())
    return e / e.sum()


# The blended head of one-head-blends, from the page's own formula: s(a) = (1 - a) s_pos + a s_syn.
A = S[POS, IT, AND] - S[POS, IT, RAN]  # the position head's lead of `and` over `ran`
B = S[SYN, IT, RAN] - S[SYN, IT, AND]  # the syntax head's lead of `ran` over `and`
TIE = A / (A + B)
AT_TIE = _softmax((1 - TIE) * S[POS, IT] + TIE * S[SYN, IT])


def _ablation(i, mean_of):
    """toy.ablation's measure, with head i replaced by the mean of its values or of its outputs."""
    w_o = toy.params().w_o
    heads = HEADS.copy()
    d_k = toy.D_K
    heads[i] = (V[:, i * d_k:(i + 1) * d_k] if mean_of == "values" else HEADS[i]).mean(axis=0)
    full = CONCAT @ w_o
    return np.linalg.norm(np.concatenate(heads, axis=1) @ w_o - full) / np.linalg.norm(full)


def _nudged(head, d, every_token, eps=1e-6):
    """The largest change of head's output per unit nudge of input number d, by central
    differences, with the nudge reaching the queries and keys only (the values stay)."""
    x, p = toy.inputs(), toy.params()
    c = slice(head * toy.D_K, (head + 1) * toy.D_K)
    v = (x @ p.w_v)[:, c]

    def out(x2):
        q, k = x2 @ p.w_q[:, c] + p.b_q[c], x2 @ p.w_k[:, c]
        s = q @ k.T / math.sqrt(toy.D_K)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return (w / w.sum(axis=1, keepdims=True)) @ v

    rows = [slice(None)] if every_token else range(toy.N)
    largest = 0.0
    for j in rows:
        up, down = x.copy(), x.copy()
        up[j, d] += eps
        down[j, d] -= eps
        largest = max(largest, np.abs(out(up) - out(down)).max() / (2 * eps))
    return largest


def _spread(d_k, samples=20_000, seed=3):
    """The standard deviation of q.k over random unit-variance q, k, drawn as scale.dot_spread draws them."""
    rng = np.random.default_rng(seed)
    q, k = rng.normal(0.0, 1.0, (samples, d_k)), rng.normal(0.0, 1.0, (samples, d_k))
    return float((q * k).sum(axis=1).std())


def _reachable_at_width_one(keys):
    """Keys that are the strict top choice of some one-number query: the unique largest or smallest."""
    k = keys[:, 0]
    return sum(int((k == f(k)).sum() == 1) for f in (np.max, np.min))


# name -> (independent value, tolerance). Outside figures are typed from the sources in mha_ref/models.py.
EXACT, CLOSE = 0.0, 1e-9
INDEPENDENT = {
    **{f"ex.blend.pos_it.{t}": (S[POS, IT, j], CLOSE) for j, t in enumerate(toy.TOKENS)},
    "ex.blend.syn_it.and": (S[SYN, IT, AND], CLOSE),
    "ex.blend.syn_it.ran": (S[SYN, IT, RAN], CLOSE),
    "ex.blend.gap_ate": (S[POS, IT, AND] - S[POS, IT, ATE], CLOSE),
    "ex.blend.gap_it": (S[POS, IT, AND] - S[POS, IT, IT], CLOSE),
    "ex.blend.exp_ate": (math.exp(S[POS, IT, ATE] - S[POS, IT, AND]), CLOSE),
    "ex.blend.exp_it": (math.exp(S[POS, IT, IT] - S[POS, IT, AND]), CLOSE),
    "ex.blend.hand_and": (1 / (1 + math.exp(S[POS, IT, ATE] - S[POS, IT, AND])
                               + math.exp(S[POS, IT, IT] - S[POS, IT, AND])), CLOSE),
    "heads.position_it_and": (W[POS, IT, AND], CLOSE),
    "heads.syntax_it_ran": (W[SYN, IT, RAN], CLOSE),
    "ex.heads.rare_it_cat": (W[RARE, IT, CAT], CLOSE),
    "heads.rare_min_cat": (W[RARE, :, CAT].min(), CLOSE),
    "heads.rare_max_cat": (W[RARE, :, CAT].max(), CLOSE),
    "ex.rare_reads_x7.cat_min": (READS_X7[1][RARE, :, CAT].min(), CLOSE),
    "ex.rare_reads_x7.cat_max": (READS_X7[1][RARE, :, CAT].max(), CLOSE),
    "ex.blend.margin_pos": (A, CLOSE),
    "ex.blend.margin_syn": (B, CLOSE),
    "ex.blend.tie": (TIE, CLOSE),
    # the lowest peak of the blend is found by a numerical search; the page's formula puts it at the tie
    "blend.min_ratio": (TIE, 1e-6),
    "blend.min_peak": (AT_TIE[AND], 1e-6),
    "ex.blend.min_others": (1 - AT_TIE[AND] - AT_TIE[RAN], 1e-6),
    "ex.blend.min_it": (AT_TIE[IT], 1e-6),
    "ex.blend.tie_louder": (A / (A + 2 * B), CLOSE),
    "ex.gpt3.d_model": (12288, EXACT), "ex.gpt3.h": (96, EXACT), "ex.gpt3.d_k": (128, EXACT),
    "ex.gpt2xl.d_model": (1600, EXACT), "ex.gpt2xl.h": (25, EXACT), "ex.gpt2xl.d_k": (64, EXACT),
    "t5.d_model": (1024, EXACT), "t5.heads": (128, EXACT), "t5.d_head": (128, EXACT),
    "t5.inner": (128 * 128, EXACT),
    "ex.t5.weights": (4 * 1024 * 128 * 128, EXACT),
    "ex.t5.weights_split": (4 * 1024 ** 2, EXACT),
    "ex.t5.ratio": (128 * 128 // 1024, EXACT),
    "reads.rare_x6": (_nudged(RARE, 6, every_token=False), 1e-6),
    "reads.rare_x6_every_token": (_nudged(RARE, 6, every_token=True), 1e-6),
    "scale.d_k_mid": (8, EXACT),  # the middle of the figure's d_k = 1, 2, 4, ..., 64
    "scale.d_model": (64, EXACT),
    "scale.strength": (4.0, EXACT),
    "ex.scale.root_mid": (math.sqrt(8), CLOSE),
    "ex.scale.root_full": (8.0, CLOSE),
    "ex.scale.spread_mid": (_spread(8), 1e-12),
    "ex.scale.spread_full": (_spread(64), 1e-12),
    "ex.scale.others": (5, EXACT),
    "ex.scale.exp_strength": (math.exp(4), CLOSE),
    "ex.scale.h_mid": (64 // 8, EXACT),
    "ex.scale.margin_mid": (4 / math.sqrt(64 // 8), CLOSE),
    "ex.scale.exp_margin_mid": (math.exp(4 / math.sqrt(8)), CLOSE),
    # the other five keys score exactly zero: the matching key's weight is e^m / (e^m + 5)
    "scale.peak": (math.exp(4) / (math.exp(4) + 5), CLOSE),
    "scale.peak_wrong_8": (math.exp(4 / math.sqrt(8)) / (math.exp(4 / math.sqrt(8)) + 5), CLOSE),
    "diffuse.max_weight": (W[DIFF].max(), CLOSE),
    "roles.uniform_weight": (1 / 6, CLOSE),
    "toy.n": (6, EXACT), "toy.h": (4, EXACT), "toy.d_k": (2, EXACT), "toy.d_model": (8, EXACT),
    "ex.wrong_scale.position_it_and": (WRONG[1][POS, IT, AND], CLOSE),
    "ex.wrong_scale.syntax_it_ran": (WRONG[1][SYN, IT, RAN], CLOSE),
    "ex.wrong_scale.rare_it_cat": (WRONG[1][RARE, IT, CAT], CLOSE),
    "roles.diffuse.confidence": (W[DIFF].max(axis=1).mean(), CLOSE),
    "roles.position.confidence": (W[POS].max(axis=1).mean(), CLOSE),
    "voita.positional_pct": (90, EXACT),
    "roles.position.offset_pct": (100 * np.mean(W[POS].argmax(axis=1) == np.arange(6) - 1), CLOSE),
    "roles.position.shortest_sentence": (next(n for n in range(2, 100) if (n - 1) / n >= 0.9), EXACT),
    "ablation.rare": (_ablation(RARE, "values"), CLOSE),
    "ablation.position": (_ablation(POS, "values"), CLOSE),
    "ex.ablation.rare_sentence_mean": (_ablation(RARE, "outputs"), CLOSE),
    "ex.ablation.position_sentence_mean": (_ablation(POS, "outputs"), CLOSE),
    "base.d_model": (512, EXACT), "base.h": (8, EXACT), "base.d_k": (64, EXACT),
    "ex.base.w_o_block": (64 * 512, EXACT),
    "ex.base.w_o": (512 * 512, EXACT),
    "ex.toy.block_entries": (int(np.kron(np.eye(4), np.ones((2, 2))).sum()), EXACT),
    "ex.toy.w_o_entries": (8 * 8, EXACT),
    "ex.heads.syntax_it_out_0": (HEADS[SYN, IT, 0], CLOSE),
    "ex.heads.syntax_it_out_1": (HEADS[SYN, IT, 1], CLOSE),
    "ex.base.params": (4 * 512 ** 2 + 4 * 512, EXACT),
    "ex.base.params_one_head": (4 * 512 ** 2 + 4 * 512, EXACT),
    "ex.base.head_params": (3 * (512 * 64 + 64), EXACT),
    "ex.bert.d_model": (768, EXACT), "ex.bert.h": (12, EXACT), "ex.bert.context": (512, EXACT),
    "ex.bert.projections": (4 * 512 * 768 ** 2, EXACT),
    "ex.bert.attention": (2 * 512 ** 2 * 768, EXACT),
    "ex.bert.ratio": (2 * 768 / 512, CLOSE),
    "ex.bert.crossover": (2 * 768, EXACT),
    "ex.gpt3.context": (2048, EXACT),
    "ex.gpt3.weights_all": (96 * 2048 ** 2, EXACT),
    "ex.gpt3.weights_one": (2048 ** 2, EXACT),
    "expr.reachable_1": (_reachable_at_width_one(expressiveness.head_keys(1)), EXACT),
    "ex.causal.entries": (36, EXACT),
    "ex.causal.masked": (int((CAUSAL[1][0] == 0).sum()), EXACT),
    "ex.causal.kept": (int((CAUSAL[1][0] > 0).sum()), EXACT),
    "ex.causal.first_row": (CAUSAL[1][:, THE, THE].min(), CLOSE),
    "ex.causal.syntax_it_it": (CAUSAL[1][SYN, IT, IT], CLOSE),
    "ex.causal.syntax_it_and": (CAUSAL[1][SYN, IT, AND], CLOSE),
    "ex.causal.rare_it_cat": (CAUSAL[1][RARE, IT, CAT], CLOSE),
}


# attention-today, #tiles and #latent: the position head's row for `it` in tiles, DeepSeek-V3's cache
# (its published configuration typed from the sources in mha_ref/models.py: 61 layers, latent 512,
# rotary key 64, head width 128, two bytes a number).
_ROW = S[POS, IT]
_L_ROW = float(np.exp(_ROW - _ROW.max()).sum())  # the row's denominator, whatever the tiles
INDEPENDENT.update({
    "today.tiles.m2": (_ROW[:4].max(), CLOSE),  # the largest score of the first two tiles of two
    "today.tiles.rescale2": (math.exp(_ROW[:2].max() - _ROW[:4].max()), CLOSE),
    "today.tiles.l3": (_L_ROW, CLOSE),
    "ex.today.tiles.block3": (3, EXACT),
    "ex.today.tiles.count3": (math.ceil(6 / 3), EXACT),
    "ex.today.tiles.s_ate": (_ROW[ATE], CLOSE),
    "ex.today.tiles.gap3": (_ROW[AND] - _ROW[ATE], CLOSE),
    "ex.today.tiles.rescale3": (math.exp(_ROW[:3].max() - _ROW.max()), CLOSE),
    "ex.today.tiles.l_block3": (_L_ROW, CLOSE),
    "today.mla.v3_layers": (61, EXACT),
    "today.mla.v3_d_c": (512, EXACT),
    "today.mla.v3_d_rope": (64, EXACT),
    "ex.today.mla.d_head": (128, EXACT),
    "ex.today.mla.per_layer": (512 + 64, EXACT),
    "ex.today.mla.groups": ((512 + 64) / (2 * 128), CLOSE),
    "ex.today.mla.context": (2 ** 17, EXACT),
    "today.mla.v3_bytes": ((512 + 64) * 61 * 2, EXACT),
    "ex.today.mla.seq_gib": (2 ** 17 * (512 + 64) * 61 * 2 / 2 ** 30, CLOSE),
    "store.bytes": (2, EXACT),
})


# attention-today, one dict per exercise (the page's other sections add theirs beside these) ---------
def _rope_turning(base, d=128, context=8192):
    """Pairs of a head d wide (Llama 3 8B's) whose wavelength 2 pi base^(2i/d) fits in the context,
    counted one pair at a time."""
    return sum(1 for i in range(d // 2) if 2 * math.pi * base ** (2 * i / d) <= context)


def _window_mask(n, window):
    """Query i may read keys i - window + 1 .. i: built here with loops, not mha_ref.windows."""
    return np.array([[i - window < j <= i for j in range(n)] for i in range(n)])


WIDER = _forward(mask=_window_mask(toy.N, 4))  # the window edit exercise: a window of 4 keys
TODAY_ROPE_PAIRS = {
    "llama3.d_k": (128, EXACT), "llama3.context": (8192, EXACT), "today.rope.pairs": (64, EXACT),
    "today.rope.base_roformer": (10000, EXACT), "today.rope.base_llama3": (500000, EXACT),
    "ex.today.rope.log_context": (math.log(8192 / (2 * math.pi)), CLOSE),
    "ex.today.rope.log_roformer": (math.log(10000), CLOSE),
    "ex.today.rope.log_llama3": (math.log(500000), CLOSE),
    "ex.today.rope.last_roformer": (64 * math.log(8192 / (2 * math.pi)) / math.log(10000), CLOSE),
    "ex.today.rope.last_llama3": (64 * math.log(8192 / (2 * math.pi)) / math.log(500000), CLOSE),
    "ex.today.rope.turning_roformer": (_rope_turning(10000), EXACT),
    "ex.today.rope.turning_llama3": (_rope_turning(500000), EXACT),
    "ex.today.rope.slow_roformer": (64 - _rope_turning(10000), EXACT),
    "ex.today.rope.slow_llama3": (64 - _rope_turning(500000), EXACT),
}
TODAY_WIDER_WINDOW = {
    "ex.today.window.wider": (4, EXACT),
    "ex.today.window.wider_syntax_ate": (WIDER[1][SYN, RAN, ATE], CLOSE),
    "ex.today.window.wider_rare_ate": (WIDER[1][RARE, RAN, ATE], CLOSE),
    "ex.today.window.wider_rare_ran": (WIDER[1][RARE, RAN, RAN], CLOSE),
}
INDEPENDENT.update(TODAY_ROPE_PAIRS)
INDEPENDENT.update(TODAY_WIDER_WINDOW)


def test_attention_today_rope_pairs_claims():
    # the count is the whole numbers from 0 up to the bound: the bound's floor plus one
    for base, last in ((10000, "last_roformer"), (500000, "last_llama3")):
        assert _rope_turning(base) == math.floor(quantities.value(f"ex.today.rope.{last}")) + 1
    assert _rope_turning(500000) < _rope_turning(10000)  # the larger base leaves more pairs turning less than once


def test_edit_wider_window_gives_the_syntax_head_ate_back_and_splits_the_rare_head():
    copy = edited("attention-today")
    assert copy.WINDOW == 4
    w = copy.trace().weights
    np.testing.assert_allclose(w, WIDER[1], atol=1e-12)
    assert np.flatnonzero(_window_mask(toy.N, 4)[RAN]).tolist() == [ATE, AND, IT, RAN]  # what `ran` reads
    assert w[SYN, RAN].argmax() == ATE and abs(w[SYN, RAN, ATE] - CAUSAL[1][SYN, RAN, ATE]) < 0.005  # as causal
    assert w[RARE, RAN, CAT] == 0 and set(np.argsort(w[RARE, RAN])[-2:]) == {ATE, RAN}  # split over the two
    assert w[RARE, RAN, ATE] < 0.75 and w[RARE, RAN, RAN] > 0.25
    rarity = toy.rarity()
    assert abs(rarity[ATE] - rarity[RAN]) < 0.3 < min(rarity[ATE] - rarity[j] for j in (AND, IT))  # "about as rare"
    # the sentences the answer calls false: before the edit `ran` reads and, it, ran only, and the syntax
    # head splits between `and` and `it`
    assert np.flatnonzero(_window_mask(toy.N, 3)[RAN]).tolist() == [AND, IT, RAN]
    before = _forward(mask=_window_mask(toy.N, 3))[1]
    assert set(np.argsort(before[SYN, RAN])[-2:]) == {AND, IT} and w[SYN, RAN, AND] < 0.01


def _printed_names() -> set[str]:
    return {m["name"] for page in PAGES for lang in LANGS for m in VALUE.finditer(section(page, lang))}


def test_the_running_example_is_the_one_these_indices_name():
    assert toy.HEADS == ("position", "syntax", "rare", "diffuse")
    assert toy.TOKENS == ("the", "cat", "ate", "and", "it", "ran")
    np.testing.assert_allclose(W, toy.trace().weights, rtol=0, atol=1e-12)  # the plain numpy pass above


def test_every_number_the_exercises_print_is_recomputed_here_and_nothing_else():
    assert _printed_names() == set(INDEPENDENT)


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_a_printed_number_matches_its_independent_computation(name):
    expected, tol = INDEPENDENT[name]
    got = quantities.value(name)
    if tol == EXACT:
        assert got == expected and isinstance(got, int) == isinstance(expected, int), (got, expected)
    else:
        assert got == pytest.approx(float(expected), rel=tol, abs=tol), (got, expected)


def test_the_two_languages_print_the_same_numbers_in_the_same_formats():
    for page in PAGES:
        zh, en = ([(m["name"], m["spec"], m["direction"]) for m in VALUE.finditer(section(page, lang))] for lang in LANGS)
        assert sorted(zh, key=str) == sorted(en, key=str), page


# the answers' claims --------------------------------------------------------------------------------
def test_one_head_blends_claims():
    # the softmax by hand: the three words left out hardly count, and it agrees to three decimals
    left_out = sum(math.exp(S[POS, IT, j] - S[POS, IT, AND]) for j in (THE, CAT, RAN))
    assert left_out < 1e-4
    assert format(quantities.value("ex.blend.hand_and"), ".3f") == format(W[POS, IT, AND], ".3f")
    # nearly all the rest goes to `ate` and `it`, the bars on either side of `and`
    assert W[POS, IT, ATE] + W[POS, IT, IT] > 0.99 * (1 - W[POS, IT, AND])
    # the tie is where the dip figure marks its lowest point (to the printed three decimals)
    assert format(TIE, ".3f") == format(quantities.value("blend.min_ratio"), ".3f")
    assert AT_TIE[AND] == pytest.approx(AT_TIE[RAN], rel=1e-12)
    # what is left at the lowest point goes mostly to `it`, and the tied pair stays below a half
    assert AT_TIE[IT] > (1 - 2 * AT_TIE[AND]) / 2 and AT_TIE[AND] < 0.5


@pytest.mark.parametrize("page", PAGES)
def test_the_edit_exercise_is_worded_with_the_code_it_edits(page):
    module, old, new, shown = EDITS[page]
    for lang in LANGS:
        text = section(page, lang)
        for code in shown:
            assert f"`{code}`" in text, f"{page}.{lang} does not show `{code}`"
    assert inspect.getsource(module).count(old) == 1


def edited(page) -> types.ModuleType:
    """A copy of the module the page's edit exercise names, with the edit made as the page words it."""
    module, old, new, _ = EDITS[page]
    source = inspect.getsource(module)
    assert source.count(old) == 1, f"{module.__name__} no longer holds {old!r} once: rewrite the exercise"
    copy = types.ModuleType(f"{module.__name__}_edited")
    copy.__package__, copy.__file__ = module.__package__, module.__file__
    exec(compile(source.replace(old, new), module.__file__, "exec"), copy.__dict__)
    return copy


_GAIN = "GAIN_SYNTAX = GAIN_POSITION * np.sqrt(1.0 - np.cos(2 * STEP))\n"
_TRACE = "t = mha_trace(inputs(), params(w_o_mix), H)"
_MASKED = "t = mha_trace(inputs(), params(w_o_mix), H, mask=np.tril(np.ones((N, N), dtype=bool)))"
EDITS = {  # page -> (module, the text replaced, its replacement, the code spans the page shows)
    "one-head-blends": (toy, _GAIN, _GAIN + "GAIN_SYNTAX *= np.sqrt(2)\n", ["GAIN_SYNTAX *= np.sqrt(2)", "GAIN_SYNTAX"]),
    "slicing-the-width": (toy, "rare_reads: int = 6", "rare_reads: int = 7",
                          ["rare_reads: int = 6", "rare_reads: int = 7", "w_k[rare_reads, 4] += GAIN_RARE"]),
    "heads-side-by-side": (attention_module, "/ math.sqrt(d_k)", "/ math.sqrt(x.shape[-1])",
                           ["/ math.sqrt(d_k)", "/ math.sqrt(x.shape[-1])", "pytest tests/test_attention.py",
                            "test_loop_equals_batched"]),
    "what-trained-heads-do": (toy, '"ran": 27', '"ran": 2', ['"ran": 27', '"ran": 2', "FREQUENCIES"]),
    "concatenate-then-mix": (toy, "slots=slice(0, D_K)", "slots=slice(D_K, 2 * D_K)",
                             ["slots=slice(0, D_K)", "slots=slice(D_K, 2 * D_K)",
                              "pytest tests/test_figure_claims.py -k block_diagonal"]),
    "what-it-costs": (expressiveness, "N_KEYS = 16", "N_KEYS = 32", ["N_KEYS = 16", "N_KEYS = 32"]),
    "the-code": (toy, _TRACE + "\n", _MASKED + "\n", [_TRACE, _MASKED]),
    "attention-today": (windowed, "WINDOW = 3", "WINDOW = 4", ["WINDOW = 3", "WINDOW = 4"]),
}


def test_edit_louder_syntax_moves_the_dip_towards_position_and_spoils_the_halfway_remark():
    louder = edited("one-head-blends")
    ratio, _ = louder.blend_minimum("it")
    predicted = quantities.value("ex.blend.tie_louder")
    assert abs(ratio - predicted) < 0.01 and format(ratio, ".2f") == format(predicted, ".2f")
    assert ratio < quantities.value("blend.min_ratio")  # towards the pure-position end
    assert [s.token for s in louder.blend_top_keys("it")] == ["and", "ran"]  # it still switches there
    halfway = louder.blend_weights(0.5)[IT]
    assert halfway.argmax() == RAN and halfway.max() > 0.95  # "settled on nothing" no longer holds
    assert toy.blend_weights(0.5)[IT].max() < 0.5  # as it does before the edit


def test_edit_rare_head_reading_x7_moves_its_darkest_cell_but_not_its_target():
    reads = edited("slicing-the-width").head_sensitivity().attention_path[RARE]
    before = toy.head_sensitivity().attention_path[RARE]
    assert before.argmax() == 6 and reads.argmax() == 7
    assert reads[6] <= max(np.delete(reads, [6, 7]))  # x6 fades to the level of the rest
    assert reads[6] < 0.05  # the number the page calls the darkest cell is now small
    copy = edited("slicing-the-width")
    assert set(copy.targets("rare")) == {CAT}  # still `cat` ...
    assert toy.inputs()[:, 7].argmax() == CAT  # ... which happens to have the largest x7
    # "only loosely": the numbers the answer prints are the edited block's, and lower than before
    weights = copy.trace().weights[copy.head_index("rare")]
    np.testing.assert_array_equal(weights, toy.rare_weights_reading(7))
    assert set(weights.argmax(axis=1)) == {CAT}  # the largest weight on `cat` at every query
    assert weights[:, CAT].max() < 0.5 < quantities.value("heads.rare_min_cat")
    assert quantities.value("ex.rare_reads_x7.cat_min") == weights[:, CAT].min()


def test_edit_dividing_by_sqrt_d_model_flattens_the_rows_and_breaks_the_loop_parity():
    attn = edited("heads-side-by-side")
    t = attn.mha_trace(toy.inputs(), toy.params(), toy.H)
    for name, (head, query, key) in {"position_it_and": (POS, IT, AND), "syntax_it_ran": (SYN, IT, RAN),
                                     "rare_it_cat": (RARE, IT, CAT)}.items():
        assert t.weights[head, query, key] == pytest.approx(quantities.value(f"ex.wrong_scale.{name}"), rel=1e-12)
    assert t.weights[POS, IT, AND] < W[POS, IT, AND] and t.weights[RARE, IT, CAT] < W[RARE, IT, CAT]
    assert W[SYN, IT, RAN] - t.weights[SYN, IT, RAN] < 0.02  # the syntax head hardly moves
    assert np.abs(t.weights[DIFF] - W[DIFF]).max() < 0.01  # the diffuse head shows no difference
    np.testing.assert_allclose(t.weights.sum(axis=-1), 1.0)  # every row still sums to one
    _, loop_weights = attention_module.multi_head_attention_loop(toy.inputs(), toy.params(), toy.H)
    assert not np.allclose(t.weights, loop_weights)  # what test_loop_equals_batched compares
    assert "def test_loop_equals_batched" in (ROOT / "tests" / "test_attention.py").read_text(encoding="utf-8")


def test_edit_ran_rarest_moves_the_rare_head_only_and_it_still_meets_its_bar():
    copy = edited("what-trained-heads-do")
    assert roles.rarest_token(copy.TOKENS, copy.FREQUENCIES) == "ran"
    assert set(copy.targets("rare")) == {RAN}
    for head in ("position", "syntax"):
        np.testing.assert_array_equal(copy.targets(head), toy.targets(head))
    measured = roles.measure(copy.trace().weights[RARE], copy.TOKENS, copy.FREQUENCIES, copy.SYNTAX_TARGET)
    assert measured.rare_hits == toy.N and "rare" in measured.roles


def test_edit_syntax_slots_at_zero_mixing_show_the_syntax_head_alone():
    c = edited("concatenate-then-mix").contributions(0.0)
    assert np.all(c[[POS, RARE, DIFF]] == 0)
    np.testing.assert_allclose(c[SYN], HEADS[SYN, IT], rtol=1e-12)
    np.testing.assert_array_equal(toy.params(0.0).w_o, np.eye(toy.D_MODEL))  # W_O at zero is the identity
    np.testing.assert_allclose(HEADS[SYN, IT], V[RAN, 2:4], atol=1e-3)  # almost its value vector for `ran`
    assert np.all(np.abs(edited("concatenate-then-mix").contributions(1.0)).sum(axis=1) > 1e-3)


def test_edit_more_keys_leaves_the_one_number_bar_at_two_and_the_widest_bars_at_all_keys():
    more = edited("what-it-costs")
    assert more.N_KEYS == 32 and more.reachable_top_keys(1) == 2
    widest = [d_k for d_k in expressiveness.head_widths() if expressiveness.reachable_top_keys(d_k) == expressiveness.N_KEYS]
    assert widest and all(more.reachable_top_keys(d_k) == more.N_KEYS for d_k in widest)


def test_edit_causal_mask_on_the_running_example():
    w = edited("the-code").trace().weights
    np.testing.assert_allclose(w, CAUSAL[1], atol=1e-12)
    assert format(w[POS, IT, AND], ".2f") == format(W[POS, IT, AND], ".2f")  # barely changes
    assert w[SYN, IT, RAN] == 0 and w[SYN, IT].argmax() == IT  # the target is masked; `it` itself comes first
    assert w[RARE, IT].argmax() == CAT and w[RARE, IT, CAT] > W[RARE, IT, CAT]
    assert np.all(w[DIFF, IT, :RAN] > W[DIFF, IT, :RAN])  # every bar of the diffuse head rises
    np.testing.assert_array_equal(w[:, THE, THE], 1.0)
    # what the causal-mask exercise counts: n(n-1)/2 masked, n(n+1)/2 kept
    assert quantities.value("ex.causal.masked") == toy.N * (toy.N - 1) // 2
    assert quantities.value("ex.causal.kept") == toy.N * (toy.N + 1) // 2


def test_slicing_the_width_claims():
    for name in ("gpt3", "gpt2xl"):
        d, h = quantities.value(f"ex.{name}.d_model"), quantities.value(f"ex.{name}.h")
        assert d % h == 0
    h = quantities.value("ex.gpt2xl.h")
    assert h & (h - 1) != 0  # not a power of two
    assert quantities.value("ex.t5.ratio") * quantities.value("t5.d_model") == quantities.value("t5.inner")


def test_heads_side_by_side_claims():
    # the measured spreads differ from sqrt(d_k) only by sampling
    for d_k in (8, 64):
        assert scale.dot_spread(d_k) == pytest.approx(math.sqrt(d_k), rel=0.01)
    # the other keys of the scale figure score exactly zero
    for d_k in scale.D_KS:
        q, k = scale.query_and_keys(d_k)
        np.testing.assert_allclose(k[1:] @ q, 0.0, atol=1e-12)
    # the smallest possible largest weight is 1/n, and the diffuse head is only a little above it
    assert 1 / toy.N < W[DIFF].max(axis=1).min() and W[DIFF].max() < 1.1 / toy.N


def test_what_trained_heads_do_claims():
    assert _ablation(RARE, "outputs") < 0.1 * _ablation(RARE, "values")
    assert abs(_ablation(POS, "outputs") - _ablation(POS, "values")) < 0.05
    coloured = [W[i].max(axis=1).mean() for i in (POS, SYN, RARE)]
    assert min(coloured) == W[POS].max(axis=1).mean() > 0.9


def test_concatenate_then_mix_claims():
    """Changing the syntax head's columns of W_Q changes its own two slots of the concatenation;
    the output, everywhere through a mixing W_O, in those two slots only through a block-diagonal one."""
    x, p = toy.inputs(), toy.params()
    p2 = p._replace(w_q=p.w_q.copy())
    p2.w_q[:, 2:4] += np.random.default_rng(0).normal(0, 0.5, (toy.D_MODEL, 2))
    it = IT
    before, after = (attention_module.mha_trace(x, q, toy.H) for q in (p, p2))
    changed = ~np.isclose(before.concat[it], after.concat[it], rtol=0, atol=1e-12)
    assert changed.tolist() == [False, False, True, True, False, False, False, False]
    assert np.all(~np.isclose(before.out[it], after.out[it], rtol=0, atol=1e-12))
    block = toy.params(0.0)
    a, b = (attention_module.mha_trace(x, q._replace(w_o=block.w_o), toy.H) for q in (p, p2))
    assert (~np.isclose(a.out[it], b.out[it], rtol=0, atol=1e-12)).tolist() == changed.tolist()


def test_what_it_costs_claims():
    assert quantities.value("ex.bert.crossover") / quantities.value("ex.bert.context") == quantities.value("ex.bert.ratio")
    assert quantities.value("ex.gpt3.weights_all") == quantities.value("ex.gpt3.h") * quantities.value("ex.gpt3.weights_one")


def test_the_code_claims():
    x = toy.inputs()
    parts = split_heads(x, toy.H)
    assert parts.shape == (toy.H, toy.N, toy.D_K)
    for i in range(toy.H):
        for t in range(toy.N):
            np.testing.assert_array_equal(parts[i, t], x[t, i * toy.D_K:(i + 1) * toy.D_K])
    np.testing.assert_array_equal(merge_heads(parts), x)
    # the sentence turned around: the output rows turn around, and `it` still looks at `and`
    back = attention_module.mha_trace(x[::-1], toy.params(), toy.H)
    np.testing.assert_allclose(back.out, toy.trace().out[::-1], rtol=1e-12, atol=1e-12)
    r = toy.N - 1
    assert back.weights[POS, r - IT, r - AND] == pytest.approx(W[POS, IT, AND], rel=1e-12)
    # nearly half the entries of a causal table are zeros
    assert 0.4 < quantities.value("ex.causal.masked") / quantities.value("ex.causal.entries") < 0.5


def test_a_ratio_that_is_not_whole_is_refused():
    with pytest.raises(ValueError, match="not a whole multiple"):
        quantities._whole(1600, 24)


def test_attention_today_tiles_and_latent_claims():
    # `and` has the row's largest score, in the second tile of two and of three
    assert _ROW.argmax() == AND and 2 <= AND < 4 and 3 <= AND < 6
    # tiles of three: the first tile's largest is `ate` (its term exactly one), the second rescales it
    assert _ROW[:3].argmax() == ATE
    # "mostly ate's": the other two terms of the first tile are far below it
    assert np.exp(_ROW[[THE, CAT]] - _ROW[ATE]).sum() < 1e-3
    # the denominator at the end is the same whatever the tiles, printed alike
    from mha_ref.example import tiles
    for block in range(1, toy.N + 1):
        got = tiles.trace(block).l[-1, 0]
        assert got == pytest.approx(_L_ROW, rel=1e-12) and format(got, ".3f") == format(_L_ROW, ".3f")
    # with tiles of two, cat's term, one after the first tile, is left at the rescale factor
    assert _ROW[:2].argmax() == CAT
    # DeepSeek-V3's cache is worth a number of key/value heads that is not whole
    groups = quantities.value("ex.today.mla.groups")
    assert groups != int(groups)
    assert quantities.value("ex.today.mla.seq_gib") * 2 ** 30 == 2 ** 17 * quantities.value("today.mla.v3_bytes")
