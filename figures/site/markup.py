"""The constructs a page may use, expanded for the page's language at build time.

    {{ figure ID }}            on a line of its own: the figure, its frames, number and caption; the
                               number is site-wide (figures/publish/numbering.py) and, on a page that
                               reuses the figure, links back to the page that explains it
    {{ figure ID start=VALUE }} the same, opening on another frame (VALUE: a control value, or its file name, e.g. h2)
    {{ value NAME }}           a number computed by mha_ref (mha_ref.quantities), e.g.
    {{ value NAME .2f }}       with a Python format spec
    {{ value NAME .2f up }}    rounded up (or `down`) at the spec's precision, exactly: next to a bound
                               word ("at most", "不低于", ...) the rounding must keep the bound true
                               (figures/text/bounds.py); with no bound word next to it, refused
    {{ gallery }}              on a line of its own: every registered figure, in number order, as a
                               card: its start frame, number, id, caption, the page that explains
                               it, its downloads
    {{ references }}           on a line of its own: every cited work (mha_ref.models.REFERENCES),
                               each with the anchor #KEY that pages link to
    {{ screen "TEXT" print "TEXT" }}  inline: words that only make sense on screen ("drag the slider")
                               and what print says instead (what the frames show); both are in the
                               page, CSS shows one (docs/assets/mha-print.css)
    {{ table NAME }}           on a line of its own: a table of published data from mha_ref.models
                               (published-models, head-count), with its source linked, or toy-head-roles
                               (the running example's heads measured as Voita et al. do, mha_ref.roles),
                               or the reference page's notation, shapes and costs (cheatsheet.py)

Inside fenced code blocks (``` or ~~~) and `code spans` nothing is expanded: that is how a page
writes a construct, or a literal {{, as it is.

This is the only place that knows how a figure becomes HTML; later features (downloads,
citation, provenance) are added here without touching the pages.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable

from mha_ref import models

from ..engine import registry, save
from ..engine.render import FigureError, frames
from ..kit.words import FIGURE_LABEL, offset_text
from ..publish import bundles, provenance
from ..publish.attribution import caption
from ..text.constructs import (FIGURE, GALLERY, LEFTOVER, REFERENCES, TABLE, VALUE, MarkupError, expand_media,
                               expand_values, first_sentence, outside_code, plain, replace_outside_code)
from . import cards, cheatsheet


WORDS = {
    "zh": {"data": "图中的数据（表格）", "csv": "下载这张表（CSV，可用 Excel 打开）", "prev": "上一帧", "next": "下一帧", "frame": "{control}：{value}", "this_frame": "下载当前帧",
           "all_frames": "全部帧", "zip": "{} 压缩包", "copy": "复制链接", "copied": "已复制",
           "unplaced": "（尚未放进任何一页）", "explained_on": "讲解见",
           "provenance": "代码出处：", "drawn_by": "绘图代码", "numbers_from": "数值来自",
           "explained": "（详见第 {page} 页“{title}”）", "explained_front": "（详见首页）"},
    "en": {"data": "The numbers in this figure (a table)", "csv": "Download this table (CSV, opens in Excel)", "prev": "previous frame", "next": "next frame", "frame": "{control}: {value}", "this_frame": "Download this frame",
           "all_frames": "all frames", "zip": "{} (zip)", "copy": "Copy link", "copied": "Copied",
           "unplaced": "(not yet placed on a page)", "explained_on": "explained on",
           "provenance": "Source code: ", "drawn_by": "drawn by", "numbers_from": "numbers from",
           "explained": " (explained on page {page}, *{title}*)", "explained_front": " (explained on the home page)"},
}


























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


def _number_markup(fig_id: str, lang: str, number: str, home=None, page: str | None = None) -> str:
    """The figure's number, a link to its anchor; on a page that only reuses the figure (`home`, a
    numbering.FigureNumber, names another page) the link goes back to the page that explains it."""
    label = FIGURE_LABEL[lang].format(number)
    if home is None or home.home == page:
        return f'<a class="mha-fig-num" href="#fig-{fig_id}">{label}</a>'
    # a Markdown link, so that MkDocs resolves the .md path to the page in this language
    href = posixpath.relpath(home.home, posixpath.dirname(page or "") or ".") + f"#fig-{fig_id}"
    note = WORDS[lang]["explained_front"] if home.page == 0 else \
        WORDS[lang]["explained"].format(page=home.page, title=home.titles[lang])
    return f"[{label}]({href}){{: .mha-fig-num }}{note}"


def _print_label(control, lang: str, label: str) -> str:
    """Above a frame, in print only (where no slider names it): the control and its value."""
    if not control:
        return ""
    text = WORDS[lang]["frame"].format(control=control.label(lang), value=label)
    return f'<p class="mha-frame-label mha-print-only">{html.escape(text)}</p>'


def _frame_caption(text: str, repeats_label: bool) -> str:
    """Under a frame: its readout, or its value (which print already shows in the label above)."""
    if not text:
        return ""
    screen = " mha-screen-only" if repeats_label else ""
    return f'<p class="mha-frame-caption{screen}">{html.escape(text)}</p>'


FORMAT_LABELS = {"svg": "SVG", "pdf": "PDF", "png": "PNG 2×"}  # in the order offered: vector first


def _link(url: Callable[[str], str], path: str) -> str | None:
    """url(path), or None when the file was not written (under mkdocs serve, a frame that failed
    to draw has only its SVG error card; with MHA_DOWNLOADS=0 there are no downloads)."""
    try:
        return url(path)
    except Exception:
        return None


def downloads_html(fig_id: str, lang: str, url: Callable[[str], str], shown, figure_url: str | None) -> str:
    """The download row: the shown frame in each format (the slider script follows the frame),
    every frame as one zip per format, and a link that copies the figure's full URL."""
    words = WORDS[lang]
    one = [f'<a class="mha-dl" data-fmt="{fmt}" href="{href}" download>{FORMAT_LABELS[fmt]}</a>'
           for fmt in FORMAT_LABELS if (href := _link(url, shown.path(fmt))) is not None]
    every = [f'<a href="{href}" download>{words["zip"].format(FORMAT_LABELS[fmt])}</a>'
             for fmt in FORMAT_LABELS if len(frames(fig_id)) > 1
             and (href := _link(url, bundles.zip_path(fig_id, fmt))) is not None] if bundles.downloads_on() else []
    parts = ([f'<span class="mha-dl-what">{words["this_frame"]}</span> ' + " · ".join(one)] if len(one) > 1 else [])
    parts += [f'<span class="mha-dl-what">{words["all_frames"]}</span> ' + " · ".join(every)] if every else []
    if figure_url:
        parts.append(f'<a class="mha-copy-link" href="{html.escape(figure_url)}" data-label-copied="{words["copied"]}">'
                     f'{words["copy"]}</a>')
    sep = ' <span class="mha-dl-sep">|</span> '
    return f'<p class="mha-downloads">{sep.join(parts)}</p>' if parts else ""


