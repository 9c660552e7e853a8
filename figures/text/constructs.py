"""The constructs a page may use, and how each is found in a page's Markdown.

    {{ figure ID }}            on a line of its own: the figure, its frames, number and caption; the
                               number is site-wide (figures/publish/numbering.py) and, on a page that
                               reuses the figure, links back to the page that explains it
    {{ figure ID start=VALUE }} the same, opening on another frame (VALUE: a control value, or its file name, e.g. h2)
    {{ value NAME }}           a number computed by mha_ref (figures.numbers.quantities), e.g.
    {{ value NAME .2f }}       with a Python format spec
    {{ value NAME .2f up }}    rounded up (or `down`) at the spec's precision, exactly: next to a bound
                               word ("at most", "不低于", ...) the rounding must keep the bound true
                               (bounds.py); with no bound word next to it, refused
    {{ gallery }}              on a line of its own: every registered figure, in number order, as a
                               card: its start frame, number, id, caption, the page that explains
                               it, its downloads
    {{ contents }}             on a line of its own: the numbered pages (figures/publish/contents.py),
                               each with its number, linked title and reading time (reading.py)
    {{ references }}           on a line of its own: every cited work (mha_ref.models.REFERENCES),
                               each with the anchor #KEY that pages link to
    {{ screen "TEXT" print "TEXT" }}  inline: words that only make sense on screen ("drag the slider")
                               and what print says instead (what the frames show); both are in the
                               page, CSS shows one (docs/assets/mha-print.css)
    {{ table NAME }}           on a line of its own: a table of published data from mha_ref.models
                               (published-models, head-count), with its source linked, or toy-head-roles
                               (the running example's heads measured as Voita et al. do, mha_ref.roles),
                               or the reference page's notation, shapes and costs (figures/site/cheatsheet.py)

Inside code nothing is expanded: fenced blocks (``` or ~~~), blocks indented by four spaces (as
Python-Markdown tells them from the content of a list item, an admonition or a ??? details block,
which is indented as much) and `code spans`. That is how a page writes a construct, or a literal
{{, as it is.

An error names the file and line of the construct (Located): a page's line, or for a caption the
line of its figure module.

This module is the language itself: what each construct looks like (where code begins and ends,
so that a construct in code is left alone, is markdown_code.py's), and the two expansions that need nothing from the site: numbers ({{ value }}, from
figures.numbers.quantities) and screen/print words. Captions, downloads and pages all share it; how a
figure or a table becomes HTML is the site's (figures/site/markup.py).
"""

from __future__ import annotations

import ast
import bisect
import functools
import io
import re
import tokenize
from collections.abc import Callable
from pathlib import Path

from ..numbers import quantities

from . import bounds, maths
from .markdown_code import outside_code


FIGURE = re.compile(r"^[ \t]*\{\{\s*figure\s+(?P<id>[^\s}]+)(?P<opts>(?:\s+\w+=[^\s}]+)*)\s*\}\}[ \t]*$", re.M)


VALUE = re.compile(r"\{\{\s*value\s+(?P<name>[^\s}]+)(?:\s+(?P<spec>(?!(?:up|down)\b)[^\s}]+))?"
                   r"(?:\s+(?P<direction>up|down))?\s*\}\}")


REFERENCES = re.compile(r"^[ \t]*\{\{\s*references\s*\}\}[ \t]*$", re.M)


# no nested construct inside: the two texts are plain Markdown
MEDIA = re.compile(r'\{\{\s*screen\s+"(?P<screen>[^"{}]*)"\s+print\s+"(?P<print>[^"{}]*)"\s*\}\}')


GALLERY = re.compile(r"^[ \t]*\{\{\s*gallery\s*\}\}[ \t]*$", re.M)


CONTENTS = re.compile(r"^[ \t]*\{\{\s*contents\s*\}\}[ \t]*$", re.M)


TABLE = re.compile(r"^[ \t]*\{\{\s*table\s+(?P<name>[^\s}]+)\s*\}\}[ \t]*$", re.M)


LEFTOVER = re.compile(r"\{\{.{0,40}")


class MarkupError(ValueError):
    """A construct names something that does not exist; the message says what and where."""


