"""dk-expressiveness: what a narrow head can still say.

For fixed random keys, how many of them a head of width d_k can make its strict top choice for some
query. The count is exact: mha_ref decides each key with a small linear program (does it lie
outside the convex hull of the other keys?), not by trying queries. With d_k = 1, q and k are
single numbers and the top key is always the largest or the smallest: at most two, whatever the
head wants to attend to. Each head reads the first d_k coordinates of the same keys, so a wider
head never loses a key.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from mha_ref.example import expressiveness as ex

from ..kit.control import Control
from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

WIDTHS = ex.head_widths()
CONTROL = Control(
    label_zh="头数 h（头宽 d_k）", label_en="heads h (head width d_k)",
    values=tuple(ex.D_MODEL // d for d in WIDTHS), start=ex.D_MODEL,
    slug=lambda h: f"h{h}", value_label=lambda h, lang: f"h = {h}, d_k = {ex.D_MODEL // h}",
)
CAPTION_ZH = (
    "固定 {{ value expr.keys }} 个随机键，逐个精确判定：宽 $d_k$ 的头能让其中多少个键对某个查询得分严格最高，"
    "成为“最看重的那个”（判据是它是否落在其余所有键的凸包之外，每个键解一个小线性规划）。"
    "$d_k = 1$ 时只有 {{ value expr.reachable_1 }} 个，不管它想关注什么；各档头宽读的是同一组键的前 $d_k$ 维，"
    "所以头越宽，这个数只增不减，到 $d_k = {{ value expr.all_from_d_k }}$ 时全部键都能当上首选。"
)
CAPTION_EN = (
    "With {{ value expr.keys }} fixed random keys, decided exactly for each key: how many of them a head "
    "of width $d_k$ can make its strict top choice for some query (the test is whether the key lies outside "
    "the convex hull of all the other keys, one small linear program per key). At $d_k = 1$ only "
    "{{ value expr.reachable_1 }}, whatever it wants to attend to. Every width reads the first $d_k$ "
    "coordinates of the same keys, so a wider head never has fewer; at $d_k = {{ value expr.all_from_d_k }}$ "
    "every key can come first."
)


def readout(lang: str, h: int) -> str:
    d_k = ex.D_MODEL // h
    n = ex.reachable_top_keys(d_k)
    return pick(lang, f"h = {h} · d_k = {d_k} · 能成为首选的键（精确）：{n} / {ex.N_KEYS}",
                f"h = {h} · d_k = {d_k} · keys that can be the top choice (exact): {n} of {ex.N_KEYS}")


def data(lang: str):
    return (["d_k", "h", pick(lang, f"能成为首选的键（共 {ex.N_KEYS} 个）", f"keys that can be the top choice (of {ex.N_KEYS})")],
            [[str(d), str(ex.D_MODEL // d), str(ex.reachable_top_keys(d))] for d in WIDTHS])


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
    ax.set_xticks(x, [f"$d_k = {d}$\n$(h = {ex.D_MODEL // d})$" for d in WIDTHS], fontsize=8.5)
    ax.set_ylim(0, ex.N_KEYS * 1.25)
    ax.set_ylabel(pick(lang, "能成为首选的键的个数", "keys that can be the top choice"))
    d_model = rf"$d_{{\mathrm{{model}}}} = {ex.D_MODEL}$"
    title = pick(lang, f"{d_model}：头越窄，能当首选的键只少不多",
                 f"{d_model}: a narrower head never has more keys that can come first")
    ax.set_title(wrapped(title, 50) if is_narrow() else title, loc="left", fontsize=10)  # two lines on a phone
    return fig
