"""The site's identity (pyproject.toml, MHA_SITE_URL): every value checked where it is read and
refused in one line naming it; every writer escaping it, so a value that got past the checks still
cannot inject markup (each writer is called directly, with a hostile identity patched in)."""

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

import jinja2
import markdown
import pytest
from bs4 import BeautifulSoup

from figures.publish import identity
from figures.publish.identity import IDENTITY, IdentityError
from figures.site import address, cite, language

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
SCRIPT = '"><script>alert(1)</script>'
HOSTILE_URL = "https://x.org/" + SCRIPT
ENCODED = "https://x.org/%22%3E%3Cscript%3Ealert(1)%3C/script%3E"  # as a browser's URL parser reads it


def _pyproject(tmp_path, **own) -> Path:
    """pyproject.toml with some [tool.mha-explained] values replaced (a value None: removed)."""
    text = PYPROJECT
    for key, value in own.items():
        line = "" if value is None else f"{key} = {value}"
        text, n = re.subn(rf"(?m)^{key} = .*$", lambda _: line, text)
        assert n == 1, key
    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(IdentityError) as e:
        identity.load(path)
    message = str(e.value)
    assert "\n" not in message
    return message


# ---- checked where read -------------------------------------------------------------------------

BAD_SITE_URLS = [
    (HOSTILE_URL, "a double quote ('\"') at position 14"),
    ("https://", "it has no host after the scheme"),
    ("https:///path/", "it has no host after the scheme"),
    ("https://x.org/a b/", "a space (' ') at position 15"),
    ("https://x.org/a'b", "a single quote"),
    ("https://x.org/<a>", "an angle bracket"),
    ("https://x.org/\n", "a control character ('\\n')"),
    ("javascript:alert(1)", "it does not start with http:// or https://"),
    ("ftp://x.org/", "it does not start with http:// or https://"),
    ("x.org/", "it does not start with http:// or https://"),
    ("https:/x.org/", "it does not start with http:// or https://"),
    ("https://x.org:http/", "its port ('http') is not a number"),
    ("https://x.org/?page=1", "no query (?) or fragment (#)"),
    ("https://x.org/{a}/", "a brace ('{') at position 14"),  # BibTeX reads braces; a lone one breaks the entry
    ("https://x.org/a}/", "a brace ('}') at position 15"),
    ("https://x.org/a{", "a brace ('{') at position 15"),
    ("https://user:secret@x.org/", "it holds a user name or password before its host (user:password@)"),
    ("https://user@x.org/", "user:password@"),
    ("https://x.org/a\u2028b/", "a line separator (U+2028) at position 15"),
    ("https://x.org/\ufffe/", "a noncharacter (U+FFFE) at position 14"),
    ("https://x.org/\x85/", "a control character ('\\x85') at position 14"),
    ("https://x.org/\udcff/", "a lone surrogate (U+DCFF) at position 14"),  # a byte of the environment not UTF-8
]


@pytest.mark.parametrize("value, reason", BAD_SITE_URLS, ids=[v for v, _ in BAD_SITE_URLS])
def test_a_bad_site_url_in_the_environment_is_refused_in_one_line_naming_it(monkeypatch, value, reason):
    monkeypatch.setenv(identity.SITE_URL_ENV, value)
    message = _refusal(identity.PYPROJECT)
    assert message.startswith(f"MHA_SITE_URL={value!r} is not a valid site URL: ") and reason in message


