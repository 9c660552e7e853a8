"""published-models: heads and head width of published models (FACTS.md).

As models grew, h grew with d_model and the head width d_k stayed between 64 and 128.
"""

from __future__ import annotations

from mha_ref import models

from .style import HEAD_COLOURS, INK, new_figure, pick

CONTROL = None
CAPTION_ZH = (
    "已发布模型的头数 $h$（横轴）与每个头的宽度 $d_k$（纵轴），点旁标出 $d_\\text{model}$。"
    "$h$ 从 {{ value published.h_min }} 到 {{ value published.h_max }}，$d_k$ 却只在 "
    "{{ value published.dk_min }} 到 {{ value published.dk_max }} 之间。来源见[参考文献](references.md)。"
)
CAPTION_EN = (
    "Head count $h$ (across) and head width $d_k$ (up) of published models, each labelled with its "
    "$d_\\text{model}$. $h$ runs from {{ value published.h_min }} to {{ value published.h_max }} while "
    "$d_k$ stays between {{ value published.dk_min }} and {{ value published.dk_max }}. Sources in the "
    "[references](references.md)."
)
COLOURS = (HEAD_COLOURS["position"], HEAD_COLOURS["rare"], HEAD_COLOURS["syntax"], "#CC79A7", "#E69F00", "#56B4E9")


def family(m: models.Model) -> str:
    """"GPT-2 small" -> "GPT-2", "Llama 3 8B" -> "Llama 3": the name without its size."""
    return m.name.rsplit(" ", 1)[0]


def draw(lang: str, value=None):
    fig, ax = new_figure(3.8)
    families = list(dict.fromkeys(family(m) for m in models.PUBLISHED_MODELS))
    for k, (name, colour, marker) in enumerate(zip(families, COLOURS, "os^Dvp")):
        ms = [m for m in models.PUBLISHED_MODELS if family(m) == name]
        # families share some (h, d_k) points, e.g. BERT base and GPT-2 small: nudge them apart
        nudge = 2 ** ((k - (len(families) - 1) / 2) * 0.07)
        ax.scatter([m.heads * nudge for m in ms], [m.d_head for m in ms], s=48, color=colour, label=name,
                   marker=marker, zorder=3, edgecolor="white", lw=0.8)

    for h, d_k in sorted({(m.heads, m.d_head) for m in models.PUBLISHED_MODELS}):
        ax.annotate(str(h * d_k), (h, d_k), textcoords="offset points", xytext=(0, 9), ha="center",
                    fontsize=7, color=INK)
    hs = [m.heads for m in models.PUBLISHED_MODELS]
    dks = [m.d_head for m in models.PUBLISHED_MODELS]
    ax.set_xscale("log", base=2)
    ticks = sorted({2 ** k for k in range(3, 8) if min(hs) <= 2 ** k <= max(hs)} | {max(hs)})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_ylim(0, max(dks) * 1.3)
    ax.set_yticks(sorted({0, min(dks), max(dks)}))
    ax.axhspan(min(dks), max(dks), color="#f2f2f2", zorder=0)
    ax.set_xlabel(pick(lang, "头数 h", "number of heads h"))
    ax.set_ylabel(pick(lang, "每个头的宽度 d_k", "head width d_k"))
    ax.legend(loc="lower right", fontsize=8, ncol=3)
    ax.set_title(pick(lang, "点旁的数字是 d_model", "the number by each point is d_model"), loc="left",
                 fontsize=9, color=INK)
    return fig
