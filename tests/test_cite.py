"""Citing and reusing: licences, CITATION.cff, every page's cite section, meta tags and dates."""

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml
from pybtex.database import parse_string

from built_pages import parsed
from figures.engine import registry
from figures.publish.identity import IDENTITY
from figures.site import cite

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CFF = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
PAGES = [(p.relative_to(DOCS).as_posix().removesuffix(".zh.md"), lang)
         for p in sorted(DOCS.rglob("*.zh.md")) for lang in ("zh", "en")]
HEADING = {"zh": "引用本页", "en": "Cite this page"}
UPDATED = {"zh": re.compile(r"^更新于 (\d{4}-\d\d-\d\d) · v(\S+)$"), "en": re.compile(r"^Updated (\d{4}-\d\d-\d\d) · v(\S+)$")}


def _path(stem: str, lang: str) -> str:
    """The page's path below the site: "", "one-head-blends/", "en/", "en/one-head-blends/"."""
    path = "" if stem == "index" else f"{stem}/"
    return path if lang == "zh" else f"en/{path}"


def _soup(site, stem, lang):
    return parsed(site / _path(stem, lang) / "index.html")


def _title(soup) -> str:
    h1 = soup.select_one("article h1")
    return h1.get_text().removesuffix("¶").strip()


def _cite_blocks(soup) -> dict[str, str]:
    """The cite section's code blocks, by the label above each."""
    section = soup.select_one("article h2#cite")
    blocks, label = {}, None
    for el in section.find_next_siblings():
        if el.name == "p":
            label = el.get_text().strip()
        elif "highlight" in el.get("class", []):
            blocks[label] = el.get_text().strip()
    return blocks


