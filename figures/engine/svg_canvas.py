"""The SVG canvas the frames are saved with: matplotlib's own, measuring each text once per process.

matplotlib remembers text sizes per renderer, and only its last 50 mathtext parses, so every frame
(and savefig's layout pass, with a renderer of its own) measured, parsed and laid out its labels
afresh, though most labels recur from frame to frame. Here every renderer shares one TextToPath
that remembers sizes, parses and glyph layouts (with the glyphs' outlines) for the process, and a
font's line height is read from its tables once, not for every text. Two matplotlib internals are
used, the ones its own renderers use: matplotlib._text_helpers.layout and the renderer hook
_get_font_height_metrics. The figure cache's key holds matplotlib's version, and
tests/test_frame_speed.py checks the bytes against matplotlib's own canvas.

Everything remembered depends only on the text and its font properties, given the rcParams that
kit.style.setup() sets the same way before every frame. save.to_bytes uses this canvas explicitly
(savefig's backend="module://figures.engine.svg_canvas"); nothing else in matplotlib is changed.
"""

from __future__ import annotations

import codecs
import functools

from matplotlib import _text_helpers, cbook
from matplotlib.backends import backend_svg
from matplotlib.backends.backend_mixed import MixedModeRenderer
from matplotlib.font_manager import fontManager, get_font
from matplotlib.mathtext import MathTextParser
from matplotlib.textpath import TextToPath

_MEMORY = 4096  # distinct texts remembered: every label of every figure in both languages fits


class _RememberingParser(MathTextParser):
    """matplotlib's mathtext parser with a memory of _MEMORY expressions instead of 50."""

    def parse(self, s, dpi=72, prop=None, *, antialiased=None):
        # a copy: FontProperties are mutable, and a key must not change under the cache
        return self._parse(s, dpi, None if prop is None else prop.copy(), antialiased)

    @functools.lru_cache(_MEMORY)
    def _parse(self, s, dpi, prop, antialiased):
        return super().parse(s, dpi, prop, antialiased=antialiased)


class _RememberingTextToPath(TextToPath):
    """Text as paths, with each text's size and each mathtext parse remembered."""

    def __init__(self):
        super().__init__()
        self.mathtext_parser = _RememberingParser("path")

    def get_text_width_height_descent(self, s, prop, ismath):
        return self._size(s, prop.copy(), ismath)

    @functools.lru_cache(_MEMORY)
    def _size(self, s, prop, ismath):
        return super().get_text_width_height_descent(s, prop, ismath)

    def get_glyphs_with_font(self, font, s, glyph_map=None, return_new_glyphs_only=False, *,
                             features=None, language=None):
        """matplotlib's, with each text's glyphs, their places and outlines laid out once."""
        glyphs = self._laid_out(font, s, None if features is None else tuple(features), language)
        glyph_map = {} if glyph_map is None else glyph_map
        new = {} if return_new_glyphs_only else glyph_map
        new.update((name, outline) for name, _, _, outline in glyphs if name not in glyph_map)
        return [(name, x, y, 1.0) for name, x, y, _ in glyphs], new, []

    @functools.lru_cache(_MEMORY)
    def _laid_out(self, font, s, features, language):
        # the outline is read while the layout has the glyph loaded, as matplotlib does
        return tuple((self._get_glyph_repr(g.ft_object, g.glyph_index), g.x, g.y, g.ft_object.get_path())
                     for g in _text_helpers.layout(s, font, features=features, language=language))


_TEXT_TO_PATH = _RememberingTextToPath()


def remembered_size(sizes: dict, key: tuple, measure):
    """sizes[key], measured once: the PDF and PNG canvases' memory of text sizes. A text's size
    depends only on its key, given the rcParams kit.style.setup() sets the same before every frame."""
    if key not in sizes:
        if len(sizes) >= _MEMORY:
            sizes.clear()
        sizes[key] = measure()
    return sizes[key]


@functools.lru_cache(64)
def line_metrics(prop, dpi: float = 72) -> tuple[float, float, float] | tuple[None, None, None]:
    """(ascent, descent, line gap) in pixels at `dpi` of the font `prop` picks, from its tables.

    The same numbers matplotlib's Text reads on every layout (text.Text._get_layout), for a figure
    at `dpi`: 72 for an SVG or a PDF, which are always drawn at 72."""
    font = get_font(fontManager._find_fonts_by_props(prop))
    for table_name, gap, ascent, descent in (("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
                                              ("hhea", "lineGap", "ascent", "descent")):
        table = font.get_sfnt_table(table_name)
        if table is not None:
            # matplotlib's own arithmetic, so that the layout comes out to the same bit
            scale = 1 / font.get_sfnt_table("head")["unitsPerEm"] * prop.get_size_in_points() * dpi / 72
            return table[ascent] * scale, -table[descent] * scale, table[gap] * scale
    return None, None, None


class RendererSVG(backend_svg.RendererSVG):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._text2path = _TEXT_TO_PATH  # shared by every renderer, so measured once

    def _get_font_height_metrics(self, prop):
        # matplotlib's hook for a renderer that knows a font's line height (text.Text._get_layout)
        return line_metrics(prop.copy())


class FigureCanvasSVG(backend_svg.FigureCanvasSVG):
    def print_svg(self, filename, *, bbox_inches_restore=None, metadata=None, **_):
        """matplotlib's print_svg, drawing with the RendererSVG above.

        `**_`: savefig passes a canvas from outside matplotlib its dpi, colours and orientation too,
        which an SVG does not use (matplotlib filters them out for its own canvas)."""
        with cbook.open_file_cm(filename, "w", encoding="utf-8") as fh:
            if not cbook.file_requires_unicode(fh):
                fh = codecs.getwriter("utf-8")(fh)
            dpi = self.figure.dpi
            self.figure.dpi = 72
            width, height = self.figure.get_size_inches()
            renderer = MixedModeRenderer(
                self.figure, width, height, dpi,
                RendererSVG(width * 72, height * 72, fh, image_dpi=dpi, metadata=metadata),
                bbox_inches_restore=bbox_inches_restore)
            self.figure.draw(renderer)
            renderer.finalize()


FigureCanvas = FigureCanvasSVG  # what matplotlib looks up in a backend module
