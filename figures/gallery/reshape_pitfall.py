"""reshape-pitfall: splitting heads with a reshape alone deals each head the wrong numbers.

Top: the queries q [n, d_model], each cell coloured by the head whose columns it is in and
labelled with its token; beside it (below on a phone) the [h, n, d_k] blocks the split hands to the
heads, each cell still coloured and labelled by where it came from. Bottom: each head's attention
weights computed from those blocks (q, k and v are split the same way). With the transpose every
head gets its own columns of all six tokens; without it, the shape is the same and nothing fails,
but each head gets whole rows of two tokens and its weights are something else.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patches import Rectangle

from mha_ref import split_heads
from mha_ref.example import reshape, toy

from ..kit.control import Control
from ..kit.style import INK, MUTED, SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick

SPLITS = {"reshape-only": reshape.split_heads_without_transpose, "transpose": split_heads}
CONTROL = Control(
    label_zh="拆分方式", label_en="split", values=tuple(SPLITS), start="reshape-only",
    slug=lambda v: v, value_label=lambda v, lang: pick(
        lang, {"reshape-only": "只 reshape（错）", "transpose": "reshape 再转置（对）"}[v],
        {"reshape-only": "reshape only (wrong)", "transpose": "reshape, then transpose (correct)"}[v]),
)
CAPTION_ZH = (
    "标题为 $q = xW^Q$ 的是查询矩阵 $q$，每格的颜色表示它在哪个头的那几列，格里写着它属于哪个 token；"
    "标题写着 $[h, n, d_k]$ 的是拆开之后每个头拿到的块，每格仍按来处上色、标名；"
    "每个头还各有一张权重图，画的是它用自己那块 $q$、$k$、$v$ 算出的注意力权重，与页面底色反差越大，权重越大。"
    "先 reshape 再转置，每个头拿到的是所有 token 在自己那几列上的数；只 reshape，形状一模一样，"
    "程序也不报错，可每个头拿到的是 {{ value reshape.tokens_per_head }} 个 token 的整段数，"
    "同一位置上的权重，有的相差超过 {{ value reshape.largest_change .2f down }}。"
)
CAPTION_EN = (
    "The panel titled $q = xW^Q$ holds the queries: each cell coloured by the head whose columns it sits in "
    "and labelled with its token. The panel titled $[h, n, d_k]$ holds the blocks each head receives once "
    "split, each cell still coloured and labelled by where it came from. The four \"weights of head\" "
    "panels hold the attention weights each head "
    "computes from its blocks of $q$, $k$ and $v$ (the more a cell stands out from the page, the larger). Reshape then transpose, and each "
    "head gets every token's numbers in its own columns. Reshape alone gives the same shape and no "
    "error, but each head gets whole stretches of {{ value reshape.tokens_per_head }} tokens, and a "
    "weight in the same place can differ by more than {{ value reshape.largest_change .2f down }}."
)

GAP = 0.7  # between two heads' blocks, in cells


def _names(token: np.ndarray) -> list[str]:
    """The token each row of one head's block came from (a row of a block never spans two tokens)."""
    return [toy.TOKENS[t] for t in token[:, 0]]


def readout(lang: str, how: str) -> str:
    token, _ = reshape.provenance(SPLITS[how])
    first = sorted(set(token[0].ravel()))
    seen = "、".join(toy.TOKENS[t] for t in first)
    if how == "transpose":
        return pick(lang, f"reshape 再转置 · 每个头拿到全部 {toy.N} 个 token 在自己 {toy.D_K} 列上的数",
                    f"reshape, then transpose · every head gets all {toy.N} tokens, in its own {toy.D_K} columns")
    change = math.floor(reshape.largest_weight_change() * 100) / 100  # rounded down: "more than" stays true
    return pick(lang, f"只 reshape · 头 1 只拿到 {seen} 的数 · 有的权重相差超过 {change:.2f}",
                f"reshape only · head 1: numbers of {seen.replace('、', ', ')} only · some weights differ by more "
                f"than {change:.2f}")


def data(lang: str):
    """Both splits: for each head and each row of its block, where that row came from (token and
    columns of q) and the attention weights of that row."""
    rows = []
    for how in CONTROL.values:
        token, column = reshape.provenance(SPLITS[how])
        w = reshape.weights(SPLITS[how])
        for i in range(toy.H):
            for r in range(toy.N):
                cols = f"{column[i, r, 0]}–{column[i, r, -1]}"
                rows.append([CONTROL.value_label(how, lang), pick(lang, f"头 {i + 1}", f"head {i + 1}"), str(r + 1),
                             toy.TOKENS[token[i, r, 0]], cols, *(f"{v:.2f}" for v in w[i, r])])
    return [pick(lang, "拆分方式", "split"), pick(lang, "头", "head"), pick(lang, "块中第几行", "row of its block"),
            pick(lang, "来自 token", "from token"), pick(lang, "来自 q 的列", "from columns of q"),
            *(pick(lang, f"对第 {c} 行的权重", f"weight on row {c}") for c in range(1, toy.N + 1))], rows


