"""mkdocs serve: every request is answered at once, from the last good site, whatever a rebuild does.

mkdocs 1.6's serve loop builds into the folder it serves, and makes every request wait until the
rebuild finishes (livereload's _visible_epoch stays behind _wanted_epoch until then); when a
rebuild raises, it never marks a build as finished, so every request waits for ever. Here the
server reads the site through a symbolic link, switched in one rename: while a rebuild writes
mkdocs' site folder, the link points at a copy of the last good site (hard links, made when the
rebuild starts), and requests do not wait. A rebuild that succeeds is switched to and the browsers
reload; one that fails is logged with its file and line, and the last good site stays served.
A figure that fails, or draws past its time limit (figures/engine/pool.py), is an error card
(figures/site/cards.py), so its rebuild succeeds.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import shutil
import tempfile
import traceback
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.figures")
# What of mkdocs 1.6's LiveReloadServer this relies on (tests/test_serve_errors.py checks they exist)
SERVER_PARTS = ("root", "builder", "error_handler", "_epoch_cond", "_visible_epoch", "_wanted_epoch",
                "_rebuild_cond", "_want_rebuild")


class ServerChanged(Exception):
    pass


class RequestsAreNotBuildWarnings(logging.Filter):
    """The server logs a request it could not answer (a 404) as a warning, and a strict build fails
    on any warning logged while it runs: with requests answered during a rebuild, a reader asking
    for a missing file would fail it. Such lines are logged as INFO."""

    REQUEST = re.compile(r'"[A-Z]+ \S* HTTP/[\d.]+" code \d+$')  # livereload's _Handler.log_request

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and self.REQUEST.search(record.getMessage()):
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def where(e: BaseException) -> str:
    """' (file, line)' in this checkout where the build failed, not counting this module's call."""
    try:
        registry = importlib.import_module("figures.engine.registry")
    except Exception:  # figures/gallery/__init__.py itself may be what is broken
        return f" ({e.filename}, line {e.lineno})" if isinstance(e, SyntaxError) else ""
    if isinstance(e, SyntaxError):
        return registry.located(e)
    return registry.located_at([(f.filename, f.lineno) for f in traceback.extract_tb(e.__traceback__)
                                if f.filename != __file__])


class Served:
    """The folder the server reads: a link to mkdocs' site folder, or to the copy of the last good
    site kept beside the link while a rebuild runs (or after one failed)."""

    def __init__(self, site_dir: Path):
        self.site_dir = site_dir
        self.home = Path(tempfile.mkdtemp(prefix="mkdocs_served_"))
        self.link, self.last_good = self.home / "site", self.home / "last-good"
        self._point_at(site_dir)

    def _point_at(self, folder: Path) -> None:
        new = self.home / "site.new"
        new.unlink(missing_ok=True)
        new.symlink_to(folder)
        os.replace(new, self.link)  # a request opens a file in the old site or the new, never in neither

    def serving_last_good(self) -> bool:
        return Path(os.readlink(self.link)) == self.last_good

    def before_build(self) -> None:
        """Serve the last good site from its copy, and empty the site folder for the build (emptied,
        not overwritten: the copy shares the files' bytes)."""
        if not self.serving_last_good():
            shutil.rmtree(self.last_good, ignore_errors=True)  # served by nothing since the last build
            shutil.copytree(self.site_dir, self.last_good, copy_function=_link_or_copy, symlinks=True)
            self._point_at(self.last_good)
        shutil.rmtree(self.site_dir, ignore_errors=True)
        self.site_dir.mkdir()

    def built(self) -> None:
        self._point_at(self.site_dir)

    def remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links
        shutil.copy2(src, dst)


def check(server) -> None:
    missing = [name for name in SERVER_PARTS if not hasattr(server, name)]
    if missing:
        raise ServerChanged(f"mkdocs' LiveReloadServer has no {', '.join(missing)}: figures/site/serving.py "
                            "was written for mkdocs 1.6's; update it with mkdocs")


def keep_answering(server, site_dir: Path) -> Served:
    """Have the server read the site through a Served link, and rebuild while it answers from it."""
    check(server)
    requests = logging.getLogger("mkdocs.livereload")
    if not any(isinstance(f, RequestsAreNotBuildWarnings) for f in requests.filters):
        requests.addFilter(RequestsAreNotBuildWarnings())
    served = Served(site_dir)
    server.root = str(served.link)
    server.builder = _rebuild(server, server.builder, served)

    def error_page(code: int) -> bytes | None:  # mkdocs' own reads the site folder being rebuilt
        try:
            return (served.link / f"{code}.html").read_bytes()
        except OSError:
            return None
    server.error_handler = error_page
    return served


def _rebuild(server, build, served: Served):
    def rebuild():
        wanted = _answer_now(server)
        served.before_build()
        try:
            build()
        except Exception as e:
            log.error(f"The rebuild failed{where(e)}: {type(e).__name__}: {e}. Still serving the last good site.\n"
                      + "".join(traceback.format_exception(e)[-12:]))
            return
        served.built()
        _show(server, wanted)
    return rebuild


def _answer_now(server) -> int:
    """Requests wait while the site the server wants differs from the one it shows: for the
    rebuild's length make them the same, and return the one wanted, to show when the build is done."""
    with server._epoch_cond:
        wanted = server._wanted_epoch
        server._wanted_epoch = server._visible_epoch
        server._epoch_cond.notify_all()
    return wanted


def rebuild_soon(server) -> None:
    """Have the server rebuild as a file change does: what mkdocs 1.6's LiveReloadServer.watch()
    callback does for a watched file (its build loop then rebuilds and the browsers reload)."""
    with server._rebuild_cond:
        server._want_rebuild = True
        server._rebuild_cond.notify_all()


def _show(server, wanted: int) -> None:
    """The new site is served: browsers polling for a newer one reload (mkdocs' loop then logs it)."""
    with server._epoch_cond:
        server._wanted_epoch = server._visible_epoch = wanted
        server._epoch_cond.notify_all()
