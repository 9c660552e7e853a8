"""peak-dip: one head asked to follow two rules gets weaker at both, most of all near halfway.

The blended head's row for the query `it`, against the blend ratio: its peak weight, and its
weights on `and` (the position rule's answer) and `ran` (the syntax rule's answer). The curves are
drawn on a fine grid, the slider's stops are marked, and the true minimum is computed, not read
off a stop.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import toy

from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "同一个头的查询按比例混合位置信号与句法信号时，`it` 那一行的最高权重（粗线，圆点是{{ screen \"滑块的各档\" print \"逐帧图所取的那几档比例\" }}）。"
    "两端分别是 {{ value blend.peak_position .2f }} 和 {{ value blend.peak_syntax .2f }}；"
    "最低点在比例 {{ value blend.min_ratio .3f }} 处，只有 {{ value blend.min_peak .2f }}，"
    "正是 `and` 与 `ran` 打平的地方。对 `it` 这一行，最高点不是落在 `and` 上就是落在 `ran` 上；"
    "别的查询未必如此。"
)
CAPTION_EN = (
    "The highest weight in the row for `it` (the thick line; dots mark {{ screen \"the slider's stops\" print \"the ratios the blend figure draws as frames\" }}) as one head's query "
    "slides from the position signal to the syntax signal: {{ value blend.peak_position .2f }} and "
    "{{ value blend.peak_syntax .2f }} at the two ends, lowest at ratio {{ value blend.min_ratio .3f }} "
    "with only {{ value blend.min_peak .2f }}, where `and` and `ran` tie. In this row the top "
    "weight is on `and` or on `ran` at every ratio; rows of other queries need not behave so."
)
FINE = 401  # points of the drawn curves


def data(lang: str):
    """The blend figure's stops: the row of `it`, its weights on `and` and `ran` and its peak."""
    curve = toy.blend_curve("it")
    return ([pick(lang, "混合比例", "blend ratio"), pick(lang, "“and” 上的权重", "weight on “and”"),
             pick(lang, "“ran” 上的权重", "weight on “ran”"), pick(lang, "最高权重", "highest weight")],
            [[f"{a:.2f}", f"{row[toy.token_index('and')]:.2f}", f"{row[toy.token_index('ran')]:.2f}", f"{row.max():.2f}"]
             for a, row in zip(toy.blend_ratios(), curve)])


def draw(lang: str, value=None):
    it = toy.token_index("it")
    ratios = np.linspace(0.0, 1.0, FINE)
    rows = np.stack([toy.blend_weights(a)[it] for a in ratios])  # [FINE, n]
    stops = toy.blend_ratios()
    stop_peaks = toy.blend_curve("it").max(axis=1)
    low_at, low = toy.blend_minimum("it")
    narrow = is_narrow()  # a phone's width: fewer ticks, a two-line note, a one-column legend below
    fig, ax = new_figure(4.6 if narrow else 3.8)
    ax.plot(ratios, rows[:, toy.token_index("and")], color=HEAD_COLOURS["position"], lw=1.8,
            label=pick(lang, "“and” 上的权重（位置规则的答案）", "weight on “and” (the position answer)"))
    ax.plot(ratios, rows[:, toy.token_index("ran")], color=HEAD_COLOURS["syntax"], lw=1.8,
            label=pick(lang, "“ran” 上的权重（句法规则的答案）", "weight on “ran” (the syntax answer)"))
    ax.plot(ratios, rows.max(axis=1), color=INK, lw=2.6,
            label=pick(lang, "这一行的最高权重", "highest weight in the row"))
    ax.plot(stops, stop_peaks, "o", color=INK, ms=3.5,
            label=pick(lang, "混合图的各档", "the blend figure's stops"))
    ax.plot([low_at], [low], "o", ms=9, mfc="none", mec=INK, mew=1.4)
    gap = "\n" if narrow else pick(lang, "，", ", ")
    ax.annotate(pick(lang, f"最低点：比例 {low_at:.3f}{gap}最高权重 {low:.2f}",
                     f"lowest: ratio {low_at:.3f}{gap}highest weight {low:.2f}"),
                xy=(low_at, low), xytext=(low_at + 0.08, 0.2),
                arrowprops={"arrowstyle": "->", "color": INK}, fontsize=9)
    ax.axhline(0.5, color=MUTED, lw=0.8, ls=":")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ticks = {0: pick(lang, "0\n纯位置", "0\nposition only"), 0.25: "0.25", 0.5: "0.5", 0.75: "0.75",
             1: pick(lang, "1\n纯句法", "1\nsyntax only")}
    if narrow:  # "position only" would run into 0.25
        del ticks[0.25], ticks[0.75]
    ax.set_xticks(list(ticks), list(ticks.values()))
    ax.set_xlabel(pick(lang, "混合比例", "blend ratio"))
    ax.set_ylabel(pick(lang, "注意力权重（查询 = it）", "attention weight (query = it)"))
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=1 if narrow else 2,
               fontsize=8.5)
    return fig
