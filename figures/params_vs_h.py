"""params-vs-h: the parameters of one attention block of width 768, for every head count.

W_Q, W_K, W_V and W_O with their biases: 4 d^2 + 4 d whatever h is. Cutting the width into more
heads makes each head's share smaller; it never adds or removes a parameter.
"""

from __future__ import annotations

import numpy as np

from mha_ref import costs, models

from .control import divisors, heads_control
from .style import HEAD_COLOURS, INK, MUTED, new_figure, pick

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


def draw(lang: str, h: int):
    fig, ax = new_figure(3.0)
    x = np.arange(len(HS))
    counts = np.array([costs.param_count(D, k) for k in HS])
    ax.bar(x, counts, color=[HEAD_COLOURS["position"] if k == h else "#c9d6e3" for k in HS], width=0.7)
    ax.set_xticks(x, [str(k) for k in HS], fontsize=8)
    ax.set_ylim(0, counts.max() * 1.25)
    ax.ticklabel_format(axis="y", style="plain")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v / 1e6:.1f}M")
    here = HS.index(h)
    ax.annotate(f"{counts[here]:,}", xy=(here, counts[here]), xytext=(here, counts[here] * 1.12),
                ha="center", fontsize=9, color=INK, arrowprops={"arrowstyle": "-", "color": MUTED})
    ax.set_xlabel(pick(lang, "头数 h", "number of heads h"))
    ax.set_ylabel(pick(lang, "一个注意力块的参数", "parameters of one block"))
    return fig
