"""The PNG canvas the downloads are saved with: matplotlib's Agg, measuring each text once per process.

As figures/engine/svg_canvas.py does for the SVG: Agg measures text sizes per renderer and parses
mathtext into a memory of 50, so every frame measured and parsed its labels afresh. Here every Agg
renderer shares svg_canvas's remembering mathtext parser (the "path" parser Agg itself uses; a
parse is remembered per dpi) and one memory of text sizes per dpi, filled by Agg's own measuring
code, so the pixels are Agg's (tests/test_frame_speed.py). Used by save.to_bytes* as savefig's
backend="module://figures.engine.png_canvas"; nothing else in matplotlib is changed.
"""

from __future__ import annotations

from matplotlib.backends import backend_agg

from .svg_canvas import _TEXT_TO_PATH, line_metrics, remembered_size

_SIZES: dict = {}  # (text, font properties, ismath, dpi) -> (width, height, descent) in pixels


class RendererAgg(backend_agg.RendererAgg):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mathtext_parser = _TEXT_TO_PATH.mathtext_parser  # remembers, shared by every renderer

    def _get_font_height_metrics(self, prop):
        # matplotlib's hook for a renderer that knows a font's line height (text.Text._get_layout);
        # savefig draws at the figure's dpi, the renderer's own
        return line_metrics(prop.copy(), self.dpi)

    def get_text_width_height_descent(self, s, prop, ismath):
        if ismath == "TeX":
            return super().get_text_width_height_descent(s, prop, ismath)
        return remembered_size(_SIZES, (s, prop.copy(), ismath, self.dpi),
                               lambda: super(RendererAgg, self).get_text_width_height_descent(s, prop, ismath))


class FigureCanvasAgg(backend_agg.FigureCanvasAgg):
    def get_renderer(self):
        """matplotlib's, making the RendererAgg above."""
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = RendererAgg(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer


FigureCanvas = FigureCanvasAgg  # what matplotlib looks up in a backend module
