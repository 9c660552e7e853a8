"""tile-steps: one query row of the running example computed a tile of keys at a time.

The position head's row for `it`, keys in tiles of two (mha_ref.example.tiles, flash.flash_trace).
Top: the row's scores, the tiles read so far in colour, and the running maximum m. Middle: the
terms exp(s - m) whose sum is the denominator l; when a tile brings a new maximum, the earlier
terms shrink by exp(m_old - m_new), and their heights before that are outlined. Right (below on a
phone): the running output acc / l among the head's value vectors, and attention()'s output.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import tiles, toy

from ..kit.control import Control
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

COLOUR = HEAD_COLOURS[tiles.HEAD]
UNREAD = "#c8c8c8"
ROW = toy.token_index(tiles.QUERY)
N_TILES = len(tiles.tiles())

CONTROL = Control(
    label_zh="读到第几块", label_en="tiles read", values=tuple(range(N_TILES)), start=1,
    slug=lambda t: f"tile{t + 1}", value_label=lambda t, lang: f"{t + 1} / {N_TILES}",
)
CAPTION_ZH = (
    "我们例子里[位置头](glossary.md#position-head)给 `it` 算的那一行，键按每块 {{ value today.tiles.block }} 个分块读入。"
    "“分数与最大值 m”那张：这一行的分数，已经读过的块上了色，虚线是到目前为止的最大分数 $m$。"
    "“各项之和 l”那张：每个已读键的 $e^{s-m}$，它们的和就是分母 $l$；某一块带来更大的 $m$ 时，先前的各项一起乘上 $e^{m_\\text{旧}-m_\\text{新}}$ 缩小，虚线框是缩小之前的高度。"
    "“输出 acc / l”那张：每读完一块的输出（实心点连成的路径），落在这个头的值向量之间；圆圈是整行一次算完的 `attention()` 的输出，读完最后一块时两者重合。"
)
CAPTION_EN = (
    "The running example's [position head](glossary.md#position-head), its row for `it`, with the keys read in tiles of "
    "{{ value today.tiles.block }}. The panel \"scores and the maximum m\": the row's scores, the tiles read so far in colour, "
    "and the dashed line at the largest score so far, $m$. The panel \"their sum l\": $e^{s-m}$ for every key read, whose "
    "sum is the denominator $l$; when a tile brings a larger $m$, every earlier term is multiplied by "
    "$e^{m_\\text{old}-m_\\text{new}}$ and shrinks, and a dashed box shows its height before. The panel \"output acc / l\": "
    "the output after each tile (filled dots along a path), among the head's value vectors; the ring is the output of "
    "`attention()`, which takes the whole row at once, and the two meet when the last tile is read."
)


def _scores() -> np.ndarray:
    """[n] the row's scores, as attention() computes them (the tiles compute the same numbers)."""
    q, k, _ = tiles.head_qkv()
    return (q[ROW] @ k.T) / np.sqrt(q.shape[-1])


def _keys(t: int) -> str:
    start, stop = tiles.tiles()[t]
    return " ".join(toy.TOKENS[start:stop])


def _rescale(t: int, spec: str) -> str:
    """What tile t multiplied the earlier terms by; the first tile has none before it."""
    return "—" if t == 0 else format(tiles.trace().rescale[t, 0], spec)


def readout(lang: str, t: int) -> str:
    tr = tiles.trace()
    return pick(lang,
                f"第 {t + 1} 块（{_keys(t)}）· m = {tr.m[t, 0]:.2f} · 先前各项乘 {_rescale(t, '.1e')} · l = {tr.l[t, 0]:.3f}",
                f"tile {t + 1} ({_keys(t)}) · m = {tr.m[t, 0]:.2f} · earlier terms × {_rescale(t, '.1e')} · "
                f"l = {tr.l[t, 0]:.3f}")


def data(lang: str):
    """After every tile: its keys, m, what the earlier terms were multiplied by, l and the output;
    then attention()'s output for the same row."""
    tr = tiles.trace()
    rows = [[str(t + 1), _keys(t), f"{tr.m[t, 0]:.4f}", _rescale(t, ".3e"), f"{tr.l[t, 0]:.6f}",
             *(f"{x:.6f}" for x in tr.out[t, 0])] for t in range(N_TILES)]
    rows.append([pick(lang, "attention()，整行", "attention(), whole row"), " ".join(toy.TOKENS), "", "", "",
                 *(f"{x:.6f}" for x in tiles.reference_row())])
    return ([pick(lang, "块", "tile"), pick(lang, "这一块的键", "keys in the tile"),
             pick(lang, "最大分数 m", "running maximum m"),
             pick(lang, "先前各项乘以", "earlier terms multiplied by"),
             pick(lang, "分母 l", "denominator l"),
             pick(lang, "输出第 1 维", "output, number 1"), pick(lang, "输出第 2 维", "output, number 2")],
            rows)


def _tile_bounds(ax) -> None:
    """A dotted line between neighbouring tiles."""
    for start, _ in tiles.tiles()[1:]:
        ax.axvline(start - 0.5, color=MUTED, lw=0.8, ls=":")