BAD_PYPROJECT = [
    ("repository", '"javascript:alert(1)"', "is not a valid URL: it does not start with http:// or https://"),
    ("repository", f"'{HOSTILE_URL}'", "is not a valid URL: it contains a double quote"),
    ("content_licence_url", '''"https://x.org/' onclick='alert(1)"''', "is not a valid URL: it contains a single quote"),
    ("code_licence_url", '"https://"', "is not a valid URL: it has no host after the scheme"),
    ("site_url", '"https://x.org/a b/"', "is not a valid site URL: it contains a space"),
    ("source_link", '"{repository}/blob/{tag}/{path}"', "is not a valid link pattern: its fields are {repository}, "
                                                         "{version}, {path}, {line} (KeyError: 'tag')"),
    ("source_link", '"{repository}/blob/v{version}/{path} line {line}"', "is not a valid link pattern: it makes"),
    ("release_date", '"2026-13-01"', "is not a valid date: it must be a day, YYYY-MM-DD"),
    ("release_date", '"30 November 2026"', "is not a valid date"),
    ("title_en", '"Multi-head\\nattention"', "is not a valid value: it contains a control character ('\\n')"),
    ("title_zh", '""', "is not a valid value: it must be non-empty text"),
    ("content_licence", "4", "is not a valid value: it must be non-empty text"),
    ("repository", '"https://me:hunter2@github.com/o/r"', "is not a valid URL: it holds a user name or password"),
    ("site_url", '"https://x.org/{a,b}/"', "is not a valid site URL: it contains a brace ('{') at position 14"),
    ("title_en", '"Multi-head\\u2028attention"', "is not a valid value: it contains a line separator (U+2028) at "
                                                "position 10"),
    ("title_en", '"Multi-head\\u2029"', "it contains a paragraph separator (U+2029)"),
    ("title_zh", '"多头\\uffff注意力"', "is not a valid value: it contains a noncharacter (U+FFFF) at position 2"),
    ("title_zh", '"多头\\U0010FFFF"', "a noncharacter (U+10FFFF)"),
    ("content_licence", '"CC\\u0085BY"', "a control character ('\\x85')"),
]


@pytest.mark.parametrize("key, value, reason", BAD_PYPROJECT, ids=[f"{k}={v}" for k, v, _ in BAD_PYPROJECT])
def test_a_bad_pyproject_value_is_refused_in_one_line_naming_it(tmp_path, monkeypatch, key, value, reason):
    monkeypatch.delenv(identity.SITE_URL_ENV, raising=False)
    message = _refusal(_pyproject(tmp_path, **{key: value}))
    assert re.match(rf"pyproject\.toml \[tool\.mha-explained\] {key} = .* {re.escape(reason)}", message), message


def test_a_missing_value_and_a_bad_version_are_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.delenv(identity.SITE_URL_ENV, raising=False)
    assert _refusal(_pyproject(tmp_path, repository=None)) == "pyproject.toml [tool.mha-explained] has no repository"
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT.replace('version = "0.1.0"', 'version = "0.1.0<b>"', 1), encoding="utf-8")
    assert _refusal(path) == ("pyproject.toml [project] version = '0.1.0<b>' is not a valid version: letters, "
                              "digits and . + ! _ - only")
    path.write_text(PYPROJECT.replace('authors = [{name = "mha-explained contributors"}]', 'authors = [{name = ""}]'),
                    encoding="utf-8")
    assert _refusal(path) == "pyproject.toml [project] authors[0] name = '' is not a valid value: it must be non-empty text"
    path.write_text(PYPROJECT.replace('authors = [{name = "mha-explained contributors"}]',
                                      'authors = [{name = "A"}, {name = "B\\uFFFF"}]'), encoding="utf-8")
    assert _refusal(path) == ("pyproject.toml [project] authors[1] name = 'B\\uffff' is not a valid value: it contains a "
                              "noncharacter (U+FFFF) at position 1")


def test_no_pyproject_is_one_line_that_says_where_it_was_looked_for(tmp_path):
    # code installed from a wheel reads the pyproject.toml of the folder the site is built in (tests/test_wheel.py)
    with pytest.raises(IdentityError) as refused:
        identity.load(tmp_path / "pyproject.toml")
    assert str(refused.value).startswith(f"{tmp_path / 'pyproject.toml'}: no such file") and "\n" not in str(refused.value)


def test_the_scheme_and_host_are_read_in_any_case_and_written_in_lower_case(tmp_path, monkeypatch):
    monkeypatch.setenv(identity.SITE_URL_ENV, "HTTPS://Example.org/Sub")
    read = identity.load(_pyproject(tmp_path, repository='"Http://GitHub.com/Owner/Repo/"'))
    assert read.site_url == "https://example.org/Sub/"  # the path keeps its case: a server may not
    assert read.repository == "http://github.com/Owner/Repo"
    monkeypatch.setenv(identity.SITE_URL_ENV, "")  # set but empty: pyproject's
    assert identity.load().site_url == "https://mha-explained.example.org/"


