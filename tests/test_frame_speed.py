"""Frames saved through figures/engine/svg_canvas.py, pdf_canvas.py and png_canvas.py, which measure and
lay out each text once per process, are byte for byte the frames matplotlib's own canvases draw;
and the figure cache counts those canvases among the code every frame is drawn with."""

import io

import matplotlib.pyplot as plt
import pytest

from figures.engine import registry
from figures.engine.render import frames
from figures.engine.sources import Sources
from figures.engine.save import _METADATA, FORMATS, PNG_DPI, to_bytes, to_bytes_each

# Between them: Chinese and Latin text, mathtext, a log colour bar, a legend, stacked shared axes.
FIGURES = ["what-a-head-reads", "scale-pitfall", "four-heads", "flops-vs-context"]


def _matplotlib_each(fig) -> tuple[bytes, ...]:
    """Saved by matplotlib's own canvases (no backend), the SVG first so that it lays out."""
    saved = {}
    try:
        for fmt in sorted(FORMATS, key=lambda f: f != "svg"):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata=_METADATA[fmt], **({"dpi": PNG_DPI} if fmt == "png" else {}))
            saved[fmt] = buf.getvalue()
            fig.set_layout_engine("none")
    finally:
        plt.close(fig)
    return tuple(saved[fmt] for fmt in FORMATS)


@pytest.mark.slow  # every frame drawn three times in every format, the PNG at twice the page's resolution
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("fig_id", FIGURES)
def test_our_canvases_draw_the_bytes_matplotlibs_own_canvases_draw(fig_id, lang):
    draw = registry.get(fig_id).draw
    for frame in frames(fig_id)[:2]:  # the second frame meets texts the first one left remembered
        ours = to_bytes_each(draw(lang, frame.value), FORMATS)
        theirs = _matplotlib_each(draw(lang, frame.value))
        for fmt, a, b in zip(FORMATS, ours, theirs):
            assert a == b, (frame, fmt)
        assert to_bytes(draw(lang, frame.value)) == theirs[FORMATS.index("svg")], frame  # the SVG saved on its own too


def test_the_figure_cache_counts_the_canvases_among_every_figures_sources():
    sources = Sources()
    for fig_id in registry.ORDER:
        reached = {module for module, _ in sources.figure_units(registry.module_name(fig_id))}
        assert {"figures.engine.svg_canvas", "figures.engine.pdf_canvas", "figures.engine.png_canvas"} <= reached, fig_id
