"""The engine the site is built with: ProperDocs, the maintained fork of MkDocs 1.6, builds the same
site from the same mkdocs.yml, byte for byte but for its name."""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

from figures.site import offline_reading

ROOT = Path(__file__).resolve().parents[1]
def generator(html: bytes) -> bytes:
    """A page's generator meta tag (Material writes "mkdocs-<MkDocs' version>, mkdocs-material-<its>")."""
    start = html.find(b'<meta name="generator"')
    return html[start:html.index(b">", start) + 1] if start >= 0 else b""


def differences(a: Path, b: Path) -> tuple[list[str], list[str], dict[str, tuple[bytes, bytes]]]:
    """Files only in a, only in b, and those in both whose bytes differ other than in the generator
    meta tag (those differing only there: by their tags, a's and b's)."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    other, tags = [], {}
    for name in sorted(files_a & files_b):
        x, y = (a / name).read_bytes(), (b / name).read_bytes()
        if x == y:
            continue
        gx, gy = generator(x), generator(y)
        if gx and gy and x.replace(gx, gy, 1) == y:
            tags[name] = (gx, gy)
        else:
            other.append(name)
    return sorted(files_a - files_b), sorted(files_b - files_a), {"other": other, "tags": tags}


def worker_version(site: Path) -> str:
    """The version the site's service worker names (figures/site/offline_reading.py)."""
    text = (site / offline_reading.WORKER).read_text(encoding="utf-8")
    return json.loads(re.search(r"const BUILD = (\{.*?\});", text)[1])["version"]


def test_properdocs_builds_the_same_site_but_for_the_generators_name(site, properdocs_site):
    """The same mkdocs.yml, plugins and hooks, built by ProperDocs in place of MkDocs: every file the
    same, but for the generator meta tag of each page, which names the engine, and the service
    worker's version, a digest of every other file of the site."""
    only_mkdocs, only_properdocs, found = differences(site, properdocs_site)
    assert (only_mkdocs, only_properdocs, found["other"]) == ([], [], [offline_reading.WORKER])
    versions = [worker_version(s) for s in (site, properdocs_site)]
    assert versions == [offline_reading.build_digest(s) for s in (site, properdocs_site)]
    worker = [(s / offline_reading.WORKER).read_bytes() for s in (site, properdocs_site)]
    assert worker[0].replace(versions[0].encode(), versions[1].encode()) == worker[1]
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if generator(p.read_bytes()))
    assert len(pages) > 20 and sorted(found["tags"]) == pages
    material = metadata.version("mkdocs-material")
    assert set(found["tags"].values()) == {
        (f'<meta name="generator" content="mkdocs-{metadata.version("mkdocs")}, mkdocs-material-{material}">'.encode(),
         f'<meta name="generator" content="mkdocs-ProperDocs {metadata.version("properdocs")}, '
         f'mkdocs-material-{material}">'.encode())}


def test_the_comparison_sees_a_changed_byte_and_a_missing_file(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    page = b'<head><meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.1"></head><p>x</p>'
    for root in (a, b):
        (root / "en").mkdir(parents=True)
    (a / "en" / "index.html").write_bytes(page)
    (b / "en" / "index.html").write_bytes(page.replace(b"mkdocs-1.6.1", b"mkdocs-ProperDocs 1.6.7"))
    (a / "x.js").write_bytes(b"1")
    (b / "x.js").write_bytes(b"2")
    (a / "only.txt").write_bytes(b"")
    only_a, only_b, found = differences(a, b)
    assert (only_a, only_b, found["other"]) == (["only.txt"], [], ["x.js"])
    assert list(found["tags"]) == ["en/index.html"]
    (b / "en" / "index.html").write_bytes(page.replace(b"mkdocs-1.6.1", b"mkdocs-ProperDocs 1.6.7").replace(b"x", b"y"))
    assert differences(a, b)[2]["other"] == ["en/index.html", "x.js"]