PROVENANCE_FOLD = 12  # more mha_ref functions than this are folded under a count


def provenance_html(fig_id: str, lang: str) -> str:
    """Links to the code the figure is drawn from, at this version: its module, then the mha_ref
    functions. A long list (a trained figure reaches the whole training code) is folded under its
    count, so that it does not stand as a wall of links between the figure and the text; the fold's
    summary holds no link (a control inside a control)."""
    words = WORDS[lang]
    own, *functions = provenance.provenance(fig_id)
    link = lambda s, text: f'<a href="{html.escape(s.url)}"><code>{html.escape(text)}</code></a>'  # noqa: E731
    semicolon, comma = ("；", "、") if lang == "zh" else ("; ", ", ")
    body = f'{words["drawn_by"]} {link(own, own.label)}'
    names = comma.join(link(s, s.label.removeprefix("mha_ref.")) for s in functions)
    if len(functions) > PROVENANCE_FOLD:
        count = f"{len(functions)} 个函数" if lang == "zh" else f"{len(functions)} functions"
        return (f'<div class="mha-provenance" data-search-exclude><p>{words["provenance"]}{body}</p>'
                f'<details class="mha-provenance-fold"><summary>{words["numbers_from"]} {count}</summary>'
                f'<p>{names}</p></details></div>')
    if functions:
        body += f'{semicolon}{words["numbers_from"]} ' + names
    return f'<p class="mha-provenance">{words["provenance"]}{body}</p>'


