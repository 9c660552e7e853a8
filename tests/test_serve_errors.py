"""A broken edit never hangs `mkdocs serve`, and `mkdocs build --strict` names what broke first.

Each test edits a copy of the checkout, never this one; servers are stopped with SIGINT (as
Ctrl-C does) and their copy is removed.
"""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from serving import free_port as _free_port, get as _get

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict:
    """The environment for mkdocs, read when it starts: it then holds the session's figure cache,
    which conftest sets after this module is imported."""
    return dict(os.environ, NO_MKDOCS_2_WARNING="1")


# width-slices' frame h4 fails to draw in English only; its other frames and languages still draw
DRAW = "def draw(lang: str, h: int):\n"
BROKEN_DRAW = DRAW + '    if lang == "en" and h == 4:\n        raise ZeroDivisionError("broken on purpose")\n'
# frame h4 loops for ever in Chinese (the limit stops it, MHA_FIGURE_TIMEOUT=LIMIT), served alone (zh_only)
HANGING_DRAW = DRAW + '    while lang == "zh" and h == 4:\n        __import__("time").sleep(1)\n'  # waits: costs no core
LIMIT = 12  # seconds: far more than a frame takes on a busy machine, little enough for a test
CONTROL = "CONTROL = heads_control("
BROKEN_CONTROL = "CONTROL = 1 / 0 or heads_control("


def _wait_until(check, what: str, seconds: float = 240):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"never happened within {seconds} s: {what}")


def _wait_for(url: str, needle: str, seconds: float = 240) -> str:
    return _wait_until(lambda: (lambda body: body if needle in body else "")(_get(url)), f"{url} contains {needle!r}",
                       seconds)


def _page(body: str) -> str:
    """A served page without the live-reload script's build stamps."""
    return re.sub(r"livereload\(\d+, \d+\)", "livereload()", body)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path.name} no longer contains {old!r}"
    path.write_text(text.replace(old, new))


@pytest.fixture
def copy(checkout, warm_cache):
    """A copy of this checkout (conftest), whose builds start from the session's warm figure cache."""
    return checkout


