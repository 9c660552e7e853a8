"""Keeping computed results on disk, for the page-4 model and the figure cache alike: where every
cache lives and the switch that turns it off (cache_folder), writes that never leave half a file, a
cache that cannot be written turned off for writing instead of failing the build, every kept file
sealed with what it must hold (keep, kept: a damaged, moved or swapped file, or a link in place of a
file, is dropped with a warning naming it), and the one keep-or-make step (kept_or_made: read it, or
make it under a lock so that two processes make it once).

What a kept file is named by is a digest of what it is made from (figures/keep/reach.py); the
switches a build reads are figures/keep/switches.py's.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import TypeVar

from .switches import env_folder

ROOT = Path(__file__).resolve().parents[2]
CACHE_ENV = "MHA_FIGURE_CACHE"  # "0" (or off, no, false) turns every cache off; a path moves it
DEFAULT_CACHE = ROOT / ".cache" / "figures"

UNWRITABLE_ENV = "MHA_CACHE_UNWRITABLE"  # cache folders found unwritable in this build, for the processes it starts

T = TypeVar("T")

# Not under "mkdocs": a cache's warning is printed, but does not fail `mkdocs build --strict`, since
# the build recovers from what it warns about.
log = logging.getLogger(__name__)


def cache_folder(name: str | None = None) -> Path | None:
    """The folder every disk cache lives under: DEFAULT_CACHE, the path MHA_FIGURE_CACHE names, or
    None when it turns caching off or cannot hold a cache (usable); with a name, that cache's folder
    in it (trained-lm, decks, ...). A value of MHA_FIGURE_CACHE that is neither raises EnvError."""
    folder = env_folder(CACHE_ENV, DEFAULT_CACHE)
    if folder is None or not usable(folder):
        return None
    return folder if name is None else folder / name


def usable(folder: Path) -> bool:
    """Whether the cache `folder` can hold a cache: not when it, or a folder above it, is a file. Then
    the build goes on as with the cache off (it is the same build, only slower), with one warning
    naming it; a folder that exists but cannot be written is turned off for writing, with one warning
    (cache_unwritable), and what it holds is still read."""
    there = folder
    while not there.is_dir():
        if there.exists() or there.is_symlink():  # a file (or a dangling link) where a folder must be
            if cache_writable(folder):
                log.warning(f"cache folder {folder} cannot be used ({there} is a file, not a folder): this build "
                            "keeps and reads nothing there, as with MHA_FIGURE_CACHE=0")
                cache_unwritable(folder, None)  # warned once: not again, nor by the processes it starts
            return False
        there = there.parent
    if cache_writable(folder) and not os.access(there, os.W_OK | os.X_OK):
        cache_unwritable(folder, PermissionError(errno.EACCES, "Permission denied"))
    return True


MODE, FOLDER_MODE = 0o644, 0o755  # a file the build writes, and a folder, readable by all whatever the umask


def write_atomic(path: Path, write) -> None:
    """Call write(file) on a temporary file beside `path`, then rename it to `path`: a killed process
    leaves no partial file under the real name. `write` may also be bytes. The file is readable by
    all (MODE), as a published file must be: the site's figures are links to kept files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        os.fchmod(fd, MODE)  # mkstemp makes it 0600
        with os.fdopen(fd, "wb") as f:
            if isinstance(write, (bytes, bytearray)):
                f.write(write)
            else:
                write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_file(path: Path) -> bytes:
    """The bytes of the file at `path`, never through a link: a symbolic link there raises OSError
    (ELOOP), a folder or a device NotAFileError. A file not readable by all is made so (MODE), as
    write_atomic writes it."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a link: ELOOP
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFileError(f"{path} is not a file")
        if stat.S_IMODE(st.st_mode) != MODE:
            try:
                os.fchmod(fd, MODE)
            except OSError:
                pass  # not this user's file: read as it is
        return f.read()


class NotAFileError(OSError):
    """What read_file finds is not a regular file (a folder, a device)."""


def _unwritable() -> list[Path]:
    return [Path(p) for p in os.environ.get(UNWRITABLE_ENV, "").split(os.pathsep) if p]


def cache_writable(folder: Path) -> bool:
    """False once writing into `folder` or a folder above it failed in this build (cache_unwritable)."""
    folder = Path(folder)
    return not any(off == folder or off in folder.parents for off in _unwritable())


def cache_unwritable(folder: Path, error: OSError | None) -> None:
    """Turn writing into the cache `folder` off for the rest of the build, with one warning naming it
    (none when `error` is None: another process found it and warned). Kept in the environment, so
    that the processes the build starts next (the drawing workers) skip it too instead of each
    failing and warning again."""
    if not cache_writable(folder):
        return
    os.environ[UNWRITABLE_ENV] = os.pathsep.join(map(str, [*_unwritable(), folder]))
    if error is not None:
        log.warning(f"cache folder {folder} cannot be written ({error.strerror or error}): nothing more is "
                    "kept there in this build; what it holds is still read")


def cache_writable_again() -> None:
    """Forget the folders found unwritable: a new build (a `mkdocs serve` rebuild) tries them again."""
    os.environ.pop(UNWRITABLE_ENV, None)


def write_kept(path: Path, write, folder: Path) -> bool:
    """write_atomic(path, write) for a cache kept in `folder`; whether it was written. A cache that
    cannot be written (read-only, a full disk) is no reason to fail: the first failure turns it off
    for writing (cache_unwritable)."""
    if not cache_writable(folder):
        return False
    try:
        write_atomic(path, write)
    except OSError as e:
        cache_unwritable(folder, e)
        return False
    return True


def touch(path: Path, folder: Path) -> None:
    """Mark a kept file as just used (pruning keeps the recently used); a cache that cannot be
    written is turned off for writing, a file that just went (pruned by a build beside) is no matter."""
    try:
        os.utime(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        cache_unwritable(folder, e)


def drop(path: Path, warning: str) -> None:
    """Remove a kept file found corrupt or unreadable, with one warning line (which names it)."""
    log.warning(warning)
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only cache: the file stays, is checked again next time, and found wanting again


# A kept file is sealed: what it holds, then the sha256 of that and the sha256 of the key it is kept
# under (its folder's name and its own), so that a file damaged, or moved or swapped with another
# whole and valid, is found when read. Its name on disk is the key's with SEALED after it: a file of
# an earlier layout, under the key's own name, is never read.
SEALED = ".sealed"
DIGEST = hashlib.sha256().digest_size


def key_of(path: Path) -> str:
    """The key a file kept at `path` is sealed with: its folder's name and its own, so that a cache
    moved, or copied into another, keeps its files."""
    return f"{path.parent.name}/{path.name}"


def sealed_path(path: Path) -> Path:
    """Where the file kept under `path` is on disk."""
    return path.with_name(path.name + SEALED)


def seal(data: bytes, path: Path) -> bytes:
    """`data` as it is kept under `path`: followed by its sha256 and that of the key."""
    return data + hashlib.sha256(data).digest() + hashlib.sha256(key_of(path).encode()).digest()


def unseal(kept: bytes, path: Path) -> bytes:
    """What seal() sealed for `path`; ValueError saying what is wrong if `kept` is not that."""
    data, check, key = kept[:-2 * DIGEST], kept[-2 * DIGEST:-DIGEST], kept[-DIGEST:]
    if len(kept) < 2 * DIGEST or hashlib.sha256(data).digest() != check:
        raise ValueError("is damaged (its bytes do not match the digest kept with them)")
    if key != hashlib.sha256(key_of(path).encode()).digest():
        raise ValueError("holds a file kept under another name (moved or swapped)")
    return data


def keep(path: Path, data: bytes, folder: Path | None = None) -> bool:
    """Keep `data` under `path` (sealed, at sealed_path(path)): write_kept, in the cache `folder`
    (the file's own by default); whether it was kept."""
    return write_kept(sealed_path(path), seal(data, path), path.parent if folder is None else folder)


def kept(path: Path, what: str, then: str = "making it again", folder: Path | None = None) -> bytes | None:
    """The bytes kept under `path` (keep), checked; None if none are, or they fail a check: then the
    file is dropped with one warning naming it, `what` it holds and `then` what happens instead."""
    on_disk = sealed_path(path)
    try:
        data = unseal(read_file(on_disk), path)
    except (FileNotFoundError, NotADirectoryError):  # none kept (NotADirectory: a cache under a file)
        return None
    except NotAFileError:
        return drop_kept(path, what, "is not a file (a link, a folder): nothing is read through a link", then)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return drop_kept(path, what, "is a symbolic link: nothing is read through a link", then)
        return drop_kept(path, what, f"cannot be read ({e.strerror or e})", then)
    except ValueError as e:
        return drop_kept(path, what, str(e), then)
    touch(on_disk, path.parent if folder is None else folder)  # recently used: kept by pruning
    return data


def drop_kept(path: Path, what: str, problem: str, then: str = "making it again") -> None:
    """Drop the file kept under `path` (keep), with one warning naming it, `what` it holds, the
    `problem` found and `then` what happens instead."""
    drop(sealed_path(path), f"figure cache: {sealed_path(path)}, {what}, {problem}: dropped, {then}")


def read_kept(path: Path, read: Callable[[bytes], T], what: str) -> T | None:
    """read(bytes) of what is kept under `path` (kept); None when nothing is, or it cannot be read:
    then it is dropped with one warning naming it (`what` says what it held), and the caller makes
    it again."""
    data = kept(path, what)
    if data is None:
        return None
    try:
        return read(data)
    except Exception as e:  # a bad zip or CRC, bad JSON, a field missing: whatever it is, the file is unusable
        return drop_kept(path, what, f"cannot be read ({type(e).__name__}: {e})")


def kept_or_made(path: Path | None, read: Callable[[bytes], T], make: Callable[[], T],
                 dump: Callable[[T], bytes | None], what: str) -> T:
    """What is kept under `path` (read_kept: read(bytes) gives it back), or make() it and keep the
    bytes dump(value) gives (None: not kept). A process that finds another making the same file waits
    for it (a lock per file, so different files are made side by side) and reads its result; a path
    of None, or a folder that cannot be written, makes the value in memory only."""
    if path is None:
        return make()
    value = read_kept(path, read, what)  # read without the lock: a file under its real name was written whole
    if value is None and cache_writable(path.parent):
        value = _make_and_keep(path, read, make, dump, what)
    return make() if value is None else value


def kept_json(folder: str, key: str, make: Callable[[], T], what: str,
              keep: Callable[[T], bool] = lambda value: True) -> T:
    """make() (JSON: text, lists), kept in the cache's `folder` under a digest of `key` (everything
    it is made from, as text); a value for which keep(value) is false is made, not kept. Read back
    as JSON gives it: lists for tuples."""
    where = cache_folder(folder)
    if where is None:
        return make()

    def dump(value) -> bytes | None:
        return json.dumps(value, ensure_ascii=False).encode("utf-8") if keep(value) else None

    return kept_or_made(where / f"{hashlib.sha256(key.encode()).hexdigest()}.json", json.loads, make, dump, what)


def key_text(parts: list) -> str:
    """The parts of a kept_json key as text: a setting JSON has no form for counts as a dict when it
    is a mapping (a config object), else by its repr."""
    return json.dumps(parts, ensure_ascii=False, default=lambda v: dict(v) if isinstance(v, Mapping) else repr(v))


@functools.lru_cache(maxsize=None)
def versions(names: tuple[str, ...]) -> tuple[str, ...]:
    """"name version" of each installed package ("name none" if it is not): part of a key."""
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} none")
    return tuple(found)


@functools.lru_cache(maxsize=None)
def file_digest(path: str) -> str:
    """The sha256 of a file of ours (a memo's own module, read once per process): part of a key."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _make_and_keep(path, read, make, dump, what):
    """make() and keep it under path, unless another process did while this one waited for the lock;
    None if the folder cannot be written (then turned off for writing, with one warning)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.parent / f".{path.stem}.lock", "a")
    except OSError as e:
        cache_unwritable(path.parent, e)
        return None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            waited = False
        except BlockingIOError:  # another process makes it: wait for its file
            fcntl.flock(lock, fcntl.LOCK_EX)
            waited = True
        value = read_kept(path, read, what)
        if value is None and waited:  # it made it and could not keep it: nor could this one (it warned)
            cache_unwritable(path.parent, None)
            return None
        if value is None:
            value = make()
            data = dump(value)
            if data is not None:
                keep(path, data)
        return value
