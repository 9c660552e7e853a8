"""Figure files a reader may take away: each carries its own attribution, and where it comes from.

A frame is drawn once and cached without any attribution (figures/render.py, figures/cache.py);
the attribution (title, figure number, page URL, licence, version) is stamped into the bytes when
the file is written, by the site build and by the CLI alike, so both write the same bytes. Stamping
rather than passing metadata to savefig keeps the cache independent of the pages: a figure that
gets a new number or moves to another page is not drawn again (a stamp takes well under a
millisecond; a PDF save alone takes about 0.2 s).

All frames of a figure come as one zip per format: every frame stays a file of its own, with its
own attribution, ready for `\\includegraphics` or a slide, and nothing is drawn a second time.

A figure with data(lang) also comes as `<id>.csv`: the table folded under it on the page, for a
spreadsheet. It holds the table and nothing else (a line of attribution would be a row the reader
has to delete before computing with it); the page it is linked from carries the credit.
"""

from __future__ import annotations

import ast
import csv
import io
import os
import re
import struct
import zipfile
import zlib
from functools import lru_cache
from html import escape
from typing import NamedTuple

from . import registry
from .cache import OFF
from .identity import IDENTITY
from .render import Frame, frames
from .sources import BY_NAME, ROOT, Sources
from .style import FORMATS, LANGS, VARIANTS

DOWNLOADS_ENV = "MHA_DOWNLOADS"  # "0" (or off, no, false): the site without downloads (bench's baseline)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build-time clock in any file

WORDS = {
    "zh": {"figure": "图 {}", "unnumbered": "图（未编号）", "of": "{figure}，出自《{site}》：{url}",
           "licence": "采用 {licence} 许可（{url}），署名：{authors}", "version": "版本 {}"},
    "en": {"figure": "Figure {}", "unnumbered": "Figure (unnumbered)", "of": "{figure} of {site}: {url}",
           "licence": "Licensed {licence} ({url}); attribute to {authors}", "version": "version {}"},
}


class Attribution(NamedTuple):
    title: str         # "图 1.2 一个头只能混合", the number and the caption's first sentence
    description: str   # figure, site, page URL, frame, licence and version, in one paragraph
    source: str        # the page that explains the figure, with #fig-<id>
    rights: str        # licence, its URL and whom to credit
    identifier: str    # "<id>/<frame slug>@<version>"
    lang: str
    keywords: str      # for the PDF's Keywords


def downloads_on() -> bool:
    return os.environ.get(DOWNLOADS_ENV, "").strip().lower() not in OFF


def site_formats() -> tuple[str, ...]:
    """What the site writes of each frame: the page's SVG and its variants (dark, narrow), and
    with downloads PDF and PNG too."""
    return ("svg", *VARIANTS, *(f for f in FORMATS if f != "svg" and downloads_on()))


def page_url(nav_entry: str, lang: str) -> str:
    """The full URL of a page ("one-head-blends.md") in a language; the first language sits at the root."""
    path = "" if nav_entry == "index.md" else nav_entry.removesuffix(".md") + "/"
    return IDENTITY.site_url + ("" if lang == LANGS[0] else f"{lang}/") + path


def _first_sentence(text: str) -> str:
    """A caption's first sentence, as plain text in its print wording (a file taken away is read
    as on paper): its title."""
    from .site.markup import first_sentence, plain
    return first_sentence(plain(text, media="print"))


def attribution(frame: Frame, lang: str, number) -> Attribution:
    """What a file of this frame says about itself. number: numbering.FigureNumber or None (unplaced)."""
    from .site.markup import caption  # the caption with its numbers filled in, as the page prints it
    w = WORDS[lang]
    figure = w["figure"].format(number.number) if number else w["unnumbered"]
    title = f"{figure} {_first_sentence(caption(frame.fig_id, lang))}"
    source = (page_url(number.home, lang) if number else IDENTITY.site_url) + f"#fig-{frame.fig_id}"
    control = registry.get(frame.fig_id).CONTROL
    shown = ""
    if control is not None and frame.slug is not None:  # which frame: its place and its value
        k, n, value = list(control.values).index(frame.value) + 1, len(control.values), control.value_label(frame.value, lang)
        shown = f"（第 {k}/{n} 帧：{value}）" if lang == "zh" else f" (frame {k} of {n}: {value})"
    rights = w["licence"].format(licence=IDENTITY.content_licence, url=IDENTITY.content_licence_url,
                                 authors=", ".join(IDENTITY.authors))
    version = w["version"].format(IDENTITY.version)
    description = (w["of"].format(figure=figure + shown, site=IDENTITY.title[lang], url=source)
                   + ("。" if lang == "zh" else ". ") + rights + ("；" if lang == "zh" else "; ") + version)
    identifier = f"{frame.fig_id}/{frame.slug or frame.fig_id}@{IDENTITY.version}"
    keywords = "; ".join([frame.fig_id, IDENTITY.content_licence, source, f"v{IDENTITY.version}"])
    return Attribution(title, description, source, rights, identifier, lang, keywords)


