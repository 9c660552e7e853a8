"""The figure cache on disk: one file per frame, language and format, named by what it is drawn from.

A file's name is a digest of the figure's sources (figures/engine/sources.py), its language, frame and
format: an edit gives new names, and the old files are pruned, least recently used first. Each file
is kept as every kept file is (figures.keep.disk.keep): written whole to a temporary name and renamed, so
a killed build leaves no partial file under a real name, and sealed with the sha256 of its bytes and
of its name, checked when it is read, so a file damaged on disk since (truncated, overwritten,
unreadable), another frame's file in its place, or a link, is dropped with a warning naming it and
the frame, and the frame drawn again. A cache that cannot be written (read-only, a full disk) is
turned off for writing for the build, with one warning (figures.keep.disk.write_kept).
"""

from __future__ import annotations

import errno
import hashlib
import json
import time
from pathlib import Path

from ..keep import disk
from .sources import Sources

ENV = disk.CACHE_ENV  # "0" (or off, no, false) turns the cache off; a path moves it
KEEP = 9000  # files kept after pruning: a build of both languages uses about 3,000 (frames, published, whole)
WHOLE = "whole"  # the folder of files kept as they are, for a build to link (FigureCache.whole)


_FAILED: dict = {}  # FigureCache.failed: path -> FigureError, for this process (while this module is imported)


def from_env(failures: dict | None = None) -> FigureCache | None:
    """The cache the environment asks for (figures.keep.disk.cache_folder), or None when it is off;
    `failures` as in FigureCache."""
    folder = disk.cache_folder()
    return None if folder is None else FigureCache(folder, failures)