def _size_attrs(size: Callable[[str], tuple[int, int] | None] | None, path: str) -> str:
    """ width="…" height="…" of an image in CSS px, so the browser reserves its box before it loads."""
    wh = size(path) if size else None
    return f' width="{wh[0]}" height="{wh[1]}"' if wh else ""


# Below this viewport width a page shows a figure's narrow variant (style.narrow): the column is
# then too narrow for the wide drawing's text to stay 11 px (it does from 544 px, a 576 px viewport).
NARROW_MEDIA = "(max-width: 36em)"


def pictures(frame, alt: str, url: Callable[[str], str], size, hidden: bool = False, narrow_only: str = "") -> str:
    """A frame's images: <picture class="mha-light"> and <picture class="mha-dark"> (the stylesheet
    shows the one of Material's scheme), each the wide drawing or, at NARROW_MEDIA (and for media
    `narrow_only`, e.g. print), the narrow one. `hidden`: a frame the slider hides, whose files
    come as data-src/data-srcset, fetched when the reader steps near it (mha-figures.js). A variant
    that was not written (a failed frame's error card has only its SVG) is left out."""
    attr = "data-src" if hidden else "src"
    media = ", ".join(m for m in (narrow_only, NARROW_MEDIA) if m)
    out = []
    for look, suffix in (("light", ""), ("dark", "dark.")):
        wide = frame.path(f"{suffix}svg")
        href = _link(url, wide)
        if href is None:
            continue
        thin = frame.path(f"narrow.{suffix}svg")
        thin_href = _link(url, thin)
        source = (f'<source media="{media}" {attr}set="{thin_href}"{_size_attrs(size, thin)}>'
                  if thin_href else "")
        out.append(f'<picture class="mha-{look}">{source}<img {attr}="{href}" alt="{html.escape(alt)}"'
                   f'{_size_attrs(size, wide)} loading="lazy"></picture>')
    return "".join(out)


def data_html(mod, lang: str, csv_href: str | None = None) -> str:
    """The numbers a figure draws, every frame's, as a table folded under it: a way in for a
    screen reader, and numbers a lecturer can copy. Only for a figure module with data(lang),
    which gives (column heads, rows of cell texts); computed by mha_ref like the drawing. With
    `csv_href`, the fold ends in a link to the same table as a CSV file (bundles.data_csv)."""
    if getattr(mod, "data", None) is None:
        return ""
    fig_id = mod.__name__.rsplit(".", 1)[1].replace("_", "-")
    try:
        head, rows = bundles.data_table(fig_id, lang)
    except bundles.DataTableError as e:
        raise MarkupError(str(e)) from e
    cell = html.escape
    link = (f'<p class="mha-data-csv"><a href="{cell(csv_href)}" download>{WORDS[lang]["csv"]}</a></p>\n'
            if csv_href else "")
    # a bare <table>: Material's script wraps it to scroll sideways, as it does the page's own tables
    return (f'<details class="mha-data"><summary>{WORDS[lang]["data"]}</summary>\n<table>\n<thead><tr>'
            + "".join(f'<th scope="col">{cell(h)}</th>' for h in head) + "</tr></thead>\n<tbody>\n"
            + "\n".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
            + "\n</tbody></table>\n" + link + "</details>\n")


