"""Who the site is and how it may be reused: read from pyproject.toml, the one place that holds it.

Pages (citations, footer, meta tags), figure metadata and the figure CLI all read IDENTITY, so a
new version, host or author is set once ([project] and [tool.mha-explained] in pyproject.toml).

Every value is checked here, where it is read, and a bad one is refused in one line that names the
value and where it came from. The pages still escape each value where they write it
(`attribute_url` below, and html.escape), so a value that got past these checks cannot inject markup.
"""

from __future__ import annotations

import datetime
import os
import re
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ..keep import switches

# The checkout's, beside the code; for the code installed from a wheel (site-packages holds none),
# the one in the folder the site is built in, beside mkdocs.yml (tests/test_wheel.py)
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
if not PYPROJECT.is_file():
    PYPROJECT = Path.cwd() / "pyproject.toml"


@dataclass(frozen=True)
class Identity:
    title: dict[str, str]  # by language: {"zh": ..., "en": ...}
    authors: tuple[str, ...]
    version: str
    release_date: str  # YYYY-MM-DD
    site_url: str  # ends with "/": where this build's pages live (a release's own folder, home_url + "X.Y.Z/")
    repository: str
    source_link: str  # format string with {repository}, {version}, {path}, {line}
    code_licence: str  # SPDX id
    code_licence_url: str
    content_licence: str  # SPDX id
    content_licence_url: str
    release: str | None = None  # this build is the release of `version` (mike deploys it), else None
    home_url: str = ""  # the published root, every release's folder under it; site_url when ""

    @property
    def latest_url(self) -> str | None:
        """Where the newest release lives (mike's alias `latest`), in a release's build; None otherwise."""
        return (self.home_url or self.site_url) + f"{LATEST}/" if self.release else None

    def latest(self, url: str) -> str | None:
        """`url` (under site_url, this release's) at the newest release: the living address; None
        when this build is no release."""
        if self.latest_url is None or not url.startswith(self.site_url):
            return None
        return self.latest_url + url[len(self.site_url):]

    def source_url(self, path: str, line: int = 1) -> str:
        """A line of a file of this repository (path relative to its root), at this version."""
        return self.source_link.format(repository=self.repository, version=self.version, path=path, line=line)


class IdentityError(ValueError):
    """A value of pyproject.toml or MHA_SITE_URL refused: the message names the value and its source."""


RELEASE_ENV = "MIKE_DOCS_VERSION"  # what `mike deploy` sets for the build it runs: the version deployed
LATEST = "latest"  # the alias of the newest release (.github/CONTRIBUTING.md, "Releases"); the root redirects to it
SITE_URL_ENV = "MHA_SITE_URL"  # the address a build is published at, when not pyproject's (a Pages workflow)
SOURCE_LINK_FIELDS = ("repository", "version", "path", "line")
# A release's version is its folder on the Pages branch and its tag's name: plain X.Y.Z, so that no
# version is mike's alias (LATEST), its versions.json or anything with a slash or space in it
RELEASE_VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


# ---- the checks ---------------------------------------------------------------------------------
# A URL is written into HTML attributes, the sitemap, BibTeX and figure metadata: any character
# that could end an attribute or start a tag, or that no URL may hold unencoded (RFC 3986: a brace
# too, which would also leave a BibTeX entry unbalanced), is refused.

UNSAFE = re.compile(r'[\s"\'<>`\\{}\x00-\x1f\x7f]')
CHARACTER_NAMES = {" ": "a space", '"': "a double quote", "'": "a single quote", "<": "an angle bracket",
                   ">": "an angle bracket", "`": "a backtick", "\\": "a backslash", "{": "a brace", "}": "a brace"}


