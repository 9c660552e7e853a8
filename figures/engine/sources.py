"""What a figure is drawn from, as one digest: the code it reaches, the fonts, the library versions.

The code is found as figures.keep.reach.CodeReach finds it: a figure's own module and every `figures`
module it imports count whole; in `mha_ref` only what the figure can reach by name counts. An edit
to an `mha_ref` function thus redraws only the figures that reach it, and an edit to a comment or
a docstring redraws nothing.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import metadata
from pathlib import Path

import matplotlib
import noto_cjk_sans_otc
import numpy as np
from matplotlib import font_manager, ft2font

from ..keep.disk import ROOT
from ..keep.reach import CodeReach, Unit

WHOLE = "figures"  # modules of this package count whole
BY_NAME = "mha_ref"  # modules of this package count by the functions and classes reached
HARNESS = "figures.engine.render"  # what turns every figure into bytes (it imports save and registry)
# where frames are kept, and the processes that draw them: not what a frame holds; and the ordered
# list of ids (figures/gallery/__init__.py), which the registry reads: registering a figure must not
# redraw every other one
NOT_DRAWING = ("figures.engine.cache", "figures.engine.sources", "figures.engine.pool", "figures.gallery")


def environment() -> str:
    """The library versions and the fonts every frame depends on. A font counts by its file's name and
    size and what matplotlib reads from it, and by the order of the fonts' paths (which a PDF follows),
    not by where they lie: two checkouts whose venvs sort the same against the system's fonts (two
    fresh clones under /tmp) give the same digests, so the frames one drew serve the other."""
    # Noto apart: it counts by its package's version and file, and kit.style.setup() adds it to the list
    # only once a process draws, which must not change the digests of a process that drew a frame itself.
    known = sorted((_font_file(f.fname), f.name, f.style, f.weight, f.stretch, f.variant)
                   for f in font_manager.fontManager.ttflist if Path(f.fname) != Path(noto_cjk_sans_otc.FONT_PATH))
    # matplotlib's PDF writes its fonts sorted by path: where the venv lies against the system's fonts
    # (/tmp/... before /usr/share/fonts, /work/... after) orders the objects of every PDF
    order = [_font_file(path) for path in sorted({str(f.fname) for f in font_manager.fontManager.ttflist}
                                                 | {str(noto_cjk_sans_otc.FONT_PATH)})]
    parts = (sys.version_info[:2], matplotlib.__version__, np.__version__, ft2font.__freetype_version__,
             metadata.version("noto-cjk-sans-otc"), _font_file(noto_cjk_sans_otc.FONT_PATH), known, order)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _font_file(path: str) -> tuple[str, int]:
    p = Path(path)
    return p.name, p.stat().st_size


class Sources(CodeReach):
    """The figure and reference code of a checkout, parsed once; digests of what each figure reaches."""

    def __init__(self, root: Path = ROOT):
        super().__init__(root, whole=(WHOLE,), by_name=(BY_NAME,), skip=NOT_DRAWING)
        self.env = environment()
        self._digests: dict[str, str] = {}

    def figure_units(self, module: str) -> dict[Unit, str]:
        """Every unit a figure module reaches, with its digest (the harness included)."""
        return self.reached((module, "*"), (HARNESS, "*"))

    def digest(self, module: str) -> str:
        """One digest of everything the figure in `module` is drawn from."""
        if module not in self._digests:
            self._digests[module] = super().digest((module, "*"), (HARNESS, "*"), salt=self.env)
        return self._digests[module]

    def stamp(self) -> str:
        """A digest of every byte of the code the digests are read from, and of the environment:
        while it holds, the digests do too, and need not be worked out again."""
        h = hashlib.sha256(self.env.encode())
        for package in (WHOLE, BY_NAME):
            for path in sorted((self.root / package).rglob("*.py")):
                h.update(path.relative_to(self.root).as_posix().encode() + b"\0" + path.read_bytes())
        return h.hexdigest()
