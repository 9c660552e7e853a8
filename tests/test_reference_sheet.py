"""The reference page's tables (figures/site/cheatsheet.py) against computations made here: shapes
from running mha_trace, counts from GPT-2 small's configuration, formulas evaluated at its sizes."""

import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from figures.site import cheatsheet
from figures.site.markup import table_markdown
from mha_ref.params import MHAParams
from mha_ref import MHATrace, init_params, mha_trace, split_heads
from mha_ref import costs, flow, models

DOCS = Path(__file__).resolve().parents[1] / "docs"
LANGS = ("zh", "en")
GPT2 = models.model("GPT-2 small")


def _cell_tex(cell: str) -> str:
    assert cell.startswith("$") and cell.endswith("$"), cell
    return cell[1:-1]


def _shape(cell: str, sizes: dict[str, int]) -> tuple[int, ...]:
    """"$12 \\times n \\times 64$" or "$h \\times n \\times d_k$" as numbers: each axis a size or a name."""
    axes = [a.strip() for a in _cell_tex(cell).split(r"\times")]
    names = {"n": "n", "h": "h", "d_k": "d_k", r"d_\text{model}": "d_model"}
    return tuple(int(a) if a.isdigit() else sizes[names[a]] for a in axes)


def _evaluate(tex: str, sizes: dict[str, int]) -> list[int]:
    """Each side of a formula such as "$h\\,n^2 d_k = n^2 d_\\text{model}$", evaluated at `sizes`."""
    values = []
    for side in _cell_tex(tex).split("="):
        side = side.replace(r"d_\text{model}", " D ").replace("d_k", " K ").replace(r"\,", " ").replace("^", "**")
        tokens = re.findall(r"\*\*|\d+|[A-Za-z]+|[()+]", side)
        assert "".join(tokens) == side.replace(" ", ""), f"unreadable formula {tex!r}"
        expr = ""
        for prev, tok in zip([None, *tokens], tokens):
            operand_before = prev is not None and (prev[0].isalnum() or prev == ")")
            if operand_before and (tok[0].isalnum() or tok == "("):
                expr += "*"  # a product written as juxtaposition
            expr += tok
        env = {"n": sizes["n"], "h": sizes["h"], "K": sizes["d_k"], "D": sizes["d_model"]}
        values.append(eval(expr, {"__builtins__": {}}, env))  # noqa: S307 (tokens checked above)
    return values


def _number(cell: str) -> int:
    return int(cell.split()[0].split("（")[0].replace(",", ""))


# --- shapes ----------------------------------------------------------------------------------------

def _expected_shapes(d_model: int, h: int, n: int, seed: int = 3) -> dict[str, tuple[int, ...]]:
    """Each step's shape, from a pass of mha_trace made here (another x, other parameters)."""
    x = np.random.default_rng(seed).normal(size=(n, d_model))
    p = init_params(d_model, h, seed=seed)
    t = mha_trace(x, p, h)
    assert t.q.shape == t.k.shape == t.v.shape  # the table's "K, V alike"
    projected = x @ p.w_q + p.b_q
    return {"x": x.shape, "projected": projected.shape, "reshaped": projected.reshape(n, h, -1).shape,
            "split": t.q.shape, "one_head": t.q[h - 1].shape, "scores": t.scores.shape,
            "weights": t.weights.shape, "heads": t.heads.shape, "heads_moved": t.heads.transpose(1, 0, 2).shape,
            "concat": t.concat.shape, "out": t.out.shape}


def test_block_shapes_names_every_step_in_order():
    shapes = flow.block_shapes(GPT2.d_model, GPT2.heads)
    assert tuple(s.step for s in shapes) == flow.BLOCK_STEPS == tuple(_expected_shapes(12, 3, 5))
    assert set(cheatsheet.STEPS) == set(flow.BLOCK_STEPS)


@pytest.mark.parametrize("lang", LANGS)
def test_the_shape_table_holds_the_shapes_of_a_real_pass_at_gpt2_small(lang):
    """Both columns, with n = 7 tokens (the table was read off a pass on another n): the GPT-2 column
    and the symbolic one at GPT-2 small's sizes give the shapes mha_trace returns."""
    head, rows, _ = cheatsheet.shape_table(lang == "zh")
    n = 7
    sizes = {"n": n, "h": GPT2.heads, "d_k": GPT2.d_head, "d_model": GPT2.d_model}
    expected = _expected_shapes(GPT2.d_model, GPT2.heads, n)
    assert head[2] == GPT2.name and len(rows) == len(expected)
    for row, (step, shape) in zip(rows, expected.items()):
        assert _shape(row[1], sizes) == shape, (step, row)
        assert _shape(row[2], {"n": n}) == shape, (step, row)


