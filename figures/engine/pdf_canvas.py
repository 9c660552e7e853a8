"""The PDF canvas the downloads are saved with: matplotlib's own, measuring each text once per process.

As figures/engine/svg_canvas.py does for the SVG: matplotlib measures text sizes per renderer (a new one
every save) and parses mathtext into a memory of 50, so every frame measured and parsed its labels
afresh. Here every PDF renderer shares svg_canvas's remembering mathtext parser (the same "path"
parser matplotlib's PDF renderer uses) and one memory of text sizes, filled by matplotlib's own
measuring code, so the bytes are matplotlib's (tests/test_frame_speed.py). Used by save.to_bytes*
as savefig's backend="module://figures.engine.pdf_canvas"; nothing else in matplotlib is changed.
"""

from __future__ import annotations

from matplotlib.backends import backend_pdf
from matplotlib.backends.backend_mixed import MixedModeRenderer

from .svg_canvas import _TEXT_TO_PATH, line_metrics, remembered_size

_SIZES: dict = {}  # (text, font properties, ismath) -> (width, height, descent) in points


class RendererPdf(backend_pdf.RendererPdf):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._text2path = _TEXT_TO_PATH  # its mathtext parser remembers, shared by every renderer

    def _get_font_height_metrics(self, prop):
        # matplotlib's hook (text.Text._get_layout); a PDF is drawn at 72 dpi. Matplotlib's PDF
        # renderer answers only for its 14 core fonts, which kit.style.setup() does not use.
        return line_metrics(prop.copy())

    def get_text_width_height_descent(self, s, prop, ismath):
        if ismath == "TeX":
            return super().get_text_width_height_descent(s, prop, ismath)
        return remembered_size(_SIZES, (s, prop.copy(), ismath),
                               lambda: super(RendererPdf, self).get_text_width_height_descent(s, prop, ismath))


class FigureCanvasPdf(backend_pdf.FigureCanvasPdf):
    def print_pdf(self, filename, *, bbox_inches_restore=None, metadata=None, **_):
        """matplotlib's print_pdf for one figure to one file, drawing with the RendererPdf above.

        `**_`: savefig passes a canvas from outside matplotlib its dpi, colours and orientation too,
        which a PDF does not use (matplotlib filters them out for its own canvas)."""
        dpi = self.figure.dpi
        self.figure.dpi = 72  # there are 72 pdf points to an inch
        width, height = self.figure.get_size_inches()
        file = backend_pdf.PdfFile(filename, metadata=metadata)
        try:
            file.newPage(width, height)
            renderer = MixedModeRenderer(self.figure, width, height, dpi, RendererPdf(file, dpi, height, width),
                                         bbox_inches_restore=bbox_inches_restore)
            self.figure.draw(renderer)
            renderer.finalize()
            file.finalize()
        finally:
            file.close()


FigureCanvas = FigureCanvasPdf  # what matplotlib looks up in a backend module
