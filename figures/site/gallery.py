"""The gallery page's construct ({{ gallery }}): every figure as a card, in number order."""

from __future__ import annotations

import posixpath
from collections.abc import Callable


from ..engine import registry
from ..engine.render import FigureError, frames
from ..kit.words import FIGURE_LABEL
from ..publish.attribution import caption
from ..text.constructs import first_sentence, plain
from . import cards
from .figure_block import WORDS, downloads_html, opening_frame, pictures


def gallery_markdown(lang: str, url: Callable[[str], str], numbers: dict, page: str, where: str,
                     show_failures: bool = False, size: Callable[[str], tuple[int, int] | None] | None = None) -> str:
    """Every registered figure as a card: start frame (the page's own SVG, loaded lazily), number,
    id, caption, a link to the page that explains it, its downloads. Number order; unplaced last.
    A figure that fails to import raises FigureError, or with `show_failures` (mkdocs serve) is its
    error card."""
    def order(fig_id: str):
        n = numbers.get(fig_id)
        return (0, *map(int, n.number.split("."))) if n else (1, registry.ORDER.index(fig_id), 0)

    items = []
    for fig_id in sorted(registry.ORDER, key=order):
        words, home = WORDS[lang], numbers.get(fig_id)
        try:
            shown = frames(fig_id)[opening_frame(fig_id, None, where)]
        except FigureError as e:
            if not show_failures:
                raise
            items.append(cards.figure_html(e.at(lang)))
            continue
        cap = caption(fig_id, lang, where)
        if home is None:
            head = f'{FIGURE_LABEL[lang].format("–")} {words["unplaced"]}'
        else:
            href = posixpath.relpath(home.home, posixpath.dirname(page) or ".") + f"#fig-{fig_id}"
            title = home.titles[lang]
            head = f'[{FIGURE_LABEL[lang].format(home.number)}]({href}){{: .mha-fig-num }} · {words["explained_on"]} [{title}]({href})'
        img = url(shown.path("svg"))
        items.append(
            f'<figure class="mha-gallery-item" id="gallery-{fig_id}" markdown="block">\n'
            # a card is as narrow as a phone's column at every width: its narrow drawing always
            f'<div class="mha-gallery-thumb"><a href="{img}">'
            + pictures(shown, first_sentence(plain(cap)), url, size, narrow_only="all") + '</a></div>\n'
            f'<figcaption markdown="span">{head} · <code>{fig_id}</code><br>{cap}</figcaption>\n'
            + downloads_html(fig_id, lang, url, shown, copy_link=False) + "\n</figure>")
    return '<div class="mha-gallery" markdown="block">\n' + "\n\n".join(items) + "\n</div>"
