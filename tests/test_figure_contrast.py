"""Graphics a reader must make out stand out from the page: WCAG's non-text contrast (1.4.11, at
least 3:1 against what is next to them), in the light scheme and, recoloured as the site's dark
variant is (figures/engine/dark.py), on the slate background."""

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex

from figures.engine import dark, registry
from figures.engine.render import frames
from figures.kit.words import LANGS

NON_TEXT = 3.0


def _bars_and_background(fig) -> list[tuple[str, str]]:
    """(fill, background) of every bar drawn in the figure, as '#rrggbb': the axes' own face, or
    the figure's where the axes have none."""
    out = []
    for ax in fig.axes:
        face = ax.get_facecolor() if ax.get_facecolor()[3] > 0 else fig.get_facecolor()
        for container in ax.containers:
            out += [(to_hex(bar.get_facecolor()), to_hex(face)) for bar in container]
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_every_bar_of_kv_heads_stands_out_from_the_page_in_both_schemes(lang):
    mod = registry.get("kv-heads")
    for frame in frames("kv-heads")[::len(frames("kv-heads")) - 1]:  # the first and last: one bar selected, the rest not
        fig = mod.draw(lang, frame.value)
        bars = _bars_and_background(fig)
        plt.close(fig)
        assert len(bars) >= 2 * len(frames("kv-heads")), "both bar charts, a bar for every count"
        weak = [(fill, scheme, round(ratio, 2)) for fill, back in bars
                for scheme, ratio in (("light", dark.contrast(fill, back)),
                                      ("dark", dark.contrast(dark.colour(fill), dark.colour(back))))
                if ratio < NON_TEXT]
        assert weak == [], f"{frame.path()} ({lang}): bars under {NON_TEXT}:1 against the background: {weak}"
