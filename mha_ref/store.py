"""Keeping computed results on disk, for mha_ref and the figure cache alike: the switch that turns a
cache off, writes that never leave half a file, a cache that cannot be written turned off for writing
instead of failing the build, every kept file sealed with what it must hold (keep, kept: a damaged,
moved or swapped file, or a link in place of a file, is dropped with a warning naming it), the one
keep-or-make step (kept_or_made: read it, or make it under a lock so that two processes make it
once), results kept as JSON that only the named types are made from (to_json, from_json), and the
digest of the code a result depends on.

A result kept on disk is named by a digest of what it is made from, so an edit gives a new name and
a stale file is never read. The code counts as its syntax tree without docstrings, so an edit to a
comment or a docstring changes no digest. What counts is found by following names (CodeReach):
from a starting function, each function or class it names, and theirs in turn, and the top-level
statements (constants, import-time calls) of every module reached; in a package counted whole, a
module imported counts entirely. A call that names nothing (a function fetched with getattr) would
go unseen.
"""

from __future__ import annotations

import ast
import errno
import fcntl
import hashlib
import json
import logging
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "MHA_FIGURE_CACHE"  # "0" (or off, no, false) turns every cache off; a path moves it
DEFAULT_CACHE = ROOT / ".cache" / "figures"
OFF = ("0", "off", "no", "false")  # what turns an MHA_* switch off
ON = ("1", "on", "yes", "true")  # what turns one on

UNWRITABLE_ENV = "MHA_CACHE_UNWRITABLE"  # cache folders found unwritable in this build, for the processes it starts

T = TypeVar("T")
Unit = tuple[str, str | None]  # (module, top-level def) or (module, None): its other statements

# Not under "mkdocs": a cache's warning is printed, but does not fail `mkdocs build --strict`, since
# the build recovers from what it warns about.
log = logging.getLogger(__name__)


# ---- the MHA_* variables ------------------------------------------------------------------------
# Every one is read through these: a value one does not take is refused in one line (EnvError) that
# names the variable and the values it takes, never taken for something else nor met as a traceback.

class EnvError(ValueError):
    """An MHA_* variable set to a value it does not take; the message names it and what it takes."""


def env_text(name: str) -> str:
    """The variable's value without surrounding spaces; "" when unset."""
    return os.environ.get(name, "").strip()


def switched_off(name: str) -> bool:
    """Whether the environment variable `name` turns its feature off."""
    return env_text(name).lower() in OFF


def env_switch(name: str, default: bool) -> bool:
    """A switch: 1 (or on, yes, true) is on, 0 (or off, no, false) off; unset or empty, `default`."""
    value = env_text(name)
    if not value:
        return default
    if value.lower() in ON + OFF:
        return value.lower() in ON
    raise EnvError(f"{name}={value!r} is not a switch: set it to 1 (or on, yes, true), to 0 (or off, no, false), "
                   f"or leave it unset ({'on' if default else 'off'})")


def env_seconds(name: str, default: float, what: str) -> float | None:
    """A number of seconds above 0 (`what` they are, for the message); 0 (or off, no, false) is None,
    no limit; unset or empty, `default`."""
    value = env_text(name)
    if not value:
        return default
    if switched_off(name):
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise EnvError(f"{name}={value!r} is not a number of seconds: give the seconds {what} (default {default:g}), "
                       f"or 0 for no limit")
    return seconds


def env_folder(name: str, default: Path) -> Path | None:
    """A folder (made when first written to); 0 (or off, no, false) is None, none; unset or empty,
    `default`. A path to something that is not a folder (a file, /dev/null) is refused."""
    value = env_text(name)
    if not value:
        return default
    if switched_off(name):
        return None
    folder = Path(value)
    if folder.exists() and not folder.is_dir():
        raise EnvError(f"{name}={value!r} is not a folder: name a folder (made if missing), or set it to 0 "
                       f"(or off, no, false) for none")
    return folder


def cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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


def to_json(value) -> str:
    """A result made of named tuples, tuples, lists, mappings (any keys), numpy arrays and scalars,
    strings, numbers and None, as JSON text that from_json() reads back to equal values: floats
    are written in full (Python's repr round-trips them), each container tagged with what it was."""
    return json.dumps(_encoded(value), separators=(",", ":"), allow_nan=True)


def _encoded(v):
    if isinstance(v, np.ndarray):
        return {"array": v.tolist(), "dtype": v.dtype.str, "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {"type": type(v).__name__, "fields": [_encoded(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [_encoded(x) for x in v]}
    if isinstance(v, list):
        return [_encoded(x) for x in v]
    if isinstance(v, Mapping):
        return {"map": [[_encoded(k), _encoded(x)] for k, x in v.items()]}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"to_json: cannot keep a {type(v).__name__}")


