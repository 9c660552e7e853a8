"""The files a reader takes away, written for the site and the CLI alike: every frame stamped with
its attribution, one zip of all frames per format, and the figure's data table as CSV.

All frames of a figure come as one zip per format: every frame stays a file of its own, with its
own attribution, ready for `\\includegraphics` or a slide, and nothing is drawn a second time.
The CLI writes these zips; the site does not keep them, since they would only repeat its frames'
files byte for byte: the page's script packs the same zip from those files when a reader asks
(docs/assets/mha-figures.js), with the same members in the same order (zip_members).

A figure with data(lang) also comes as `<id>.csv`: the table folded under it on the page, for a
spreadsheet. It holds the table and nothing else (a line of attribution would be a row the reader
has to delete before computing with it); the page it is linked from carries the credit.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import zipfile
from functools import lru_cache
from pathlib import Path

from ..keep import as_json, disk, reach, switches
from ..engine import registry
from ..engine.cache import FigureCache, from_env
from ..engine.render import Frame, frames, prepare
from ..engine import dark
from ..engine.save import FORMATS
from .attribution import Attribution, attribution
from .stamp import stamp


DOWNLOADS_ENV = "MHA_DOWNLOADS"  # a switch, on unless "0" (or off, no, false): the site without downloads (bench's baseline)


ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build-time clock in any file


def downloads_on() -> bool:
    return switches.env_switch(DOWNLOADS_ENV, True)


NARROW = "narrow.svg"  # the frame drawn for a phone's width, print and small multiples: never a download


SITE_DRAWN = ("png",)  # formats the page's script draws from a frame's SVG (mha-figures.js): no file on the site


def site_formats() -> tuple[str, ...]:
    """What the site writes of each frame: the page's SVG and its narrow drawing, and with
    downloads its PDF. Each SVG holds its dark look as well (engine/dark.py, both()); the PNG
    downloads, light and dark, are drawn from it by the page's script, stamped from its metadata."""
    return ("svg", NARROW, *(f for f in FORMATS if f not in ("svg", *SITE_DRAWN) and downloads_on()))


ATTRIBUTION = "ATTRIBUTION.txt"  # a zip's first member: whose figure, under which licence


def attribution_text(a: Attribution) -> str:
    """What a zip's ATTRIBUTION.txt says: the figure's title, then its source, licence and version."""
    return f"{a.title}\n{a.description}\n"


def zip_members(fig_id: str, fmt: str) -> list[str]:
    """The names inside a figure's all-frames zip, in order: the attribution, then each frame's
    file under its path below the figures folder (the page's script names them the same way)."""
    return [ATTRIBUTION, *(frame.path(fmt) for frame in frames(fig_id))]


def zip_frames(fig_id: str, fmt: str, files: list[tuple[Frame, bytes]], a: Attribution) -> bytes:
    """Every frame's file, stamped, in frame order, with fixed timestamps: the same bytes each build."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in [(ATTRIBUTION, attribution_text(a).encode()),
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


# The slate scheme's SVG of a frame: what the page shows in the dark scheme is the frame's own SVG,
# at its address + "#dark" (dark.FRAGMENT), which holds both looks. The frame's download for a dark
# slide is that look as a plain SVG (dark.literal), stamped like the others, which the page's script
# makes from the frame's SVG when it is asked for (mha-figures.js), with its PNG; it comes one frame
# at a time (no zip, no PDF). So the site carries no second copy of any frame for the dark scheme.
DARK_LOOK = "#" + dark.FRAGMENT  # what a frame's SVG address ends in to show its dark look


def zip_path(fig_id: str, fmt: str) -> str:
    """Where a figure's all-frames zip lives below the figures folder, beside its frames' folder."""
    return f"{fig_id}-frames-{fmt}.zip"


def download_name(fig_id: str, lang: str, fmt: str, slug: str | None = None, every_frame: bool = False,
                  number: str | None = None) -> str:
    """The file name a download is saved under: unique across figures, frames and languages, so
    that a lecturer's downloads folder never has one overwrite another (the paths on the site name
    a frame within its figure's folder only, and are shared by the two languages). `number`, the
    figure's number as its page prints it ("3.2"), leads the name, so that a folder lists the
    files in the site's order and a file says which figure of the notes it is: the name is only
    the saved file's (the link's `download`); the URL keeps the id alone, which never changes."""
    lead = f"fig-{number}-" if number else ""
    if every_frame:
        return f"{lead}{fig_id}-frames.{lang}.{fmt}.zip"
    return f"{lead}{fig_id}{'-' + slug if slug else ''}.{lang}.{fmt}"


def csv_path(fig_id: str) -> str:
    """Where a figure's data table lives below the figures folder, beside its frames."""
    return f"{fig_id}.csv"


