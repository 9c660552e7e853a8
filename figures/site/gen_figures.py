"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
Frames come from the figure cache on disk (figures/engine/cache.py) when their sources are unchanged,
so `mkdocs build`, `mkdocs serve` and `python -m figures` share what any of them drew.
A figure that fails, or still draws after the time limit (figures/engine/pool.py, MHA_FIGURE_TIMEOUT),
stops `mkdocs build` with one line naming it (the traceback after it); under `mkdocs serve` (the
hooks set config["show_figure_failures"]) it becomes an error card (cards.py). `mkdocs build` draws
every frame before a page is made; `mkdocs serve`'s first build draws the missing ones after its
pages, each a card meanwhile, and its rebuilds draw first all but those (later.py).
"""

import logging
from pathlib import Path

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

from figures.engine import pool, registry
from figures.engine.cache import from_env
from figures.engine.render import FigureError, fill_cache, missing, render_files
from figures.keep import disk
from figures.kit.words import LANGS
from figures.publish import bundles, deck_files, decks
from figures.site import cards, later, linked
from figures.text.constructs import MarkupError

log = logging.getLogger("mkdocs.plugins.figures")
config = mkdocs_gen_files.config
i18n = config.plugins["i18n"]
serving = config.get("figures_later")  # mkdocs serve: a later.Later, kept by the hooks for the server's life
lang, cache = i18n.current_language, from_env(None if serving is None else serving.failures)
built = tuple(language.locale for language in i18n.config.languages if language.build)  # MHA_BUILD_EN=false: zh only
show = config.get("show_figure_failures", False)
formats = bundles.site_formats()
numbers = config["figure_numbers"]  # numbered once per build, in hooks.on_pre_build
drawing = serving if cache is not None else None
linked.start(config)


def write(lang: str, path: str, data: bytes) -> None:
    """A file of this language's figures/: kept whole in the cache and linked into the site
    (linked.py), or without a cache that can be written, through gen-files."""
    kept = None if cache is None else cache.whole(data, Path(path).suffix)
    if kept is not None:
        linked.place(config, f"figures/{path}", kept)
        return
    with mkdocs_gen_files.open(f"figures/{path}", "wb") as f:
        f.write(data)


def written(results, drawn: set, counts: dict, pdfs: dict):
    """The frames that drew, counted and passed on (each PDF also kept in `pdfs`, for the slide
    decks); each that failed, written as its error card."""
    for r in results:
        drawn.update([(r.frame, r.lang)] if r.drawn else [])
        counts["files"] += 1
        if r.error is None and r.data is not None:
            if r.fmt == "pdf":
                pdfs[r.frame] = r.data
            yield r
        elif r.error is not None and r.fmt == "svg":  # a PDF or PNG of a failed frame is left out (markup then links none)
            log.info(f"shown as an error card: {r.error.headline}")
            write(r.lang, r.frame.path("svg"), cards.svg(r.error))
        elif r.error is None and r.data is None and r.fmt == "svg":  # mkdocs serve: being drawn (later.py)
            write(r.lang, r.frame.path("svg"), cards.pending_svg(r.lang))


try:
    pool.limit_from_env()  # a bad limit stops the build before anything is drawn
except ValueError as e:
    raise PluginError(str(e)) from None
drawn, counts, filled, pdfs = set(), {"files": 0}, 0, {}
try:
    # The first language's build draws every language's missing frames in one pool; the other
    # languages' builds then find theirs in the cache.
    if cache is not None and lang == i18n.default_language:
        disk.cache_writable_again()  # a cache found unwritable in the last build (serve) is tried again
        if drawing is not None and drawing.first_build():  # mkdocs serve: the pages now, the frames after them
            lacking = missing(cache, built, formats=formats)
            if lacking:
                drawing.draw(lacking, lambda: fill_cache(cache, built, formats=formats, keep_going=True, say=log.info,
                                                         drawn_but_prepared=drawing.rebuild))
        else:  # mkdocs build, and every rebuild of serve: every frame drawn before a page is made, but
            # those the serve's first drawing still has under way
            filled = fill_cache(cache, built, formats=formats, keep_going=show, say=log.info,
                                skip=drawing.underway() if drawing is not None else frozenset())
    underway = drawing.underway() if drawing is not None else frozenset()
    later_ids = set(missing(cache, (lang,), formats=formats, among=underway).values()) if underway else set()
    later.start_build(later_ids, later.model_values() if later_ids and not later.model_ready() else ())
    rendered = render_files((lang,), formats=formats, cache=cache, keep_going=show, later=underway)
    bundles.write_all(written(rendered, drawn, counts, pdfs), numbers, write, zips=False, cache=cache)
    counts["files"] += bundles.write_tables((lang,), [i for i in registry.ORDER if i not in later_ids], write,
                                            keep_going=show)
    if pdfs:  # the slide decks, made of the frames' PDFs: none without downloads
        counts["files"] += len(deck_files.write_all(numbers, lang, pdfs.get, lambda path, data: write(lang, path, data)))
except FigureError as e:
    raise PluginError(f"{e.headline}\n{e.trace}") from None
except MarkupError as e:  # a caption's construct, met while stamping a file: its own line says where
    raise PluginError(str(e)) from None
except decks.DeckError as e:
    if not show:
        raise PluginError(str(e)) from None
    log.warning(str(e))  # mkdocs serve: the page links no deck it lacks
log.info(f"figures ({lang}): {counts['files']} files; {filled + len(drawn)} frames drawn, "
         + (f"{len(later_ids)} figures being drawn (the page shows them when done), " if later_ids else "")
         + ("no cache" if cache is None else f"the rest from {cache.folder}"))