class Located:
    """A text with where it was written: `where(offset)` is "FILE:LINE" (then ": WHAT", if given)
    for any offset of the text, also after `replace` has made it longer or shorter.

    anchors: (offset, line) pairs in offset order, each saying that the text from that offset on
    was written on that line; by default every line of the text, counted from `first_line` (a
    page). An expansion keeps the line of its construct.
    """

    def __init__(self, text: str, file: str, anchors: list[tuple[int, int]] | None = None, what: str = "",
                 first_line: int = 1):
        self.text, self.file, self.what = text, file, what
        self.anchors = anchors if anchors is not None else \
            [(m.start(), n) for n, m in enumerate(re.finditer(r"^", text, re.M), first_line)]

    def line(self, offset: int) -> int | None:
        i = bisect.bisect_right(self.anchors, (offset, float("inf"))) - 1
        return self.anchors[i][1] if i >= 0 else None

    def where(self, offset: int) -> str:
        line = self.line(offset)
        return self.file + (f":{line}" if line is not None else "") + (f": {self.what}" if self.what else "")

    def replace(self, pattern: re.Pattern, replace: Callable[[re.Match, str], str]) -> Located:
        """pattern.sub outside code, as replace_outside_code; replace(match, where) also gets where
        the match was written, to name it in an error."""
        old, out, anchors, pos, length, k = self.anchors, [], [], 0, 0, 0
        for m in outside_code(pattern, self.text):
            new = replace(m, self.where(m.start()))
            while k < len(old) and old[k][0] <= m.start():  # up to the construct: moved
                anchors.append((old[k][0] - pos + length, old[k][1]))
                k += 1
            while k < len(old) and old[k][0] < m.end():  # inside it: gone with it
                k += 1
            out += [self.text[pos:m.start()], new]
            length += m.start() - pos + len(new)
            last = self.line(m.end())  # a construct over two lines: what follows it is on the second
            if last != self.line(m.start()) and not (k < len(old) and old[k][0] == m.end()):
                anchors.append((length, last))
            pos = m.end()
        anchors += [(offset - pos + length, line) for offset, line in old[k:]]
        return Located("".join(out) + self.text[pos:], self.file, anchors, self.what)


def python_constant(text: str, path: str | Path | None, name: str, file: str, what: str = "") -> Located:
    """`text`, the value of the module-level string constant `name` of the Python file at `path`
    (named `file` in errors), anchored at the line of each string literal it is written as. Text
    that is not those literals joined (built some other way, or changed since) is anchored at the
    line of the assignment, or at none if there is no assignment (or no file)."""
    assignment = _assignment(str(path), name) if path else None
    if assignment is None:
        return Located(text, file, [], what)
    line, literals = assignment
    if "".join(value for value, _ in literals) != text:
        return Located(text, file, [(0, line)], what)
    anchors, offset = [], 0
    for value, line in literals:
        anchors += [(offset, line)] + [(offset + m.end(), line + n) for n, m in enumerate(re.finditer("\n", value), 1)]
        offset += len(value)
    return Located(text, file, anchors, what)


def _assigned(tree: ast.Module, name: str) -> ast.stmt | None:
    """The statement that assigns `name` at a module's top level, or None."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node
    return None


@functools.cache
def _assignment(path: str, name: str) -> tuple[int, tuple[tuple[str, int], ...]] | None:
    """Where a module assigns `name` at its top level: the line, and the string literals whose
    concatenation it assigns, each with the line it starts on (none if it is not such literals)."""
    try:
        source = Path(path).read_text(encoding="utf-8")
        node = _assigned(ast.parse(source), name)
    except (OSError, UnicodeDecodeError, SyntaxError):  # the module came from elsewhere
        return None
    if node is None or node.value is None:
        return None
    value = node.value
    start, end = (value.lineno, value.col_offset), (value.end_lineno, value.end_col_offset)
    literals = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.start >= end:
            break
        if token.type == tokenize.STRING and token.start >= start:
            try:
                literals.append((ast.literal_eval(token.string), token.start[0]))
            except ValueError:  # an f-string
                return node.lineno, ()
    return node.lineno, tuple(literals) if all(isinstance(v, str) for v, _ in literals) else ()


def replace_outside_code(pattern: re.Pattern, replace: Callable[[re.Match], str], text: str) -> str:
    """pattern.sub, leaving matches inside code as written."""
    return Located(text, "").replace(pattern, lambda m, where: replace(m)).text


# A printed number's spec asks for at most this wide a field and this many digits after the point
# (a float has about 17 significant digits): `{{ value x .10000000f }}` would print a page of
# ten million characters.
SPEC_WIDTH, SPEC_PRECISION = 40, 17
_SPEC_NUMBERS = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d+))?")


def format_value(v, spec: str | None, direction: str | None = None) -> str:
    """v as the page prints it: to the nearest, or up/down at the spec's precision."""
    if spec is None:
        spec = "," if isinstance(v, int) else ".2f"
    m = _SPEC_NUMBERS.match(spec)
    for what, text, most in (("width", m["width"], SPEC_WIDTH), ("precision", m["precision"], SPEC_PRECISION)):
        if text and int(text) > most:
            raise MarkupError(f"format spec {spec[:20] + '...' if len(spec) > 20 else spec!r}: a {what} of "
                              f"{int(text) if len(text) < 12 else 'more than 10^11'}, where at most {most} is printed")
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
    try:
        return v, format_value(v, m["spec"], m["direction"])
    except MarkupError as e:
        raise MarkupError(f"{where}: value {m['name']!r}: {e}") from None


