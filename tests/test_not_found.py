"""The 404 page as a reader meets it: a host answers every missing address with the root 404.html,
at any depth. The page finds the site's root from the address alone (the build's address may be the
shipped placeholder, the site previewed elsewhere, or a release tree whose root 404 page serves every
release's folder), leads at most once, and speaks the address's language (en/... in English), every
link it holds answering."""

import functools
import http.server
import json
import threading
import urllib.error
import urllib.request
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


RELEASE = "0.1.0"


def release_tree(site: Path, tree: Path) -> Path:
    """A Pages branch as mike and figures/site/release.py leave it, made from a built site instead
    of a release build: the site in /0.1.0/ and /latest/ (mike's alias), its 404 pages saying they
    are release 0.1.0's (as a build with MIKE_DOCS_VERSION=0.1.0 writes them: the only difference
    their script sees), the release's 404.html at the branch's root, versions.json, and the root
    leading to latest/. The site's other files are linked, not copied."""
    def patched(page: Path) -> str:
        html = page.read_text(encoding="utf-8")
        assert html.count('"release": null') == 1
        return html.replace('"release": null', f'"release": "{RELEASE}"')

    own = tree / RELEASE
    (own / "en").mkdir(parents=True)
    for folder, into in ((site, own), (site / "en", own / "en")):
        for entry in folder.iterdir():
            if entry.name != "404.html" and not (into / entry.name).exists():
                (into / entry.name).symlink_to(entry)
        (into / "404.html").write_text(patched(folder / "404.html"), encoding="utf-8")
    (tree / "latest").symlink_to(own)
    (tree / "404.html").write_text(patched(site / "404.html"), encoding="utf-8")
    (tree / "versions.json").write_text(json.dumps([{"version": RELEASE, "title": RELEASE, "aliases": ["latest"]}]))
    (tree / "index.html").write_text('<!doctype html><meta http-equiv="refresh" content="0; url=latest/">')
    return tree


@pytest.fixture(scope="module")
def release(site, tmp_path_factory):
    return release_tree(site, tmp_path_factory.mktemp("pages-branch"))


NAMED_PATH = "/reference/"  # a host path that is also the name of one of the site's pages


@pytest.fixture(scope="module")
def named_path_site(sub_path_site, tmp_path_factory):
    """The site as built for NAMED_PATH: the sub-path build with its 404 pages written for that path
    instead of SUB_PATH (all a build there changes in them), its other files linked."""
    tree = tmp_path_factory.mktemp("named-path")
    (tree / "en").mkdir()
    for folder, into in ((sub_path_site, tree), (sub_path_site / "en", tree / "en")):
        for entry in folder.iterdir():
            if entry.name != "404.html" and not (into / entry.name).exists():
                (into / entry.name).symlink_to(entry)
        html = (folder / "404.html").read_text(encoding="utf-8")
        assert f'"site": "{SUB_PATH}"' in html
        (into / "404.html").write_text(html.replace(SUB_PATH, NAMED_PATH), encoding="utf-8")
    return tree


CASES = [  # the site (built), where the host mounts it, the missing address, its language, the site's root there
    ("site", "/", "/en/one-head-blend/", "en", "/"),
    ("site", SUB_PATH, SUB_PATH + "no-such-page", "zh-Hans", SUB_PATH),  # the placeholder address, under a sub-path
    ("site", SUB_PATH, SUB_PATH + "en/no/such/page/", "en", SUB_PATH),
    ("sub_path_site", SUB_PATH, SUB_PATH + "en/no/such/page/", "en", SUB_PATH),
    ("sub_path_site", "/", "/en/no-such-page/", "en", "/"),  # the sub-path build previewed at a host's root
    ("release", SUB_PATH, SUB_PATH + RELEASE + "/en/no-such-page", "en", SUB_PATH + RELEASE + "/"),
    ("release", SUB_PATH, SUB_PATH + "latest/no/such/page/", "zh-Hans", SUB_PATH + RELEASE + "/"),
    ("release", SUB_PATH, SUB_PATH + "no-such-page", "zh-Hans", SUB_PATH + RELEASE + "/"),
    # the site's path is also a page's name: its root is that path, not the host's
    ("named_path_site", NAMED_PATH, NAMED_PATH + "no-such-page", "zh-Hans", NAMED_PATH),
    ("named_path_site", NAMED_PATH, NAMED_PATH + "en/no/such/page/", "en", NAMED_PATH),
]

# Every address the page names: links, styles, scripts, images, as the browser resolves them
NAMED = """() => [...document.querySelectorAll('a[href], link[href], script[src], img[src]')]
    .map(e => e.href || e.src).filter(u => u.startsWith(location.origin)).map(u => u.split('#')[0])"""


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.parametrize("build, mount, missing, lang, root", CASES)
def test_the_404_page_finds_the_sites_root_leads_once_and_every_link_answers(
        browser, request, host, build, mount, missing, lang, root):
    base = host(request.getfixturevalue(build), mount)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    troubles, navigations = [], []
    page.on("pageerror", lambda e: troubles.append(f"error: {e}"))
    page.on("request", lambda r: navigations.append(r.url) if r.is_navigation_request() and r.frame == page.main_frame else None)
    # the address itself answers 404; so may the root's probes (HEAD) when the address names no
    # folder of the site
    page.on("response", lambda r: troubles.append(f"{r.status}: {r.url}")
            if r.status >= 400 and r.url != base + missing and r.request.method != "HEAD" else None)
    page.goto(base + missing, wait_until="networkidle")
    assert len(navigations) <= 2, navigations  # the address, and at most one lead to the right page
    assert page.evaluate("location.pathname") == missing  # the address the reader asked for stays
    assert page.evaluate("document.documentElement.lang") == lang
    first = page.inner_text(".md-content h1")
    assert first == ("Nothing lives at this address" if lang == "en" else "这里没有页面")
    logo = page.eval_on_selector(".md-header .md-logo > *", "e => Math.max(e.getBoundingClientRect().width, e.getBoundingClientRect().height)")
    assert 0 < logo <= 48, logo  # Material's stylesheet reached it: unstyled, the logo fills the page
    assert page.evaluate("__md_scope.href") == base + root  # Material's settings, a release's versions.json
    home = page.eval_on_selector(f'.md-content [lang="{lang}"] a', "a => a.href")
    assert home == base + root + ("en/" if lang == "en" else "")
    named = sorted(set(page.evaluate(NAMED)))
    assert len(named) > 20 and all(u.startswith(base + root) for u in named), named
    assert [(u, s) for u in named if (s := _status(u)) != 200] == []
    hits = _hits(page, "softmax")
    assert hits and all(h.startswith(base + root + "en/") == (lang == "en") and h.startswith(base + root) for h in hits), hits
    assert troubles == []
    page.close()