def bad_character(text: str) -> str | None:
    """What is wrong with the first character of `text` that no one-line value may hold, if any:
    a control character (C0, DEL, C1), a line or paragraph separator (U+2028, U+2029: line breaks
    like \\n), a lone surrogate, or a noncharacter (U+FFFE, U+FFFF, U+FDD0..U+FDEF and each plane's
    last two). XML 1.0 allows none of the C0 controls but tab, newline and return, no surrogate and
    neither U+FFFE nor U+FFFF: a value holding one would make a figure's SVG no XML at all."""
    for at, char in enumerate(text):
        code = ord(char)
        kind = unicodedata.category(char)
        if kind == "Cc":
            name = f"a control character ({char!r})"
        elif kind in ("Zl", "Zp"):
            name = f"a {'line' if kind == 'Zl' else 'paragraph'} separator (U+{code:04X})"
        elif kind == "Cs":
            name = f"a lone surrogate (U+{code:04X})"
        elif 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
            name = f"a noncharacter (U+{code:04X})"
        else:
            continue
        return f"it contains {name} at position {at}"
    return None


def _unsafe(text: str) -> str | None:
    """What is wrong with the first character of `text` that may not appear in a URL, if any."""
    bad = UNSAFE.search(text)
    if bad is None:
        return None
    char = bad[0]
    name = CHARACTER_NAMES.get(char) or ("a control character" if char < " " or char == "\x7f" else "a space")
    return f"it contains {name} ({char!r}) at position {bad.start()}"


def url_problem(value: object, page_base: bool = False) -> str | None:
    """Why `value` is not an absolute http(s) URL with a host (None when it is). `page_base`: the
    site's own address, to which page paths are appended, so no query or fragment either."""
    if not isinstance(value, str):
        return f"it is {type(value).__name__}, not text"
    if problem := bad_character(value) or _unsafe(value):
        return problem
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not value[len(parts.scheme):].startswith("://"):
        return "it does not start with http:// or https://"
    if not parts.hostname:
        return "it has no host after the scheme"
    if "@" in parts.netloc:
        return ("it holds a user name or password before its host (user:password@), which every page, "
                "citation and figure would publish")
    try:
        parts.port
    except ValueError:
        return f"its port ({parts.netloc.rpartition(':')[2]!r}) is not a number from 0 to 65535"
    if page_base and (parts.query or parts.fragment):
        return "a site URL has no query (?) or fragment (#): page paths are appended to it"
    return None


def normal_url(value: str) -> str:
    """A valid URL with its scheme and host in lower case, as every browser reads them."""
    parts = urlsplit(value)
    user, at, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=user + at + host.lower()))


def percent_encoded(text: str) -> str:
    """A URL or path with every character that could end an attribute or open a tag (and every other
    character UNSAFE names) percent-encoded, as a browser's URL parser encodes them: a valid URL comes
    back unchanged. `&` is left for html.escape, which writing into HTML still needs."""
    return UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m[0].encode()), text)


# The repository's licence files (its file, the copy's name at the offline copy's root): read from
# disk without network, the offline copy's footer links these (figures/site/cite.py's footer, placed
# by figures/site/offline.py), not the licences' own hosts.
LICENCE_FILES = {"content": ("LICENSE-CONTENT.md", "LICENSE-CONTENT.txt"), "code": ("LICENSE", "LICENSE.txt")}


def licence_name(spdx: str) -> str:
    """"CC-BY-4.0" -> "CC BY 4.0", the name Creative Commons writes; "MIT" stays."""
    return spdx.replace("-", " ") if spdx.startswith("CC-") else spdx


def attribute_url(value: str) -> str:
    """A URL as a page writes it (see percent_encoded); refused unless http(s), since a
    `javascript:` link would run script however it is escaped."""
    if urlsplit(value).scheme.lower() not in ("http", "https"):
        raise IdentityError(f"{value!r} is not an http(s) URL, so no page links it")
    return percent_encoded(value)


# ---- reading pyproject.toml ---------------------------------------------------------------------

