"""heads-vs-bleu: Vaswani et al. (2017), Table 3 rows (A): quality against the head count.

Computation held constant (d_k = 512 / h); BLEU and perplexity on the EN-DE development set.
"""

from __future__ import annotations

import numpy as np

from mha_ref import models

from ..kit.style import HEAD_COLOURS, INK, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "Vaswani 等（2017）表 3 (A) 行：计算量不变，只改头数 $h$（$d_k = {{ value base.d_model d }} / h$）。"
    "单头比最好的设置低 {{ value bleu.gap .1f }} BLEU，头太多时质量也会回落。数据见[参考文献](references.md#vaswani2017)。"
)
CAPTION_EN = (
    "Vaswani et al. (2017), Table 3 rows (A): the computation held fixed while the head count $h$ "
    "changes ($d_k = {{ value base.d_model d }} / h$). One head is {{ value bleu.gap .1f }} BLEU behind "
    "the best setting, and quality also falls off with too many heads. Source in the "
    "[references](references.md#vaswani2017)."
)


def draw(lang: str, value=None):
    rows = models.HEAD_COUNT_TABLE
    x = np.arange(len(rows))
    if is_narrow():  # side by side, a panel would be too narrow for its five two-line tick labels
        fig, (bleu, ppl) = new_figure(5.4, nrows=2)
    else:
        fig, (bleu, ppl) = new_figure(3.0, ncols=2)
    bleu.plot(x, [r.bleu for r in rows], "o-", color=HEAD_COLOURS["position"], lw=2)
    ppl.plot(x, [r.ppl for r in rows], "o-", color=HEAD_COLOURS["syntax"], lw=2)
    for ax, key, title in ((bleu, "bleu", pick(lang, "BLEU（越高越好）", "BLEU (higher is better)")),
                           (ppl, "ppl", pick(lang, "困惑度（越低越好）", "perplexity (lower is better)"))):
        values = [getattr(r, key) for r in rows]
        for i, v in enumerate(values):
            ax.annotate(f"{v:.2f}" if key == "ppl" else f"{v:.1f}", (i, v), textcoords="offset points",
                        xytext=(0, 7), ha="center", fontsize=8.5, color=INK)
        pad = (max(values) - min(values)) * 0.25
        ax.set_ylim(min(values) - pad, max(values) + pad)
        ax.set_xlim(-0.5, len(rows) - 0.5)
        ax.set_xticks(x, [f"$h$ = {r.h}\n$d_k$ = {r.d_k}" for r in rows], fontsize=8.5)
        ax.set_title(title, loc="left", fontsize=10)
    return fig