def test_the_checkout_s_own_identity_is_read_as_it_is_written(monkeypatch):
    monkeypatch.delenv(identity.SITE_URL_ENV, raising=False)
    read = identity.load()
    assert (read.site_url, read.repository, read.release_date) == (
        "https://mha-explained.example.org/", "https://github.com/mha-explained/mha-explained", "2026-11-30")
    assert read.source_url("mha_ref/attention.py", 3).endswith("/blob/v0.1.0/mha_ref/attention.py#L3")


def test_every_character_a_value_may_hold_makes_an_svg_that_is_xml():
    """What the checks let through, every character of the Basic Multilingual Plane and each other
    plane's last ones, stamped as a figure's title is (html.escape in <title>), is read by an XML
    parser; what they refuse (U+2028, U+FFFF, ...) says so in one line."""
    import html
    planes = [chr(c) for c in range(0x10000)] + [chr(p * 0x10000 + c) for p in range(1, 17) for c in (0xFFFD, 0xFFFE, 0xFFFF)]
    kept = "".join(c for c in planes if identity.bad_character(c) is None)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><title>{html.escape(kept)}</title></svg>'
    title = ET.fromstring(svg.encode("utf-8")).find("{http://www.w3.org/2000/svg}title").text
    assert title == kept.replace("\r", "\n")  # XML reads a return as a newline; a one-line value holds neither
    refused = {c for c in planes if identity.bad_character(c) is not None}
    assert {"\u2028", "\u2029", "\ufffe", "\uffff", "\U0010ffff", "\x00", "\t", "\x85", "\ud800"} <= refused
    assert not refused & set("aZ 多头注意力·—“”\u00a0\u3000\ufeff")  # text as people write it is kept


def test_a_site_url_with_a_comma_is_kept_and_its_bibtex_reads_back():
    """A comma is a URL's own character (RFC 3986, sub-delims): BibTeX reads it inside the quotes."""
    from pybtex.database import parse_string
    read = identity.load(environ={identity.SITE_URL_ENV: "https://x.org/a,b/"})
    assert read.site_url == "https://x.org/a,b/"
    c = cite.PageCitation("en", "x", "T", read.site_url + "en/x/", "2020-01-02", read)
    assert parse_string(cite.bibtex(c), "bibtex").entries["mha-explained-x-en"].fields["url"] == c.url


@pytest.mark.parametrize("url", ["https://x.org/a}b/", "https://x.org/{a/", "https://x.org/{a}/", 'https://x.org/"/'])
def test_a_page_address_that_got_past_the_checks_still_makes_bibtex_that_reads_back(url):
    """cite.bibtex writes the address percent-encoded, as a browser sends it: no brace or quote."""
    from pybtex.database import parse_string
    c = cite.PageCitation("en", "x", "T", url, "2020-01-02", IDENTITY)
    read = parse_string(cite.bibtex(c), "bibtex").entries["mha-explained-x-en"].fields["url"]
    assert read == identity.percent_encoded(url) and not set('{}"') & set(read)


def test_a_hostile_site_url_fails_the_build_in_one_line(tmp_path, mkdocs_build):
    run = mkdocs_build(tmp_path / "site", timeout=120, MHA_SITE_URL=HOSTILE_URL)
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [f"ERROR   -  MHA_SITE_URL={HOSTILE_URL!r} is not a valid site URL: it contains a double quote "
                      "('\"') at position 14"], run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "site").exists()


# ---- escaped where written, whatever got through --------------------------------------------------

HOSTILE = dataclasses.replace(
    IDENTITY, authors=("A <b>bold</b> & co",), version='1.0"><script>alert(1)</script>', site_url=HOSTILE_URL + "/",
    repository=HOSTILE_URL, content_licence="<i>CC</i>", content_licence_url="https://x.org/\" onclick=\"alert(1)",
    code_licence_url="https://x.org/'><img src=x onerror=alert(1)>")