def bound_problems(text: str | Located, where: str = "") -> list[str]:
    """Every value construct of `text` that breaks the bound rule (bounds.problem), as messages;
    a str is a page written in the file `where`."""
    text = Located(text, where) if isinstance(text, str) else text
    found = []
    for m in outside_code(VALUE, text.text):
        at = text.where(m.start())
        v, printed = _printed(m, at)
        bound = bounds.bound_word(text.text[:m.start()], text.text[m.end():])
        message = bounds.problem(bound, m["name"], v, printed, m["direction"], at, m["spec"] or ".2f")
        if message:
            found.append(message)
    return found


# what makes a line a list item when a number starts it: "12. " (Python-Markdown's ordered list)
LIST_AFTER_NUMBER = re.compile(r"[.)](?=[ \t]|$)", re.M)


def _printed_in_place(m: re.Match, where: str) -> str:
    """The text printed for a value construct where it stands: a number that starts a line (or a
    quoted line) and is followed by ". " gets its dot escaped, or Markdown would read the line as a
    numbered list item (and drop the number)."""
    printed = _printed(m, where)[1]
    line = m.string[m.string.rfind("\n", 0, m.start()) + 1:m.start()]
    if not line.strip(" \t>") and LIST_AFTER_NUMBER.match(m.string, m.end()):  # ">": a quote
        printed += "\\"
    return printed


def expand_values(text: Located) -> Located:
    problems = bound_problems(text)
    if problems:
        raise MarkupError("\n".join(problems))
    return text.replace(VALUE, _printed_in_place)


def expand_media(text: str | Located, only: str | None = None) -> str | Located:
    """Each screen/print construct as two spans, one shown on screen and one in print; with
    `only` ("screen" or "print"), just that text (an image's alt text has no media). A Located
    text comes back Located."""
    def spans(m: re.Match, where: str = "") -> str:
        if only:
            return m[only]
        # search indexes the screen's words only (Material skips data-search-exclude): the two texts
        # joined read as one run-on sentence in a search result
        return (f'<span class="mha-screen-only">{m["screen"]}</span>'
                f'<span class="mha-print-only" data-search-exclude>{m["print"]}</span>')
    if isinstance(text, Located):
        return text.replace(MEDIA, spans)
    return replace_outside_code(MEDIA, spans, text)


def unmarked(text: str) -> str:
    """Markdown without its marks: a link keeps its words; no emphasis, code marks or attribute lists."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[`*]|\{:[^}]*\}", "", text)


def plain(markdown_text: str, media: str = "screen") -> str:
    """Caption text as plain words (an image's alt attribute, a download's title): the `media`
    wording of {{ screen … print … }}, no Markdown marks or attribute lists, maths as Unicode text
    (maths.py)."""
    return unmarked(maths.inline(expand_media(markdown_text, only=media))).replace("\\$", "$")


def first_sentence(text: str) -> str:
    """The first sentence of plain text (a caption's title): an image's short alt text, a download's title."""
    m = re.match(r"(.+?[。！？]|.+?(?<!\bet al)(?<!\be\.g)(?<!\bi\.e)[.!?](?=\s|$))", text.strip(), re.S)  # "et al." ends no sentence
    return " ".join((m[1] if m else text).split())