def _cell(ax, x, y, column: int, token: int) -> None:
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=SLICE_COLOURS[column // toy.D_K], alpha=0.3,
                           edgecolor=MUTED, lw=0.6))
    ax.text(x + 0.5, y + 0.5, toy.TOKENS[token], ha="center", va="center", fontsize=8.5, color=INK)


def _head_labels(ax, lang: str, starts) -> None:
    for i, x0 in enumerate(starts):
        ax.text(x0 + toy.D_K / 2, -0.15, pick(lang, f"头 {i + 1}", f"head {i + 1}"), ha="center", va="bottom",
                fontsize=8.5, color=SLICE_COLOURS[i])


def _grid_axes(ax, width: float) -> None:
    ax.set_xlim(-0.05, width + 0.05)
    ax.set_ylim(toy.N + 0.05, -1.0)  # row 0 on top, room above for the head labels
    ax.axis("off")


def _source(ax, lang: str) -> None:
    """q [n, d_model]: cell (t, c) coloured by the head that owns column c, labelled with token t."""
    for t in range(toy.N):
        for c in range(toy.D_MODEL):
            _cell(ax, c, t, c, t)
    _head_labels(ax, lang, [i * toy.D_K for i in range(toy.H)])
    _grid_axes(ax, toy.D_MODEL)
    ax.set_title(f"$q = xW^Q$: $[n, d_{{\\mathrm{{model}}}}] = [{toy.N}, {toy.D_MODEL}]$", fontsize=9.5, loc="left")


def _blocks(ax, lang: str, how: str) -> None:
    """The [h, n, d_k] blocks of q after the split, each cell where it came from."""
    token, column = reshape.provenance(SPLITS[how])
    starts = [i * (toy.D_K + GAP) for i in range(toy.H)]
    for i, x0 in enumerate(starts):
        for r in range(toy.N):
            for c in range(toy.D_K):
                _cell(ax, x0 + c, r, column[i, r, c], token[i, r, c])
    _head_labels(ax, lang, starts)
    _grid_axes(ax, starts[-1] + toy.D_K)
    shape = f"$[h, n, d_k] = [{toy.H}, {toy.N}, {toy.D_K}]$"
    ax.set_title(pick(lang, f"对：reshape 再转置，{shape}" if how == "transpose" else f"错：只 reshape，{shape}",
                      f"right: reshape, transpose, {shape}" if how == "transpose" else f"wrong: reshape only, {shape}"),
                 fontsize=9.5, loc="left", color=INK)


def _weights(ax, lang: str, i: int, w: np.ndarray, names: list[str], first: bool) -> None:
    shade = LinearSegmentedColormap.from_list(f"head{i}", ["#ffffff", SLICE_COLOURS[i]])
    ax.imshow(w, cmap=shade, vmin=0.0, vmax=1.0)
    ax.set_xticks(range(toy.N), names, fontsize=8.5, rotation=90)
    ax.set_yticks(range(toy.N), names, fontsize=8.5)
    ax.tick_params(length=0, pad=2)
    for spine in ax.spines.values():
        spine.set_visible(True)
        spine.set_color(MUTED)
    ax.set_title(pick(lang, f"头 {i + 1} 的权重", f"weights of head {i + 1}"), fontsize=9, color=SLICE_COLOURS[i])
    if first:
        ax.set_ylabel(pick(lang, "查询", "queries"), fontsize=8.5)
        ax.set_xlabel(pick(lang, "键", "keys"), fontsize=8.5)


def draw(lang: str, how: str):
    if is_narrow():  # a phone: q, then the blocks, then the weights two by two
        fig, axes = new_figure(8.2, nrows=4, ncols=2, height_ratios=[1, 1, 1.25, 1.25])
        for ax in axes[:2].ravel():
            ax.remove()
        gs = axes[2, 0].get_gridspec()
        source, blocks = fig.add_subplot(gs[0, :]), fig.add_subplot(gs[1, :])
        heat = axes[2:].ravel()
    else:
        fig, axes = new_figure(4.6, nrows=2, ncols=4, height_ratios=[1, 1.05])
        for ax in axes[0]:
            ax.remove()
        gs = axes[1, 0].get_gridspec()
        source, blocks = fig.add_subplot(gs[0, :2]), fig.add_subplot(gs[0, 2:])
        heat = axes[1]
    _source(source, lang)
    _blocks(blocks, lang, how)
    token, _ = reshape.provenance(SPLITS[how])
    w = reshape.weights(SPLITS[how])
    for i, ax in enumerate(heat):
        _weights(ax, lang, i, w[i], _names(token[i]), first=i % (2 if is_narrow() else toy.H) == 0)
    return fig
