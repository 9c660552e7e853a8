"""rope-wavelengths: how many tokens each rotary pair takes to turn once, for one base at a time.

A head as wide as Llama 3 8B's (128 numbers, 64 pairs). Pair i turns by base^(-2i/d) radians a token,
so it comes round after 2 pi base^(2i/d) tokens: the first pair after about six whatever the base,
the last after nearly 2 pi base. The published bases (RoFormer's and Llama 3's) are drawn dashed
for comparison, with Llama 3's context as a line across: pairs above it never finish a turn there.
"""

from __future__ import annotations

import numpy as np

from mha_ref import models, rope_wavelengths

from ..kit.control import Control
from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

M = models.model("Llama 3 8B")
PUBLISHED = {"RoFormer": models.ROPE_BASES["roformer"], "Llama 3": models.LLAMA3_ROPE_BASE["llama3"]}
BASES = (1000, 10000, 100000, 500000, 1000000)
CONTROL = Control(
    label_zh="底数 base", label_en="base", values=BASES, start=10000,
    slug=lambda b: f"base{b}", value_label=lambda b, lang: f"{b:,}",
)
CAPTION_ZH = (
    "头宽 {{ value llama3.d_k }}（Llama 3 8B 的头宽），也就是 {{ value today.rope.pairs }} 对数，"
    "每一对转满一圈要经过多少个 token（纵轴是对数刻度）。第 $i$ 对每个 token 转 $\\text{base}^{-2i/d}$ 弧度，"
    "所以第一对不管底数多大，都是 {{ value today.rope.fastest_tokens .2f }} 个 token 转一圈；越往后的对转得越慢。"
    "两条虚线是 RoFormer 的底数 {{ value today.rope.base_roformer }} 和 Llama 3 的 {{ value today.rope.base_llama3 }}，"
    "横线是 Llama 3 的上下文长度 {{ value llama3.context }}：高过横线的那些对，在整段上下文里一圈也转不完。"
)
CAPTION_EN = (
    "A head {{ value llama3.d_k }} numbers wide (Llama 3 8B's), that is {{ value today.rope.pairs }} pairs: how many "
    "tokens each pair takes to turn once (a log scale). Pair $i$ turns by $\\text{base}^{-2i/d}$ radians "
    "a token, so the first pair comes round after {{ value today.rope.fastest_tokens .2f }} tokens whatever the base, and each later "
    "pair turns more slowly. The dashed lines are RoFormer's base, {{ value today.rope.base_roformer }}, "
    "and Llama 3's, {{ value today.rope.base_llama3 }}; the line across is Llama 3's context, "
    "{{ value llama3.context }} tokens: a pair above it does not finish a single turn within it."
)


def _turning(base: float) -> int:
    return int((rope_wavelengths(M.d_head, base) <= M.context).sum())


def readout(lang: str, base: int) -> str:
    slowest = rope_wavelengths(M.d_head, base)[-1]
    pairs = M.d_head // 2
    return pick(lang, f"底数 {base:,} · {pairs} 对中有 {_turning(base)} 对在 {M.context:,} 个 token 内转满一圈 · "
                      f"最慢的一对 {slowest:,.0f} 个 token 一圈",
                f"base {base:,} · {_turning(base)} of {pairs} pairs turn once within {M.context:,} tokens · "
                f"slowest pair: one turn in {slowest:,.0f} tokens")


def data(lang: str):
    """Every pair's wavelength (tokens per turn) for every base of the slider."""
    waves = {b: rope_wavelengths(M.d_head, b) for b in BASES}
    rows = [[str(i), *(f"{waves[b][i]:,.1f}" for b in BASES)] for i in range(M.d_head // 2)]
    return [pick(lang, "第几对 i", "pair i"), *(pick(lang, f"底数 {b:,}", f"base {b:,}") for b in BASES)], rows


def draw(lang: str, base: int):
    fig, ax = new_figure(3.4)
    pairs = np.arange(M.d_head // 2)
    for name, b in PUBLISHED.items():
        ax.plot(pairs, rope_wavelengths(M.d_head, b), color=MUTED, lw=1.0, ls="--", zorder=2)
        ax.text(pairs[-1], rope_wavelengths(M.d_head, b)[-1] * 1.4, f"{name} {b:,.0f}", ha="right", va="bottom",
                fontsize=8.5, color=MUTED)
    waves = rope_wavelengths(M.d_head, base)
    ax.plot(pairs, waves, color=HEAD_COLOURS["position"], lw=2.2, zorder=3)
    ax.axhline(M.context, color=INK, lw=0.8, zorder=1)
    ax.text(0, M.context * 1.3, pick(lang, f"Llama 3 的上下文：{M.context:,} 个 token", f"Llama 3's context: {M.context:,} tokens"),
            ha="left", va="bottom", fontsize=8.5, color=INK)
    ax.set_yscale("log")
    ax.set_ylim(1, 2e7)
    ax.set_xlim(-1, pairs[-1] + 1)
    ax.set_xlabel(pick(lang, f"第几对 $i$（头宽 {M.d_head} 的 {M.d_head // 2} 对）", f"pair $i$ (the {M.d_head // 2} pairs of a head {M.d_head} wide)"))
    ax.set_ylabel(pick(lang, "转一圈要几个 token", "tokens per turn"))
    ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
    title = pick(lang, f"底数 {base:,}：{_turning(base)} 对在上下文里转满一圈",
                 f"base {base:,}: {_turning(base)} pairs turn once within the context")
    ax.set_title(wrapped(title, 40) if is_narrow() else title, loc="left", fontsize=9.5, color=HEAD_COLOURS["position"])
    return fig
