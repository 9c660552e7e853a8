"""tile-memory: what the whole tables of scores take against what the tiles hold, as the context grows.

GPT-2 small's width and heads, as attention-memory on page 6 draws them. Top (left on a wide page):
the numbers one layer holds besides q, k and v, in MiB at 16-bit floats, against the context length
n: every head's n x n table (costs.attention_weights), and every head's tiles, one tile of n x block
scores with the running maximum, denominator and output (costs.flash_numbers). Then how many times
more the tables hold, which grows in proportion to n.
"""

from __future__ import annotations

import numpy as np

from mha_ref import costs
from mha_ref.example import tiles

from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTEXTS = 2 ** np.arange(6, 18)  # 64 ... 131072 tokens
GPT2 = tiles.GPT2
TABLE, TILES = HEAD_COLOURS["syntax"], HEAD_COLOURS["position"]
CONTROL = None
CAPTION_ZH = (
    "按 GPT-2 small 的宽度和头数（$h$ = {{ value gpt2.h }}，头宽 {{ value gpt2.d_k }}），一层注意力除了 $q$、$k$、$v$ 之外还要存多少个数，"
    "随上下文长度 $n$ 的变化，按每个数 {{ value store.bits }} 位折成 MiB。"
    "“整张表”是每个头一张 $n \\times n$ 的分数表，就是[代价那一页](what-it-costs.md#fig-attention-memory)的权重表格数；"
    "“分块”是每个头一块 $n \\times {{ value today.tiles.memory_block }}$ 的分数，加上每个查询的 $m$、$l$ 和到目前为止的输出。"
    "另一张是两者之比：上下文比一块还长以后，上下文每长一倍，它也翻一倍；上下文不超过一块时，分块存的反倒比整张表多。"
    "模型本身最长只读 {{ value gpt2.context d }} 个 token，更长的部分是按它的宽度外推的。"
)
CAPTION_EN = (
    "What one attention layer holds besides $q$, $k$ and $v$, at GPT-2 small's width and heads ($h$ = {{ value gpt2.h }}, "
    "head width {{ value gpt2.d_k }}), against the context length $n$, in MiB at {{ value store.bits }}-bit floats. "
    "\"Whole tables\": an $n \\times n$ table of scores for every head, the weight entries of "
    "the figure of [What it costs](what-it-costs.md#fig-attention-memory). \"Tiles\": for every head one tile of "
    "$n \\times {{ value today.tiles.memory_block }}$ scores, with each query's $m$, $l$ and output so far. "
    "The other panel is their ratio: once the context is longer than a tile, each doubling of the context doubles it; "
    "up to one tile, the tiles hold more than the tables. The model itself reads at most "
    "{{ value gpt2.context d }} tokens; longer contexts extrapolate its width."
)


table_numbers, tile_numbers = tiles.layer_table_numbers, tiles.layer_tile_numbers


def _mib(count: int) -> float:
    return costs.bytes_of(count) / 2 ** 20


def data(lang: str):
    """At every n: both counts, in numbers and MiB, and their ratio."""
    rows = [[str(n), f"{table_numbers(n):,}", f"{_mib(table_numbers(n)):,.3g}", f"{tile_numbers(n):,}",
             f"{_mib(tile_numbers(n)):,.3g}", f"{table_numbers(n) / tile_numbers(n):,.1f}"] for n in map(int, CONTEXTS)]
    bits = 8 * costs.STORE_DTYPE.itemsize
    return ([pick(lang, "上下文长度 n", "context length n"),
             pick(lang, "整张表：数的个数", "whole tables: numbers"), pick(lang, f"整张表：MiB（{bits} 位）", f"whole tables: MiB ({bits}-bit)"),
             pick(lang, "分块：数的个数", "tiles: numbers"), pick(lang, f"分块：MiB（{bits} 位）", f"tiles: MiB ({bits}-bit)"),
             pick(lang, "整张表是分块的几倍", "tables / tiles")],
            rows)


def _ticks(ax, lang: str) -> None:
    ticks = [64, 1024, 16384, 131072]
    ax.set_xticks(ticks, ["64", "1024", "16K", "128K"])
    ax.minorticks_off()
    ax.axvline(GPT2.context, color=MUTED, lw=0.8, ls=":")
    ax.set_xlabel(pick(lang, "上下文长度 $n$", "context length $n$"))


def draw(lang: str, value=None):
    narrow = is_narrow()
    fig, (mem, ratio) = new_figure(6.2 if narrow else 3.4, nrows=2 if narrow else 1, ncols=1 if narrow else 2)
    table = np.array([_mib(table_numbers(int(n))) for n in CONTEXTS])
    tiled = np.array([_mib(tile_numbers(int(n))) for n in CONTEXTS])
    mem.loglog(CONTEXTS, table, color=TABLE, lw=2)
    mem.loglog(CONTEXTS, tiled, color=TILES, lw=2)
    mem.text(CONTEXTS[-3], table[-3] * 2.2, pick(lang, "整张表", "whole tables"), color=INK, fontsize=8.5, ha="right")
    mem.text(CONTEXTS[-3], tiled[-3] / 3.2, pick(lang, "分块", "tiles"), color=INK, fontsize=8.5, ha="left")
    mem.set_ylabel("MiB")
    mem.set_title(pick(lang, f"一层要存的数（{GPT2.heads} 个头）", f"held by one layer ({GPT2.heads} heads)"), fontsize=9.5)
    ratios = table / tiled
    ratio.loglog(CONTEXTS, ratios, color=INK, lw=2)
    at = int(np.where(CONTEXTS == GPT2.context)[0][0])
    for i in (at, len(CONTEXTS) - 1):
        ratio.plot([CONTEXTS[i]], [ratios[i]], "o", color=INK, ms=4)
        ratio.annotate(f"{ratios[i]:,.0f}×" if ratios[i] >= 10 else f"{ratios[i]:.1f}×", (CONTEXTS[i], ratios[i]),
                       xytext=(-6, 6), textcoords="offset points", ha="right", fontsize=8.5, color=INK)
    ratio.set_title(pick(lang, "整张表是分块的几倍", "tables over tiles"), fontsize=9.5)
    for ax in (mem, ratio):
        _ticks(ax, lang)
    return fig
