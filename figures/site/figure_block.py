"""A figure on a page, as HTML: its frames in every look (wide and narrow, light and dark), the
slider's labels, its number and caption, the data table folded under it, its downloads and the
code it comes from. This is the only place that knows how a figure becomes HTML."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Callable


from ..engine import registry
from ..engine.render import FigureError, Frame, frames
from ..kit.words import FIGURE_LABEL
from ..publish import bundles, provenance
from ..publish.attribution import attribution, caption, credit_line, figure_url
from ..publish.identity import IDENTITY
from ..text.constructs import MarkupError, expand_media, first_sentence, plain
from . import cards, later


WORDS = {
    "zh": {"data": "图中的数据（表格）", "csv": "下载这张表（CSV，可用 Excel 打开）", "prev": "上一帧", "next": "下一帧", "frame": "{control}：{value}", "this_frame": "下载当前帧", "dark": "深色背景",
           "all_frames": "全部帧", "zip": "{} 压缩包", "zip_failed": "打包失败", "made_failed": "未能生成", "copy": "复制链接", "copied": "已复制",
           "copy_frozen": "复制本版链接", "copy_latest": "复制最新版链接",
           "unplaced": "（尚未放进任何一页）", "explained_on": "讲解见",
           "provenance": "代码出处：", "credit": "转载署名：", "drawn_by": "绘图代码", "numbers_from": "数值来自",
           "explained": "（详见第 {page} 页“{title}”）", "explained_front": "（详见首页）"},
    "en": {"data": "The numbers in this figure (a table)", "csv": "Download this table (CSV, opens in Excel)", "prev": "previous frame", "next": "next frame", "frame": "{control}: {value}", "this_frame": "Download this frame", "dark": "on dark",
           "all_frames": "all frames", "zip": "{} (zip)", "zip_failed": "could not pack the frames", "made_failed": "could not be made", "copy": "Copy link", "copied": "Copied",
           "copy_frozen": "Copy link (this version)", "copy_latest": "Copy link (latest)",
           "unplaced": "(not yet placed on a page)", "explained_on": "explained on",
           "provenance": "Source code: ", "credit": "Credit line:", "drawn_by": "drawn by", "numbers_from": "numbers from",
           "explained": " (explained on page {page}, *{title}*)", "explained_front": " (explained on the home page)"},
}


def opening_frame(fig_id: str, start: str | None, where: str) -> int:
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
    return f'<p class="mha-frame-label mha-print-only" data-search-exclude>{html.escape(text)}</p>'


def _frame_caption(text: str, repeats_label: bool) -> str:
    """Under a frame: its readout, or its value (which print already shows in the label above)."""
    if not text:
        return ""
    screen = " mha-screen-only" if repeats_label else ""
    return f'<p class="mha-frame-caption{screen}">{html.escape(text)}</p>'


FORMAT_LABELS = {"svg": "SVG", "pdf": "PDF", "png": "PNG 2×"}  # in the order offered: vector first
# A frame's files as the page names them (the keys of a frame's data-* attributes, as the slider
# script reads them: data-dark-svg is dataset.darkSvg): the site's path of each, with the look
# shown (LOOK: the dark one is the SVG's own, at #dark), and for a PNG the SVG mha-figures.js draws
# it from, SLIDE_PX wide. The PNGs and the dark SVG exist only as the script makes them from the
# SVG (MADE): without script, or on a page opened from disk, the stylesheet hides their links.
FILES = {"svg": "svg", "pdf": "pdf", "png": "svg", "darkSvg": "svg"}
LOOK = {"darkSvg": bundles.DARK_LOOK}
DRAWN_FROM = {"png": "svg", "darkPng": "darkSvg"}
MADE = ("png", "darkSvg", "darkPng")
SLIDE_PX = 3840  # a full-width 1080p slide at 2x; mha-figures.js reads it from data-width
NAMES = {"svg": "svg", "pdf": "pdf", "png": "png", "darkSvg": "dark.svg", "darkPng": "dark.png"}


def _link(url: Callable[[str], str], path: str) -> str | None:
    """url(path), or None when the file was not written (under mkdocs serve, a frame that failed
    to draw has only its SVG error card; with MHA_DOWNLOADS=0 there are no downloads)."""
    try:
        return url(path)
    except Exception:
        return None


def _looked(url: Callable[[str], str], frame, key: str) -> str | None:
    """The address of a frame's file as the page names it (a key of FILES), in its look, or None."""
    href = _link(url, frame.path(FILES[key]))
    return None if href is None else href + LOOK.get(key, "")


