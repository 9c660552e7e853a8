"""blend-rows: two heads, two different answers for the same query.

The position head's row and the syntax head's row for the chosen query, as weights over the six
tokens. At `it` they peak on different tokens: `and` (one back) and `ran` (one ahead).
"""

from __future__ import annotations

from mha_ref import toy

from .control import query_control
from .draw import mark_query, weight_bars
from .style import HEAD_COLOURS, new_figure, pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "选定一个查询 token，上面是位置头那一行权重，下面是句法头那一行。"
    "查询是 `it` 时，一个指向前一格的 `and`，一个指向后一格的 `ran`。"
)
CAPTION_EN = (
    "Pick a query token: the position head's row of weights on top, the syntax head's below. "
    "For `it`, one points one step back at `and`, the other one step ahead at `ran`."
)


def readout(lang: str, query: int) -> str:
    w = toy.trace().weights
    pos = toy.TOKENS[w[toy.head_index("position")][query].argmax()]
    syn = toy.TOKENS[w[toy.head_index("syntax")][query].argmax()]
    return pick(lang, f"查询 {toy.TOKENS[query]}：位置头 → {pos}，句法头 → {syn}",
                f"query {toy.TOKENS[query]}: position head → {pos}, syntax head → {syn}")


def draw(lang: str, query: int):
    w = toy.trace().weights
    fig, axes = new_figure(3.6, nrows=2, sharex=True)
    for ax, head, zh, en in ((axes[0], "position", "位置头：看前一个 token", "position head: the previous token"),
                             (axes[1], "syntax", "句法头：看它依附的词", "syntax head: what the token attaches to")):
        weight_bars(ax, w[toy.head_index(head)][query], HEAD_COLOURS[head], title=pick(lang, zh, en))
        mark_query(ax, query)
        ax.set_ylabel(pick(lang, "权重", "weight"))
    axes[1].set_xlabel(pick(lang, f"键（查询 = {toy.TOKENS[query]}）", f"keys (query = {toy.TOKENS[query]})"))
    return fig