def figure_html(fig_id: str, lang: str, number: int | str, url: Callable[[str], str], start: str | None = None,
                where: str = "", home=None, page: str | None = None, show_failures: bool = False,
                page_url: str | None = None, size: Callable[[str], tuple[int, int] | None] | None = None) -> str:
    """The HTML of one placed figure. `url` turns a path below the site's figures/ into a link and
    `size` gives its image's width and height in CSS px (None: unknown); `home` and `page` as in
    `_number_markup`. A figure that fails to import raises FigureError, or
    with `show_failures` (mkdocs serve) is an error card in its place."""
    try:
        mod = registry.get(fig_id)
    except KeyError as e:
        raise MarkupError(f"{where}: {e.args[0]}") from None
    except FigureError as e:
        if not show_failures:
            raise
        return cards.figure_html(e.at(lang))
    words = WORDS[lang]
    control = mod.CONTROL
    cap = caption(fig_id, lang, where)
    alt_text = first_sentence(plain(cap))  # short: the caption under it says the rest, in numbers
    cap = expand_media(cap)
    readout = getattr(mod, "readout", None)
    start_index = _start_index(fig_id, start, where)
    parts = []
    for i, frame in enumerate(frames(fig_id)):
        label = control.value_label(frame.value, lang) if control else ""
        text = readout(lang, frame.value) if (readout and control) else label
        alt = alt_text + (f" ({label})" if label else "")
        files = "".join(f' data-{fmt}="{href}"' for fmt in save.FORMATS
                        if (href := _link(url, frame.path(fmt))) is not None)
        current = " is-current" if control and i == start_index else ""
        svg = url(frame.path("svg"))
        img = pictures(frame, alt, url, size, hidden=bool(control) and not current,
                       narrow_only="print" if control else "")
        if control:  # no script, no slider: the frames as small multiples, each its narrow drawing
            small = frame.path("narrow.svg") if _link(url, frame.path("narrow.svg")) else frame.path("svg")
            img += (f'<noscript><img src="{url(small)}" alt="{html.escape(alt)}"'
                    f'{_size_attrs(size, small)} loading="lazy"></noscript>')
        parts.append(
            f'<div class="mha-frame{current}" data-index="{i}" data-value="{html.escape(label)}"{files}>'
            + _print_label(control, lang, label)
            + f'<a href="{svg}">{img}</a>'
            + _frame_caption(text, repeats_label=text == label)
            + "</div>"
        )
    number_markup = _number_markup(fig_id, lang, str(number), home, page)
    attrs = ""
    if control:
        attrs = (f' data-start="{start_index}" data-label-control="{html.escape(control.label(lang))}"'
                 f' data-label-prev="{words["prev"]}" data-label-next="{words["next"]}"')
    # md_in_html: the caption is Markdown in the page, so its math and links are handled like
    # the page's own (MkDocs rewrites .md links); the frames are plain HTML.
    return (
        f'<figure class="mha-figure" id="fig-{fig_id}" data-figure="{fig_id}" markdown="block">\n'
        # the slider's row, kept empty until mha-figures.js fills it: its room is held from the start
        + ('<div class="mha-controls"></div>\n' if control and len(parts) > 1 else "")
        + f'<div class="mha-frames"{attrs}>\n' + "\n".join(parts) + "\n</div>\n"
        f'<figcaption markdown="span">{number_markup}{"" if number_markup.endswith("）") else " "}{cap}</figcaption>\n'
        + data_html(mod, lang, _link(url, bundles.csv_path(fig_id)))
        + downloads_html(fig_id, lang, url, frames(fig_id)[start_index], page_url and f"{page_url}#fig-{fig_id}")
        + provenance_html(fig_id, lang) + "\n"
        '</figure>'
    )


def gallery_markdown(lang: str, url: Callable[[str], str], numbers: dict, page: str, where: str,
                     show_failures: bool = False, size: Callable[[str], tuple[int, int] | None] | None = None) -> str:
    """Every registered figure as a card: start frame (the page's own SVG, loaded lazily), number,
    id, caption, a link to the page that explains it, its downloads. Number order; unplaced last.
    A figure that fails to import raises FigureError, or with `show_failures` (mkdocs serve) is its
    error card."""
    def order(fig_id: str):
        n = numbers.get(fig_id)
        return (0, *map(int, n.number.split("."))) if n else (1, registry.ORDER.index(fig_id), 0)

    items = []
    for fig_id in sorted(registry.ORDER, key=order):
        words, home = WORDS[lang], numbers.get(fig_id)
        try:
            shown = frames(fig_id)[_start_index(fig_id, None, where)]
        except FigureError as e:
            if not show_failures:
                raise
            items.append(cards.figure_html(e.at(lang)))
            continue
        cap = caption(fig_id, lang, where)
        if home is None:
            head = f'{FIGURE_LABEL[lang].format("–")} {words["unplaced"]}'
        else:
            href = posixpath.relpath(home.home, posixpath.dirname(page) or ".") + f"#fig-{fig_id}"
            title = home.titles[lang]
            head = f'[{FIGURE_LABEL[lang].format(home.number)}]({href}){{: .mha-fig-num }} · {words["explained_on"]} [{title}]({href})'
        img = url(shown.path("svg"))
        items.append(
            f'<figure class="mha-gallery-item" id="gallery-{fig_id}" markdown="block">\n'
            # a card is as narrow as a phone's column at every width: its narrow drawing always
            f'<div class="mha-gallery-thumb"><a href="{img}">'
            + pictures(shown, first_sentence(plain(cap)), url, size, narrow_only="all") + '</a></div>\n'
            f'<figcaption markdown="span">{head} · <code>{fig_id}</code><br>{cap}</figcaption>\n'
            + downloads_html(fig_id, lang, url, shown, None) + "\n</figure>")
    return '<div class="mha-gallery" markdown="block">\n' + "\n\n".join(items) + "\n</div>"


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


