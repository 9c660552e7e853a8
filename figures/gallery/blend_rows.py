"""blend-rows: two heads, two different answers for the same query.

The position head's row and the syntax head's row for the chosen query, as weights over the six
tokens. At `it` they peak on different tokens: `and` (one back) and `ran` (one ahead).
"""

from __future__ import annotations

from ..kit.control import query_control
from ..kit.draw import head_rows
from ..kit.readouts import top_keys, weight_table

CONTROL = query_control("it")
CAPTION_ZH = (
    "{{ screen \"选定一个查询 token\" print \"每一帧取一个查询 token\" }}，上面是位置头那一行权重，下面是句法头那一行。"
    "查询是 `it` 时，一个指向前一格的 `and`，一个指向后一格的 `ran`。"
)
CAPTION_EN = (
    "{{ screen \"Pick a query token\" print \"One query token per frame\" }}: the position head's row of weights on top, the syntax head's below. "
    "For `it`, one points one step back at `and`, the other one step ahead at `ran`."
)


def readout(lang: str, query: int) -> str:
    return top_keys(lang, query, ("position", "syntax"))


def data(lang: str):
    return weight_table(lang, ("position", "syntax"))


def draw(lang: str, query: int):
    return head_rows(lang, query, [("position", "位置头：看前一个 token", "position head: the previous token"),
                                   ("syntax", "句法头：看它在语法上相连的词", "syntax head: the word it is linked to")])
