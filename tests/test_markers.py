"""The suite's markers (conftest.py) follow from the fixtures a test uses: so a test may build the
site, run `mkdocs serve` or start chromium only through those fixtures, never by itself, or the
fast loop (`-m "not (build or browser or serve or slow)"`) would run it unmarked."""

import re
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# the only files that start mkdocs or chromium: the fixtures that mark the tests using them
OWNERS = {"conftest.py", "site_builds.py"}
# `mkdocs build` or `serve` run, chromium looked for, Playwright started
STARTS = re.compile(r'"mkdocs",\s*"(build|serve)"|which\("chromium|sync_playwright')


def test_only_the_marking_fixtures_start_mkdocs_or_chromium():
    found = [f"{path.name}:{text[:m.start()].count(chr(10)) + 1}: {m.group()}"
             for path in sorted(TESTS.glob("*.py")) if path.name not in OWNERS and path.name != "test_markers.py"
             for text in [path.read_text(encoding="utf-8")] for m in STARTS.finditer(text)]
    assert found == [], "use conftest's mkdocs_build, mkdocs_serve, chromium or browser fixtures:\n" + "\n".join(found)


def test_every_marker_is_registered():
    options = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"].split()
    assert {m.split(":")[0] for m in options["markers"]} == {"build", "browser", "serve", "slow"}
