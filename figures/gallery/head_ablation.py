"""head-ablation: what the running example loses when one head is taken away.

Each head in turn is replaced by its mean output (the mean of its value vectors: what it says when
it weights every token alike); the bar is how far the block's output moves, relative to its size.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import toy

from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "依次把一个头换成它的平均输出（它对所有 token 一视同仁时会给出的值向量平均），"
    "看整个注意力块的输出变了多少（相对大小）。三个专职头各自代价很高；"
    "弥散头只有 {{ value ablation.diffuse .3f }}，去掉它几乎无损。"
)
CAPTION_EN = (
    "Each head in turn is replaced by its mean output (the average of its value vectors, what it "
    "would say weighting every token alike), and the bar shows how far the block's output moves, "
    "relative to its size. Each specialised head costs a lot; the diffuse head costs only "
    "{{ value ablation.diffuse .3f }}, next to nothing."
)


def data(lang: str):
    return ([pick(lang, "去掉的头", "head removed"), pick(lang, "输出的相对变化", "relative change of the output")],
            [[pick(lang, *HEAD_NAMES[h]), f"{c:.3f}"] for h, c in zip(toy.HEADS, toy.ablation())])


def draw(lang: str, value=None):
    cost = toy.ablation()
    fig, ax = new_figure(2.8)
    x = np.arange(toy.H)
    ax.bar(x, cost, color=[HEAD_COLOURS[h] for h in toy.HEADS], width=0.6, zorder=2)
    for i, c in enumerate(cost):
        ax.text(i, c + 0.01, f"{c:.3f}", ha="center", va="bottom", fontsize=9, color=INK)
    names = [pick(lang, *HEAD_NAMES[h]) for h in toy.HEADS]
    ax.set_xticks(x, [wrapped(n, 10) for n in names] if is_narrow() else names)  # on a phone, "rare-token / head"
    ax.set_ylabel(pick(lang, "输出的相对变化", "relative change of the output"))
    ax.set_ylim(0, cost.max() * 1.2)
    ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
    ax.set_title(pick(lang, "去掉一个头的代价", "the cost of removing one head"), loc="left", fontsize=10)
    return fig
