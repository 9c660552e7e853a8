"""wo-mixing: W_O is where the heads' findings first meet.

The final output slots of the position head's pair, for the query `it`, as stacked contributions
of the four heads. With a block-diagonal W_O (mixing 0) only the position head contributes; as
soon as W_O mixes, all four do.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import toy

from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, is_narrow, new_figure
from ..kit.words import pick

MIXES = tuple(np.round(np.linspace(0, 1, 5), 2))
CONTROL = Control(
    label_zh="W_O 的混合强度", label_en="W_O mixing strength", values=MIXES, start=0.0,
    slug=lambda m: f"mix-{m:.2f}", value_label=lambda m, lang: f"{m:.2f}",
)
CAPTION_ZH = (
    "查询 `it` 的最终输出里、原本属于位置头的两个位置，拆成四个头各自的贡献。"
    "$W^O$ 是分块对角矩阵（完全不混合）时只有位置头自己；一旦 $W^O$ 开始混合，四个头都有份。"
)
CAPTION_EN = (
    "For the query `it`, the two final output slots that began as the position head's pair, split "
    "into the four heads' contributions. With a block-diagonal $W^O$ (no mixing at all) only the position "
    "head is there; once $W^O$ mixes, all four take part."
)


def readout(lang: str, mix: float) -> str:
    c = toy.contributions(mix)
    others = np.abs(c[1:]).sum()
    return pick(lang, f"混合 {mix:.2f} · 其他三个头的贡献（绝对值之和）{others:.2f}",
                f"mixing {mix:.2f} · the other three heads contribute {others:.2f} (sum of magnitudes)")


def data(lang: str):
    """Every stop of the slider, each of the two output slots: the four heads' contributions and
    their total (the final output), as toy.contributions gives them."""
    rows = []
    for mix in MIXES:
        c = toy.contributions(mix)  # [h, 2]
        for s in range(c.shape[1]):
            rows.append([f"{mix:.2f}", pick(lang, f"输出第 {s + 1} 位", f"output slot {s + 1}"),
                         *(decimals(v) for v in c[:, s]), decimals(c[:, s].sum())])
    return ([pick(lang, "W_O 的混合强度", "W_O mixing"), pick(lang, "输出位", "slot"),
             *(pick(lang, *HEAD_NAMES[h]) for h in toy.HEADS), pick(lang, "合计（最终输出）", "total (final output)")], rows)


def draw(lang: str, mix: float):
    c = toy.contributions(mix)  # [h, 2]
    narrow = is_narrow()
    fig, ax = new_figure(3.9 if narrow else 3.0)
    slots = np.arange(c.shape[1])
    pos_base, neg_base = np.zeros(len(slots)), np.zeros(len(slots))
    for i, head in enumerate(toy.HEADS):
        base = np.where(c[i] >= 0, pos_base, neg_base)
        ax.bar(slots, c[i], bottom=base, color=HEAD_COLOURS[head], width=0.5, label=pick(lang, *HEAD_NAMES[head]))
        pos_base += np.maximum(c[i], 0)
        neg_base += np.minimum(c[i], 0)
    totals = c.sum(axis=0)
    ax.plot(slots, totals, "D", color=INK, ms=6, label=pick(lang, "合计（最终输出）", "total (final output)"))
    ax.axhline(0, color=INK, lw=0.8)
    ax.set_xticks(slots, [pick(lang, f"输出第 {s + 1} 位", f"output slot {s + 1}") for s in slots])
    ax.set_xlim(-0.8, len(slots) - 0.2)
    bound = max(abs(toy.contributions(m)).sum(axis=0).max() for m in MIXES) * 1.1
    ax.set_ylim(-bound, bound)
    ax.set_ylabel(pick(lang, "贡献", "contribution"))
    if narrow:  # a key beside the bars would leave them no room on a phone: it goes below, in two columns
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8.5)
    else:
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8.5)
    return fig