# ---- stamping: the attribution written into the bytes of each format ----

def stamp(data: bytes, fmt: str, a: Attribution) -> bytes:
    return {"svg": _stamp_svg, "pdf": _stamp_pdf, "png": _stamp_png}[fmt](data, a)


def _stamp_svg(data: bytes, a: Attribution) -> bytes:
    """<title> and <desc> first in the <svg> (what screen readers and editors show), and the Dublin
    Core fields in the <metadata> block matplotlib wrote."""
    dc = "".join(f"    <dc:{k}>{escape(v)}</dc:{k}>\n" for k, v in (
        ("title", a.title), ("description", a.description), ("rights", a.rights), ("source", a.source),
        ("identifier", a.identifier), ("language", a.lang)))
    text = data.decode("utf-8")
    head = f" <title>{escape(a.title)}</title>\n <desc>{escape(a.description)}</desc>\n"
    stamped, n = re.subn(r"( <metadata>.*?<cc:Work>\n)", lambda m: head + m[1] + dc, text, count=1, flags=re.S)
    if n != 1:
        raise ValueError("not an SVG written by matplotlib: no <metadata> block to stamp")
    return stamped.encode("utf-8")


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _stamp_png(data: bytes, a: Attribution) -> bytes:
    """International text chunks (UTF-8, so Chinese fits) right after the header chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG: no IHDR chunk to stamp after")
    end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    fields = (("Title", a.title), ("Author", ", ".join(IDENTITY.authors)), ("Description", a.description),
              ("Copyright", a.rights), ("Source", a.source), ("Identifier", a.identifier))
    chunks = b"".join(_png_chunk(b"iTXt", k.encode("latin-1") + b"\0\0\0" + a.lang.encode() + b"\0\0" + v.encode())
                      for k, v in fields)
    return data[:end] + chunks + data[end:]


def _pdf_text(s: str) -> bytes:
    return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


def _stamp_pdf(data: bytes, a: Attribution) -> bytes:
    """An incremental update (PDF 1.4, 7.5.6): a new Info dictionary, appended with its own xref
    section and a trailer pointing back at the old one. The drawing's bytes stay untouched."""
    m = re.search(rb"trailer\s*<<(.*?)>>\s*startxref\s*(\d+)\s*%%EOF\s*$", data, re.S)
    if not m:
        raise ValueError("not a PDF written by matplotlib: no trailer to stamp after")
    size = int(re.search(rb"/Size (\d+)", m[1])[1])
    root = re.search(rb"/Root (\d+ \d+ R)", m[1])[1]
    info = b"".join(b"/%s %s " % (k, _pdf_text(v)) for k, v in (
        (b"Title", a.title), (b"Author", ", ".join(IDENTITY.authors)), (b"Subject", a.description),
        (b"Keywords", a.keywords), (b"Rights", a.rights), (b"Source", a.source), (b"Identifier", a.identifier)))
    body = data if data.endswith(b"\n") else data + b"\n"
    obj = b"%d 0 obj\n<< %s>>\nendobj\n" % (size, info)
    xref = len(body) + len(obj)
    return (body + obj + b"xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %s >>\n"
            b"startxref\n%d\n%%%%EOF\n" % (size, len(body), size + 1, root, size, m[2], xref))


def zip_frames(fig_id: str, fmt: str, files: list[tuple[Frame, bytes]], a: Attribution) -> bytes:
    """Every frame's file, stamped, in frame order, with fixed timestamps: the same bytes each build."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in [("ATTRIBUTION.txt", f"{a.title}\n{a.description}\n".encode()),
                           *((frame.path(fmt), data) for frame, data in files)]:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16
            # PNG and PDF are compressed already; deflating them again costs time and saves nothing
            info.compress_type = zipfile.ZIP_DEFLATED if fmt == "svg" or name.endswith(".txt") else zipfile.ZIP_STORED
            z.writestr(info, data)
    return buf.getvalue()


SVG_SIZE = re.compile(rb'<svg [^>]*?width="([0-9.]+)(pt)?" height="([0-9.]+)(pt)?"')


def svg_size(head: bytes) -> tuple[int, int]:
    """The width and height in CSS px (96 per inch) of an SVG, from its first two kilobytes: in pt
    as matplotlib writes them, or in px (an error card)."""
    m = SVG_SIZE.search(head)
    if m is None:
        raise ValueError("the SVG does not start with its width and height")
    return tuple(round(float(m[i]) * (4 / 3 if m[i + 1] else 1)) for i in (1, 3))


def zip_path(fig_id: str, fmt: str) -> str:
    """Where a figure's all-frames zip lives below the figures folder, beside its frames' folder."""
    return f"{fig_id}-frames-{fmt}.zip"


def csv_path(fig_id: str) -> str:
    """Where a figure's data table lives below the figures folder, beside its frames."""
    return f"{fig_id}.csv"


class DataTableError(ValueError):
    """A figure's data() gave a table of the wrong shape."""


