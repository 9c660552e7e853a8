"""The 404 page as a reader meets it: a host answers every missing address with the root 404.html,
at the site's path or, for a copy built for a sub-path and previewed, at the host's root. It must
be styled, lead somewhere and search, in the language of the address (en/... in English)."""

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlsplit, unquote

import pytest

from test_reader import _hits  # the search results for a query, typed until the index has loaded

from site_builds import SUB_PATH_URL

SUB_PATH = urlsplit(SUB_PATH_URL).path  # /some-repo/


class _Host(http.server.SimpleHTTPRequestHandler):
    """A static host with the site at `mount` ("/" or "/some-repo/") that answers every missing
    address with the site's 404.html and status 404, as GitHub Pages does."""

    def __init__(self, *args, site: Path, mount: str, **kw):
        self.site, self.mount = site, mount
        super().__init__(*args, directory=str(site), **kw)

    def translate_path(self, path):
        path = unquote(urlsplit(path).path)
        if not path.startswith(self.mount):
            return str(self.site / "no such file")
        return str(self.site / path[len(self.mount):])

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        body = (self.site / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002
        pass


@pytest.fixture(scope="module")
def host():
    """host(site, mount): the base URL of `site` served at `mount` by _Host, until the module ends."""
    servers = []

    def serve(site: Path, mount: str) -> str:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Host, site=site, mount=mount))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"
    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


CASES = [  # build, where the host mounts it, the missing address, the language the page must speak
    ("sub_path_site", SUB_PATH, SUB_PATH + "en/no/such/page/", "en"),
    ("sub_path_site", SUB_PATH, SUB_PATH + "no-such-page", "zh-Hans"),
    ("sub_path_site", "/", "/en/no-such-page/", "en"),  # the sub-path build previewed at a host's root
    ("site", "/", "/en/one-head-blend/", "en"),
]


@pytest.mark.parametrize("build, mount, missing, lang", CASES)
def test_the_404_page_is_styled_leads_home_and_searches_in_the_address_language(
        browser, request, host, build, mount, missing, lang):
    base = host(request.getfixturevalue(build), mount)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    troubles = []
    page.on("pageerror", lambda e: troubles.append(f"error: {e}"))
    # The static <base> is the site's path (the page without script): served elsewhere (a preview),
    # the browser's preload scanner fetches what it names there before the script moves the base.
    guessed = base + SUB_PATH if mount != SUB_PATH and build == "sub_path_site" else None
    page.on("response", lambda r: troubles.append(f"{r.status}: {r.url}")
            if r.status >= 400 and r.url != base + missing and not (guessed and r.url.startswith(guessed)) else None)
    page.goto(base + missing, wait_until="networkidle")
    assert page.evaluate("location.pathname") == missing  # the address the reader asked for stays
    assert page.evaluate("document.documentElement.lang") == lang
    first = page.inner_text(".md-content h1")
    assert first == ("Nothing lives at this address" if lang == "en" else "这里没有页面")
    logo = page.eval_on_selector(".md-header .md-logo > *", "e => Math.max(e.getBoundingClientRect().width, e.getBoundingClientRect().height)")
    assert 0 < logo <= 48, logo  # Material's stylesheet reached it: unstyled, the logo fills the page
    root = base + (mount if mount != "/" else "/")
    home = page.get_attribute(f'.md-content [lang="{lang}"] a', "href")
    page.click(f'.md-content [lang="{lang}"] a')
    page.wait_for_load_state("networkidle")
    assert page.url == root + ("en/" if lang == "en" else ""), home
    assert page.evaluate("document.documentElement.lang") == lang
    page.goto(base + missing, wait_until="networkidle")
    hits = _hits(page, "softmax")
    assert hits and all(h.startswith(root + "en/") == (lang == "en") and h.startswith(root) for h in hits), hits
    assert troubles == []
    page.close()