@pytest.mark.parametrize("d_model, h, n", [(12, 3, 5), (8, 2, 3), (6, 1, 2), (64, 16, 9)])
def test_block_shapes_on_small_cases(d_model, h, n):
    """Where h = 1 or d_k = h the axes cannot be named by their sizes: refused, see below."""
    sizes = {"n": n, "h": h, "d_k": d_model // h, "d_model": d_model}
    if len(set(sizes.values())) < 4:
        with pytest.raises(ValueError, match="four different numbers"):
            flow.block_shapes(d_model, h, n)
        return
    expected = _expected_shapes(d_model, h, n)
    for s in flow.block_shapes(d_model, h, n):
        assert s.shape == expected[s.step] == tuple(sizes[a] for a in s.axes), s


def test_the_reshapes_and_transposes_compute_nothing():
    """The page: they read the same numbers in another order. Checked on the arrays of a pass."""
    d_model, h, n = 12, 3, 5
    x = np.random.default_rng(1).normal(size=(n, d_model))
    p = init_params(d_model, h, seed=1)
    t = mha_trace(x, p, h)
    projected = x @ p.w_q + p.b_q
    reshaped = projected.reshape(n, h, d_model // h)
    assert np.shares_memory(reshaped, projected)  # a view: nothing computed
    np.testing.assert_array_equal(np.moveaxis(reshaped, 1, 0), t.q)  # the transposed view is the trace's q
    moved = np.moveaxis(t.heads, 0, 1)
    assert np.shares_memory(moved, t.heads)
    np.testing.assert_array_equal(moved.reshape(n, d_model), t.concat)
    np.testing.assert_array_equal(split_heads(projected, h), t.q)


def test_a_batch_axis_comes_in_front_of_every_shape():
    d_model, h, n, b = 12, 3, 5, 4
    x = np.random.default_rng(2).normal(size=(b, n, d_model))
    p = init_params(d_model, h, seed=2)
    batched, single = mha_trace(x, p, h), mha_trace(x[0], p, h)
    for field in MHATrace._fields:
        assert getattr(batched, field).shape == (b, *getattr(single, field).shape), field


# --- costs -----------------------------------------------------------------------------------------

def _expected_costs(d: int, h: int, n: int) -> list[int]:
    """The table's rows, each counted here from the configuration."""
    d_k = d // h
    scores = h * n * d_k * n
    return [4 * d * d, 4 * d * d + 4 * d, 3 * (d * d_k + d_k), 4 * n * d * d, scores, scores, 2 * scores,
            4 * n * d * d + 2 * scores, h * n * n, h * n * n * np.dtype(np.float32).itemsize]


@pytest.mark.parametrize("lang", LANGS)
def test_the_cost_table_holds_counts_made_from_gpt2_smalls_configuration(lang):
    head, rows, align = cheatsheet.cost_table(lang == "zh")
    n = GPT2.context
    assert re.search(rf"\$n = {n}\$$", head[2]) and GPT2.name in head[2] and align[-1] == "r"
    sizes = {"n": n, "h": GPT2.heads, "d_k": GPT2.d_model // GPT2.heads, "d_model": GPT2.d_model}
    expected = _expected_costs(GPT2.d_model, GPT2.heads, n)
    assert len(rows) == len(expected)
    for (words, formula, cell), value in zip(rows, expected):
        assert _number(cell) == value, words
        assert _evaluate(formula, sizes) == [value] * len(_evaluate(formula, sizes)), (words, formula)
    mib = re.search(r"([\d,.]+) MiB", rows[-1][2])[1]
    assert float(mib) == expected[-1] / 2 ** 20


def test_the_formula_reader_is_not_fooled():
    sizes = {"n": 2, "h": 3, "d_k": 5, "d_model": 15}
    assert _evaluate(r"$4\,n\,d_\text{model}^2 + 2\,n^2 d_\text{model}$", sizes) == [4 * 2 * 225 + 2 * 4 * 15]
    assert _evaluate(r"$3\,(d_\text{model}\,d_k + d_k)$", sizes) == [3 * (75 + 5)]
    assert _evaluate(r"$h\,n^2 d_k = n^2 d_\text{model}$", sizes) == [60, 60]


def test_only_the_weight_tables_and_one_heads_share_depend_on_h():
    """The page: in the whole block's parameters and multiply-adds h comes paired with d_k; only the
    weight tables (the last two rows) grow with h. Every head count that divides GPT-2's width."""
    hs = [h for h in range(1, GPT2.d_model + 1) if GPT2.d_model % h == 0]
    tables = {h: [_number(r[2]) for r in cheatsheet.cost_table(False, GPT2._replace(heads=h))[1]] for h in hs}
    one_head_share, memory = 2, slice(-2, None)
    for h in hs:
        whole_block = [v for i, v in enumerate(tables[h]) if i != one_head_share][:-2]
        assert whole_block == [v for i, v in enumerate(tables[1]) if i != one_head_share][:-2], h
        assert tables[h][memory] == [h * v for v in tables[1][memory]], h


# --- notation, both languages, the page -------------------------------------------------------------

def test_every_name_in_the_code_column_is_a_name_in_mha_ref():
    known = set(MHAParams._fields) | set(MHATrace._fields) | set(dir(importlib.import_module("mha_ref.attention"))) | {"n", "d_model", "h", "d_k", "i", "x"}
    # the numpy calls inside split_heads and merge_heads (np.swapaxes, x.reshape), read from their code
    reference = importlib.import_module("mha_ref.attention")
    known |= {call for fn in (reference.split_heads, reference.merge_heads)
              for call in re.findall(r"\.(\w+)\(", inspect.getsource(fn))}
    cells = [r[2] for r in cheatsheet.notation_table(False)[1]] + [r[3] for r in cheatsheet.shape_table(False)[1]]
    for cell in cells:
        for code in re.findall(r"`([^`]+)`", cell):
            for name in re.findall(r"[A-Za-z_]+", code):
                assert name in known, (cell, name)


@pytest.mark.parametrize("name", sorted(cheatsheet.TABLES))
def test_both_languages_give_the_same_table_but_for_the_words(name):
    zh_head, zh_rows, zh_align = cheatsheet.TABLES[name](True)
    en_head, en_rows, en_align = cheatsheet.TABLES[name](False)
    words = {"notation": 1, "shapes": 0, "costs": 0}[name]
    assert zh_align == en_align and len(zh_head) == len(en_head) == len(zh_align)
    assert [[c for i, c in enumerate(r) if i != words] for r in zh_rows] == \
        [[c.replace(" (", "（").replace(")", "）") if "MiB" in c else c for i, c in enumerate(r) if i != words]
         for r in en_rows]
    math = re.compile(r"\$[^$]+\$")  # the words differ, the formulas among them do not
    assert [math.findall(r[words]) for r in zh_rows] == [math.findall(r[words]) for r in en_rows]


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_opens_with_notation_shapes_costs_and_formulas_and_keeps_its_anchors(lang):
    text = (DOCS / f"reference.{lang}.md").read_text(encoding="utf-8")
    ids = re.findall(r"^#{1,6} .*\{#([^}]+)\}\s*$", text, re.M)
    assert ids[:5] == ["reference", "notation", "shapes", "costs", "formulas"]
    # every anchor the page had before it became a cheat sheet: lecturers cite them
    assert {"single-head-limits", "flow", "dimensions", "why-several-heads", "several-patterns", "cnn-analogy",
            "expressiveness", "same-cost", "evidence", "head-count", "summary"} <= set(ids)
    sections = re.split(r"^## ", text, flags=re.M)
    for anchor in ("notation", "shapes", "costs"):
        (section,) = [s for s in sections if s.split("\n", 1)[0].endswith(f"{{#{anchor}}}")]
        assert re.search(rf"^\{{\{{ table {anchor} \}}\}}$", section, re.M), anchor
    for fig_id in ("flow-diagram", "heads-vs-bleu"):
        assert f"{{{{ figure {fig_id} }}}}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_construct_prints_each_table_compact_on_a_phone(lang):
    for name, build in cheatsheet.TABLES.items():
        text = table_markdown(name, lang, "t.md")
        lines = text.splitlines()
        assert lines[0] == '<div class="mha-sheet" markdown="block">' and lines[-1] == "</div>"
        head, rows, align = build(lang == "zh")
        assert len([line for line in lines if line.startswith("| ")]) == len(rows) + 1
        rule = lines[3]
        assert rule == "|" + "".join("---:|" if a == "r" else "---|" for a in align)


# --- bad input ------------------------------------------------------------------------------------

def test_block_shapes_refuses_bad_sizes_naming_them():
    with pytest.raises(ValueError, match=r"n=12, h=12"):
        flow.block_shapes(GPT2.d_model, GPT2.heads, n=GPT2.heads)
    with pytest.raises(ValueError, match="does not divide"):
        flow.block_shapes(10, 3)
    with pytest.raises(ValueError, match="token count n"):
        flow.block_shapes(12, 3, n=0)
    with pytest.raises(TypeError, match="token count n"):
        flow.block_shapes(12, 3, n=2.0)
    with pytest.raises(TypeError, match="h must be an integer"):
        flow.block_shapes(12, "3")


def test_attention_weights_bytes_refuses_a_type_that_is_not_a_float():
    assert costs.attention_weights_bytes(3, 2, "float64") == 2 * 9 * 8
    with pytest.raises(TypeError, match="dtype must be a real floating-point dtype"):
        costs.attention_weights_bytes(3, 2, "int32")
    with pytest.raises(ValueError, match="context length n"):
        costs.attention_weights_bytes(0, 2)