class _Table:
    """A table of pyproject.toml whose values are checked as they are taken, each refusal naming it."""

    def __init__(self, data: dict, where: str):
        self.data, self.where = data, where  # "pyproject.toml [project]"

    def source(self, key: str) -> str:
        return f"{self.where} {key} = {self.data[key]!r}"

    def text(self, key: str) -> str:
        if key not in self.data:
            raise IdentityError(f"{self.where} has no {key}")
        value = self.data[key]
        if not isinstance(value, str) or not value.strip():
            raise IdentityError(f"{self.source(key)} is not a valid value: it must be non-empty text")
        if problem := bad_character(value):
            raise IdentityError(f"{self.source(key)} is not a valid value: {problem}")
        return value

    def url(self, key: str) -> str:
        value = self.text(key)
        if problem := url_problem(value):
            raise IdentityError(f"{self.source(key)} is not a valid URL: {problem}")
        return normal_url(value)

    def date(self, key: str) -> str:
        value = self.text(key)
        try:
            valid = re.fullmatch(r"\d{4}-\d\d-\d\d", value) and datetime.date.fromisoformat(value)
        except ValueError:
            valid = False
        if not valid:
            raise IdentityError(f"{self.source(key)} is not a valid date: it must be a day, YYYY-MM-DD")
        return value

    def version(self, key: str) -> str:
        value = self.text(key)
        if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.+!_-]*", value):
            raise IdentityError(f"{self.source(key)} is not a valid version: letters, digits and . + ! _ - only")
        return value

    def link_pattern(self, key: str, repository: str) -> str:
        """The source_link format string: every field it names is known, and what it makes is a URL."""
        value = self.text(key)
        try:
            example = value.format(repository=repository, version="0.0.0", path="mha_ref/x.py", line=1)
        except (KeyError, IndexError, ValueError) as e:
            raise IdentityError(f"{self.source(key)} is not a valid link pattern: its fields are "
                                f"{', '.join('{' + f + '}' for f in SOURCE_LINK_FIELDS)} ({type(e).__name__}: {e})") from None
        if problem := url_problem(example):
            raise IdentityError(f"{self.source(key)} is not a valid link pattern: it makes {example!r}, and {problem}")
        return value


def _site_url(own: _Table, environ: Mapping[str, str]) -> str:
    """MHA_SITE_URL if set, else pyproject's site_url: checked, ending in "/"."""
    env = environ.get(SITE_URL_ENV)
    value, source = (env, f"{SITE_URL_ENV}={env!r}") if env else (own.text("site_url"), own.source("site_url"))
    if problem := url_problem(value, page_base=True):
        raise IdentityError(f"{source} is not a valid site URL: {problem}")
    value = normal_url(value)
    return value if value.endswith("/") else value + "/"


# ---- a placeholder address ----------------------------------------------------------------------
# pyproject.toml ships with an address under a name reserved for examples (RFC 2606, RFC 6761):
# no such site can exist, so a page, citation or figure naming it sends a reader nowhere.

RESERVED_NAMES = ("example.com", "example.net", "example.org")
RESERVED_TOP_LEVEL = ("example", "test", "invalid")
REQUIRE_SITE_URL_ENV = "MHA_REQUIRE_SITE_URL"  # a switch, off unless set (1): a placeholder site_url stops the build


