"""head-planes: each head of the running example in its own plane (d_k = 2).

A head of width two has queries and keys that are arrows in a plane, so its whole decision can be
seen: the key that wins is the one reaching farthest along the query's arrow (the largest dot
product), and the dashed line through its tip, square to the query, is where every point scores the
same; no key lies beyond it. The light patch is the keys' convex hull: only a key at one of its
corners can win for any query at all (what-it-costs). The diffuse head's arrows are so short that
they are drawn a second time, magnified, in a box across the top of their panel.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Polygon, Rectangle
from matplotlib.ticker import MaxNLocator

from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTROL = query_control("it")
CAPTION_ZH = (
    "每个头的 $d_k = {{ value toy.d_k d }}$，它的查询和键就是同一个平面里的箭头。粗箭头是"
    "{{ screen \"所选查询\" print \"每一帧那个查询\" }}，彩色细箭头是 {{ value toy.n }} 个键，加粗的那个得分最高。"
    "过它箭头尖、与查询垂直的虚线上，各点和查询的点积都一样；没有哪个键越过这条线，"
    "所以“哪个键胜出”就是“哪个键沿查询方向伸得最远”，和 softmax 之后权重最大的键是同一个。"
    "浅色区域是这些键的凸包，只有落在它角上的键才可能对某个查询胜出。"
    "弥散头的箭头太短，在同样的比例下几乎缩成一点，所以在上方的框里另外放大画了一遍。"
)
CAPTION_EN = (
    "Each head has $d_k = {{ value toy.d_k d }}$, so its queries and keys are arrows in one plane. "
    "The thick arrow is {{ screen \"the chosen query\" print \"each frame's query\" }}, the thin "
    "coloured ones are the {{ value toy.n }} keys, and the thick one among them scores highest. Along "
    "the dashed line through its tip, square to the query, every point has the same dot product with "
    "the query; no key lies beyond it. So the key that wins is the one reaching farthest along the "
    "query's direction, the same key that gets the largest weight after the softmax. The light patch "
    "is the keys' convex hull: only a key at one of its corners can be the winner, whatever the query. "
    "The diffuse head's arrows are so short that at the same scale they shrink to a small tuft, so "
    "they are drawn again, magnified, in a box above."
)

SHARED = ("position", "syntax", "rare")  # drawn at one scale; the diffuse head also magnified
LABEL_PT = 8.5


def readout(lang: str, query: int) -> str:
    parts = []
    for head in toy.HEADS:
        dots = toy.head_plane(head).dots[query]
        win = int(dots.argmax())
        parts.append((HEAD_NAMES[head], toy.TOKENS[win], dots[win]))
    return pick(lang, f"查询 {toy.TOKENS[query]}：" + "，".join(f"{n[0]} → {t}（q·k = {d:.2f}）" for n, t, d in parts),
                f"query {toy.TOKENS[query]}: " + ", ".join(f"{n[1]} → {t} (q·k = {d:.2f})" for n, t, d in parts))


def data(lang: str):
    """Every arrow any frame draws: each head's query and key of each token, and whether the key is
    a corner of the hull (can win for some query)."""
    rows = []
    for head in toy.HEADS:
        plane = toy.head_plane(head)
        for j, token in enumerate(toy.TOKENS):
            corner = pick(lang, "是", "yes") if j in plane.corners else pick(lang, "否", "no")
            rows.append([pick(lang, *HEAD_NAMES[head]), token, *(decimals(v) for v in (*plane.q[j], *plane.k[j])), corner])
    return ([pick(lang, "头", "head"), "token", "q₁", "q₂", "k₁", "k₂", pick(lang, "能否胜出（凸包的角）", "can win (hull corner)")],
            rows)


def _reach(heads) -> float:
    """The longest query or key among `heads`: the half-width a panel must show."""
    return max(max(np.linalg.norm(p.q, axis=1).max(), np.linalg.norm(p.k, axis=1).max())
               for p in map(toy.head_plane, heads))


def _arrow(ax, tip, colour: str, lw: float, label: str, alpha: float = 1.0, zorder: int = 3):
    """An arrow from the origin to `tip`; its label names it for the tests (never drawn)."""
    ann = ax.annotate("", xy=tuple(tip), xytext=(0.0, 0.0), zorder=zorder,
                      arrowprops={"arrowstyle": "-|>", "color": colour, "lw": lw, "alpha": alpha,
                                  "shrinkA": 0, "shrinkB": 0, "mutation_scale": 6 + 3 * lw})
    ann.set_label(label)
    return ann


def _groups(points, close: float) -> list[list[int]]:
    """Indices of points whose tips lie within `close` of each other (single linkage), in token order."""
    groups: list[list[int]] = []
    for j in range(len(points)):
        near = [g for g in groups if any(np.linalg.norm(points[j] - points[m]) < close for m in g)]
        merged = sorted({j, *(m for g in near for m in g)})
        groups = [g for g in groups if g not in near] + [merged]
    return sorted(groups)


def _labels(ax, items, lim: float, panel_in: float, avoid) -> None:
    """Write each (text, point, colour) beside its point, trying directions outward first, where it
    covers no label already written and no point of `avoid`."""
    per_in = 2 * lim / panel_in  # data units per inch
    height = LABEL_PT * 1.25 / 72 * per_in
    taken: list[tuple[float, float, float, float]] = []
    for text, point, colour in items:
        width = (0.62 * len(text) + 0.4) * LABEL_PT / 72 * per_in
        out = point / np.linalg.norm(point) if np.linalg.norm(point) > 1e-9 else np.array([0.0, 1.0])
        base = np.arctan2(out[1], out[0])
        best = None
        tries = [(turn, far) for far in (1.0, 2.0, 3.0) for turn in (0, 40, -40, 80, -80, 120, -120, 180)]
        for turn, far in tries:
            a = base + np.deg2rad(turn)
            d = np.array([np.cos(a), np.sin(a)])
            # the gap to the point, plus half the box along that direction
            centre = point + d * (0.35 * far * height + 0.5 * abs(d[0]) * width + 0.5 * abs(d[1]) * height)
            box = (centre[0] - width / 2, centre[0] + width / 2, centre[1] - height / 2, centre[1] + height / 2)
            inside = -lim < box[0] and box[1] < lim and -lim < box[2] and box[3] < lim
            free = all(box[1] < t[0] or t[1] < box[0] or box[3] < t[2] or t[3] < box[2] for t in taken)
            clear = all(not (box[0] < p[0] < box[1] and box[2] < p[1] < box[3]) for p in avoid)
            if inside and free and clear:
                best = centre, box
                break
            best = best or (centre, box)
        centre, box = best
        taken.append(box)
        ax.text(*centre, text, ha="center", va="center", fontsize=LABEL_PT, color=colour, zorder=5)


def _plane(ax, head: str, query: int, panel_in: float, labels: str = "all") -> None:
    """One head's plane: hull, keys, the query, the level line through the winner.

    labels: "all" names every key, "winner" only the winning key, "none" nothing (nor hull, nor line).
    """
    plane = toy.head_plane(head)
    colour = HEAD_COLOURS[head]
    q = plane.q[query]
    win = int(plane.dots[query].argmax())
    lim = max(abs(np.array(ax.get_xlim())).max(), abs(np.array(ax.get_ylim())).max())
    if labels != "none":
        hull = Polygon(plane.k[plane.corners], closed=True, facecolor=colour, alpha=0.12, edgecolor=colour,
                       lw=0.6, zorder=1)
        hull.set_label("hull")
        ax.add_patch(hull)
        square = np.array([-q[1], q[0]]) / np.linalg.norm(q)  # along the level line
        ends = plane.k[win] + np.outer([-3 * lim, 3 * lim], square)
        (level,) = ax.plot(ends[:, 0], ends[:, 1], ls="--", lw=1, color=colour, zorder=2)
        level.set_label("level")
    for j in range(toy.N):
        strong = j == win
        _arrow(ax, plane.k[j], colour, 2.0 if strong else 0.9, f"key {toy.TOKENS[j]}", 1.0 if strong else 0.6,
               zorder=4 if strong else 3)
    _arrow(ax, q, INK, 2.2, "query", zorder=6)
    ax.plot(0, 0, "o", ms=2.5, color=INK, zorder=6)
    ax.axhline(0, color="#e6e6e6", lw=0.8, zorder=0)
    ax.axvline(0, color="#e6e6e6", lw=0.8, zorder=0)
    if labels == "none":
        return
    items = [("q", q, INK)]
    if labels == "winner":
        items.append((toy.TOKENS[win], plane.k[win], INK))
    else:  # keys whose tips (nearly) meet share one label
        groups = _groups(plane.k, LABEL_PT * 1.3 / 72 * 2 * lim / panel_in)
        for group in sorted(groups, key=lambda g: (win not in g, -np.linalg.norm(plane.k[g[0]]))):
            items.append((", ".join(toy.TOKENS[j] for j in group), plane.k[group].mean(axis=0),
                          INK if win in group else MUTED))
    along = np.linspace(0.15, 1.0, 8)[:, None]  # points on every arrow, for the labels to keep off
    avoid = [np.zeros(2), *(along * tip for tip in (*plane.k, q))]
    _labels(ax, items, lim, panel_in, avoid=np.vstack(avoid))


def _title(lang: str, head: str, query: int) -> str:
    win = toy.TOKENS[int(toy.head_plane(head).dots[query].argmax())]
    zh, en = HEAD_NAMES[head]
    return pick(lang, f"{zh}：{toy.TOKENS[query]} → {win}", f"{en}: {toy.TOKENS[query]} → {win}")


def _square(ax, lim: float) -> None:
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(MaxNLocator(4, symmetric=True))
    ax.yaxis.set_major_locator(MaxNLocator(4, symmetric=True))


def _magnified(ax, lang: str, query: int, lim: float, panel_in: float) -> None:
    """The diffuse head at the shared scale (a dot), and again magnified in a box across the top."""
    _plane(ax, "diffuse", query, panel_in, labels="none")
    box = (0.03, 0.56, 0.94, 0.42)  # axes fraction: a wide box, as the head's arrows lie mostly sideways
    inset = ax.inset_axes(box)
    inset.set_label("diffuse magnified")
    plane = toy.head_plane("diffuse")
    reach = 1.25 * np.abs(np.vstack([plane.q, plane.k])).max(axis=0)  # [2] half-widths the arrows need
    wide = box[2] / box[3]  # the box is square in neither direction: x spans `wide` times y
    half_y = max(reach[1], reach[0] / wide)
    half = np.array([wide * half_y, half_y])  # a unit as long across as up: equal aspect
    inset.set_xlim(-half[0], half[0])
    inset.set_ylim(-half[1], half[1])
    inset.set_aspect("equal")
    _plane(inset, "diffuse", query, panel_in * box[2], labels="winner")
    inset.set_xticks([])
    inset.set_yticks([])
    for spine in inset.spines.values():
        spine.set_visible(True)
        spine.set_color(MUTED)
    zoom = lim / half[1] * box[3]  # how many times larger the box draws a unit than the panel does
    ax.add_patch(Rectangle((-half[0], -half[1]), 2 * half[0], 2 * half[1], fill=False, edgecolor=MUTED, lw=0.8, zorder=7))
    ax.text(0.03, 0.03, pick(lang, f"上框：放大 {zoom:.0f} 倍", f"box: {zoom:.0f}× larger"),
            transform=ax.transAxes, ha="left", va="bottom", fontsize=LABEL_PT, color=MUTED)


def draw(lang: str, query: int):
    narrow = is_narrow()
    # one scale for all four panels: the ticks need writing only on the outer edges
    fig, axes = new_figure(4.3 if narrow else 6.3, nrows=2, ncols=2, sharex=True, sharey=True)
    panel_in = fig.get_size_inches()[0] / 2 - (0.25 if narrow else 0.35)
    lim = 1.18 * _reach(SHARED)
    for ax, head in zip(axes.flat, toy.HEADS):
        ax.set_label(head)
        _square(ax, lim)
        if head == "diffuse":
            _magnified(ax, lang, query, lim, panel_in)
        else:
            _plane(ax, head, query, panel_in)
        ax.set_title(_title(lang, head, query), loc="left", fontsize=9 if narrow else 10, color=HEAD_COLOURS[head])
        ax.tick_params(labelsize=LABEL_PT, length=2)
    return fig
