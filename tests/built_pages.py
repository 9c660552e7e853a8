"""The built site's pages parsed once per session. Parsing (BeautifulSoup's html.parser) was most of
the time the tests of the built site took: they read the same 25 pages about 800 times. A parsed
page is shared: read it, never change it (parse a copy of your own for that)."""

import functools
from pathlib import Path

from bs4 import BeautifulSoup


def parsed(path: Path) -> BeautifulSoup:
    """The HTML file at path, parsed (again only if the file changed since)."""
    path = Path(path).resolve()
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=None)
def _parsed(path: Path, mtime_ns: int, size: int) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
