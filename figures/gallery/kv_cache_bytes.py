"""kv-cache-bytes: the key/value cache of published configurations, MHA, GQA, MQA and MLA side by side.

One bar per row of costs.cache_per_token_rows(): Llama 3 70B as published (GQA) and recomputed with
every head its own key/value head (MHA) or a single one (MQA), Falcon-7B (MQA), DeepSeek-V3 as
published (MLA) and recomputed without its latent (MHA). Top (left on a wide page): the bytes each
token adds over all layers, at 16-bit floats; then what one sequence of n tokens keeps, in GiB, with
the slider over n. Rows never built are drawn hatched.
"""

from __future__ import annotations

from mha_ref import costs

from ..kit.control import Control
from ..kit.style import HEAD_COLOURS, INK, SLICE_COLOURS, is_narrow, new_figure
from ..kit.words import pick

ROWS = costs.cache_per_token_rows()
KIND_COLOURS = {"MHA": HEAD_COLOURS["syntax"], "GQA": HEAD_COLOURS["position"], "MQA": HEAD_COLOURS["rare"],
                "MLA": SLICE_COLOURS[4]}
CONTEXTS = (1024, 8192, 32768, 131072)


def _k(n: int) -> str:
    return f"{n // 1024}K"


CONTROL = Control(
    label_zh="上下文长度 n", label_en="context length n", values=CONTEXTS, start=CONTEXTS[-1],
    slug=lambda n: f"n{n}", value_label=lambda n, lang: _k(n),
)
CAPTION_ZH = (
    "几个已发布模型的[键值缓存](glossary.md#kv-cache)，每个数按 {{ value store.bits }} 位，和 `bfloat16` 一样占 {{ value store.bytes }} 个字节。"
    "“每个 token”那张：上下文里每多一个 token，所有层一共要多存多少 KiB；“一条序列”那张：$n$ 个 token 的缓存一共多少 GiB，"
    "{{ screen \"滑块改变 $n$\" print \"每一帧取一个 $n$\" }}。"
    "实心的是模型发布时的做法：Llama 3 70B 用 GQA（{{ value today.mla.llama70_kv_heads }} 个键值头），Falcon-7B 用 MQA，DeepSeek-V3 用 MLA；"
    "斜线的是同一个模型换一种做法算出来的，没有人这样造过：Llama 3 70B 每个头都有自己的键值头（MHA）或只有一个（MQA），"
    "DeepSeek-V3 不用潜向量、把每个头的键和值都存下来（MHA）。"
)
CAPTION_EN = (
    "The [key/value cache](glossary.md#kv-cache) of a few published models, at {{ value store.bits }}-bit numbers "
    "({{ value store.bytes }} bytes, as in `bfloat16`). The panel \"per token\": how many KiB each token of the context adds over all layers; "
    "the panel \"one sequence\": the whole cache of $n$ tokens in GiB, "
    "{{ screen \"with $n$ on the slider\" print \"one $n$ a frame\" }}. Solid bars are the models as published: "
    "Llama 3 70B uses GQA ({{ value today.mla.llama70_kv_heads }} key/value heads), Falcon-7B MQA, DeepSeek-V3 MLA. "
    "Hatched bars are the same model computed another way, never built: Llama 3 70B with a key/value head for every "
    "head (MHA) or a single one (MQA), and DeepSeek-V3 without its latent, keeping every head's keys and values (MHA)."
)


def _label(row, lang: str) -> str:
    return f"{row.name} · {row.kind}"


def sequence_gib(row, n: int) -> float:
    return row.bytes * n / 2 ** 30


def readout(lang: str, n: int) -> str:
    mla = next(r for r in ROWS if r.kind == "MLA")
    return pick(lang, f"n = {_k(n)} · {mla.name} 的 MLA 缓存 {sequence_gib(mla, n):.2f} GiB",
                f"n = {_k(n)} · {mla.name}'s MLA cache: {sequence_gib(mla, n):.2f} GiB")


def data(lang: str):
    """Every row: the model, its kind, whether it was built, numbers and bytes per token, GiB per sequence."""
    bits = 8 * costs.STORE_DTYPE.itemsize
    rows = [[r.name, r.kind, pick(lang, "是", "yes") if r.published else pick(lang, "否（换算）", "no (computed)"),
             f"{r.numbers:,}", f"{r.bytes:,}", *(f"{sequence_gib(r, n):,.2f}" for n in CONTEXTS)] for r in ROWS]
    return ([pick(lang, "模型", "model"), pick(lang, "做法", "kind"), pick(lang, "发布的做法", "as published"),
             pick(lang, "每个 token 缓存的数（所有层）", "numbers per token (all layers)"),
             pick(lang, f"每个 token 的字节（{bits} 位）", f"bytes per token ({bits}-bit)"),
             *(pick(lang, f"{_k(n)} 个 token 的 GiB", f"GiB for {_k(n)} tokens") for n in CONTEXTS)],
            rows)


def _bars(ax, values, lang: str, fmt, top: float) -> None:
    y = range(len(ROWS))
    for i, (row, v) in enumerate(zip(ROWS, values)):
        colour = KIND_COLOURS[row.kind]
        if row.published:
            ax.barh(i, v, height=0.7, color=colour, zorder=2)
        else:
            ax.barh(i, v, height=0.7, color="none", edgecolor=colour, hatch="///", lw=1.2, zorder=2)
        ax.text(v + top * 0.02, i, fmt(v), va="center", fontsize=8.5, color=INK)
    ax.set_xlim(0, top * 1.32)
    ax.set_yticks(list(y), [_label(r, lang) for r in ROWS], fontsize=8.5)
    ax.grid(axis="x", color="#e6e6e6", lw=0.8, zorder=0)


def draw(lang: str, n: int):
    narrow = is_narrow()
    if narrow:
        fig, (token, seq) = new_figure(6.4, nrows=2)
    else:
        fig, (token, seq) = new_figure(3.4, ncols=2, sharey=True)
    kib = [r.bytes / 2 ** 10 for r in ROWS]
    _bars(token, kib, lang, lambda v: f"{v:,.1f}", max(kib))
    token.set_xlabel("KiB")
    token.set_title(pick(lang, "每个 token（所有层）", "per token (all layers)"), fontsize=9.5)
    longest = [sequence_gib(r, CONTEXTS[-1]) for r in ROWS]
    _bars(seq, [sequence_gib(r, n) for r in ROWS], lang, lambda v: f"{v:,.1f}", max(longest))
    seq.set_xlabel("GiB")
    seq.set_title(pick(lang, f"一条序列，n = {_k(n)}", f"one sequence, n = {_k(n)}"), fontsize=9.5)
    token.invert_yaxis()  # the rows top down, in ROWS' order
    if narrow:
        seq.invert_yaxis()
    else:  # one y axis, shared: inverted once, named once
        seq.tick_params(labelleft=False)
    return fig
