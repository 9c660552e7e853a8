"""Addresses written out in a page's text wrap only where a reader expects a line to break: after
a "/", or before a "?" or "#"; never inside the host, where a browser breaks after a hyphen
("https://mha-" / "explained.example.org/"). Each piece between those places is kept whole
(`.mha-url > span`, white-space: nowrap in mha-figures.css) and a <wbr> stands between pieces,
so the text a reader selects or copies is the address unchanged."""

from __future__ import annotations

import re

TAGS = re.compile(r"(<[^>]*>)")
URL = re.compile(r"https?://[^\s<>\"'&]*[^\s<>\"'&.,;:!?)\]]")  # a sentence's full stop is not the address's
PIECE = re.compile(r"[?#]?[^/?#]*/*")
RAW = re.compile(r"<(script|style)\b", re.I)


def pieces(url: str) -> list[str]:
    """"https://host/en/page/#id" -> ["https://", "host/", "en/", "page/", "#id"]."""
    return [p for p in PIECE.findall(url) if p]


def breakable(url: str) -> str:
    return '<span class="mha-url">' + "<wbr>".join(f"<span>{p}</span>" for p in pieces(url)) + "</span>"


def with_breakable_urls(html: str) -> str:
    """The page's HTML with every address in its text (not in a tag, a script or a style) made breakable."""
    out, raw = [], None
    for chunk in TAGS.split(html):
        if chunk.startswith("<"):
            if raw is None and (m := RAW.match(chunk)):
                raw = m[1].lower()
            elif raw is not None and chunk.lower().startswith(f"</{raw}"):
                raw = None
            out.append(chunk)
        else:
            out.append(chunk if raw else URL.sub(lambda m: breakable(m[0]), chunk))
    return "".join(out)
