"""Shared fixtures: one strict build of the whole site per test session; a copy of the checkout.

Each test is marked by what it uses (pytest_collection_modifyitems below, from its fixtures): `build`
(the built site, or a `mkdocs build` of its own), `browser` (chromium), `serve` (`mkdocs serve`);
`trained` (page 4's model: five seeds trained, their heads measured); `slow` is set by hand.
`pytest -m "not (build or browser or serve or slow or trained)"` is the fast loop."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import machine_cache
from mha_ref.tiny import lm_train
from checkout_copy import copy_checkout
from figures.engine import render
from figures.engine.cache import ENV, WHOLE
from figures.keep import disk, switches, tiny_lm
from figures.publish import bundles
from figures.publish import expansions
from figures.site import markdown_memo, mathfont, search_memo, template_memo
from serving import static_site
from site_builds import BUILDS, ENGINES, Build, shared_builds

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def figure_cache(tmp_path_factory, request):
    """The session's builds and CLI runs share a figure cache of their own, empty at the start: the
    frame checks fill it, drawing every frame, or taking the frames an earlier session on this
    machine drew and checked from the same code (tests/frame_checks.py, Kept). Its trained-lm/
    folder holds the page-4 model's weights (one file per seed), lm-heads/ its head measurements,
    math-font/ the maths' font cut to the pages, code/ each module's facts for the digests (figures.keep.reach),
    published/ and tables/ each frame's published files and each figure's data table (figures/publish/bundles.py),
    pages/ and captions/ each page and caption expanded (figures/publish/expansions.py), search/ each page's search entries (figures/site/search_memo.py), markdown/ each page converted (figures/site/markdown_memo.py), templates/ the theme compiled (figures/site/template_memo.py), decks/, flashcards/ and selfcheck/ the slide decks,
    glossary cards and test vectors, whole/ the figure files the builds link into their sites,
    each named by a digest of what makes it: MHA_FIGURE_CACHE's
    when that names a folder, otherwise the machine's (tests/machine_cache.py), so they are trained
    once and loaded by every later session of every clone. The tests of training itself
    (test_lm.py) train in caches of their own."""
    # MHA_FIGURE_CACHE's trained-lm/ and lm-heads/ (the masked language model's seeds) when it names
    # a folder; otherwise the machine's, shared by clones
    named = os.environ.get(ENV, "").strip() and not switches.switched_off(ENV)
    folder, shared = tmp_path_factory.mktemp("figure-cache"), []
    for name, kept in (("trained-lm", tiny_lm.weights_folder()), ("lm-heads", tiny_lm.heads_folder()),
                       ("math-font", mathfont.cache_folder()), ("code", disk.cache_folder("code")),
                       (bundles.PUBLISHED, disk.cache_folder(bundles.PUBLISHED)),
                       (bundles.TABLES, disk.cache_folder(bundles.TABLES)), *((name, disk.cache_folder(name)) for name in (expansions.PAGES, expansions.CAPTIONS)),
                       *((name, disk.cache_folder(name)) for name in ("decks", "flashcards", "selfcheck", search_memo.FOLDER,
                                                                                markdown_memo.FOLDER, template_memo.FOLDER, WHOLE))):
        kept = kept if named else machine_cache.folder() / name
        kept.mkdir(parents=True, exist_ok=True)
        (folder / name).symlink_to(kept, target_is_directory=True)
        shared += [] if named else [kept]
    os.environ[ENV] = str(folder)
    formats = request.config.stash.get(CHECK_FORMATS, None)
    checking = None
    if formats is not None and not os.environ.get("PYTEST_XDIST_WORKER"):  # a worker of several: when a test asks
        from frame_checks import Checking
        checking = request.config.stash[CHECKING] = Checking(formats, request.config.stash[CHECK_TRAINED],  # draws while the first tests run
                                                             *request.config.stash[CHECK_FRAMES])
    yield
    if checking is not None:
        checking.cancel()
    for kept in shared:  # the session's builds do not prune the machine's folders: they are kept bounded here
        machine_cache.prune(kept)


@pytest.fixture(scope="session")
def checked_frames(figure_cache, request):
    """Every frame drawn once, checked, and its files cached for the build (tests/frame_checks.py):
    drawn in the background since the session started."""
    from frame_checks import Checking
    checking = request.config.stash.get(CHECKING, None) or Checking(request.config.stash.get(CHECK_FORMATS, None),
                                                                    request.config.stash.get(CHECK_TRAINED, True),
                                                                    *request.config.stash.get(CHECK_FRAMES, (True, frozenset())))
    return checking.result()


@pytest.fixture(scope="session")
def trained_lm():
    """Page 4's model: every seed of lm_train.SEEDS trained and its heads measured (tiny_lm.all_seeds),
    minutes of both cores when the code they reach changed, else read from the machine's cache. A test
    that reaches them uses this fixture, which marks it `trained`: the fast loop leaves it out."""
    return tiny_lm.all_seeds()


@pytest.fixture(scope="session", autouse=True)
def _no_training_unless_marked(request):
    """In a session that runs no test marked `trained` (the fast loop), a test or fixture reaching page
    4's model fails at once, naming the fixture to use, instead of training it for minutes (README,
    the fast loop). In this process: the frame checks leave those figures out in such a session
    (frame_checks.Checking), and builds run in processes of their own and are marked `build`."""
    if request.config.stash.get(CHECK_TRAINED, True):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        refuse_training(patch)
        patch.setenv(tiny_lm.REFUSE, "1")  # and in the processes the tests start (figures.keep.tiny_lm)
        yield


def refuse_training(patch: pytest.MonkeyPatch) -> None:
    """Make reaching page 4's trained model (tiny_lm.trained with lm_train's CONFIG, tiny_lm.seed_heads
    unless a stub stands in for the measuring, the PREPARE of a figure that draws it) fail the test."""
    def refused(*args, **kwargs):
        test = os.environ.get("PYTEST_CURRENT_TEST", "a test").rsplit(" (", 1)[0]
        pytest.fail(f"{test} reaches page 4's trained model (tiny_lm.trained, tiny_lm.seed_heads): "
                    "give it (or its fixture) the trained_lm fixture, which marks it `trained`")
        # (pytest.fail raises no Exception: nothing on the way catches it)

    def trained(config, *args):
        return refused() if config == lm_train.CONFIG else untouched(config, *args)

    def preparation(fig_id):  # page 4's PREPARE trains in a process of its own: refused here, first
        fn = prepared(fig_id)
        return refused() if fn is tiny_lm.prepare else fn

    def seed_heads(seed):  # a test that stands a stub in for the measuring reaches no model
        return refused() if tiny_lm._measured is measured else heads(seed)
    untouched, prepared, heads, measured = tiny_lm._trained, render._preparation, tiny_lm.seed_heads, tiny_lm._measured
    trained.cache_clear, seed_heads.cache_clear = untouched.cache_clear, heads.cache_clear
    patch.setattr(tiny_lm, "_trained", trained)
    patch.setattr(tiny_lm, "seed_heads", seed_heads)
    patch.setattr(render, "_preparation", preparation)


@pytest.fixture(scope="session")
def warm_cache(checked_frames):
    """The session's figure cache holding every frame: a build or `mkdocs serve` in a copy of the
    checkout (which inherits MHA_FIGURE_CACHE) then draws only the frames its edit changes."""
    return os.environ[ENV]


# A test is marked by the fixtures it uses, directly or through other fixtures (item.fixturenames
# holds them all): a fixture that builds the site or runs the server depends on one of these.
MARKED_BY = {"build": {"site_builds", "site", "served", "mkdocs_build", "site_command"}, "browser": {"chromium", "browser"},
             "serve": {"mkdocs_serve"}, "trained": {"trained_lm"}}
CHECK_FORMATS = pytest.StashKey[tuple]()  # what the session's frame checks draw; absent: no test reads them
CHECK_TRAINED = pytest.StashKey[bool]()  # whether the session reaches page 4's trained model (a test marked trained, a build)
CHECKING = pytest.StashKey[object]()  # the frame checks under way (frame_checks.Checking)
# whether the session's frame checks draw every frame, and the frames its tests name (frame_checks.Checking)
CHECK_FRAMES = pytest.StashKey[tuple]()
BUILDS_USED = pytest.StashKey[set]()  # the fixtures of site_builds.BUILDS that the session's tests use


def pytest_configure(config):
    # pytest-xdist's loadscope hands out the modules with the most tests first unless told not to:
    # this file's order (the modules that wait longest first, below) is then the one followed. Three
    # processes of the whole suite: 8:46 with it, 9:01 by number of tests, the same day on this machine
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, fixtures in MARKED_BY.items():
            if fixtures & set(item.fixturenames):
                item.add_marker(marker)
    yield  # pytest's own: -m and -k deselect, fixtures reorder
    # The tests that read every frame (checked_frames) run last: the frames are drawn in the
    # background from the session's start while the others run. A session that builds nothing
    # draws only what the pages show; one that builds the site also the downloads it needs.
    items.sort(key=lambda item: "checked_frames" in item.fixturenames)
    # (pytest-xdist hands the modules out in the order its processes collect them: each process sorts
    # them here; a process of the session is told no numprocesses, only its workerinput)
    if config.pluginmanager.hasplugin("xdist") and (config.getoption("numprocesses", None)
                                                    or hasattr(config, "workerinput")):
        # several processes, each given a module at a time: the modules that wait longest (a server's
        # rebuilds, the browser, the slow recounts) first, so that the rest fills the time around
        # them, not after them
        waits, ranks = {}, ("serve", "browser", "build", "trained", "slow")
        for item in items:
            module = item.nodeid.split("::")[0]
            waits[module] = min(waits.get(module, len(ranks)),
                                next((rank for rank, m in enumerate(ranks) if item.get_closest_marker(m)), len(ranks)))
        items.sort(key=lambda item: waits[item.nodeid.split("::")[0]])
    config.stash[BUILDS_USED] = {name for item in items for name in BUILDS if name in item.fixturenames}
    # a build draws and tables every figure, page 4's model's too: the session then trains it anyway
    config.stash[CHECK_TRAINED] = any(item.get_closest_marker(m) for item in items for m in ("trained", "build", "serve"))
    if any("checked_frames" in item.fixturenames for item in items):
        from frame_checks import page_formats
        builds = any(item.get_closest_marker(m) for item in items for m in ("build", "serve"))
        config.stash[CHECK_FORMATS] = bundles.site_formats() if builds else page_formats()
        # Every frame for a session that builds, serves, trains, runs the browser or a test set slow by
        # hand (the whole suite); otherwise (the fast loop) the frame each page opens on and the frames
        # the session's tests name: after an edit reaching every figure, one frame a figure and language
        # is drawn, not all of them
        named = frozenset(frame for frame in map(_frame_checked, items) if frame is not None)
        every = any(item.get_closest_marker(m) for item in items for m in ("build", "browser", "serve", "trained")) or \
            any(item.get_closest_marker("slow") and _frame_checked(item) is None for item in items)
        config.stash[CHECK_FRAMES] = (every, named)


def _frame_checked(item):
    """The frame a test of one frame checks (frame_checks.frame_params), or None."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("frame") if callspec is not None and "checked_frames" in item.fixturenames else None


