"""trained-maps: the masked language model's attention on one held-out sentence, seed by seed.

For the chosen seed, four of its heads on the same held-out sentence (lm_train.held_out()), each as a
map (a row per query, a column per key, <eos> left out): its best previous-word head and its best
next-word head (lm_heads.best_at), the head that passes a dependency relation of this sentence with
the most arcs to spare (or, in a seed with none, the one that comes nearest), and the head that scores
the repeat arcs best. The cells of that relation's or the repeat's arcs, read from the query end, are
outlined: where the head passes, its darkest cell of those rows sits in the outline.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.patches import Rectangle

from mha_ref.tiny import language, lm, lm_findings, lm_heads, lm_train, voita

from ..keep import tiny_lm
from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import INK, is_narrow, new_figure
from ..kit.words import pick

PREPARE = tiny_lm.prepare  # every seed trained and measured before the frame is drawn
PREPARE_PROGRESS = ("seeds of page 4's model trained and measured", tiny_lm.progress)  # said while it runs
MOST_WORDS = 11  # the sentence drawn has at most this many words (legible on a phone) and a repeated name
CONTROL = Control(label_zh="种子", label_en="seed", values=tuple(lm_train.SEEDS), start=lm_train.SEEDS[0],
                  slug=lambda s: f"seed{s}", value_label=lambda s, lang: pick(lang, f"种子 {s}", f"seed {s}"))
SHADES = ListedColormap(plt.get_cmap("Greys")(np.linspace(0.04, 0.95, 256)))
NORM = Normalize(0.0, 1.0)
OUTLINE = {"relation": "#E69F00", "repeat": "#0072B2"}  # seed-roles' syntactic orange; its repeat mark's blue
DIRECTION = {"dep->head": ("依存词→中心词", "dependent→head"), "head->dep": ("中心词→依存词", "head→dependent")}
CAPTION_ZH = (
    "{{ screen \"所选种子\" print \"每一帧一个种子\" }}的四个头，读同一句留出句子：每行是一个查询，每列是一个键（句末符号不算），"
    "格子与页面底色反差越大，权重越大。前两张是这个种子里最常看前一个词和后一个词的头，它们权重最大的格子紧挨着对角线，"
    "一张在下一张在上，只有第一行和最后一行没有邻居可看。第三张是在这句话里出现的依存关系上通过句法检验、富余的弧最多的头"
    "（没有哪个头通过的种子，画最接近的那个），框出的格子是这种关系的弧，从查询那一端读。"
    "第四张是在重复的名字上得分最高的头，框出的是重复的名字和它第一次出现的位置。"
)
CAPTION_EN = (
    "Four heads of {{ screen \"the chosen seed\" print \"each frame's seed\" }} reading the same held-out "
    "sentence: a row per query, a column per key (the end-of-sentence symbol left out), standing out more "
    "from the page for more weight. The first two are the seed's heads that most often look at the "
    "previous and at the next word: their heaviest cells run beside the diagonal, one just under it and one "
    "just over it, and only the first and the last row have no such neighbour. The third is the head that "
    "passes the syntactic test on a relation of this sentence with the most arcs to spare (in a seed "
    "where none passes, the nearest), with that relation's arcs outlined, read from the query end. The "
    "fourth is the head that scores the repeated name best, with the repeat and its first mention outlined."
)


_chosen: list[language.Sentence] = []


def sentence() -> language.Sentence:
    """Of the held-out sentences of at most MOST_WORDS words with a repeated name, the one on which the
    drawn heads of all seeds put their top weight on the other end of the most outlined arcs (the first
    on a tie): a sentence that shows what the heads do where they do it, chosen by that rule alone."""
    if not _chosen:
        candidates = [s for s in lm_train.held_out() if len(s.tokens) - 1 <= MOST_WORDS
                      and any(a.relation == "repeat" for a in s.arcs)]
        _chosen.append(max(candidates, key=lambda s: (hits_on(s), -id_of(s))))
    return _chosen[0]


def id_of(s: language.Sentence) -> int:
    return next(i for i, h in enumerate(lm_train.held_out()) if h is s)


def hits_on(s: language.Sentence) -> int:
    """Over every seed's relation and repeat maps, the outlined arcs whose query puts its top key on the arc's other end."""
    total = 0
    for seed in lm_train.SEEDS:
        heads = tiny_lm.seed_heads(seed)
        maps = lm.attention_maps(tiny_lm.trained(seed).model, s)
        for v, k, _ in (relation_head(heads, s), repeat_head(heads)):
            m = maps[v.measures.layer, v.measures.head]
            total += sum(int(np.argmax(np.where(s.tokens != language.EOS, m[q], -1))) == key
                         for q, key in arcs_of(*k.split(":", 1), s))
    return total


def words() -> list[str]:
    return [w for w, t in zip(sentence().words, sentence().tokens) if t != language.EOS]


def arcs_of(relation: str, direction: str, s: language.Sentence | None = None) -> list[tuple[int, int]]:
    """(query, key) of the sentence's arcs of this relation, read from the query end in this direction."""
    s = sentence() if s is None else s
    return [(a.dependent, a.head) if direction == voita.DIRECTIONS[0] else (a.head, a.dependent)
            for a in s.arcs if a.relation == relation and a.head >= 0 and a.head != a.dependent]


