"""what-a-head-reads: the misreading (each head reads a quarter of the token) and the truth.

Each head reads all eight input numbers through its own d_model x d_k blocks of W_Q, W_K and W_V.
The two grids are computed (toy.head_sensitivity): how far each head's output moves when one input
number of one token is nudged, once through the weights (the nudge reaches q and k only) and once
through the values (it reaches v only). One token at a time, because a nudge to every token at once
moves every key alike and the softmax cancels it: the rare-token head's reading of x6 would vanish.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, LogNorm

from mha_ref.example import toy

from ..kit.control import Control
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTROL = Control(
    label_zh="画法", label_en="picture", values=("wrong", "right"), start="wrong",
    slug=lambda v: v, value_label=lambda v, lang: pick(
        lang, {"wrong": "常见误解", "right": "实际情况"}[v], {"wrong": "the misreading", "right": "what happens"}[v]),
)
CAPTION_ZH = (
    "连线图：token 的 {{ value toy.d_model }} 个输入数与 {{ value toy.h }} 个头之间的连线。"
    "两张格子图：只轻推一个 token 的一个输入数，每个头的输出最多动多少（按单位推动算），分两条路："
    "标着“经权重”的一张只让这一推进入查询和键，权重变、值不变；标着“经值”的一张只让它进入值，权重不变。颜色用对数刻度。"
    "第一帧是常见的误解；第二帧是实际算出来的：两张格子里没有一格是零，每个头都读到了全部输入；"
    "一个头的 $W^Q$、$W^K$ 块专门读哪几个数，它的权重就对哪几个数最敏感："
    "稀有词头的键读的是 $x_6$，“经权重”那张图里它那一行最醒目的一格就在 $x_6$。"
)
CAPTION_EN = (
    "The panel of lines: which of the token's {{ value toy.d_model }} input numbers reach each of the "
    "{{ value toy.h }} heads. The two grids: the most each head's output moves per unit nudge of one input "
    "number of one token, along two paths: in the grid titled \"via the weights\" the nudge reaches only the "
    "queries and keys (the weights move, the values stay), in the one titled \"via the values\" only the "
    "values (the weights stay). "
    "Shades are on a log scale. The first frame is the common misreading; the second is computed: no "
    "cell of either grid is zero, so every head reads every input, and a head whose $W^Q$ and $W^K$ "
    "blocks are built to read certain numbers has weights that respond most to those: the rare-token "
    "head's key reads $x_6$, and its strongest cell in the \"via the weights\" grid is $x_6$."
)

RARITY = 6  # the input number that holds each token's rarity (toy.inputs), read by the rare head's key
# Light grey for the smallest computed cell, so that only a true zero would be white.
_SHADES = ListedColormap(plt.get_cmap("Greys")(np.linspace(0.12, 0.92, 256)))


def readout(lang: str, picture: str) -> str:
    if picture == "wrong":
        return pick(lang, "误解：每个头只读自己那一段", "misreading: each head reads only its own slice")
    s = toy.head_sensitivity()
    rare_x6 = s.attention_path[toy.head_index("rare"), RARITY]
    return pick(lang, f"实际算出 · 每一格都大于零 · 稀有词头经权重对 x6：{rare_x6:.2f}",
                f"computed · every cell above zero · rare-token head via the weights, x6: {rare_x6:.2f}")


def _head_name(lang: str, head: str, two_lines: bool) -> str:
    """"rare-token head", or "rare-token" over "head" where the name must be narrow."""
    zh, en = HEAD_NAMES[head]
    return pick(lang, zh, en.replace(" ", "\n", 1) if two_lines else en)


def _reading_lines(ax, lang: str, picture: str) -> None:
    """Left panel: the input numbers of one token on top, the heads below, a line per number read."""
    d_model, h, d_k = toy.D_MODEL, toy.H, toy.D_K
    xs = np.arange(d_model)
    head_x = (np.arange(h) + 0.5) * d_model / h - 0.5
    for i, head in enumerate(toy.HEADS):
        reads = range(i * d_k, (i + 1) * d_k) if picture == "wrong" else range(d_model)
        for d in reads:
            ax.plot([xs[d], head_x[i]], [1, 0], color=HEAD_COLOURS[head], lw=1.1, alpha=0.7)
        ax.text(head_x[i], -0.12, _head_name(lang, head, two_lines=True), ha="center", va="top",
                color=HEAD_COLOURS[head], fontsize=8.5, linespacing=1.0)
    ax.scatter(xs, np.ones(d_model), s=160, marker="s", color="white", edgecolor=INK, zorder=3)
    for d in xs:
        ax.text(d, 1.12, f"$x_{d}$", ha="center", va="bottom", fontsize=8.5)
    ax.scatter(head_x, np.zeros(h), s=260, color=[HEAD_COLOURS[n] for n in toy.HEADS], zorder=3)
    block = f"${d_model} \\times {d_k}$"
    ax.set_title(pick(lang, "✗ 误解：每个头只读自己那一段" if picture == "wrong" else f"✓ 每个头经自己的 {block} 块读全部输入",
                      "✗ misreading: one slice each" if picture == "wrong" else f"✓ each head reads all, via its {block} blocks"),
                 fontsize=10, color=INK, loc="left")
    ax.set_xlim(-0.7, d_model - 0.3)
    ax.set_ylim(-0.45, 1.35)
    ax.axis("off")


def _cell_text(value: float) -> str:
    # Two decimals would print a small but non-zero cell as 0.00; say how small instead.
    return f"{value:.2f}" if value >= 0.01 else "<0.01"


def _grid(ax, lang: str, grid, title: str, norm=None) -> None:
    """One [h, d_model] grid: computed cells shaded on `norm`, or the misreading's 0 / ≠ 0."""
    if norm is None:  # the misreading: a 0/1 pattern, not numbers
        ax.imshow(grid, cmap="Greys", vmin=0, vmax=2.5, aspect="auto")
    else:
        ax.imshow(grid, cmap=_SHADES, norm=norm, aspect="auto")
    h, d_model = grid.shape
    for i in range(h):
        for d in range(d_model):
            if norm is None:
                ax.text(d, i, "0" if grid[i, d] == 0 else "≠ 0", ha="center", va="center", fontsize=8.5,
                        color=MUTED if grid[i, d] == 0 else INK)
            else:
                dark = norm(grid[i, d]) > 0.55
                ax.text(d, i, _cell_text(grid[i, d]), ha="center", va="center", fontsize=8.5,
                        color="white" if dark else INK)
    ax.set_xticks(range(d_model), [f"$x_{d}$" for d in range(d_model)], fontsize=8.5)
    # on a phone the names take two lines, so that eight columns of numbers still fit beside them
    ax.set_yticks(range(h), [_head_name(lang, n, two_lines=is_narrow()) for n in toy.HEADS], fontsize=8.5)
    for label, head in zip(ax.get_yticklabels(), toy.HEADS):
        label.set_color(HEAD_COLOURS[head])
    ax.set_title(title, fontsize=9, loc="left")
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _own_slice() -> np.ndarray:
    """[h, d_model] what the misreading predicts: 1 where a head reads its own slice, 0 elsewhere."""
    return np.kron(np.eye(toy.H), np.ones((1, toy.D_K)))


