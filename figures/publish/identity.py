"""Who the site is and how it may be reused: read from pyproject.toml, the one place that holds it.

Pages (citations, footer, meta tags), figure metadata and the figure CLI all read IDENTITY, so a
new version, host or author is set once ([project] and [tool.mha-explained] in pyproject.toml).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@dataclass(frozen=True)
class Identity:
    title: dict[str, str]  # by language: {"zh": ..., "en": ...}
    authors: tuple[str, ...]
    version: str
    release_date: str  # YYYY-MM-DD
    site_url: str  # ends with "/"
    repository: str
    source_link: str  # format string with {repository}, {version}, {path}, {line}
    code_licence: str  # SPDX id
    code_licence_url: str
    content_licence: str  # SPDX id
    content_licence_url: str

    def source_url(self, path: str, line: int = 1) -> str:
        """A line of a file of this repository (path relative to its root), at this version."""
        return self.source_link.format(repository=self.repository, version=self.version, path=path, line=line)


SITE_URL_ENV = "MHA_SITE_URL"  # the address a build is published at, when not pyproject's (a Pages workflow)


def load(pyproject: Path = PYPROJECT) -> Identity:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    project, own = data["project"], data["tool"]["mha-explained"]
    site_url = os.environ.get(SITE_URL_ENV) or own["site_url"]
    if not site_url.startswith(("https://", "http://")):
        raise ValueError(f"{SITE_URL_ENV} or [tool.mha-explained] site_url must be a full http(s) URL, not {site_url!r}")
    site_url = site_url if site_url.endswith("/") else site_url + "/"
    return Identity(
        title={"zh": own["title_zh"], "en": own["title_en"]},
        authors=tuple(a["name"] for a in project["authors"]),
        version=project["version"],
        release_date=own["release_date"],
        site_url=site_url,
        repository=own["repository"].rstrip("/"),
        source_link=own["source_link"],
        code_licence=project["license"],
        code_licence_url=own["code_licence_url"],
        content_licence=own["content_licence"],
        content_licence_url=own["content_licence_url"],
    )


IDENTITY = load()
