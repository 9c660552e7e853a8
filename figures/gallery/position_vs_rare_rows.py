"""position-vs-rare-rows: two rules that look alike on one query and nothing alike across them.

The position head's row above, the rare-token head's row below, for the chosen query. The top
peak moves with the query, one step behind; the bottom one stays on `cat`.
"""

from __future__ import annotations

from ..kit.control import query_control
from ..kit.draw import head_rows
from ..kit.readouts import top_keys, weight_table

CONTROL = query_control("it")
CAPTION_ZH = (
    "上面是位置头，下面是稀有词头，都是{{ screen \"所选查询\" print \"每一帧那个查询\" }}的那一行权重。{{ screen \"拖动查询\" print \"从句首到句尾逐个查询看\" }}：上面的峰值跟着查询走，"
    "总落后一步（句首的 `the` 只能看自己）；下面的峰值始终停在 `cat` 上。"
)
CAPTION_EN = (
    "The position head's row on top, the rare-token head's below, for {{ screen \"the chosen query\" print \"each frame's query\" }}. "
    "{{ screen \"Move the query\" print \"From the first query to the last\" }}: the top peak follows it one step behind (the first token, `the`, can only look at "
    "itself); the bottom one never leaves `cat`."
)


def readout(lang: str, query: int) -> str:
    return top_keys(lang, query, ("position", "rare"))


def data(lang: str):
    return weight_table(lang, ("position", "rare"))


def draw(lang: str, query: int):
    return head_rows(lang, query, [("position", "位置头", "position head"), ("rare", "稀有词头", "rare-token head")])
