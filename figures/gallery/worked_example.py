"""worked-example: one query through one head, every number of the attention formula on the page.

The query `it`, one head at a time: its input row x and the head's two columns of W_Q give q; q
meets every key, the dot products are divided by sqrt(d_k), the softmax turns them into weights,
and the weighted values add up to the head's two output numbers: the very numbers concat-slots
places in that head's slots. Computed step by step by one_head.worked_example, not read off the trace.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from mha_ref.example import one_head, toy

from ..kit.control import Control
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, HEAD_NAMES, INK, MUTED, QUERY_BOX, is_narrow, new_figure
from ..kit.words import pick

QUERY = "it"  # the query concat-slots follows: each frame ends in that head's slots there
CONTROL = Control(
    label_zh="头", label_en="head", values=tuple(range(toy.H)), start=0,
    slug=lambda i: f"head{i + 1}-{toy.HEADS[i]}",
    value_label=lambda i, lang: pick(lang, f"头 {i + 1} · {HEAD_NAMES[toy.HEADS[i]][0]}",
                                     f"head {i + 1} · {HEAD_NAMES[toy.HEADS[i]][1]}"),
)
CAPTION_ZH = (
    "查询 `it` 经过一个头的全过程，每一步的数都摆出来：`it` 的输入行 $x$ 乘上这个头自己的那几列 $W^Q$，"
    "加上偏置，得到 $q$；$q$ 与每个键 $k_j$ 做点积，除以 $\\sqrt{d_k}$，过 softmax 得到权重 $a_j$；"
    "最后把 $a_j v_j$ 逐项相加。末尾的 {{ value toy.d_k }} 个数，就是拼接向量里属于这个头的那几格。"
    "{{ screen \"滑块换一个头\" print \"每一帧是一个头\" }}。图中的数四舍五入过，图下的表格多留了一位小数。"
)
CAPTION_EN = (
    "The query `it` through one head, every step written out: the input row $x$ of `it` times the "
    "head's own columns of $W^Q$, plus the bias, gives $q$; $q$ is multiplied with every key $k_j$, "
    "divided by $\\sqrt{d_k}$ and put through the softmax, giving the weights $a_j$; the products "
    "$a_j v_j$ are added up. The {{ value toy.d_k }} numbers at the end are this head's slots of the "
    "concatenation. {{ screen \"The slider picks the head\" print \"One head per frame\" }}. The figure's "
    "numbers are rounded; the table under it keeps one decimal more."
)

ROW = 0.235  # inches per table row
FONT = 9
HEAD_FONT = 8.5
TITLE_FONT = 9.5


def _comp(c: int) -> str:
    """The c-th number of a d_k-vector, as its row is labelled."""
    return f"{c + 1}"


def _part(vector: str, c: int) -> str:
    """Number c of a per-key vector, in mathtext: $k_{j,1}$, $(a_j v_j)_1$."""
    return f"$({vector})_{_comp(c)}$" if " " in vector else f"${vector[0]}_{{{vector[2:]},{_comp(c)}}}$"


def readout(lang: str, i: int) -> str:
    out = one_head.worked_example(QUERY, toy.HEADS[i]).out
    first = i * toy.D_K + 1
    return pick(lang, f"头 {i + 1} 的输出 ({', '.join(decimals(o) for o in out)}) → 拼接向量第 {first}–{first + toy.D_K - 1} 格",
                f"the output of head {i + 1}: ({', '.join(decimals(o) for o in out)}) → slots {first}–{first + toy.D_K - 1} of the concatenation")


def _steps(lang: str, w: one_head.WorkedExample):
    """The rows of the worked example, in order: (label, numbers) for the projection (over the
    inputs x_0..x_{d_model-1}) and (label, numbers) for the attention (over the keys j)."""
    projection = [(pick(lang, f"x（{QUERY} 的输入行）", f"x (input row of {QUERY})"), w.x)]
    projection += [(pick(lang, f"$W^Q$ 第 {_comp(c)} 列", f"$W^Q$ column {_comp(c)}"), w.w_q[:, c]) for c in range(toy.D_K)]
    attention = [(_part("k_j", c), w.k[:, c]) for c in range(toy.D_K)]
    attention += [("$q \\cdot k_j$", w.dots), (f"$\\div \\sqrt{{d_k}} = \\div {np.sqrt(toy.D_K):.2f}$", w.scores),
                  ("$a_j$ = softmax", w.weights)]
    attention += [(_part("v_j", c), w.v[:, c]) for c in range(toy.D_K)]
    attention += [(_part("a_j v_j", c), w.weighted[:, c]) for c in range(toy.D_K)]
    return projection, attention


def data(lang: str):
    """Every frame (head) as the steps of its computation, one row a step, as a lecturer writes them
    on a board: the projection's rows run over the inputs x_0..x_7, the attention's over the keys
    the..ran (each column is headed by both), and the last row is the head's output. Three
    decimals, one more than the figure, so that each step can be checked from the one before."""
    def cells(values):
        return [decimals(v, 3) for v in values] + [""] * (toy.D_MODEL - len(values))

    rows = []
    for i, head in enumerate(toy.HEADS):
        w = one_head.worked_example(QUERY, head)
        name = CONTROL.value_label(i, lang)
        projection, attention = _steps(lang, w)
        rows += [[name, _plain(label), *cells(v)] for label, v in projection]
        rows.append([name, pick(lang, "偏置 b", "bias b"), *cells(w.b_q)])
        rows.append([name, "q = x W^Q + b", *cells(w.q)])
        rows += [[name, _plain(label), *cells(v)] for label, v in attention]
        first = i * toy.D_K + 1
        rows.append([name, pick(lang, f"Σ a_j v_j：输出，拼接向量第 {first}–{first + toy.D_K - 1} 格",
                                f"Σ a_j v_j: the output, slots {first}–{first + toy.D_K - 1} of the concatenation"),
                     *cells(w.out)])
    subscript = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    columns = [f"x{str(d).translate(subscript)}" + (f" / {toy.TOKENS[d]}" if d < toy.N else "") for d in range(toy.D_MODEL)]
    return [pick(lang, "头", "head"), pick(lang, "步骤", "step"), *columns], rows


def _plain(label: str) -> str:
    """A figure label as table text: its mathtext written out ("$k_{j,1}$" -> "k_j,1")."""
    for tex, text in (("\\cdot", "·"), ("\\div", "÷"), ("\\sqrt", "√"), ("\\,", ""), ("$", ""), ("{", ""), ("}", "")):
        label = label.replace(tex, text)
    return label


# ---- drawing: a table in inch coordinates ----

class _Table:
    """Cells on one axes whose data units are inches from the top left corner."""

    def __init__(self, ax, colour: str):
        self.ax, self.colour = ax, colour

    def text(self, x: float, y: float, s: str, *, size=FONT, colour=INK, ha="center", box=None, gid=None):
        return self.ax.text(x, y, s, ha=ha, va="center", fontsize=size, color=colour, bbox=box, gid=gid)

    def shade(self, x: float, y: float, w: float, alpha: float, edge: bool = False):
        self.ax.add_patch(Rectangle((x - w / 2 + 0.02, y - ROW / 2 + 0.015), w - 0.04, ROW - 0.03,
                                    facecolor=self.colour, alpha=alpha, lw=1 if edge else 0,
                                    edgecolor=MUTED if edge else "none"))

    def rule(self, x0: float, x1: float, y: float):
        self.ax.plot([x0, x1], [y, y], color=MUTED, lw=0.6)


def _title(t: _Table, y: float, s: str) -> float:
    t.text(0.02, y, s, size=TITLE_FONT, ha="left")
    return y + ROW * 1.15


def _wide(t: _Table, lang: str, i: int, w: one_head.WorkedExample, width: float) -> float:
    """Steps as rows: the projection over x_0..x_7 (then b and q), the attention over the keys (then Σ)."""
    label_w, result_w = 1.45, 0.55
    operand_w = width - label_w - result_w  # the inputs and b, or the six keys
    xs_proj = label_w + (np.arange(toy.D_MODEL + 1) + 0.5) * operand_w / (toy.D_MODEL + 1)
    xs_keys = label_w + (np.arange(toy.N) + 0.5) * operand_w / toy.N
    x_result = width - result_w / 2
    projection, attention = _steps(lang, w)
    y = ROW / 2
    y = _title(t, y, pick(lang, f"① 查询：$q = x\\,W^Q + b$（{QUERY} 这一行，头 {i + 1} 的 {toy.D_K} 列）",
                          f"① the query: $q = x\\,W^Q + b$ (row {QUERY}, head {i + 1}'s {toy.D_K} columns)"))
    for d, x in enumerate(xs_proj[:-1]):
        t.text(x, y, f"$x_{d}$", size=HEAD_FONT, colour=MUTED)
    t.text(xs_proj[-1], y, "$b$", size=HEAD_FONT, colour=MUTED)
    t.text(x_result, y, "$q$", size=HEAD_FONT, colour=MUTED)
    t.rule(0, width, y + ROW / 2)
    for r, (label, values) in enumerate(projection):
        y += ROW
        t.text(0.02, y, label, ha="left")
        for x, v in zip(xs_proj, values):
            t.text(x, y, decimals(v))
        if r:  # a column of W^Q: its bias and the q it gives
            t.text(xs_proj[-1], y, decimals(w.b_q[r - 1]))
            t.shade(x_result, y, result_w, 0.3)
            t.text(x_result, y, decimals(w.q[r - 1]))
    y += ROW * 1.6
    y = _title(t, y, pick(lang, "② 与每个键点积　③ 除以 $\\sqrt{d_k}$　④ softmax　⑤ 加权求和",
                          "② dot with every key   ③ divide by $\\sqrt{d_k}$   ④ softmax   ⑤ weighted sum"))
    for j, x in enumerate(xs_keys):
        t.text(x, y, toy.TOKENS[j], size=HEAD_FONT, box=QUERY_BOX if toy.TOKENS[j] == QUERY else None)
    t.text(x_result, y, "Σ", size=HEAD_FONT, colour=MUTED)
    t.rule(0, width, y + ROW / 2)
    for label, values in attention:
        y += ROW
        t.text(0.02, y, label, ha="left")
        for j, (x, v) in enumerate(zip(xs_keys, values)):
            if values is w.weights:
                t.shade(x, y, operand_w / toy.N, 0.55 * v)
            t.text(x, y, decimals(v))
        if values is w.weights:
            t.text(x_result, y, decimals(values.sum()))
    for c in range(toy.D_K):  # the output: the sums of the last d_k rows
        yc = y - (toy.D_K - 1 - c) * ROW
        t.shade(x_result, yc, result_w, 0.3, edge=True)
        t.text(x_result, yc, decimals(w.out[c]), gid=f"output-{c}")
    return y + ROW


def _narrow(t: _Table, lang: str, i: int, w: one_head.WorkedExample, width: float) -> float:
    """A phone's column: the projection over x_0..x_7 as rows, the keys as rows in two tables."""
    y = ROW / 2
    y = _title(t, y, pick(lang, f"① $q = x\\,W^Q + b$（头 {i + 1}）", f"① $q = x\\,W^Q + b$ (head {i + 1})"))
    cols = 0.45 + (np.arange(3) + 0.5) * (width - 0.45) / 3
    for x, s in zip(cols, (f"x（{QUERY}）" if lang == "zh" else f"x ({QUERY})",
                           *(pick(lang, f"$W^Q$ 第 {_comp(c)} 列", f"$W^Q$ col. {_comp(c)}") for c in range(toy.D_K)))):
        t.text(x, y, s, size=HEAD_FONT, colour=MUTED)
    t.rule(0, width, y + ROW / 2)
    for d in range(toy.D_MODEL):
        y += ROW
        t.text(0.02, y, f"$x_{d}$", ha="left", colour=MUTED)
        for x, v in zip(cols, (w.x[d], *w.w_q[d])):
            t.text(x, y, decimals(v))
    for label, values in (("$b$", w.b_q), ("$q$", w.q)):
        y += ROW
        t.text(0.02, y, label, ha="left")
        for x, v in zip(cols[1:], values):
            if label == "$q$":
                t.shade(x, y, (width - 0.45) / 3, 0.3)
            t.text(x, y, decimals(v))
    key_w = 0.5
    blocks = (
        (pick(lang, "② 点积　③ 除以 $\\sqrt{d_k}$　④ softmax", "② dot   ③ ÷ $\\sqrt{d_k}$   ④ softmax"),
         [*(_part("k_j", c) for c in range(toy.D_K)), "$q\\cdot k_j$", "$\\div\\sqrt{d_k}$", "$a_j$"],
         np.column_stack([w.k, w.dots, w.scores, w.weights]), None),
        (pick(lang, "⑤ 加权求和", "⑤ weighted sum"),
         ["$a_j$", *(_part("v_j", c) for c in range(toy.D_K)), *(_part("a_j v_j", c) for c in range(toy.D_K))],
         np.column_stack([w.weights, w.v, w.weighted]), w.out),
    )
    for title, heads, table, total in blocks:
        y += ROW * 1.6
        y = _title(t, y, title)
        xs = key_w + (np.arange(len(heads)) + 0.5) * (width - key_w) / len(heads)
        cell_w = (width - key_w) / len(heads)
        for x, s in zip(xs, heads):
            t.text(x, y, s, size=HEAD_FONT, colour=MUTED)
        t.rule(0, width, y + ROW / 2)
        weight_col = heads.index("$a_j$")
        for j in range(toy.N):
            y += ROW
            t.text(0.02, y, toy.TOKENS[j], ha="left", size=HEAD_FONT,
                   box=QUERY_BOX if toy.TOKENS[j] == QUERY else None)
            for c, (x, v) in enumerate(zip(xs, table[j])):
                if c == weight_col:
                    t.shade(x, y, cell_w, 0.55 * v)
                t.text(x, y, decimals(v))
        if total is not None:
            y += ROW
            t.rule(0, width, y - ROW / 2)
            t.text(0.02, y, "Σ", ha="left")
            for c, (x, v) in enumerate(zip(xs[-toy.D_K:], total)):
                t.shade(x, y, cell_w, 0.3, edge=True)
                t.text(x, y, decimals(v), gid=f"output-{c}")
    return y + ROW


def draw(lang: str, i: int):
    head = toy.HEADS[i]
    w = one_head.worked_example(QUERY, head)
    fig, ax = new_figure()
    width = fig.get_size_inches()[0] - 0.1
    t = _Table(ax, HEAD_COLOURS[head])
    bottom = (_narrow if is_narrow() else _wide)(t, lang, i, w, width)
    first = i * toy.D_K + 1
    t.text(width, bottom, pick(lang, f"{HEAD_NAMES[head][0]}的输出 → 拼接向量第 {first}–{first + toy.D_K - 1} 格",
                               f"the {HEAD_NAMES[head][1]}'s output → slots {first}–{first + toy.D_K - 1} of the concatenation"),
           ha="right", colour=HEAD_COLOURS[head], size=HEAD_FONT)
    ax.set_xlim(0, width)
    ax.set_ylim(bottom + ROW / 2, 0)
    ax.axis("off")
    fig.set_size_inches(fig.get_size_inches()[0], bottom + ROW / 2 + 0.1)  # as tall as the rows drawn: an inch is an inch
    return fig
