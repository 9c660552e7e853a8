"""syntax-walk: where the syntax head sends each token, as an arc over the sentence.

Its target follows the grammar, not an offset: forward from `it` to `ran`, back from `ate` to
`cat`. The chosen query's arc is drawn strong, the others faint.
"""

from __future__ import annotations

from matplotlib.patches import FancyArrowPatch

from mha_ref import toy

from .control import query_control
from .style import HEAD_COLOURS, INK, MUTED, new_figure, pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "句法头为每个 token 找到的目标，画成句子上方的弧线；所选查询的弧线加粗。"
    "在 `it` 处向前指向 `ran`，在 `ate` 处向后指回 `cat`：目标随语法走，不是固定的偏移。"
)
CAPTION_EN = (
    "The syntax head's target for each token, drawn as an arc above the sentence; the chosen "
    "query's arc in bold. From `it` it reaches forward to `ran`, from `ate` back to `cat`: the "
    "target follows the grammar, not a fixed offset."
)


def readout(lang: str, query: int) -> str:
    target = int(toy.targets("syntax")[query])
    step = target - query
    where = pick(lang, f"向前 {step} 格" if step > 0 else f"向后 {-step} 格",
                 f"{step} step(s) forward" if step > 0 else f"{-step} step(s) back")
    w = toy.trace().weights[toy.head_index("syntax")][query, target]
    return pick(lang, f"{toy.TOKENS[query]} → {toy.TOKENS[target]}（{where}，权重 {w:.2f}）",
                f"{toy.TOKENS[query]} → {toy.TOKENS[target]} ({where}, weight {w:.2f})")


def draw(lang: str, query: int):
    targets = toy.targets("syntax")
    fig, ax = new_figure(2.6)
    colour = HEAD_COLOURS["syntax"]
    for i, t in enumerate(targets):
        strong = i == query
        rad = -0.5 if t > i else 0.5  # arcs bend upward either way
        ax.add_patch(FancyArrowPatch((i, 0.15), (t, 0.15), connectionstyle=f"arc3,rad={rad}",
                                     arrowstyle="-|>", mutation_scale=14 if strong else 9,
                                     lw=2.6 if strong else 1, color=colour if strong else MUTED,
                                     alpha=1 if strong else 0.45, zorder=3 if strong else 2))
    for i, token in enumerate(toy.TOKENS):
        ax.text(i, 0, token, ha="center", va="top", fontsize=12,
                fontweight="bold" if i == query else "normal", color=INK)
    ax.set_xlim(-0.6, toy.N - 0.4)
    ax.set_ylim(-0.35, 1.7)
    ax.axis("off")
    ax.set_title(pick(lang, "句法头：每个词依附于谁", "syntax head: what each word attaches to"),
                 loc="left", fontsize=10, color=colour)
    return fig

