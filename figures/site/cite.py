"""How a page is cited: its date, its "Cite this page" section, its citation meta tags, the footer.

Everything comes from IDENTITY (pyproject.toml) and git, never from the clock: two builds of the
same commit print the same dates, on the pages and in sitemap.xml. A page's date is the commit
date of the last change to its sources (see `page_sources`); a checkout without git history (a
source tarball) cites the release date instead. Every value is escaped where it is written here.
"""

from __future__ import annotations

import html
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..engine import registry
from ..publish import numbering
from ..publish.identity import IDENTITY, LICENCE_FILES, Identity, attribute_url, licence_name, percent_encoded
from ..text import constructs, markdown_code

ANCHOR = "cite"  # the section's id, the same in every language
PLACEHOLDER = "YYYY-MM-DD"  # the day the reader read the page: GB/T's 引用日期, BibTeX's urldate
APA_PLACEHOLDER = "Month D, YYYY"  # the same day as APA writes it ("Retrieved December 1, 2026, from")

TEXT = {
    "zh": {
        "heading": "引用本页",
        "updated": "更新于 {date} · v{version}",
        "frozen": ("本页此版本（v{version}）的固定地址：<{url}>，此后的修改不会改动它；"
                   "最新版（latest）的同一页：<{latest}>。引用时请写固定地址。"),
        "not_frozen": "这是一次普通构建，不是正式发布的版本：下面的地址指向网站当前的内容，会随之改变，没有固定地址。",
        "how": (f"`{PLACEHOLDER}` 与 `{APA_PLACEHOLDER}` 处填你读到本页的日期（GB/T 7714 的引用日期，APA 的"
                "检索日期，BibTeX 的 urldate）；开着脚本时，页面已替你填上今天的日期；打印出来的仍是占位符。"),
        "edition": "{version}版",
        "note": "{site}，版本 {version}，更新于 {date}",
        "footer": ('文字与图采用 <a href="{content_url}">{content}</a> 许可，代码采用 '
                   '<a href="{code_url}">{code}</a> 许可 · {authors} · <a href="{repository}">源代码</a>'),
    },
    "en": {
        "heading": "Cite this page",
        "updated": "Updated {date} · v{version}",
        "frozen": ("This version (v{version}) of this page stays at <{url}>, which later changes never touch; "
                   "the same page in the newest version (latest): <{latest}>. Cite the first."),
        "not_frozen": ("This is a build, not a release: the address below shows whatever the site holds now "
                       "and changes with it; no frozen address exists."),
        "how": (f"`{PLACEHOLDER}` and `{APA_PLACEHOLDER}` stand for the day you read the page (GB/T 7714's access "
                "date, APA's retrieval date, BibTeX's urldate); with scripts on, the page has filled in today's "
                "date, and print keeps the placeholders."),
        "edition": "Version {version}",
        "note": "{site}, version {version}, updated {date}",
        "footer": ('Text and figures: <a href="{content_url}">{content}</a>; code: '
                   '<a href="{code_url}">{code}</a> · {authors} · <a href="{repository}">Source code</a>'),
    },
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


@dataclass(frozen=True)
class PageCitation:
    lang: str
    slug: str      # "one-head-blends", "index": the BibTeX key's stem
    title: str     # the page's own title, in its language
    url: str       # site_url + the page's url: in a release, this version's frozen address
    date: str      # YYYY-MM-DD: the last change to the page's sources
    identity: Identity = IDENTITY
    translated: str = ""  # a Chinese page's title in English (its twin's), which APA adds in brackets

    @property
    def latest(self) -> str | None:
        """The same page in the newest release (the living address), in a release; else None."""
        return self.identity.latest(self.url)

    @property
    def site(self) -> str:
        return self.identity.title[self.lang]


# ---- the date -----------------------------------------------------------------------------------

def page_sources(page_src: str, figure_modules: list[str]) -> list[str]:
    """The paths (relative to the checkout) whose last change dates a page: the page's own file in
    its own language (the reader cites the text they read; the twin may be fixed on another day), the
    modules of the figures it places, and mha_ref/, which computes every number and figure."""
    return [f"docs/{page_src}", *(m.replace(".", "/") + ".py" for m in figure_modules), "mha_ref"]


def last_changed(root: Path, paths: list[str], fallback: str) -> str:
    """YYYY-MM-DD of the last commit touching any of `paths`; `fallback` without git history there,
    or when none of them was ever committed."""
    if not (root / ".git").exists():  # a file in a worktree, a folder in a clone
        return fallback
    run = subprocess.run(["git", "log", "-1", "--format=%cs", "--", *paths], cwd=root,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"git log in {root} failed, so the page's date is unknown: {run.stderr.strip()}")
    return run.stdout.strip() or fallback


# ---- the section at the end of every page -------------------------------------------------------

def gbt7714(c: PageCitation) -> str:
    """GB/T 7714-2015, 电子资源 (4.1.3 and its [EB/OL] examples): 主要责任者. 题名[EB/OL]. 版本项.
    (更新或修改日期)[引用日期]. 获取和访问路径. The responsible party is the site's authors; a web
    page has no place of publication, and the standard's examples of [EB/OL] then give no
    publisher either, rather than a publisher without its place."""
    edition = TEXT[c.lang]["edition"].format(version=c.identity.version)
    return f"{', '.join(c.identity.authors)}. {c.title}[EB/OL]. {edition}. ({c.date})[{PLACEHOLDER}]. {c.url}."


def apa7(c: PageCitation) -> str:
    """APA 7, a page of a website that changes: Author. (Year, Month Day). Title [English title]
    (Version). Site. Retrieved Month Day, Year, from URL. A title in another language than English
    is followed by its English translation in square brackets (APA 7, 9.38)."""
    year, month, day = (int(x) for x in c.date.split("-"))
    title = f"{c.title} [{c.translated}]" if c.translated else c.title
    return (f"{', '.join(c.identity.authors)}. ({year}, {MONTHS[month - 1]} {day}). {title} "
            f"(Version {c.identity.version}). {c.site}. Retrieved {APA_PLACEHOLDER}, from {c.url}")


TEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
       "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
       '"': '{"}'}  # values are in quotes (below)
