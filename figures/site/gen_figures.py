"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
Frames come from the figure cache on disk (figures/cache.py) when their sources are unchanged,
so `mkdocs build`, `mkdocs serve` and `python -m figures` share what any of them drew.
A figure that fails stops `mkdocs build` with one line naming it (the traceback after it); under
`mkdocs serve` (the hooks set config["show_figure_failures"]) it becomes an error card (cards.py).
"""

import logging

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

from figures.cache import from_env
from figures.render import FigureError, fill_cache, render_files
from figures.site import cards
from figures.style import LANGS

log = logging.getLogger("mkdocs.plugins.figures")
i18n = mkdocs_gen_files.config.plugins["i18n"]
lang, cache = i18n.current_language, from_env()
show = mkdocs_gen_files.config.get("show_figure_failures", False)
try:
    # The first language's build draws every language's missing frames in one pool; the other
    # languages' builds then find theirs in the cache.
    drawn = fill_cache(cache, LANGS, keep_going=show) if cache is not None and lang == i18n.default_language else 0
    files = 0
    for r in render_files((lang,), cache=cache, keep_going=show):
        drawn += r.drawn
        files += 1
        if r.error is not None:
            log.info(f"shown as an error card: {r.error.headline}")
        with mkdocs_gen_files.open(f"figures/{r.frame.path(r.fmt)}", "wb") as f:
            f.write(r.data if r.error is None else cards.svg(r.error))
except FigureError as e:
    raise PluginError(f"{e.headline}\n{e.trace}") from None
log.info(f"figures ({lang}): {files} files; {drawn} frames drawn, "
         + ("no cache" if cache is None else f"the rest from {cache.folder}"))