@pytest.fixture(scope="session")
def mkdocs_build():
    """mkdocs_build(out, cwd=ROOT, **env): run `mkdocs build --strict -d out` in cwd, env added to
    this process's (its CompletedProcess, output captured). A test using it is marked `build`."""
    def run(out, cwd=ROOT, timeout=None, strict=True, **env):
        command = [sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else []), "-d", str(out)]
        return subprocess.run(command, cwd=cwd, env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **env),
                              capture_output=True, text=True, timeout=timeout)
    return run


@pytest.fixture(scope="session")
def site_command():
    """site_command(out, cwd=ROOT, **env): the build-only command (.github/CONTRIBUTING.md) (`python -m
    figures.site.build -d out`) started in a session of its own (its Popen, output in `out`.log beside
    out), env added to this process's; SIGINT stops it as Ctrl-C does. A test using it is marked `build`."""
    def start(out, cwd=ROOT, **env):
        with open(f"{out}.log", "ab") as log:  # two builds into one folder write one log
            return subprocess.Popen([sys.executable, "-m", "figures.site.build", "-d", str(out)], cwd=cwd,
                                    env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **env), stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_sigint_stops)
    return start


def _sigint_stops():
    """In the child before it runs: Ctrl-C (SIGINT) stops it, even when pytest runs as a background
    job, which ignores SIGINT and would pass that on (Python keeps an inherited SIG_IGN)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="session")
def mkdocs_serve():
    """mkdocs_serve(port, cwd=..., env=..., **popen): `mkdocs serve` on that local port, started
    (its Popen); SIGINT stops it as Ctrl-C stops a person's server. A test using it is marked `serve`."""
    def start(port, **popen):
        popen.setdefault("env", dict(os.environ, NO_MKDOCS_2_WARNING="1"))
        return subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                                preexec_fn=_sigint_stops, **popen)
    return start


