"""mkdocs serve: a broken edit never leaves the server hanging.

mkdocs 1.6's serve loop, when a rebuild raises, prints the traceback and never marks a build
as finished, so every request waits for ever (livereload's _visible_epoch stays behind
_wanted_epoch). A figure that fails is therefore shown as an error card (figures/site/cards.py),
and a rebuild that fails anyway (a syntax error in mha_ref, say) is logged with its file and line
while the last good site stays served.
"""

from __future__ import annotations

import importlib
import logging
import shutil
import traceback
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.figures")


def where(e: BaseException) -> str:
    try:
        return importlib.import_module("figures.engine.registry").located(e)
    except Exception:  # figures/gallery/__init__.py itself may be what is broken
        return f" ({e.filename}, line {e.lineno})" if isinstance(e, SyntaxError) else ""


def keeping_last_good_site(build, site_dir: Path):
    """`build`, run on an empty site folder; if it fails, the last good site is put back and served."""
    last_good = site_dir.with_name(site_dir.name + "-last-good")

    def rebuild():
        shutil.rmtree(last_good, ignore_errors=True)
        site_dir.rename(last_good)
        site_dir.mkdir()
        built = False
        try:
            build()
            built = True
        except Exception as e:
            log.error(f"The rebuild failed{where(e)}: {type(e).__name__}: {e}. Still serving the last good site.\n"
                      + "".join(traceback.format_exception(e)[-12:]))
        finally:
            if built:
                shutil.rmtree(last_good)
            else:
                shutil.rmtree(site_dir, ignore_errors=True)
                last_good.rename(site_dir)
    return rebuild
