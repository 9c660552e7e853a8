"""`mkdocs serve` picks up an edit to mha_ref/ or figures/: modules reloaded, figures redrawn.

The server builds the Chinese pages alone (MHA_BUILD_EN=false, as a writer of one language may serve)
and no downloads (MHA_DOWNLOADS=0: no PDF drawn again after an edit, no zip nor deck made again):
what is reloaded and redrawn does not depend on either, and each rebuild then takes half as long or
less. The session's builds check both languages and the downloads; test_serve_errors' broken figure
serves both with its downloads."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from figures.site import later
from serving import free_port as _free_port, get as _get

ROOT = Path(__file__).resolve().parents[1]


def _wait_for(url: str, needle: str, seconds: float = 300) -> str:  # a rebuild redraws every figure
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = _get(url)
        if needle in body:
            return body
        time.sleep(0.5)
    raise AssertionError(f"{url} never contained {needle!r}")


def _drawn(svg: str) -> str:
    """The frame as served, or "" while it is the card saying it is being drawn (later.py)."""
    return "" if later.PENDING_CLASS in svg else svg


def _stop(server: subprocess.Popen) -> bool:
    """Ctrl-C, as a person stops the server (mkdocs then removes its temporary site); kill only if
    it does not exit in time. True if it exited by itself."""
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=120)  # Ctrl-C interrupts a rebuild still under way
        return True
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return False


def test_serve_reloads_edited_modules(checkout, warm_cache, mkdocs_serve):
    port = _free_port()
    temp = checkout / "temp"  # the server's temporary files, to check that it removes them
    temp.mkdir()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", TMPDIR=str(temp), MHA_BUILD_EN="false", MHA_DOWNLOADS="0")
    log = (checkout.parent / "serve.log").open("w")  # a pipe nobody reads could fill and stall the server
    # Ctrl-C must reach it even when pytest runs as a background job (conftest's mkdocs_serve sees to it)
    server = mkdocs_serve(port, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=log)
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(base, "2,362,368", seconds=300)  # the first build draws every figure
        assert _get(base + "en/") == ""  # the English pages are not built
        before_svg = _wait_for(base + "figures/peak-dip.svg", "<svg")
        # an edit to mha_ref: one more parameter per block shows up on the page
        costs = checkout / "mha_ref/costs.py"
        costs.write_text(costs.read_text() + (
            "\n_exact = param_count\n"
            "def param_count(d_model, h, **options):\n"  # bias=, kv_heads=: whatever the callers pass
            "    return _exact(d_model, h, **options) + 1\n"))
        _wait_for(base, "2,362,369", seconds=300)  # a full rebuild, the figures that reach param_count redrawn
        # an edit to a figure module: the served figure is redrawn
        fig = checkout / "figures/gallery/peak_dip.py"
        edited = fig.read_text().replace('"混合比例"', '"混合比例（改）"')
        assert "（改）" in edited
        fig.write_text(edited)
        deadline = time.monotonic() + 300
        while _drawn(_get(base + "figures/peak-dip.svg")) in ("", before_svg) and time.monotonic() < deadline:
            time.sleep(0.5)  # (the card saying it is being drawn, meanwhile: figures/site/later.py)
        assert _drawn(_get(base + "figures/peak-dip.svg")) not in ("", before_svg)
    finally:
        exited = _stop(server)
        log.close()
    assert exited, "mkdocs serve did not stop on Ctrl-C after rebuilds that drew frames in the process pool"
    # jieba (the Chinese search index) keeps a word cache there on purpose; it goes with the copy
    left = [p.name for p in temp.iterdir() if p.name != "jieba.cache"]
    assert left == [], f"mkdocs serve left temporary files behind: {left}"


def test_serve_shows_the_page_at_once_and_a_slow_figure_when_it_is_drawn(checkout, warm_cache, mkdocs_serve):
    """A figure whose frames the cache lacks (here: edited to draw only once the test lets it) does not
    hold the pages back: the page is served with a card saying it is being drawn, the terminal says
    how far the drawing has come, an edit meanwhile is served without waiting for that drawing, and
    the page shows the figure once it is drawn (figures/site/later.py)."""
    fig, let_go = checkout / "figures/gallery/peak_dip.py", checkout / "draw-peak-dip"
    fig.write_text(fig.read_text() + "\n_draw = draw\n\n\ndef draw(lang, value=None):\n    import pathlib, time\n"
                   f"    while not pathlib.Path({str(let_go)!r}).exists():\n        time.sleep(0.2)\n"
                   "    return _draw(lang, value)\n")
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MHA_BUILD_EN="false", MHA_DOWNLOADS="0")
    log_path = checkout.parent / "serve.log"
    with log_path.open("w") as log:
        server = mkdocs_serve(port, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=log)
        page = f"http://127.0.0.1:{port}/one-head-blends/"
        try:
            first = _wait_for(page, 'id="fig-', seconds=300)
            assert f'class="{later.PENDING_CLASS} admonition info" id="fig-peak-dip"' in first
            assert later.WORDS["zh"] in first and 'id="fig-blend-rows"' in first  # the others drawn as before
            # an edit while the figure is being drawn: its rebuild does not wait for that drawing
            text = checkout / "docs/one-head-blends.zh.md"
            text.write_text(text.read_text().replace("## 输出只是一份混合", "## 输出只是一份混合（改）", 1))
            edited = _wait_for(page, "输出只是一份混合（改）", seconds=120)
            assert f'id="fig-peak-dip"' in edited and later.PENDING_CLASS in edited  # still being drawn
            let_go.touch()
            drawn = _wait_for(page, '<figure class="mha-figure" data-figure="peak-dip"', seconds=120)
            assert later.PENDING_CLASS not in drawn and "输出只是一份混合（改）" in drawn
        finally:
            let_go.touch()
            exited = _stop(server)
    said = log_path.read_text(encoding="utf-8")
    assert "figures: 0 of 1 frames drawn, time left not yet known" in said and "figures: 1 of 1 frames drawn in " in said
    assert exited


def test_the_pool_does_not_fork_a_process_running_other_threads(tmp_path):
    """mkdocs serve builds while its server and file watchers run: a forked worker could inherit a
    lock one of them holds. Alone, the process forks (the workers start with everything imported).
    Checked in a fresh process: this one may run other tests' server threads."""
    script = """if True:
        import threading
        from figures.engine.render import PRELOAD, _start_method
        alone = _start_method().get_start_method()
        stop = threading.Event()
        watcher = threading.Thread(target=stop.wait)
        watcher.start()
        try:
            busy = _start_method().get_start_method()
        finally:
            stop.set()
            watcher.join()
        print(alone, busy, *PRELOAD)
    """
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    alone, busy, *preload = run.stdout.split()
    assert (alone, busy) == ("fork", "forkserver")
    assert preload and not [m for m in preload if m.split(".")[0] in ("figures", "mha_ref")]  # serve re-imports those
    # under a temporary folder too long for the fork server's socket (as in test_serve_reloads...), spawn
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=dict(os.environ, TMPDIR=str(deep)))
    assert run.stdout.split()[:2] == ["fork", "spawn"]