def _no_markup_from(soup: BeautifulSoup) -> None:
    assert not soup.select("script, b, i, img"), soup
    assert not [el for el in soup.find_all(True) for a in el.attrs if a.startswith("on")], soup


def test_the_footer_escapes_every_value():
    soup = BeautifulSoup(cite.footer("en", HOSTILE), "html.parser")
    _no_markup_from(soup)
    assert [a["href"] for a in soup.select("a")] == [
        "https://x.org/%22%20onclick=%22alert(1)", "https://x.org/%27%3E%3Cimg%20src=x%20onerror=alert(1)%3E", ENCODED]
    assert "<i>CC</i>" in soup.get_text() and "A <b>bold</b> & co" in soup.get_text()


def test_the_footer_links_nothing_but_http():
    with pytest.raises(IdentityError, match="'javascript:alert\\(1\\)' is not an http\\(s\\) URL"):
        cite.footer("en", dataclasses.replace(IDENTITY, repository="javascript:alert(1)"))


def _identified(monkeypatch, site_url: str) -> SimpleNamespace:
    """A config after on_config's address.identify set its site_url and footer from the patched identity."""
    monkeypatch.setattr(identity, "IDENTITY", dataclasses.replace(HOSTILE, site_url=site_url))
    i18n = SimpleNamespace(current_language="en", default_language="zh")
    config = SimpleNamespace(site_url=None, copyright=None, plugins={"i18n": i18n})
    address.identify(config, serving=False)
    return config


def test_the_canonical_link_material_prints_unescaped_holds_no_markup(monkeypatch):
    config = _identified(monkeypatch, HOSTILE_URL + "/")
    assert config.site_url == ENCODED + "/"
    canonical = urljoin(config.site_url, "en/one-head-blends/")  # as mkdocs' Page sets it
    soup = BeautifulSoup(f'<link rel="canonical" href="{canonical}">', "html.parser")  # as Material writes it
    _no_markup_from(soup)
    assert soup.link["href"] == ENCODED + "/en/one-head-blends/"


def test_the_language_menu_and_the_404_homes_hold_no_markup():
    site_url = HOSTILE_URL + "/"
    homes = language.homes(site_url, ["zh", "en"], "zh")
    assert homes == {"zh": "/%22%3E%3Cscript%3Ealert(1)%3C/script%3E/", "en": "/%22%3E%3Cscript%3Ealert(1)%3C/script%3E/en/"}
    menu = f'<a href="{homes["en"]}" hreflang="en" class="md-select__link">'  # static-i18n's link to a home
    relative = language.relative_menu_links(menu, "one-head-blends/", site_url)
    assert relative == '<a href="../en/" hreflang="en" class="md-select__link">'
    raw = '<a href="/x/<b>y</b>/" hreflang="en" class="md-select__link">'  # a link from the host's root, with markup
    _no_markup_from(BeautifulSoup(language.relative_menu_links(raw, "", "https://x.org/"), "html.parser"))


def _render(template: str, **context) -> BeautifulSoup:
    """One of overrides/ rendered over a stand-in for Material's base.html: our own writing only."""
    base = "".join(f"{{% block {b} %}}{{% endblock %}}" for b in ("site_meta", "extrahead", "header", "content", "scripts"))
    env = jinja2.Environment(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(ROOT / "overrides"),
                                                          jinja2.DictLoader({"base.html": base})]))
    env.filters["url"] = lambda path: path
    return BeautifulSoup(env.get_template(template).render(**context), "html.parser")


