"""The languages of the site, and the helpers every figure's words pass through."""

from __future__ import annotations



LANGS = ("zh", "en")


# How a figure is named before its number, on pages, in captions and inside downloads.
FIGURE_LABEL = {"zh": "图 {}", "en": "Figure {}"}


def offset_text(offset: int, tied: bool, lang: str) -> str:
    """A head's most frequent offset as a table prints it: "+1", "0", "-2", or "tied" when another
    offset is as frequent (naming one would suggest it stands out)."""
    if tied:
        return pick(lang, "并列", "tied")
    return f"{offset:+d}" if offset else "0"


def pick(lang: str, zh: str, en: str) -> str:
    """The text for a language; every figure's words pass through here."""
    if lang == "zh":
        return zh
    if lang == "en":
        return en
    raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")


def plural(n: int, noun: str, many: str | None = None) -> str:
    """'1 head', '8 heads', '1 column': an English count with its noun (Chinese needs none)."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"
