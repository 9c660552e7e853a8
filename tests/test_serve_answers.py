"""mkdocs serve answers every request at once while it rebuilds (figures/site/serving.py): mkdocs'
own LiveReloadServer, its rebuild wrapped as hooks.on_serve wraps it, with a stand-in for the
build, so no site is built here."""

import logging
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from mkdocs.livereload import LiveReloadServer, _timestamp
from mkdocs.utils import CountHandler

from figures.site import serving

ROOT = Path(__file__).resolve().parents[1]


def _get(url: str) -> tuple[str, float]:
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode(), time.monotonic() - started


@pytest.fixture
def server(tmp_path):
    """mkdocs' server on a free port, serving a site whose page says "old", as after serve's first
    build; its rebuild wrapped by serving.keep_answering. Yields (server, base url, site folder, build):
    build["now"] is what mkdocs' own builder does on the next rebuild."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body>old</body></html>")
    (site / "style.css").write_text("old {}")
    (site / "404.html").write_text("<html><body>not found, old</body></html>")
    build = {"now": lambda: None}
    server = LiveReloadServer(builder=lambda: build["now"](), host="127.0.0.1", port=0, root=str(site))
    server.watch(str(tmp_path / "site"))  # as serve does: pages then carry the live-reload script
    served = serving.keep_answering(server, site)
    server.server_bind()
    server.server_activate()
    server.serve_thread.start()  # what server.serve() starts before its build loop, which the tests play
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/", site, build
    finally:
        server.shutdown()
        server.serve_thread.join()
        served.remove()


def _rebuild(server) -> threading.Thread:
    """What mkdocs' serve loop does on a change: want a new site, then call the server's builder
    (serving.py's wrapper), here in a thread of its own."""
    server._wanted_epoch = _timestamp()
    thread = threading.Thread(target=server.builder)
    thread.start()
    return thread


def test_every_request_is_answered_from_the_last_good_site_while_a_rebuild_runs(server):
    server, base, site, builds = server
    building, finish = threading.Event(), threading.Event()

    warnings = CountHandler(level=logging.WARNING)

    def build():  # mkdocs' build: empties the site folder, writes for a while, then the new site
        assert list(site.iterdir()) == []  # emptied before the build: the copy served shares its files
        (site / "index.html").write_text("<html><body>half</body></html>")
        logging.getLogger("mkdocs").addHandler(warnings)  # what a strict build fails on, as mkdocs counts it
        building.set()
        assert finish.wait(60)
        logging.getLogger("mkdocs").removeHandler(warnings)
        (site / "index.html").write_text("<html><body>new</body></html>")
        (site / "style.css").write_text("new {}")
        (site / "404.html").write_text("<html><body>not found, new</body></html>")

    builds["now"] = build
    epoch = server._visible_epoch
    thread = _rebuild(server)
    try:
        assert building.wait(30)
        for _ in range(3):  # mkdocs 1.6 alone makes each of these wait for the rebuild to end
            for path, old in (("", "old"), ("style.css", "old {}"), ("nowhere", "not found, old")):
                try:
                    body, seconds = _get(base + path)
                except urllib.error.HTTPError as e:
                    body, seconds = e.read().decode(), 0
                assert old in body and "half" not in body, path
                assert seconds < 5, path
    finally:
        finish.set()
        thread.join(30)
    assert "new" in _get(base)[0] and _get(base + "style.css")[0] == "new {}"
    assert server._visible_epoch == server._wanted_epoch > epoch  # the browsers are told to reload
    assert warnings.get_counts() == []  # the 404 answered during the build would fail a strict one


def test_a_failed_rebuild_keeps_the_last_good_site_served_and_the_next_one_recovers(server, caplog):
    server, base, site, builds = server

    def broken():
        (site / "index.html").write_text("<html><body>half</body></html>")
        raise SyntaxError("invalid syntax", (str(ROOT / "mha_ref/example/toy.py"), 3, 1, "def broken(:"))

    builds["now"] = broken
    epoch = server._visible_epoch
    with caplog.at_level(logging.ERROR, logger="mkdocs.plugins.figures"):
        _rebuild(server).join(30)
    assert "The rebuild failed (mha_ref/example/toy.py, line 3): SyntaxError" in caplog.text
    assert "Still serving the last good site." in caplog.text
    body, seconds = _get(base)
    assert "old" in body and seconds < 5
    assert server._visible_epoch == server._wanted_epoch == epoch  # nothing new to reload to

    def fixed():
        (site / "index.html").write_text("<html><body>new</body></html>")

    builds["now"] = fixed
    _rebuild(server).join(30)
    assert "new" in _get(base)[0]
    assert server._visible_epoch > epoch


def test_serving_uses_only_what_mkdocs_livereload_server_has(tmp_path):
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    serving.check(server)  # the pinned mkdocs has every part serving.py relies on
    del server._epoch_cond
    with pytest.raises(serving.ServerChanged, match="LiveReloadServer has no _epoch_cond: figures/site/serving.py"):
        serving.check(server)
