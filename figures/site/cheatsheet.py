"""The reference page's tables: the notation, the shape of every tensor of one block, and what the
block costs. The shapes come from a real forward pass (mha_ref.flow.block_shapes), the counts from
mha_ref.costs, both at GPT-2 small's published sizes; only the words are written here.

Each builder takes zh (True for Chinese) and gives (column heads, rows of cell texts, alignments),
an alignment per column: "l" or "r".
"""

from __future__ import annotations

from mha_ref import costs, flow, models

MODEL = models.model("GPT-2 small")
AXIS_TEX = {"n": "n", "h": "h", "d_k": "d_k", "d_model": r"d_\text{model}"}

Table = tuple[tuple[str, ...], list[tuple[str, ...]], str]


def _pick(zh: bool, pair: tuple[str, str]) -> str:
    return pair[0] if zh else pair[1]


# symbol, in the code, meaning (zh, en): the one vocabulary of the pages and of mha_ref
NOTATION = (
    ("$n$", "`n`", ("词元的个数，也就是序列长度", "the number of tokens, the sequence length")),
    (r"$d_\text{model}$", "`d_model`",
     ("每个词元向量的宽度；块的输入和输出都是这么宽",
      "the width of each token's vector, into the block and out of it")),
    ("$h$", "`h`", ("头数", "the number of heads")),
    ("$d_k = d_v$", "`d_k`", (r"一个头的宽度，$d_\text{model} / h$", r"the width of one head, $d_\text{model} / h$")),
    ("$i$", "`i`", ("头的编号", "a head's index")),
    ("$X$", "`x`", ("输入，每个词元一行", "the input, one row per token")),
    ("$W^Q$, $W^K$, $W^V$", "`w_q`, `w_k`, `w_v`",
     (r"查询、键、值的投影矩阵，各为 $d_\text{model} \times d_\text{model}$",
      r"the query, key and value projections, each $d_\text{model} \times d_\text{model}$")),
    ("$W_i^Q$, $W_i^K$, $W_i^V$", "`w_q[:, i*d_k:(i+1)*d_k]`",
     (r"第 $i$ 个头在其中占的那几列，$d_\text{model} \times d_k$",
      r"head $i$'s columns of them, $d_\text{model} \times d_k$")),
    ("$W^O$", "`w_o`",
     (r"输出矩阵，$d_\text{model} \times d_\text{model}$，把拼接起来的各头输出混合到一起",
      r"the output matrix, $d_\text{model} \times d_\text{model}$, which mixes the concatenated heads")),
    ("$b^Q$, $b^K$, $b^V$, $b^O$", "`b_q`, `b_k`, `b_v`, `b_o`",
     (r"四个偏置，各长 $d_\text{model}$（论文的公式里省去了）",
      r"the four biases, $d_\text{model}$ long each (the paper's formulas leave them out)")),
    ("$Q$, $K$, $V$", "`q`, `k`, `v`",
     ("查询、键、值：$XW^Q + b^Q$ 等；代码里存的是切成 $h$ 个头之后的",
      "queries, keys, values: $XW^Q + b^Q$ and so on; the code keeps them cut into $h$ heads")),
    ("$Q_i$, $K_i$, $V_i$", "`q[i]`, `k[i]`, `v[i]`", ("第 $i$ 个头的查询、键、值", "head $i$'s queries, keys and values")),
    (r"$Q_i K_i^\top / \sqrt{d_k}$", "`scores`",
     ("分数：查询和键的点积，按头的宽度缩放",
      "the scores: query-key dot products, scaled by the head's width")),
    (r"$\mathrm{softmax}$", "`softmax`, `weights`",
     ("把每行分数变成和为一的权重",
      "turns each row of scores into weights that sum to one")),
    (r"$\mathrm{head}_i$", "`heads[i]`", ("第 $i$ 个头的输出，权重乘 $V_i$", "head $i$'s output, its weights times $V_i$")),
    (r"$\mathrm{Concat}$", "`merge_heads`, `concat`", ("把各头的输出首尾相接", "the heads' outputs placed end to end")),
)


def notation_table(zh: bool) -> Table:
    head = ("记号", "含义", "代码里") if zh else ("symbol", "meaning", "in the code")
    return head, [(symbol, _pick(zh, meaning), code) for symbol, code, meaning in NOTATION], "lll"


# each step of flow.BLOCK_STEPS: what it is (zh, en), and where it is in mha_ref.attention
STEPS = {
    "x": (("输入 $X$", "the input $X$"), "`x`"),
    "projected": (("投影 $Q = XW^Q + b^Q$（$K$、$V$ 同形）", "projection $Q = XW^Q + b^Q$ ($K$, $V$ alike)"),
                  "`x @ w_q + b_q`"),
    "reshaped": (("变形（reshape）：列分成 $h$ 组", "reshape: the columns in $h$ groups"), "`split_heads`: `reshape`"),
    "split": (("转置（transpose）：头轴移到最前", "transpose: the head axis to the front"), "`split_heads`: `swapaxes` → `q`"),
    "one_head": (("一个头的 $Q_i$（$K_i$、$V_i$ 同形）", "one head's $Q_i$ ($K_i$, $V_i$ alike)"), "`q[i]`"),
    "scores": ((r"分数 $Q_i K_i^\top / \sqrt{d_k}$，每个头一张", r"scores $Q_i K_i^\top / \sqrt{d_k}$, a table per head"),
               "`scores`"),
    "weights": (("权重：逐行 softmax", "weights: softmax along each row"), "`weights`"),
    "heads": ((r"各头输出 $\mathrm{head}_i$：权重乘 $V_i$", r"head outputs $\mathrm{head}_i$: weights times $V_i$"),
              "`heads`"),
    "heads_moved": (("转置（transpose）：头轴移回第二位", "transpose: the head axis back to second"),
                    "`merge_heads`: `swapaxes`"),
    "concat": ((r"变形（reshape）：拼接 $\mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)$",
                r"reshape: the concatenation $\mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)$"),
               "`merge_heads`: `reshape` → `concat`"),
    "out": ((r"输出 $\mathrm{Concat}(\dots)\, W^O + b^O$", r"output $\mathrm{Concat}(\dots)\, W^O + b^O$"), "`out`"),
}