@pytest.fixture
def serve(copy, mkdocs_serve):
    """`mkdocs serve` in the copy, after its first build: (base url, a function giving its log so far)."""
    port, log = _free_port(), copy / "serve.log"
    with open(log, "wb") as out:
        server = mkdocs_serve(port, cwd=copy, env=_env(), stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(base, "the cat ate and it ran", seconds=400)
        # the first build finds every frame in the session's cache (a cold serve here took a minute)
        langs = 1 if os.environ.get("MHA_BUILD_EN") == "false" else 2
        assert log.read_text(errors="replace").count("; 0 frames drawn") == langs, log.read_text(errors="replace")[-3000:]
        yield base, lambda: log.read_text(errors="replace")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class TestABrokenFigure:
    """A class of its own, as the hang below: several test processes (pytest-xdist, --dist loadscope)
    run a module's functions in one and each class in one, so the two longest servers run side by side."""

    def test_a_broken_figure_is_a_card_in_place_and_the_site_keeps_serving(self, copy, serve):
        base, log = serve
        figure = copy / "figures/gallery/width_slices.py"
        good_h4 = _wait_for(base + "en/figures/width-slices/h4.svg", "<svg")
        # a frame that fails to draw: its image is the card, naming figure, language and frame
        _edit(figure, DRAW, BROKEN_DRAW)
        card = _wait_for(base + "en/figures/width-slices/h4.svg", "failed to draw")
        assert "figure &#x27;width-slices&#x27; (en, frame h4) failed to draw: ZeroDivisionError: broken on purpose" in card
        assert "figures/gallery/width_slices.py, line" in card and 'raise ZeroDivisionError(&quot;broken on purpose&quot;)' in card
        page = _get(base + "en/slicing-the-width/")
        assert 'src="../figures/width-slices/h4.svg"' in page  # the card sits where the frame goes
        # the rest keeps serving: the other frames, the other language, the other pages
        assert "failed" not in _get(base + "en/figures/width-slices/h2.svg")
        assert _get(base + "figures/width-slices/h4.svg") not in ("", card)
        assert "the cat ate and it ran" in _get(base + "en/")
        # a figure that fails to import (its CONTROL): an HTML card where the figure goes, on every page
        _edit(figure, CONTROL, BROKEN_CONTROL)
        page = _wait_for(base + "en/slicing-the-width/", "failed to import")
        assert "figure &#x27;width-slices&#x27; (en, every frame) failed to import: ZeroDivisionError" in page
        assert 'id="fig-width-slices"' in page and "figures/gallery/width_slices.py, line" in page
        assert "(zh, every frame) failed to import" in _get(base + "slicing-the-width/")
        assert "fig-peak-dip" in _get(base + "en/one-head-blends/")
        # the fix reloads: the frame is drawn again
        _edit(figure, BROKEN_CONTROL, CONTROL)
        _edit(figure, BROKEN_DRAW, DRAW)
        _wait_until(lambda: _get(base + "en/figures/width-slices/h4.svg") == good_h4, "the fixed frame is served")
        assert "failed to" not in _get(base + "en/slicing-the-width/")
        assert "shown as an error card: figure 'width-slices' (en, frame h4)" in log()


@pytest.fixture
def zh_only(monkeypatch):
    """A server started after this (list it before `serve`) builds the Chinese pages alone and no
    downloads, as a writer of one language may serve (MHA_BUILD_EN=false, MHA_DOWNLOADS=0): each
    rebuild takes half the time or less. The broken figure above keeps both languages, to show that
    one language's failure leaves the other's frames, and the downloads (a page whose figure fails
    gets no deck)."""
    monkeypatch.setenv("MHA_BUILD_EN", "false")
    monkeypatch.setenv("MHA_DOWNLOADS", "0")


@pytest.fixture
def short_limit(monkeypatch):
    """Frames drawn by a server started after this (list it before `serve`) stop after LIMIT s."""
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", str(LIMIT))


class TestAFigureThatHangs:
    """In a class of its own (see TestABrokenFigure)."""

    def test_a_figure_that_hangs_is_stopped_and_a_card_while_every_request_is_answered(self, copy, short_limit, zh_only,
                                                                                          serve):
        base, log = serve
        figure = copy / "figures/gallery/width_slices.py"
        h4 = "figures/width-slices/h4.svg"
        urls = (h4, "", "slicing-the-width/", "assets/mha-figures.css", "search/search_index.json")
        good_h4 = _get(base + h4)
        assert "<svg" in good_h4
        seen = len(log())
        _edit(figure, DRAW, HANGING_DRAW)
        _wait_until(lambda: "Building documentation" in log()[seen:], "the rebuild starts")
        started, slowest, answered = time.monotonic(), 0.0, 0
        while "failed to draw" not in _get(base + h4):  # the rebuild runs: h4 loops until the limit stops it
            for url in urls:
                asked = time.monotonic()
                assert _get(base + url), url  # answered, from the last good site
                slowest, answered = max(slowest, time.monotonic() - asked), answered + 1
            assert time.monotonic() - started < LIMIT + 400, "the rebuild never finished"
            time.sleep(0.5)
        assert time.monotonic() - started >= LIMIT and answered >= LIMIT
        assert slowest < 5, f"a request waited {slowest:.1f} s for the rebuild"
        card = _get(base + h4)
        assert (f"figure &#x27;width-slices&#x27; (zh, frame h4) failed to draw: still drawing after {LIMIT} s (the limit, "
                "MHA_FIGURE_TIMEOUT), so its process was stopped (figures/gallery/width_slices.py, line") in card
        assert "failed" not in _get(base + "figures/width-slices/h2.svg")  # the figure's other frames draw
        # the fix: the next rebuild draws the frame again, no restart
        _edit(figure, HANGING_DRAW, DRAW)
        _wait_until(lambda: _get(base + h4) == good_h4, "the fixed frame is served")


def test_a_syntax_error_in_mha_ref_keeps_the_last_good_site_served(copy, zh_only, serve):
    base, log = serve
    good = _page(_get(base))
    toy = copy / "mha_ref/example/toy.py"
    source = toy.read_text()
    toy.write_text(source + "\ndef broken(:\n    pass\n")
    line = source.count("\n") + 2
    _wait_until(lambda: "The rebuild failed" in log(), "the server logs the failed rebuild")
    assert f"The rebuild failed (mha_ref/example/toy.py, line {line}): SyntaxError" in log()
    assert "Still serving the last good site." in log()
    # every request is answered at once, with the last good site
    for url in (base, base + "slicing-the-width/", base + "figures/peak-dip.svg", base + "search/search_index.json"):
        started = time.monotonic()
        assert _get(url), url
        assert time.monotonic() - started < 5, url
    assert _page(_get(base)) == good
    # and the fix rebuilds
    seen = len(log())
    toy.write_text(source)
    _wait_until(lambda: "Reloading browsers" in log()[seen:] and "The rebuild failed" not in log()[seen:],
                "the fixed rebuild finishes")
    assert _page(_get(base)) == good


@pytest.mark.parametrize("old, new, first_line", [
    (DRAW, BROKEN_DRAW, "figure 'width-slices' (en, frame h4) failed to draw: ZeroDivisionError: broken on purpose"),
    (CONTROL, BROKEN_CONTROL, "figure 'width-slices' (every language, every frame) failed to import: ZeroDivisionError"),
])
def test_a_strict_build_stops_on_a_broken_figure_naming_it_first(copy, old, new, first_line, mkdocs_build):
    _edit(copy / "figures/gallery/width_slices.py", old, new)
    run = mkdocs_build(copy / "site", cwd=copy, timeout=600)
    assert run.returncode != 0
    # the first error line (a copy's build also warns, before it, that its address is a placeholder)
    errors = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    assert errors[0].startswith("ERROR") and first_line in errors[0], run.stderr[-3000:]
    assert "figures/gallery/width_slices.py, line" in errors[0]
    assert "Traceback (most recent call last)" in run.stderr  # after the line, not before it


@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_syntax_error_in_mha_ref_before_any_good_build_is_one_line_with_file_and_line(copy, command, mkdocs_build,
                                                                                        mkdocs_serve):
    """`mkdocs build`, and serve's first build (mkdocs runs it before its serve loop and stops when it
    fails), name the file and line on their first error line, the traceback after it."""
    toy = copy / "mha_ref/example/toy.py"
    source = toy.read_text()
    toy.write_text(source + "\ndef broken(:\n    pass\n")
    if command == "build":
        run = mkdocs_build(copy / "site", cwd=copy, timeout=300, strict=False)
    else:
        server = mkdocs_serve(_free_port(), cwd=copy, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        try:
            stdout, stderr = server.communicate(timeout=300)
        finally:
            server.kill()  # it stops by itself on the failed build; this only ends one that hangs
            server.wait()
        run = subprocess.CompletedProcess(server.args, server.returncode, stdout, stderr)
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if line.startswith(("ERROR", "Traceback"))]
    line = source.count("\n") + 2
    assert errors[0].startswith(f"ERROR   -  The build failed (mha_ref/example/toy.py, line {line}): SyntaxError"), run.stderr[-3000:]
    assert ("needs one good build to start" in errors[0]) == (command == "serve")