def is_placeholder(url: str) -> bool:
    """Whether `url`'s host is a name reserved for examples, which no real site can have."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    return (host.rsplit(".", 1)[-1] in RESERVED_TOP_LEVEL
            or any(host == name or host.endswith("." + name) for name in RESERVED_NAMES))


def placeholder_notice(site_url: str) -> str | None:
    """One line saying that `site_url` is a placeholder and where to set the real one; None when it
    is not a placeholder."""
    if not is_placeholder(site_url):
        return None
    source = f"{SITE_URL_ENV}={site_url!r}" if os.environ.get(SITE_URL_ENV) else \
        f"pyproject.toml [tool.mha-explained] site_url = {site_url!r}"
    return (f"{source} is a placeholder (a name reserved for examples): the citations, sitemap.xml, the pages' hreflang links and "
            f"the figures' attribution name an address no reader can reach; set the site's real address "
            f"there, or in {SITE_URL_ENV} for one build")


def require_real_site_url() -> bool:
    """Whether this build must have a real address (a publishing workflow sets REQUIRE_SITE_URL_ENV)."""
    return switches.env_switch(REQUIRE_SITE_URL_ENV, False)


def _tables(pyproject: Path) -> tuple[_Table, _Table]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IdentityError(f"{pyproject}: no such file, and it holds the site's identity ([tool.mha-explained]): "
                            "build the site in the folder of its mkdocs.yml and pyproject.toml") from None
    except tomllib.TOMLDecodeError as e:
        raise IdentityError(f"{pyproject}: not valid TOML: {e}") from None
    for name in ("project", "tool.mha-explained"):
        table = data
        for part in name.split("."):
            table = table.get(part) if isinstance(table, dict) else None
        if not isinstance(table, dict):
            raise IdentityError(f"{pyproject.name} has no [{name}] table, which holds the site's identity")
    return (_Table(data["project"], f"{pyproject.name} [project]"),
            _Table(data["tool"]["mha-explained"], f"{pyproject.name} [tool.mha-explained]"))


def _authors(project: _Table) -> tuple[str, ...]:
    authors = project.data.get("authors")
    if not isinstance(authors, list) or not authors:
        raise IdentityError(f"{project.where} authors must be a list of {{name = \"...\"}} tables, not {authors!r}")
    names = []
    for i, author in enumerate(authors):
        if not isinstance(author, dict):
            raise IdentityError(f"{project.where} authors[{i}] = {author!r} is not a {{name = \"...\"}} table")
        names.append(_Table(author, f"{project.where} authors[{i}]").text("name"))
    return tuple(names)


def release_version_problem(version: str) -> str | None:
    """Why `version` cannot be a release's (its folder on the Pages branch, its tag v<version>), in
    words that end a sentence; None when it is a plain X.Y.Z."""
    if RELEASE_VERSION.fullmatch(version):
        return None
    return ("a release's version is three numbers, X.Y.Z (1.2.0): it names the release's folder on the "
            f"Pages branch, where {LATEST!r} is the newest release's alias and versions.json mike's list")


def _release(version: str, pyproject: Path, environ: Mapping[str, str]) -> str | None:
    """The version this build releases: mike's (RELEASE_ENV), which must be pyproject's, the one
    place a version is set, and a plain X.Y.Z; None when the build is not run by `mike deploy`."""
    deployed = environ.get(RELEASE_ENV, "").strip()
    if not deployed:
        return None
    if deployed != version:
        raise IdentityError(f"{RELEASE_ENV}={deployed!r} (mike deploy's version) is not {pyproject.name} [project] "
                            f"version = {version!r}: a release is deployed under the version it says it is "
                            f"(python -m figures.site.release reads it from {pyproject.name})")
    if problem := release_version_problem(version):
        raise IdentityError(f"{pyproject.name} [project] version = {version!r} cannot be released: {problem}")
    return version


def load(pyproject: Path = PYPROJECT, environ: Mapping[str, str] = os.environ) -> Identity:
    """The identity a build has: pyproject's, with MHA_SITE_URL and mike's version from `environ`
    (`environ={}`: what pyproject.toml alone says, as CITATION.cff repeats it)."""
    project, own = _tables(pyproject)
    repository = own.url("repository").rstrip("/")
    version = project.version("version")
    release, home = _release(version, pyproject, environ), _site_url(own, environ)
    return Identity(
        title={"zh": own.text("title_zh"), "en": own.text("title_en")},
        authors=_authors(project),
        version=version,
        release_date=own.date("release_date"),
        site_url=home + f"{release}/" if release else home,
        repository=repository,
        source_link=own.link_pattern("source_link", repository),
        code_licence=project.text("license"),
        code_licence_url=own.url("code_licence_url"),
        content_licence=own.text("content_licence"),
        content_licence_url=own.url("content_licence_url"),
        release=release,
        home_url=home,
    )


IDENTITY = load()
