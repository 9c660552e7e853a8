"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
Frames come from the figure cache on disk (figures/cache.py) when their sources are unchanged,
so `mkdocs build`, `mkdocs serve` and `python -m figures` share what any of them drew.
"""

import logging

import mkdocs_gen_files

from figures.cache import from_env
from figures.render import fill_cache, render_files
from figures.style import LANGS

log = logging.getLogger("mkdocs.plugins.figures")
i18n = mkdocs_gen_files.config.plugins["i18n"]
lang, cache = i18n.current_language, from_env()
# The first language's build draws every language's missing frames in one pool; the other
# languages' builds then find theirs in the cache.
drawn = fill_cache(cache, LANGS) if cache is not None and lang == i18n.default_language else 0
files = 0
for r in render_files((lang,), cache=cache):
    drawn += r.drawn
    files += 1
    with mkdocs_gen_files.open(f"figures/{r.frame.path(r.fmt)}", "wb") as f:
        f.write(r.data)
log.info(f"figures ({lang}): {files} files; {drawn} frames drawn, "
         + ("no cache" if cache is None else f"the rest from {cache.folder}"))