@pytest.fixture(scope="session")
def site_builds(tmp_path_factory, checked_frames, request):
    """site_builds(name): the folder of the build of that name (site_builds.BUILDS), built once per
    session. Every frame being cached, the builds the session's tests use start side by side.
    Under pytest-xdist the session's processes share them: the first to need them builds them."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        yield from shared_builds(tmp_path_factory.getbasetemp().parent / "site-builds",
                                 sorted(request.config.stash.get(BUILDS_USED, ())))
        return
    started = {}

    def start(name):
        started[name] = Build(ROOT, tmp_path_factory.mktemp(name.replace("_", "-")) / "site", BUILDS[name],
                              ENGINES.get(name))

    for name in sorted(request.config.stash.get(BUILDS_USED, ())):
        start(name)

    def result(name):
        if name not in started:  # a fixture asked for by name only
            start(name)
        return started[name].result()
    yield result
    for build in started.values():
        build.stop()


@pytest.fixture(scope="session")
def site(site_builds):
    """The site as published, built by `mkdocs build --strict`."""
    return site_builds("site")


@pytest.fixture(scope="session")
def properdocs_site(site_builds):
    """The site as published, built by `properdocs build -f mkdocs.yml --strict` (tests/test_engine.py)."""
    return site_builds("properdocs_site")


@pytest.fixture(scope="session")
def offline_site(site_builds):
    """The build-only command (.github/CONTRIBUTING.md) with MHA_OFFLINE=1: the copy that works from disk."""
    return site_builds("offline_site")


@pytest.fixture(scope="session")
def sub_path_site(site_builds):
    """The site published under a sub-path (MHA_SITE_URL=SUB_PATH_URL), as GitHub Pages serves a project."""
    return site_builds("sub_path_site")


@pytest.fixture
def checkout(tmp_path):
    """A copy of this checkout (tracked and new files), so a test can edit it freely; removed after."""
    copy = copy_checkout(tmp_path / "checkout")
    yield copy
    shutil.rmtree(copy, ignore_errors=True)


@pytest.fixture(scope="module")
def served(site):
    """The built site over HTTP on a free local port, for the browser tests: its base URL."""
    with static_site(site) as url:
        yield url


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(what: str) -> None:
    """Skip a browser test for want of `what`, except under CI, where that fails."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {what}")
    pytest.skip(what)


