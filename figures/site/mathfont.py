"""The maths' own font, served by the site: STIX Two Math, an OpenType font with a MATH table, the
table a browser reads to size a sum sign for display, join a root sign to its bar and stretch
brackets around what they hold. Without such a font the MathML that mathml.py writes is set in the
text font: a text-sized sum, a root sign apart from its bar, brackets that do not grow.

The font comes from the npm registry (Fontsource's package, SIL Open Font License 1.1, whose
licence text is served beside it), fetched once with `npm pack` into .cache/npm/ by the same
function as the offline copy's shim, and is added to every build under assets/vendor/, where
mha-figures.css names it. A browser fetches it only for a page that shows maths."""

from __future__ import annotations

import logging

from mkdocs.structure.files import File, Files

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
