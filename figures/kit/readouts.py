"""What a figure says besides its drawing: the rows of its data table (weight_table), a table
cell's number (decimals), and the readout a slider shows for a frame (top_keys)."""

from __future__ import annotations

from mha_ref.example import toy

from .style import HEAD_NAMES
from .words import pick


def weight_table(lang: str, heads) -> tuple[list[str], list[list[str]]]:
    """The numbers behind a figure of weight rows, every frame's: for each query token and head,
    its weights over the six tokens (the page prints it under the figure, markup.data_html)."""
    w = toy.trace().weights
    head = [pick(lang, "查询", "query"), pick(lang, "头", "head"), *toy.TOKENS]
    rows = [[toy.TOKENS[q], pick(lang, *HEAD_NAMES[h]), *(f"{v:.2f}" for v in w[toy.head_index(h)][q])]
            for q in range(toy.N) for h in heads]
    return head, rows


def decimals(value: float, digits: int = 2) -> str:
    """A table cell's number: to `digits` places, as the figure prints it, but never "-0.00"."""
    return f"{round(float(value), digits) + 0.0:.{digits}f}"


def top_keys(lang: str, query: int, heads) -> str:
    """'query it: position head → and, syntax head → ran' in the page's language."""
    w = toy.trace().weights
    picks = [(HEAD_NAMES[h], toy.TOKENS[w[toy.head_index(h)][query].argmax()]) for h in heads]
    return pick(lang, f"查询 {toy.TOKENS[query]}：" + "，".join(f"{n[0]} → {t}" for n, t in picks),
                f"query {toy.TOKENS[query]}: " + ", ".join(f"{n[1]} → {t}" for n, t in picks))
