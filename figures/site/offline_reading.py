"""Reading without network, on the published site: a service worker, and the offline copy as a zip.

- sw.js (from offline-worker.js beside this file) is written at the site's root after every
  language is built, with the digest of the whole build, so that a new release is a new worker
  and drops the old cache. Pages register it through <meta name="mha-worker"> (overrides/main.html)
  and docs/assets/mha-offline.js, which docs/assets/mha-page.js fetches once the page is idle,
  unless the browser asks to save data. Neither the offline copy (MHA_OFFLINE=1, opened from file://,
  where browsers refuse workers) nor `mkdocs serve` (whose figures change under the same URLs on
  every save) registers it; under serve, sw.js is a worker that only retires one a reader's
  browser may still hold for this address, with its cache.
- MHA_OFFLINE_ZIP=PATH: the offline copy, zipped (.github/CONTRIBUTING.md), is put into the site as
  mha-offline.zip, and every page's footer offers it with its size. Without it, no link: a local
  build has no zip to offer (the Pages workflow builds one).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
import zlib
from pathlib import Path

from mkdocs.exceptions import PluginError

WORKER = "sw.js"  # at the site's root: a worker's scope is its folder, and this one is the whole site
WORKER_SOURCE = Path(__file__).with_name("offline-worker.js")
ZIP_ENV = "MHA_OFFLINE_ZIP"
ZIP = "mha-offline.zip"
ZIP_LIMIT = 10**9  # bytes, zipped or unpacked: a zip larger is not the offline copy (tens of MB)
LUNR = "assets/javascripts/lunr/"
OFFLINE = "offline.html"  # one per language, answered offline for a page not kept (overrides/offline.html)


def search_scripts(langs: list[str]) -> list[str]:
    """The files Material's search worker imports for the search languages `langs`, from the site's
    root: its rule, read from its worker (search.*.min.js): a segmenter for ja, hi and th, a
    language file for all but en, the multi-language file for several, the stemmer support first."""
    segmenters = {"ja": "tinyseg.js", "hi": "wordcut.js", "th": "wordcut.js"}
    files = []
    for lang in langs:
        if lang in segmenters:
            files.append(LUNR + segmenters[lang])
        if lang != "en":
            files.append(f"{LUNR}min/lunr.{lang}.min.js")
    if len(langs) > 1:
        files.append(f"{LUNR}min/lunr.multi.min.js")
    return [f"{LUNR}min/lunr.stemmer.support.min.js", *files] if files else []


def without_other_search_languages(site_dir: Path, langs: list[str]) -> int:
    """Remove from `site_dir` the files of Material's search that no language of `langs` imports
    (search_scripts): Material copies the stemmers of thirty languages and the Thai segmenter
    (0.9 MB) whatever the site's languages. The number of files removed (0 when done already)."""
    wanted = set(search_scripts(langs))
    removed = 0
    for path in sorted((site_dir / LUNR).rglob("*.js")):
        if path.relative_to(site_dir).as_posix() not in wanted:
            path.unlink()
            removed += 1
    return removed