def _scores_panel(ax, lang: str, t: int) -> None:
    s, tr = _scores(), tiles.trace()
    _, stop = tiles.tiles()[t]
    x = np.arange(toy.N)
    ax.bar(x, s, width=0.7, color=[COLOUR if j < stop else UNREAD for j in x], zorder=2)
    ax.axhline(0, color=MUTED, lw=0.6)
    m = tr.m[t, 0]
    ax.axhline(m, color=INK, lw=1, ls="--", zorder=3)
    ax.annotate(f"m = {m:.2f}", (-0.45, m), xytext=(0, 3), textcoords="offset points", ha="left", va="bottom",
                fontsize=8.5, color=INK)
    low, high = min(s.min(), 0), s.max()
    ax.set_ylim(low - 0.1 * (high - low), high + 0.3 * (high - low))
    _tile_bounds(ax)
    ax.set_xticks(x, toy.TOKENS)
    ax.set_xlim(-0.6, toy.N - 0.4)
    ax.set_ylabel(pick(lang, "分数 s", "score s"))
    ax.set_title(pick(lang, f"读到第 {t + 1} 块（共 {N_TILES} 块）：分数与最大值 m",
                      f"after tile {t + 1} of {N_TILES}: scores and the maximum m"), fontsize=9.5, loc="left")


def _terms_panel(ax, lang: str, t: int) -> None:
    s, tr = _scores(), tiles.trace()
    start, stop = tiles.tiles()[t]
    x = np.arange(stop)
    m = tr.m[t, 0]
    ax.bar(x, np.exp(s[:stop] - m), width=0.7, color=COLOUR, zorder=2)
    rescale = tr.rescale[t, 0]
    if t and rescale < 1:  # the earlier terms as they stood before this tile's larger maximum
        before = np.exp(s[:start] - tr.m[t - 1, 0])
        ax.bar(np.arange(start), before, width=0.7, fill=False, edgecolor=INK, lw=1, ls="--", zorder=3)
        ax.text((start - 1) / 2, 1.2, pick(lang, f"× {rescale:.1e}", f"× {rescale:.1e}"), ha="center",
                va="bottom", fontsize=8.5, color=INK)
    _tile_bounds(ax)
    ax.set_ylim(0, 1.5)
    ax.set_yticks([0, 0.5, 1])
    ax.set_xticks(np.arange(toy.N), toy.TOKENS)
    ax.set_xlim(-0.6, toy.N - 0.4)
    ax.set_ylabel("$e^{s-m}$")
    ax.set_title(pick(lang, f"各项之和 l = {tr.l[t, 0]:.3f}", f"their sum l = {tr.l[t, 0]:.3f}"), fontsize=9.5,
                 loc="left")


def _plane_panel(ax, lang: str, t: int) -> None:
    _, _, v = tiles.head_qkv()
    tr = tiles.trace()
    ref = tiles.reference_row()
    ax.scatter(v[:, 0], v[:, 1], s=14, color=MUTED, zorder=2)
    # the ring sits on `and`: its name goes below right, clear of the ring, and `it`'s, just below it, to the left
    placed = {toy.token_index("and"): ((8, -12), "left"), toy.token_index("it"): ((-5, -4), "right")}
    for j, word in enumerate(toy.TOKENS):
        offset, ha = placed.get(j, ((5, 3), "left"))
        ax.annotate(word, v[j], xytext=offset, textcoords="offset points", ha=ha, fontsize=8.5, color=MUTED)
    path = tr.out[:t + 1, 0]
    ax.plot(path[:, 0], path[:, 1], "-o", color=COLOUR, ms=5, lw=1.2, zorder=4,
            label=pick(lang, "每读完一块的输出", "output after each tile"))
    for i in sorted({0, t}):  # the first and the latest; the others sit where the last ones do
        ax.annotate(str(i + 1), path[i], xytext=(-13, -4), textcoords="offset points", fontsize=8.5, color=COLOUR)
    ax.plot([ref[0]], [ref[1]], "o", ms=12, mfc="none", mec=INK, mew=1.2, zorder=5,
            label=pick(lang, "attention()，整行一次算", "attention(), whole row"))
    ax.legend(loc="upper left", fontsize=8.5, handlelength=1.5)
    ax.set_aspect("equal", adjustable="datalim")
    ax.margins(0.15)
    ax.set_title(pick(lang, "输出 acc / l，在值向量之间", "output acc / l among the values"), fontsize=9.5, loc="left")


def draw(lang: str, t: int):
    if is_narrow():
        fig, (top, mid, plane) = new_figure(8.4, nrows=3, height_ratios=[1, 1, 1.3])
    else:
        fig, axes = new_figure(4.6, nrows=2, ncols=2, width_ratios=[1.25, 1])
        top, mid = axes[:, 0]
        for ax in axes[:, 1]:  # the right column becomes one panel down both rows
            ax.remove()
        plane = fig.add_subplot(axes[0, 0].get_gridspec()[:, 1])
    _scores_panel(top, lang, t)
    _terms_panel(mid, lang, t)
    _plane_panel(plane, lang, t)
    return fig
