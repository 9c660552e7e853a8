"""concat-slots: the four heads' outputs placed side by side fill the width again.

The d_model = 8 slots of the concatenation for the query `it`, filled two at a time as heads 1-4
are placed. Slots already filled never change; the last head brings the width back to d_model.
"""

from __future__ import annotations

from matplotlib.patches import Rectangle

from mha_ref.example import toy

from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import INK, MUTED, SLICE_COLOURS, new_figure
from ..kit.words import pick, plural

QUERY = "it"
CONTROL = Control(
    label_zh="已放入的头数", label_en="heads placed", values=tuple(range(1, toy.H + 1)), start=toy.H,
    slug=lambda k: f"heads{k}", value_label=lambda k, lang: f"{k} / {toy.H}",
)
CAPTION_ZH = (
    "查询 `it` 的拼接向量：每放入一个头，就在末尾接上它的 {{ value toy.d_k }} 个输出数。"
    "已经放好的格子从不改变；四个头都放进去时，宽度正好回到 $d_\\text{model}$ = {{ value toy.d_model }}。"
)
CAPTION_EN = (
    "The concatenation for the query `it`: each head placed appends its {{ value toy.d_k }} output "
    "numbers at the end. Slots already filled never change; with all four heads in, the width is "
    "back to $d_\\text{model}$ = {{ value toy.d_model }}."
)


def readout(lang: str, placed: int) -> str:
    return pick(lang, f"已放入 {placed} 个头 · 填满 {placed * toy.D_K} / {toy.D_MODEL} 格",
                f"{plural(placed, 'head')} placed · {placed * toy.D_K} of {plural(toy.D_MODEL, 'slot')} filled")


def data(lang: str):
    """Every stop of the slider: the concatenation for `it` with that many heads placed, slot by slot."""
    concat = toy.trace().concat[toy.token_index(QUERY)]
    empty = pick(lang, "空", "empty")
    return ([pick(lang, "已放入的头数", "heads placed"),
             *(pick(lang, f"第 {s + 1} 格（头 {s // toy.D_K + 1}）", f"slot {s + 1} (head {s // toy.D_K + 1})")
               for s in range(toy.D_MODEL))],
            [[str(k), *(decimals(v) if s // toy.D_K < k else empty for s, v in enumerate(concat))]
             for k in CONTROL.values])


def draw(lang: str, placed: int):
    concat = toy.trace().concat[toy.token_index(QUERY)]
    fig, ax = new_figure(2.0)
    for slot in range(toy.D_MODEL):
        head = slot // toy.D_K
        filled = head < placed
        ax.add_patch(Rectangle((slot, 0), 1, 1, facecolor=SLICE_COLOURS[head] if filled else "white",
                               alpha=0.3 if filled else 1, edgecolor=MUTED, lw=1))
        if filled:
            ax.text(slot + 0.5, 0.5, f"{concat[slot]:.2f}", ha="center", va="center", fontsize=9, color=INK)
    for head in range(toy.H):
        ax.text(head * toy.D_K + toy.D_K / 2, 1.12, pick(lang, f"头 {head + 1}", f"head {head + 1}"),
                ha="center", va="bottom", fontsize=9,
                color=SLICE_COLOURS[head] if head < placed else MUTED)
    ax.set_xlim(-0.1, toy.D_MODEL + 0.1)
    ax.set_ylim(-0.2, 1.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig
