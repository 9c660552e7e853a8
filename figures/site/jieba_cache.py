"""Where the search's Chinese word cutter keeps its cache.

Material's search cuts Chinese text into words with jieba, which keeps its dictionary's prefix table
in a file (jieba.cache, about a second saved per process) in the system's temporary folder unless
told another: there it stayed after every build and `mkdocs serve`. It is kept in the build's cache
folder instead (figures.keep.disk.cache_folder, jieba/), or with the cache off in a temporary folder of
this process's own, removed when it ends.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from ..keep import disk

_own: Path | None = None  # the temporary folder made with the cache off, removed at exit


def place() -> None:
    """Point jieba's cache at the build's cache folder; before jieba first loads its dictionary."""
    global _own
    try:
        import jieba
    except ImportError:  # Material's search without Chinese: no cutter, no cache
        return
    folder = disk.cache_folder("jieba")
    if folder is None:
        if _own is None:
            _own = Path(tempfile.mkdtemp(prefix="mha-jieba-"))
            atexit.register(shutil.rmtree, _own, ignore_errors=True)
        folder = _own
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # a cache that cannot be written: jieba loads its dictionary without one
        pass
    jieba.dt.tmp_dir = str(folder)
