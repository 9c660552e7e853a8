"""Named numbers that the pages print. Prose writes {{ value NAME }} instead of typing a number.

Each entry is computed by mha_ref when the site is built; the name is the only thing the page
knows. Add an entry here, then use it in both languages.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import costs, expressiveness, models, one_head, roles, scale, toy


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
    # the true minimum of the row's peak, between the slider's stops (lead, issue 7)
    "blend.min_ratio": lambda: toy.blend_minimum("it")[0],
    "blend.min_peak": lambda: toy.blend_minimum("it")[1],
    "blend.and_self_start": lambda: _top_span("and", "and").start,
    "blend.and_self_end": lambda: _top_span("and", "and").end,
    "blend.and_self_mid": lambda: float(toy.blend_weights(0.5)[toy.token_index("and"), toy.token_index("and")]),
    "diffuse.max_weight": lambda: float(toy.trace().weights[toy.head_index("diffuse")].max()),
    "heads.position_it_and": _head_weight("position", "it", "and"),
    "heads.syntax_it_ran": _head_weight("syntax", "it", "ran"),
    "heads.rare_min_cat": lambda: float(toy.trace().weights[toy.head_index("rare")][:, toy.token_index("cat")].min()),
    # what-a-head-reads: a nudge to one token, by path (helper 2, issue 7 point 6)
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
    # Voita et al.'s measures of the toy heads, against the paper's bars (helper 6, issue 7 point 10)
    "voita.confident_pct": lambda: models.VOITA_ROLES["confident_pct"],
    "roles.syntactic_bar_pct": lambda: 100 * roles.ROLE_BARS["syntactic"].share,
    "roles.position.confidence": lambda: roles.toy_head_roles()["position"].confidence,
    "roles.syntax.confidence": lambda: roles.toy_head_roles()["syntax"].confidence,
    "roles.rare.confidence": lambda: roles.toy_head_roles()["rare"].confidence,
    "roles.diffuse.confidence": lambda: roles.toy_head_roles()["diffuse"].confidence,
    "roles.uniform_weight": lambda: 1 / toy.N,  # what a head gets by weighting every token alike
    "roles.position.offset_hits": lambda: roles.toy_head_roles()["position"].offset_hits,
    "roles.position.offset_pct": lambda: 100 * roles.toy_head_roles()["position"].offset_share,
    "roles.position.shortest_sentence": lambda: roles.shortest_sentence(
        roles.toy_head_roles()["position"].offset, models.VOITA_ROLES["positional_pct"]),
    "roles.syntax.syntax_hits": lambda: roles.toy_head_roles()["syntax"].syntax_hits,
    "roles.rare.rare_hits": lambda: roles.toy_head_roles()["rare"].rare_hits,
    # exact counts of keys that can be a head's top choice (helper 1, issue 7 point 7)
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
    # models whose heads are not d_model / h wide (lead, issue 7)
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
    # what does grow with h: exponentials and stored weights, h n^2 per block (lead, issue 7)
    "gpt2.weights_one_head": lambda: costs.attention_weights(_GPT2.context, 1),
    "gpt2.weights_all_heads": lambda: costs.attention_weights(_GPT2.context, _GPT2.heads),
    # what blending costs in the output (helper "worked", issue 11)
    "blend.mid_ratio": lambda: float(toy.blend_ratios()[_MID]),
    "blend.out_width": lambda: one_head.blend_values().shape[-1],
}


class UnknownValue(KeyError):
    """No quantity has this name (as opposed to a KeyError raised while computing one)."""


def value(name: str) -> float | int:
    """The number called `name`; an unknown name is refused with the known ones listed."""
    try:
        compute = QUANTITIES[name]
    except KeyError:
        raise UnknownValue(f"unknown value {name!r}; known values: {', '.join(sorted(QUANTITIES))}") from None
    if compute not in _computed:  # keyed by the function, so replacing an entry recomputes it
        v = compute()
        _computed[compute] = v.item() if isinstance(v, (np.integer, np.floating)) else v
    return _computed[compute]


# Each number is computed once per process: a build asks for many of them on every page, caption
# and bound check. `mkdocs serve` re-imports this module after an edit, which empties it.
_computed: dict[Callable[[], object], float | int] = {}
