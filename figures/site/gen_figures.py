"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
Frames come from the figure cache on disk (figures/cache.py) when their sources are unchanged,
so `mkdocs build`, `mkdocs serve` and `python -m figures` share what any of them drew.
"""

import logging

import mkdocs_gen_files

from figures.cache import from_env
from figures.render import render_files
from figures.style import LANGS

log = logging.getLogger("mkdocs.plugins.figures")
lang = mkdocs_gen_files.config.plugins["i18n"].current_language
cache = from_env()
# With a cache, the first language's build draws every language's missing frames in one pool;
# the other languages' builds then find theirs in the cache.
files = drawn = 0
for r in render_files(LANGS if cache is not None and lang == LANGS[0] else (lang,), cache=cache):
    drawn += r.drawn
    if r.lang == lang:
        files += 1
        with mkdocs_gen_files.open(f"figures/{r.frame.path(r.fmt)}", "wb") as f:
            f.write(r.data)
log.info(f"figures ({lang}): {files} files; {drawn} frames drawn, "
         + ("no cache" if cache is None else f"the rest from {cache.folder}"))
