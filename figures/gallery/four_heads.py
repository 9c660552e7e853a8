"""four-heads: all four heads of the running example, side by side for one query.

Three heads have a story one can name (position, syntax, rare token) and are coloured; the
fourth, diffuse head commits to nothing and stays grey.
"""

from __future__ import annotations

from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.draw import head_rows
from ..kit.readouts import top_keys, weight_table
from ..kit.style import HEAD_NAMES

CONTROL = query_control("it")
CAPTION_ZH = (
    "同一个查询在四个头里的四行权重。位置头、句法头、稀有词头各有一个说得出名字的规律；"
    "第四个头哪里都不押注，最大权重也不超过 {{ value diffuse.max_weight .2f up }}，所以留成灰色。"
)
CAPTION_EN = (
    "The same query's four rows, one per head. The position, syntax and rare-token heads each "
    "follow a rule one can name; the fourth commits to nothing, its largest weight no more than "
    "{{ value diffuse.max_weight .2f up }}, so it stays grey."
)



def readout(lang: str, query: int) -> str:
    return top_keys(lang, query, ("position", "syntax", "rare"))


def data(lang: str):
    return weight_table(lang, toy.HEADS)


def draw(lang: str, query: int):
    titles = {**HEAD_NAMES, "diffuse": ("弥散头：说不出规律", "diffuse head: no story")}
    return head_rows(lang, query, [(h, *titles[h]) for h in toy.HEADS], height=5.6)
