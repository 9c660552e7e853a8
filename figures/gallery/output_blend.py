"""output-blend: what blending costs in the output, not only in the weights.

The blended head of blend-slider, at ratio 0.5, given the position head's and the syntax head's
value blocks side by side, returns as many numbers as the two heads together; but each of them is
a·v_and + b·v_ran (plus a little of the other tokens). The two heads return v_and's part in the
position head's slots and v_ran's in the syntax head's. Beside the sentence, a twin whose input
rows for `and` and `ran` are changed so that their keys stay and their values both become
m = (a v_and + b v_ran) / (a + b): the one head's output is unchanged, the two heads' is not. The
blended output cannot say which of the two inputs it came from.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from mha_ref.example import one_head, toy

from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, INK, MUTED, is_narrow, new_figure
from ..kit.words import pick

CONTROL = None
QUERY = "it"
ALPHA = float(toy.blend_ratios()[toy.BLEND_STEPS // 2])  # the blend slider's middle stop
CAPTION_ZH = (
    "混合比例为 {{ value blend.mid_ratio .2f }} 时，一个头对 `it` 交出的 {{ value blend.out_width }} 个数（每栏最后一行），"
    "和两个头合起来交出的数（每栏倒数第二行）。两边读的是同一组值向量：单头的值块就是两个头的值块并排，交出的数一样多。"
    "单头的每一个数都是 $a\\,v_\\text{and} + b\\,v_\\text{ran}$ 再加上一点别的词；"
    "两个头则把 `and` 的值放进位置头的格子，把 `ran` 的值放进句法头的格子。"
    "第二栏是改过的输入：只改 `and` 和 `ran` 两行，让它们在这两个头里的键不变、值都变成同一个 $m$；"
    "符号 = 和 ≠ 把这一栏的每一行与第一栏的同一行相比："
    "两个头的输出变了，单头的输出一点没变。"
)
CAPTION_EN = (
    "At blend ratio {{ value blend.mid_ratio .2f }}: the {{ value blend.out_width }} numbers one head "
    "returns for `it` (the last row of each panel) and the numbers two heads return between them (the "
    "row before it). Both read "
    "the same value vectors: the one head's value block is the two heads' blocks side by side, so it "
    "returns as many numbers. Each of its numbers is $a\\,v_\\text{and} + b\\,v_\\text{ran}$ plus a "
    "little of the other words; the two heads put `and`'s value in the position head's slots and "
    "`ran`'s in the syntax head's. The second panel has twin inputs: only the rows of `and` and `ran` "
    "are changed, so that in these two heads their keys stay as they were and both their values "
    "become $m$; = and ≠ compare each of its rows with the same row of the first panel. The two "
    "heads' output changes; the one head's does not change at all."
)

CELL = 0.5  # inches per output number
PANELS = ("sentence", "twin")  # the tags of the drawn numbers: <panel>-<row>-<slot>
ROWS = ("first-answer", "second-answer", "two-heads", "one-head")
ROW = 0.5  # inches per row of cells


def _blend_colour() -> tuple[float, float, float]:
    """The blend slider's bar colour at ALPHA: the position head's blue moved towards the syntax head's orange."""
    return tuple((1 - ALPHA) * np.array(to_rgb(HEAD_COLOURS["position"])) + ALPHA * np.array(to_rgb(HEAD_COLOURS["syntax"])))


def _situations():
    """(values, the two heads' output, the one head's output) for the sentence and for its twin,
    whose inputs for `and` and `ran` are changed so that both carry m (one_head.blend_twin_inputs)."""
    return [(one_head.blend_values(x), one_head.two_head_output(QUERY, x), one_head.blend_output(ALPHA, QUERY, x))
            for x in (None, one_head.blend_twin_inputs(ALPHA, QUERY))]


