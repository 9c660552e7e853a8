"""Error cards: how `mkdocs serve` shows a figure that failed, in place, while the rest serves.

A frame that failed to draw becomes an SVG card at the frame's own path (the page, its slider and
its link stay as they are); a figure that failed to import has no frames, so the page gets an HTML
card where the figure goes. Both name the figure, language and frame and end with the error's
last lines. `mkdocs build` never shows a card: it stops on the failure (gen_figures.py).
"""

from __future__ import annotations

import html
import textwrap

from ..engine.registry import FigureError

WIDTH = 110  # characters per line of an SVG card; longer lines are wrapped


def lines(e: FigureError) -> list[str]:
    return [e.headline, "", *e.last_lines()]


def svg(e: FigureError) -> bytes:
    rows = [row for line in lines(e) for row in (textwrap.wrap(line, WIDTH, subsequent_indent="    ") or [""])]
    text = "\n".join(f'<text x="12" y="{24 + 16 * i}">{html.escape(row)}</text>' for i, row in enumerate(rows))
    width, height = 12 + 7 * WIDTH + 12, 24 + 16 * len(rows)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">\n'
            f'<title>{html.escape(e.headline)}</title>\n'
            f'<rect width="100%" height="100%" fill="#fff4f4" stroke="#c62828" stroke-width="2"/>\n'
            f'<g font-family="monospace" font-size="12" fill="#b71c1c" xml:space="preserve">\n{text}\n</g>\n'
            '</svg>\n').encode()


def pending_svg(lang: str) -> bytes:
    """A frame not drawn yet under `mkdocs serve` (later.py), at the frame's own path."""
    from .later import PENDING_CLASS, WORDS
    words = html.escape(WORDS[lang])
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{PENDING_CLASS}" width="640" height="120" viewBox="0 0 640 120">\n'
            f'<title>{words}</title>\n'
            '<rect width="100%" height="100%" fill="#f5f7fa" stroke="#90a4ae" stroke-width="2" stroke-dasharray="6 4"/>\n'
            f'<text x="320" y="66" text-anchor="middle" font-family="sans-serif" font-size="18" fill="#455a64">{words}</text>\n'
            '</svg>\n').encode()


def pending_html(fig_id: str, lang: str) -> str:
    """The card placed where a figure goes while its frames are being drawn (under `mkdocs serve`);
    its anchor is the figure's, so links to it still land."""
    from .later import PENDING_CLASS, WORDS
    return (f'<div class="{PENDING_CLASS} admonition info" id="fig-{fig_id}" data-figure="{fig_id}">\n'
            f'<p>{html.escape(fig_id)}: {html.escape(WORDS[lang])}</p>\n</div>')


def figure_html(e: FigureError) -> str:
    """The card placed where the figure goes; its anchor is the figure's, so links to it still land."""
    return (f'<div class="mha-figure-error admonition failure" id="fig-{e.fig_id}" data-figure="{e.fig_id}">\n'
            f'<pre>{html.escape(chr(10).join(lines(e)))}</pre>\n</div>')
