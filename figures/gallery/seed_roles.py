"""seed-roles: every seed of the masked language model, its heads in the order pruning masks them,
and what that order costs against random orders.

Above, one row per seed (lm_train.SEEDS): the eight heads left to right in Michel et al.'s importance
order, least important first (tiny_lm.seed_heads(seed).pruning.order), each cell filled with the role
it passes (tiny/voita.py's tests, roles.ROLES) and marked when it scores coreference or a repeated
name as a syntactic head would (kept apart: not dependencies). Below, one panel per seed: the held-out
loss as heads are masked in that order, against the band of the random orders (min to max, and their
median).
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from mha_ref.tiny import importance as imp
from mha_ref.tiny import lm_findings, lm_heads

from ..keep import tiny_lm
from ..kit.style import INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

PREPARE = tiny_lm.prepare  # every seed trained and measured before the frame is drawn (figures.engine.render._prepare)
PREPARE_PROGRESS = ("seeds of page 4's model trained and measured", tiny_lm.progress)  # said while it runs
CONTROL = None
ROLE_COLOURS = {"positional": "#56B4E9", "syntactic": "#E69F00", "rare": "#009E73"}
ROLE_NAMES = {"positional": ("位置", "positional"), "syntactic": ("句法", "syntactic"), "rare": ("稀有词", "rare-word")}
APART_MARKS = {"repeat": ("o", "#0072B2"), "coref": ("D", "#CC79A7")}
APART_NAMES = {"repeat": ("抄重复的名字", "copies a repeated name"), "coref": ("指代", "coreference")}
BAND = "#d9d9d9"
CAPTION_ZH = (
    "格子图里每行是一个种子，{{ value lm.heads }} 个头按 Michel 等人的重要性排成一行，从第一格起依次是最先到最后被掩码的头。"
    "格子里写的是头的名字，L 后面是层、H 后面是层里的第几个头，都从零数起；底色是它通过的角色，没有底色表示一个也没通过；"
    "圆点和菱形表示它在重复的名字或指代上的得分达到了句法头的标准，这两种不是依存关系，另外报告。"
    "每个种子的曲线图画的是按这个顺序每多掩码一个头，留出句子上的损失；灰带是 {{ value lm.random_orders }} 种随机顺序从最低到最高，虚线是它们的中位数。"
)
CAPTION_EN = (
    "In the grid, one row per seed: its {{ value lm.heads }} heads in Michel et al.'s importance order, "
    "from the first masked to the last. A cell names its head by layer (L) and head (H), both counted "
    "from zero; its fill is the role it passes, no fill for none. A dot or a diamond marks a head that "
    "scores a repeated name or coreference as a syntactic head would: neither is a dependency, so they "
    "are kept apart. Each seed's plot gives the held-out loss as the heads are masked in that order; the "
    "grey band runs from the lowest to the highest of {{ value lm.random_orders }} random orders, the "
    "dashed line is their median."
)


def seed_name(seed: int, lang: str) -> str:
    return pick(lang, f"种子 {seed}", f"seed {seed}")


def apart_relations(v: lm_heads.HeadVerdict) -> tuple[str, ...]:
    """The non-dependency relations (coref, repeat) this head scores as a syntactic head would."""
    from mha_ref.tiny import voita
    return tuple(r for r in APART_MARKS
                 if any(voita.syntactic_on(a) for k, a in v.apart.items() if k.split(":", 1)[0] == r))


DIRECTION_NAMES = {"dep->head": ("依存词→中心词", "dependent→head"), "head->dep": ("中心词→依存词", "head→dependent")}


def verdict_margins(v: lm_heads.HeadVerdict, lang: str) -> str:
    """Each syntactic pass of the head: relation, direction, the arcs it has to spare (hits it could
    lose and still pass), marked when within lm_findings.NEAR_SE standard errors of the bar."""
    cells = []
    for key in v.syntactic:
        relation, direction = key.split(":", 1)
        a = v.measures.relation_hits[key]
        near = pick(lang, "，接近门槛", ", near the bar") if lm_findings.near_bar(a) else ""
        cells.append(pick(lang, f"{relation}（{DIRECTION_NAMES[direction][0]}）富余 {lm_findings.spare_arcs(a)} 条弧{near}",
                          f"{relation} ({DIRECTION_NAMES[direction][1]}) {lm_findings.spare_arcs(a)} arcs to spare{near}"))
    return pick(lang, "；", "; ").join(cells) or "-"


def data(lang: str):
    """Per seed and pruning step: the head masked, its roles, each syntactic pass with its arcs to
    spare, the arcs kept apart, the loss after it and the random orders' median there."""
    head = [pick(lang, "种子", "seed"), pick(lang, "第几个被掩码", "masked at step"), pick(lang, "头", "head"),
            pick(lang, "角色", "roles"), pick(lang, "句法检验的富余", "syntactic passes, margin"),
            pick(lang, "另外报告", "kept apart"), pick(lang, "掩码后的损失", "loss after"),
            pick(lang, "随机顺序的中位数", "random orders' median")]
    rows = []
    for s in tiny_lm.all_seeds():
        band = imp.spread(s.pruning.random_curves, "loss")
        for k, h in enumerate(s.pruning.order, 1):
            v = s.heads[h]
            rows.append([str(s.seed), str(k), v.name, ", ".join(pick(lang, *ROLE_NAMES[r]) for r in v.roles) or "-",
                         verdict_margins(v, lang),
                         ", ".join(pick(lang, *APART_NAMES[r]) for r in apart_relations(v)) or "-",
                         f"{s.pruning.curve[k].loss:.3f}", f"{band.median[k]:.3f}"])
    return head, rows