@pytest.mark.parametrize("template", ["404.html", "offline.html"])
def test_404_and_offline_escape_their_home_links_and_the_site_path(template):
    facts = language.not_found_facts("https://x.org/" + SCRIPT + "/", "zh", "zh", ["zh", "en"], None)
    facts["site"] = "/" + SCRIPT + "/"  # as it is, not percent-encoded: the template escapes it
    soup = _render(template, page=None, mha_homes={"zh": "/" + SCRIPT + "/", "en": "/en/" + SCRIPT},
                   mha_404=facts, mha_offline=facts)
    scripts = soup.select("script")
    assert len(scripts) == 4  # the template's two (the site's root or kept pages; Material's config) and main.html's two
    assert all(SCRIPT not in s.string for s in scripts)  # tojson: "<" as \u003c, no end of the script
    for script in scripts:
        script.decompose()
    _no_markup_from(soup)
    assert soup.base["href"] == "/" + SCRIPT + "/"  # 404.html's without script (<noscript>), offline.html's
    homes = [a["href"] for a in soup.select("a")]
    assert homes == (["/" + SCRIPT + "/", "/en/" + SCRIPT] if template == "404.html" else ["/" + SCRIPT + "/"])


def test_the_citation_meta_tags_escape_every_value():
    c = cite.PageCitation("en", "x", "Title" + SCRIPT, HOSTILE_URL, "2020-01-02", HOSTILE)
    soup = _render("main.html", page=SimpleNamespace(meta={"citation": cite.meta(c)}))
    assert len(soup.select("script")) == 2  # main.html's own two, before the tags and after
    soup.select("script")[0].decompose(), soup.select("script")[-1].decompose()
    _no_markup_from(soup)
    content = {m["name"]: m["content"] for m in soup.select("meta")}
    assert content["citation_title"] == "Title" + SCRIPT and content["citation_public_url"] == HOSTILE_URL
    assert content["citation_author"] == "A <b>bold</b> & co"
    assert soup.select_one('link[rel="license"]')["href"] == "https://x.org/%22%20onclick=%22alert(1)"


def test_the_cite_section_escapes_every_value():
    title = "Title\n```\n<script>alert(1)</script>\n```` <b>x</b>"
    c = cite.PageCitation("en", "x", title, HOSTILE_URL, "2020-01-02", HOSTILE)
    md = markdown.Markdown(extensions=["attr_list", "md_in_html", "pymdownx.superfences", "pymdownx.highlight", "toc"])
    soup = BeautifulSoup(md.convert(cite.markdown(c)), "html.parser")
    _no_markup_from(soup)
    assert soup.select_one("p.mha-updated").get_text() == f"Updated 2020-01-02 · v{HOSTILE.version}"
    blocks = [pre.get_text() for pre in soup.select("pre")]
    assert len(blocks) == 3 and all("<script>alert(1)</script>" in b for b in blocks)


def _sitemap(site_url: str, page) -> ET.Element:
    """static-i18n's sitemap template (what mkdocs writes as sitemap.xml), for one page."""
    import mkdocs_static_i18n
    folder = Path(mkdocs_static_i18n.__file__).parent / "custom_i18n_sitemap"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), extensions=["jinja2.ext.loopcontrols"])
    file = SimpleNamespace(page=page, url=page.url, alternates={})
    file.alternates["en"] = file
    xml = env.get_template("sitemap.xml").render(config=SimpleNamespace(site_url=site_url), i18n_alternates={"en": [file]})
    return ET.fromstring(xml)


def test_a_page_s_sitemap_entry_is_escaped_and_dated_by_its_citation(tmp_path, monkeypatch):
    config = _identified(monkeypatch, HOSTILE_URL + "/")
    monkeypatch.setattr(cite, "IDENTITY", identity.IDENTITY)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="one-head-blends.en.md"), url="en/one-head-blends/", meta={},
                           update_date="2099-12-31", is_link=False)  # mkdocs' default: the build's day
    cite.page_section(tmp_path, "# One head {#one-head}\n\ntext\n", page, "en", "one-head-blends.md")  # no git here
    assert page.update_date == page.meta["citation"]["date"].replace("/", "-") == IDENTITY.release_date
    page.canonical_url = urljoin(config.site_url, page.url)
    url = _sitemap(config.site_url, page)[0]
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    assert url.find("s:loc", ns).text == page.meta["citation"]["url"] == ENCODED + "/en/one-head-blends/"
    assert url.find("s:lastmod", ns).text == IDENTITY.release_date
