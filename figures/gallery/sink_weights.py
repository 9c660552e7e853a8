"""sink-weights: the last token's rows under a sliding window, with 0 to 3 sink tokens kept.

The running example with a causal window of three keys: `ran` sees only `and`, `it` and itself.
For each head, the outlined bars are its row with the causal mask alone, the filled bars its row
under the window; keys the window hides are shaded, sink keys (the first tokens, kept whatever the
window) are marked. Each row still sums to one: weight whose key is gone lands on what is left.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from mha_ref import sliding_window_mask
from mha_ref.example import toy, windowed

from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, QUERY_BOX, is_narrow, new_figure
from ..kit.words import pick, plural
from .causal_mask import MASKED

QUERY = toy.token_index("ran")
CONTROL = Control(
    label_zh="保留开头几个 token（汇聚 token）", label_en="first tokens kept (sinks)", values=windowed.SINKS, start=0,
    slug=lambda s: f"sinks{s}", value_label=lambda s, lang: str(s),
)
CAPTION_ZH = (
    "窗口 {{ value today.window.size }} 个键的运行示例，最后一个 token `ran` 在四个头里的一行权重："
    "空心柱只加因果掩码，实心柱再加滑动窗口；灰底斜线是窗口外被遮住的键，键下面注着“汇聚”的，是不管窗口多远都保留的开头几个 token。"
    "没有汇聚 token 时，稀有词头够不到 `cat`，把 {{ value today.window.ran_rare_ran .2f }} 的权重压在 `ran` 自己身上；"
    "句法头找不到 `ate`，在 `and` 和 `it` 之间对半分。每一行仍然加起来等于一：键没了，权重只好落到剩下的键上。"
)
CAPTION_EN = (
    "The running example under a window of {{ value today.window.size }} keys: the last token `ran`'s row in "
    "each of the four heads. Outlined bars: the causal mask alone; filled bars: the sliding window as well. "
    "Shaded, hatched keys are outside the window; keys labelled \"(sink)\" are first tokens kept however far "
    "back they are. With no sinks the rare-token head cannot reach `cat` and puts "
    "{{ value today.window.ran_rare_ran .2f }} of its weight on `ran` itself; the syntax head cannot find "
    "`ate` and splits between `and` and `it`. Every row still sums to one: when a key is gone, its "
    "weight lands on the keys that are left."
)


def readout(lang: str, sinks: int) -> str:
    parts = []
    for head in ("syntax", "rare"):
        top = windowed.top_key(head, "ran", sinks)
        w = windowed.row(head, "ran", sinks)[toy.token_index(top)]
        parts.append(f"{pick(lang, *HEAD_NAMES[head])} → {top} {w:.2f}")
    return pick(lang, f"保留 {sinks} 个汇聚 token · " + "，".join(parts), f"{plural(sinks, 'sink')} kept · " + ", ".join(parts))


def _label(lang: str, sinks: int) -> str:
    return pick(lang, f"窗口 {windowed.WINDOW}，汇聚 {sinks}", f"window {windowed.WINDOW}, {plural(sinks, 'sink')}")


def _cell(value: float) -> str:
    return "0" if value == 0 else decimals(value)


def data(lang: str):
    """The row of `ran` in every head: with the causal mask alone, then under the window with each number of sinks."""
    rows = []
    for head in toy.HEADS:
        name = pick(lang, *HEAD_NAMES[head])
        rows.append([name, pick(lang, "只有因果掩码", "causal mask only"),
                     *(_cell(v) for v in windowed.row(head, "ran", window=toy.N))])
        for s in windowed.SINKS:
            rows.append([name, _label(lang, s),
                         *(_cell(v) for v in windowed.row(head, "ran", s))])
    return [pick(lang, "头", "head"), pick(lang, "掩码", "mask"), *toy.TOKENS], rows


def draw(lang: str, sinks: int):
    allowed = sliding_window_mask(toy.N, windowed.WINDOW, sinks)[QUERY]
    fig, axes = new_figure(6.2, nrows=toy.H, sharex=True)
    x = np.arange(toy.N)
    for ax, head in zip(axes, toy.HEADS):
        colour = HEAD_COLOURS[head]
        for j in np.flatnonzero(~allowed):
            ax.axvspan(j - 0.5, j + 0.5, zorder=0, **MASKED)
        free, kept = windowed.row(head, "ran", window=toy.N), windowed.row(head, "ran", sinks)
        ax.bar(x - 0.18, free, width=0.34, facecolor="white", edgecolor=colour, lw=1.3, zorder=2)
        ax.bar(x + 0.18, kept, width=0.34, color=colour, zorder=2)
        top = int(kept.argmax())
        if head != "diffuse":
            ax.text(top + 0.18, kept[top] + 0.03, f"{kept[top]:.2f}", ha="center", va="bottom", fontsize=8.5, color=INK)
        ax.set_xticks(x, [f"{t}\n{pick(lang, '汇聚', '(sink)')}" if j < sinks else t for j, t in enumerate(toy.TOKENS)])
        for label in ax.get_xticklabels()[QUERY:QUERY + 1]:
            label.set_bbox(QUERY_BOX)
        ax.set_ylim(0, 1.18)
        ax.set_yticks([0, 0.5, 1])
        ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
        ax.set_title(pick(lang, *HEAD_NAMES[head]), loc="left", fontsize=10, color=colour)
    axes[-1].set_xlabel(pick(lang, "键（查询 = ran）", "keys (query = ran)"))
    handles = [Patch(facecolor="white", edgecolor=INK, label=pick(lang, "只有因果掩码", "causal mask only")),
               Patch(facecolor=INK, label=_label(lang, sinks)),
               Patch(**MASKED, label=pick(lang, "窗口外的键", "keys outside the window"))]
    fig.legend(handles=handles, loc="outside lower center", ncols=1 if is_narrow() else 3, fontsize=8.5)
    return fig