def shape_tex(axes: tuple[str, ...]) -> str:
    return "$" + r" \times ".join(AXIS_TEX[a] for a in axes) + "$"


def sized_tex(shape: tuple[int, ...], axes: tuple[str, ...]) -> str:
    """The shape at the model's sizes, the token axis left as n (any length up to the context)."""
    return "$" + r" \times ".join("n" if a == "n" else str(s) for s, a in zip(shape, axes)) + "$"


def shape_table(zh: bool, model: models.Model = MODEL) -> Table:
    head = ("步骤", "形状", model.name, "代码里") if zh else ("step", "shape", model.name, "in the code")
    rows = []
    for t in flow.block_shapes(model.d_model, model.heads):
        words, code = STEPS[t.step]
        rows.append((_pick(zh, words), shape_tex(t.axes), sized_tex(t.shape, t.axes), code))
    return head, rows, "llll"


def _bytes(b: int, zh: bool) -> str:
    """A count of bytes, and in MiB (2^20 bytes) beside it."""
    mib = b / 2 ** 20
    size = f"{mib:,.0f} MiB" if mib == int(mib) else f"≈ {mib:,.1f} MiB"
    return f"{b:,}（{size}）" if zh else f"{b:,} ({size})"


def cost_table(zh: bool, model: models.Model = MODEL) -> Table:
    """Parameters, multiply-adds (projections, then attention) and the stored weights, at the context."""
    d, h, n = model.d_model, model.heads, model.context
    ma = costs.multiply_adds(n, d, h)
    dtype = "float32"
    size = costs.attention_weights_bytes(1, 1, dtype)  # bytes per number
    dm, dk = AXIS_TEX["d_model"], AXIS_TEX["d_k"]
    rows = [
        (("参数：四个权重矩阵 $W^Q$、$W^K$、$W^V$、$W^O$", "parameters: the four matrices $W^Q$, $W^K$, $W^V$, $W^O$"),
         rf"$4\,{dm}^2$", costs.param_count(d, h, bias=False)),
        (("参数：再加四个偏置 $b^Q$、$b^K$、$b^V$、$b^O$", "parameters: with the four biases $b^Q$, $b^K$, $b^V$, $b^O$"),
         rf"$4\,{dm}^2 + 4\,{dm}$", costs.param_count(d, h)),
        (("参数：其中一个头的 $W_i^Q$、$W_i^K$、$W_i^V$ 和偏置", "parameters: one head's $W_i^Q$, $W_i^K$, $W_i^V$ and biases"),
         rf"$3\,({dm}\,{dk} + {dk})$", costs.head_param_count(d, h)),
        (("乘加：四次投影（$X$ 乘 $W^Q$、$W^K$、$W^V$，拼接结果乘 $W^O$）",
          "multiply-adds: the four projections ($X$ by $W^Q$, $W^K$, $W^V$, the concatenation by $W^O$)"),
         rf"$4\,n\,{dm}^2$", ma.projections),
        ((r"乘加：分数 $Q_i K_i^\top$，$h$ 个头合计", r"multiply-adds: the scores $Q_i K_i^\top$, all $h$ heads"),
         rf"$h\,n^2 {dk} = n^2 {dm}$", ma.scores),
        (("乘加：权重乘 $V_i$，$h$ 个头合计", "multiply-adds: weights times $V_i$, all $h$ heads"),
         rf"$h\,n^2 {dk} = n^2 {dm}$", ma.weighted_sum),
        (("乘加：注意力合计（随 $n^2$ 增长）", "multiply-adds: attention in all (grows with $n^2$)"),
         rf"$2\,n^2 {dm}$", ma.attention),
        (("乘加：整个块", "multiply-adds: the whole block"), rf"$4\,n\,{dm}^2 + 2\,n^2 {dm}$", ma.total),
        (("内存：存下的注意力权重（个数）", "memory: the attention weights kept (numbers)"),
         r"$h\,n^2$", costs.attention_weights(n, h)),
        ((f"内存：同上，{dtype} 的字节数", f"memory: the same in bytes, as {dtype}"),
         rf"${size}\,h\,n^2$", costs.attention_weights_bytes(n, h, dtype)),
    ]
    head = ("项目", "公式", f"{model.name}，$n = {n}$") if zh else ("what", "formula", f"{model.name}, $n = {n}$")
    cells = [(_pick(zh, words), tex, _bytes(v, zh) if i == len(rows) - 1 else f"{v:,}")
             for i, (words, tex, v) in enumerate(rows)]
    return head, cells, "llr"


TABLES = {"notation": notation_table, "shapes": shape_table, "costs": cost_table}
