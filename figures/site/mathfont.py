"""The maths' own font, served by the site: STIX Two Math, an OpenType font with a MATH table, the
table a browser reads to size a sum sign for display, join a root sign to its bar and stretch
brackets around what they hold. Without such a font the MathML that mathml.py writes is set in the
text font: a text-sized sum, a root sign apart from its bar, brackets that do not grow.

The font comes from the npm registry (Fontsource's package, SIL Open Font License 1.1, whose
licence text is served beside it), fetched once with `npm pack` into .cache/npm/ by the same
function as the offline copy's shim, and is added to every build under assets/vendor/, where
mha-figures.css names it. A browser fetches it only for a page that shows maths."""

from __future__ import annotations

import hashlib
import html
import io
import logging
import re
from pathlib import Path

import fontTools.subset
from fontTools.ttLib import TTFont
from mkdocs.structure.files import File, Files

from ..keep import disk
from . import offline

PACKAGE = "@fontsource/stix-two-math@5.3.0"
# the package's one face: despite "latin" in its name it holds all 4,605 glyphs and the MATH table
FILES = {"assets/vendor/stix-two-math.woff2": "files/stix-two-math-latin-400-normal.woff2",
         "assets/vendor/stix-two-math.LICENSE.txt": "LICENSE"}

log = logging.getLogger("mkdocs.plugins.figures")


def add_font(files: Files, config, cache=offline.NPM_CACHE) -> Files:
    """The font and its licence as site files; without npm or network, one warning that says so
    (a --strict build, as CI's, then fails) and the maths falls back to the reader's fonts."""
    for dest, member in FILES.items():
        if files.get_file_from_path(dest) is not None:
            continue
        try:
            source = offline.npm_file(PACKAGE, member, cache)
        except offline.NpmError as e:
            log.warning(f"the maths' font ({PACKAGE}) is missing, so formulas fall back to the reader's fonts: {e}")
            return files
        files.append(File.generated(config, dest, abs_src_path=str(source)))
    return files


# what a browser may draw from the font whatever the pages hold: printable ASCII, and the
# mathematical italic letters, Latin and Greek (MathML draws a one-letter <mi> in italic by taking
# its letter from these: x is drawn as U+1D465, h as U+210E), so that no letter hangs on a rule
BASE = frozenset([*range(0x20, 0x7F), *range(0x1D434, 0x1D468), 0x210E, *range(0x1D6E2, 0x1D71C)])
MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.S)
TAG = re.compile(r"<[^>]*>")


# what the browser draws for an element from the font with no character of the page's: a root's sign
DRAWN_FOR = {"msqrt": 0x221A, "mroot": 0x221A}
ELEMENT_NAME = re.compile(r"<(m[a-z]+)\b")


def used_characters(site_dir: Path) -> set[int]:
    """The code points inside the <math> elements of every page the build wrote, those the browser
    draws for their elements (DRAWN_FOR: the root sign of <msqrt>), and BASE."""
    used = set(BASE)
    for page in sorted(site_dir.rglob("*.html")):
        for element in MATH_ELEMENT.findall(page.read_text(encoding="utf-8")):
            used.update(map(ord, html.unescape(TAG.sub("", element))))
            used.update(DRAWN_FOR[name] for name in ELEMENT_NAME.findall(element) if name in DRAWN_FOR)
    return used


def subset(font: bytes, unicodes: set[int]) -> bytes:
    """The font cut to `unicodes`, with every glyph its MATH table reaches from them (the larger
    sums, the stretched brackets' pieces, the root's variants) and its layout features: as woff2,
    the same bytes for the same input (the font's own timestamp kept)."""
    options = fontTools.subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.notdef_outline = True
    options.name_IDs = ["*"]  # the font's names, its licence's included
    face = TTFont(io.BytesIO(font), recalcTimestamp=False)
    cutter = fontTools.subset.Subsetter(options)
    cutter.populate(unicodes=unicodes)
    cutter.subset(face)
    face.flavor = "woff2"
    out = io.BytesIO()
    face.save(out, reorderTables=False)
    return out.getvalue()


def cut_to_pages(site_dir: Path) -> None:
    """Replace the served font by the part of it that the built pages' maths use: a page with maths
    fetches about a tenth of the whole font before it is drawn (mha-figures.css; a preload in
    overrides/main.html), so the formulas are set in it from the first paint and nothing moves
    when it arrives. Run once every language is built (hooks.on_post_build). Cutting takes seconds
    (fontTools unpacks the whole woff2 in Python), so the cut is kept in the build's cache under a
    digest of the font, the characters and fontTools' version (cache_folder)."""
    served = site_dir / next(iter(FILES))
    if not served.exists():  # no font (add_font warned)
        return
    font, used = served.read_bytes(), used_characters(site_dir)
    key = hashlib.sha256(font + repr(sorted(used)).encode() + fontTools.version.encode()).hexdigest()[:32]
    folder = cache_folder()
    cut = disk.kept_or_made(None if folder is None else folder / f"{key}.woff2", _read_font,
                             lambda: subset(font, used), bytes, "the maths' font cut to the pages")
    served.write_bytes(cut)


def cache_folder() -> Path | None:
    """Where the cut fonts are kept: under the build's cache folder (figures.keep.disk), None if off."""
    return disk.cache_folder("math-font")


def _read_font(data: bytes) -> bytes:
    TTFont(io.BytesIO(data))  # a damaged file fails here, and is made again
    return data
