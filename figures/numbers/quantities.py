"""Named numbers that the pages print. Prose writes {{ value NAME }} instead of typing a number.

Each entry is computed by mha_ref when the site is built; the name is the only thing the page
knows. Add an entry here, then use it in both languages.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable

import numpy as np

from mha_ref import costs, models, roles
from mha_ref.attention import MHATrace, attention, merge_heads, mha_trace
from mha_ref.example import causal, expressiveness, one_head, reshape, rotary, scale, toy, windowed
from mha_ref.rope import rope_wavelengths
from mha_ref.tiny import lm_findings, lm_heads
from mha_ref.windows import window_reach

from ..keep import tiny_lm


def _blend(alpha_index: int, token: str | None = None) -> Callable[[], float]:
    def value() -> float:
        row = toy.blend_curve()[alpha_index]
        return float(row.max() if token is None else row[toy.token_index(token)])
    return value


_MID = toy.BLEND_STEPS // 2


def _top_span(query: str, token: str) -> toy.TopSpan:
    """The one span of blend ratios where `token` tops the blended row of `query`."""
    spans = [s for s in toy.blend_top_keys(query) if s.token == token]
    if len(spans) != 1:
        raise ValueError(f"expected one span where {token!r} tops the row of {query!r}, got {spans}")
    return spans[0]
_GPT2 = models.model("GPT-2 small")
_BASE = models.model("Transformer base")


def _head_weight(head: str, query: str, key: str) -> Callable[[], float]:
    def value() -> float:
        w = toy.trace().weights[toy.head_index(head)]
        return float(w[toy.token_index(query), toy.token_index(key)])
    return value


def _gpt2_costs() -> costs.MultiplyAdds:
    return costs.multiply_adds(_GPT2.context, _GPT2.d_model, _GPT2.heads)


_LLAMA3 = models.model("Llama 3 8B")
_KIB, _MIB, _GIB = 2 ** 10, 2 ** 20, 2 ** 30


def _in_units(n_bytes: int, unit: int) -> int | float:
    """Bytes in KiB, MiB or GiB: a whole number when it divides exactly (printed without decimals)."""
    return n_bytes // unit if n_bytes % unit == 0 else n_bytes / unit


def _llama3_kv_weights(kv_heads: int) -> int:
    """The weights of W_K and W_V in one layer of Llama 3 8B's width, with kv_heads key/value heads."""
    return costs.kv_param_count(_LLAMA3.d_model, _LLAMA3.heads, kv_heads, bias=False)


def _llama3_cache_bytes(kv_heads: int) -> int:
    """What every token of the context adds to the key/value cache, over all of Llama 3 8B's layers."""
    return costs.bytes_of(costs.kv_cache_per_token(_LLAMA3.d_model, _LLAMA3.heads, kv_heads,
                                                   layers=_LLAMA3.layer_count))


