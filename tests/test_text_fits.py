"""No text of any drawing reaches past the figure's edge, where the saved file cuts it, and no two
texts are drawn over one another: every frame, wide and narrow, in both languages (the dark
drawings are the light ones recoloured, the PDF and PNG downloads the wide one laid out as its SVG).
Measured where the frames are drawn for the session (frame_checks.check: each text's extent, as the
SVG's save draws it, against the figure's box)."""

import matplotlib.pyplot as plt
import pytest

from figures.engine import registry
from figures.engine.render import frames
from figures.engine.save import to_bytes_each
from figures.kit import style
from frame_checks import cut, extents, frame_params, overlapping

ALL_FRAMES = [f for fig_id in registry.ORDER for f in frames(fig_id)]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("frame", frame_params(ALL_FRAMES), ids=lambda f: f.path("svg"))
def test_no_text_is_cut_at_the_edge_or_drawn_over_another(frame, lang, checked_frames):
    checked = checked_frames[frame, lang]
    assert checked.files is not None, checked.error
    assert checked.cut == []
    assert checked.overlaps == []


def _measured(fig) -> tuple[list[str], list[str]]:
    """cut() and overlapping() of a figure as the export's save draws it (its renderer, its dpi)."""
    assert plt.rcParams["savefig.bbox"] in (None, "standard")  # the export keeps the figure's box: what is past it is lost
    found = []
    fig.canvas.mpl_connect("draw_event", lambda event: found.append(extents(fig, event.renderer)))
    to_bytes_each(fig, ("svg",))
    return cut(fig, found[0]), overlapping(found[0])


def test_the_check_finds_a_text_past_the_edge_and_by_how_much():
    style.setup()
    fig, ax = style.new_figure(2.0)
    ax.text(1.0, 0.5, "x" * 40, transform=fig.transFigure, ha="center", fontsize=10)  # half of it past the right
    ax.text(0.5, 0.5, "inside", transform=fig.transFigure)
    found, _ = _measured(fig)
    assert len(found) == 1 and found[0].startswith("'xxx") and found[0].endswith("px past the right"), found
    half = float(found[0].split()[1])
    assert 60 < half < 160, found  # about half of 40 x's at 10 pt, in CSS px


def test_the_check_finds_axis_labels_over_one_another():
    style.setup()
    with style.narrow():  # as projection-columns was drawn on a phone: three long labels side by side
        fig, axes = style.new_figure(2.9, ncols=3)
    for ax in axes:
        ax.imshow([[0, 1], [1, 0]])
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel("output columns (by head)", fontsize=8.5)
    found, over = _measured(fig)
    assert over == ["'output columns (by head)' over 'output columns (by head)'"] * 2
    assert found  # the last one past the right edge


def test_the_check_counts_only_the_texts_drawn():
    style.setup()
    fig, (ax, off) = style.new_figure(2.0, ncols=2)
    ax.set_xticks([0, 1, 50], ["a", "b", "far away, past the right edge, and never drawn"])
    ax.set_xlim(0, 1)  # the third tick is outside the view: matplotlib keeps its label, undrawn
    off.set_xlabel("x" * 80)  # past both edges, were it drawn
    off.axis("off")
    assert _measured(fig) == ([], [])