def _copy(href: str, label: str, lang: str, address: str = "") -> str:
    data = f' data-address="{html.escape(address)}"' if address else ""
    return f'<a class="mha-copy-link" href="{href}"{data} data-label-copied="{WORDS[lang]["copied"]}">{label}</a>'


def downloads_html(fig_id: str, lang: str, url: Callable[[str], str], shown, copy_link: bool, number=None,
                   label: str | None = None) -> str:
    """The download row: the shown frame in each format (the slider script follows the frame),
    every frame as one zip per format, and (`copy_link`, a figure placed on its page) a link that
    copies the figure's address. That link is the figure's anchor: mha-figures.js copies it resolved
    against the address the reader is on, which is right on any host, where site_url may not be. In
    a release (.github/CONTRIBUTING.md, "Releases"), two links: the figure's frozen address in this release, and
    beside it its living one in the newest (`number`: the figure's FigureNumber, its page). `label`,
    the figure's number as printed, leads each saved file's name (bundles.download_name)."""
    words = WORDS[lang]
    one = [(fmt, a) for fmt in FORMAT_LABELS if (a := _download(fig_id, lang, url, shown, fmt, FORMAT_LABELS[fmt], label))]
    dark = [a for a in (_download(fig_id, lang, url, shown, fmt, text, label)
                        for fmt, text in (("darkSvg", "SVG"), ("darkPng", FORMAT_LABELS["png"]))) if a]
    every = [_zip_link(fig_id, lang, fmt, label, href) for fmt in FORMAT_LABELS
             if (href := _link(url, frames(fig_id)[0].path(FILES[fmt]))) is not None] \
        if len(frames(fig_id)) > 1 and bundles.downloads_on() else []
    sep = ' <span class="mha-dl-sep">|</span> '
    # (html, the class of a part that the script makes: the stylesheet hides it, separator and all,
    # with no script or on a page opened from disk)
    # a link the script makes brings its own " · " (the stylesheet hides it with the link)
    this_frame = "".join(a if k == 0 else f'<span class="mha-dl-made"> · {a}</span>' if fmt in MADE else " · " + a
                         for k, (fmt, a) in enumerate(one))
    parts = [(f'<span class="mha-dl-what">{words["this_frame"]}</span> ' + this_frame, "")] if len(one) > 1 else []
    if len(dark) > 1 and parts:
        parts.append((f'<span class="mha-dl-what">{words["dark"]}</span> ' + " · ".join(dark), ' class="mha-dl-dark"'))
    if every:
        parts.append((f'<span class="mha-dl-what">{words["all_frames"]}</span> ' + " · ".join(every),
                      f' class="mha-dl-every"{_frame_files(fig_id, lang, url, number)}'))
    if copy_link and IDENTITY.release and number is not None:
        frozen = figure_url(fig_id, lang, number)
        parts.append((_copy(f"#fig-{fig_id}", words["copy_frozen"], lang, frozen) + " · "
                      + _copy(f"#fig-{fig_id}", words["copy_latest"], lang, IDENTITY.latest(frozen)), ""))
    elif copy_link:
        parts.append((_copy(f"#fig-{fig_id}", words["copy"], lang), ""))
    html_parts = [f"<span{made}>{sep if k else ''}{part}</span>" if made else (sep if k else "") + part
                  for k, (part, made) in enumerate(parts)]
    return f'<p class="mha-downloads">{"".join(html_parts)}</p>' if parts else ""


