"""The figures' files as links: each published file the build takes from the figure cache reaches
`site/` as a hard link to the cache's whole copy (engine/cache.py, FigureCache.whole), not as bytes
written twice (once into gen-files' temporary folder, once into the site). A build writes about a
thousand such files per language; creating a file costs far more than linking one on some disks
(0.66 ms against 0.01 ms on the machine the site is built on).

A link shares the cached bytes: the cache replaces a file (a new file under the same name), never
rewrites one in place, so a site already built keeps what it was built with. Where a link cannot be
made (another disk, a file system without links) the file is copied, as MkDocs copies any other.
A link also shares the kept file's mode: the cache keeps its files readable by all, and the built
site is made so whole at the end (readable_by_all), whatever the umask, so that a web server running
as another user serves it, and a zip of it unpacks so.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mkdocs.structure.files import File

from ..keep.disk import FOLDER_MODE, MODE

# config key: the gen-files script's {path below docs/: kept file} for on_files to add (hooks.py)
PLACED = "figure_files_linked"


class Linked(File):
    """A generated file whose bytes are a file kept in the cache: linked into the site, not copied."""

    def copy_file(self, dirty: bool = False) -> None:
        if dirty and not self.is_modified():
            return
        out = self.abs_dest_path
        os.makedirs(os.path.dirname(out), exist_ok=True)
        try:
            if os.path.lexists(out):
                os.unlink(out)
            os.link(self.abs_src_path, out)
        except OSError:  # another disk, or no hard links here: copied
            super().copy_file(dirty)


def place(config, path: str, kept: Path) -> None:
    """Ask for the kept file `kept` at `path` (below docs/) in this language's build."""
    config[PLACED][path] = kept


def start(config) -> None:
    """A language build's gen-files script begins: nothing placed yet."""
    config[PLACED] = {}


def add(files, config) -> list[File]:
    """The files the gen-files script placed, added to `files` (each a Linked); the list of them."""
    added = [Linked.generated(config, path, abs_src_path=str(kept))
             for path, kept in sorted(config.get(PLACED, {}).items())]
    for f in added:
        files.append(f)
    return added


def readable_by_all(site_dir: Path) -> None:
    """Every file of the built site MODE (0644), every folder FOLDER_MODE (0755): what a web server
    running as another user needs, and what a zip of the site keeps. A link is left as it is."""
    for folder, _, files in os.walk(site_dir):  # each folder once, links to folders not followed
        for path, mode in [(folder, FOLDER_MODE), *((os.path.join(folder, name), MODE) for name in files)]:
            st = os.lstat(path)
            if not stat.S_ISLNK(st.st_mode) and stat.S_IMODE(st.st_mode) != mode:
                os.chmod(path, mode)
