"""The one shared look of every figure: fonts, colours, sizes, the settings that keep output
deterministic, and the figure every drawing starts from (wide, or narrow for phones and print)."""

from __future__ import annotations

import contextlib

import matplotlib

matplotlib.use("Agg")  # no screen; must precede pyplot

import matplotlib.pyplot as plt  # noqa: E402
import noto_cjk_sans_otc  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


# Okabe-Ito colours: told apart with the common colour-vision deficiencies. The diffuse head's
# grey is the lightest that still reads as text on white (4.5:1), as its name is written in it.
HEAD_COLOURS = {"position": "#0072B2", "syntax": "#D55E00", "rare": "#009E73", "diffuse": "#767676"}
# Slices 1-4 are the running example's four heads, in their colours; 5-8 only appear when h = 8.
SLICE_COLOURS = (*HEAD_COLOURS.values(), "#CC79A7", "#E69F00", "#56B4E9", "#000000")
# The running example's heads by role, as every figure names them (Chinese, English).
HEAD_NAMES = {"position": ("位置头", "position head"), "syntax": ("句法头", "syntax head"),
              "rare": ("稀有词头", "rare-token head"), "diffuse": ("弥散头", "diffuse head")}
INK = "#222222"
MUTED = "#767676"  # the lightest grey that reads as text on white (4.5:1)
# How a figure singles out the query token: a light box round it. Never bold: the CJK face
# ships in one weight (Regular), so bold would silently come out regular.
QUERY_BOX = {"boxstyle": "round,pad=0.25", "facecolor": "#e4e4e4", "edgecolor": MUTED, "lw": 0.8}

WIDTH = 6.4  # inches; every figure shares the width so that frames line up on the page
# The narrow variant, for phones, print and small multiples: a 390 px phone gives a figure 358 CSS
# px; 3.7 in is 355 px, so it is shown at its own size there.
NARROW_WIDTH = 3.7
# No text in a figure is smaller (tests/test_legibility.py): 11.3 CSS px where a desktop page shows
# the figure at its own 614 px, and on a 390 px phone, which shows the narrow variant.
SMALLEST_PT = 8.5

_width = [WIDTH]

_registered = False


def setup() -> None:
    """Register the pip-installed CJK font and fix every setting that could vary between runs."""
    global _registered
    if not _registered:
        # The collection holds SC, TC, JP, KR and HK faces; addfont registers each by name.
        font_manager.fontManager.addfont(str(noto_cjk_sans_otc.FONT_PATH))
        _registered = True
    plt.rcdefaults()
    matplotlib.use("Agg")
    plt.rcParams.update({
        # A list of families gives per-glyph fallback: Chinese and Latin from Noto, symbols
        # that Noto lacks (such as ✗) from DejaVu, which ships inside matplotlib. Noto comes in
        # its Regular weight only, so no figure asks for bold (tests/test_figures_render.py).
        "font.family": ["Noto Sans CJK SC", "DejaVu Sans"],
        "mathtext.fontset": "dejavusans",
        "axes.unicode_minus": False,  # U+2212 is not in every face; a hyphen-minus always is
        "svg.fonttype": "path",  # glyphs as paths: the reader needs no font
        # Type 3 (matplotlib's default, set here on purpose): the PDF's text stays text (it can be
        # searched and copied, Chinese included). Type 42 would embed a TrueType subset of the
        # 19 MB CJK collection: the same text, ten times the saving time (~2 s a frame).
        "pdf.fonttype": 3,
        "svg.hashsalt": "mha-explained",  # fixed ids inside the SVG
        "path.simplify": False,
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.edgecolor": MUTED,
        "axes.labelcolor": INK,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "xtick.color": INK,
        "ytick.color": INK,
        "text.color": INK,
        "legend.frameon": False,
    })


class LaidOutOnce(Figure):
    """A figure that savefig lays out once, with the renderer that then draws it.

    With a layout engine, savefig first draws the whole figure with drawing switched off, only to
    run the layout, with a renderer of its own, then draws it for real with another. Here that
    first pass only notes the layout is due, and the real pass runs it with its own renderer, so
    the text measured for the layout is not measured again to be drawn: the same layout, the same
    bytes (tests/test_figures_render.py), a fifth less time per frame than drawing twice.
    """

    def draw(self, renderer):
        inner = getattr(renderer, "_renderer", renderer)  # svg and pdf wrap their renderer
        switched_off = any("draw_path" in getattr(r, "__dict__", {}) for r in (renderer, inner))
        if switched_off and self.axes and self.get_layout_engine() is not None:
            self._layout_due = self.get_layout_engine()  # savefig switches it off for the real pass
            return
        engine = self.__dict__.pop("_layout_due", None)
        if engine is not None:
            self._renderer_now = renderer
            try:
                engine.execute(self)
            finally:
                del self._renderer_now
        super().draw(renderer)

    def _get_renderer(self):
        # the layout engine asks the figure for a renderer: the one drawing it, while there is one
        return self.__dict__.get("_renderer_now") or super()._get_renderer()


@contextlib.contextmanager
def narrow():
    """Inside it, every figure is drawn at NARROW_WIDTH: the same drawing code, laid out for a
    phone. A figure module may ask `is_narrow()` where a wide layout cannot simply be squeezed."""
    _width.append(NARROW_WIDTH)
    try:
        yield
    finally:
        _width.pop()


def is_narrow() -> bool:
    return _width[-1] == NARROW_WIDTH


def new_figure(height: float = 3.2, **kwargs):
    """A figure of the width being drawn (WIDTH, or NARROW_WIDTH inside narrow()); returns
    (fig, ax or axes) like plt.subplots."""
    setup()
    return plt.subplots(figsize=(_width[-1], height), layout="constrained", FigureClass=LaidOutOnce, **kwargs)