@pytest.fixture(scope="session")
def chromium():
    """The path of Debian's chromium. Skipped without it, except under CI, where that fails."""
    if CHROMIUM is None:
        _missing("chromium is not installed")
    return CHROMIUM


@pytest.fixture(scope="session")
def launched_browser(chromium):
    """Debian's chromium driven by Playwright (no browser download), started once per process of the
    session: a start costs more than a second of a core, and some twenty modules use it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


class QuietBrowser:
    """A Playwright Browser whose new tabs and contexts run no service worker unless asked
    (service_workers="allow"). A page the site's worker holds (mha-offline.js) has it fetch every
    frame of the page in every look once the page is idle: about a third of a core-second a load,
    for tests that are not about reading offline (those, and the reader's error watch, allow it)."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        return self._browser.new_context(**{"service_workers": "block", **options})

    def new_page(self, **options):
        return self._browser.new_page(**{"service_workers": "block", **options})

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="module")
def browser(launched_browser):
    """The session's chromium (launched_browser), its service worker off unless a test asks for it
    (QuietBrowser); every tab a module leaves open is closed after it, so that no module sees
    another's. Skipped without chromium or Playwright, except under CI, where that fails."""
    yield QuietBrowser(launched_browser)
    for context in launched_browser.contexts:  # browser.new_page() opens each tab in a context of its own
        context.close()

