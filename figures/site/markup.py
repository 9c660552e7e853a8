"""The constructs a page may use, expanded for the page's language at build time.

    {{ figure ID }}            on a line of its own: the figure, its frames, number and caption
    {{ figure ID start=VALUE }} the same, opening on another frame (VALUE: a control value, or its file name, e.g. h2)
    {{ value NAME }}           a number computed by mha_ref (mha_ref.quantities), e.g.
    {{ value NAME .2f }}       with a Python format spec
    {{ references }}           on a line of its own: every cited work (mha_ref.models.REFERENCES),
                               each with the anchor #KEY that pages link to
    {{ table NAME }}           on a line of its own: a table of published data from mha_ref.models
                               (published-models, head-count), with its source linked

This is the only place that knows how a figure becomes HTML; later features (downloads,
citation, provenance) are added here without touching the pages.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from mha_ref import models, quantities

from .. import registry
from ..render import frames

FIGURE = re.compile(r"^[ \t]*\{\{\s*figure\s+(?P<id>[^\s}]+)(?P<opts>(?:\s+\w+=[^\s}]+)*)\s*\}\}[ \t]*$", re.M)
VALUE = re.compile(r"\{\{\s*value\s+(?P<name>[^\s}]+)(?:\s+(?P<spec>[^\s}]+))?\s*\}\}")
REFERENCES = re.compile(r"^[ \t]*\{\{\s*references\s*\}\}[ \t]*$", re.M)
TABLE = re.compile(r"^[ \t]*\{\{\s*table\s+(?P<name>[^\s}]+)\s*\}\}[ \t]*$", re.M)
LEFTOVER = re.compile(r"\{\{.{0,40}")

WORDS = {
    "zh": {"figure": "图 {}", "prev": "上一帧", "next": "下一帧"},
    "en": {"figure": "Figure {}", "prev": "previous frame", "next": "next frame"},
}


class MarkupError(ValueError):
    """A construct names something that does not exist; the message says what and where."""


def format_value(v, spec: str | None) -> str:
    if spec is None:
        spec = "," if isinstance(v, int) else ".2f"
    try:
        return format(v, spec)
    except ValueError as e:
        raise MarkupError(f"format spec {spec!r} does not fit the value {v!r}: {e}") from None


def expand_values(text: str, where: str) -> str:
    def one(m: re.Match) -> str:
        try:
            v = quantities.value(m["name"])
        except KeyError as e:
            raise MarkupError(f"{where}: {e.args[0]}") from None
        return format_value(v, m["spec"])

    return VALUE.sub(one, text)


def caption(fig_id: str, lang: str, where: str = "") -> str:
    """The figure's caption for a language, numbers filled in, as Markdown."""
    mod = registry.get(fig_id)
    text = mod.CAPTION_ZH if lang == "zh" else mod.CAPTION_EN
    return expand_values(text, where or f"caption of figure {fig_id!r}")


def _plain(markdown_text: str) -> str:
    """Caption text for an image's alt attribute: no Markdown marks, no TeX commands."""
    text = re.sub(r"\\(?:text|mathrm)\{([^}]*)\}", r"\1", markdown_text)
    text = text.replace("\\times", "×").replace("\\cdot", "·")
    return re.sub(r"[`*$\\]", "", text)


def _start_index(fig_id: str, start: str | None, where: str) -> int:
    """The frame the page opens on: the control's own start, or the page's start=VALUE."""
    control = registry.get(fig_id).CONTROL
    if control is None:
        if start is not None:
            raise MarkupError(f"{where}: figure {fig_id!r} has no control, so no start frame")
        return 0
    values = list(control.values)
    if start is None:
        return values.index(control.start)
    for i, v in enumerate(values):
        if start in (str(v), control.slug(v)):
            return i
    raise MarkupError(f"{where}: figure {fig_id!r} has no frame {start!r}; "
                      f"its frames: {[control.slug(v) for v in values]}")


