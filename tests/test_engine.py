"""The engine the site is built with, and its way out (figures/site/ENGINE.md): the pins keep MkDocs 1
and Material 9, which run the site's hooks, plugins and theme overrides; ProperDocs, the maintained
fork of MkDocs 1.6, builds the same site from the same mkdocs.yml, byte for byte but for its name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from figures.site import build, offline_reading

ROOT = Path(__file__).resolve().parents[1]
# the engine's packages, each with the major version this site's hooks, plugins and overrides run on:
# MkDocs 2 drops plugins, themes and hooks; Material 10 would be Zensical's, or nobody's
KEPT_MAJOR = {"mkdocs": 1, "mkdocs-material": 9, "mkdocs-static-i18n": 1, "mkdocs-gen-files": 0, "mike": 2,
              "properdocs": 1}


def requirements() -> dict[str, Requirement]:
    """Every requirement of pyproject.toml, the dependencies' and the extras', by package name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    found += [Requirement(r) for extra in project["optional-dependencies"].values() for r in extra]
    return {r.name.lower(): r for r in found if r.name != project["name"]}


def _admits_only_one(req: Requirement) -> str | None:
    """The one version a requirement admits (an == pin), or None."""
    specs = list(req.specifier)
    return specs[0].version if len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version else None


def test_the_engine_is_pinned_to_the_versions_that_run_the_site():
    reqs = requirements()
    pins = {name: _admits_only_one(reqs[name]) if name in reqs else "missing" for name in KEPT_MAJOR}
    assert all(pin not in (None, "missing") for pin in pins.values()), pins
    wrong = {name: pin for name, pin in pins.items() if int(pin.split(".")[0]) != KEPT_MAJOR[name]}
    assert wrong == {}, "a pin that lets in an engine whose plugins, hooks or theme this site cannot use"
    # and what is installed is what is pinned (`pip install -e '.[test]'`)
    assert {name: metadata.version(name) for name in KEPT_MAJOR} == pins


def test_no_installed_package_asks_for_another_engine():
    """Nothing installed beside the pins asks for MkDocs 2 or Material 10: a plugin that did could
    not be installed with them, and an update of one would have to move the pins first."""
    asks = []
    for dist in metadata.distributions():
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker and not req.marker.evaluate({"extra": ""}):
                continue
            name = req.name.lower()
            if name in KEPT_MAJOR and req.specifier and not req.specifier.contains(metadata.version(name),
                                                                                 prereleases=True):
                asks.append(f"{dist.metadata['Name']} asks for {req}")
    assert asks == []


def test_the_pin_check_refuses_an_open_or_wrong_pin():
    assert _admits_only_one(Requirement("mkdocs==1.6.1")) == "1.6.1"
    for loose in ("mkdocs>=1.6", "mkdocs~=1.6", "mkdocs==1.*", "mkdocs", "mkdocs>=1,<3"):
        assert _admits_only_one(Requirement(loose)) is None, loose


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


def test_the_guide_builds_with_properdocs_through_the_build_command(tmp_path):
    """`python -m figures.site.build --engine properdocs`: ProperDocs' own command line runs the build
    (its usage answers an option it does not know), into a folder of its own, as MkDocs' does."""
    guide = (ROOT / ".github/CONTRIBUTING.md").read_text(encoding="utf-8")
    assert ".venv/bin/python -m figures.site.build --engine properdocs\n" in guide
    run = subprocess.run([sys.executable, "-m", "figures.site.build", "--engine", "properdocs", "-d",
                          str(tmp_path / "site"), "--no-such-option"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0 and "Usage: properdocs build" in run.stderr
    assert "no half-built site kept" in run.stderr and not list(tmp_path.iterdir())


def test_an_engine_the_build_command_does_not_know_is_refused_in_one_line():
    assert build.split_engine(["-d", "x"]) == ("mkdocs", ["-d", "x"])
    assert build.split_engine(["--engine", "properdocs", "-d", "x"]) == ("properdocs", ["-d", "x"])
    run = subprocess.run([sys.executable, "-m", "figures.site.build", "--engine", "zensical"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stderr == "--engine 'zensical': the engines are mkdocs, properdocs\n"
