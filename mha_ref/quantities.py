"""Named numbers that the pages print. Prose writes {{ value NAME }} instead of typing a number.

Each entry is computed by mha_ref when the site is built; the name is the only thing the page
knows. Add an entry here, then use it in both languages.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import costs, expressiveness, models, scale, toy


def _blend(alpha_index: int, token: str | None = None) -> Callable[[], float]:
    def value() -> float:
        row = toy.blend_curve()[alpha_index]
        return float(row.max() if token is None else row[toy.token_index(token)])
    return value


_MID = toy.BLEND_STEPS // 2
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
    "blend.peak_min": lambda: float(toy.blend_curve().max(axis=1).min()),
    "diffuse.max_weight": lambda: float(toy.trace().weights[toy.head_index("diffuse")].max()),
    "heads.position_it_and": _head_weight("position", "it", "and"),
    "heads.syntax_it_ran": _head_weight("syntax", "it", "ran"),
    "heads.rare_min_cat": lambda: float(toy.trace().weights[toy.head_index("rare")][:, toy.token_index("cat")].min()),
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
    "expr.keys": lambda: expressiveness.N_KEYS,
    "expr.d_model": lambda: expressiveness.D_MODEL,
    "expr.reachable_1": lambda: expressiveness.reachable_top_keys(1),
    "expr.reachable_2": lambda: expressiveness.reachable_top_keys(2),
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
}


def value(name: str) -> float | int:
    """The number called `name`; an unknown name is refused with the known ones listed."""
    try:
        compute = QUANTITIES[name]
    except KeyError:
        raise KeyError(f"unknown value {name!r}; known values: {', '.join(sorted(QUANTITIES))}") from None
    v = compute()
    if isinstance(v, (np.integer, np.floating)):
        v = v.item()
    return v