# BibTeX counts braces whatever precedes them: a brace without its partner, even as \{, leaves the
# entry unbalanced, so it is written as a command instead
LONE_BRACE = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
TEX_SPECIAL = re.compile(r'[\\{}&%$#_~^"]')


def _lone_braces(text: str) -> set[int]:
    """Where the braces of `text` that have no partner are."""
    opened, lone = [], set()
    for at, char in enumerate(text):
        if char == "{":
            opened.append(at)
        elif char == "}":
            if opened:
                opened.pop()
            else:
                lone.add(at)
    return lone | set(opened)


def _tex(text: str) -> str:
    """Text as a BibTeX field value: TeX's special characters escaped, in one pass (so that no escape
    is escaped again), each printing as itself."""
    lone = _lone_braces(text)
    return TEX_SPECIAL.sub(lambda m: LONE_BRACE[m[0]] if m.start() in lone else TEX[m[0]], text)


def bibtex(c: PageCitation) -> str:
    """A @misc entry. Values are in quotes, not braces, so that a braced name ({mha-explained
    contributors}: an organisation, kept whole) never prints "{{", which the site reads as a
    construct left unexpanded. The address is in `url` only: biblatex prints `url`, and a
    `howpublished` holding the same address printed it twice."""
    fields = {
        "title": "{" + _tex(c.title) + "}",  # braced again: BibTeX styles keep its case
        "author": " and ".join("{" + _tex(a) + "}" for a in c.identity.authors),
        "url": percent_encoded(c.url),  # a lone brace or a quote would break the entry
        "urldate": PLACEHOLDER,
        "note": _tex(TEXT[c.lang]["note"].format(site=c.site, version=c.identity.version, date=c.date)),
        "year": c.date[:4],
    }
    width = max(map(len, fields))
    body = ",\n".join(f'  {name:<{width}} = "{value}"' for name, value in fields.items())
    return f"@misc{{mha-explained-{c.slug}-{c.lang},\n{body}\n}}"