def _frame_files(fig_id: str, lang: str, url: Callable[[str], str], number) -> str:
    """ data-base="…" data-frames="…" data-attribution="…": what the page packs a figure's zips of
    all frames from. A frame's file in format F is base + stem + "." + F (in frame order), and
    stem + "." + F is its name inside the zip (Frame.path); ATTRIBUTION.txt's text comes first."""
    frames_ = frames(fig_id)
    base = url(frames_[0].path("svg")).removesuffix(frames_[0].path("svg"))
    for frame in frames_:  # a path the page links otherwise (quoted, moved) would break the zip
        if (href := _link(url, frame.path("svg"))) != base + frame.path("svg"):
            raise MarkupError(f"figure {fig_id}: frame {frame.path('svg')} is linked as {href!r}, not below {base!r}")
    text = bundles.attribution_text(attribution(Frame(fig_id, None, None), lang, number))
    return (f' data-base="{html.escape(base)}" data-frames="{html.escape(" ".join(f.stem for f in frames_))}"'
            f' data-attribution="{html.escape(text).replace(chr(10), "&#10;")}"')


def _zip_link(fig_id: str, lang: str, fmt: str, label: str | None, first: str) -> str:
    """A link that downloads every frame of the figure in one format as one zip, which the page's
    script packs from the frames' own files on the site: the same members, in the same order, as
    the CLI's zip (bundles.zip_members), from what its row names (_frame_files). PNGs, which the
    site does not keep, the script draws from the frames' SVGs (data-width), as it draws one
    frame's. Until the script takes the click, it leads to the first frame's file (`first`)."""
    drawn = f' data-width="{SLIDE_PX}"' if fmt in DRAWN_FROM else ""  # PNGs: drawn from the frames' SVGs
    return (f'<a class="mha-zip" href="{first}" data-zip="{fmt}"{drawn} '
            f'data-download="{bundles.download_name(fig_id, lang, fmt, every_frame=True, number=label)}" '
            f'data-label-failed="{WORDS[lang]["zip_failed"]}">{WORDS[lang]["zip"].format(FORMAT_LABELS[fmt])}</a>')


def _download(fig_id: str, lang: str, url: Callable[[str], str], shown, fmt: str, label: str,
              number: str | None = None) -> str | None:
    """A link that downloads the shown frame in one format (a key of NAMES), or None when its file
    was not written. A PNG link names the SVG the page's script draws it from (mha-figures.js),
    stamped with the attribution in that SVG's metadata; the dark SVG is that SVG's dark look made
    plain (dark.literal). These (MADE) are the script's only: without it, the stylesheet hides them."""
    if fmt in DRAWN_FROM and not bundles.downloads_on():  # the PNGs: downloads, as the PDF
        return None
    drawn_from = DRAWN_FROM.get(fmt)
    href = _looked(url, shown, drawn_from or fmt)
    if href is None:
        return None
    extra = f' data-draw="{drawn_from}" data-draw-href="{href}" data-width="{SLIDE_PX}"' if drawn_from else ""
    extra += f' data-label-failed="{WORDS[lang]["made_failed"]}"' if fmt in MADE else ""
    return (f'<a class="mha-dl" data-fmt="{fmt}" href="{href}"{extra} '
            f'download="{bundles.download_name(fig_id, lang, NAMES[fmt], shown.slug, number=number)}">{label}</a>')


def credit_html(fig_id: str, lang: str, home) -> str:
    """The credit line to copy under a reused figure (attribution.credit_line); a click selects it whole."""
    return (f'<p class="mha-credit"><span class="mha-credit-what">{WORDS[lang]["credit"]}</span> '
            f'<span class="mha-credit-text">{html.escape(credit_line(fig_id, lang, home))}</span></p>')


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


def _attr(key: str) -> str:
    """The data-* attribute of a dataset key: "darkSvg" -> "dark-svg"."""
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in key)


def _size_attrs(size: Callable[[str], tuple[int, int] | None] | None, path: str) -> str:
    """ width="…" height="…" of an image in CSS px, so the browser reserves its box before it loads."""
    wh = size(path) if size else None
    return f' width="{wh[0]}" height="{wh[1]}"' if wh else ""


# Below this viewport width a page shows a figure's narrow variant (kit.style.narrow): the column is
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
    wide, thin = frame.path("svg"), frame.path(bundles.NARROW)
    for look, fragment in (("light", ""), ("dark", bundles.DARK_LOOK)):  # one file, two looks (engine/dark.py)
        href = _link(url, wide)
        if href is None:
            continue
        href += fragment
        thin_href = _link(url, thin)
        source = (f'<source media="{media}" {attr}set="{thin_href}{fragment}"{_size_attrs(size, thin)}>'
                  if thin_href else "")
        out.append(f'<picture class="mha-{look}">{source}<img {attr}="{href}" alt="{html.escape(alt)}"'
                   f'{_size_attrs(size, wide)} loading="lazy"></picture>')
    return "".join(out)