def build_digest(site_dir: Path, leave_out: tuple[str, ...] = (WORKER,)) -> str:
    """A digest of every file of the built site (its path and bytes), but `leave_out`."""
    digest = hashlib.sha256()
    for path in sorted(p for p in site_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(site_dir).as_posix()
        if rel in leave_out:
            continue
        digest.update(rel.encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(hashlib.file_digest(f, "sha256").digest())
    return digest.hexdigest()[:16]


def worker_source(version: str, search: list[str], retire: bool = False, offline: list[str] = ()) -> str:
    """sw.js: the worker with its build's facts in place of its /*BUILD*/ line: `offline`, the
    offline pages (offline.html, en/offline.html) from the site's root."""
    build = json.dumps({"version": version, "search": search, "retire": retire, "offline": list(offline)})
    source = WORKER_SOURCE.read_text(encoding="utf-8")
    if source.count("/*BUILD*/") != 1:
        raise ValueError(f"{WORKER_SOURCE.name} must hold one /*BUILD*/ line")
    return source.replace("/*BUILD*/", f"const BUILD = {build};")


def configure(config, offline: bool, serving: bool) -> None:
    """Pages register the worker (overrides/main.html reads extra.mha_worker) in a normal build,
    and offer the zip MHA_OFFLINE_ZIP names (extra.mha_offline_zip), checked once here; the
    offline copy offers no zip of itself."""
    config.extra["mha_worker"] = not (offline or serving)
    # read from file://, where a preload (a CORS fetch) of the maths' font is refused with an error
    # (the stylesheet's own load of it works): main.html leaves the preload out of the offline copy
    config.extra["mha_from_disk"] = offline
    zip_path = None if offline else offline_zip()
    config.extra["mha_offline_zip"] = str(zip_path) if zip_path else None


def write_worker(site_dir: Path, search_langs: list[str], offline: bool, serving: bool) -> None:
    """sw.js in the built site: none in the offline copy, a retiring one under serve."""
    if offline:
        return
    version = "retired" if serving else build_digest(site_dir)  # serve's rebuilds need no digest
    pages = sorted(p.relative_to(site_dir).as_posix() for p in [site_dir / OFFLINE, *site_dir.glob(f"*/{OFFLINE}")]
                   if p.is_file())
    (site_dir / WORKER).write_text(worker_source(version, search_scripts(search_langs), retire=serving, offline=pages),
                                   encoding="utf-8")


# ---- the offline copy, offered in the footer --------------------------------------------------

FOOTER = {"zh": ("下载整站离线版（zip，{size}）", "：解压后打开 index.html，无网络也能读"),
          "en": ("Download the whole site to read offline (zip, {size})", ": unpack it and open index.html")}


def offline_zip() -> Path | None:
    """The zip MHA_OFFLINE_ZIP names, checked to be the offline copy; None when it is unset."""
    value = os.environ.get(ZIP_ENV, "").strip()
    if not value:
        return None
    path = Path(value)
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise PluginError(f"{ZIP_ENV}={value!r}: no zip file there (make one: .github/CONTRIBUTING.md, 'A copy for a room without network')")
    try:
        with zipfile.ZipFile(path) as z:
            unpacked = sum(member.file_size for member in z.infolist())
            if max(path.stat().st_size, unpacked) > ZIP_LIMIT:
                raise PluginError(f"{ZIP_ENV}={value!r}: {size_text(max(path.stat().st_size, unpacked))} "
                                  f"{'unpacked' if unpacked > path.stat().st_size else 'zipped'}, more than the "
                                  f"{size_text(ZIP_LIMIT)} a reader is offered (the offline copy is tens of MB)")
            if "index.html" not in z.namelist():
                raise PluginError(f"{ZIP_ENV}={value!r}: this zip has no index.html at its top, so it is not the offline copy")
            bad = z.testzip()  # every member read and its CRC checked
            damaged = None if bad is None else f"its member {bad} fails its CRC check"
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
        damaged = f"{type(e).__name__}: {e}"
    if damaged is not None:
        raise PluginError(f"{ZIP_ENV}={value!r}: the zip is damaged ({damaged}); make it again "
                          "(.github/CONTRIBUTING.md, 'A copy for a room without network')")
    return path


def size_text(n: int) -> str:
    """A size as a reader reads it: "840 KB", "12.3 MB"."""
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{max(1, round(n / 1e3))} KB"


def footer_text(lang: str, zip_path: Path) -> tuple[str, str]:
    """The footer's offer in `lang`: the link's words (with the zip's size), and the words after it."""
    link, after = FOOTER[lang]
    return link.format(size=size_text(zip_path.stat().st_size)), after


def add_zip(site_dir: Path, zip_path: str | None) -> None:
    if zip_path:
        shutil.copyfile(zip_path, site_dir / ZIP)