def draw_orders(ax, seeds, lang: str):
    """One row per seed, its heads in pruning order, filled by role, marked for the arcs kept apart."""
    n = len(seeds[0].heads)
    for row, s in enumerate(seeds):
        for col, h in enumerate(s.pruning.order):
            v = s.heads[h]
            fill = ROLE_COLOURS[v.roles[0]] if v.roles else "white"
            ax.add_patch(Rectangle((col + 0.05, row + 0.08), 0.9, 0.84, facecolor=fill, edgecolor=MUTED, lw=0.8))
            ax.text(col + 0.5, row + 0.42, v.name, ha="center", va="center", fontsize=8.5, color=INK)
            for i, r in enumerate(apart_relations(v)):
                marker, colour = APART_MARKS[r]
                ax.plot(col + 0.22 + 0.2 * i, row + 0.8, marker=marker, color=colour, ms=4, ls="none")
    ax.set_xlim(0, n)
    ax.set_ylim(len(seeds), 0)
    ax.set_yticks(np.arange(len(seeds)) + 0.5, [seed_name(s.seed, lang) for s in seeds], fontsize=8.5)
    ax.set_xticks(np.arange(n) + 0.5, [str(k) for k in range(1, n + 1)], fontsize=8.5)
    ax.set_xlabel(pick(lang, "掩码的先后（左边先掩码）", "order masked (left first)"))
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)


def draw_curve(ax, s: lm_heads.SeedHeads, lang: str):
    band = imp.spread(s.pruning.random_curves, "loss")
    x = np.arange(len(s.pruning.curve))
    ax.fill_between(x, band.low, band.high, color=BAND, lw=0, zorder=1)
    ax.plot(x, band.median, "--", color=MUTED, lw=1.2, zorder=2)
    ax.plot(x, [step.loss for step in s.pruning.curve], "-o", color=INK, lw=1.4, ms=2.5, zorder=3)
    ax.set_title(seed_name(s.seed, lang), fontsize=8.5, loc="left")
    ax.set_xticks([0, len(x) // 2, len(x) - 1])
    ax.tick_params(labelsize=8.5)
    ax.grid(True, color="#eeeeee", lw=0.8, zorder=0)


def legend_handles(lang: str):
    roles = [Patch(facecolor=c, edgecolor=MUTED, label=pick(lang, *ROLE_NAMES[r])) for r, c in ROLE_COLOURS.items()]
    apart = [Line2D([], [], marker=m, color=c, ls="none", ms=5, label=pick(lang, *APART_NAMES[r]))
             for r, (m, c) in APART_MARKS.items()]
    curves = [Line2D([], [], color=INK, marker="o", ms=2.5, lw=1.4, label=pick(lang, "按重要性", "importance order")),
              Patch(facecolor=BAND, label=pick(lang, "随机顺序", "random orders")),
              Line2D([], [], color=MUTED, ls="--", lw=1.2, label=pick(lang, "随机顺序的中位数", "random orders' median"))]
    return roles + apart + curves


def draw(lang: str, value=None):
    seeds = tiny_lm.all_seeds()
    narrow = is_narrow()
    curves = [f"c{i}" for i in range(len(seeds))]
    if narrow:
        layout = [["grid", "grid"], curves[0:2], curves[2:4], [curves[4], "key"]]
        fig, first = new_figure(8.2)
        ratios = [1.7, 1, 1, 1]
    else:
        layout = [["grid"] * len(seeds), curves, ["key"] * len(seeds)]
        fig, first = new_figure(5.6)
        ratios = [1.6, 1, 0.35]
    first.remove()
    axes = fig.subplot_mosaic(layout, height_ratios=ratios)
    draw_orders(axes["grid"], seeds, lang)
    top = 1.05 * max(max(imp.spread(s.pruning.random_curves, "loss").high.max(), max(c.loss for c in s.pruning.curve))
                     for s in seeds)
    for i, (name, s) in enumerate(zip(curves, seeds)):
        ax = axes[name]
        draw_curve(ax, s, lang)
        ax.set_ylim(0, top)  # one scale for every seed
        if i % (2 if narrow else len(seeds)) == 0:
            ax.set_ylabel(pick(lang, "留出损失", "held-out loss"), fontsize=8.5)
        else:
            ax.tick_params(labelleft=False)
        ax.set_xlabel(pick(lang, "已掩码的头", "heads masked"), fontsize=8.5)
    key = axes["key"]
    key.axis("off")
    key.legend(handles=legend_handles(lang), loc="center", ncol=1 if narrow else 4, fontsize=8.5, frameon=False)
    return fig