def table_markdown(name: str, lang: str, where: str) -> str:
    """A Markdown table of published data, headed in the page's language."""
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
    elif name in cheatsheet.TABLES:  # the reference page's notation, shapes and costs
        head, rows, align = cheatsheet.TABLES[name](zh)
    else:
        raise MarkupError(f"{where}: unknown table {name!r}; tables: published-models, head-count, toy-head-roles, "
                          + ", ".join(cheatsheet.TABLES))
    align = align or "l" * len(head)
    lines = ["| " + " | ".join(head) + " |", "|" + "".join("---:|" if a == "r" else "---|" for a in align)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if name in cheatsheet.TABLES:  # compact on a phone (docs/assets/mha-figures.css)
        lines = ['<div class="mha-sheet" markdown="block">', "", *lines, "", "</div>"]
    return "\n".join(lines)


def expand(text: str, lang: str, url: Callable[[str], str], where: str, numbers: dict | None = None,
           page: str | None = None, show_failures: bool = False, page_url: str | None = None,
           size: Callable[[str], tuple[int, int] | None] | None = None) -> tuple[str, list[str]]:
    """Expand every construct of a page. Returns the new Markdown and the figure ids in order.

    numbers: the site's figure numbers (numbering.figure_numbers) and page: this page's nav entry.
    Without them (a text on its own) a figure is numbered by its place in the text.
    show_failures, size: as in figure_html. page_url: this page's full URL, for each figure's "copy link".
    """
    placed: list[str] = []

    def one_figure(m: re.Match) -> str:
        opts = dict(o.split("=", 1) for o in m["opts"].split())
        unknown = set(opts) - {"start"}
        if unknown:
            raise MarkupError(f"{where}: figure {m['id']!r} has unknown option(s) {sorted(unknown)}")
        if m["id"] in placed:
            raise MarkupError(f"{where}: figure {m['id']!r} is placed twice; its anchor must be unique")
        placed.append(m["id"])
        if numbers is None:
            number, home = str(len(placed)), None
        elif m["id"] in numbers:
            home = numbers[m["id"]]
            number = home.number
        else:
            raise MarkupError(f"{where}: figure {m['id']!r} has no site-wide number; is the page in the nav?")
        return "\n" + figure_html(m["id"], lang, number, url, opts.get("start"), where, home, page, show_failures,
                                  page_url, size) + "\n"

    text = replace_outside_code(FIGURE, one_figure, text)
    text = replace_outside_code(GALLERY, lambda m: gallery_markdown(lang, url, numbers or {}, page or "", where, show_failures, size),
                text)
    text = replace_outside_code(REFERENCES, lambda m: references_markdown(), text)
    text = replace_outside_code(TABLE, lambda m: table_markdown(m["name"], lang, where), text)
    text = expand_media(text)
    text = expand_values(text, where)
    leftover = outside_code(LEFTOVER, text)
    if leftover:  # a typo, or a block construct written inside a paragraph
        raise MarkupError(f"{where}: unknown or misplaced construct {leftover[0].group(0)!r}; "
                          "use figure, table, gallery or references on a line of their own, or value")
    return text, placed