def _git_date(paths) -> str:
    """The newest of the paths' own last commit dates, asked of git one path at a time."""
    return max(subprocess.run(["git", "log", "-1", "--format=%cs", "--", p], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip() for p in paths)


# ---- licences and CITATION.cff ------------------------------------------------------------------

def test_licence_files_are_named_in_pyproject_and_exist():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == IDENTITY.code_licence == "MIT"
    assert set(project["license-files"]) == {"LICENSE", "LICENSE-CONTENT.md"}
    mit = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert mit.startswith("MIT License") and f"{' and '.join(IDENTITY.authors)}\n" in mit
    content = (ROOT / "LICENSE-CONTENT.md").read_text(encoding="utf-8")
    assert cite.licence_name(IDENTITY.content_licence) == "CC BY 4.0" and "CC BY 4.0" in content
    assert IDENTITY.content_licence_url in content


def test_readme_names_the_licences_and_where_the_identity_is_set():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Licence", 1)[1].split("\n## ", 1)[0]
    for needle in ("`LICENSE`", "`LICENSE-CONTENT.md`", "MIT", "CC BY 4.0", "[tool.mha-explained]", "site_url",
                   "repository", "`CITATION.cff`"):
        assert needle in section, needle


def test_citation_cff_is_valid_cff_1_2_0():
    schema = json.loads((ROOT / "tests/data/cff-1.2.0-schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(CFF, schema, format_checker=jsonschema.FormatChecker())


def test_citation_cff_says_what_pyproject_says():
    assert CFF["title"] == IDENTITY.title["en"]
    assert tuple(a["name"] for a in CFF["authors"]) == IDENTITY.authors
    assert (CFF["version"], CFF["date-released"]) == (IDENTITY.version, IDENTITY.release_date)
    assert (CFF["url"], CFF["repository-code"]) == (IDENTITY.site_url, IDENTITY.repository)
    # this version's frozen address (a release's folder, .github/CONTRIBUTING.md, "Releases"), then the living one
    frozen, living = (f"{IDENTITY.site_url}{IDENTITY.version}/", f"{IDENTITY.site_url}latest/")
    assert [(i["type"], i["value"]) for i in CFF["identifiers"]] == [("url", frozen), ("url", living)]
    assert IDENTITY.version in CFF["identifiers"][0]["description"]
    assert CFF["license"] == [IDENTITY.code_licence, IDENTITY.content_licence]


# ---- site_url and footer ------------------------------------------------------------------------

def test_site_url_lives_in_pyproject_only_and_reaches_the_pages(site):
    assert "site_url:" not in re.sub(r"#.*", "", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    for stem, lang in PAGES:
        canonical = _soup(site, stem, lang).select_one('link[rel="canonical"]')["href"]
        assert canonical == IDENTITY.site_url + _path(stem, lang)


def test_a_site_url_in_mkdocs_yml_is_refused_by_name(checkout, mkdocs_build):
    config = checkout / "mkdocs.yml"
    config.write_text("site_url: https://elsewhere.example.com/\n" + config.read_text(encoding="utf-8"), encoding="utf-8")
    run = mkdocs_build(checkout / "site", cwd=checkout)
    assert run.returncode != 0
    assert "site_url is set in pyproject.toml" in run.stderr and "elsewhere.example.com" in run.stderr


@pytest.mark.parametrize("lang, words", [("zh", ("文字与图", "代码", "源代码")), ("en", ("Text and figures", "code", "Source code"))])
def test_footer_names_both_licences_and_links_the_source_in_the_page_language(site, lang, words):
    for stem, page_lang in PAGES:
        if page_lang != lang:
            continue
        soup = _soup(site, stem, lang)
        footer = soup.select_one(".md-copyright")
        links = {a["href"]: a.get_text() for a in footer.select("a")}
        assert links[IDENTITY.content_licence_url] == "CC BY 4.0" and links[IDENTITY.code_licence_url] == "MIT"
        assert links[IDENTITY.repository] == words[2]
        assert all(w in footer.get_text() for w in words) and IDENTITY.authors[0] in footer.get_text()
        assert not soup.select(".md-source")  # Material's repo_url widget, which calls a third-party API


# ---- the cite section, the updated line, the meta tags -------------------------------------------

@pytest.mark.parametrize("stem, lang", PAGES, ids=lambda x: x)
def test_every_page_ends_with_its_own_cite_section(site, stem, lang):
    soup = _soup(site, stem, lang)
    article = soup.select_one("article")
    h2 = article.select("h2")
    assert h2[-1]["id"] == "cite" and h2[-1].get_text().removesuffix("¶").strip() == HEADING[lang]
    updated = [p for p in article.select("p.mha-updated")]
    assert len(updated) == 1 and updated[0].find_next_sibling("h2") is h2[-1]
    date, version = UPDATED[lang].match(updated[0].get_text()).groups()
    assert version == IDENTITY.version
    title, url, site_title = _title(soup), IDENTITY.site_url + _path(stem, lang), IDENTITY.title[lang]
    blocks = _cite_blocks(soup)
    assert set(blocks) == {"GB/T 7714-2015", "APA 7", "BibTeX"}
    gbt = blocks["GB/T 7714-2015"]
    edition = f"{IDENTITY.version}版" if lang == "zh" else f"Version {IDENTITY.version}"
    # GB/T 7714's [EB/OL]: no publisher without its place; the update date, then the access date
    assert gbt == f"{', '.join(IDENTITY.authors)}. {title}[EB/OL]. {edition}. ({date})[YYYY-MM-DD]. {url}."
    y, m, d = date.split("-")
    apa = blocks["APA 7"]
    month = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")[int(m) - 1]
    # a Chinese title with its English translation in brackets: the title of the English twin
    shown = f"{title} [{_title(_soup(site, stem, 'en'))}]" if lang == "zh" else title
    assert apa == (f"{', '.join(IDENTITY.authors)}. ({y}, {month} {int(d)}). {shown} (Version {IDENTITY.version}). "
                   f"{site_title}. Retrieved Month D, YYYY, from {url}")


@pytest.mark.parametrize("stem, lang", PAGES, ids=lambda x: x)
def test_every_page_bibtex_parses_and_cites_that_page(site, stem, lang):
    soup = _soup(site, stem, lang)
    bib = parse_string(_cite_blocks(soup)["BibTeX"], "bibtex")
    (key, entry), = bib.entries.items()
    date = UPDATED[lang].match(soup.select_one("p.mha-updated").get_text()).group(1)
    url = IDENTITY.site_url + _path(stem, lang)
    assert entry.type == "misc" and key.endswith(f"-{lang}")
    assert entry.fields["title"].strip("{}") == _title(soup)
    assert tuple(str(p).strip("{}") for p in entry.persons["author"]) == IDENTITY.authors
    assert entry.fields["url"] == url and "howpublished" not in entry.fields  # biblatex would print the URL twice
    assert entry.fields["urldate"] == "YYYY-MM-DD" and entry.fields["year"] == date[:4]
    assert IDENTITY.version in entry.fields["note"] and IDENTITY.title[lang] in entry.fields["note"]
    assert date in entry.fields["note"]


def test_bibtex_keys_are_unique_across_the_site(site):
    keys = [next(iter(parse_string(_cite_blocks(_soup(site, s, l))["BibTeX"], "bibtex").entries)) for s, l in PAGES]
    assert len(set(keys)) == len(keys)


def test_bibtex_escapes_what_tex_would_read_as_markup():
    c = cite.PageCitation("en", "x", '50% of {heads} & a_b #1, "quoted"', "https://a.example/x/", "2020-01-02")
    entry = parse_string(cite.bibtex(c), "bibtex").entries["mha-explained-x-en"]
    assert entry.fields["title"] == r'{50\% of \{heads\} \& a\_b \#1, {"}quoted{"}}'


# TeX's ten special characters (the TeXbook, chapter 7), and the quote that would end a BibTeX value
# in quotes: each must reach the reader as itself, never act as markup.
TEX_SPECIALS = "\\{}$&#^_~%"
QUOTE = '"'
# the TeX spellings that print a special character as itself
TEX_LITERAL_COMMANDS = {"textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^",
                        "textbraceleft": "{", "textbraceright": "}"}  # a brace whose partner is missing


def _read_tex(value: str) -> str:
    r"""A BibTeX field value read back as the characters TeX prints, written here from TeX's rules
    (not from cite.py): `\X` for X in { } $ & # _ %; `\textbackslash{}`, `\textasciitilde{}`,
    `\textasciicircum{}`, `\textbraceleft{}`, `\textbraceright{}` (or braced whole, `{\textasciitilde}`);
    `{"}` for a quote. A special character anywhere else is markup, and fails."""
    out, i = [], 0
    while i < len(value):
        if value.startswith('{"}', i):
            out.append('"')
            i += 3
            continue
        m = re.compile(r"\\([A-Za-z]+)(?:\{\}|(?![A-Za-z\s]))|\{\\([A-Za-z]+)\}").match(value, i)
        if m and (m[1] or m[2]) in TEX_LITERAL_COMMANDS:
            out.append(TEX_LITERAL_COMMANDS[m[1] or m[2]])
            i = m.end()
            continue
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in "{}$&#_%":
            out.append(value[i + 1])
            i += 2
            continue
        assert value[i] not in TEX_SPECIALS + QUOTE, f"{value[i]!r} at {i} of {value!r} acts as TeX markup"
        out.append(value[i])
        i += 1
    return "".join(out)


def test_the_tex_reader_refuses_markup():
    """The reader above has teeth of its own: each special character left bare fails it."""
    for char in TEX_SPECIALS + QUOTE:
        with pytest.raises(AssertionError, match="acts as TeX markup"):
            _read_tex(f"a{char}b")
    with pytest.raises(AssertionError, match="acts as TeX markup"):
        _read_tex(r"\~{}")  # an accent over nothing, not a tilde
    assert _read_tex(r"50\% \{a\} \textasciitilde{}\textasciicircum{} {\textbackslash}") == "50% {a} ~^ \\"


@pytest.mark.parametrize("char", TEX_SPECIALS + QUOTE)
def test_bibtex_prints_each_special_character_as_itself(char):
    text = f"a{char}b {char}{char} {char}"
    assert _read_tex(cite._tex(text)) == text


def test_bibtex_leaves_other_text_as_it_is():
    for text in ("多头注意力 · 第 1 页", "Heads, explained: it's 1-2 (a/b) [c] <d> @e ! ? * + = | ; `f`"):
        assert cite._tex(text) == text


def test_bibtex_entry_with_every_special_character_parses_back_to_the_text():
    import dataclasses
    title = "Cost: 50% & more_{x} #1 ~ a^2 $5 \"q\" 注意力"  # every special but the backslash (above)
    author = "A_B & C~D"
    identity = dataclasses.replace(IDENTITY, authors=(author, "E^F {G}"))
    c = cite.PageCitation("en", "x", title, "https://a.example/x/", "2020-01-02", identity)
    entry = parse_string(cite.bibtex(c), "bibtex").entries["mha-explained-x-en"]
    braced = entry.fields["title"]
    assert braced.startswith("{") and braced.endswith("}")
    assert _read_tex(braced[1:-1]) == title
    assert [_read_tex(str(p).removeprefix("{").removesuffix("}")) for p in entry.persons["author"]] == \
        [author, "E^F {G}"]
    assert _read_tex(entry.fields["note"]) == cite.TEXT["en"]["note"].format(
        site=IDENTITY.title["en"], version=IDENTITY.version, date="2020-01-02")


@pytest.mark.parametrize("stem, lang", PAGES, ids=lambda x: x)
def test_every_page_has_citation_meta_tags_and_a_licence_link(site, stem, lang):
    soup = _soup(site, stem, lang)

    def meta(name):
        return [m["content"] for m in soup.select(f'head meta[name="{name}"]')]
    date = UPDATED[lang].match(soup.select_one("p.mha-updated").get_text()).group(1)
    assert meta("citation_title") == [_title(soup)]
    assert tuple(meta("citation_author")) == IDENTITY.authors
    assert meta("citation_publication_date") == [date.replace("-", "/")]
    assert re.fullmatch(r"\d{4}/\d\d/\d\d", meta("citation_publication_date")[0])
    assert meta("citation_language") == [lang] and soup.html["lang"].startswith(lang)
    assert meta("citation_public_url") == [soup.select_one('link[rel="canonical"]')["href"]]
    assert [link["href"] for link in soup.select('head link[rel="license"]')] == [IDENTITY.content_licence_url]


# ---- the date: git, or the release date without it ------------------------------------------------

@pytest.mark.parametrize("stem, lang", PAGES, ids=lambda x: x)
def test_a_page_is_dated_by_the_last_commit_to_its_text_figures_and_mha_ref(site, stem, lang):
    if not (ROOT / ".git").exists():
        pytest.skip("no git history in this checkout")
    src = f"docs/{stem}.{lang}.md"
    figures = re.findall(r"^\{\{ *figure +(\S+)", (ROOT / src).read_text(encoding="utf-8"), re.M)
    paths = [src, "mha_ref", *(registry.module_name(fig).replace(".", "/") + ".py" for fig in figures)]
    date = UPDATED[lang].match(_soup(site, stem, lang).select_one("p.mha-updated").get_text()).group(1)
    assert date == _git_date(paths)


def _commit(repo: Path, day: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, GIT_AUTHOR_DATE=f"{day}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{day}T12:00:00+00:00",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    for args in (["add", "-A"], ["commit", "-q", "-m", day]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)


def test_last_changed_follows_the_page_its_own_language_its_figures_and_mha_ref(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, "2020-01-02", {"docs/a.zh.md": "a", "docs/a.en.md": "a", "docs/b.zh.md": "b",
                                     "figures/gallery/blend_rows.py": "", "figures/other.py": "", "mha_ref/x.py": ""})
    module = registry.module_name("blend-rows")

    def date(page, modules=()):
        return cite.last_changed(tmp_path, cite.page_sources(page, list(modules)), "1999-09-09")
    _commit(tmp_path, "2021-03-04", {"figures/gallery/blend_rows.py": "# changed"})
    _commit(tmp_path, "2021-05-06", {"figures/other.py": "# a figure no page here places"})
    assert date("a.zh.md", [module]) == "2021-03-04" and date("b.zh.md") == "2020-01-02"
    _commit(tmp_path, "2022-07-08", {"docs/a.en.md": "a, fixed"})
    assert date("a.en.md", [module]) == "2022-07-08" and date("a.zh.md", [module]) == "2021-03-04"
    _commit(tmp_path, "2023-09-10", {"mha_ref/x.py": "# changed"})
    assert date("a.zh.md", [module]) == date("b.zh.md") == "2023-09-10"
    assert date("never-committed.zh.md") == "2023-09-10"  # mha_ref still dates it
    assert cite.last_changed(tmp_path, ["docs/never-committed.zh.md"], "1999-09-09") == "1999-09-09"


def test_without_git_history_the_build_cites_the_release_date(site, checkout, mkdocs_build):
    assert not (checkout / ".git").exists()
    pyproject = checkout / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(re.sub(r'(?m)^release_date = "[^"]*"', 'release_date = "2001-02-03"', text), encoding="utf-8")
    out = checkout / "site"
    run = mkdocs_build(out, cwd=checkout, MHA_DOWNLOADS="0")  # the pages' dates only: no PDF, PNG or zip
    assert run.returncode == 0, run.stderr[-3000:]
    for stem, lang in (("index", "zh"), ("one-head-blends", "en")):
        soup = _soup(out, stem, lang)
        assert UPDATED[lang].match(soup.select_one("p.mha-updated").get_text()).group(1) == "2001-02-03"
        assert soup.select_one('meta[name="citation_publication_date"]')["content"] == "2001/02/03"
        assert "2001-02-03" in _cite_blocks(soup)["BibTeX"]


def sitemap_dates(site: Path) -> dict[str, str]:
    """Each page's <lastmod> in the site's sitemap.xml, by its <loc>; the .gz beside it must hold the same."""
    import gzip
    import xml.etree.ElementTree as ET
    data = (site / "sitemap.xml").read_bytes()
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()) == data
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    return {url.find("s:loc", ns).text: url.find("s:lastmod", ns).text for url in ET.fromstring(data).findall("s:url", ns)}


def test_the_sitemap_dates_every_page_of_both_languages_as_its_citation_does(site):
    """Not the day of the build: the same commit gives the same sitemap on any day."""
    assert sitemap_dates(site) == {
        IDENTITY.site_url + _path(stem, lang):
            UPDATED[lang].match(_soup(site, stem, lang).select_one("p.mha-updated").get_text()).group(1)
        for stem, lang in PAGES}
