"""what-a-head-reads: the misreading (each head reads a quarter of the token) and the truth.

Each head reads all eight input numbers through its own d_model x d_k block of W_Q (and of W_K,
W_V). The grid is computed: how far each head's output moves when one input number is nudged.
"""

from __future__ import annotations

import numpy as np

from mha_ref import toy

from .control import Control
from .style import INK, MUTED, SLICE_COLOURS, new_figure, pick

CONTROL = Control(
    label_zh="画法", label_en="picture", values=("wrong", "right"), start="wrong",
    slug=lambda v: v, value_label=lambda v, lang: pick(
        lang, {"wrong": "常见误解", "right": "实际情况"}[v], {"wrong": "the misreading", "right": "what happens"}[v]),
)
CAPTION_ZH = (
    "左：token 的 {{ value toy.d_model }} 个输入数与 {{ value toy.h }} 个头之间的连线。"
    "右：轻推某一个输入数时，每个头的输出动了多少。第一帧是常见的误解，"
    "第二帧是实际算出来的结果：每个头都读到了全部输入。"
)
CAPTION_EN = (
    "Left: which of the token's {{ value toy.d_model }} input numbers reach each of the "
    "{{ value toy.h }} heads. Right: how far each head's output moves when one input number is "
    "nudged. The first frame is the common misreading; the second is computed, and every head "
    "reads every input."
)


def readout(lang: str, picture: str) -> str:
    if picture == "wrong":
        return pick(lang, "误解：每个头只读自己那一段", "misreading: each head reads only its own slice")
    s = toy.head_sensitivity()
    return pick(lang, f"实际：最小的一格也有 {s.min():.3f}，没有一格是零",
                f"computed: the smallest cell is {s.min():.3f}; none is zero")


def draw(lang: str, picture: str):
    fig, (ax, grid_ax) = new_figure(3.2, ncols=2, width_ratios=[1.25, 1])
    d_model, h, d_k = toy.D_MODEL, toy.H, toy.D_K
    xs = np.arange(d_model)
    head_x = (np.arange(h) + 0.5) * d_model / h - 0.5
    for i in range(h):
        colour = SLICE_COLOURS[i]
        reads = range(i * d_k, (i + 1) * d_k) if picture == "wrong" else range(d_model)
        for d in reads:
            ax.plot([xs[d], head_x[i]], [1, 0], color=colour, lw=1.1, alpha=0.7)
        ax.text(head_x[i], -0.12, pick(lang, f"头 {i + 1}", f"head {i + 1}"), ha="center", va="top",
                color=colour, fontsize=9)
    ax.scatter(xs, np.ones(d_model), s=160, marker="s", color="white", edgecolor=INK, zorder=3)
    for d in xs:
        ax.text(d, 1.12, f"x{d}", ha="center", va="bottom", fontsize=8)
    ax.scatter(head_x, np.zeros(h), s=260, color=[SLICE_COLOURS[i] for i in range(h)], zorder=3)
    block = f"{d_model}×{d_k}"
    ax.set_title(pick(lang, "✗ 误解：每个头只读自己那一段" if picture == "wrong" else f"✓ 每个头经自己的 {block} 块读全部输入",
                      "✗ misreading: one slice each" if picture == "wrong" else f"✓ each head reads all, via its {block} block"),
                 fontsize=10, color=INK, loc="left")
    ax.set_xlim(-0.7, d_model - 0.3)
    ax.set_ylim(-0.35, 1.35)
    ax.axis("off")

    if picture == "wrong":
        grid = np.kron(np.eye(h), np.ones((1, d_k)))  # what the misreading would predict
        title = pick(lang, "误解预言的结果", "what the misreading predicts")
    else:
        grid = toy.head_sensitivity()
        title = pick(lang, "实际：输出的变化（算出来的）", "computed: how far the output moves")
    grid_ax.imshow(grid, cmap="Greys", vmin=0, vmax=2.5 if picture == "wrong" else grid.max(), aspect="auto")
    for i in range(h):
        for d in range(d_model):
            if picture == "right":
                grid_ax.text(d, i, f"{grid[i, d]:.2f}", ha="center", va="center", fontsize=7.5,
                             color="white" if grid[i, d] > 0.5 * grid.max() else INK)
            else:
                grid_ax.text(d, i, "0" if grid[i, d] == 0 else "≠ 0", ha="center", va="center", fontsize=8,
                             color=MUTED if grid[i, d] == 0 else INK)
    grid_ax.set_xticks(range(d_model), [f"x{d}" for d in range(d_model)], fontsize=7.5)
    grid_ax.set_yticks(range(h), [pick(lang, f"头 {i + 1}", f"head {i + 1}") for i in range(h)], fontsize=8)
    grid_ax.set_title(title, fontsize=10, loc="left")
    grid_ax.tick_params(length=0)
    for spine in grid_ax.spines.values():
        spine.set_visible(False)
    return fig
