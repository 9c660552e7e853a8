"""The gallery page's construct ({{ gallery }}): every figure as a card, in number order."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Callable


from ..engine import registry
from ..engine.render import FigureError, frames
from ..kit.words import FIGURE_LABEL
from ..publish.attribution import caption
from ..text.constructs import first_sentence, plain
from . import cards, later
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

    items, homes = [], {}
    for fig_id in sorted(registry.ORDER, key=order):
        words, home = WORDS[lang], numbers.get(fig_id)
        try:
            shown = frames(fig_id)[opening_frame(fig_id, None, where)]
        except FigureError as e:
            if not show_failures:
                raise
            items.append(cards.figure_html(e.at(lang)))
            continue
        cap = (f'<span class="{later.PENDING_CLASS}">{later.WORDS[lang]}</span>'  # mkdocs serve: being drawn
               if show_failures and later.pending(fig_id) else caption(fig_id, lang, where))
        if home is None:
            head = f'{FIGURE_LABEL[lang].format("–")} {words["unplaced"]}'
        else:
            href = posixpath.relpath(home.home, posixpath.dirname(page) or ".") + f"#fig-{fig_id}"
            title = home.titles[lang]
            head = f'[{FIGURE_LABEL[lang].format(home.number)}]({href}){{: .mha-fig-num }} · {words["explained_on"]} [{title}]({href})'
        img = url(shown.path("svg"))
        if home is not None:
            homes.setdefault(home.home, home.titles[lang])
        words_of = html.escape(" ".join([fig_id, plain(cap)]).lower(), quote=True)
        items.append(
            f'<figure class="mha-gallery-item" id="gallery-{fig_id}" data-page="{home.home if home else ""}" '
            f'data-words="{words_of}" markdown="block">\n'
            # a card is as narrow as a phone's column at every width: its narrow drawing always
            f'<div class="mha-gallery-thumb"><a href="{img}">'
            + pictures(shown, first_sentence(plain(cap)), url, size, narrow_only="all") + '</a></div>\n'
            f'<figcaption markdown="span">{head} · <code>{fig_id}</code><br>{cap}</figcaption>\n'
            + downloads_html(fig_id, lang, url, shown, copy_link=False, number=home,
                             label=home.number if home else None)
            + "\n</figure>")
    return filter_html(lang, homes) + '<div class="mha-gallery" markdown="block">\n' + "\n\n".join(items) + "\n</div>"


FILTER_WORDS = {
    "zh": {"legend": "筛选图", "page": "页面", "all": "全部页面", "words": "编号或词语", "hint": "例如 kv-heads 或 掩码",
           "count": "显示 {shown} / {total} 张图"},
    "en": {"legend": "Filter the figures", "page": "Page", "all": "Every page", "words": "Id or word",
           "hint": "e.g. kv-heads or mask", "count": "{shown} of {total} figures shown"},
}


def filter_html(lang: str, homes: dict[str, str]) -> str:
    """The gallery's filter: by the page that explains a figure and by words of its id or caption.
    Hidden until mha-gallery.js wires it (without script every figure is shown, nothing to filter)."""
    w = FILTER_WORDS[lang]
    options = "".join(f'<option value="{html.escape(home)}">{html.escape(title)}</option>' for home, title in homes.items())
    # data-search-exclude: the site's search skips the form (its page titles read as one run-on line)
    return (f'<form class="mha-gallery-filter" role="search" aria-label="{w["legend"]}" hidden data-search-exclude '
            f'data-count="{html.escape(w["count"])}">'
            f'<label>{w["page"]} <select name="page"><option value="">{w["all"]}</option>{options}</select></label> '
            f'<label>{w["words"]} <input type="search" name="words" placeholder="{html.escape(w["hint"])}" '
            f'autocomplete="off"></label> <output aria-live="polite"></output></form>\n\n')