class FigureCache:
    def __init__(self, folder: Path, failures: dict | None = None):
        """failures: where failed() remembers, by default this module's memory for the process;
        `mkdocs serve` passes one that outlives its rebuilds' fresh imports (figures/site/later.py)."""
        self.folder = Path(folder)
        self.opened = time.time()  # files used or written since then belong to this build: prune keeps them
        self._failed = _FAILED if failures is None else failures

    def path(self, digest: str, lang: str, slug: str | None, fmt: str) -> Path:
        key = hashlib.sha256(f"{digest}\0{lang}\0{slug}\0{fmt}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.{fmt}"

    def digests(self, modules: list[str], sources: Sources | None = None) -> list[str]:
        """Sources.digest of each figure module, remembered while the code stays byte for byte the same."""
        sources = sources or Sources()
        memo = self.folder / "sources" / f"{sources.stamp()}.json"
        known = self._index(memo)
        if any(m not in known for m in modules):
            known.update({m: sources.digest(m) for m in modules})
            self.put(memo, json.dumps(known, sort_keys=True).encode())
        return [known[m] for m in modules]

    def _index(self, memo: Path) -> dict[str, str]:
        """The digests the index `memo` remembers: {} if it is missing, or holds anything but a
        table of digests (said in a warning; they are worked out again)."""
        data = self._verified(memo, "the index of figure digests", "working the digests out again")
        if data is None:
            return {}
        try:
            known = json.loads(data)
        except ValueError:
            known = None
        if isinstance(known, dict) and all(isinstance(v, str) for v in known.values()):
            return known
        disk.drop_kept(memo, "the index of figure digests", f"holds {type(known).__name__}, not a table of digests",
                        "working the digests out again")
        return {}

    def get(self, path: Path, task=None) -> bytes | None:
        """The file kept at `path`, checked; None if there is none, or it is damaged (dropped, with a
        warning naming it and the `task` (frame, lang, fmt) it holds: the frame is drawn again)."""
        return self._verified(path, "a frame" if task is None else describe(*task), "drawing it again")

    def _verified(self, path: Path, what: str, then: str) -> bytes | None:
        """The bytes kept at `path` if they pass the checks (figures.keep.disk.kept); else None (dropped,
        with one warning naming the file, `what` it holds and `then` what happens instead)."""
        return disk.kept(path, what, then, self.folder)

    def failed(self, path: Path, error=None):
        """The FigureError of a frame that failed to draw in this process, or, given one, remember it.

        Kept in memory only (a failure is not worth a file): `mkdocs build` and each serve rebuild
        fill the cache for every language first, then read it language by language; a frame that
        failed is reported from here, not drawn a second time. The path names the frame's sources,
        so an edit that fixes it asks afresh. Under `mkdocs serve` the memory is the server's
        (FigureCache's `failures`): an error may then be of a class imported before an edit, so
        callers tell a failure from a frame by `isinstance(found, bytes)`, not by FigureError."""
        if error is not None:
            self._failed[path] = error
        return self._failed.get(path)

    def has(self, path: Path) -> bool:
        """Whether a file is kept at `path` (unchecked: get() checks it)."""
        return disk.sealed_path(path).exists()

    def forget(self, path: Path) -> None:
        """Drop the file kept at `path`, if any."""
        disk.sealed_path(path).unlink(missing_ok=True)

    def put(self, path: Path, data: bytes) -> bool:
        """Keep `data` at `path`, sealed (what get() checks); whether it was kept: False once the
        cache cannot be written in this build."""
        return disk.keep(path, data, self.folder)

    def whole(self, data: bytes, suffix: str = "") -> Path | None:
        """`data` kept as it is, unsealed, in a file named by its sha256 (`whole/`): the site build
        links its files to these instead of writing each again (a new file costs far more than a link
        on some disks). The name is the check: a kept file whose bytes are not `data` (damaged since),
        or a link in its place (never read through, never linked into a site), is dropped with a
        warning naming it and written again. None when the cache cannot be written."""
        path = self.folder / WHOLE / f"{hashlib.sha256(data).hexdigest()}{suffix}"
        try:
            same = disk.read_file(path) == data  # also made readable by all: the site's file is this one
        except (FileNotFoundError, NotADirectoryError):  # none kept yet
            same = None
        except OSError as e:  # a link, a folder, unreadable
            same = "is a symbolic link" if e.errno == errno.ELOOP else f"cannot be read ({e.strerror or e})"
        if same is True:
            disk.touch(path, self.folder)
            return path
        if same is not None:  # replaced by a new file (a site linked to this one keeps what it has)
            why = same or "is damaged (its bytes are not those its name is the digest of)"
            disk.log.warning(f"figure cache: {path}, a figure's file, {why}: dropped, writing it again")
        return path if disk.write_kept(path, lambda f: f.write(data), self.folder) else None

    def prune(self, keep: int = KEEP) -> None:
        """Forget all but the `keep` most recently used files, and old temporary files left by a kill
        (in the folders of this cache: not in one linked here from elsewhere).
        A file this cache has used or written is never forgotten: a build larger than `keep` would
        otherwise evict its own frames and draw them again next time."""
        if not self.folder.is_dir() or not disk.cache_writable(self.folder):
            return
        # a folder linked in from elsewhere (the test suite shares some across sessions) is its owner's to prune
        files = [(p, p.stat().st_mtime) for p in self.folder.glob("*/*") if p.is_file() and not p.parent.is_symlink()]
        # temporary files an hour old: left by a kill, not written by a build running now
        stale = [p for p, mtime in files if p.name.startswith(".tmp-") and mtime < time.time() - 3600]
        files = sorted((f for f in files if not f[0].name.startswith(".tmp-")), key=lambda f: f[1])
        older = [f for f in files if f[1] < self.opened - 1]  # a second's slack for coarse file times
        try:
            for p in stale + [p for p, _ in older[:max(len(files) - keep, 0)]]:
                p.unlink(missing_ok=True)
        except OSError as e:
            disk.cache_unwritable(self.folder, e)


def describe(frame, lang: str, fmt: str) -> str:
    """A frame in one language and format, named as FigureError names a frame."""
    return f"figure {frame.fig_id!r} ({lang}, {f'frame {frame.slug}' if frame.slug else 'its one frame'}, {fmt})"