def code_block(lang: str, text: str) -> list[str]:
    """`text` as a fenced code block whose fence is longer than any run of backticks in it, so that
    no line of the text (a title or author holding ```) can close it and reach the page as markup."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return [f"{fence}{lang}", text, fence]


def markdown(c: PageCitation) -> str:
    """The page's last lines: its updated line, then the cite section, each form in a code block
    (Material's copy button); kept out of the search index, or every page would match its words."""
    t = TEXT[c.lang]
    updated = t["updated"].format(date=html.escape(c.date), version=html.escape(c.identity.version))
    if c.identity.release is None:
        where = t["not_frozen"]
    else:
        where = t["frozen"].format(version=html.escape(c.identity.version), url=c.url, latest=c.latest)
    return "\n".join([
        "", "", f"{updated}", "{: .mha-updated }", "",
        f"## {t['heading']} {{#{ANCHOR} data-search-exclude }}", "", where, "{: .mha-cite-where }", "", t["how"], "",
        "**GB/T 7714-2015**", "", *code_block("text", gbt7714(c)), "",
        "**APA 7**", "", *code_block("text", apa7(c)), "",
        "**BibTeX**", "", *code_block("bibtex", bibtex(c)), "",
    ])


# ---- what the theme prints around the page ------------------------------------------------------

def meta(c: PageCitation) -> dict:
    """What overrides/main.html puts in <head>: the tags Google Scholar and Zotero read, the licence."""
    return {
        "title": c.title,
        "authors": list(c.identity.authors),
        "date": c.date.replace("-", "/"),  # Google Scholar's YYYY/MM/DD
        "language": c.lang,
        "url": c.url,
        "latest": c.latest,  # <link rel="latest-version"> (RFC 5829), in a release
        "licence_url": attribute_url(c.identity.content_licence_url),
    }


def footer(lang: str, identity: Identity = IDENTITY, root: str | None = None) -> str:
    """The footer's line (config.copyright, which Material prints unescaped, so every value is
    escaped here), in the page's language. `root`, in the offline copy: the way from this language's
    pages to the copy's root ("" or "../"), where the licence names link the copies of the repository's
    licence files (identity.LICENCE_FILES), not the licences' pages on their hosts: read without network."""
    def href(url: str) -> str:
        return html.escape(attribute_url(url))

    def licence(which: str, url: str) -> str:
        return href(url) if root is None else html.escape(root + LICENCE_FILES[which][1])  # [which]: (source, name)
    return TEXT[lang]["footer"].format(
        content=html.escape(licence_name(identity.content_licence)), content_url=licence("content", identity.content_licence_url),
        code=html.escape(licence_name(identity.code_licence)), code_url=licence("code", identity.code_licence_url),
        authors=html.escape(", ".join(identity.authors)), repository=href(identity.repository))


def english_title(zh_source: str) -> str:
    """The title of a Chinese page's English twin (docs/x.zh.md -> docs/x.en.md)."""
    twin = Path(zh_source).with_name(Path(zh_source).name.removesuffix(".zh.md") + ".en.md")
    found = numbering.TITLE.search(twin.read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{twin}: a page starts with its title, '# Title {{#id}}', which its twin's citation translates")
    return found["title"]


def page_section(root: Path, page_markdown: str, page, lang: str, nav_entry: str) -> str:
    """The page's updated line and cite section; its citation meta tags go to page.meta, which
    overrides/main.html prints."""
    modules = [registry.module_name(m["id"]) for m in markdown_code.outside_code(constructs.FIGURE, page_markdown)]
    title = numbering.TITLE.search(page_markdown)
    if title is None:
        raise ValueError(f"{page.file.src_uri}: a page starts with its title, '# Title {{#id}}', which its citation names")
    try:
        date = last_changed(root, page_sources(page.file.src_uri, modules), IDENTITY.release_date)
    except RuntimeError as e:
        raise ValueError(f"{page.file.src_uri}: {e}") from e
    citation = PageCitation(lang=lang, slug=nav_entry.removesuffix(".md"), title=title["title"],
                            url=attribute_url(IDENTITY.site_url) + page.url, date=date,  # = the canonical link
                            translated=english_title(page.file.abs_src_path) if lang == "zh" else "")
    page.meta["citation"] = meta(citation)
    page.update_date = date  # the sitemap's <lastmod> (and its .gz's time), not the day of the build
    return markdown(citation)