QUANTITIES: dict[str, Callable[[], float | int]] = {
    "toy.n": lambda: toy.N,
    "toy.d_model": lambda: toy.D_MODEL,
    "toy.h": lambda: toy.H,
    "toy.d_k": lambda: toy.D_K,
    "blend.steps": lambda: toy.BLEND_STEPS,
    "blend.peak_position": _blend(0),
    "blend.peak_syntax": _blend(-1),
    "blend.peak_mid": _blend(_MID),
    "blend.mid_and": _blend(_MID, "and"),
    "blend.mid_ran": _blend(_MID, "ran"),
    # the true minimum of the row's peak, between the slider's stops
    "blend.min_ratio": lambda: toy.blend_minimum("it")[0],
    "blend.min_peak": lambda: toy.blend_minimum("it")[1],
    "blend.and_self_start": lambda: _top_span("and", "and").start,
    "blend.and_self_end": lambda: _top_span("and", "and").end,
    "diffuse.max_weight": lambda: float(toy.trace().weights[toy.head_index("diffuse")].max()),
    "heads.position_it_and": _head_weight("position", "it", "and"),
    "heads.syntax_it_ran": _head_weight("syntax", "it", "ran"),
    "heads.rare_min_cat": lambda: float(toy.trace().weights[toy.head_index("rare")][:, toy.token_index("cat")].min()),
    # what-a-head-reads: a nudge to one token, by path
    "reads.rare_x6": lambda: float(toy.head_sensitivity().attention_path[toy.head_index("rare"), 6]),
    "reads.rare_x6_every_token": lambda: float(
        toy.head_sensitivity(every_token=True).attention_path[toy.head_index("rare"), 6]),
    "reads.syntax_weights_max": lambda: float(toy.head_sensitivity().attention_path[toy.head_index("syntax")].max()),
    "ablation.position": lambda: float(toy.ablation()[toy.head_index("position")]),
    "ablation.syntax": lambda: float(toy.ablation()[toy.head_index("syntax")]),
    "ablation.rare": lambda: float(toy.ablation()[toy.head_index("rare")]),
    "ablation.diffuse": lambda: float(toy.ablation()[toy.head_index("diffuse")]),
    "voita.heads": lambda: models.VOITA_ENCODER_HEADS,
    "voita.kept": lambda: models.VOITA_PRUNED["heads_kept"],
    "voita.pruned": lambda: models.VOITA_ENCODER_HEADS - models.VOITA_PRUNED["heads_kept"],
    "voita.drop": lambda: models.VOITA_PRUNED["bleu_drop"],
    "voita.kept_subs": lambda: models.VOITA_PRUNED_SUBTITLES["heads_kept"],
    "voita.drop_subs": lambda: models.VOITA_PRUNED_SUBTITLES["bleu_drop"],
    "voita.positional_pct": lambda: models.VOITA_ROLES["positional_pct"],
    "voita.rarest_pct": lambda: models.VOITA_ROLES["rarest_pct"],
    "voita.two_rarest_pct": lambda: models.VOITA_ROLES["two_rarest_pct"],
    "voita.roles_heads": lambda: models.VOITA_ROLES["all_roles_heads"],
    # Voita et al.'s measures of the toy heads, against the paper's bars
    "voita.confident_pct": lambda: models.VOITA_ROLES["confident_pct"],
    "roles.syntactic_bar_pct": lambda: 100 * roles.ROLE_BARS["syntactic"].share,
    "roles.position.confidence": lambda: roles.toy_head_roles()["position"].confidence,
    "roles.diffuse.confidence": lambda: roles.toy_head_roles()["diffuse"].confidence,
    "roles.uniform_weight": lambda: 1 / toy.N,  # what a head gets by weighting every token alike
    "roles.position.offset_hits": lambda: roles.toy_head_roles()["position"].offset_hits,
    "roles.position.offset_pct": lambda: 100 * roles.toy_head_roles()["position"].offset_share,
    "roles.position.shortest_sentence": lambda: roles.shortest_sentence(
        roles.toy_head_roles()["position"].offset, models.VOITA_ROLES["positional_pct"]),
    "roles.syntax.syntax_hits": lambda: roles.toy_head_roles()["syntax"].relation_hits["syntax"][0],
    "roles.rare.rare_hits": lambda: roles.toy_head_roles()["rare"].rare_hits,
    # exact counts of keys that can be a head's top choice
    "expr.keys": lambda: expressiveness.N_KEYS,
    "expr.d_model": lambda: expressiveness.D_MODEL,
    "expr.reachable_1": lambda: expressiveness.reachable_top_keys(1),
    "expr.reachable_2": lambda: expressiveness.reachable_top_keys(2),
    "expr.all_from_d_k": expressiveness.narrowest_reaching_all,
    "published.h_min": lambda: min(m.heads for m in models.PUBLISHED_MODELS),
    "published.h_max": lambda: max(m.heads for m in models.PUBLISHED_MODELS),
    "published.dk_min": lambda: min(m.d_head for m in models.PUBLISHED_MODELS),
    "published.dk_max": lambda: max(m.d_head for m in models.PUBLISHED_MODELS),
    "bleu.gap": lambda: max(r.bleu for r in models.HEAD_COUNT_TABLE) - models.HEAD_COUNT_TABLE[0].bleu,
    "bleu.one_head": lambda: models.HEAD_COUNT_TABLE[0].bleu,
    "bleu.best": lambda: max(r.bleu for r in models.HEAD_COUNT_TABLE),
    "scale.d_model": lambda: scale.D_MODEL,
    "scale.strength": lambda: scale.STRENGTH,
    "scale.d_k_min": lambda: min(scale.D_KS),
    "scale.peak": lambda: scale.peak(min(scale.D_KS), "d_k"),
    "scale.peak_wrong_narrowest": lambda: scale.peak(min(scale.D_KS), "d_model"),
    "scale.d_k_mid": lambda: scale.D_KS[len(scale.D_KS) // 2],  # the frame scale-pitfall opens on
    "scale.peak_wrong_8": lambda: scale.peak(8, "d_model"),
    "base.d_model": lambda: _BASE.d_model,
    "base.h": lambda: _BASE.heads,
    "base.d_k": lambda: _BASE.d_model // _BASE.heads,
    "gpt2.d_model": lambda: _GPT2.d_model,
    "gpt2.h": lambda: _GPT2.heads,
    "gpt2.d_k": lambda: _GPT2.d_model // _GPT2.heads,
    "gpt2.context": lambda: _GPT2.context,
    "gpt2.params": lambda: costs.param_count(_GPT2.d_model, _GPT2.heads),
    "gpt2.weights": lambda: costs.param_count(_GPT2.d_model, _GPT2.heads, bias=False),
    "gpt2.projections": lambda: _gpt2_costs().projections,
    "gpt2.attention": lambda: _gpt2_costs().attention,
    "gpt2.ratio": lambda: _gpt2_costs().projections / _gpt2_costs().attention,
    "gpt2.crossover": lambda: costs.crossover_context(_GPT2.d_model),
    # models whose heads are not d_model / h wide
    "t5.d_model": lambda: models.WIDE_HEADS[0].d_model,
    "t5.heads": lambda: models.WIDE_HEADS[0].heads,
    "t5.d_head": lambda: models.WIDE_HEADS[0].d_head,
    "t5.inner": lambda: models.WIDE_HEADS[0].inner,
    "gemma.d_model": lambda: models.WIDE_HEADS[1].d_model,
    "gemma.heads": lambda: models.WIDE_HEADS[1].heads,
    "gemma.d_head": lambda: models.WIDE_HEADS[1].d_head,
    "gemma.inner": lambda: models.WIDE_HEADS[1].inner,
    "roles.diffuse.top_gap": lambda: float(np.max(np.diff(np.sort(
        toy.trace().weights[toy.head_index("diffuse")], axis=-1)[:, -2:], axis=-1))),
    "heads.top_min": lambda: float(min(toy.trace().weights[toy.head_index(h)].max(axis=-1).min()
                                       for h in ("position", "syntax", "rare"))),
    "heads.rare_max_cat": lambda: float(toy.trace().weights[toy.head_index("rare")][:, toy.token_index("cat")].max()),
    # slicing-the-width's exercise: the rare-token head's key reading x_7 instead of the rarity
    "ex.rare_reads_x7.cat_min": lambda: float(toy.rare_weights_reading(7)[:, toy.token_index("cat")].min()),
    "ex.rare_reads_x7.cat_max": lambda: float(toy.rare_weights_reading(7)[:, toy.token_index("cat")].max()),
    # what does grow with h: exponentials and stored weights, h n^2 per block
    "gpt2.weights_one_head": lambda: costs.attention_weights(_GPT2.context, 1),
    "gpt2.weights_all_heads": lambda: costs.attention_weights(_GPT2.context, _GPT2.heads),
    # splitting heads without the transpose
    "reshape.tokens_per_head": lambda: max(len(np.unique(t)) for t in reshape.provenance(
        reshape.split_heads_without_transpose)[0]),
    "reshape.largest_change": reshape.largest_weight_change,
    # the running example under a causal mask
    "causal.syntax_it_top": lambda: float(causal.trace().weights[toy.head_index("syntax"), toy.token_index("it")].max()),
    "causal.syntax_it_the": lambda: causal.weight("syntax", "it", "the"),
    "causal.syntax_it_and": lambda: causal.weight("syntax", "it", "and"),
    "causal.syntax_it_it": lambda: causal.weight("syntax", "it", "it"),
    "causal.syntax_cat_the": lambda: causal.weight("syntax", "cat", "the"),
    "causal.syntax_and_and": lambda: causal.weight("syntax", "and", "and"),
    "causal.position_change": lambda: causal.largest_change("position"),
    "gpt2.causal_allowed": lambda: causal.allowed_weights(_GPT2.context),
    # attention-memory and kv-heads: bytes at the pages' 16-bit floats
    "store.bits": lambda: 8 * costs.STORE_DTYPE.itemsize,
    "store.bytes": lambda: costs.STORE_DTYPE.itemsize,
    "gpt2.layers": lambda: _GPT2.layer_count,
    "gpt2.weights_all_heads_mib": lambda: _in_units(
        costs.bytes_of(costs.attention_weights(_GPT2.context, _GPT2.heads)), _MIB),
    "gpt2.weights_all_layers_mib": lambda: _in_units(
        _GPT2.layer_count * costs.bytes_of(costs.attention_weights(_GPT2.context, _GPT2.heads)), _MIB),
    "llama3.d_model": lambda: _LLAMA3.d_model,
    "llama3.layers": lambda: _LLAMA3.layer_count,
    "llama3.heads": lambda: _LLAMA3.heads,
    "llama3.kv_heads": lambda: _LLAMA3.kv_heads,
    "llama3.d_k": lambda: _LLAMA3.d_head,
    "llama3.context": lambda: _LLAMA3.context,
    "llama3.group": lambda: _LLAMA3.heads // _LLAMA3.kv_heads,  # query heads per key/value head
    "llama3.kv_weights_mha": lambda: _llama3_kv_weights(_LLAMA3.heads),
    "llama3.kv_weights_gqa": lambda: _llama3_kv_weights(_LLAMA3.kv_heads),
    "llama3.cache_kib_mha": lambda: _in_units(_llama3_cache_bytes(_LLAMA3.heads), _KIB),
    "llama3.cache_kib_gqa": lambda: _in_units(_llama3_cache_bytes(_LLAMA3.kv_heads), _KIB),
    "llama3.cache_kib_mqa": lambda: _in_units(_llama3_cache_bytes(1), _KIB),
    "llama3.cache_context_gib_mha": lambda: _in_units(_LLAMA3.context * _llama3_cache_bytes(_LLAMA3.heads), _GIB),
    "llama3.cache_context_gib_gqa": lambda: _in_units(_LLAMA3.context * _llama3_cache_bytes(_LLAMA3.kv_heads), _GIB),
    "gqa.kv_heads": lambda: models.GQA_T5_XXL["gqa8_kv_heads"],
    "gqa.mha_time": lambda: models.GQA_T5_XXL["mha_time_s"],
    "gqa.mha_score": lambda: models.GQA_T5_XXL["mha_score"],
    "gqa.gqa_time": lambda: models.GQA_T5_XXL["gqa8_time_s"],
    "gqa.gqa_score": lambda: models.GQA_T5_XXL["gqa8_score"],
    "gqa.mqa_time": lambda: models.GQA_T5_XXL["mqa_time_s"],
    "gqa.mqa_score": lambda: models.GQA_T5_XXL["mqa_score"],
    # each head in its plane, and every head's whole table
    "planes.diffuse_max_dot": lambda: float(np.abs(toy.head_plane("diffuse").dots).max()),
    "planes.sharp_min_top_dot": lambda: float(min(toy.head_plane(h).dots.max(axis=-1).min()
                                                  for h in ("position", "syntax", "rare"))),
    "maps.blend_split_peak": lambda: float(toy.blend_weights(0.5)[[toy.token_index(t) for t in ("cat", "it", "ran")]].max()),
    # what blending costs in the output
    "blend.mid_ratio": lambda: float(toy.blend_ratios()[_MID]),
    "blend.out_width": lambda: one_head.blend_values().shape[-1],
}


# The exercises at the end of each page ------------------------------------------------
# Each number an exercise or its worked answer prints; tests/test_exercises.py recomputes every one.

def _score(head: str, query: str, key: str) -> Callable[[], float]:
    """One of the running example's scores q.k / sqrt(d_k), in `head`'s row for `query`."""
    def value() -> float:
        return float(toy.trace().scores[toy.head_index(head)][toy.token_index(query), toy.token_index(key)])
    return value


def _it_margins() -> tuple[float, float]:
    """How far the position head puts `and` ahead of `ran` in the row of `it`, and the syntax head `ran` ahead of `and`."""
    pos, syn = (toy.trace().scores[toy.head_index(h)][toy.token_index("it")] for h in ("position", "syntax"))
    a, r = toy.token_index("and"), toy.token_index("ran")
    return float(pos[a] - pos[r]), float(syn[r] - syn[a])


def _blend_at_minimum(token: str) -> float:
    """The blended row of `it` at the ratio where its largest weight is lowest: the weight on `token`."""
    return float(toy.blend_weights(toy.blend_minimum("it")[0])[toy.token_index("it"), toy.token_index(token)])


def _divided_by_d_model(head: str, query: str, key: str) -> Callable[[], float]:
    """A weight of the running example had mha_trace divided each head's scores by sqrt(d_model)."""
    def value() -> float:
        t, i = toy.trace(), toy.head_index(head)
        _, w = attention(t.q[i], t.k[i], t.v[i], scale=1.0 / np.sqrt(toy.D_MODEL))
        return float(w[toy.token_index(query), toy.token_index(key)])
    return value


def _sentence_mean_ablation(head: str) -> float:
    """What removing `head` would cost (as toy.ablation measures it) were it replaced by the mean of
    its outputs over this one sentence, instead of the mean of its value vectors."""
    t, w_o, i = toy.trace(), toy.params().w_o, toy.head_index(head)
    heads = t.heads.copy()
    heads[i] = t.heads[i].mean(axis=0, keepdims=True)
    full = t.concat @ w_o
    return float(np.linalg.norm(merge_heads(heads) @ w_o - full) / np.linalg.norm(full))


@functools.cache
def _causal_trace() -> MHATrace:
    """The running example with a causal mask: each token may look at itself and the tokens before it."""
    return mha_trace(toy.inputs(), toy.params(), toy.H, mask=np.tril(np.ones((toy.N, toy.N), dtype=bool)))


def _causal_weight(head: str, query: str, key: str) -> Callable[[], float]:
    def value() -> float:
        return float(_causal_trace().weights[toy.head_index(head)][toy.token_index(query), toy.token_index(key)])
    return value


def _whole(a: int, b: int) -> int:
    """a / b, which must come out whole (a head width, a ratio of widths)."""
    if a % b:
        raise ValueError(f"{a} is not a whole multiple of {b}")
    return a // b


_GPT3 = models.model("GPT-3 175B")
_GPT2_XL = models.model("GPT-2 XL")
_BERT = models.model("BERT base")
_T5 = models.WIDE_HEADS[0]
_D_K_MID = scale.D_KS[len(scale.D_KS) // 2]  # the d_k of scale.peak_wrong_8's frame

EXERCISES: dict[str, Callable[[], float | int]] = {
    # one-head-blends
    **{f"ex.blend.pos_it.{t}": _score("position", "it", t) for t in toy.TOKENS},
    "ex.blend.syn_it.and": _score("syntax", "it", "and"),
    "ex.blend.syn_it.ran": _score("syntax", "it", "ran"),
    "ex.blend.gap_ate": lambda: _score("position", "it", "and")() - _score("position", "it", "ate")(),
    "ex.blend.gap_it": lambda: _score("position", "it", "and")() - _score("position", "it", "it")(),
    "ex.blend.exp_ate": lambda: float(np.exp(-value("ex.blend.gap_ate"))),
    "ex.blend.exp_it": lambda: float(np.exp(-value("ex.blend.gap_it"))),
    "ex.blend.hand_and": lambda: 1 / (1 + value("ex.blend.exp_ate") + value("ex.blend.exp_it")),
    "ex.blend.margin_pos": lambda: _it_margins()[0],
    "ex.blend.margin_syn": lambda: _it_margins()[1],
    "ex.blend.tie": lambda: _it_margins()[0] / sum(_it_margins()),
    "ex.blend.min_others": lambda: 1 - _blend_at_minimum("and") - _blend_at_minimum("ran"),
    "ex.blend.min_it": lambda: _blend_at_minimum("it"),
    # the syntax head's margin doubled (GAIN_SYNTAX times sqrt 2): where the scores of and and ran then meet
    "ex.blend.tie_louder": lambda: _it_margins()[0] / (_it_margins()[0] + 2 * _it_margins()[1]),
    # slicing-the-width
    "ex.gpt3.d_model": lambda: _GPT3.d_model,
    "ex.gpt3.h": lambda: _GPT3.heads,
    "ex.gpt3.d_k": lambda: _whole(_GPT3.d_model, _GPT3.heads),
    "ex.gpt2xl.d_model": lambda: _GPT2_XL.d_model,
    "ex.gpt2xl.h": lambda: _GPT2_XL.heads,
    "ex.gpt2xl.d_k": lambda: _whole(_GPT2_XL.d_model, _GPT2_XL.heads),
    "ex.t5.weights": lambda: 4 * _T5.d_model * _T5.inner,  # W_Q, W_K, W_V: d_model x h d_k; W_O: h d_k x d_model
    "ex.t5.weights_split": lambda: costs.param_count(_T5.d_model, 1, bias=False),
    "ex.t5.ratio": lambda: _whole(_T5.inner, _T5.d_model),
    # heads-side-by-side
    "ex.scale.root_mid": lambda: float(np.sqrt(_D_K_MID)),
    "ex.scale.spread_mid": lambda: scale.dot_spread(_D_K_MID),
    "ex.scale.root_full": lambda: float(np.sqrt(scale.D_MODEL)),
    "ex.scale.spread_full": lambda: scale.dot_spread(scale.D_MODEL),
    "ex.scale.others": lambda: scale.N_KEYS - 1,
    "ex.scale.exp_strength": lambda: float(np.exp(scale.STRENGTH)),
    "ex.scale.h_mid": lambda: _whole(scale.D_MODEL, _D_K_MID),
    "ex.scale.margin_mid": lambda: float(scale.STRENGTH / np.sqrt(_whole(scale.D_MODEL, _D_K_MID))),
    "ex.scale.exp_margin_mid": lambda: float(np.exp(value("ex.scale.margin_mid"))),
    "ex.heads.rare_it_cat": _head_weight("rare", "it", "cat"),
    "ex.wrong_scale.position_it_and": _divided_by_d_model("position", "it", "and"),
    "ex.wrong_scale.syntax_it_ran": _divided_by_d_model("syntax", "it", "ran"),
    "ex.wrong_scale.rare_it_cat": _divided_by_d_model("rare", "it", "cat"),
    # what-trained-heads-do
    "ex.ablation.rare_sentence_mean": lambda: _sentence_mean_ablation("rare"),
    "ex.ablation.position_sentence_mean": lambda: _sentence_mean_ablation("position"),
    # concatenate-then-mix
    "ex.base.w_o_block": lambda: _whole(_BASE.d_model, _BASE.heads) * _BASE.d_model,
    "ex.base.w_o": lambda: _BASE.d_model ** 2,
    "ex.toy.block_entries": lambda: toy.H * toy.D_K ** 2,
    "ex.toy.w_o_entries": lambda: toy.D_MODEL ** 2,
    "ex.heads.syntax_it_out_0": lambda: float(toy.trace().heads[toy.head_index("syntax")][toy.token_index("it"), 0]),
    "ex.heads.syntax_it_out_1": lambda: float(toy.trace().heads[toy.head_index("syntax")][toy.token_index("it"), 1]),
    # what-it-costs
    "ex.base.params": lambda: costs.param_count(_BASE.d_model, _BASE.heads),
    "ex.base.params_one_head": lambda: costs.param_count(_BASE.d_model, 1),
    "ex.base.head_params": lambda: costs.head_param_count(_BASE.d_model, _BASE.heads),
    "ex.bert.d_model": lambda: _BERT.d_model,
    "ex.bert.h": lambda: _BERT.heads,
    "ex.bert.context": lambda: _BERT.context,
    "ex.bert.projections": lambda: costs.multiply_adds(_BERT.context, _BERT.d_model, _BERT.heads).projections,
    "ex.bert.attention": lambda: costs.multiply_adds(_BERT.context, _BERT.d_model, _BERT.heads).attention,
    "ex.bert.ratio": lambda: value("ex.bert.projections") / value("ex.bert.attention"),
    "ex.bert.crossover": lambda: costs.crossover_context(_BERT.d_model),
    "ex.gpt3.context": lambda: _GPT3.context,
    "ex.gpt3.weights_one": lambda: costs.attention_weights(_GPT3.context, 1),
    "ex.gpt3.weights_all": lambda: costs.attention_weights(_GPT3.context, _GPT3.heads),
    # the-code
    "ex.causal.entries": lambda: toy.N ** 2,
    "ex.causal.masked": lambda: int((_causal_trace().weights[0] == 0).sum()),
    "ex.causal.kept": lambda: int((_causal_trace().weights[0] > 0).sum()),
    "ex.causal.first_row": lambda: float(_causal_trace().weights[:, 0, 0].min()),
    "ex.causal.syntax_it_it": _causal_weight("syntax", "it", "it"),
    "ex.causal.syntax_it_and": _causal_weight("syntax", "it", "and"),
    "ex.causal.rare_it_cat": _causal_weight("rare", "it", "cat"),
}
QUANTITIES.update(EXERCISES)


# Page 8 (attention-today), #rotary and #windows ----------------------------------------------------
# today.rope.*: page 1's position head with rotary positions (example/rotary.py) and RoPE's wavelengths
# at Llama 3 8B's head width; today.window.*: the running example under a sliding window with sinks
# (example/windowed.py) and how far a window reaches. Published settings come from models.py.

def _rope_turning_pairs(base: float) -> int:
    """How many of Llama 3 8B's rotary pairs turn once or more over its context (wavelength <= context)."""
    return int((rope_wavelengths(_LLAMA3.d_head, base) <= _LLAMA3.context).sum())


def _rope_slowest(base: float) -> float:
    """The wavelength, in tokens, of the slowest pair of a head as wide as Llama 3 8B's."""
    return float(rope_wavelengths(_LLAMA3.d_head, base)[-1])


_ROFORMER, _LLAMA3_BASE = models.ROPE_BASES["roformer"], models.LLAMA3_ROPE_BASE["llama3"]
_MISTRAL_W, _MISTRAL_L = models.MISTRAL_7B_WINDOW, models.MISTRAL_7B.layer_count

TODAY: dict[str, Callable[[], float | int]] = {
    "today.rope.toy_step_deg": lambda: float(np.degrees(toy.STEP)),
    "today.rope.step_deg": rotary.step_degrees,
    "today.rope.turn_tokens": lambda: float(rope_wavelengths(rotary.D_K, rotary.BASE)[0]),
    "today.rope.wrap_behind": lambda: float(rope_wavelengths(rotary.D_K, rotary.BASE)[0] - (toy.N - 1)),
    "today.rope.it_and": lambda: float(rotary.position_head().weights[toy.token_index("it"), toy.token_index("and")]),
    "today.rope.the_ran": lambda: float(rotary.position_head().weights[toy.token_index("the"), toy.token_index("ran")]),
    "today.rope.shift_max": lambda: max(rotary.SHIFTS),
    "today.rope.shifts": lambda: len(rotary.SHIFTS),
    "today.rope.base_roformer": lambda: int(_ROFORMER),
    "today.rope.base_llama3": lambda: int(_LLAMA3_BASE),
    "today.rope.pairs": lambda: _LLAMA3.d_head // 2,
    "today.rope.fastest_tokens": lambda: float(rope_wavelengths(_LLAMA3.d_head, _ROFORMER)[0]),
    "today.rope.slowest_roformer": lambda: _rope_slowest(_ROFORMER),
    "today.rope.slowest_llama3": lambda: _rope_slowest(_LLAMA3_BASE),
    "today.window.size": lambda: windowed.WINDOW,
    "today.window.ran_rare_ran": lambda: windowed.weight("rare", "ran", "ran"),
    "today.window.ran_rare_cat": lambda: windowed.weight("rare", "ran", "cat", window=toy.N),
    "today.window.ran_syntax_and": lambda: windowed.weight("syntax", "ran", "and"),
    "today.window.ran_syntax_it": lambda: windowed.weight("syntax", "ran", "it"),
    "today.window.sink1_syntax_the": lambda: windowed.weight("syntax", "ran", "the", sinks=1),
    "today.window.sink2_rare_cat": lambda: windowed.weight("rare", "ran", "cat", sinks=2),
    "today.window.sinks_all": lambda: toy.N - windowed.WINDOW,  # sinks that make the window the whole sentence
    "today.window.reach_n": lambda: windowed.REACH_N,
    "today.window.reach_window": lambda: windowed.REACH_WINDOW,
    "today.window.reach_step": lambda: window_reach(windowed.REACH_WINDOW, 1),
    "today.window.mistral_window": lambda: _MISTRAL_W,
    "today.window.mistral_layers": lambda: _MISTRAL_L,
    "today.window.mistral_reach": lambda: window_reach(_MISTRAL_W, _MISTRAL_L),
    # the paper's count, W x layers (its window reaches W back), which it calls "approximately 131K"
    "today.window.mistral_paper_span": lambda: _MISTRAL_W * _MISTRAL_L,
    "today.window.mistral_span_k": lambda: round(_MISTRAL_W * _MISTRAL_L / 1000),
    "today.window.streaming_sinks": lambda: models.STREAMING_SINKS["sinks"],
    # the exercises: rotary pairs that turn within Llama 3's context; a wider window for `ran`
    "ex.today.rope.log_context": lambda: float(np.log(_LLAMA3.context / (2 * np.pi))),
    "ex.today.rope.log_roformer": lambda: float(np.log(_ROFORMER)),
    "ex.today.rope.log_llama3": lambda: float(np.log(_LLAMA3_BASE)),
    "ex.today.rope.last_roformer": lambda: _LLAMA3.d_head / 2 * value("ex.today.rope.log_context") / np.log(_ROFORMER),
    "ex.today.rope.last_llama3": lambda: _LLAMA3.d_head / 2 * value("ex.today.rope.log_context") / np.log(_LLAMA3_BASE),
    "ex.today.rope.turning_roformer": lambda: _rope_turning_pairs(_ROFORMER),
    "ex.today.rope.turning_llama3": lambda: _rope_turning_pairs(_LLAMA3_BASE),
    "ex.today.rope.slow_roformer": lambda: _LLAMA3.d_head // 2 - _rope_turning_pairs(_ROFORMER),
    "ex.today.rope.slow_llama3": lambda: _LLAMA3.d_head // 2 - _rope_turning_pairs(_LLAMA3_BASE),
    "ex.today.window.wider": lambda: windowed.WINDOW + 1,
    "ex.today.window.wider_rare_ate": lambda: windowed.weight("rare", "ran", "ate", window=windowed.WINDOW + 1),
    "ex.today.window.wider_rare_ran": lambda: windowed.weight("rare", "ran", "ran", window=windowed.WINDOW + 1),
    "ex.today.window.wider_syntax_ate": lambda: windowed.weight("syntax", "ran", "ate", window=windowed.WINDOW + 1),
}
QUANTITIES.update(TODAY)


# The masked language model's heads over every seed (tiny/lm_heads.py): in how many seeds each role
# appears, and pruning by importance against random orders; never one seed's number alone.
QUANTITIES.update(lm_heads.quantities(tiny_lm.all_seeds, tiny_lm.training_counts))
QUANTITIES.update(lm_findings.quantities(tiny_lm.all_seeds))  # what the page reads further from the same measurements



# Page 8, attention as today's models run it: tiles of keys (#tiles) and latent attention (#latent).
from mha_ref.example import mla_toy as _mla_toy, tiles as _tiles  # noqa: E402


_TILES_LONGEST = 2 ** 17  # the longest context tile-memory draws


def _cache_row(name: str, kind: str) -> costs.CacheRow:
    """One row of costs.cache_per_token_rows(): a published configuration's key/value cache per token."""
    return next(r for r in costs.cache_per_token_rows() if (r.name, r.kind) == (name, kind))


_LLAMA70 = models.model("Llama 3 70B")


def _v3():
    """DeepSeek-V3's published configuration (models.py)."""
    return models.DEEPSEEK_V3


def _tile_of(block: int, field: str, tile: int) -> Callable[[], float]:
    """One of flash_trace's running quantities (m, l, rescale) for the tiles figure's row, in tiles
    of `block` keys, after tile `tile` (from 1)."""
    return lambda: float(getattr(_tiles.trace(block), field)[tile - 1, 0])


def _tile(field: str, tile: int) -> Callable[[], float]:
    """The same in the figure's tiles of _tiles.BLOCK keys."""
    return _tile_of(_tiles.BLOCK, field, tile)


QUANTITIES.update({
    "today.tiles.block": lambda: _tiles.BLOCK,
    "today.tiles.count": lambda: len(_tiles.tiles()),
    "today.tiles.m1": _tile("m", 1),
    "today.tiles.m2": _tile("m", 2),
    "today.tiles.rescale2": _tile("rescale", 2),
    "today.tiles.l1": _tile("l", 1),
    "today.tiles.l2": _tile("l", 2),
    "today.tiles.l3": _tile("l", 3),
    "today.tiles.largest_difference": _tiles.largest_difference,
    "today.tiles.memory_block": lambda: _tiles.MEMORY_BLOCK,
    "today.tiles.table_mib": lambda: _in_units(costs.bytes_of(_tiles.layer_table_numbers(_GPT2.context)), _MIB),
    "today.tiles.tiles_mib": lambda: costs.bytes_of(_tiles.layer_tile_numbers(_GPT2.context)) / _MIB,
    "today.tiles.longest": lambda: _TILES_LONGEST,
    "today.tiles.ratio_longest": lambda: _tiles.layer_table_numbers(_TILES_LONGEST) / _tiles.layer_tile_numbers(_TILES_LONGEST),
    "today.mla.toy_d_c": lambda: _mla_toy.D_C,
    "today.mla.toy_d_rope": lambda: _mla_toy.D_ROPE,
    "today.mla.toy_cache": _mla_toy.cached_per_token,
    "today.mla.toy_mha_cache": _mla_toy.cached_per_token_mha,
    "today.mla.largest_difference": _mla_toy.largest_difference,
    "today.mla.v3_layers": lambda: _v3().layers,
    "today.mla.v3_heads": lambda: _v3().heads,
    "today.mla.v3_d_c": lambda: _v3().d_c,
    "today.mla.v3_d_rope": lambda: _v3().d_rope,
    "today.mla.v3_numbers": lambda: _cache_row(_v3().name, "MLA").numbers,
    "today.mla.v3_bytes": lambda: _cache_row(_v3().name, "MLA").bytes,
    "today.mla.v3_mha_bytes": lambda: _cache_row(_v3().name, "MHA").bytes,
    "today.mla.v3_mha_ratio": lambda: _cache_row(_v3().name, "MHA").bytes / _cache_row(_v3().name, "MLA").bytes,
    "today.mla.llama70_heads": lambda: _LLAMA70.heads,
    "today.mla.llama70_kv_heads": lambda: _LLAMA70.kv_heads,
    "today.mla.llama70_gqa_bytes": lambda: _cache_row(_LLAMA70.name, "GQA").bytes,
    "today.mla.llama70_over_v3": lambda: _cache_row(_LLAMA70.name, "GQA").bytes / _cache_row(_v3().name, "MLA").bytes,
})

# the exercises of #tiles and #latent (tests/test_exercises.py recomputes each)
_EX_BLOCK, _EX_CONTEXT = 3, 2 ** 17
QUANTITIES.update({
    "ex.today.tiles.block3": lambda: _EX_BLOCK,
    "ex.today.tiles.count3": lambda: len(_tiles.tiles(_EX_BLOCK)),
    "ex.today.tiles.s_ate": lambda: float(toy.trace().scores[toy.head_index(_tiles.HEAD)][
        toy.token_index(_tiles.QUERY), toy.token_index("ate")]),
    "ex.today.tiles.gap3": lambda: value("today.tiles.m2") - value("ex.today.tiles.s_ate"),
    "ex.today.tiles.rescale3": _tile_of(_EX_BLOCK, "rescale", 2),
    "ex.today.tiles.l_block3": _tile_of(_EX_BLOCK, "l", 2),
    "ex.today.mla.d_head": lambda: _v3().d_nope,
    "ex.today.mla.per_layer": lambda: _v3().d_c + _v3().d_rope,
    "ex.today.mla.groups": lambda: (_v3().d_c + _v3().d_rope) / (2 * _v3().d_nope),
    "ex.today.mla.context": lambda: _EX_CONTEXT,
    "ex.today.mla.seq_gib": lambda: _EX_CONTEXT * _cache_row(_v3().name, "MLA").bytes / _GIB,
})

class UnknownValue(KeyError):
    """No quantity has this name (as opposed to a KeyError raised while computing one)."""


def value(name: str) -> float | int:
    """The number called `name`; an unknown name is refused with the nearest known ones."""
    try:
        compute = QUANTITIES[name]
    except KeyError:
        near = difflib.get_close_matches(name, QUANTITIES, n=3, cutoff=0.7)
        raise UnknownValue(f"unknown value {name!r}; " + (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
                           + "(every name is a key of QUANTITIES in figures/numbers/quantities.py)") from None
    if compute not in _computed:  # keyed by the function, so replacing an entry recomputes it
        v = compute()
        _computed[compute] = v.item() if isinstance(v, (np.integer, np.floating)) else v
    return _computed[compute]


# Each number is computed once per process: a build asks for many of them on every page, caption
# and bound check. `mkdocs serve` re-imports this module after an edit, which empties it.
_computed: dict[Callable[[], object], float | int] = {}
