"""trained-pruning: the trained model losing its heads one at a time, the cheapest first.

Each step replaces one more head by its mean output over every held-out token (trained.pruning):
left, the summed loss of the four questions; right, each question's accuracy, against the number
of heads still working. Under each step, the head taken away and the roles it met.
"""

from __future__ import annotations

import numpy as np

from mha_ref.tiny import corpus, train, trained

from ..kit.style import INK, is_narrow, new_figure
from ..kit.words import pick

PREPARE = train.prepare  # training runs beside the pool (figures.engine.render._prepare)
CONTROL = None
QUESTION_NAMES = {"previous": ("前一个词", "previous word"), "next": ("后一个词", "next word"),
                  "subject": ("主语", "subject"), "rare": ("稀有词", "rare word")}
COLOURS = {"previous": "#0072B2", "next": "#56B4E9", "subject": "#D55E00", "rare": "#009E73"}
MARKERS = {"previous": "o", "next": "D", "subject": "^", "rare": "s"}
CAPTION_ZH = (
    "每一步把剩下的头里去掉后损失最小的那个换成它的平均输出。一张图是四个问题的交叉熵之和，另一张是每个问题答对的比例。"
    "第一个被去掉的是头 {{ value trained.prune.first }}，最后留下的是头 {{ value trained.prune.last }}。"
)
CAPTION_EN = (
    "At each step, of the heads still working, the one whose loss hurts least is replaced by its mean "
    "output. One panel sums the four questions' cross-entropies; the other gives the share of each "
    "question answered right. Head {{ value trained.prune.first }} goes first; head "
    "{{ value trained.prune.last }} is the last one left."
)


def step_label(step: trained.PruneStep, lang: str) -> str:
    if step.removed is None:
        return pick(lang, "全部", "all")
    return pick(lang, f"去掉头 {step.removed}", f"−head {step.removed}")


def data(lang: str):
    head = [pick(lang, "还在工作的头", "heads working"), pick(lang, "这一步去掉", "removed"), pick(lang, "损失", "loss"),
            *(pick(lang, *QUESTION_NAMES[q]) for q in corpus.QUESTIONS)]
    rows = [[str(len(s.kept)), "" if s.removed is None else str(s.removed), f"{s.loss:.3f}",
             *(f"{s.accuracy[q]:.2f}" for q in corpus.QUESTIONS)] for s in trained.pruning()]
    return head, rows


def draw(lang: str, value=None):
    steps = trained.pruning()
    narrow = is_narrow()
    fig, (left, right) = new_figure(6.4 if narrow else 3.4, nrows=2 if narrow else 1, ncols=1 if narrow else 2)
    x = np.arange(len(steps))
    labels = [f"{len(s.kept)}\n{step_label(s, lang)}" for s in steps]
    left.plot(x, [s.loss for s in steps], "-o", color=INK, lw=1.8)
    left.set_ylabel(pick(lang, "损失（四个交叉熵之和）", "loss (four cross-entropies)"))
    left.set_ylim(bottom=0)
    for q in corpus.QUESTIONS:
        right.plot(x, [s.accuracy[q] for s in steps], "-", marker=MARKERS[q], color=COLOURS[q], lw=1.6,
                   label=pick(lang, *QUESTION_NAMES[q]))
    right.set_ylabel(pick(lang, "答对的比例", "accuracy"))
    right.set_ylim(0, 1.05)
    fig.legend(*right.get_legend_handles_labels(), loc="outside lower center", ncol=4 if not narrow else 2, fontsize=8.5, frameon=False)
    for ax in (left, right):
        ax.set_xticks(x, labels, fontsize=8.5)
        ax.set_xlabel(pick(lang, "还在工作的头", "heads still working"))
        ax.grid(True, color="#e6e6e6", lw=0.8, zorder=0)
    return fig