def relation_head(s: lm_heads.SeedHeads, sent: language.Sentence | None = None) -> tuple[lm_heads.HeadVerdict, str, bool]:
    """(head, relation:direction, passes): of the dependency relations in the sentence, the pass with
    the most arcs to spare; in a seed with no such pass, the head and key with the largest margin."""
    present = {a.relation for a in (sentence() if sent is None else sent).arcs} & set(language.DEPENDENCIES)
    scored = [(v, k, a) for v in s.heads for k, a in v.measures.relation_hits.items()
              if isinstance(a, tuple) and k.split(":", 1)[0] in present and len(a) == 4]
    passing = [(lm_findings.spare_arcs(a), -v.index, v, k) for v, k, a in scored if k in v.syntactic]
    if passing:
        _, _, v, k = max(passing, key=lambda t: t[:2])
        return v, k, True
    v, k, _ = max(scored, key=lambda t: (lm_heads.margin_pts(t[2]), -t[0].index))
    return v, k, False


def repeat_head(s: lm_heads.SeedHeads) -> tuple[lm_heads.HeadVerdict, str, bool]:
    """(head, repeat:direction, passes): the head and direction with the largest margin on the repeat arcs."""
    v, k = max(((v, k) for v in s.heads for k in (lm_findings.REPEAT_BACK, lm_findings.REPEAT_ON) if k in v.apart),
               key=lambda t: (lm_heads.margin_pts(t[0].apart[t[1]]), -t[0].index))
    return v, k, voita.syntactic_on(v.apart[k])


def panels(seed: int, lang: str):
    """[(kind, title, head, [(query, key)] outlined)] the four maps of the seed, in drawing order."""
    s = tiny_lm.seed_heads(seed)
    out = []
    for kind, offset, name in (("previous", -1, ("前一个词", "previous word")), ("next", 1, ("后一个词", "next word"))):
        v = lm_heads.best_at(s, offset)
        share = v.measures.offset_shares.get(offset, 0.0)
        out.append((kind, pick(lang, f"{v.name} 看{name[0]}（{share:.0%} 的查询）", f"{v.name} {name[1]} ({share:.0%} of queries)"),
                    v, []))
    for kind, (v, k, ok) in (("relation", relation_head(s)), ("repeat", repeat_head(s))):
        relation, direction = k.split(":", 1)
        verdict = pick(lang, "通过" if ok else "未通过", "passes" if ok else "does not pass")
        name = relation if kind == "relation" else pick(lang, "重复", "repeat")
        out.append((kind, pick(lang, f"{v.name} {name}（{DIRECTION[direction][0]}），{verdict}",
                               f"{v.name} {name} ({DIRECTION[direction][1]}), {verdict}"), v, arcs_of(relation, direction)))
    return out


def weights(seed: int, v: lm_heads.HeadVerdict) -> np.ndarray:
    """[n, n] the head's weights on the sentence, <eos> row and column left out."""
    keep = sentence().tokens != language.EOS
    m = lm.attention_maps(tiny_lm.trained(seed).model, sentence())[v.measures.layer, v.measures.head]
    return np.asarray(m, dtype=float)[np.ix_(keep, keep)]


def data(lang: str):
    """For every seed and map: each query's top key and its weight."""
    w = words()
    rows = []
    for seed in lm_train.SEEDS:
        for kind, title, v, _ in panels(seed, lang):
            m = weights(seed, v)
            rows += [[str(seed), title, w[q], w[int(m[q].argmax())], decimals(m[q].max())] for q in range(len(w))]
    return [pick(lang, "种子", "seed"), pick(lang, "图", "map"), pick(lang, "查询", "query"),
            pick(lang, "权重最大的键", "top key"), pick(lang, "权重", "weight")], rows


def _map(ax, kind: str, title: str, m: np.ndarray, outlined, lang: str) -> None:
    image = ax.imshow(m, cmap=SHADES, norm=NORM, interpolation="nearest")
    image.set_label(kind)
    for q, k in outlined:
        ax.add_patch(Rectangle((k - 0.5, q - 0.5), 1, 1, fill=False, edgecolor=OUTLINE[kind], lw=2.0, label="outline"))
    w = words()
    ax.set_xticks(range(len(w)), w, fontsize=8.5, rotation=90)
    ax.set_yticks(range(len(w)), w, fontsize=8.5)
    ax.tick_params(length=0, labeltop=True, labelbottom=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title, loc="left", fontsize=8.5, color=INK)


def draw(lang: str, value=None):
    seed = CONTROL.start if value is None else value
    narrow = is_narrow()
    rows, cols = (4, 1) if narrow else (2, 2)
    fig, axes = new_figure(13.0 if narrow else 6.6, nrows=rows, ncols=cols)
    for ax, (kind, title, v, outlined) in zip(axes.flat, panels(seed, lang)):
        _map(ax, kind, title, weights(seed, v), outlined, lang)
    return fig
