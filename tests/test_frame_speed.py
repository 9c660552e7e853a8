"""Frames saved through figures/svg_canvas.py, which measures and lays out each text once per
process, are byte for byte the frames matplotlib's own SVG canvas draws; and the figure cache counts
that canvas among the code every frame is drawn with."""

import io

import matplotlib.pyplot as plt
import pytest

from figures import registry
from figures.render import frames
from figures.sources import Sources
from figures.style import to_bytes

# Between them: Chinese and Latin text, mathtext, a log colour bar, a legend, stacked shared axes.
FIGURES = ["what-a-head-reads", "scale-pitfall", "four-heads", "flops-vs-context"]


def _matplotlib_svg(fig) -> bytes:
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})  # no backend: matplotlib's
    finally:
        plt.close(fig)
    return buf.getvalue()


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("fig_id", FIGURES)
def test_svg_canvas_draws_the_bytes_matplotlibs_own_canvas_draws(fig_id, lang):
    draw = registry.get(fig_id).draw
    for frame in frames(fig_id)[:2]:  # the second frame meets texts the first one left remembered
        assert to_bytes(draw(lang, frame.value)) == _matplotlib_svg(draw(lang, frame.value)), frame


def test_the_figure_cache_counts_the_svg_canvas_among_every_figures_sources():
    sources = Sources()
    for fig_id in registry.ORDER:
        reached = {module for module, _ in sources.reached(registry.module_name(fig_id))}
        assert "figures.svg_canvas" in reached, fig_id
