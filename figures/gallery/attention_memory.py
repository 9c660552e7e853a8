"""attention-memory: the cost the multiply-add count hides, h n^2 weights per layer, for GPT-2 small.

Against the context length n, for several head counts h: on the left the multiply-adds of Q K^T
and of weights @ V (one curve for every h), on the right the entries of the h weight tables, one
exponential each and all kept in memory by a standard implementation (a line per h, h times the
one-head line). The point at GPT-2 small's own context is also given in bytes, at 16-bit floats.
"""

from __future__ import annotations

import numpy as np

from mha_ref import costs, models

from ..kit.style import HEAD_COLOURS, INK, MUTED, SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick

GPT2 = models.model("GPT-2 small")
CONTEXTS = 2 ** np.arange(6, 14)  # 64 ... 8192 tokens
HS = (1, 4, GPT2.heads, 48)  # head counts that cut 768 evenly; GPT-2 small's own among them
# one colour per h, the same in both panels; the widest stroke first, so that equal curves all show
COLOURS = dict(zip(HS, ("#BBBBBB", HEAD_COLOURS["rare"], HEAD_COLOURS["syntax"], SLICE_COLOURS[4])))
WIDTHS = dict(zip(HS, (10.0, 6.5, 3.6, 1.4)))
CONTROL = None
CAPTION_ZH = (
    "GPT-2 small（$d_\\text{model}$ = {{ value gpt2.d_model }}）一层注意力的两笔账随上下文长度 $n$ 的变化，"
    "各取几种头数 $h$。“乘加次数”那张：$QK^\\top$ 与加权求和各要多少次乘加，不同的 $h$ 画出的是同一条线。"
    "“权重表的格数”那张：$h$ 张权重表的格数 $h\\,n^2$，每格要求一次指数，标准实现还要全部存下来；每条线都是单头那条的 $h$ 倍。"
    "在 $n$ = {{ value gpt2.context d }}、$h$ = {{ value gpt2.h }} 时是 {{ value gpt2.weights_all_heads }} 格，"
    "按每个数 {{ value store.bits }} 位算，一个序列在这一层就要 {{ value gpt2.weights_all_heads_mib }} MiB。"
    "模型本身最长只读 {{ value gpt2.context d }} 个 token，更长的部分是按它的宽度外推的。"
)
CAPTION_EN = (
    "Two bills of one attention layer of GPT-2 small ($d_\\text{model}$ = {{ value gpt2.d_model }}) against the "
    "context length $n$, for several head counts $h$. The panel \"multiply-adds\": those of $QK^\\top$ and of the weighted "
    "sum; every $h$ draws the same curve. The panel \"weight entries\": the $h\\,n^2$ entries of the $h$ weight tables, one exponential "
    "each and all kept in memory by a standard implementation; each line is $h$ times the one-head line. At "
    "$n$ = {{ value gpt2.context d }} and $h$ = {{ value gpt2.h }} that is {{ value gpt2.weights_all_heads }} "
    "entries, {{ value gpt2.weights_all_heads_mib }} MiB for one sequence in this layer at "
    "{{ value store.bits }}-bit floats. The model itself reads at most {{ value gpt2.context d }} tokens; longer "
    "contexts extrapolate its width."
)


def _multiply_adds(h: int) -> np.ndarray:
    return np.array([costs.multiply_adds(int(n), GPT2.d_model, h).attention for n in CONTEXTS], dtype=float)


def _weights(h: int) -> np.ndarray:
    return np.array([costs.attention_weights(int(n), h) for n in CONTEXTS], dtype=float)


def _mib(count: int) -> str:
    """A count of numbers as MiB at the pages' 16-bit floats."""
    return f"{costs.bytes_of(count) / 2 ** 20:,.3g}"


def data(lang: str):
    """The two panels at every n: the multiply-adds (checked equal for every h drawn), the weight
    entries of each h, and GPT-2 small's own h in MiB at 16 bits."""
    rows = []
    for n in map(int, CONTEXTS):
        ops = {costs.multiply_adds(n, GPT2.d_model, h).attention for h in HS}
        if len(ops) != 1:  # one column for every h would hide a difference
            raise ValueError(f"the multiply-adds at n = {n} depend on h: {sorted(ops)}")
        rows.append([str(n), f"{ops.pop():,}", *(f"{costs.attention_weights(n, h):,}" for h in HS),
                     _mib(costs.attention_weights(n, GPT2.heads))])
    bits = 8 * costs.STORE_DTYPE.itemsize
    return ([pick(lang, "上下文长度 n", "context length n"),
             pick(lang, "乘加次数（每个 h 都一样）", "multiply-adds (the same for every h)"),
             *(pick(lang, f"权重格数，h = {h}", f"weight entries, h = {h}") for h in HS),
             pick(lang, f"h = {GPT2.heads} 的权重，MiB（{bits} 位）", f"weights at h = {GPT2.heads}, MiB ({bits}-bit)")],
            rows)


def _ticks(ax) -> None:
    ticks = [64, 256, 1024, 4096]
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.axvline(GPT2.context, color=MUTED, lw=0.8, ls=":")


def draw(lang: str, value=None):
    narrow = is_narrow()
    fig, (ops, mem) = new_figure(6.4 if narrow else 3.6, nrows=2 if narrow else 1, ncols=1 if narrow else 2)
    for h in HS:
        ops.loglog(CONTEXTS, _multiply_adds(h), color=COLOURS[h], lw=WIDTHS[h], solid_capstyle="butt")
        mem.loglog(CONTEXTS, _weights(h), color=COLOURS[h], lw=2)
        mem.text(CONTEXTS[-1] * 1.25, _weights(h)[-1], f"$h$ = {h}", color=INK, fontsize=8.5, va="center")
    listed = ", ".join(str(h) for h in HS)
    ops.text(0.04, 0.95, pick(lang, f"$h$ = {listed}：\n同一条线", f"$h$ = {listed}:\none curve"),
             transform=ops.transAxes, va="top", fontsize=8.5, color=INK)
    ops.set_title(pick(lang, "乘加次数（$QK^\\top$ 与加权求和）", "multiply-adds ($QK^\\top$, weighted sum)"),
                  fontsize=9.5)
    mem.set_title(pick(lang, "权重表的格数：求指数、要存储", "weight entries: exponentials, memory"), fontsize=9.5)
    for ax in (ops, mem):
        _ticks(ax)
        ax.set_xlabel(pick(lang, "上下文长度 $n$", "context length $n$"))
    mem.set_xlim(CONTEXTS[0] / 1.3, CONTEXTS[-1] * 4.5)  # room for the h labels at the right
    # GPT-2 small's own point, in entries and in bytes
    here = costs.attention_weights(GPT2.context, GPT2.heads)
    bits = 8 * costs.STORE_DTYPE.itemsize
    mem.plot([GPT2.context], [here], "o", color=INK, ms=4)
    mem.annotate(pick(lang, f"$n$ = {GPT2.context}，$h$ = {GPT2.heads}：\n{here:,} 格\n= {_mib(here)} MiB（{bits} 位）",
                      f"$n$ = {GPT2.context}, $h$ = {GPT2.heads}:\n{here:,} entries\n= {_mib(here)} MiB at {bits}-bit"),
                 xy=(GPT2.context, here), xytext=(0.03, 0.97), textcoords="axes fraction", va="top", fontsize=8.5,
                 arrowprops={"arrowstyle": "->", "color": INK})
    return fig
