"""flops-vs-context: what attention costs in GPT-2 small, against the context length n.

Multiply-adds of Q K^T plus weights @ V for one head of width d_model and for h heads of width
d_model / h (the same curve), and of the four projections; GPT-2 small's own d_model = 768.
"""

from __future__ import annotations

import numpy as np

from mha_ref import costs, models

from ..kit.control import heads_control
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick, plural

GPT2 = models.model("GPT-2 small")
CONTEXTS = np.unique(np.geomspace(64, 8192, 29).astype(int))
# a readable subset of the divisors of 768: one frame each
CONTROL = heads_control((1, 2, 3, 4, 6, 12, 24, 48, 96), start=GPT2.heads)
CAPTION_ZH = (
    "GPT-2 small（$d_\\text{model}$ = {{ value gpt2.d_model }}）一个注意力块的乘加次数随上下文长度 $n$ 的变化；"
    "模型本身最长只读 {{ value gpt2.context d }} 个 token，更长的部分只是按它的宽度外推。"
    "不管切成多少个头，注意力那条线都与单头的灰色参照线重合；在 $n$ = {{ value gpt2.context d }} 时，"
    "四个投影的开销是注意力本身的 {{ value gpt2.ratio .1f }} 倍；按这个宽度算，到 $n$ = {{ value gpt2.crossover d }} 时两者持平。"
)
CAPTION_EN = (
    "Multiply-adds of one attention block of GPT-2 small ($d_\\text{model}$ = {{ value gpt2.d_model }}) "
    "against the context length $n$ (the model itself reads at most {{ value gpt2.context d }} tokens; "
    "longer contexts extrapolate its width). However many heads the width is cut into, the attention curve "
    "lies on the grey one-head reference; at $n$ = {{ value gpt2.context d }} the four projections cost "
    "{{ value gpt2.ratio .1f }} times the attention itself, and at this width the two would meet at "
    "$n$ = {{ value gpt2.crossover d }}."
)


def readout(lang: str, h: int) -> str:
    d_k = GPT2.d_model // h
    c = costs.multiply_adds(GPT2.context, GPT2.d_model, h)
    return pick(lang, f"h = {h} · d_k = {d_k} · n = {GPT2.context} 时注意力乘加 {c.attention:,}",
                f"h = {h} · d_k = {d_k} · attention at n = {GPT2.context}: {c.attention:,} multiply-adds")


def _series(h: int, part: str) -> np.ndarray:
    return np.array([getattr(costs.multiply_adds(int(n), GPT2.d_model, h), part) for n in CONTEXTS], dtype=float)


def data(lang: str):
    """The curves drawn, at every n of the grid and at the two marked n (the model's context and the
    crossover): the multiply-adds of attention and of the four projections, and their ratio. One row
    per n holds every frame: each h of the slider gives the same counts (checked here)."""
    ns = sorted({*map(int, CONTEXTS), GPT2.context, costs.crossover_context(GPT2.d_model)})
    rows = []
    for n in ns:
        at_each_h = (costs.multiply_adds(n, GPT2.d_model, h) for h in CONTROL.values)
        counts = {(c.attention, c.projections) for c in at_each_h}
        if len(counts) != 1:  # one row per n would hide a difference between the frames
            raise ValueError(f"the multiply-adds at n = {n} depend on h: {sorted(counts)}")
        ((a, p),) = counts
        rows.append([str(n), f"{a:,}", f"{p:,}", f"{p / a:.2f}"])
    return ([pick(lang, "上下文长度 n", "context length n"),
             pick(lang, "注意力的乘加（滑块上每个 h 都一样）", "attention multiply-adds (the same for every h on the slider)"),
             pick(lang, "四个投影的乘加", "multiply-adds of the four projections"),
             pick(lang, "投影 / 注意力", "projections / attention")],
            rows)


def draw(lang: str, h: int):
    narrow = is_narrow()
    fig, ax = new_figure(4.6 if narrow else 3.6)
    ax.loglog(CONTEXTS, _series(1, "attention"), color="#BBBBBB", lw=7, solid_capstyle="round",
              label=pick(lang, f"注意力，1 个头（$d_k$ = {GPT2.d_model}）", f"attention, 1 head ($d_k$ = {GPT2.d_model})"))
    ax.loglog(CONTEXTS, _series(h, "attention"), color=HEAD_COLOURS["syntax"], lw=2,
              label=pick(lang, f"注意力，{h} 个头（$d_k$ = {GPT2.d_model // h}）",
                         f"attention, {plural(h, 'head')} ($d_k$ = {GPT2.d_model // h})"))
    ax.loglog(CONTEXTS, _series(h, "projections"), color=HEAD_COLOURS["position"], lw=2,
              label=pick(lang, "四个投影 Q、K、V、O", "the four projections Q, K, V, O"))
    at = costs.multiply_adds(GPT2.context, GPT2.d_model, h)
    ax.axvline(GPT2.context, color=MUTED, lw=0.8, ls=":")
    ax.plot([GPT2.context] * 2, [at.attention, at.projections], "o", color=INK, ms=4)
    if narrow:  # two lines, in the top left the key has left empty: right of the point it would run off
        gap, at_text = "\n", (CONTEXTS[0], at.projections * 8)
    else:
        gap, at_text = pick(lang, "", " "), (GPT2.context * 1.3, at.projections / 8)
    ax.annotate(pick(lang, f"$n$ = {GPT2.context}：{gap}投影 / 注意力 = {at.projections / at.attention:.1f}",
                     f"$n$ = {GPT2.context}:{gap}projections / attention = {at.projections / at.attention:.1f}"),
                xy=(GPT2.context, at.projections), xytext=at_text, fontsize=9,
                arrowprops={"arrowstyle": "->", "color": INK})
    cross = costs.crossover_context(GPT2.d_model)
    ax.axvline(cross, color=MUTED, lw=0.8, ls="--")
    ax.text(cross * 1.06, at.projections / 40, pick(lang, f"$n$ = {cross}：两者持平", f"$n$ = {cross}: equal cost"),
            fontsize=8.5, color=MUTED, va="center")
    ax.set_xlabel(pick(lang, "上下文长度 $n$（token 数）", "context length $n$ (tokens)"))
    ax.set_ylabel(pick(lang, "每个注意力块的乘加次数", "multiply-adds per attention block"))
    ticks = [64, 256, 1024, 4096]
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    if narrow:  # inside the plot the key would cover the curves
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=8.5)
    else:
        ax.legend(loc="upper left", fontsize=8.5)
    return fig
