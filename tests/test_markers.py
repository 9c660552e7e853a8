"""The suite's markers (conftest.py) follow from the fixtures a test uses: so a test may build the
site, run `mkdocs serve` or start chromium only through those fixtures, never by itself, or the
fast loop (`-m "not (build or browser or serve or slow or trained)"`) would run it unmarked."""

import re
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# the only files that start mkdocs or chromium: the fixtures that mark the tests using them
OWNERS = {"conftest.py", "site_builds.py",
          "test_wheel.py"}  # runs `mkdocs build` with the wheel's own Python: a slow module, its build test marked by hand
# `mkdocs build` or `serve` run (or ProperDocs', the same build), chromium looked for, Playwright started
STARTS = re.compile(r'"(?:mkdocs|properdocs)",\s*"(build|serve)"|which\("chromium|sync_playwright')


def test_only_the_marking_fixtures_start_mkdocs_or_chromium():
    found = [f"{path.name}:{text[:m.start()].count(chr(10)) + 1}: {m.group()}"
             for path in sorted(TESTS.glob("*.py")) if path.name not in OWNERS and path.name != "test_markers.py"
             for text in [path.read_text(encoding="utf-8")] for m in STARTS.finditer(text)]
    assert found == [], "use conftest's mkdocs_build, mkdocs_serve, chromium or browser fixtures:\n" + "\n".join(found)


def test_every_marker_is_registered():
    options = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"].split()
    assert {m.split(":")[0] for m in options["markers"]} == {"build", "browser", "serve", "slow", "trained"}


class _Item:
    def __init__(self, nodeid, *fixtures):
        self.nodeid, self.fixturenames, self.markers = nodeid, list(fixtures), []

    def add_marker(self, name):
        self.markers.append(name)

    def get_closest_marker(self, name):
        return name if name in self.markers else None


def _sorted_by(config, items):
    """What conftest's pytest_collection_modifyitems leaves of items (pytest's own step in between does nothing)."""
    import conftest
    hook = conftest.pytest_collection_modifyitems(config, items)
    next(hook)
    try:
        hook.send(None)
    except StopIteration:
        pass
    return [item.nodeid.split("::")[0] for item in items]


def _config(**attributes):
    from types import SimpleNamespace
    options = attributes.pop("options", {})
    return SimpleNamespace(pluginmanager=SimpleNamespace(hasplugin=lambda name: name == "xdist"),
                           getoption=lambda name, default=None: options.get(name, default), stash={}, **attributes)


ITEMS = [("test_a.py::t", "tmp_path"), ("test_b.py::t", "browser", "chromium"), ("test_s.py::t", "mkdocs_serve")]


def test_each_process_of_a_session_hands_out_the_modules_that_wait_longest_first():
    # pytest-xdist hands the modules out in the order its processes collect them, and tells a process
    # of the session no numprocesses: the controller's sort alone would be read by no one
    expected = ["test_s.py", "test_b.py", "test_a.py"]
    assert _sorted_by(_config(workerinput={"workerid": "gw0"}), [_Item(*i) for i in ITEMS]) == expected
    assert _sorted_by(_config(options={"numprocesses": 3}), [_Item(*i) for i in ITEMS]) == expected
    assert _sorted_by(_config(), [_Item(*i) for i in ITEMS]) == ["test_a.py", "test_b.py", "test_s.py"]  # one process


def test_pytest_xdist_follows_that_order():
    import conftest
    from types import SimpleNamespace
    config = SimpleNamespace(option=SimpleNamespace(loadscopereorder=True))  # pytest-xdist's default
    conftest.pytest_configure(config)
    assert config.option.loadscopereorder is False


def test_a_test_using_trained_lm_is_marked_trained_and_the_session_then_checks_page_4s_figures():
    import conftest
    config = _config()
    items = [_Item("test_a.py::t", "tmp_path"), _Item("test_t.py::t", "trained_lm")]
    _sorted_by(config, items)
    assert [item.markers for item in items] == [[], ["trained"]]
    assert config.stash[conftest.CHECK_TRAINED] is True
    config = _config()
    _sorted_by(config, [_Item("test_a.py::t", "tmp_path")])  # the fast loop: nothing trained
    assert config.stash[conftest.CHECK_TRAINED] is False
    config = _config()
    _sorted_by(config, [_Item("test_b.py::t", "site")])  # a build draws page 4's figures anyway
    assert config.stash[conftest.CHECK_TRAINED] is True


def test_a_session_without_a_trained_test_fails_one_that_reaches_page_4s_model():
    import pytest
    import conftest
    from figures.engine import render
    from figures.keep import tiny_lm
    before = tiny_lm._trained, tiny_lm.seed_heads, render._preparation
    with pytest.MonkeyPatch.context() as patch:
        conftest.refuse_training(patch)
        for reach in (lambda: tiny_lm.trained(0), lambda: tiny_lm.seed_heads(0), lambda: tiny_lm.all_seeds(),
                      lambda: render._preparation("seed-roles")):
            with pytest.raises(pytest.fail.Exception, match="trained_lm fixture"):
                reach()
        assert render._preparation("causal-mask") is None  # the other figures draw as before
        tiny_lm._trained.cache_clear()  # what test_lm.py does between its small trainings
    assert (tiny_lm._trained, tiny_lm.seed_heads, render._preparation) == before  # put back after
