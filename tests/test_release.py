"""Two releases made for real (figures/site/release.py, .github/CONTRIBUTING.md, "Releases"): a copy of this checkout
becomes a git repository, its version 1.0.0 is tagged and released into a local bare repository
(the Pages branch), then 1.1.0 with one page edited and one number changed (a constant in mha_ref
that a page prints, which its what-changed page must list); the branch is served over HTTP at the
address the builds were told (MHA_SITE_URL), and read as a reader and a citation manager read it.

Both builds are whole builds of the pages (every page, every figure on them, both languages) but
without the PDF, PNG and zip downloads (MHA_DOWNLOADS=0), which nothing here reads: each takes
about a minute with the session's figures cached."""

import json
import os
import re
import subprocess
import sys
import io
import tarfile
import urllib.parse
import urllib.request

import pytest
from bs4 import BeautifulSoup

from checkout_copy import copy_checkout
from release_steps import GIT, commit_and_tag, set_release
from serving import static_site
from figures.publish.identity import LATEST
from figures.site.changes import WORDS

OLD, NEW = "1.0.0", "1.1.0"
PAGE = "one-head-blends/"
EDIT = {"zh": "\n\n本段只在 {v} 版里。\n", "en": "\n\nThis paragraph is only in version {v}.\n"}
# a number changed in 1.1.0: (the file, the text, what 1.1.0 has) and the quantity, old and new, the page printing it.
# One that no figure draws from (figures/numbers/quantities.py): a change to mha_ref/models.py had the second
# release draw nine figures' frames again, minutes of the whole suite
NUMBER = ("figures/numbers/quantities.py", '"ex.causal.entries": lambda: toy.N ** 2,', '"ex.causal.entries": lambda: toy.N ** 2 + 1,')
CHANGED = ("ex.causal.entries", "36", "37", "the-code/")
# and a number in a table (the reference page's costs), from code no figure reaches either
TABLE_NUMBER = ("figures/site/cheatsheet.py", "r\"$h\\,n^2$\", costs.attention_weights(n, h)),",
                "r\"$h\\,n^2$\", costs.attention_weights(n, h) + 1),")
DAY = {OLD: "2026-01-10", NEW: "2026-02-20"}  # each release's commit day, its release_date (the guide's steps)
# a page left untracked beside the second release's tag: a release is built from the tag's files only
UNTRACKED = "not-committed"


def _run(*command, cwd, **env):
    run = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                         env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **GIT, **env))
    assert run.returncode == 0, f"{command}: {run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run.stdout


def _tree(pages, ref):
    """The Pages branch's files at `ref` (symlinks kept, as a host keeps them): {path: bytes}."""
    data = subprocess.run(["git", "--git-dir", str(pages), "archive", ref], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: (tar.extractfile(m).read() if m.isfile() else ("->", m.linkname)) for m in tar.getmembers()
                if not m.isdir()}


# The address the releases are told is in every page and every frame's stamp: the same port from
# session to session, so that a later session on this machine takes the stamped frames from the
# machine's cache instead of stamping them all again (the releases took 29 s, then 15 s, alone)
PORT = 47913


@pytest.fixture(scope="module")
def releases(tmp_path_factory, warm_cache, mkdocs_build):
    """(the served Pages branch's URL, the branch's files after the first release, after the second,
    the bare repository). mkdocs_build marks the module `build`: mike runs `mkdocs build`."""
    tmp = tmp_path_factory.mktemp("release")
    repo, pages, served = copy_checkout(tmp / "checkout"), tmp / "pages.git", tmp / "served"
    with static_site(served, port=PORT) as url:  # the folder is made once the releases are
        env = {"MHA_SITE_URL": url, "MHA_DOWNLOADS": "0"}
        _run("git", "init", "-q", "--bare", str(pages), cwd=tmp)
        _run("git", "init", "-q", "-b", "main", cwd=repo)
        _run("git", "remote", "add", "origin", str(pages), cwd=repo)
        trees = []
        for version in (OLD, NEW):
            set_release(repo, version, DAY[version])
            if version == NEW:
                for lang, words in EDIT.items():
                    page = repo / "docs" / f"{PAGE.rstrip('/')}.{lang}.md"
                    page.write_text(page.read_text(encoding="utf-8") + words.format(v=version), encoding="utf-8")
                for path, before, after in (NUMBER, TABLE_NUMBER):
                    text = (repo / path).read_text(encoding="utf-8")
                    assert text.count(before) == 1
                    (repo / path).write_text(text.replace(before, after), encoding="utf-8")
            commit_and_tag(repo, version, DAY[version])
            if version == NEW:
                for lang in EDIT:
                    (repo / "docs" / f"{UNTRACKED}.{lang}.md").write_text(f"# Not committed {{#{UNTRACKED}}}\n",
                                                                          encoding="utf-8")
            _run(sys.executable, "-m", "figures.site.release", "--push", cwd=repo, **env)
            trees.append(_tree(pages, "gh-pages"))
        _run("git", "clone", "-q", "--branch", "gh-pages", str(pages), str(served), cwd=tmp)
        yield url, trees[0], trees[1], pages, repo


