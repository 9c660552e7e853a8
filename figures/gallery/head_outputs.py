"""head-outputs: the eight concatenated numbers for one token, each labelled with its head.

Every pair is a real weighted sum: that head's row of weights times that head's value vectors.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.readouts import decimals
from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, is_narrow, new_figure
from ..kit.words import pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "{{ screen \"所选 token 的\" print \"每一帧画一个 token 的\" }} {{ value toy.d_model }} 个拼接输出，按头着色。每一对数都是那个头自己的一行权重"
    "乘以它自己的值向量得到的加权和，不是占位符。"
)
CAPTION_EN = (
    "The {{ value toy.d_model }} concatenated outputs for {{ screen \"the chosen token\" print \"one token per frame\" }}, coloured by head. Each "
    "pair is that head's own row of weights times its own value vectors: a real weighted sum, not a "
    "placeholder."
)


def readout(lang: str, query: int) -> str:
    t = toy.trace()
    top = [toy.TOKENS[t.weights[i][query].argmax()] for i in range(toy.H)]
    return pick(lang, f"{toy.TOKENS[query]}：各头最看重 " + " · ".join(top),
                f"{toy.TOKENS[query]}: each head's top key " + " · ".join(top))


def data(lang: str):
    """Every query of the slider: its eight concatenated outputs, two per head."""
    concat = toy.trace().concat  # [n, d_model]
    return ([pick(lang, "查询", "query"),
             *(pick(lang, f"{HEAD_NAMES[h][0]}（第 {j + 1} 维）", f"{HEAD_NAMES[h][1]} ({j + 1} of {toy.D_K})")
               for h in toy.HEADS for j in range(toy.D_K))],
            [[toy.TOKENS[q], *(decimals(v) for v in concat[q])] for q in range(toy.N)])


def draw(lang: str, query: int):
    concat = toy.trace().concat[query]
    fig, ax = new_figure(2.8)
    x = np.arange(toy.D_MODEL)
    colours = [HEAD_COLOURS[toy.HEADS[s // toy.D_K]] for s in x]
    ax.bar(x, concat, color=colours, width=0.75, zorder=2)
    ax.axhline(0, color=INK, lw=0.8)
    for s, v in zip(x, concat):
        ax.text(s, v + (0.05 if v >= 0 else -0.05), f"{v:.2f}", ha="center",
                va="bottom" if v >= 0 else "top", fontsize=8.5)
    ax.set_xticks(x, [str(s % toy.D_K + 1) for s in x], fontsize=8.5)
    for i, head in enumerate(toy.HEADS):  # one name under each pair, on two lines on a phone
        name = pick(lang, *HEAD_NAMES[head])
        ax.text(i * toy.D_K + (toy.D_K - 1) / 2, -0.13, wrapped(name, 10) if is_narrow() else name, ha="center", va="top",
                fontsize=8.5, color=HEAD_COLOURS[head], transform=ax.get_xaxis_transform())
    lim = np.abs(toy.trace().concat).max() * 1.35  # the same range in every frame
    ax.set_ylim(-lim, lim)
    ax.set_ylabel(pick(lang, "输出值", "output value"))
    ax.set_title(pick(lang, f"{toy.TOKENS[query]} 的拼接输出", f"concatenated output for {toy.TOKENS[query]}"),
                 loc="left", fontsize=10)
    return fig
