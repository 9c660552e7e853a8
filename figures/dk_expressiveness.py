"""dk-expressiveness: what a narrow head can still say.

For fixed random keys, how many of them a head of width d_k can make its top choice at all, over
many queries. With d_k = 1, q and k are single numbers and the top key is always the largest or the
smallest: two choices at most, whatever the head wants to attend to.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from mha_ref import expressiveness as ex

from .control import Control
from .style import HEAD_COLOURS, INK, MUTED, new_figure, pick

WIDTHS = ex.head_widths()
CONTROL = Control(
    label_zh="头数 h（头宽 d_k）", label_en="heads h (head width d_k)",
    values=tuple(ex.D_MODEL // d for d in WIDTHS), start=ex.D_MODEL,
    slug=lambda h: f"h{h}", value_label=lambda h, lang: f"h = {h}, d_k = {ex.D_MODEL // h}",
)
CAPTION_ZH = (
    "固定 {{ value expr.keys }} 个随机键，对大量随机查询统计：一个宽 $d_k$ 的头能让其中多少个键成为"
    "“最看重的那个”。$d_k = 1$ 时只有 {{ value expr.reachable_1 }} 个，不管它想关注什么；"
    "头越宽，能单独挑出的键越多。"
)
CAPTION_EN = (
    "With {{ value expr.keys }} fixed random keys and many random queries: how many of the keys a head "
    "of width $d_k$ can make its top choice. At $d_k = 1$ only {{ value expr.reachable_1 }}, whatever "
    "it wants to attend to; wider heads can single out more."
)


def readout(lang: str, h: int) -> str:
    d_k = ex.D_MODEL // h
    n = ex.reachable_top_keys(d_k)
    return pick(lang, f"h = {h} · d_k = {d_k} · 能成为首选的键：{n} / {ex.N_KEYS}",
                f"h = {h} · d_k = {d_k} · keys that can be the top choice: {n} of {ex.N_KEYS}")


def draw(lang: str, h: int):
    d_k = ex.D_MODEL // h
    counts = [ex.reachable_top_keys(d) for d in WIDTHS]
    fig, ax = new_figure(3.0)
    x = np.arange(len(WIDTHS))
    ax.bar(x, counts, width=0.6, color=[HEAD_COLOURS["syntax"] if d == d_k else "#f0c9b0" for d in WIDTHS])
    ax.axhline(ex.N_KEYS, color=MUTED, ls="--", lw=1)
    ax.text(-0.45, ex.N_KEYS + 0.3, pick(lang, f"全部 {ex.N_KEYS} 个键", f"all {ex.N_KEYS} keys"),
            ha="left", va="bottom", fontsize=8.5, color=MUTED)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for i, c in enumerate(counts):
        ax.text(i, c + 0.2, str(c), ha="center", va="bottom", fontsize=9, color=INK)
    ax.set_xticks(x, [f"d_k = {d}\n(h = {ex.D_MODEL // d})" for d in WIDTHS], fontsize=8.5)
    ax.set_ylim(0, ex.N_KEYS * 1.25)
    ax.set_ylabel(pick(lang, "能成为首选的键的个数", "keys that can be the top choice"))
    ax.set_title(pick(lang, f"d_model = {ex.D_MODEL}：头越窄，能说的越少", f"d_model = {ex.D_MODEL}: the narrower the head, the less it can say"),
                 loc="left", fontsize=10)
    return fig
