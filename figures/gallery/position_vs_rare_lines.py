"""position-vs-rare-lines: where each head looks, for every query at once.

x is the query's position, y the position of the token the head attends to most. The position
head draws a diagonal one step behind, the rare-token head a flat line at `cat`, and the syntax
head jumps wherever the sentence's structure sends it.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import toy

from ..kit.style import HEAD_COLOURS, HEAD_NAMES, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "横轴是查询所在的位置，纵轴是该头权重最大的那个 token。位置头画出一条落后一格的斜线（句首的 `the` 前面没有词，看的是它自己），"
    "稀有词头是一条钉在 `cat` 上的水平线，句法头则随句子结构上下跳动。几个头落在同一点上时，靠标记的形状和大小区分，点的位置都没有挪动。"
)
CAPTION_EN = (
    "Across: the query's position. Up: the token the head weights most. The position head traces "
    "a diagonal one step behind (the first token, `the`, has nothing before it and looks at itself), "
    "the rare-token head a flat line pinned to `cat`, and the syntax "
    "head jumps wherever the sentence's structure sends it. Where heads land on the same point, the "
    "markers' shapes and sizes tell them apart; no point is moved."
)

# Points of different heads can coincide: they are told apart by marker and line, never moved.
STYLE = {"position": ("-", "o", 11), "rare": ("--", "s", 7), "syntax": (":", "^", 4.5)}


def data(lang: str):
    """The points drawn: for every query, the key each head weights most (position and token)."""
    heads = ("position", "rare", "syntax")
    label = [f"{i} {t}" for i, t in enumerate(toy.TOKENS)]
    targets = [toy.targets(h) for h in heads]
    return ([pick(lang, "查询", "query"), *(pick(lang, f"{HEAD_NAMES[h][0]}权重最大的键", f"{HEAD_NAMES[h][1]}: top key")
                                          for h in heads)],
            [[label[q], *(label[t[q]] for t in targets)] for q in range(toy.N)])


def draw(lang: str, value=None):
    positions = np.arange(toy.N)
    fig, ax = new_figure(3.6)
    for head in ("position", "rare", "syntax"):
        line, marker, size = STYLE[head]
        ax.plot(positions, toy.targets(head), line, color=HEAD_COLOURS[head], lw=2, marker=marker,
                ms=size, mfc="white" if head != "syntax" else HEAD_COLOURS[head], mew=1.6,
                label=pick(lang, *HEAD_NAMES[head]), zorder=3)
    ticks = [f"{i} {t}" for i, t in enumerate(toy.TOKENS)]
    ax.set_xticks(positions, ticks)
    ax.set_yticks(positions, ticks)
    ax.set_xlim(-0.4, toy.N - 0.6)
    ax.set_ylim(-0.5, toy.N - 0.5)
    ax.grid(True, color="#e6e6e6", lw=0.8, zorder=0)
    ax.set_xlabel(pick(lang, "查询（位置与 token）", "query (position and token)"))
    ax.set_ylabel(pick(lang, "权重最大的键", "key with the highest weight"))
    ax.legend(loc="upper left", fontsize=9)
    return fig
