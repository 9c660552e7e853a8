"""latent-absorb: multi-head latent attention on the running example's six tokens, two ways.

Top (left on a wide page): what one token leaves in one layer's cache, plain multi-head attention
(a key and a value per head) against MLA (one latent and one rotary key, shared by every head).
Then every number of the output computed with each head's keys and values made from the latent
(materialised) against the same output with the up-projections absorbed, on the diagonal; the
largest difference is printed (mha_ref.example.mla_toy, latent.mla_attention).
"""

from __future__ import annotations

from matplotlib.patches import Rectangle

from mha_ref.example import mla_toy, toy

from ..kit.style import HEAD_COLOURS, INK, MUTED, SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
LATENT, ROTARY = "#CC79A7", "#E69F00"
CAPTION_ZH = (
    "多头潜在注意力用在我们例子的六个 token 上（{{ value toy.h }} 个头，每个头宽 {{ value toy.d_k }}，矩阵随机取，种子固定）。"
    "“每个 token 每层缓存多少个数”那张：普通多头注意力每个头存一个键、一个值，共 {{ value today.mla.toy_mha_cache }} 个数；"
    "MLA 只存一个宽 {{ value today.mla.toy_d_c }} 的潜向量和一段宽 {{ value today.mla.toy_d_rope }} 的旋转键，共 {{ value today.mla.toy_cache }} 个，所有头共用。"
    "另一张：把每个头的键和值都造出来算得的输出（横轴），和把上投影吸收进查询、输出两侧后算得的输出（纵轴），每个点是输出里的一个数，"
    "全都落在对角线上，两者最大的差是 {{ value today.mla.largest_difference .0e }}。"
)
CAPTION_EN = (
    "Multi-head latent attention on the running example's six tokens ({{ value toy.h }} heads of width {{ value toy.d_k }}, "
    "random matrices from a fixed seed). The panel \"numbers cached per token, per layer\": plain multi-head attention keeps a "
    "key and a value for every head, {{ value today.mla.toy_mha_cache }} numbers; MLA keeps one latent of "
    "{{ value today.mla.toy_d_c }} and one rotary key of {{ value today.mla.toy_d_rope }}, {{ value today.mla.toy_cache }} "
    "numbers shared by every head. The other panel: each number of the output computed with every head's keys and values "
    "made (horizontal axis) against the same number with the up-projections absorbed into the query and output sides "
    "(vertical axis); "
    "all lie on the diagonal, and the largest difference is {{ value today.mla.largest_difference .0e }}."
)


def data(lang: str):
    """Every number of the output, both ways, and their difference."""
    made, absorbed = mla_toy.outputs()
    rows = [[toy.TOKENS[t], str(j + 1), f"{made[t, j]:.6f}", f"{absorbed[t, j]:.6f}", f"{made[t, j] - absorbed[t, j]:.1e}"]
            for t in range(toy.N) for j in range(toy.D_MODEL)]
    return ([pick(lang, "token", "token"), pick(lang, "输出的第几维", "output number"),
             pick(lang, "造出键和值", "keys and values made"), pick(lang, "吸收之后", "absorbed"),
             pick(lang, "差", "difference")], rows)


def _cells(ax, y: float, colours: list[str], label: str) -> None:
    for i, colour in enumerate(colours):
        ax.add_patch(Rectangle((i + 0.05, y), 0.9, 0.8, color=colour, lw=0))
    ax.text(len(colours) + 0.3, y + 0.4, label, va="center", fontsize=8.5, color=INK)


def _cache_panel(ax, lang: str) -> None:
    heads = list(HEAD_COLOURS.values())
    per_head = [c for c in heads for _ in range(toy.D_K)]
    _cells(ax, 2.2, per_head, pick(lang, f"键：{toy.H} 个头", f"keys: {toy.H} heads"))
    _cells(ax, 1.2, per_head, pick(lang, f"值：{toy.H} 个头", f"values: {toy.H} heads"))
    mla = [LATENT] * mla_toy.D_C + [ROTARY] * mla_toy.D_ROPE
    _cells(ax, -0.6, mla, pick(lang, f"潜向量 {mla_toy.D_C} + 旋转键 {mla_toy.D_ROPE}",
                               f"latent {mla_toy.D_C} + rotary key {mla_toy.D_ROPE}"))
    ax.text(0, 3.2, pick(lang, f"多头注意力：{mla_toy.cached_per_token_mha()} 个数", f"multi-head: {mla_toy.cached_per_token_mha()} numbers"),
            fontsize=9, color=INK)
    ax.text(0, 0.4, pick(lang, f"MLA：{mla_toy.cached_per_token()} 个数，各头共用", f"MLA: {mla_toy.cached_per_token()} numbers, shared"),
            fontsize=9, color=INK)
    ax.set_xlim(0, len(per_head) + (6.5 if is_narrow() else 7.5))
    ax.set_ylim(-0.9, 3.8)
    ax.axis("off")
    ax.set_title(pick(lang, "每个 token 每层缓存多少个数", "numbers cached per token, per layer"), fontsize=9.5, loc="left")


def _equal_panel(ax, lang: str) -> None:
    made, absorbed = mla_toy.outputs()
    ax.scatter(made.ravel(), absorbed.ravel(), s=10, color=SLICE_COLOURS[0], zorder=3)
    low, high = min(made.min(), absorbed.min()), max(made.max(), absorbed.max())
    pad = 0.08 * (high - low)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color=MUTED, lw=0.8, ls="--", zorder=2)
    ax.set_aspect("equal")
    ax.set_xlabel(pick(lang, "造出每个头的键和值", "keys and values made"))
    ax.set_ylabel(pick(lang, "吸收之后", "absorbed"))
    ax.text(0.04, 0.96, pick(lang, f"最大的差：{mla_toy.largest_difference():.0e}",
                             f"largest difference: {mla_toy.largest_difference():.0e}"),
            transform=ax.transAxes, va="top", fontsize=8.5, color=INK)
    ax.set_title(pick(lang, "输出里的每个数，两种算法", "each output number, both ways"), fontsize=9.5, loc="left")


def draw(lang: str, value=None):
    if is_narrow():
        fig, (cache, equal) = new_figure(6.0, nrows=2, height_ratios=[1, 1.4])
    else:
        fig, (cache, equal) = new_figure(3.3, ncols=2, width_ratios=[1.5, 1])
    _cache_panel(cache, lang)
    _equal_panel(equal, lang)
    return fig
