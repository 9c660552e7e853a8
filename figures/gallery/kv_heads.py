"""kv-heads: multi-query and grouped-query attention at Llama 3 8B's width, one frame per key/value head count.

Top: which query heads share which key/value head. Below, for every key/value head count that
divides the 32 query heads (1 is multi-query attention, 32 plain multi-head attention, 8 what
Llama 3 8B uses): the weights of W_K and W_V in one layer, and what each token adds to the
key/value cache over all layers, at 16-bit floats. The chosen count is coloured.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.ticker import MultipleLocator

from mha_ref import costs, models

from ..kit.control import Control, divisors
from ..kit.draw import wrapped
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick, plural

M = models.model("Llama 3 8B")
KV_HEADS = divisors(M.heads)
SHADES = (HEAD_COLOURS["position"], "#56B4E9")  # neighbouring groups alternate
# The counts not selected: a grey at 3.4:1 on white, and (greys are turned over, figures/engine/dark.py)
# on the slate background too, above the 3:1 WCAG asks of a graphic a reader must make out.
OTHERS = "#8c8c8c"


def _variant(kv: int, lang: str) -> str:
    """What a key/value head count is called: multi-query, plain multi-head, or grouped-query."""
    if kv == 1:
        return "MQA"
    if kv == M.heads:
        return "MHA"
    return pick(lang, f"GQA（{M.name.rsplit(' ', 1)[0]}）", f"GQA ({M.name.rsplit(' ', 1)[0]})") if kv == M.kv_heads else "GQA"


CONTROL = Control(
    label_zh="键值头数", label_en="key/value heads", values=KV_HEADS, start=M.kv_heads,
    slug=lambda kv: f"kv{kv}", value_label=lambda kv, lang: f"{kv} · {_variant(kv, lang)}",
)
CAPTION_ZH = (
    "按 Llama 3 8B 的尺寸（$d_\\text{model}$ = {{ value llama3.d_model d }}，{{ value llama3.layers }} 层，"
    "{{ value llama3.heads }} 个查询头，每个头宽 {{ value llama3.d_k }}）比较键值头的几种数目。"
    "方块那张（一排查询头，一排键值头）：哪些查询头共用同一个键值头。"
    "“每层 $W^K$、$W^V$ 的权重”那张：这两块矩阵每层有多少权重；“每个 token 的缓存”那张：上下文里每多一个 token，"
    "所有层的键值缓存要多存多少字节（每个数 {{ value store.bits }} 位）。"
    "键值头只有一个是多查询注意力（MQA），和查询头一样多是普通多头注意力（MHA），Llama 3 8B 用的是 "
    "{{ value llama3.kv_heads }} 个；{{ screen \"滑块选中的\" print \"每一帧的\" }}那一档上了色。"
)
CAPTION_EN = (
    "Numbers of key/value heads compared at Llama 3 8B's size ($d_\\text{model}$ = {{ value llama3.d_model d }}, "
    "{{ value llama3.layers }} layers, {{ value llama3.heads }} query heads of width {{ value llama3.d_k }}). "
    "The panel of boxes (a row of query heads, a row of key/value heads): which query heads share which "
    "key/value head. The \"weights\" panel: those of $W^K$ and $W^V$ in one layer; the \"cache per token\" "
    "panel: how many bytes each token of the context adds to the key/value cache over all "
    "layers, at {{ value store.bits }}-bit floats. One key/value head is multi-query attention (MQA), as many "
    "as query heads is plain multi-head attention (MHA), and Llama 3 8B uses {{ value llama3.kv_heads }}; "
    "{{ screen \"the count the slider selects\" print \"each frame's count\" }} is coloured."
)


def _kv_weights(kv: int) -> int:
    return costs.kv_param_count(M.d_model, M.heads, kv, bias=False)


def _cache_bytes(kv: int) -> int:
    return costs.bytes_of(costs.kv_cache_per_token(M.d_model, M.heads, kv, layers=M.layer_count))


def _kib(n_bytes: float) -> str:
    return f"{n_bytes / 2 ** 10:,g} KiB"


def _millions(n: int) -> str:
    return f"{n / 1e6:.1f}M"


def readout(lang: str, kv: int) -> str:
    group = M.heads // kv
    return pick(lang,
                f"{kv} 个键值头 · 每个供 {group} 个查询头 · 每层 W_K、W_V {_kv_weights(kv):,} 个权重 · "
                f"每个 token 缓存 {_cache_bytes(kv):,} 字节",
                f"{plural(kv, 'key/value head')} · each serves {plural(group, 'query head')} · "
                f"W_K, W_V: {_kv_weights(kv):,} weights a layer · cache: {_cache_bytes(kv):,} bytes a token")


def data(lang: str):
    """One row per key/value head count: the sharing, the weights and the cache the figure draws."""
    bits = 8 * costs.STORE_DTYPE.itemsize
    rows = [[str(kv), _variant(kv, lang), str(M.heads // kv), f"{_kv_weights(kv):,}",
             f"{costs.param_count(M.d_model, M.heads, kv_heads=kv, bias=False):,}",
             f"{costs.kv_cache_per_token(M.d_model, M.heads, kv, layers=M.layer_count):,}",
             f"{_cache_bytes(kv):,}"] for kv in KV_HEADS]
    return ([pick(lang, "键值头数", "key/value heads"), pick(lang, "做法", "variant"),
             pick(lang, "每个键值头供几个查询头", "query heads per key/value head"),
             pick(lang, "每层 W_K、W_V 的权重", "weights of W_K and W_V per layer"),
             pick(lang, "每层注意力块的全部权重", "all weights of one attention block"),
             pick(lang, f"每个 token 缓存的数（{M.layer_count} 层）", f"numbers cached per token ({M.layer_count} layers)"),
             pick(lang, f"每个 token 缓存的字节（{bits} 位）", f"bytes cached per token ({bits}-bit)")],
            rows)


def _sharing(ax, kv: int, lang: str) -> None:
    """Query heads in a row above, key/value heads below, each as wide as the group it serves."""
    group = M.heads // kv
    for i in range(M.heads):
        colour = SHADES[(i // group) % 2]
        ax.add_patch(Rectangle((i + 0.1, 1.0), 0.8, 0.8, color=colour, lw=0))
        ax.plot([i + 0.5, i + 0.5], [0.8, 1.0], color=MUTED, lw=0.6)
    for g in range(kv):
        ax.add_patch(Rectangle((g * group + 0.1, 0.0), group - 0.2, 0.8, color=SHADES[g % 2], lw=0))
    ax.set_xlim(0, M.heads)
    ax.set_ylim(-0.1, 1.9)
    ax.set_xticks([])
    ax.set_yticks([0.4, 1.4], [pick(lang, f"{kv} 个键值头", plural(kv, "key/value head")),
                               pick(lang, f"{M.heads} 个查询头", plural(M.heads, "query head"))], fontsize=8.5)
    ax.tick_params(length=0)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    if kv == M.heads:
        title = pick(lang, "每个查询头有自己的键和值（MHA）", "every query head has its own keys and values (MHA)")
    elif kv == 1:
        title = pick(lang, f"{M.heads} 个查询头共用一组键和值（MQA）", f"all {M.heads} query heads share one key/value head (MQA)")
    else:
        title = pick(lang, f"每 {group} 个查询头共用一个键值头（GQA）", f"every {group} query heads share one key/value head (GQA)")
    ax.set_title(wrapped(title, 40) if is_narrow() else title, fontsize=9.5)  # two lines on a phone


def _bars(ax, kv: int, values: list[int], label, lang: str, title: str) -> None:
    x = np.arange(len(KV_HEADS))
    here = KV_HEADS.index(kv)
    ax.bar(x, values, width=0.7, color=OTHERS)
    ax.bar([here], [values[here]], width=0.7, color=HEAD_COLOURS["position"])
    ax.text(here, values[here] + max(values) * 0.03, label(values[here]), ha="center", va="bottom",
            fontsize=8.5, color=INK)
    names = {1: "MQA", M.kv_heads: M.name.rsplit(" ", 1)[0], M.heads: "MHA"}
    ax.set_xticks(x, [f"{k}\n{names[k]}" if k in names else str(k) for k in KV_HEADS], fontsize=8.5)
    ax.set_ylim(0, max(values) * 1.18)
    ax.set_xlabel(pick(lang, "键值头数", "key/value heads"))
    ax.set_title(title, fontsize=9.5)


def draw(lang: str, kv: int):
    if is_narrow():  # a phone's width holds one panel across: the sharing, then the two bar charts
        fig, (plan, weights_ax, cache_ax) = new_figure(7.0, nrows=3, height_ratios=[0.9, 2, 2])
    else:
        fig, axes = new_figure(4.4, nrows=2, ncols=2, height_ratios=[1, 2.2])
        for ax in axes[0]:  # the top row becomes one panel across both columns
            ax.remove()
        plan = fig.add_subplot(axes[1, 0].get_gridspec()[0, :])
        weights_ax, cache_ax = axes[1]
    _sharing(plan, kv, lang)
    _bars(weights_ax, kv, [_kv_weights(k) for k in KV_HEADS], _millions, lang,
          pick(lang, "每层 $W^K$、$W^V$ 的权重", "weights of $W^K$, $W^V$ per layer"))
    weights_ax.yaxis.set_major_formatter(lambda v, _: _millions(v) if v else "0")
    bits = 8 * costs.STORE_DTYPE.itemsize
    _bars(cache_ax, kv, [_cache_bytes(k) for k in KV_HEADS], _kib, lang,
          pick(lang, f"每个 token 的缓存（{M.layer_count} 层，{bits} 位）",
               f"cache per token ({M.layer_count} layers, {bits}-bit)"))
    cache_ax.yaxis.set_major_locator(MultipleLocator(2 ** 17))  # every 128 KiB
    cache_ax.yaxis.set_major_formatter(lambda v, _: _kib(v) if v else "0")
    return fig
