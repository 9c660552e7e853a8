"""trained-position-vs-rare: where each trained head looks, for every query of a held-out sentence.

The trained counterpart of position-vs-rare-lines: across, the query's position; up, the position
of the key the head weights most; one line per head. A frame per held-out sentence (the first
SENTENCES of them), since a trained head's lines are only worth believing if they hold from one
sentence to the next.
"""

from __future__ import annotations

import numpy as np

from mha_ref.tiny import train, trained

from ..kit.control import Control
from ..kit.style import INK, is_narrow, new_figure
from ..kit.words import pick

SENTENCES = 6
COLOURS = ("#D55E00", "#009E73", "#0072B2", "#CC79A7")
MARKERS = (("-", "^", 5), ("--", "s", 7), ("-", "o", 9), (":", "D", 5))

PREPARE = train.prepare  # training runs beside the pool (figures.engine.render._prepare)
CONTROL = Control(
    label_zh="留出句子", label_en="held-out sentence", values=tuple(range(SENTENCES)), start=0,
    slug=lambda i: f"s{i}", value_label=lambda i, lang: pick(lang, f"第 {i + 1} 句", f"sentence {i + 1}"),
)
CAPTION_ZH = (
    "和上面手工搭的那张图一样：横轴是查询的位置，纵轴是每个头权重最大的键的位置，只是这回是训练出的四个头，句子也换成了没见过的留出句子。"
    "{{ screen \"拖动滑块换一句\" print \"每一格是一句\" }}：头 {{ value trained.rare_head }} 是一条水平线，钉在这句的稀有词上；"
    "头 {{ value trained.syntactic_head }} 也是一条水平线，钉在第一个分句的主语名词上；另外两个头沿着对角线走，一个在它下方一格，一个在它上方一格。"
)
CAPTION_EN = (
    "As in the hand-built figure above, across is the query's position and up is the position of the "
    "key each head weights most; this time the heads are the four trained ones and the sentences are "
    "held out, never seen in training. {{ screen \"Drag the slider to change sentences\" print \"One "
    "frame per sentence\" }}: head {{ value trained.rare_head }} is a level line pinned to the "
    "sentence's rare word; head {{ value trained.syntactic_head }} is level too, pinned to the "
    "subject noun of the first clause; the other two run along the diagonal, one a step below it "
    "and one a step above."
)


def data(lang: str):
    rows = []
    for i in range(SENTENCES):
        words = trained.tokens(i)
        top = trained.weights(i).argmax(axis=-1)  # [h, n]
        rows += [[str(i + 1), f"{q} {words[q]}", *(f"{k} {words[k]}" for k in top[:, q])] for q in range(1, len(words))]
    return ([pick(lang, "句子", "sentence"), pick(lang, "查询", "query"),
             *(pick(lang, f"头 {h} 权重最大的键", f"head {h}: top key") for h in range(top.shape[0]))], rows)


def draw(lang: str, value=None):
    i = CONTROL.start if value is None else value
    words = trained.tokens(i)
    top = trained.weights(i).argmax(axis=-1)  # [h, n]
    n = len(words)
    narrow = is_narrow()
    fig, ax = new_figure(5.6 if narrow else 4.6)
    queries = np.arange(1, n)  # the sentence-start symbol asks nothing: it is left out, as in the measures
    for h in range(top.shape[0]):
        line, marker, size = MARKERS[h]
        ax.plot(queries, top[h, 1:], line, color=COLOURS[h], lw=1.8, marker=marker, ms=size,
                mfc="white" if size > 6 else COLOURS[h], mew=1.4, label=pick(lang, f"头 {h}", f"head {h}"), zorder=3)
    ticks = [f"{k} · {w}" for k, w in enumerate(words)]
    ax.set_xticks(range(n), ticks, rotation=90, fontsize=8.5)
    ax.set_yticks(range(n), ticks, fontsize=8.5)
    ax.set_xlim(0.5, n - 0.5)
    ax.set_ylim(-0.5, n - 0.5)
    ax.grid(True, color="#e6e6e6", lw=0.8, zorder=0)
    ax.set_xlabel(pick(lang, "查询（位置与词）", "query (position and word)"))
    ax.set_ylabel(pick(lang, "权重最大的键", "key with the highest weight"), color=INK)
    # below the query axis's label, however long the sentence's words make its tick labels
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=8.5, ncols=2 if narrow else 4,
               frameon=False)
    return fig
