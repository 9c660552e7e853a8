"""The constructs a page may use, and how each is found in a page's Markdown.

    {{ figure ID }}            on a line of its own: the figure, its frames, number and caption; the
                               number is site-wide (figures/publish/numbering.py) and, on a page that
                               reuses the figure, links back to the page that explains it
    {{ figure ID start=VALUE }} the same, opening on another frame (VALUE: a control value, or its file name, e.g. h2)
    {{ value NAME }}           a number computed by mha_ref (mha_ref.quantities), e.g.
    {{ value NAME .2f }}       with a Python format spec
    {{ value NAME .2f up }}    rounded up (or `down`) at the spec's precision, exactly: next to a bound
                               word ("at most", "不低于", ...) the rounding must keep the bound true
                               (bounds.py); with no bound word next to it, refused
    {{ gallery }}              on a line of its own: every registered figure, in number order, as a
                               card: its start frame, number, id, caption, the page that explains
                               it, its downloads
    {{ references }}           on a line of its own: every cited work (mha_ref.models.REFERENCES),
                               each with the anchor #KEY that pages link to
    {{ screen "TEXT" print "TEXT" }}  inline: words that only make sense on screen ("drag the slider")
                               and what print says instead (what the frames show); both are in the
                               page, CSS shows one (docs/assets/mha-print.css)
    {{ table NAME }}           on a line of its own: a table of published data from mha_ref.models
                               (published-models, head-count), with its source linked, or toy-head-roles
                               (the running example's heads measured as Voita et al. do, mha_ref.roles),
                               or the reference page's notation, shapes and costs (figures/site/cheatsheet.py)

Inside fenced code blocks (``` or ~~~) and `code spans` nothing is expanded: that is how a page
writes a construct, or a literal {{, as it is.

This module is the language itself: what each construct looks like, where code begins and ends,
and the two expansions that need nothing from the site: numbers ({{ value }}, from
mha_ref.quantities) and screen/print words. Captions, downloads and pages all share it; how a
figure or a table becomes HTML is the site's (figures/site/markup.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mha_ref import quantities

from . import bounds


FIGURE = re.compile(r"^[ \t]*\{\{\s*figure\s+(?P<id>[^\s}]+)(?P<opts>(?:\s+\w+=[^\s}]+)*)\s*\}\}[ \t]*$", re.M)


VALUE = re.compile(r"\{\{\s*value\s+(?P<name>[^\s}]+)(?:\s+(?P<spec>(?!(?:up|down)\b)[^\s}]+))?"
                   r"(?:\s+(?P<direction>up|down))?\s*\}\}")


REFERENCES = re.compile(r"^[ \t]*\{\{\s*references\s*\}\}[ \t]*$", re.M)


# no nested construct inside: the two texts are plain Markdown
MEDIA = re.compile(r'\{\{\s*screen\s+"(?P<screen>[^"{}]*)"\s+print\s+"(?P<print>[^"{}]*)"\s*\}\}')


GALLERY = re.compile(r"^[ \t]*\{\{\s*gallery\s*\}\}[ \t]*$", re.M)


TABLE = re.compile(r"^[ \t]*\{\{\s*table\s+(?P<name>[^\s}]+)\s*\}\}[ \t]*$", re.M)


LEFTOVER = re.compile(r"\{\{.{0,40}")


# a fence opens a code block on a line of its own (a ``` fence's info string has no backquote)
FENCE = re.compile(r"[ \t]*(`{3,}(?=[^`]*$)|~{3,})")


# a run of backquotes, then the shortest text up to a run of the same length, within a paragraph
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?(?<!`)\1(?!`)")


class MarkupError(ValueError):
    """A construct names something that does not exist; the message says what and where."""


def _code(text: str) -> list[tuple[int, int]]:
    """Where text is code, as (start, end) offsets: fenced blocks, then code spans between them."""
    blocks, pos, opened = [], 0, None  # opened: (fence, start) of the block being read
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if opened is None and m:
            opened = (m[1], pos)
        elif opened and m and m[1][0] == opened[0][0] and len(m[1]) >= len(opened[0]) and not line[m.end():].strip():
            blocks.append((opened[1], pos + len(line.rstrip("\r\n"))))
            opened = None
        pos += len(line)
    if opened:  # an unclosed fence runs to the end
        blocks.append((opened[1], len(text)))
    spans, prose_start = [], 0
    for start, end in [*blocks, (len(text), len(text))]:
        spans += [m.span() for m in CODE_SPAN.finditer(text, prose_start, start)]
        spans.append((start, end))
        prose_start = end
    return spans


def outside_code(pattern: re.Pattern, text: str) -> list[re.Match]:
    """pattern's matches that do not start inside code."""
    code = _code(text)
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in code)]


