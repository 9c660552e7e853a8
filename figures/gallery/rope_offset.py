"""rope-offset: page 1's position head with rotary positions, the whole sentence moved along.

The head's one pair of numbers in its plane: each token's key turned by its position, and the query
of `it`, the key direction turned to one position earlier. Moving the sentence to start at another
position turns every arrow by the same angle; the angles between them, and so the scores and the
table of weights beside them, stay where they were.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import rotary, toy

from .attention_maps import weights_grid
from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

QUERY, KEY = toy.token_index("it"), toy.token_index("and")
CONTROL = Control(
    label_zh="句子从哪个位置开始", label_en="position the sentence starts at",
    values=rotary.SHIFTS, start=0, slug=lambda s: f"start{s}", value_label=lambda s, lang: f"{s:,}",
)
CAPTION_ZH = (
    "把第一页的位置头改成旋转位置编码：输入里不再有位置特征，每个 token 旋转之前的键都一样，"
    "查询是把这个键往回转一个位置。圆上是这个头唯一的一对数所在的平面：灰色箭头是六个 token 的键，"
    "各自按位置转过一个角度；蓝色箭头是 `it` 的查询，正好对准 `and` 的键。"
    "{{ screen \"把句子整体挪到别的起始位置\" print \"各帧把句子整体挪到不同的起始位置\" }}，"
    "所有箭头一起转过同一个角度，它们之间的夹角不变，整张权重表也一格不变，"
    "最远挪到第 {{ value today.rope.shift_max }} 个位置也是如此。"
)
CAPTION_EN = (
    "The first page's position head with rotary positions: the input rows carry no position, every token has "
    "the same key before rotation, and the query is that key turned back by one position. The circle "
    "is the plane of the head's one pair of numbers: the grey arrows are the six tokens' keys, each "
    "turned by its position; the blue arrow is the query of `it`, which points exactly at the key of "
    "`and`. {{ screen \"Move the whole sentence to another starting position\" print \"The frames shift "
    "the whole sentence to other starting positions\" }}: every arrow turns by the same angle, the "
    "angles between them stay, and so does the whole table of weights, even with the sentence "
    "starting at position {{ value today.rope.shift_max }}."
)


def readout(lang: str, shift: int) -> str:
    head = rotary.position_head(shift)
    q, k = rotary.angle_degrees(head.q[QUERY]), rotary.angle_degrees(head.k[KEY])
    w = head.weights[QUERY, KEY]
    return pick(lang, f"从位置 {shift:,} 开始 · it 的查询 {q:.1f}° · and 的键 {k:.1f}° · it 给 and 的权重 {w:.3f}",
                f"starting at {shift:,} · query of it {q:.1f}° · key of and {k:.1f}° · weight of it on and {w:.3f}")


def data(lang: str):
    """Every frame: where the sentence starts, the two arrows' directions, the score and the weight."""
    rows = []
    for s in rotary.SHIFTS:
        head = rotary.position_head(s)
        rows.append([f"{s:,}", f"{rotary.angle_degrees(head.q[QUERY]):.1f}", f"{rotary.angle_degrees(head.k[KEY]):.1f}",
                     decimals(head.scores[QUERY, KEY], 3), decimals(head.weights[QUERY, KEY], 3),
                     decimals(head.weights[0, toy.N - 1], 3)])
    return ([pick(lang, "起始位置", "starting position"), pick(lang, "it 的查询方向（度）", "query of it (degrees)"),
             pick(lang, "and 的键方向（度）", "key of and (degrees)"), pick(lang, "分数 it·and", "score it·and"),
             pick(lang, "权重 it → and", "weight it → and"), pick(lang, "权重 the → ran", "weight the → ran")],
            rows)


def _plane(ax, shift: int, lang: str) -> None:
    head = rotary.position_head(shift)
    radius = np.linalg.norm(head.k[0])
    t = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(t), np.sin(t), color="#d0d0d0", lw=0.8)
    for j, token in enumerate(toy.TOKENS):
        x, y = head.k[j] / radius
        ax.annotate("", (x, y), (0, 0), arrowprops={"arrowstyle": "-|>", "color": MUTED, "lw": 1.0})
        ax.text(1.22 * x, 1.22 * y, token, ha="center", va="center", fontsize=8.5, color=INK)
    x, y = 0.72 * head.q[QUERY] / radius
    ax.annotate("", (x, y), (0, 0), arrowprops={"arrowstyle": "-|>", "color": HEAD_COLOURS["position"], "lw": 2.2})
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(pick(lang, f"从位置 {shift:,} 开始：键与 it 的查询", f"starting at {shift:,}: keys, query of it"),
                 loc="left", fontsize=9.5, color=INK)


def _table(ax, shift: int, lang: str) -> None:
    weights_grid(ax, rotary.position_head(shift).weights)
    ax.set_title(pick(lang, "权重表（行：查询，列：键）", "weights (rows: queries, columns: keys)"),
                 loc="left", fontsize=9.5, color=HEAD_COLOURS["position"])


def draw(lang: str, shift: int):
    if is_narrow():
        fig, (plane, table) = new_figure(7.0, nrows=2)
    else:
        fig, (plane, table) = new_figure(3.4, ncols=2)
    _plane(plane, shift, lang)
    _table(table, shift, lang)
    return fig
