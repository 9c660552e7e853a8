"""peak-dip: one head asked to follow two rules gets weaker at both, most of all halfway.

The blended head's row for the query `it`, at every stop of the blend slider: its peak weight,
and its weights on `and` (the position rule's answer) and `ran` (the syntax rule's answer).
"""

from __future__ import annotations

from mha_ref import toy

from .style import HEAD_COLOURS, INK, new_figure, pick

CONTROL = None
CAPTION_ZH = (
    "同一个头的查询按比例混合位置信号与句法信号时，`it` 那一行的最高权重（黑线）。"
    "两端各自接近 {{ value blend.peak_position .2f }} 和 {{ value blend.peak_syntax .2f }}，"
    "正中间只剩 {{ value blend.peak_mid .2f }}；无论比例取多少，最高点只落在 `and` 或 `ran` 上。"
)
CAPTION_EN = (
    "The highest weight in the row for `it` (black) as one head's query slides from the position "
    "signal to the syntax signal. Near {{ value blend.peak_position .2f }} and "
    "{{ value blend.peak_syntax .2f }} at the two ends, only {{ value blend.peak_mid .2f }} in the "
    "middle; at every ratio the top weight sits on `and` or on `ran`, never on a third token."
)


def draw(lang: str, value=None):
    ratios = toy.blend_ratios()
    rows = toy.blend_curve("it")  # [steps, n]
    peak = rows.max(axis=1)
    mid = len(ratios) // 2
    fig, ax = new_figure(3.8)
    ax.plot(ratios, rows[:, toy.token_index("and")], color=HEAD_COLOURS["position"], lw=1.8,
            label=pick(lang, "“and” 上的权重（位置规则的答案）", "weight on “and” (the position answer)"))
    ax.plot(ratios, rows[:, toy.token_index("ran")], color=HEAD_COLOURS["syntax"], lw=1.8,
            label=pick(lang, "“ran” 上的权重（句法规则的答案）", "weight on “ran” (the syntax answer)"))
    ax.plot(ratios, peak, color=INK, lw=2.6, marker="o", ms=3.5,
            label=pick(lang, "这一行的最高权重", "highest weight in the row"))
    ax.annotate(pick(lang, f"中点：最高权重只有 {peak[mid]:.2f}", f"midpoint: highest weight only {peak[mid]:.2f}"),
                xy=(ratios[mid], peak[mid]), xytext=(ratios[mid] + 0.08, 0.2),
                arrowprops={"arrowstyle": "->", "color": INK}, fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_xticklabels(pick(lang, t_zh, t_en) for t_zh, t_en in
                       [("0\n纯位置", "0\nposition only"), ("0.25", "0.25"), ("0.5", "0.5"),
                        ("0.75", "0.75"), ("1\n纯句法", "1\nsyntax only")])
    ax.set_xlabel(pick(lang, "混合比例", "blend ratio"))
    ax.set_ylabel(pick(lang, "注意力权重（查询 = it）", "attention weight (query = it)"))
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8.5)
    return fig
