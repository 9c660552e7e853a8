"""window-reach: the band mask of a sliding window, and how far back the last token reaches after L layers.

Sixteen tokens, a window of four keys (the query's own included). The mask lets each query read
itself and the three tokens before it; one layer up, those tokens have already read three more
each. The strip below the mask marks, layer by layer, every input position whose information can
have reached the last token: three more positions a layer, until the whole text is covered.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from mha_ref import sliding_window_mask, window_reach
from mha_ref.example import windowed
from mha_ref.example.windowed import REACH_N, REACH_WINDOW

from ..kit.control import Control
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

LAYERS = tuple(range(1, (REACH_N - 2) // (REACH_WINDOW - 1) + 2))  # until the first token is reached
OFF = "#eeeeee"
CONTROL = Control(
    label_zh="层数 L", label_en="layers L", values=LAYERS, start=2,
    slug=lambda n: f"layers{n}", value_label=lambda n, lang: f"L = {n}",
)
CAPTION_ZH = (
    "“掩码”那张是滑动窗口的带状掩码：{{ value today.window.reach_n }} 个 token，窗口 {{ value today.window.reach_window }} 个键"
    "（含查询自己），每一行是一个查询，着色的格子是它能读的键，最后一行（最后一个 token）加了框。"
    "“层”那张每一行是一层：着色的位置，是经过这么多层之后，信息能够流到最后一个 token 的那些输入位置。"
    "每多一层，就往前多够到 {{ value today.window.reach_step }} 个位置，"
    "{{ screen \"层数加到\" print \"到了\" }}覆盖整段文字为止。"
)
CAPTION_EN = (
    "The mask panel: the band mask of a sliding window: {{ value today.window.reach_n }} tokens, a window of "
    "{{ value today.window.reach_window }} keys (the query's own included); each row is a query, its "
    "coloured cells the keys it may read, and the last row (the last token) is framed. The layer panel: one "
    "row per layer: the coloured positions are the inputs whose information can have reached the last "
    "token after that many layers. Each layer reaches {{ value today.window.reach_step }} positions further back, "
    "{{ screen \"until enough layers\" print \"until the layers\" }} cover the whole text."
)


def readout(lang: str, layers: int) -> str:
    back = windowed.farthest_back(REACH_N, REACH_WINDOW, layers)
    return pick(lang, f"{layers} 层之后 · 最后一个 token 最远够到 {back} 个位置之前（{layers} × {REACH_WINDOW - 1}）",
                f"after {layers} {'layer' if layers == 1 else 'layers'} · the last token reaches {back} positions back "
                f"({layers} × {REACH_WINDOW - 1})")


def data(lang: str):
    """Every frame: the layers, how far back the last token reaches, and the positions it draws on."""
    rows = []
    for n in LAYERS:
        back = windowed.farthest_back(REACH_N, REACH_WINDOW, n)
        rows.append([str(n), str(back), str(min(window_reach(REACH_WINDOW, n), REACH_N - 1)),
                     f"{REACH_N - 1 - back} … {REACH_N - 1}"])
    return ([pick(lang, "层数 L", "layers L"), pick(lang, "最远往前够到几个位置", "positions reached back"),
             pick(lang, "L × (窗口 − 1)，以文本开头为限", "L × (window − 1), up to the text's start"),
             pick(lang, "能流到最后一个 token 的输入位置", "input positions that reach the last token")], rows)


def _cells(ax, grid: np.ndarray, colour: str) -> None:
    rows, cols = grid.shape
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((j + 0.06, i + 0.06), 0.88, 0.88, color=colour if grid[i, j] else OFF, lw=0))
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def draw(lang: str, layers: int):
    mask = sliding_window_mask(REACH_N, REACH_WINDOW)
    reach = windowed.reachable(REACH_N, REACH_WINDOW, max(LAYERS))
    shown = np.zeros_like(reach)
    shown[:layers] = reach[:layers]
    if is_narrow():
        fig, (top, bottom) = new_figure(6.4, nrows=2, height_ratios=[REACH_N, len(LAYERS) + 1])
    else:
        fig, (top, bottom) = new_figure(5.2, nrows=2, height_ratios=[REACH_N, len(LAYERS) + 1])
    _cells(top, mask, MUTED)
    top.add_patch(Rectangle((0, REACH_N - 1), REACH_N, 1, fill=False, ec=INK, lw=1.4))
    ticks = range(0, REACH_N, 3)
    top.set_xticks([t + 0.5 for t in ticks], [str(t) for t in ticks], fontsize=8.5)
    top.set_yticks([t + 0.5 for t in ticks], [str(t) for t in ticks], fontsize=8.5)
    top.set_xlabel(pick(lang, "键的位置", "key position"), fontsize=8.5)
    top.set_ylabel(pick(lang, "查询的位置", "query position"), fontsize=8.5)
    top.set_title(pick(lang, f"窗口 {REACH_WINDOW} 的掩码", f"the mask of a window of {REACH_WINDOW}"), loc="left",
                  fontsize=9.5, color=INK)
    _cells(bottom, shown, HEAD_COLOURS["position"])
    bottom.set_yticks([i + 0.5 for i in range(len(LAYERS))], [str(n) for n in LAYERS], fontsize=8.5)
    bottom.set_xticks([t + 0.5 for t in ticks], [str(t) for t in ticks], fontsize=8.5)
    bottom.set_ylabel(pick(lang, "层", "layer"), fontsize=8.5)
    bottom.set_xlabel(pick(lang, "输入位置", "input position"), fontsize=8.5)
    back = windowed.farthest_back(REACH_N, REACH_WINDOW, layers)
    bottom.set_title(pick(lang, f"{layers} 层之后：最远往前 {back} 个位置", f"after {layers} {'layer' if layers == 1 else 'layers'}: "
                                                                     f"{back} positions back"),
                     loc="left", fontsize=9.5, color=HEAD_COLOURS["position"])
    return fig
