"""params-vs-h: the parameters of one attention block of width 768, for every head count.

W_Q, W_K, W_V and W_O with their biases: 4 d^2 + 4 d whatever h is. Cutting the width into more
heads makes each head's share smaller; it never adds or removes a parameter.
"""

from __future__ import annotations

import numpy as np

from mha_ref import costs, models

from ..kit.control import divisors, heads_control
from ..kit.style import HEAD_COLOURS, INK, MUTED, new_figure
from ..kit.words import pick, plural

D = models.model("GPT-2 small").d_model
CONTROL = heads_control(divisors(D, at_most=96), start=models.model("GPT-2 small").heads)
HS = CONTROL.values
CAPTION_ZH = (
    "$d_\\text{model}$ = {{ value gpt2.d_model }} 时，一个注意力块的参数量随头数 $h$ 的变化："
    "每个 $h$ 都是 $4d_\\text{model}^2 + 4d_\\text{model}$ = {{ value gpt2.params }}。"
    "$h$ 只改变每个头分到多少。"
)
CAPTION_EN = (
    "Parameters of one attention block with $d_\\text{model}$ = {{ value gpt2.d_model }}, against "
    "the head count $h$: always $4d_\\text{model}^2 + 4d_\\text{model}$ = {{ value gpt2.params }}. "
    "$h$ only changes how much each head gets."
)


def readout(lang: str, h: int) -> str:
    per_head = 3 * (D * (D // h) + D // h)
    return pick(lang, f"h = {h} · 参数 {costs.param_count(D, h):,} · 每个头的 Q、K、V 块 {per_head:,}",
                f"h = {h} · {costs.param_count(D, h):,} parameters · one head's Q, K, V blocks: {per_head:,}")


def data(lang: str):
    return ([pick(lang, "头数 h", "heads h"), "d_k", pick(lang, "每个头的 Q、K、V 参数", "Q, K, V parameters per head"),
             pick(lang, "整个块的参数", "parameters of the block")],
            [[str(h), str(D // h), f"{costs.head_param_count(D, h):,}", f"{costs.param_count(D, h):,}"] for h in HS])


def draw(lang: str, h: int):
    fig, ax = new_figure(3.0)
    x = np.arange(len(HS))
    counts = np.array([costs.param_count(D, k) for k in HS])
    ax.bar(x, counts, color="#dfe7ef", width=0.7)
    # the chosen h: its bar cut into the heads' Q, K, V blocks (alternating shades) and W_O on top
    here = HS.index(h)
    share = costs.head_param_count(D, h)
    for i in range(h):
        ax.bar(here, share, bottom=i * share, width=0.7, lw=0,
               color=HEAD_COLOURS["position"] if i % 2 == 0 else "#5aa3d6")
    ax.bar(here, counts[here] - h * share, bottom=h * share, width=0.7, color=MUTED)
    ax.set_xticks(x, [str(k) for k in HS], fontsize=8.5)
    ax.set_ylim(0, counts.max() * 1.3)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v / 1e6:.1f}M")
    ax.annotate(pick(lang, f"{counts[here]:,}：{h} 个头各 {share:,}，加上 $W^O$",
                     f"{counts[here]:,}: {plural(h, 'head')} × {share:,}, plus $W^O$"),
                xy=(here, counts[here]), xytext=(0.02, 0.93), textcoords="axes fraction", fontsize=8.5,
                color=INK, arrowprops={"arrowstyle": "-", "color": MUTED})
    ax.set_xlabel(pick(lang, "头数 $h$", "number of heads $h$"))
    ax.set_ylabel(pick(lang, "一个注意力块的参数", "parameters of one block"))
    return fig