def _get(url) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def test_the_first_release_is_left_byte_for_byte_as_it_was(releases):
    url, first, second, _, _ = releases
    old = {p: b for p, b in first.items() if p.startswith(f"{OLD}/")}
    assert f"{OLD}/{PAGE}index.html" in old and f"{OLD}/en/{PAGE}index.html" in old
    figures = [p for p in old if p.startswith(f"{OLD}/figures/") and p.endswith(".svg")]
    assert figures, "the first release has figures"
    assert {p: b for p, b in second.items() if p.startswith(f"{OLD}/")} == old
    # and as a reader gets them over HTTP
    for path in (f"{OLD}/{PAGE}index.html", f"{OLD}/en/{PAGE}index.html", figures[0]):
        assert _get(url + path) == old[path], path


def test_the_second_release_is_the_newest_and_the_root_goes_there(releases):
    url, _, second, _, _ = releases
    assert not [p for p in second if UNTRACKED in p]  # the page beside the tag, never committed
    versions = json.loads(_get(url + "versions.json"))
    assert [(v["version"], v["aliases"]) for v in versions] == [(NEW, [LATEST]), (OLD, [])]
    assert second[LATEST] == ("->", NEW)  # mike's alias: a link to the folder
    assert re.search(rf'<meta http-equiv="refresh" content="\d+; url={LATEST}/"', _get(url).decode())
    assert EDIT["en"].format(v=NEW).strip() in _get(f"{url}{LATEST}/en/{PAGE}").decode()
    assert EDIT["en"].format(v=NEW).strip() not in _get(f"{url}{OLD}/en/{PAGE}").decode()
    assert _get(url + "404.html") == second[f"{NEW}/404.html"]  # the host's 404 page: the newest's


@pytest.mark.parametrize("version", [OLD, NEW])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_release_cites_its_own_frozen_address_and_the_living_one_beside_it(releases, version, lang):
    url, _, _, _, _ = releases
    path = ("" if lang == "zh" else "en/") + PAGE
    html = _get(f"{url}{version}/{path}").decode()
    frozen, living = f"{url}{version}/{path}", f"{url}{LATEST}/{path}"
    assert f'<meta name="citation_public_url" content="{frozen}">' in html
    assert f'<link rel="latest-version" href="{living}">' in html
    assert f'<link rel="canonical" href="{frozen}">' in html
    section = BeautifulSoup(html, "html.parser").select_one("article h2#cite")
    where, *blocks = [el.get_text() for el in section.find_next_siblings() if el.name in ("p", "div")
                      and ("mha-cite-where" in el.get("class", []) or "highlight" in el.get("class", []))]
    assert where.index(frozen) < where.index(living)  # this version's, then the newest's beside it
    gbt, apa, bib = (b.strip() for b in blocks)
    assert gbt.endswith(f" {frozen}.") and apa.endswith(f"from {frozen}") and f'= "{frozen}"' in bib
    other = NEW if version == OLD else OLD
    assert f"{url}{other}/" not in html


