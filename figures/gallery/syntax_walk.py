"""syntax-walk: where the syntax head sends each token, as an arc from the token to its target.

Its target follows the grammar, not an offset: forward from `it` to `ran`, back from `ate` to
`cat`. Arcs that point ahead run above the sentence, arcs that point back below it; the chosen
query's arc is drawn strong, the others faint.
"""

from __future__ import annotations

from matplotlib.patches import FancyArrowPatch

from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.style import HEAD_COLOURS, INK, MUTED, QUERY_BOX, new_figure
from ..kit.words import pick, plural

CONTROL = query_control("it")
CAPTION_ZH = (
    "句法头为每个 token 找到的目标，画成一条弧线：指向后面的弧在句子上方，指回前面的弧在句子下方；"
    "{{ screen \"所选查询的那条弧\" print \"每一帧那个查询的弧\" }}用粗的彩色线标出。"
    "从 `it` 指向后面的 `ran`，从 `ate` 指回前面的 `cat`：目标随语法走，不是固定的偏移。"
)
CAPTION_EN = (
    "The syntax head's target for each token, drawn as an arc: arcs that point ahead run above "
    "the sentence, arcs that point back run below it, and {{ screen \"the chosen query's arc\" print \"the arc of each frame's query\" }} is thick and "
    "coloured. From `it` it reaches forward to `ran`, from `ate` back to `cat`: the target follows "
    "the grammar, not a fixed offset."
)


def readout(lang: str, query: int) -> str:
    target = int(toy.targets("syntax")[query])
    step = target - query
    n = abs(step)
    where = pick(lang, f"往句尾 {n} 格" if step > 0 else f"往句首 {n} 格",
                 f"{plural(n, 'step')} {'ahead' if step > 0 else 'back'}")
    w = toy.trace().weights[toy.head_index("syntax")][query, target]
    return pick(lang, f"{toy.TOKENS[query]} → {toy.TOKENS[target]}（{where}，权重 {w:.2f}）",
                f"{toy.TOKENS[query]} → {toy.TOKENS[target]} ({where}, weight {w:.2f})")


def data(lang: str):
    """Every arc (each frame draws all six, one strong): query, target, the step (+ ahead, − back)
    and the syntax head's weight on its target."""
    w = toy.trace().weights[toy.head_index("syntax")]
    return ([pick(lang, "查询", "query"), pick(lang, "句法头指向", "syntax head's target"),
             pick(lang, "位移（+ 往句尾，− 往句首）", "step (+ ahead, − back)"), pick(lang, "目标上的权重", "weight on the target")],
            [[toy.TOKENS[q], toy.TOKENS[t], f"{t - q:+d}".replace("-", "−"), f"{w[q, t]:.2f}"]
             for q, t in enumerate(toy.targets("syntax"))])


def draw(lang: str, query: int):
    targets = toy.targets("syntax")
    fig, ax = new_figure(3.0)
    colour = HEAD_COLOURS["syntax"]
    for i, t in enumerate(targets):
        strong = i == query
        forward = t > i  # forward arcs above the words, backward ones below (rad is relative to the direction)
        y = 0.15 if forward else -0.4
        ax.add_patch(FancyArrowPatch((i, y), (t, y), connectionstyle="arc3,rad=-0.5",
                                     arrowstyle="-|>", mutation_scale=14 if strong else 9,
                                     lw=2.6 if strong else 1, color=colour if strong else MUTED,
                                     alpha=1 if strong else 0.45, zorder=3 if strong else 2))
    for i, token in enumerate(toy.TOKENS):
        ax.text(i, -0.12, token, ha="center", va="center", fontsize=12, color=INK,
                bbox=QUERY_BOX if i == query else None)
    ax.set_xlim(-0.6, toy.N - 0.4)
    ax.set_ylim(-1.5, 1.5)
    ax.text(toy.N - 0.45, 1.3, pick(lang, "上方的弧：指向后面的词", "above: pointing ahead"), ha="right", fontsize=8.5, color=MUTED)
    ax.text(toy.N - 0.45, -1.4, pick(lang, "下方的弧：指向前面的词", "below: pointing back"), ha="right", fontsize=8.5, color=MUTED)
    ax.axis("off")
    ax.set_title(pick(lang, "句法头：每个词在语法上连向谁", "syntax head: each word's grammatical link"),
                 loc="left", fontsize=10, color=colour)
    return fig

