"""flow-diagram: the path of one multi-head attention block, with every shape on it.

X -> h heads (Q_i, K_i, V_i, softmax) -> concatenation -> W_O, for the 2017 base model's
d_model = 512 and h = 8. The shapes are read off a real forward pass of mha_ref at that size.
"""

from __future__ import annotations

from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from mha_ref.flow import flow_shapes

from ..kit.style import INK, MUTED, SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick, plural

CONTROL = None
ATTENTION = r"$\mathrm{softmax}(QK^\top/\sqrt{d_k})\,V$"
CAPTION_ZH = (
    "一个多头注意力块的计算流程（$d_\\text{model}$ = {{ value base.d_model }}，$h$ = {{ value base.h }}）。"
    "每个框旁的形状都来自 `mha_ref` 在这个尺寸上真实跑一遍时的数组形状，$n$ 是 token 数。"
)
CAPTION_EN = (
    "The flow of one multi-head attention block ($d_\\text{model}$ = {{ value base.d_model }}, "
    "$h$ = {{ value base.h }}). Every shape comes from the arrays of a real `mha_ref` forward pass at "
    "that size; $n$ is the number of tokens."
)


def data(lang: str):
    """Each step's array shape, as the drawing prints it (mha_ref.flow_shapes: a real forward pass)."""
    s = flow_shapes()
    steps = ((pick(lang, "输入 X", "input X"), s.x),
             (pick(lang, f"每个头的 Q_i、K_i、V_i（共 {s.h} 个头，d_k = {s.d_k}）",
                   f"each head's Q_i, K_i, V_i ({plural(s.h, 'head')}, d_k = {s.d_k})"), s.q_i),
             (pick(lang, "每个头的输出 softmax(Q_i K_iᵀ / √d_k) V_i",
                   "each head's output softmax(Q_i K_iᵀ / √d_k) V_i"), s.head_i),
             (pick(lang, "拼接各头的输出", "the heads' outputs, concatenated"), s.concat),
             ("W_O", s.w_o),
             (pick(lang, "输出", "output"), s.out))
    head = [pick(lang, "步骤", "step"), pick(lang, "数组形状（n 是 token 数）", "array shape (n: number of tokens)")]
    return head, [list(r) for r in steps]


def _box(ax, x, y, text, colour=INK, w=1.9, h=0.55):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.04",
                                facecolor="white", edgecolor=colour, lw=1.6))
    ax.text(x, y, text, ha="center", va="center", fontsize=8.5, color=INK)


def _arrow(ax, a, b):
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=10, color=MUTED, lw=1))


def draw(lang: str, value=None):
    s = flow_shapes()
    if is_narrow():
        return _draw_narrow(lang, s)
    fig, ax = new_figure(4.4)
    _box(ax, 0, 2, pick(lang, f"输入 $X$\n{s.x}", f"input $X$\n{s.x}"))
    shown = [0, 1, s.h - 1]  # draw heads 1, 2 and h; the dots stand for the rest
    ys = [3.4, 2.4, 0.6]
    for y, i in zip(ys, shown):
        colour = SLICE_COLOURS[i % len(SLICE_COLOURS)]
        _box(ax, 3, y, f"$Q_{{{i + 1}}}, K_{{{i + 1}}}, V_{{{i + 1}}}$\n{s.q_i}", colour)
        _box(ax, 5.75, y, pick(lang, f"{ATTENTION}\n头 {i + 1}：{s.head_i}", f"{ATTENTION}\nhead {i + 1}: {s.head_i}"),
             colour, w=2.8)
        _arrow(ax, (0.95, 2), (2.05, y))
        _arrow(ax, (3.95, y), (4.35, y))
        _arrow(ax, (7.15, y), (7.65, 2))
    ax.text(4.3, 1.5, "⋮", ha="center", va="center", fontsize=16, color=MUTED)
    _box(ax, 8.6, 2, pick(lang, f"拼接\n{s.concat}", f"concatenate\n{s.concat}"))
    _box(ax, 8.6, 0.7, f"$W^O$\n{s.w_o}")
    _arrow(ax, (8.6, 1.72), (8.6, 1.0))
    _box(ax, 8.6, 3.4, pick(lang, f"输出\n{s.out}", f"output\n{s.out}"))
    ax.add_patch(FancyArrowPatch((9.55, 0.7), (9.55, 3.4), connectionstyle="arc3,rad=0.25",
                                 arrowstyle="-|>", mutation_scale=10, color=MUTED, lw=1))
    ax.text(3, 4.05, pick(lang, f"{s.h} 个头，每个 $d_k$ = {s.d_k}", f"{plural(s.h, 'head')}, $d_k$ = {s.d_k} each"),
            ha="center", fontsize=9, color=INK)
    ax.set_xlim(-1.1, 10.4)
    ax.set_ylim(0.1, 4.3)
    ax.axis("off")
    return fig


def _draw_narrow(lang: str, s):
    """A phone's width cannot hold a head's two boxes beside each other three times over: the flow runs
    downwards, the heads side by side, and the attention formula, too wide for a box, is said once."""
    fig, ax = new_figure(4.8)
    _box(ax, 1.0, 6.0, pick(lang, f"输入 $X$\n{s.x}", f"input $X$\n{s.x}"), w=1.8)
    ax.text(2.15, 6.0, pick(lang, f"{s.h} 个头，每个 $d_k$ = {s.d_k}\n每个头：{ATTENTION}",
                            f"{plural(s.h, 'head')}, $d_k$ = {s.d_k} each\neach head: {ATTENTION}"),
            va="center", fontsize=9, color=INK)
    xs = [0.95, 2.75, 5.25]  # heads 1, 2 and h; the dots between stand for the rest
    for x, i in zip(xs, [0, 1, s.h - 1]):
        colour = SLICE_COLOURS[i % len(SLICE_COLOURS)]
        _box(ax, x, 4.7, f"$Q_{{{i + 1}}}, K_{{{i + 1}}}, V_{{{i + 1}}}$\n{s.q_i}", colour, w=1.6)
        _box(ax, x, 3.5, pick(lang, f"头 {i + 1}\n{s.head_i}", f"head {i + 1}\n{s.head_i}"), colour, w=1.6)
        _arrow(ax, (1.0, 5.7), (x, 5.0))
        _arrow(ax, (x, 4.4), (x, 3.8))
        _arrow(ax, (x, 3.2), (3.1 + (x - 3.1) * 0.3, 2.5))
    ax.text(4.0, 4.1, "⋯", ha="center", va="center", fontsize=16, color=MUTED)
    _box(ax, 3.1, 2.2, pick(lang, f"拼接\n{s.concat}", f"concatenate\n{s.concat}"))
    _box(ax, 3.1, 1.2, f"$W^O$\n{s.w_o}")
    _box(ax, 3.1, 0.2, pick(lang, f"输出\n{s.out}", f"output\n{s.out}"))
    _arrow(ax, (3.1, 1.9), (3.1, 1.5))
    _arrow(ax, (3.1, 0.9), (3.1, 0.5))
    ax.set_xlim(-0.1, 6.1)
    ax.set_ylim(-0.2, 6.4)
    ax.axis("off")
    return fig
