"""The offline copy: `MHA_OFFLINE=1` builds a site that works opened from disk (file://), search
included, for a lecture hall without network.

Material's `offline` plugin does the work: links point at index.html files (use_directory_urls
off) and the search index is inlined as a script. It stays off unless MHA_OFFLINE=1, so the normal
build and its URLs never change. Its one request to a third-party host, the iframe-worker shim
that lets search run from file:// (browsers refuse a Web Worker there), is served from the copy
instead: the offline build fetches the package once from the npm registry with `npm pack` (pinned,
checked by npm against the registry's integrity hash) into .cache/npm/, never into the repository.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import zlib
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from ..keep import disk
from ..publish.identity import LICENCE_FILES

ROOT = Path(__file__).resolve().parents[2]

SHIM = "assets/vendor/iframe-worker-shim.js"  # the plugin adds no shim of its own once one is named
SHIM_PACKAGE = "iframe-worker@1.0.4"  # MIT, (c) Martin Donath; its shim/index.js is the file we serve
NPM_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "npm"


class NpmError(RuntimeError):
    """A file of an npm package could not be fetched; says why."""


UNREADABLE = (OSError, EOFError, zlib.error, tarfile.TarError)  # what a truncated or damaged tarball raises


def npm_file(spec: str, member: str, cache: Path = NPM_CACHE) -> Path:
    """The file `member` of the npm package `spec` ("name@version"), fetched from the npm registry
    with `npm pack` the first time and kept in `cache` (git-ignored: never committed).

    The package's tarball is kept and read whole each time (gzip's CRC-32 checks every byte; npm
    checked the tarball against the registry's integrity hash when it fetched it), and the member
    written out from it again if it differs, so a damaged copy of either is noticed. A damaged
    tarball is dropped, with a warning naming it, and fetched again."""
    name, version = spec.rsplit("@", 1)
    name = name.lstrip("@").replace("/", "-")  # as `npm pack` names a scoped package's tarball
    tarball = cache / f"{name}-{version}.tgz"
    data = None
    if tarball.exists():
        try:
            data = _member(tarball, member)
        except UNREADABLE as e:
            disk.drop(tarball, f"npm cache: {tarball} cannot be read ({type(e).__name__}: {e}): "
                       "dropped, fetching it again")
    if data is None:
        _pack(spec, cache, tarball)
        try:
            data = _member(tarball, member)
        except UNREADABLE as e:
            tarball.unlink(missing_ok=True)
            raise NpmError(f"`npm pack {spec}` gave {tarball}, which cannot be read ({type(e).__name__}: {e}); "
                           "run `npm cache verify`") from None
    if not data:  # no such file, a folder or an empty file
        raise NpmError(f"{tarball} holds no package/{member}")
    kept = cache / f"{name}-{version}" / member
    _keep(kept, data, cache)
    return kept


def _pack(spec: str, cache: Path, tarball: Path) -> None:
    """`npm pack spec` into `cache`; NpmError if npm is missing or fails."""
    npm = shutil.which("npm")
    if npm is None:
        raise NpmError(f"needs npm once, to fetch {spec} from the npm registry: install npm (apt-get install npm)")
    cache.mkdir(parents=True, exist_ok=True)
    # npm writes into a folder of this call's own, and the whole tarball is then renamed into place:
    # builds that run side by side (the suite's) never read a tarball another npm is still writing,
    # find it cut short, and drop it from under the npm that writes it
    with tempfile.TemporaryDirectory(dir=cache, prefix=".pack-") as own:
        run = subprocess.run([npm, "pack", spec, "--pack-destination", own],
                             capture_output=True, text=True, timeout=300)
        packed = Path(own) / tarball.name
        if run.returncode != 0 or not packed.exists():
            raise NpmError(f"`npm pack {spec}` failed: {run.stderr.strip()[-500:]}")
        os.replace(packed, tarball)


def _member(tarball: Path, member: str) -> bytes:
    """The bytes of package/member in the tarball, b"" if it holds no such file. The tarball is
    decompressed whole first: tarfile alone stops reading before the end, where gzip's check is."""
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(tarball.read_bytes()))) as tar:
        try:
            found = tar.extractfile(f"package/{member}")  # None for a folder
        except KeyError:
            return b""
        return found.read() if found else b""


def _keep(kept: Path, data: bytes, cache: Path) -> None:
    """Write data to kept, unless it holds them already; a copy damaged since is dropped first, with
    a warning naming it."""
    try:
        if kept.is_file() and kept.read_bytes() == data:
            return
        if kept.exists():
            disk.drop(kept, f"npm cache: {kept} differs from the file in its package: dropped, written again")
        disk.write_atomic(kept, data)  # a killed build leaves no half file
    except OSError as e:
        raise NpmError(f"cannot write {kept} ({e.strerror or e}): make {cache} writable") from None


def shim_source(cache: Path = NPM_CACHE) -> Path:
    """The shim's file, fetched from the npm registry on the first offline build and kept."""
    try:
        return npm_file(SHIM_PACKAGE, "shim/index.js", cache)
    except NpmError as e:
        raise PluginError(f"MHA_OFFLINE=1 (search from file://): {e}, and build again") from None


def wanted() -> bool:
    """MHA_OFFLINE: "1" builds the offline copy, unset, "" or "0" the normal site."""
    value = os.environ.get("MHA_OFFLINE", "")
    if value not in ("", "0", "1"):
        raise PluginError(f"MHA_OFFLINE={value!r}: set it to 1 for the offline copy, or to 0 or nothing")
    return value == "1"


def configure(config) -> None:
    """Turn Material's offline plugin on (before it reads its own config), with our shim."""
    if not wanted():
        return
    plugin = config.plugins.get("material/offline") or config.plugins.get("offline")
    if plugin is None:
        raise PluginError("MHA_OFFLINE=1, but mkdocs.yml lists no `offline` plugin")
    plugin.config.enabled = True
    config.use_directory_urls = False  # the plugin does this too; static-i18n reads it before
    config.extra["polyfills"] = [SHIM]


def add_shim(files: Files, config) -> Files:
    """The shim as a site file, in the offline build only."""
    if wanted() and files.get_file_from_path(SHIM) is None:
        files.append(File.generated(config, SHIM, abs_src_path=str(shim_source())))
    return files


def add_licences(files: Files, config) -> Files:
    """The licence files the offline copy's footer links (LICENCE_FILES), at its root; in the
    offline build only."""
    if wanted():
        for source, name in LICENCE_FILES.values():
            if files.get_file_from_path(name) is None:
                files.append(File.generated(config, name, abs_src_path=str(ROOT / source)))
    return files


def footer_root(lang: str, default: str) -> str | None:
    """The way from a page of `lang` to the site's root in the offline copy (its pages are files of
    one folder per language: the default language's at the root), for cite.footer; None otherwise."""
    return None if not wanted() else "" if lang == default else "../"