def _log_norm(*grids) -> LogNorm:
    """One log scale for both grids, from the decade below the smallest cell to the one above the largest."""
    cells = np.concatenate([g.ravel() for g in grids])
    return LogNorm(10.0 ** np.floor(np.log10(cells.min())), 10.0 ** np.ceil(np.log10(cells.max())))


def _shade_bar(fig, axes, norm, visible: bool = True, location: str = "right") -> None:
    """The log colour bar beside (or below) the two grids; drawn in both frames so that the grids line up."""
    bar = fig.colorbar(ScalarMappable(norm, _SHADES), ax=axes, location=location, shrink=0.6, aspect=25, pad=0.02)
    bar.ax.tick_params(labelsize=8.5, length=2)
    bar.outline.set_visible(False)
    if not visible:  # keep its room and its labels' room, show nothing
        bar.solids.set_alpha(0.0)
        bar.ax.tick_params(which="both", colors="none", labelcolor="none")


def data(lang: str):
    """Both frames' grids: per head and path, how far its output moves per unit nudge of each input
    number (the misreading's frame: the 0 / ≠ 0 it predicts). A cell the figure prints as <0.01 is
    given to two significant figures, so that the table too shows that no cell is zero."""
    s = toy.head_sensitivity()
    own_slice = _own_slice()
    paths = ((pick(lang, "经权重（q、k）", "via the weights (q, k)"), s.attention_path),
             (pick(lang, "经值（v）", "via the values (v)"), s.value_path))
    rows = []
    for picture in CONTROL.values:
        for path, grid in paths:
            for i, head in enumerate(toy.HEADS):
                cells = (("0" if c == 0 else "≠ 0" for c in own_slice[i]) if picture == "wrong"
                         else (f"{c:.2f}" if c >= 0.01 else f"{c:.1e}" for c in grid[i]))
                rows.append([CONTROL.value_label(picture, lang), path, pick(lang, *HEAD_NAMES[head]), *cells])
    return [pick(lang, "画法", "picture"), pick(lang, "路径", "path"), pick(lang, "头", "head"),
            *(f"x{d}" for d in range(toy.D_MODEL))], rows


def draw(lang: str, picture: str):
    if is_narrow():  # a phone's width holds one panel across: the lines, then the grids, the bar below them
        fig, (lines, top, bottom) = new_figure(6.8, nrows=3, height_ratios=[1.25, 1, 1])
        bar_at = "bottom"
    else:
        fig, axes = new_figure(4.4, nrows=2, ncols=2, width_ratios=[1, 1.15])
        for ax in axes[:, 0]:  # the left column becomes one panel over both rows
            ax.remove()
        lines = fig.add_subplot(axes[0, 0].get_gridspec()[:, 0])
        top, bottom = axes[:, 1]
        bar_at = "right"
    _reading_lines(lines, lang, picture)
    s = toy.head_sensitivity()
    norm = _log_norm(s.attention_path, s.value_path)
    if picture == "wrong":
        own_slice = _own_slice()
        _grid(top, lang, own_slice, pick(lang, "误解预言：经权重（$q$、$k$）", "misreading predicts: via the weights ($q$, $k$)"))
        _grid(bottom, lang, own_slice, pick(lang, "误解预言：经值（$v$）", "misreading predicts: via the values ($v$)"))
        _shade_bar(fig, [top, bottom], norm, visible=False, location=bar_at)
        return fig
    _grid(top, lang, s.attention_path, pick(lang, "算出来的：经权重（$q$、$k$）", "computed: via the weights ($q$, $k$)"), norm)
    _grid(bottom, lang, s.value_path, pick(lang, "算出来的：经值（$v$）", "computed: via the values ($v$)"), norm)
    _shade_bar(fig, [top, bottom], norm, location=bar_at)
    return fig
