"""published-models: heads and head width of published models (published, with sources in mha_ref/models.py).

As models grew, h grew with d_model and the head width d_k stayed between 64 and 128.
"""

from __future__ import annotations

from mha_ref import models

from ..kit.style import HEAD_COLOURS, INK, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
CAPTION_ZH = (
    "已发布模型的头数 $h$（横轴）与每个头的宽度 $d_k$（纵轴），点旁标出 $d_\\text{model}$；"
    "几个模型落在同一点上时，画成一个套一个的空心标记。"
    "$h$ 从 {{ value published.h_min }} 到 {{ value published.h_max }}，$d_k$ 却只在 "
    "{{ value published.dk_min }} 到 {{ value published.dk_max }} 之间。来源见[参考文献](references.md)。"
)
CAPTION_EN = (
    "Head count $h$ (across) and head width $d_k$ (up) of published models, each labelled with its "
    "$d_\\text{model}$; models that share a point are drawn as nested hollow markers. $h$ runs "
    "from {{ value published.h_min }} to {{ value published.h_max }} while "
    "$d_k$ stays between {{ value published.dk_min }} and {{ value published.dk_max }}. Sources in the "
    "[references](references.md)."
)
COLOURS = (HEAD_COLOURS["position"], HEAD_COLOURS["rare"], HEAD_COLOURS["syntax"], "#CC79A7", "#E69F00", "#56B4E9")
MARKERS = "os^Dvp"
# marker areas for the 1st, 2nd, 3rd ... family at one (h, d_k) point: nested outlines, never moved
SIZES = (280, 100, 34, 12)  # each about a third of the area before: the outlines do not touch


def family(m: models.Model) -> str:
    """"GPT-2 small" -> "GPT-2", "Llama 3 8B" -> "Llama 3": the name without its size."""
    return m.name.rsplit(" ", 1)[0]


def marker_size(m: models.Model) -> int:
    """Families that share m's (h, d_k), e.g. BERT base and GPT-2 small, get nested sizes there."""
    here = [family(o) for o in models.PUBLISHED_MODELS if (o.heads, o.d_head) == (m.heads, m.d_head)]
    rank = list(dict.fromkeys(here)).index(family(m))
    return SIZES[min(rank, len(SIZES) - 1)]


def draw(lang: str, value=None):
    fig, ax = new_figure(3.8)
    families = list(dict.fromkeys(family(m) for m in models.PUBLISHED_MODELS))
    if len(families) > len(COLOURS):
        raise ValueError(f"{len(families)} model families but only {len(COLOURS)} colours and markers")
    for name, colour, marker in zip(families, COLOURS, MARKERS):
        ms = [m for m in models.PUBLISHED_MODELS if family(m) == name]
        # every point at its true (h, d_k); shared points show as nested hollow markers
        ax.scatter([m.heads for m in ms], [m.d_head for m in ms], s=[marker_size(m) for m in ms],
                   marker=marker, facecolor="none", edgecolor=colour, lw=1.6, label=name, zorder=3)
    points = sorted({(m.heads, m.d_head) for m in models.PUBLISHED_MODELS})
    for h, d_k in points:
        # on a phone, neighbours in a row are too close for their labels side by side: every other one
        # goes a line higher
        nth = sum(1 for h_left, d in points if d == d_k and h_left < h)
        up = 24 if is_narrow() and nth % 2 else 12
        ax.annotate(str(h * d_k), (h, d_k), textcoords="offset points", xytext=(0, up), ha="center",
                    fontsize=8.5, color=INK)
    hs = [m.heads for m in models.PUBLISHED_MODELS]
    dks = [m.d_head for m in models.PUBLISHED_MODELS]
    ax.set_xscale("log", base=2)
    ticks = sorted({2 ** k for k in range(3, 8) if min(hs) <= 2 ** k <= max(hs)} | {max(hs)})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_ylim(0, max(dks) * 1.3)
    ax.set_yticks(sorted({0, min(dks), max(dks)}))
    ax.axhspan(min(dks), max(dks), color="#f2f2f2", zorder=0)
    ax.set_xlabel(pick(lang, "头数 $h$", "number of heads $h$"))
    ax.set_ylabel(pick(lang, "每个头的宽度 $d_k$", "head width $d_k$"))
    legend = ax.legend(loc="lower right", fontsize=8.5, ncol=3)
    for handle in legend.legend_handles:  # one size in the key, whatever size the family's first point has
        handle.set_sizes([SIZES[1]])
    ax.set_title(pick(lang, r"点旁的数字是 $d_{\mathrm{model}}$", r"the number by each point is $d_{\mathrm{model}}$"),
                 loc="left", fontsize=9, color=INK)
    return fig