def from_json(text: str, types: Sequence[type]):
    """to_json's text back to its value; a named tuple must be of one of `types` (nothing else is
    made from the file), a mapping comes back as a dict. A file of another shape raises ValueError."""
    by_name = {t.__name__: t for t in types}

    def decoded(v):
        if isinstance(v, list):
            return [decoded(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "array" in v:
            return np.array(v["array"], dtype=np.dtype(v["dtype"])).reshape(v["shape"])
        if "tuple" in v:
            return tuple(decoded(x) for x in v["tuple"])
        if "map" in v:
            return {_hashable(decoded(k)): decoded(x) for k, x in v["map"]}
        if "type" in v:
            if v["type"] not in by_name:
                raise ValueError(f"a kept {v['type']!r}, not one of {sorted(by_name)}")
            return by_name[v["type"]](*(decoded(x) for x in v["fields"]))
        raise ValueError(f"an object with keys {sorted(v)}")
    return decoded(json.loads(text))


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def code_text(source: str) -> str:
    """A module's source as the digests see it: its syntax tree as text, without comments,
    docstrings or line numbers (what an edit to the code changes and an edit to its explanations
    does not)."""
    return ast.dump(_strip_docstrings(ast.parse(source)))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _module_facts(name: str, is_package: bool, source: bytes, path: Path) -> dict:
    """What the digests read from a module's syntax tree (docstrings stripped): each part's digest
    and the names it uses ("*" the whole module, None its statements outside defs, or a def by
    name), what its imports name, and the lines of its function definitions."""
    tree = _strip_docstrings(ast.parse(source, str(path)))
    defs: dict[str, ast.Module] = {}  # a name defined twice counts both definitions
    for n in tree.body:
        if isinstance(n, _DEFS):
            defs.setdefault(n.name, ast.Module(body=[], type_ignores=[])).body.append(n)
    parts = {"*": tree, None: ast.Module(body=[n for n in tree.body if not isinstance(n, _DEFS)], type_ignores=[]),
             **defs}
    statements = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
    for node in statements:
        if isinstance(node, ast.Import):
            for a in node.names:
                imports[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
        else:
            base = _absolute(name, is_package, node.module, node.level)
            for a in node.names:
                imports[a.asname or a.name] = (base, a.name)
    return {"parts": [[part, hashlib.sha256(ast.dump(node).encode()).hexdigest(), _used(node)]
                      for part, node in parts.items()],
            "imports": [[local, list(target)] for local, target in imports.items()],
            "imported": [a.asname or a.name.split(".")[0] for stmt in statements for a in stmt.names if a.name != "*"],
            "lines": {part: [n.lineno for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                      for part, node in defs.items()}}


def _used(node: ast.AST) -> list[tuple[str, str | None]]:
    """The names used inside `node`, in order, once each: (name, None) for `name`, (name, attr) for `name.attr`."""
    found: dict[tuple[str, str | None], None] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found[(n.id, None)] = None
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            found[(n.value.id, n.attr)] = None
    return list(found)


def _absolute(name: str, is_package: bool, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    package = name.split(".") if is_package else name.split(".")[:-1]
    package = package[:len(package) - (level - 1)]
    return ".".join(package + ([module] if module else []))


class _Module:
    """One module as the digests see it: its parts' digests and the names each uses, its top-level
    defs (with the lines of their function definitions) and what its imports name."""

    def __init__(self, name: str, path: Path, facts: dict):
        self.name, self.path = name, path
        self.is_package = path.name == "__init__.py"
        self.digests: dict[str | None, str] = {part: digest for part, digest, _ in facts["parts"]}
        self._names = {part: tuple((n, a) for n, a in used) for part, _, used in facts["parts"]}
        self.defs: dict[str, list[int]] = {part: lines for part, lines in facts["lines"].items()}
        self.imports: dict[str, tuple[str, str | None]] = {local: (m, a) for local, (m, a) in facts["imports"]}
        self.imported: list[str] = facts["imported"]  # the local names its import statements bind

    def names(self, part: str | None) -> tuple[tuple[str, str | None], ...]:
        """The names a part uses: (name, None) for `name`, (name, attr) for `name.attr`."""
        return self._names[part]


_PARSED: dict[tuple, _Module] = {}  # (name, path, source) -> the module read: once per process, not per CodeReach
# What a module's facts are read with: this file's code and Python's syntax trees (ast.dump differs between versions)
_FACTS_SALT = hashlib.sha256(Path(__file__).read_bytes()).hexdigest() + repr(sys.version_info[:2])


def _parsed(name: str, path: Path) -> _Module:
    """The module at `path` as the digests see it, parsed once per process (a build makes a CodeReach
    for each figure's digest, and each would otherwise parse the modules again), and once per source
    on this machine: its facts are kept in the cache folder's code/, named by a digest of the module's
    name, its source and _FACTS_SALT, so a process whose code did not change parses nothing."""
    source = path.read_bytes()
    key = (name, str(path), hashlib.sha256(source).digest())
    if key not in _PARSED:
        is_package = path.name == "__init__.py"
        folder = cache_folder("code")
        digest = hashlib.sha256(f"{name}\0{is_package}\0{_FACTS_SALT}\0".encode() + source).hexdigest()
        facts = kept_or_made(None if folder is None else folder / f"{digest}.json", json.loads,
                             lambda: _module_facts(name, is_package, source, path),
                             lambda f: json.dumps(f).encode(), "a module's facts")
        _PARSED[key] = _Module(name, path, facts)
    return _PARSED[key]


class CodeReach:
    """The code of packages below `root`, parsed once, and what a unit of it reaches by name.

    whole: packages whose modules count entirely once imported; by_name: packages whose modules
    count by the functions and classes reached; skip: modules that never count.
    """

    def __init__(self, root: Path = ROOT, whole: tuple[str, ...] = (), by_name: tuple[str, ...] = ("mha_ref",),
                 skip: tuple[str, ...] = ()):
        self.root, self.whole, self.by_name, self.skip = Path(root), whole, by_name, skip
        self._modules: dict[str, _Module | None] = {}
        self._units: dict[Unit, tuple[str, frozenset[Unit]]] = {}

    def module(self, name: str) -> _Module | None:
        if name.split(".")[0] not in (*self.whole, *self.by_name) or name in self.skip:
            return None  # numpy, matplotlib, ...: covered by their versions
        if name not in self._modules:
            base = self.root.joinpath(*name.split("."))
            paths = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
            self._modules[name] = _parsed(name, paths[0]) if paths else None
        return self._modules[name]

    def _module_unit(self, name: str) -> Unit | None:
        mod = self.module(name)
        return None if mod is None else (name, "*" if name.split(".")[0] in self.whole else None)

    def _symbol(self, module: str, attr: str) -> set[Unit]:
        """What `module.attr` names: a submodule, a def, a re-exported name or a constant."""
        if self.module(f"{module}.{attr}") is not None:
            return {self._module_unit(f"{module}.{attr}")} - {None}
        mod = self.module(module)
        if mod is None:
            return set()
        units = {self._module_unit(module)} - {None}
        if units == {(module, "*")}:
            return units
        if attr in mod.defs:
            units.add((module, attr))
        elif attr in mod.imports:  # re-exported, as mha_ref/__init__.py does
            units |= self._local(mod, attr)[0]
        return units

    def _local(self, mod: _Module, name: str) -> tuple[set[Unit], str | None]:
        """What a name used in `mod` refers to, and the module it is, if it is one."""
        if name in mod.defs:
            return {self._module_unit(mod.name) if mod.name.split(".")[0] in self.whole else (mod.name, name)}, None
        if name not in mod.imports:
            return set(), None  # a local variable, a builtin, or a constant of `mod` (in its top unit)
        module, attr = mod.imports[name]
        if attr is not None and self.module(f"{module}.{attr}") is None:
            return self._symbol(module, attr), None
        module = module if attr is None else f"{module}.{attr}"
        return {self._module_unit(module)} - {None}, module

    def _names(self, mod: _Module, part: str | None) -> set[Unit]:
        """The units that the names used inside a part of module `mod` refer to."""
        units: set[Unit] = set()
        for name, attr in mod.names(part):
            if attr is None:
                units |= self._local(mod, name)[0]
            else:
                module = self._local(mod, name)[1]
                if module is not None:
                    units |= self._symbol(module, attr)
        return units

    def _unit(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        """A unit's own digest and the units it names."""
        if unit not in self._units:
            self._units[unit] = self._read(unit)
        return self._units[unit]

    def _read(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        name, part = unit
        mod = self.module(name)
        refs = self._names(mod, part)
        if part != "*":
            refs.add((name, None))  # a def reached brings its module's constants with it
        if part == "*":  # importing runs the imported modules, used or not (mha_ref has no side effects)
            for target in {mod.imports[local] for local in mod.imported}:
                module = ".".join(filter(None, target))
                refs |= {self._module_unit(module if self.module(module) else target[0])} - {None}
        return mod.digests[part], frozenset(refs - {unit, None})

    def reached(self, *start: Unit) -> dict[Unit, str]:
        """Every unit reached from the `start` units, with its own digest."""
        todo = [u for u in start if u and self.module(u[0]) is not None]
        seen: dict[Unit, str] = {}
        while todo:
            unit = todo.pop()
            if unit in seen:
                continue
            seen[unit], refs = self._unit(unit)
            todo.extend(refs)
        return seen

    def digest(self, *start: Unit, salt: str = "") -> str:
        """One digest of every unit reached from `start` (and of `salt`: what else decides the result)."""
        h = hashlib.sha256(salt.encode())
        for (name, part), digest in sorted(self.reached(*start).items(), key=lambda kv: repr(kv[0])):
            h.update(f"{name}:{part}:{digest}\n".encode())
        return h.hexdigest()