def figure_html(fig_id: str, lang: str, number: int, url: Callable[[str], str], start: str | None = None,
                where: str = "") -> str:
    """The HTML of one placed figure. `url` turns a path below the site's figures/ into a link."""
    try:
        mod = registry.get(fig_id)
    except KeyError as e:
        raise MarkupError(f"{where}: {e.args[0]}") from None
    words = WORDS[lang]
    control = mod.CONTROL
    cap = caption(fig_id, lang, where)
    readout = getattr(mod, "readout", None)
    start_index = _start_index(fig_id, start, where)
    parts = []
    for i, frame in enumerate(frames(fig_id)):
        label = control.value_label(frame.value, lang) if control else ""
        text = readout(lang, frame.value) if (readout and control) else label
        alt = _plain(cap) + (f" ({label})" if label else "")
        parts.append(
            f'<div class="mha-frame" data-index="{i}" data-value="{html.escape(label)}">'
            f'<a href="{url(frame.path("svg"))}"><img src="{url(frame.path("svg"))}" alt="{html.escape(alt)}" loading="lazy"></a>'
            + (f'<p class="mha-frame-caption">{html.escape(text)}</p>' if text else "")
            + "</div>"
        )
    attrs = ""
    if control:
        attrs = (f' data-start="{start_index}" data-label-control="{html.escape(control.label(lang))}"'
                 f' data-label-prev="{words["prev"]}" data-label-next="{words["next"]}"')
    # md_in_html: the caption is Markdown in the page, so its math and links are handled like
    # the page's own (MkDocs rewrites .md links); the frames are plain HTML.
    return (
        f'<figure class="mha-figure" id="fig-{fig_id}" data-figure="{fig_id}" markdown="block">\n'
        f'<div class="mha-frames"{attrs}>\n' + "\n".join(parts) + "\n</div>\n"
        f'<figcaption markdown="span"><a class="mha-fig-num" href="#fig-{fig_id}">'
        f'{words["figure"].format(number)}</a> {cap}</figcaption>\n</figure>'
    )


def references_markdown() -> str:
    """One paragraph per cited work, in the data's order, each with its key as anchor."""
    entries = []
    for r in models.REFERENCES.values():
        arxiv = f" arXiv:{r.arxiv}." if r.arxiv else ""
        authors = r.authors if r.authors.endswith(".") else r.authors + "."
        entries.append(f"{authors} *{r.title}*. {r.venue}, {r.year}.{arxiv}\n{{: #{r.key} .mha-reference }}")
    return "\n\n".join(entries)


def _cite(key: str) -> str:
    r = models.REFERENCES[key]
    return f"[{r.authors.split(',')[0].split(' ')[0]} {r.year}](references.md#{key})"


def table_markdown(name: str, lang: str, where: str) -> str:
    """A Markdown table of published data, headed in the page's language."""
    zh = lang == "zh"
    if name == "published-models":
        head = ("模型", "$d_\\text{model}$", "层数", "头数 $h$", "键/值头数", "$d_k$", "上下文", "来源") if zh else \
            ("model", "$d_\\text{model}$", "layers", "heads $h$", "key/value heads", "$d_k$", "context", "source")
        rows = [(m.name, str(m.d_model), m.layers, str(m.heads), str(m.kv_heads or m.heads), str(m.d_head),
                 str(m.context) if m.context else "–", _cite(m.source)) for m in models.PUBLISHED_MODELS]
    elif name == "head-count":
        head = ("头数 $h$", "$d_k = d_v$", "困惑度（开发集）", "BLEU（开发集）") if zh else \
            ("heads $h$", "$d_k = d_v$", "perplexity (dev)", "BLEU (dev)")
        rows = [(str(r.h), str(r.d_k), f"{r.ppl:.2f}", f"{r.bleu:.1f}") for r in models.HEAD_COUNT_TABLE]
    else:
        raise MarkupError(f"{where}: unknown table {name!r}; tables: published-models, head-count")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def expand(text: str, lang: str, url: Callable[[str], str], where: str) -> tuple[str, list[str]]:
    """Expand every construct of a page. Returns the new Markdown and the figure ids in order."""
    placed: list[str] = []

    def one_figure(m: re.Match) -> str:
        opts = dict(o.split("=", 1) for o in m["opts"].split())
        unknown = set(opts) - {"start"}
        if unknown:
            raise MarkupError(f"{where}: figure {m['id']!r} has unknown option(s) {sorted(unknown)}")
        if m["id"] in placed:
            raise MarkupError(f"{where}: figure {m['id']!r} is placed twice; its anchor must be unique")
        placed.append(m["id"])
        return "\n" + figure_html(m["id"], lang, len(placed), url, opts.get("start"), where) + "\n"

    text = FIGURE.sub(one_figure, text)
    text = REFERENCES.sub(lambda m: references_markdown(), text)
    text = TABLE.sub(lambda m: table_markdown(m["name"], lang, where), text)
    text = expand_values(text, where)
    leftover = LEFTOVER.search(text)
    if leftover:  # a typo, or a block construct written inside a paragraph
        raise MarkupError(f"{where}: unknown or misplaced construct {leftover.group(0)!r}; "
                          "use figure, table or references on a line of their own, or value")
    return text, placed
