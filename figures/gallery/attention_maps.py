"""attention-maps: every head's whole table of weights, and the blended head's beside them.

One n x n map per head of the running example, a row per query and a column per key, on one shade
scale; the fifth map is the single head of the first page made to follow both rules, at the middle
stop of its blend. Each of the four heads' rows is sharp in its own pattern (a diagonal one step
below the main one, a grammar jump, one column, an even grey); the blended head's rows are split.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize

from mha_ref.example import toy

from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
MIDDLE = toy.BLEND_STEPS // 2  # the blend slider's middle stop, where the first page stops
CAPTION_ZH = (
    "四个头各自完整的 $n \\times n$ 权重表：每行是一个查询，每列是一个键，格子与页面底色反差越大，权重越大，"
    "每一行加起来都等于一（格子里的数保留两位小数，小到写出来只剩零的空着不写）。"
    "位置头是主对角线下方的一条斜线（第一行的 `the` 只能看自己），句法头按语法跳，"
    "稀有词头整整一列都落在 `cat` 上，弥散头一片均匀的淡色。最后一张是第一页那个被迫兼顾两条规则的单头，"
    "取混合比例的正中间一档：好几行的权重被两个词分走，哪个都没押中。"
)
CAPTION_EN = (
    "Each head's whole $n \\times n$ table of weights: a row per query, a column per key, standing out "
    "more from the page for more weight, and every row sums to one (cells print two decimals; a cell that would print as "
    "zero is left blank). The position head is a diagonal one step below the main one (but for the "
    "first row: `the` looks at itself), the syntax head jumps with the grammar, the rare-token head "
    "fills the whole `cat` column, and the diffuse head is an even, faint wash. The last map is the "
    "single head from the first page that must follow both rules, at the middle stop of its blend: "
    "several of its rows split their weight between two tokens and commit to neither."
)
# Light grey for a weight of 0 (white would vanish into the page), near black for 1.
SHADES = ListedColormap(plt.get_cmap("Greys")(np.linspace(0.04, 0.95, 256)))
NORM = Normalize(0.0, 1.0)


def blend_ratio() -> float:
    return float(toy.blend_ratios()[MIDDLE])


def maps(lang: str) -> list[tuple[str, str, np.ndarray]]:
    """(key, title, [n, n] weights) of each map, in drawing order: the four heads, then the blend."""
    w = toy.trace().weights
    heads = [(h, pick(lang, *HEAD_NAMES[h]), w[toy.head_index(h)]) for h in toy.HEADS]
    ratio = blend_ratio()
    return heads + [("blend", pick(lang, f"单头混合，比例 {ratio:.2f}", f"one head, blend {ratio:.2f}"),
                     toy.blend_weights(ratio))]


def cell_text(value: float) -> str:
    """Two decimals; blank where that would be 0.00, so that the pattern stands out."""
    text = f"{value:.2f}"
    return "" if text == "0.00" else text


def data(lang: str):
    """Every cell of every map: per map and query, its weights over the six keys."""
    rows = [[title, toy.TOKENS[q], *(decimals(v) for v in weights[q])]
            for _, title, weights in maps(lang) for q in range(toy.N)]
    return [pick(lang, "图", "map"), pick(lang, "查询", "query"), *toy.TOKENS], rows


def weights_grid(ax, weights, numbers: bool = True, **ticks):
    """A map of the running example's weights (rows: queries, columns: keys), each cell's weight
    written in it unless `numbers` is False, the tokens along both sides, no frame; `ticks` go to
    tick_params. Its image."""
    image = ax.imshow(weights, cmap=SHADES, norm=NORM, interpolation="nearest")
    if numbers:
        for q in range(toy.N):
            for k in range(toy.N):
                ax.text(k, q, cell_text(weights[q, k]), ha="center", va="center", fontsize=8.5,
                        color="white" if weights[q, k] > 0.55 else INK)
    ax.set_xticks(range(toy.N), toy.TOKENS, fontsize=8.5)
    ax.set_yticks(range(toy.N), toy.TOKENS, fontsize=8.5)
    ax.tick_params(length=0, **ticks)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return image


def _map(ax, key: str, title: str, weights, numbers: bool) -> None:
    weights_grid(ax, weights, numbers, labeltop=True, labelbottom=False).set_label(key)
    ax.set_title(title, loc="left", fontsize=9.5, color=HEAD_COLOURS.get(key, INK))


def draw(lang: str, value=None):
    narrow = is_narrow()
    rows, cols = (3, 2) if narrow else (2, 3)
    fig, axes = new_figure(6.9 if narrow else 4.9, nrows=rows, ncols=cols)
    drawn = maps(lang)
    for ax, (key, title, weights) in zip(axes.flat, drawn):
        _map(ax, key, title, weights, numbers=True)
    if narrow:  # the queries named once per row of maps, so that each map is wide enough for its numbers
        for ax in axes[:, 1:].flat:
            ax.tick_params(labelleft=False)
    key_ax = axes.flat[len(drawn)]  # the last slot: how to read the maps, and the shade scale
    key_ax.axis("off")
    key_ax.text(0.0, 0.95, pick(lang, "行：查询\n列：键\n每一行加起来等于一", "rows: queries\ncolumns: keys\neach row sums to one"),
                transform=key_ax.transAxes, ha="left", va="top", fontsize=8.5, color=INK, linespacing=1.5)
    bar_ax = key_ax.inset_axes([0.0, 0.18, 0.9, 0.1])
    bar = fig.colorbar(ScalarMappable(NORM, SHADES), cax=bar_ax, orientation="horizontal")
    bar.set_label(pick(lang, "权重", "weight"), fontsize=8.5)
    bar.ax.tick_params(labelsize=8.5, length=2)
    bar.outline.set_visible(False)
    return fig
