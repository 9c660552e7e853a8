"""position-vs-rare-rows: two rules that look alike on one query and nothing alike across them.

The position head's row above, the rare-token head's row below, for the chosen query. The top
peak moves with the query, one step behind; the bottom one stays on `cat`.
"""

from __future__ import annotations

from mha_ref import toy

from .control import query_control
from .draw import mark_query, weight_bars
from .style import HEAD_COLOURS, new_figure, pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "上面是位置头，下面是稀有词头，都是所选查询的那一行权重。拖动查询：上面的峰值总是落后查询一步，"
    "下面的峰值始终停在 `cat` 上。"
)
CAPTION_EN = (
    "The position head's row on top, the rare-token head's below, for the chosen query. Move the "
    "query: the top peak follows it one step behind, the bottom one never leaves `cat`."
)


def readout(lang: str, query: int) -> str:
    w = toy.trace().weights
    pos = toy.TOKENS[w[toy.head_index("position")][query].argmax()]
    rare = toy.TOKENS[w[toy.head_index("rare")][query].argmax()]
    return pick(lang, f"查询 {toy.TOKENS[query]}：位置头 → {pos}，稀有词头 → {rare}",
                f"query {toy.TOKENS[query]}: position head → {pos}, rare-token head → {rare}")


def draw(lang: str, query: int):
    w = toy.trace().weights
    fig, axes = new_figure(3.6, nrows=2, sharex=True)
    for ax, head, zh, en in ((axes[0], "position", "位置头", "position head"),
                             (axes[1], "rare", "稀有词头", "rare-token head")):
        weight_bars(ax, w[toy.head_index(head)][query], HEAD_COLOURS[head], title=pick(lang, zh, en))
        mark_query(ax, query)
        ax.set_ylabel(pick(lang, "权重", "weight"))
    axes[1].set_xlabel(pick(lang, f"键（查询 = {toy.TOKENS[query]}）", f"keys (query = {toy.TOKENS[query]})"))
    return fig