class DataTableError(ValueError):
    """A figure's data() gave a table of the wrong shape."""


DATA_STAGE = "give its data table"  # as a FigureError names it: "failed to give its data table"


@lru_cache(maxsize=None)  # the CSV and the page's table are the same table: computed once per build
def data_table(fig_id: str, lang: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """(column heads, rows) of the figure's data(lang), the numbers it draws; None if it has no
    data(). Every row must be as wide as the heads. Kept in the figure cache beside the frames,
    under the same digest of what the figure is drawn from: a build whose figure did not change
    reads its table instead of computing it again."""
    data = getattr(registry.get(fig_id), "data", None)
    if data is None:
        return None
    cache = from_env()
    if cache is None:
        return _data_table(fig_id, lang, data)
    module = registry.module_name(fig_id)
    digest = _figure_digests(cache.folder).get(module) or cache.digests([module])[0]
    path = cache.folder / TABLES / f"{digest}.{lang}.json"
    kept = cache.get(path)
    if kept is not None:
        try:
            head, rows = as_json.from_json(kept.decode("utf-8"), ())
            return tuple(head), tuple(tuple(r) for r in rows)
        except (ValueError, TypeError) as e:
            disk.drop_kept(path, f"the data table of figure {fig_id!r} ({lang})", f"cannot be read "
                            f"({type(e).__name__}: {e})", "computing it again")
    table = _data_table(fig_id, lang, data)
    cache.put(path, as_json.to_json(table).encode("utf-8"))
    return table


@lru_cache(maxsize=None)  # serve re-imports this module after an edit
def _figure_digests(folder: Path) -> dict[str, str]:
    """Every registered figure module's digest (engine/cache.py, FigureCache.digests), worked out once
    per process: each data table is named by its figure's."""
    modules = [registry.module_name(f) for f in registry.ORDER]
    return dict(zip(modules, FigureCache(folder).digests(modules)))


def _data_table(fig_id: str, lang: str, data) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    prepare(fig_id)  # seed-roles' five seeds trained first, not inside data()'s time limit
    with registry.limited(fig_id, lang, DATA_STAGE):
        try:
            head, rows = data(lang)
        except Exception as e:
            raise registry.FigureError.caught(e, fig_id, lang, None, DATA_STAGE) from e
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
                if isinstance(e, registry.FigureError):
                    raise
                raise registry.FigureError.caught(e, fig_id, lang, None, DATA_STAGE) from e
            if data is not None:
                write(lang, csv_path(fig_id), data)
                written += 1
    return written


DARK_STAGE = "take on its dark look"  # as a FigureError names it: "failed to take on its dark look"


def _both(r) -> bytes:
    """The rendered SVG with its dark look in it (dark.both), or a FigureError that names the frame."""
    try:
        return dark.both(r.data)
    except dark.DarkError as e:
        raise registry.FigureError.caught(e, r.frame.fig_id, r.lang, r.frame.slug, DARK_STAGE) from e


_INDENT = re.compile(rb">\n +<")
_PATH_DATA = re.compile(rb'(<path\b[^>]*?\sd=")([^"]*)"')  # inside a <path> tag: a text's "<" is escaped
_DECIMAL = re.compile(rb"-?\d+\.\d+")


def _hundredths(m: re.Match) -> bytes:
    text = (b"%.2f" % float(m[0])).rstrip(b"0").rstrip(b".")
    return b"0" if text == b"-0" else text


def _path_data(d: bytes) -> bytes:
    """Path data on one line, its coordinates to a hundredth, each relative to the point before it
    (_relative), without the spaces the grammar lets go (around a command's letter, before a minus
    sign): "M 0 1.5 L 2 -3 z " -> "m0 1.5 2-4.5z"."""
    d = _DECIMAL.sub(_hundredths, d.replace(b" \n", b" ").replace(b"\n", b" "))
    d = _relative(d) or d
    return _COMMAND.sub(rb"\1", d).replace(b" -", b"-").strip()


_TOKEN = re.compile(rb"[A-Za-z]|-?\d+(?:\.\d+)?")
_ARGUMENTS = {b"M": 2, b"L": 2, b"Q": 4, b"C": 6}  # all matplotlib writes, with Z


def _hundredths_of(number: bytes) -> int:
    whole, _, part = number.lstrip(b"-").partition(b".")
    value = int(whole) * 100 + int((part + b"00")[:2])
    return -value if number.startswith(b"-") else value


def _written(value: int) -> str:
    whole, part = divmod(abs(value), 100)
    return ("-" if value < 0 else "") + str(whole) + (f".{part:02d}".rstrip("0") if part else "")


def _relative(d: bytes) -> bytes | None:
    """Absolute path data of M, L, Q, C and Z, each number to a hundredth at most, as relative data:
    every point from the one before it (after Z, from the start of its subpath), a command's letter
    only where it changes (after m, l is implied). Exact: the sums are of whole hundredths. None for
    data of another command or shape, which stays as it is."""
    tokens, out = _TOKEN.findall(d), []
    x = y = start_x = start_y = 0
    i, last = 0, None
    while i < len(tokens):
        command = tokens[i].upper()
        i += 1
        if command == b"Z":
            out.append("z")
            x, y, last = start_x, start_y, None
            continue
        n = _ARGUMENTS.get(command)
        if n is None or i + n > len(tokens) or any(t.isalpha() for t in tokens[i:i + n]) or tokens[i - 1] != command:
            return None
        values = [_hundredths_of(t) for t in tokens[i:i + n]]
        i += n
        numbers = [_written(v - (x if k % 2 == 0 else y)) for k, v in enumerate(values)]
        letter = command.lower().decode()
        out.append((" " if letter == last else letter) + " ".join(numbers))  # the same command again: implied
        last = "l" if letter == "m" else letter
        x, y = values[-2], values[-1]
        if command == b"M":
            start_x, start_y = x, y
    return "".join(out).encode()


_COMMAND = re.compile(rb" *([MLHVCSQTAZmlhvcsqtaz]) *")
_PLACING = re.compile(rb"<(?:use|g)\b[^>]*>")  # a <use> places a glyph or a marker, a <g> a text
_PLACE = re.compile(rb'(\sx="|\sy="|translate\()([^")]*)')
_GLYPH_AT = re.compile(rb'(<use xlink:href="#[^"]*") transform="translate\(([^ )]+) ([^ )]+)\)"')
# a glyph's outline as matplotlib names it: its font's name, then its character code in hexadecimal
_GLYPH = re.compile(rb'<path id="([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)*)-([0-9a-f]+)" d=')


def _glyph_at(m: re.Match) -> bytes:
    """A <use> moved by translate(x y) and nothing else says it with x and y (SVG adds them the same way)."""
    return m[1] + b' x="' + m[2] + b'"' + (b"" if m[3] == b"0" else b' y="' + m[3] + b'"')


_AUTOMATIC_ID = re.compile(rb'<g id="([A-Za-z][A-Za-z0-9.]*_\d+)"(/?)>(\n?)')  # matplotlib's "text_3", "line2d_1"
_REFERENCE = re.compile(rb'#([A-Za-z][\w.-]*)')


def _without_automatic_ids(svg: bytes) -> bytes:
    """Groups without the ids matplotlib numbers them by ("patch_2", "xtick_3"), which nothing refers
    to, and without the groups those ids were all there was of (an empty tick line's "<g id="line2d_1"/>")."""
    referred = set(_REFERENCE.findall(svg))
    return _AUTOMATIC_ID.sub(lambda m: m[0] if m[1] in referred else b"" if m[2] else b"<g>" + m[3], svg)


def _short_glyph_names(svg: bytes) -> bytes:
    """Each font's name in its glyphs' ids as F0, F1, ... in the order the file defines them
    ("NotoSansCJKsc-Regular-4a" -> "F0-4a"): every <use> of a glyph names it, thousands of times a file."""
    fonts: dict[bytes, bytes] = {}
    for m in _GLYPH.finditer(svg):
        fonts.setdefault(m[1], b"F%d" % len(fonts))
    if not fonts:
        return svg
    names = b"|".join(re.escape(name) for name in sorted(fonts, key=len, reverse=True))
    return re.sub(rb'(id="|xlink:href="#)(' + names + rb')-([0-9a-f]+)"',
                  lambda m: m[1] + fonts[m[2]] + b"-" + m[3] + b'"', svg)


def compact(svg: bytes) -> bytes:
    """An SVG as matplotlib writes it, lighter to carry and drawn the same: no indentation between
    elements, and path data on one line with its coordinates to a hundredth of a point (a 7,200th
    of an inch: under a twentieth of a pixel on a 2x phone screen at twice the figure's size) and
    no space it does not need; where a <use> places a glyph or a marker and a <g> a text, to a hundredth
    too (a glyph's place as x and y); a glyph's id with a short name for its font; groups without
    matplotlib's numbered ids. Only drawing attributes change, never a text: a title may hold "0.125"."""
    svg = _PATH_DATA.sub(lambda m: m[1] + _path_data(m[2]) + b'"', svg)
    svg = _PLACING.sub(lambda u: _PLACE.sub(lambda m: m[1] + _DECIMAL.sub(_hundredths, m[2]), u[0]), svg)
    svg = _GLYPH_AT.sub(_glyph_at, svg)
    return _INDENT.sub(b">\n<", _without_automatic_ids(_short_glyph_names(svg)))


def published(r, a: Attribution | None) -> bytes:
    """A rendered frame (render.Rendered) as the file a reader gets: an SVG the page shows with both
    its looks (dark.both) and made compact, a download stamped with its attribution `a` (None: the
    narrow drawing, never a download, carries none)."""
    drawn = _both(r) if r.fmt in ("svg", NARROW) else r.data
    if a is None:
        return compact(drawn)
    data = stamp(drawn, r.fmt, a)
    return compact(data) if r.fmt == "svg" else data


@lru_cache(maxsize=1)  # serve re-imports this module after an edit
def _publishing_code() -> str:
    """A digest of the code published() runs (dark looks, compacting, stamping) and what it reaches."""
    return reach.CodeReach(by_name=("figures", "mha_ref")).digest((__name__, "published"))


PUBLISHED, TABLES = "published", "tables"  # the figure cache's folders of published files and data tables


def _kept_published(r, a: Attribution | None, cache) -> bytes:
    """published(r, a), kept in the figure cache under a digest of the drawn bytes, the attribution
    and the code that publishes: a build in which neither the frame, nor its attribution, nor that
    code changed reads the file instead of making it again."""
    if cache is None:
        return published(r, a)
    key = hashlib.sha256(repr((_publishing_code(), r.fmt, hashlib.sha256(r.data).hexdigest(), a)).encode()).hexdigest()
    path = cache.folder / PUBLISHED / f"{key}.{r.fmt}"
    data = cache.get(path)
    if data is None:
        data = published(r, a)
        cache.put(path, data)
    return data


def write_all(results, numbers: dict, write, zips: bool = True, cache=None) -> None:
    """Stamp rendered frames (render.Rendered, in site order) and write them, then (`zips`, the CLI)
    each multi-frame figure's zips: `write(lang, path below figures/, bytes)`. The site build and
    the CLI both call this; the site's pages pack their zips themselves (see above). With the figure
    `cache` (engine/cache.py), what was published before is read from it (_kept_published)."""
    pending: dict[tuple[str, str, str], list[tuple[Frame, bytes]]] = {}
    for r in results:
        if r.fmt == NARROW:  # what the page shows on a phone: never a download
            write(r.lang, r.frame.path(r.fmt), _kept_published(r, None, cache))
            continue
        data = _kept_published(r, attribution(r.frame, r.lang, numbers.get(r.frame.fig_id)), cache)
        write(r.lang, r.frame.path(r.fmt), data)
        if zips and r.frame.slug is not None:
            group = pending.setdefault((r.lang, r.frame.fig_id, r.fmt), [])
            group.append((r.frame, data))
            if len(group) == len(frames(r.frame.fig_id)):
                first = group[0][0]
                write(r.lang, zip_path(first.fig_id, r.fmt),
                      zip_frames(first.fig_id, r.fmt, group, attribution(Frame(first.fig_id, None, None), r.lang,
                                                                         numbers.get(first.fig_id))))
                del pending[(r.lang, r.frame.fig_id, r.fmt)]
