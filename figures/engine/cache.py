"""The figure cache on disk: one file per frame, language and format, named by what it is drawn from.

A file's name is a digest of the figure's sources (figures/engine/sources.py), its language, frame and
format, so a hit needs no check beyond existing: an edit gives new names, and the old files are
pruned, least recently used first. Each file is written whole to a temporary name and renamed,
so a killed build leaves no partial file under a real name.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from mha_ref import store

from .sources import Sources

ENV = store.CACHE_ENV  # "0" (or off, no, false) turns the cache off; a path moves it
KEEP = 6000  # files kept after pruning: a build of both languages uses about 1,750


_FAILED: dict = {}  # FigureCache.failed: path -> FigureError, for this process


def from_env() -> FigureCache | None:
    """The cache the environment asks for (mha_ref.store.cache_folder), or None when it is off."""
    folder = store.cache_folder()
    return None if folder is None else FigureCache(folder)


class FigureCache:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.opened = time.time()  # files used or written since then belong to this build: prune keeps them

    def path(self, digest: str, lang: str, slug: str | None, fmt: str) -> Path:
        key = hashlib.sha256(f"{digest}\0{lang}\0{slug}\0{fmt}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.{fmt}"

    def digests(self, modules: list[str], sources: Sources | None = None) -> list[str]:
        """Sources.digest of each figure module, remembered while the code stays byte for byte the same."""
        sources = sources or Sources()
        memo = self.folder / "sources" / f"{sources.stamp()}.json"
        try:
            known = json.loads(memo.read_bytes())
        except (FileNotFoundError, ValueError):
            known = {}
        if any(m not in known for m in modules):
            known.update({m: sources.digest(m) for m in modules})
            self.put(memo, json.dumps(known, sort_keys=True).encode())
        else:
            os.utime(memo)
        return [known[m] for m in modules]

    def get(self, path: Path) -> bytes | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        os.utime(path)  # recently used: kept by prune()
        return data

    def failed(self, path: Path, error=None):
        """The FigureError of a frame that failed to draw in this process, or, given one, remember it.

        Kept in memory only (a failure is not worth a file): `mkdocs build` and each serve rebuild
        fill the cache for every language first, then read it language by language; a frame that
        failed is reported from here, not drawn a second time. The path names the frame's sources,
        so an edit that fixes it asks afresh."""
        if error is not None:
            _FAILED[path] = error
        return _FAILED.get(path)

    def put(self, path: Path, data: bytes) -> None:
        store.write_atomic(path, data)

    def prune(self, keep: int = KEEP) -> None:
        """Forget all but the `keep` most recently used files, and old temporary files left by a kill.
        A file this cache has used or written is never forgotten: a build larger than `keep` would
        otherwise evict its own frames and draw them again next time."""
        if not self.folder.is_dir():
            return
        files = [(p, p.stat().st_mtime) for p in self.folder.glob("*/*") if p.is_file()]
        for p, mtime in files:
            if p.name.startswith(".tmp-") and mtime < time.time() - 3600:  # not a build running now
                p.unlink(missing_ok=True)
        files = sorted((f for f in files if not f[0].name.startswith(".tmp-")), key=lambda f: f[1])
        older = [f for f in files if f[1] < self.opened - 1]  # a second's slack for coarse file times
        for p, _ in older[:max(len(files) - keep, 0)]:
            p.unlink(missing_ok=True)