def _rows(lang: str):
    """The four rows of each panel: (label, which numbers of a situation, cell colours)."""
    p, s = one_head.rule_answers(QUERY)
    w = toy.blend_weights(ALPHA)[toy.token_index(QUERY)]
    t = toy.trace().weights
    on_p = t[toy.head_index("position")][toy.token_index(QUERY), toy.token_index(p)]
    on_s = t[toy.head_index("syntax")][toy.token_index(QUERY), toy.token_index(s)]
    halves = [HEAD_COLOURS["position"]] * toy.D_K + [HEAD_COLOURS["syntax"]] * toy.D_K
    # the half of each value that one of the two heads reads is tinted as strongly as that head's output
    read_p = [0.35] * toy.D_K + [0.1] * toy.D_K
    read_s = [0.1] * toy.D_K + [0.35] * toy.D_K
    rest = 1 - w[toy.token_index(p)] - w[toy.token_index(s)]
    return [
        (pick(lang, f"{p} 带的值 $v_\\mathrm{{{p}}}$", f"what “{p}” carries, $v_\\mathrm{{{p}}}$"),
         lambda sit: sit[0][toy.token_index(p)], halves, read_p),
        (pick(lang, f"{s} 带的值 $v_\\mathrm{{{s}}}$", f"what “{s}” carries, $v_\\mathrm{{{s}}}$"),
         lambda sit: sit[0][toy.token_index(s)], halves, read_s),
        (pick(lang, f"两个头：位置头 | 句法头\n（{decimals(on_p)} 在 {p} 上 | {decimals(on_s)} 在 {s} 上）",
              f"two heads: position | syntax\n({decimals(on_p)} on {p} | {decimals(on_s)} on {s})"),
         lambda sit: sit[1], halves, [0.35] * (2 * toy.D_K)),
        (pick(lang, f"一个头，混合比例 {ALPHA:.2f}\n（{p} {decimals(w[toy.token_index(p)])}，{s} {decimals(w[toy.token_index(s)])}，"
                    f"其余 {decimals(rest)}）",
              f"one head, blend {ALPHA:.2f}\n({p} {decimals(w[toy.token_index(p)])}, {s} {decimals(w[toy.token_index(s)])}, "
              f"rest {decimals(rest)})"),
         lambda sit: sit[2], [_blend_colour()] * (2 * toy.D_K), [0.35] * (2 * toy.D_K)),
    ]


def _panels(lang: str) -> tuple[str, str]:
    p, s = one_head.rule_answers(QUERY)
    return (pick(lang, "这句话里的值", "the sentence's values"),
            pick(lang, f"改过的输入：{p} 和 {s} 都带 $m$", f"twin inputs: “{p}” and “{s}” both carry $m$"))


def _plain(text: str, lang: str) -> str:
    """A figure label as table text: one line, its mathtext written out ("$v_\\mathrm{and}$" -> "v_and")."""
    text = text.replace("\n", "" if lang == "zh" else " ")
    for tex in ("$", "\\mathrm", "{", "}"):
        text = text.replace(tex, "")
    return text


def data(lang: str):
    """Both panels, row by row: what `and` and `ran` carry, the two heads' output, the one head's.
    Three decimals, one more than the figure: the one head's rows agree there too."""
    rows = [[_plain(panel, lang), _plain(label, lang), *(decimals(v, 3) for v in numbers(sit))]
            for panel, sit in zip(_panels(lang), _situations()) for label, numbers, _, _ in _rows(lang)]
    return ([pick(lang, "情形", "situation"), pick(lang, "行", "row"),
             *(pick(lang, f"第 {c + 1} 格", f"slot {c + 1}") for c in range(2 * toy.D_K))], rows)


