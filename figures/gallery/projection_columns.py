"""projection-columns: W_Q, W_K and W_V, each cut into h groups of output columns.

The running example's real matrices (d_model x d_model each); head i owns columns
i*d_k .. (i+1)*d_k - 1 of all three. The three are cut the same way; only h is shared.
"""

from __future__ import annotations

from matplotlib.colors import SymLogNorm
from matplotlib.patches import Rectangle

from mha_ref.example import toy

from ..kit.control import divisors, heads_control
from ..kit.style import SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick, plural

CONTROL = heads_control(divisors(toy.D_MODEL), start=toy.H)
CAPTION_ZH = (
    "例子里真实的 $W^Q$、$W^K$、$W^V$，每个都是 $d_\\text{model} \\times d_\\text{model}$。"
    "彩色框标出每个头拥有的输出列：三个矩阵按同样的方式切开，它们之间共享的只有 $h$。"
)
CAPTION_EN = (
    "The example's real $W^Q$, $W^K$ and $W^V$, each $d_\\text{model} \\times d_\\text{model}$. "
    "The coloured frames mark the output columns each head owns: all three are cut the same way, "
    "and the only thing they share is $h$."
)


def readout(lang: str, h: int) -> str:
    d_k = toy.D_MODEL // h
    return pick(lang, f"h = {h} · 每个矩阵 {h} 组，每组 {d_k} 列",
                f"h = {h} · {plural(h, 'group')} of {plural(d_k, 'column')} in each matrix")


def data(lang: str):
    """Every h of the slider: the output columns each head owns in all three matrices, the size of
    its block, and the largest |entry| of its block in W_Q, W_K and W_V (where the built-in
    structure sits; the rest is small noise). The entries themselves: four-matrices' table."""
    p = toy.params()
    rows = []
    for h in CONTROL.values:
        d_k = toy.D_MODEL // h
        for i in range(h):
            cols = slice(i * d_k, (i + 1) * d_k)
            rows.append([str(h), pick(lang, f"头 {i + 1}", f"head {i + 1}"),
                         str(i * d_k) if d_k == 1 else f"{i * d_k}–{(i + 1) * d_k - 1}", f"{toy.D_MODEL} × {d_k}",
                         *(f"{abs(w[:, cols]).max():.2f}" for w in (p.w_q, p.w_k, p.w_v))])
    return ([pick(lang, "头数 h", "heads h"), pick(lang, "头", "head"), pick(lang, "输出列", "output columns"),
             pick(lang, "每块的形状", "block shape"),
             *(pick(lang, f"{m} 块中最大的 |w|", f"largest |w| in its {m} block") for m in ("W_Q", "W_K", "W_V"))], rows)


def draw(lang: str, h: int):
    p = toy.params()
    d_model, d_k = toy.D_MODEL, toy.D_MODEL // h
    fig, axes = new_figure(2.2 if is_narrow() else 2.9, ncols=3)  # square panels: a phone's third is shorter
    limit = max(abs(m).max() for m in (p.w_q, p.w_k, p.w_v))
    # a log-like scale past 0.05, so the small dense part of every block stays visible
    norm = SymLogNorm(linthresh=0.05, vmin=-limit, vmax=limit)
    for ax, w, name in zip(axes, (p.w_q, p.w_k, p.w_v), ("W^Q", "W^K", "W^V")):
        ax.imshow(w, cmap="RdBu_r", norm=norm)
        for i in range(h):  # inset a little, so neighbouring groups' frames do not overlap
            ax.add_patch(Rectangle((i * d_k - 0.42, -0.42), d_k - 0.16, d_model - 0.16, fill=False,
                                   edgecolor=SLICE_COLOURS[i % len(SLICE_COLOURS)], lw=2.4))
        ax.set_title(f"${name}$", fontsize=11)
        ax.set_xticks([])
        ax.set_yticks([])
    columns = pick(lang, "输出列（按头分组）", "output columns (by head)")
    if is_narrow():  # three labels side by side would not fit a phone's width: one under all three
        fig.supxlabel(columns, fontsize=8.5)
    else:
        for ax in axes:
            ax.set_xlabel(columns, fontsize=8.5)
    axes[0].set_ylabel(pick(lang, f"输入行（全部 {d_model} 个）", f"input rows (all {d_model})"), fontsize=8.5)
    return fig