def test_an_earlier_release_lists_both_and_its_banner_leads_to_the_same_place_in_the_newest(releases, browser):
    url = releases[0]
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for lang in ("en", "zh"):
            path = ("" if lang == "zh" else "en/") + PAGE
            page.goto(f"{url}{OLD}/{path}#cite")
            page.wait_for_selector(".md-version__list .md-version__link", state="attached")
            listed = page.eval_on_selector_all(".md-version__link", "links => links.map(a => [a.textContent, a.href])")
            assert [(text.removesuffix(LATEST), href) for text, href in listed] == [
                (NEW, f"{url}{NEW}/"), (OLD, f"{url}{OLD}/")], listed  # each release's root, from any language
            page.wait_for_function("() => document.querySelector('a.mha-newest').dataset.mhaNewest")
            assert page.locator("[data-md-component=outdated]").is_visible()
            assert page.locator("a.mha-newest").get_attribute("href") == f"{url}{LATEST}/{path}#cite"
            page.goto(f"{url}{LATEST}/{path}")  # the newest release: the selector, no banner
            page.wait_for_selector(".md-version__list .md-version__link", state="attached")
            assert not page.locator("[data-md-component=outdated]").is_visible()
        assert errors == []  # Material's own banner script threw on a relative base (overrides/partials)
    finally:
        page.close()


def test_each_release_keeps_its_own_offline_cache(releases, browser):
    """Each release's service worker has the release's folder as its scope: reading the newest
    release offline-ready leaves the earlier one's cache in place (offline-worker.js)."""
    url = releases[0]
    context = browser.new_context(service_workers="allow")
    try:
        page = context.new_page()
        for version in (OLD, LATEST):
            page.goto(f"{url}{version}/en/{PAGE}")
            page.wait_for_function("document.documentElement.dataset.mhaOffline", timeout=60000)
            assert page.evaluate("document.documentElement.dataset.mhaOffline") == "kept"
        names = page.evaluate("caches.keys()")
        assert [n for n in names if n.startswith(f"mha {url}{OLD}/ ")], names
        assert [n for n in names if n.startswith(f"mha {url}{LATEST}/ ")], names
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_second_release_says_what_changed_since_the_first(releases, lang):
    url = releases[0]
    where = "" if lang == "zh" else "en/"
    first = BeautifulSoup(_get(f"{url}{OLD}/{where}changes/").decode(), "html.parser").select_one("article")
    assert WORDS[lang]["first"] in first.get_text()  # 1.0.0 has no release before it
    html = _get(f"{url}{NEW}/{where}changes/").decode()
    article = BeautifulSoup(html, "html.parser").select_one("article")
    assert WORDS[lang]["since"].format(v=OLD) in article.get_text()
    name, old, new, printed_on = CHANGED
    rows = [[td for td in tr.find_all("td")] for tr in article.select("table tr")
            if tr.find("td") and tr.find("td").get_text() == name]
    assert len(rows) == 1, article.get_text()[-2000:]
    cells = rows[0]
    assert [c.get_text() for c in cells[1:3]] == [old, new]
    assert [a["href"] for a in cells[3].find_all("a")] == [f"../{printed_on}"]
    assert _get(f"{url}{NEW}/{where}{printed_on}")  # the linked page is there
    # the edited page is listed, linked; every thumbnail (before: 1.0.0's frozen frame) is served
    assert f"../{PAGE}" in [a["href"] for a in article.select(f"h2#changes-pages ~ ul a")]
    for img in article.select("table img"):
        assert _get(urllib.parse.urljoin(f"{url}{NEW}/{where}changes/", img["src"])).startswith(b"<")
    assert WORDS[lang]["vanished_none"] in article.get_text()  # no anchor of 1.0.0 is gone
    # the table's cell: which table, its old and new value, the page that prints the table
    from figures.site.cheatsheet import MODEL
    from mha_ref import costs
    kept = costs.attention_weights(MODEL.context, MODEL.heads)
    cells = [[td for td in tr.find_all("td")] for tr in article.select("table tr")
             if tr.find("td") and "costs" in tr.find("td").get_text()]
    assert [[c.get_text() for c in row[1:3]] for row in cells] == [[f"{kept:,}", f"{kept + 1:,}"]]
    assert [a["href"] for a in cells[0][3].find_all("a")] == ["../reference/"]
