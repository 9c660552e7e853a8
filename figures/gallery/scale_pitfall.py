"""scale-pitfall: divide by the head's own sqrt(d_k), not by sqrt(d_model).

A key that stands out from the others by a fixed strength (in spreads of q.k); its weight with
each divisor as the head narrows. sqrt(d_k) keeps it; sqrt(d_model) flattens it.
"""

from __future__ import annotations

import numpy as np

from mha_ref.example import scale

from ..kit.control import Control
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

RIGHT, WRONG = HEAD_COLOURS["position"], HEAD_COLOURS["syntax"]
CONTROL = Control(
    label_zh="每个头的宽度 d_k", label_en="head width d_k", values=scale.D_KS, start=8,
    slug=lambda d: f"dk{d}", value_label=lambda d, lang: f"d_k = {d}",
)
CAPTION_ZH = (
    "一个比其余键高出固定强度的键（强度以 $q \\cdot k$ 的典型波动为单位），在 $d_\\text{model}$ = "
    "{{ value scale.d_model }} 的模型里随头宽 $d_k$ 变化的权重。除以 $\\sqrt{d_k}$ 时始终是 "
    "{{ value scale.peak .2f }}；照抄单头实现、除以 $\\sqrt{d_\\text{model}}$ 时，同样的参数下头越窄越平，"
    "$d_k$ = {{ value scale.d_k_min }} 时只剩 {{ value scale.peak_wrong_narrowest .2f }}。"
)
CAPTION_EN = (
    "A key that stands out from the rest by a fixed strength (measured in the typical spread of "
    "$q \\cdot k$), in a model with $d_\\text{model}$ = {{ value scale.d_model }}, as the head width "
    "$d_k$ changes. Dividing by $\\sqrt{d_k}$ it always gets {{ value scale.peak .2f }}; dividing by "
    "$\\sqrt{d_\\text{model}}$, as a copied single-head implementation would, the same parameters give a head that flattens as it "
    "narrows, down to {{ value scale.peak_wrong_narrowest .2f }} at $d_k$ = {{ value scale.d_k_min }}."
)


def readout(lang: str, d_k: int) -> str:
    right, wrong = scale.peak(d_k, "d_k"), scale.peak(d_k, "d_model")
    return pick(lang, f"d_k = {d_k} · 除以 √d_k：{right:.2f} · 除以 √d_model：{wrong:.2f}",
                f"d_k = {d_k} · divide by √d_k: {right:.2f} · by √d_model: {wrong:.2f}")


def data(lang: str):
    return (["d_k", pick(lang, "除以 √d_k", "divide by √d_k"), pick(lang, f"除以 √d_model = √{scale.D_MODEL}",
                                                                     f"divide by √d_model = √{scale.D_MODEL}")],
            [[str(d), f"{scale.peak(d, 'd_k'):.2f}", f"{scale.peak(d, 'd_model'):.2f}"] for d in scale.D_KS])


def draw(lang: str, d_k: int):
    narrow = is_narrow()
    if narrow:  # a phone's width: the bars under the curve, each panel the full width, the key in one column
        fig, (curve, bars) = new_figure(6.0, nrows=2)
    else:
        fig, (curve, bars) = new_figure(3.5, ncols=2, width_ratios=[1.2, 1])
    d_ks = np.array(scale.D_KS)
    right_label = pick(lang, r"除以 $\sqrt{d_k}$（正确）", r"divide by $\sqrt{d_k}$ (correct)")
    wrong = rf"$\sqrt{{d_{{\mathrm{{model}}}}}} = \sqrt{{{scale.D_MODEL}}}$"
    wrong_label = pick(lang, f"除以 {wrong}（照抄单头实现）", f"divide by {wrong} (copied from one head)")
    curve.plot(d_ks, [scale.peak(d, "d_k") for d in d_ks], "o-", color=RIGHT, lw=2, label=right_label)
    curve.plot(d_ks, [scale.peak(d, "d_model") for d in d_ks], "o-", color=WRONG, lw=2, label=wrong_label)
    curve.axvline(d_k, color=MUTED, lw=1, ls=":")
    curve.plot([d_k, d_k], [scale.peak(d_k, "d_k"), scale.peak(d_k, "d_model")], "o", ms=10,
               mfc="none", mec=INK, mew=1.5)  # this frame's two points
    curve.set_xscale("log", base=2)
    curve.set_xticks(d_ks, [str(d) for d in d_ks])
    curve.minorticks_off()
    curve.set_ylim(0, 1.05)
    curve.set_xlabel(pick(lang, "每个头的宽度 $d_k$", "head width $d_k$"))
    curve.set_ylabel(pick(lang, "匹配键得到的权重", "weight on the matching key"))

    keys = np.arange(scale.N_KEYS)
    right, wrong = scale.weights(d_k, "d_k"), scale.weights(d_k, "d_model")
    bars.bar(keys - 0.2, right, width=0.4, color=RIGHT, label=right_label)
    bars.bar(keys + 0.2, wrong, width=0.4, color=WRONG, label=wrong_label)
    bars.set_xticks(keys, [pick(lang, "匹配", "match")] + [f"k{i}" for i in keys[1:]], fontsize=8.5)
    bars.set_ylim(0, 1.05)
    bars.set_title(f"$d_k = {d_k}$", fontsize=10, loc="left", color=INK)
    fig.legend(*curve.get_legend_handles_labels(), loc="outside lower center", ncols=1 if narrow else 2,
               fontsize=8.5)
    return fig
