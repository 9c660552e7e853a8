"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
"""

import sys
import types

import mkdocs_gen_files

from figures.render import render_all

# `mkdocs serve` rebuilds in one process: a figure whose sources are unchanged since the last
# build is taken from this cache instead of being drawn again. The cache lives in a module of its
# own because the hooks drop our packages from sys.modules before each build; a cold
# `mkdocs build` starts with it empty.
CACHE = sys.modules.setdefault("_mha_figure_cache", types.ModuleType("_mha_figure_cache"))
if not hasattr(CACHE, "frames"):
    CACHE.frames = {}

lang = mkdocs_gen_files.config.plugins["i18n"].current_language
for path, data in render_all(lang, cache=CACHE.frames):
    with mkdocs_gen_files.open(f"figures/{path}", "wb") as f:
        f.write(data)
