"""mkdocs-gen-files script: draw every registered figure for the language being built.

Runs once per language build; the files exist only in the build (nothing is committed).
The hooks' on_config has already dropped stale modules, so this imports the current code.
"""

import mkdocs_gen_files

from figures.render import render_all

lang = mkdocs_gen_files.config.plugins["i18n"].current_language
for path, data in render_all(lang):
    with mkdocs_gen_files.open(f"figures/{path}", "wb") as f:
        f.write(data)
