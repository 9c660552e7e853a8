"""causal-mask: the four heads of the running example, with a causal mask and without.

For the chosen query, each head's row of weights twice: without the mask (outlined bars) and with
it (filled bars). The keys after the query are shaded: the mask hides them. A head whose target
comes later (the syntax head at `it`: `ran`) must put that weight on what is left.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from mha_ref.example import causal, toy

from ..kit.control import query_control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, QUERY_BOX, new_figure
from ..kit.words import pick

CONTROL = query_control("it")
MASKED = {"facecolor": "#f0f0f0", "edgecolor": "#c8c8c8", "hatch": "///", "lw": 0}  # the keys the mask hides
CAPTION_ZH = (
    "{{ screen \"所选查询\" print \"每一帧那个查询\" }}在四个头里的一行权重：空心柱不加掩码，实心柱加因果掩码，"
    "灰底是被遮住的键（查询之后的词），权重恰好是零。查询 `it` 的句法头原本几乎把全部权重给了后面的 `ran`；"
    "遮住之后，权重散到前面的 `the`、`and` 和它自己身上，最大的也只有 {{ value causal.syntax_it_top .2f }}。"
    "位置头要找的本来就在前面，几乎不受影响。"
)
CAPTION_EN = (
    "{{ screen \"The chosen query's\" print \"Each frame's query's\" }} row of weights in the four heads: outlined bars without a mask, "
    "filled bars with the causal mask. The shaded keys (those after the query) are masked: their "
    "weight is exactly zero. For the query `it` the syntax head put nearly all its weight on `ran`, "
    "which comes later; masked, it spreads that weight over `the`, `and` and `it` itself, the largest "
    "share only {{ value causal.syntax_it_top .2f }}. The position head's target is always behind "
    "the query, so it hardly changes."
)


def readout(lang: str, query: int) -> str:
    parts = []
    for head in ("position", "syntax", "rare"):
        now = causal.top_keys(head)[query]
        before = toy.TOKENS[toy.trace().weights[toy.head_index(head)][query].argmax()]
        name = pick(lang, *HEAD_NAMES[head])
        parts.append(f"{name} → {now}" + ("" if now == before else pick(lang, f"（原为 {before}）", f" (was {before})")))
    return pick(lang, f"查询 {toy.TOKENS[query]}，加掩码：" + "，".join(parts),
                f"query {toy.TOKENS[query]}, masked: " + ", ".join(parts))


def _cell(value: float) -> str:
    return "0" if value == 0 else decimals(value)  # a masked weight is exactly zero: say so


def data(lang: str):
    """Every query's row in every head, without the mask and with it (a masked weight is printed 0)."""
    rows = []
    for q in range(toy.N):
        for head in toy.HEADS:
            i = toy.head_index(head)
            for label, w in ((pick(lang, "无掩码", "no mask"), toy.trace().weights),
                             (pick(lang, "因果掩码", "causal mask"), causal.trace().weights)):
                rows.append([toy.TOKENS[q], pick(lang, *HEAD_NAMES[head]), label, *(_cell(v) for v in w[i][q])])
    return [pick(lang, "查询", "query"), pick(lang, "头", "head"), pick(lang, "掩码", "mask"), *toy.TOKENS], rows


def draw(lang: str, query: int):
    free, masked = toy.trace().weights, causal.trace().weights
    fig, axes = new_figure(6.2, nrows=toy.H, sharex=True)
    x = np.arange(toy.N)
    for ax, head in zip(axes, toy.HEADS):
        i, colour = toy.head_index(head), HEAD_COLOURS[head]
        if query < toy.N - 1:  # the keys after the query: what the mask hides
            ax.axvspan(query + 0.5, toy.N - 0.5, zorder=0, **MASKED)
        ax.bar(x - 0.18, free[i][query], width=0.34, facecolor="white", edgecolor=colour, lw=1.3, zorder=2)
        ax.bar(x + 0.18, masked[i][query], width=0.34, color=colour, zorder=2)
        top = int(masked[i][query].argmax())
        if head != "diffuse":
            ax.text(top + 0.18, masked[i][query][top] + 0.03, f"{masked[i][query][top]:.2f}", ha="center",
                    va="bottom", fontsize=8.5, color=INK)
        ax.set_xticks(x, toy.TOKENS)
        for label in ax.get_xticklabels()[query:query + 1]:  # empty on the upper axes of the stack
            label.set_bbox(QUERY_BOX)  # no shaded column: here shading means "masked"
        ax.set_ylim(0, 1.18)
        ax.set_yticks([0, 0.5, 1])
        ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
        ax.set_title(pick(lang, *HEAD_NAMES[head]), loc="left", fontsize=10, color=colour)
    axes[-1].set_xlabel(pick(lang, f"键（查询 = {toy.TOKENS[query]}）", f"keys (query = {toy.TOKENS[query]})"))
    handles = [Patch(facecolor="white", edgecolor=INK, label=pick(lang, "无掩码", "no mask")),
               Patch(facecolor=INK, label=pick(lang, "因果掩码", "causal mask")),
               Patch(**MASKED, label=pick(lang, "被遮住的键", "masked keys"))]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8.5)
    return fig
