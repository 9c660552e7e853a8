"""four-matrices: W_Q, W_K, W_V and W_O of the running example, drawn at the same size.

All four are d_model x d_model, whatever h is: the first three cut the token into heads, the last
puts the heads back together.
"""

from __future__ import annotations

from matplotlib.colors import SymLogNorm

from mha_ref.example import toy

from ..kit.readouts import decimals
from ..kit.style import new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "例子里的四个矩阵 $W^Q$、$W^K$、$W^V$、$W^O$，画成同样大小：每一个都是 "
    "$d_\\text{model} \\times d_\\text{model}$ = {{ value toy.d_model }} × {{ value toy.d_model }}，与 $h$ 无关。"
)
CAPTION_EN = (
    "The example's four matrices $W^Q$, $W^K$, $W^V$ and $W^O$ at the same size: each is "
    "$d_\\text{model} \\times d_\\text{model}$ = {{ value toy.d_model }} × {{ value toy.d_model }}, "
    "whatever $h$ is."
)


def data(lang: str):
    """The four matrices drawn, row by row (8 rows each, two decimals): numbers to copy."""
    p = toy.params()
    return ([pick(lang, "矩阵", "matrix"), pick(lang, "行", "row"),
             *(pick(lang, f"列 {j}", f"column {j}") for j in range(toy.D_MODEL))],
            [[name, str(i), *(decimals(v) for v in row)]
             for name, w in zip(("W_Q", "W_K", "W_V", "W_O"), (p.w_q, p.w_k, p.w_v, p.w_o)) for i, row in enumerate(w)])


def draw(lang: str, value=None):
    p = toy.params()
    mats = (p.w_q, p.w_k, p.w_v, p.w_o)
    limit = max(abs(m).max() for m in mats)
    norm = SymLogNorm(linthresh=0.05, vmin=-limit, vmax=limit)
    fig, axes = new_figure(2.4, ncols=4)
    for ax, w, name in zip(axes, mats, ("W^Q", "W^K", "W^V", "W^O")):
        ax.imshow(w, cmap="RdBu_r", norm=norm)
        ax.set_title(f"${name}$", fontsize=11)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"{w.shape[0]} × {w.shape[1]}", fontsize=9)
    fig.suptitle(pick(lang, "同一种形状", "one shape"), fontsize=10, x=0.02, ha="left")
    return fig