def data_html(mod, lang: str, csv_href: str | None = None, number: str | None = None) -> str:
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
    link = (f'<p class="mha-data-csv"><a href="{cell(csv_href)}" download="{bundles.download_name(fig_id, lang, "csv", number=number)}">'
            f'{WORDS[lang]["csv"]}</a></p>\n' if csv_href else "")
    # a bare <table>: Material's script wraps it to scroll sideways, as it does the page's own tables
    return (f'<details class="mha-data"><summary>{WORDS[lang]["data"]}</summary>\n<table>\n<thead><tr>'
            + "".join(f'<th scope="col">{cell(h)}</th>' for h in head) + "</tr></thead>\n<tbody>\n"
            + "\n".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
            + "\n</tbody></table>\n" + link + "</details>\n")


def figure_html(fig_id: str, lang: str, number: int | str, url: Callable[[str], str], start: str | None = None,
                where: str = "", home=None, page: str | None = None, show_failures: bool = False,
                size: Callable[[str], tuple[int, int] | None] | None = None) -> str:
    """The HTML of one placed figure. `url` turns a path below the site's figures/ into a link and
    `size` gives its image's width and height in CSS px (None: unknown); `home` and `page` as in
    `_number_markup`. A figure that fails to import, or whose data() or readout() fails or runs
    past the time limit, raises FigureError, or with `show_failures` (mkdocs serve) is an error
    card in its place."""
    if show_failures and later.pending(fig_id):  # mkdocs serve, its frames still being drawn
        return cards.pending_html(fig_id, lang)
    try:
        try:
            mod = registry.get(fig_id)
        except KeyError as e:
            raise MarkupError(f"{where}: {e.args[0]}") from None
        return _placed(mod, fig_id, lang, number, url, start, where, home, page, size)
    except FigureError as e:  # failed to import, or its data() or readout() failed
        if not show_failures:
            raise
        return cards.figure_html(e.at(lang))


def _placed(mod, fig_id: str, lang: str, number: int | str, url: Callable[[str], str], start: str | None,
            where: str, home, page: str | None,
            size: Callable[[str], tuple[int, int] | None] | None) -> str:
    words = WORDS[lang]
    control = mod.CONTROL
    cap = caption(fig_id, lang, where)
    alt_text = first_sentence(plain(cap))  # short: the caption under it says the rest, in numbers
    cap = expand_media(cap)
    readout = getattr(mod, "readout", None)
    start_index = opening_frame(fig_id, start, where)
    parts = []
    for i, frame in enumerate(frames(fig_id)):
        label = control.value_label(frame.value, lang) if control else ""
        with registry.limited(fig_id, lang, "give its readout"):
            try:
                text = readout(lang, frame.value) if (readout and control) else label
            except Exception as e:
                raise FigureError.caught(e, fig_id, lang, frame.slug, "give its readout") from e
        alt = alt_text + (f" ({label})" if label else "")
        files = "".join(f' data-{_attr(fmt)}="{href}" data-{_attr(fmt)}-name="{bundles.download_name(fig_id, lang, NAMES[fmt], frame.slug, number=str(number))}"'
                        for fmt in FILES if (href := _looked(url, frame, fmt)) is not None)
        files += f' data-dark-png-name="{bundles.download_name(fig_id, lang, NAMES["darkPng"], frame.slug, number=str(number))}"'
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
        + data_html(mod, lang, _link(url, bundles.csv_path(fig_id)), str(number))
        # each block on a line of its own: Markdown would wrap a second one on the line in a <p>
        + downloads_html(fig_id, lang, url, frames(fig_id)[start_index], copy_link=True, number=home,
                         label=str(number)) + "\n"
        + credit_html(fig_id, lang, home) + "\n"
        + provenance_html(fig_id, lang) + "\n"
        '</figure>'
    )