@lru_cache(maxsize=None)  # the CSV and the page's table are the same table: computed once per build
def data_table(fig_id: str, lang: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """(column heads, rows) of the figure's data(lang), the numbers it draws; None if it has no
    data(). Every row must be as wide as the heads."""
    data = getattr(registry.get(fig_id), "data", None)
    if data is None:
        return None
    head, rows = data(lang)
    if not rows or any(len(r) != len(head) for r in rows):
        raise DataTableError(f"figure {fig_id}: data() must give rows of {len(head)} cells")
    return tuple(head), tuple(tuple(r) for r in rows)


def data_csv(fig_id: str, lang: str) -> bytes | None:
    """The figure's data table as CSV, or None if it has none: UTF-8 behind a byte-order mark
    (without one, Excel reads a UTF-8 file in the system's code page and garbles Chinese), rows
    ended by CR LF and fields quoted only where needed (RFC 4180)."""
    table = data_table(fig_id, lang)
    if table is None:
        return None
    text = io.StringIO()
    csv.writer(text, lineterminator="\r\n").writerows([table[0], *table[1]])
    return ("\ufeff" + text.getvalue()).encode("utf-8")


def write_tables(langs, fig_ids, write, keep_going: bool = False) -> int:
    """Each chosen figure's data table as CSV, in each language: `write(lang, path, bytes)` as in
    write_all. A figure whose data() fails raises FigureError, or with `keep_going` (mkdocs serve)
    is left out. Returns how many files were written."""
    written = 0
    for lang in langs:
        for fig_id in fig_ids:
            try:
                data = data_csv(fig_id, lang)
            except Exception as e:
                if keep_going:
                    continue
                raise registry.FigureError.caught(e, fig_id, lang, None, "give its data table") from e
            if data is not None:
                write(lang, csv_path(fig_id), data)
                written += 1
    return written


def write_all(results, numbers: dict, write) -> None:
    """Stamp rendered frames (render.Rendered, in site order) and write them, then each multi-frame
    figure's zips: `write(lang, path below figures/, bytes)`. The site build and the CLI both call this."""
    pending: dict[tuple[str, str, str], list[tuple[Frame, bytes]]] = {}
    for r in results:
        if r.fmt in VARIANTS:  # what the page shows in the slate scheme or on a phone: never a download
            write(r.lang, r.frame.path(r.fmt), r.data)
            continue
        a = attribution(r.frame, r.lang, numbers.get(r.frame.fig_id))
        data = stamp(r.data, r.fmt, a)
        write(r.lang, r.frame.path(r.fmt), data)
        if r.frame.slug is not None:
            group = pending.setdefault((r.lang, r.frame.fig_id, r.fmt), [])
            group.append((r.frame, data))
            if len(group) == len(frames(r.frame.fig_id)):
                first = group[0][0]
                write(r.lang, zip_path(first.fig_id, r.fmt),
                      zip_frames(first.fig_id, r.fmt, group, attribution(Frame(first.fig_id, None, None), r.lang,
                                                                         numbers.get(first.fig_id))))
                del pending[(r.lang, r.frame.fig_id, r.fmt)]


def site_numbers(langs=LANGS) -> dict:
    """The site's figure numbers, read from mkdocs.yml's nav and the docs (for the CLI)."""
    import yaml

    from .site import numbering
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return numbering.figure_numbers(ROOT / config.get("docs_dir", "docs"), config["nav"], list(langs))


# ---- provenance: the code a figure is drawn from ----

class Source(NamedTuple):
    label: str  # "figures/peak_dip.py" or "mha_ref.toy.attention"
    path: str   # relative to the repository root
    line: int
    url: str


@lru_cache(maxsize=1)
def _sources() -> Sources:
    return Sources()


@lru_cache(maxsize=None)  # asked for on its page and in the gallery, in each language; serve re-imports this module
def provenance(fig_id: str) -> tuple[Source, ...]:
    """The figure's module, then every mha_ref function it reaches by name (figures/sources.py), by file and line."""
    sources = _sources()
    module = registry.module_name(fig_id)
    own = sources.module(module).path.relative_to(ROOT).as_posix()
    found = [Source(own, own, 1, IDENTITY.source_url(own, 1))]
    # public functions only: a private helper is part of the public function that calls it, and
    # mha_ref.checks only refuses bad input, it computes no number
    reached = [u for u in sources.reached(module) if u[0].split(".")[0] == BY_NAME and u[0] != f"{BY_NAME}.checks"
               and u[1] and not u[1].startswith("_")]
    for name, part in sorted(reached):
        mod = sources.module(name)
        for node in mod.defs[part].body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                path = mod.path.relative_to(ROOT).as_posix()
                found.append(Source(f"{name}.{part}", path, node.lineno, IDENTITY.source_url(path, node.lineno)))
    return tuple(found)


def source_line(source: Source) -> str:
    """The line a provenance link points at (the tests read it)."""
    return (ROOT / source.path).read_text(encoding="utf-8").splitlines()[source.line - 1]