def replace_outside_code(pattern: re.Pattern, replace: Callable[[re.Match], str], text: str) -> str:
    """pattern.sub, leaving matches inside code as written."""
    keep = {m.start() for m in pattern.finditer(text)} - {m.start() for m in outside_code(pattern, text)}
    return pattern.sub(lambda m: m[0] if m.start() in keep else replace(m), text)


def format_value(v, spec: str | None, direction: str | None = None) -> str:
    """v as the page prints it: to the nearest, or up/down at the spec's precision."""
    if spec is None:
        spec = "," if isinstance(v, int) else ".2f"
    try:
        return format(v if direction is None else bounds.rounded(v, spec, direction), spec)
    except ValueError as e:
        raise MarkupError(f"format spec {spec!r} does not fit the value {v!r}: {e}") from None


def _printed(m: re.Match, where: str) -> tuple[float | int, str]:
    """One value construct: the unrounded number and the text printed for it."""
    try:
        v = quantities.value(m["name"])
    except quantities.UnknownValue as e:
        raise MarkupError(f"{where}: {e.args[0]}") from None
    except Exception as e:  # a KeyError here is a bug in the computation, not a misspelt name
        raise MarkupError(f"{where}: the value {m['name']!r} failed: {type(e).__name__}: {e}") from e
    return v, format_value(v, m["spec"], m["direction"])


def bound_problems(text: str, where: str) -> list[str]:
    """Every value construct of `text` that breaks the bound rule (bounds.problem), as messages."""
    found = []
    for m in outside_code(VALUE, text):
        v, printed = _printed(m, where)
        bound = bounds.bound_word(text[:m.start()], text[m.end():])
        message = bounds.problem(bound, m["name"], v, printed, m["direction"], where, m["spec"] or ".2f")
        if message:
            found.append(message)
    return found


def expand_values(text: str, where: str) -> str:
    problems = bound_problems(text, where)
    if problems:
        raise MarkupError("\n".join(problems))
    return replace_outside_code(VALUE, lambda m: _printed(m, where)[1], text)


def expand_media(text: str, only: str | None = None) -> str:
    """Each screen/print construct as two spans, one shown on screen and one in print; with
    `only` ("screen" or "print"), just that text (an image's alt text has no media)."""
    def spans(m: re.Match) -> str:
        if only:
            return m[only]
        return f'<span class="mha-screen-only">{m["screen"]}</span><span class="mha-print-only">{m["print"]}</span>'
    return replace_outside_code(MEDIA, spans, text)


def plain(markdown_text: str, media: str = "screen") -> str:
    """Caption text as plain words (an image's alt attribute, a download's title): the `media`
    wording of {{ screen … print … }}, no Markdown marks or attribute lists, no TeX commands."""
    text = expand_media(markdown_text, only=media)
    text = re.sub(r"\\(?:text|mathrm)\{([^}]*)\}", r"\1", text)
    text = text.replace("\\times", "×").replace("\\cdot", "·")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its words
    return re.sub(r"[`*$\\]|\{:[^}]*\}", "", text)


def first_sentence(text: str) -> str:
    """The first sentence of plain text (a caption's title): an image's short alt text, a download's title."""
    m = re.match(r"(.+?[。！？]|.+?[.!?](?=\s|$))", text.strip(), re.S)
    return " ".join((m[1] if m else text).split())
