"""The table constructs ({{ table NAME }}, {{ references }}): published data from mha_ref.models,
the running example's heads measured as Voita et al. measure heads, the reference page's tables."""

from __future__ import annotations


from mha_ref import models

from ..kit.words import LANGS, offset_text
from ..text.constructs import MarkupError
from . import cheatsheet


def references_markdown() -> str:
    """One paragraph per cited work, in the data's order, each with its key as anchor."""
    entries = []
    for r in models.REFERENCES.values():
        arxiv = f" arXiv:{r.arxiv}." if r.arxiv else ""
        authors = r.authors if r.authors.endswith(".") else r.authors + "."
        stop = "" if r.title.endswith((".", "?", "!")) else "."  # "Better than One?", not "One?."
        entries.append(f"{authors} *{r.title}*{stop} {r.venue}, {r.year}.{arxiv}\n{{: #{r.key} .mha-reference }}")
    return "\n\n".join(entries)


def _cite(key: str) -> str:
    r = models.REFERENCES[key]
    return f"[{r.authors.split(',')[0].split(' ')[0]} {r.year}](references.md#{key})"


ROLE_NAMES = {"positional": ("位置头", "positional"), "syntactic": ("句法头", "syntactic"),
              "rare": ("稀有词头", "rare words")}


def _toy_head_roles(zh: bool) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """Voita et al.'s measures of every toy head (mha_ref.roles), then a row of the bars."""
    from mha_ref import roles  # imported here: this table is the only user in this module

    from ..kit.style import HEAD_NAMES

    def share(k: int, n: int) -> str:
        return f"{100 * k / n:.0f}% ({k}/{n})"

    def bar(r: str) -> str:
        b = roles.ROLE_BARS[r]
        note = {"definition": ("", ""), "reported": ("（论文那个头的成绩）", " (the paper's head)"),
                "ours": ("（本站定）", " (ours)")}[b.kind][0 if zh else 1]
        return f"≥ {100 * b.share:.0f}%{note}"

    head = ("头", "置信度", "最常见的偏移", "落在该偏移的查询", "落在依存目标的查询", "落在最罕见词上的查询", "达到门槛的角色") if zh else \
        ("head", "confidence", "most frequent offset", "queries at that offset", "queries on the dependency target",
         "queries on the rarest token", "roles whose bar it reaches")
    rows = []
    for name, m in roles.toy_head_roles().items():
        met = "、".join(ROLE_NAMES[r][0] for r in m.roles) if zh else ", ".join(ROLE_NAMES[r][1] for r in m.roles)
        rows.append((HEAD_NAMES[name][0 if zh else 1], f"{m.confidence:.2f}", offset_text(m.offset, m.offset_tied, "zh" if zh else "en"),
                     share(m.offset_hits, m.n), share(*m.relation_hits["syntax"]), share(m.rare_hits, m.n),
                     met or ("无" if zh else "none")))
    rows.append(("门槛" if zh else "bar", "–", "–", *(bar(r) for r in roles.ROLES), "–"))
    return head, rows


def _selfcheck_configs(zh: bool) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The self-check's configurations (mha_ref.vectors), under the names its report uses."""
    from mha_ref import vectors  # imported here: this table is the only user in this module

    head = ("配置", "$n$", "$d_\\text{model}$", "$h$", "键/值头数", "偏置", "掩码") if zh else \
        ("configuration", "$n$", "$d_\\text{model}$", "$h$", "key/value heads", "biases", "mask")
    yes, no, causal = ("有", "无", "因果") if zh else ("yes", "no", "causal")
    rows = [(f"`{c.name}`", str(c.n), str(c.d_model), str(c.h), str(c.kv_heads or c.h), yes if c.bias else no,
             causal if c.causal else no) for c in vectors.CONFIGS]
    return head, rows


NAMES = ("published-models", "head-count", "toy-head-roles", "selfcheck-configs", *cheatsheet.TABLES)


def table_data(name: str, lang: str, where: str) -> tuple[tuple[str, ...], list[tuple[str, ...]], str]:
    """(column heads, rows, alignment: "l" or "r" per column) of a table of published data, in the
    page's language; an unknown name is a MarkupError that says `where`."""
    zh = lang == "zh"
    align = None  # a cheatsheet table says which columns are right-aligned: "l" or "r" for each
    if name == "published-models":
        head = ("模型", "$d_\\text{model}$", "层数", "头数 $h$", "键/值头数", "$d_k$", "上下文", "来源") if zh else \
            ("model", "$d_\\text{model}$", "layers", "heads $h$", "key/value heads", "$d_k$", "context", "source")
        rows = [(m.name, str(m.d_model), m.layers, str(m.heads), str(m.kv_heads or m.heads), str(m.d_head),
                 str(m.context) if m.context else "–", _cite(m.source)) for m in models.PUBLISHED_MODELS]
    elif name == "head-count":
        head = ("头数 $h$", "$d_k = d_v$", "困惑度（开发集）", "BLEU（开发集）") if zh else \
            ("heads $h$", "$d_k = d_v$", "perplexity (dev)", "BLEU (dev)")
        rows = [(str(r.h), str(r.d_k), f"{r.ppl:.2f}", f"{r.bleu:.1f}") for r in models.HEAD_COUNT_TABLE]
    elif name == "toy-head-roles":
        head, rows = _toy_head_roles(zh)
    elif name == "selfcheck-configs":
        head, rows = _selfcheck_configs(zh)
    elif name in cheatsheet.TABLES:  # the reference page's notation, shapes and costs
        head, rows, align = cheatsheet.TABLES[name](zh)
    else:
        raise MarkupError(f"{where}: unknown table {name!r}; tables: " + ", ".join(NAMES))
    return tuple(head), [tuple(r) for r in rows], align or "l" * len(head)


def table_markdown(name: str, lang: str, where: str) -> str:
    """A Markdown table of published data, headed in the page's language."""
    head, rows, align = table_data(name, lang, where)
    lines = ["| " + " | ".join(head) + " |", "|" + "".join("---:|" if a == "r" else "---|" for a in align)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if name in cheatsheet.TABLES:  # compact on a phone (docs/assets/mha-figures.css)
        lines = ['<div class="mha-sheet" markdown="block">', "", *lines, "", "</div>"]
    return "\n".join(lines)


def snapshot() -> dict[str, dict[str, list]]:
    """Every table's cells in each language, {name: {lang: [heads, *rows]}}: the tables' side of a
    tree's snapshot for "what changed" (figures/site/changes.py), which an earlier release's tree
    gives by running this module."""
    def cells(name: str, lang: str) -> list[list[str]]:
        head, rows, _ = table_data(name, lang, "the tables' snapshot")
        return [list(head), *map(list, rows)]

    return {name: {lang: cells(name, lang) for lang in LANGS} for name in NAMES}


if __name__ == "__main__":
    import argparse
    import json
    import sys
    argparse.ArgumentParser(prog="python -m figures.site.tables",  # it takes no argument: any is refused
                            description="Every table's cells, as JSON on stdout (what changed, figures/site/changes.py).").parse_args()
    json.dump(snapshot(), sys.stdout, ensure_ascii=False, sort_keys=True)
