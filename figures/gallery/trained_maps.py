"""trained-maps: a trained head's weights on a held-out sentence, beside the hand-built head it resembles.

One frame per head of the model trained in mha_ref/tiny/train.py. First: the head's n x n map on the first
held-out sentence (a row per query, a column per key); then (beside it, or below it in the narrow drawing) the running example's head built for
the same role (trained.partner), on its own six tokens, on the same shade scale.
"""

from __future__ import annotations

from mha_ref import roles
from mha_ref.example import toy
from mha_ref.tiny import train, trained

from .attention_maps import NORM, SHADES
from ..kit.control import Control
from .trained_roles import roles_text
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, is_narrow, new_figure
from ..kit.words import pick

SENTENCE = 0  # the held-out sentence every frame shows


def _role_text(head: roles.HeadMeasures, lang: str) -> str:
    if not head.roles:
        return pick(lang, "未达任何角色的门槛", "meets no role's bar")
    return pick(lang, f"{roles_text(head, lang)}角色", f"{roles_text(head, lang)} role")


def _heads() -> tuple[int, ...]:
    return tuple(h.head for h in trained.heads())


PREPARE = train.prepare  # training runs beside the pool (figures.engine.render._prepare)
CONTROL = Control(
    label_zh="训练出的头", label_en="trained head", values=tuple(range(trained.train.CONFIG.h)), start=0,
    slug=lambda h: f"head{h}", value_label=lambda h, lang: pick(lang, f"头 {h}", f"head {h}"),
)
CAPTION_ZH = (
    "标题写着“训练出的头”的那张，是训练出的模型里一个头在一句留出句子上的完整权重表（每行一个查询，每列一个键，每行加起来等于一）；"
    "标题写着“手工搭的”的那张，是前几页手工搭的那个做同类事情的头。{{ screen \"拖动滑块换一个头\" print \"每一格是一个头\" }}："
    "头 {{ value trained.syntactic_head }} 从每个词都看向第一个分句的主语名词，"
    "头 {{ value trained.rare_head }} 整列落在稀有词上，另外两个头大多看紧挨着的前一个或后一个词。"
)
CAPTION_EN = (
    "The map titled \"trained head\" is one head of the trained model on a held-out sentence: its whole "
    "table of weights (a row per query, a column per key, every row summing to one). The map titled "
    "\"hand-built\" is the head of the earlier pages that does the same kind of thing. {{ screen \"Drag the slider to change heads\" print \"One "
    "frame per head\" }}: head {{ value trained.syntactic_head }} looks from every word at the "
    "subject noun of the first clause, head {{ value trained.rare_head }} fills the rare word's "
    "column, and the other two mostly look at the word just before or just after."
)


def data(lang: str):
    """Per query of the sentence shown, where each trained head puts its largest weight, and how
    much: the table form of each row's strongest cell in the maps (every frame's, one column a head)."""
    words = trained.tokens(SENTENCE)
    w = trained.weights(SENTENCE)  # [h, n, n]
    top = w.argmax(axis=-1)  # [h, n]
    rows = [[f"{q} {words[q]}", *(f"{top[h, q]} {words[top[h, q]]} ({w[h, q, top[h, q]]:.2f})" for h in _heads())]
            for q in range(len(words))]
    return [pick(lang, "查询", "query"), *(pick(lang, f"头 {h}：权重最大的键（权重）", f"head {h}: top key (weight)")
                                          for h in _heads())], rows


def _map(ax, weights, ticks, title: str, colour: str) -> None:
    ax.imshow(weights, cmap=SHADES, norm=NORM, interpolation="nearest")
    n = len(ticks)
    ax.set_xticks(range(n), ticks, rotation=90, fontsize=8.5)
    ax.set_yticks(range(n), ticks, fontsize=8.5)
    ax.tick_params(length=0, labeltop=True, labelbottom=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title, loc="left", fontsize=9.5, color=colour)


def draw(lang: str, value=None):
    head = trained.heads()[CONTROL.start if value is None else value]
    narrow = is_narrow()
    fig, (left, right) = new_figure(8.4 if narrow else 4.4, nrows=2 if narrow else 1, ncols=1 if narrow else 2,
                                    **({} if narrow else {"width_ratios": (1.7, 1)}))
    words = trained.tokens(SENTENCE)
    partner = trained.partner(head)
    _map(left, trained.weights(SENTENCE)[head.head], words,
         pick(lang, f"训练出的头 {head.head}：{_role_text(head, lang)}", f"trained head {head.head}: {_role_text(head, lang)}"),
         INK)
    _map(right, toy.trace().weights[toy.head_index(partner)], toy.TOKENS,
         pick(lang, f"手工搭的{HEAD_NAMES[partner][0]}", f"hand-built {HEAD_NAMES[partner][1]}"), HEAD_COLOURS[partner])
    return fig
