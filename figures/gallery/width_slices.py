"""width-slices: the d_model numbers of a projection (q = x W_Q) cut into h pieces of width d_model / h.

The cuts move as h changes; the vector's two ends never do, and h x d_k is always d_model.
"""

from __future__ import annotations

from matplotlib.patches import Rectangle

from mha_ref.example import toy

from ..kit.control import divisors, heads_control
from ..kit.style import INK, MUTED, SLICE_COLOURS, new_figure
from ..kit.words import pick

CONTROL = heads_control(divisors(toy.D_MODEL), start=toy.H)
CAPTION_ZH = (
    "投影之后的向量 $q = xW^Q$ 宽 {{ value toy.d_model }}，被切成 $h$ 段，每段宽 $d_k = d_\\text{model} / h$。"
    "{{ screen \"拖动 $h$\" print \"一帧一帧看下去\" }}：切口在动，两端不动，$h \\times d_k$ 永远等于 $d_\\text{model}$。"
)
CAPTION_EN = (
    "The projected vector $q = xW^Q$, {{ value toy.d_model }} numbers wide, cut into $h$ pieces of width "
    "$d_k = d_\\text{model} / h$. {{ screen \"Step through $h$\" print \"From frame to frame\" }}: the cuts move, the two ends stay put, and "
    "$h \\times d_k$ is always $d_\\text{model}$."
)


def readout(lang: str, h: int) -> str:
    d_k = toy.D_MODEL // h
    return f"h = {h} · d_k = {toy.D_MODEL} / {h} = {d_k}"


def data(lang: str):
    """Every h of the slider: the width d_k of a piece, h x d_k, and the numbers of q each head gets."""
    def piece(i: int, d_k: int) -> str:
        return f"q{i * d_k}" if d_k == 1 else f"q{i * d_k}–q{(i + 1) * d_k - 1}"

    return ([pick(lang, "头数 h", "heads h"), "d_k", "h × d_k",
             pick(lang, "每个头分到的数（按头的顺序）", "each head's numbers, head by head")],
            [[str(h), str(toy.D_MODEL // h), str(h * (toy.D_MODEL // h)),
              " · ".join(piece(i, toy.D_MODEL // h) for i in range(h))] for h in CONTROL.values])


def draw(lang: str, h: int):
    d_model = toy.D_MODEL
    d_k = d_model // h
    fig, ax = new_figure(2.2)
    for i in range(h):
        colour = SLICE_COLOURS[i % len(SLICE_COLOURS)]
        for j in range(d_k):
            ax.add_patch(Rectangle((i * d_k + j, 0), 1, 1, facecolor=colour, alpha=0.28,
                                   edgecolor="white", lw=1.5))
        ax.add_patch(Rectangle((i * d_k, 0), d_k, 1, fill=False, edgecolor=colour, lw=2.2))
        label = pick(lang, f"头 {i + 1}", f"head {i + 1}") if d_k >= 2 or h <= 4 else f"{i + 1}"
        ax.text(i * d_k + d_k / 2, 1.25, label, ha="center", va="bottom", color=colour, fontsize=9)
    for j in range(d_model):
        ax.text(j + 0.5, 0.5, f"q{j}", ha="center", va="center", fontsize=9, color=INK)
    for end in (0, d_model):  # the ends: the same in every frame
        ax.plot([end, end], [-0.25, 1.25], color=INK, lw=2.5)
    ax.annotate("", xy=(0, -0.45), xytext=(d_model, -0.45),
                arrowprops={"arrowstyle": "<->", "color": MUTED})
    ax.text(d_model / 2, -0.6, pick(lang, rf"$q = xW^Q$ 的 $d_{{\mathrm{{model}}}}$ = {d_model} 个数（不随 $h$ 改变）",
                                    rf"the $d_{{\mathrm{{model}}}}$ = {d_model} numbers of $q = xW^Q$ (the same for every $h$)"),
            ha="center", va="top", fontsize=9, color=MUTED)
    ax.text(d_model + 0.3, 0.5, rf"$h \times d_k$" f"\n= {h} × {d_k}\n= {h * d_k}", ha="left", va="center", fontsize=9)
    ax.set_xlim(-0.2, d_model + 2.2)
    ax.set_ylim(-1.1, 1.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig
