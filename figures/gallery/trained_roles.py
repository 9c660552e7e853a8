"""trained-roles: each trained head measured the way Voita et al. measure heads, against the bars.

For each head of the trained model, four shares of the held-out queries: top key at the head's most
frequent offset, top key on the sentence's rarest word, and, for the two dependency relations, top
key on the related word. A short line over each bar marks the share that bar must reach (roles.ROLE_BARS;
for a relation, also SYNTAX_MARGIN above the best fixed offset). The head's label names the roles
it meets, or none.
"""

from __future__ import annotations

import numpy as np

from mha_ref import roles
from mha_ref.tiny import train, trained

from ..kit.style import INK, MUTED, is_narrow, new_figure
from ..kit.words import offset_text, pick

PREPARE = train.prepare  # training runs beside the pool (figures.engine.render._prepare)
CONTROL = None
MEASURES = ("offset", "rare", "antecedent", "nsubj")
COLOURS = {"offset": "#0072B2", "rare": "#009E73", "antecedent": "#D55E00", "nsubj": "#CC79A7"}
NAMES = {
    "offset": ("最常见偏移处", "at its usual offset"),
    "rare": ("落在最稀有的词上", "on the rarest word"),
    "antecedent": ("it → 先行词", "it → antecedent"),
    "nsubj": ("动词 → 主语", "verb → subject"),
}
ROLE_NAMES = {"positional": ("位置", "positional"), "syntactic": ("句法", "syntactic"), "rare": ("稀有词", "rare-word")}
CAPTION_ZH = (
    "每个头在 {{ value trained.queries }} 个留出查询上的四个比例：权重最大的键落在它最常见的相对偏移处、落在句中最稀有的词上、"
    "`it` 落在它指代的名词上、动词落在它的主语上。柱上的短横线是角色的门槛。"
    "头 {{ value trained.syntactic_head }} 过了句法的门槛，头 {{ value trained.rare_head }} 过了稀有词的门槛；"
    "两个看邻词的头离位置角色的 {{ value voita.positional_pct }}% 还差一点。"
)
CAPTION_EN = (
    "Four shares for each head, over {{ value trained.queries }} held-out queries: the top key at the "
    "head's most frequent relative offset, on the sentence's rarest word, from `it` on the noun it "
    "stands for, and from a verb on its subject. The short line over a bar is the role's bar. Head "
    "{{ value trained.syntactic_head }} clears the syntactic bar and head {{ value trained.rare_head }} "
    "the rare-word bar; the two heads that look at a neighbour fall a little short of the positional "
    "role's {{ value voita.positional_pct }}%."
)


def shares(head: roles.HeadMeasures) -> dict[str, float]:
    return {"offset": head.offset_share, "rare": head.rare_share, **head.relation_share}


def bars() -> dict[str, float]:
    """The share each measure must reach for its role."""
    syntax = {r: trained.syntactic_bar(r) for r in trained.RELATIONS}
    return {"offset": roles.ROLE_BARS["positional"].share, "rare": roles.ROLE_BARS["rare"].share, **syntax}


def roles_text(head: roles.HeadMeasures, lang: str) -> str:
    """The roles a head meets, in words ("none" when it meets none)."""
    names = [pick(lang, *ROLE_NAMES[r]) for r in head.roles]
    return pick(lang, "、".join(names) or "无", ", ".join(names) or "none")


def head_label(head: roles.HeadMeasures, lang: str) -> str:
    return pick(lang, f"头 {head.head}\n{roles_text(head, lang)}", f"head {head.head}\n{roles_text(head, lang)}")


def data(lang: str):
    head = [pick(lang, "头", "head"), pick(lang, "角色", "roles"), pick(lang, "置信度", "confidence"),
            pick(lang, "最常见偏移", "usual offset"), *(pick(lang, *NAMES[m]) for m in MEASURES)]
    rows = [[str(h.head), roles_text(h, lang), f"{h.confidence:.2f}", offset_text(h.offset, h.offset_tied, lang),
             *(f"{shares(h)[m]:.2f}" for m in MEASURES)] for h in trained.heads()]
    rows.append([pick(lang, "门槛", "bar"), "", "", "", *(f"{bars()[m]:.2f}" for m in MEASURES)])
    return head, rows


def draw(lang: str, value=None):
    heads = trained.heads()
    narrow = is_narrow()
    fig, ax = new_figure(4.0 if narrow else 3.6)
    width = 0.2
    bar = bars()
    for k, m in enumerate(MEASURES):
        x = np.arange(len(heads)) + (k - 1.5) * width
        values = [shares(h)[m] for h in heads]
        ax.bar(x, values, width * 0.92, color=COLOURS[m], label=pick(lang, *NAMES[m]), zorder=2)
        ax.hlines([bar[m]] * len(heads), x - width / 2, x + width / 2, color=INK, lw=1.6, zorder=3)
    ax.set_xticks(np.arange(len(heads)), [head_label(h, lang) for h in heads], fontsize=8.5)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(pick(lang, "查询所占比例", "share of queries"))
    ax.grid(axis="y", color="#e6e6e6", lw=0.8, zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2 if narrow else -0.22), ncol=2, fontsize=8.5, frameon=False)
    ax.set_title(pick(lang, "短横线：该项的角色门槛", "short line: that measure's role bar"), loc="left", fontsize=9, color=MUTED)
    return fig