def _strip(ax, x0: float, y: float, numbers, colours, alphas, cell: float = CELL, gid: str = ""):
    """One row of output numbers, a cell each, tinted by the head (or blend) they come from; each
    number's text is tagged `gid`-<slot> (the tests read them back)."""
    for c, (v, colour, alpha) in enumerate(zip(numbers, colours, alphas)):
        ax.add_patch(Rectangle((x0 + c * cell + 0.02, y - ROW * 0.36), cell - 0.04, ROW * 0.72,
                               facecolor=colour, alpha=alpha, edgecolor="none"))
        ax.add_patch(Rectangle((x0 + c * cell + 0.02, y - ROW * 0.36), cell - 0.04, ROW * 0.72,
                               facecolor="none", edgecolor=MUTED, lw=0.6))
        ax.text(x0 + (c + 0.5) * cell, y, decimals(v), ha="center", va="center", fontsize=9, color=INK,
                gid=f"{gid}-{c}")


def _same(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=0, atol=1e-12))


def draw(lang: str, value=None):
    narrow = is_narrow()
    rows, panels, sits = _rows(lang), _panels(lang), _situations()
    fig, ax = new_figure()
    width = fig.get_size_inches()[0] - 0.1
    strip_w = 2 * toy.D_K * CELL
    p, s = one_head.rule_answers(QUERY)
    m_note = f"$m = (a\\,v_\\mathrm{{{p}}} + b\\,v_\\mathrm{{{s}}})\\,/\\,(a + b)$"
    if narrow:  # the panels one above the other, each row's label above its cells
        cell, y = (width - 0.4) / (2 * toy.D_K), 0.15
        for k, (panel, sit) in enumerate(zip(panels, sits)):
            ax.text(0, y, panel, fontsize=9.5, va="center", color=INK)
            if k:
                y += 0.27
                ax.text(0, y, m_note, fontsize=8.5, va="center", color=MUTED)
            y += 0.2
            for tag, (label, numbers, colours, alphas) in zip(ROWS, rows):
                ax.text(0, y, label, fontsize=8.5, va="top", color=INK, linespacing=1.1)
                y += 0.17 * (label.count("\n") + 1) + 0.05 + ROW * 0.36
                _strip(ax, 0, y, numbers(sit), colours, alphas, cell, gid=f"{PANELS[k]}-{tag}")
                if k:  # how each row of the twin compares with the sentence's
                    same = _same(numbers(sit), numbers(sits[0]))
                    ax.text(width - 0.2, y, "=" if same else "≠", fontsize=12, ha="center", va="center",
                            color=INK if same else MUTED, gid=f"compare-{tag}")
                y += ROW * 0.36 + 0.1
            y += 0.25
        bottom = y - 0.25
    else:
        label_w = width - 2 * strip_w - 0.45
        x_twin = label_w + strip_w + 0.45
        y = 0.2
        for x, panel in zip((label_w, x_twin), panels):
            ax.text(x + strip_w / 2, y, panel, fontsize=9.5, ha="center", va="center", color=INK)
        ax.text(x_twin + strip_w / 2, y + ROW * 0.55, m_note, fontsize=8.5, ha="center", va="center", color=MUTED)
        y += ROW * 1.3
        for tag, (label, numbers, colours, alphas) in zip(ROWS, rows):
            ax.text(0, y, label, fontsize=8.5, va="center", color=INK, linespacing=1.1)
            for x, panel, sit in zip((label_w, x_twin), PANELS, sits):
                _strip(ax, x, y, numbers(sit), colours, alphas, gid=f"{panel}-{tag}")
            same = _same(numbers(sits[1]), numbers(sits[0]))
            ax.text(label_w + strip_w + 0.225, y, "=" if same else "≠", fontsize=12, ha="center", va="center",
                    color=INK if same else MUTED, gid=f"compare-{tag}")
            y += ROW * 1.2
        bottom = y - ROW * 0.4
    ax.set_xlim(0, width)
    ax.set_ylim(bottom, 0)
    ax.axis("off")
    fig.set_size_inches(fig.get_size_inches()[0], bottom + 0.1)  # as tall as the rows drawn: an inch is an inch
    return fig
