"""blend-slider: one head made to serve both rules, for the query `it`.

The head's query mixes the position signal (weight 1 - a) and the syntax signal (weight a); its
row of weights over the six tokens, with the peak read out. Halfway, it is close to no token.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgb

from mha_ref.example import toy

from ..kit.control import Control
from ..kit.draw import mark_query, weight_bars
from ..kit.style import HEAD_COLOURS, INK, new_figure
from ..kit.words import pick

QUERY = toy.token_index("it")
CONTROL = Control(
    label_zh="混合比例（0 = 纯位置，1 = 纯句法）", label_en="blend (0 = position only, 1 = syntax only)",
    values=tuple(range(toy.BLEND_STEPS)), start=toy.BLEND_STEPS // 2,
    slug=lambda i: f"blend-{toy.blend_ratios()[i]:.2f}",
    value_label=lambda i, lang: f"{toy.blend_ratios()[i]:.2f}",
)
CAPTION_ZH = (
    "只有一个头，它的查询按比例混合位置信号和句法信号，这是它对 `it` 的那一行权重。"
    "两端各有一个笃定的答案；到了中间，权重被两个 token 瓜分，哪个都没押中。"
)
CAPTION_EN = (
    "A single head whose query mixes the position signal and the syntax signal; its row of "
    "weights for `it`. Each end has one confident answer; in the middle the weight is split between "
    "two tokens, and the row commits to neither."
)


def readout(lang: str, step: int) -> str:
    row = toy.blend_curve("it")[step]
    top = toy.TOKENS[row.argmax()]
    return pick(lang, f"混合 {toy.blend_ratios()[step]:.2f} · 最大权重 {row.max():.2f}（{top}）",
                f"blend {toy.blend_ratios()[step]:.2f} · peak weight {row.max():.2f} ({top})")


def data(lang: str):
    """Every stop of the slider: the blend ratio and the row of `it` over the six tokens."""
    return ([pick(lang, "混合比例", "blend ratio"), *toy.TOKENS],
            [[f"{a:.2f}", *(f"{w:.2f}" for w in row)] for a, row in zip(toy.blend_ratios(), toy.blend_curve("it"))])


def draw(lang: str, step: int):
    alpha = toy.blend_ratios()[step]
    row = toy.blend_curve("it")[step]
    fig, ax = new_figure(2.8)
    # the bar colour slides from the position head's blue to the syntax head's orange
    colour = (1 - alpha) * np.array(to_rgb(HEAD_COLOURS["position"])) + alpha * np.array(to_rgb(HEAD_COLOURS["syntax"]))
    weight_bars(ax, row, tuple(colour), title=pick(
        lang, f"一个头，混合比例 {alpha:.2f}：它在 it 那一行的权重", f"one head, blend {alpha:.2f}: its row for it"))
    mark_query(ax, QUERY)
    ax.axhline(row.max(), color=INK, lw=0.8, ls=":")
    ax.set_ylabel(pick(lang, "权重", "weight"))
    return fig

