"""two-heads-full-strength: two heads of width d_k = 2, each answering at full strength at once.

The position head's row and the syntax head's row for the chosen query; the dashed line is the
peak the single blended head managed at its midpoint (blend-slider), for comparison.
"""

from __future__ import annotations

from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.draw import head_rows
from ..kit.readouts import weight_table
from ..kit.words import pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "两个宽度只有 $d_k$ = {{ value toy.d_k }} 的头各算各的：位置头一行、句法头一行，"
    "同时拿到接近满分的权重。虚线是只用一个头硬要兼顾两边时，在中点只能达到的最大权重"
    "（{{ value blend.peak_mid .2f }}）。"
)
CAPTION_EN = (
    "Two heads of width $d_k$ = {{ value toy.d_k }}, each on its own: the position head's row and "
    "the syntax head's row reach near-full weight at the same time. The dashed line is the best "
    "the single blended head managed at its midpoint ({{ value blend.peak_mid .2f }})."
)


def readout(lang: str, query: int) -> str:
    w = toy.trace().weights
    pos, syn = w[toy.head_index("position")][query].max(), w[toy.head_index("syntax")][query].max()
    return pick(lang, f"查询 {toy.TOKENS[query]} · 位置头最大权重 {pos:.2f} · 句法头最大权重 {syn:.2f}",
                f"query {toy.TOKENS[query]} · position head peak {pos:.2f} · syntax head peak {syn:.2f}")


def data(lang: str):
    return weight_table(lang, ("position", "syntax"))


def draw(lang: str, query: int):
    blended = toy.blend_curve("it")[toy.BLEND_STEPS // 2].max()
    return head_rows(
        lang, query,
        [("position", f"位置头（$d_k$ = {toy.D_K}）", f"position head ($d_k$ = {toy.D_K})"),
         ("syntax", f"句法头（$d_k$ = {toy.D_K}）", f"syntax head ($d_k$ = {toy.D_K})")],
        reference=(blended, pick(lang, f"一个头硬混合时的中点：{blended:.2f}",
                                 f"one blended head at its midpoint: {blended:.2f}")))
