"""Where code begins and ends in a page's Markdown, as Python-Markdown reads it: fenced blocks,
indented blocks (not under a list item, an admonition or a details block) and code spans. A
construct ({{ ... }}, figures/text/constructs.py) inside code is left as written, never read.
"""

from __future__ import annotations

import itertools
import re


# a fence opens a code block on a line of its own (a ``` fence's info string has no backquote)
FENCE = re.compile(r"[ \t]*(`{3,}(?=[^`]*$)|~{3,})")


# a run of backquotes, then the shortest text up to a run of the same length, within a paragraph
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?(?<!`)\1(?!`)")


# What Python-Markdown indents its content under, so that an indented block after it is that content
# and not code: a list item (its ulist and olist processors), an admonition (!!!) or a details block
# (???, ???+); a block that is a horizontal rule is no list however it starts.
LIST_ITEM = re.compile(r" {0,3}(?:[*+-]|\d+\.) +")
CONTAINER = re.compile(r"(?:!!!|\?\?\?\+?) ?[\w-]")
RULE = re.compile(r" {0,3}([-*_])(?: {0,2}\1){2,} *$")
INDENT = " " * 4  # Python-Markdown's tab_length


def _lines(text: str) -> list[str]:
    """text's lines with their ends; only "\\n" ends a line, as in Python-Markdown and in an editor."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def _fences(lines: list[str]) -> tuple[list[tuple[int, int]], int | None]:
    """Fenced code blocks as [first, end) line indexes, the fences included; and the index of the
    line where a fence opened that is never closed (its block runs to the end), or None."""
    blocks, opened = [], None  # opened: (fence, line index) of the block being read
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if opened is None and m:
            opened = (m[1], i)
        elif opened and m and m[1][0] == opened[0][0] and len(m[1]) >= len(opened[0]) and not line[m.end():].strip():
            blocks.append((opened[1], i + 1))
            opened = None
    if opened:
        blocks.append((opened[1], len(lines)))
    return blocks, None if opened is None else opened[1]


def _blocks(rows: list[tuple[int, str]], fenced: set[int]) -> list[list[tuple[int, str]]]:
    """rows (line index, text) cut into Markdown blocks at blank lines; a fenced block's blank lines cut nothing."""
    blocks, block = [], []
    for i, line in rows:
        if line.strip() or i in fenced:
            block.append((i, line))
        elif block:
            blocks.append(block)
            block = []
    return blocks + [block] * bool(block)


def _dedent(line: str) -> str:
    line = line.expandtabs(4)
    return line[len(INDENT):] if line.startswith(INDENT) else line.lstrip(" ")


def _opens_container(block: list[tuple[int, str]], fenced: set[int]) -> bool:
    head = block[0][1].expandtabs(4)
    return bool(LIST_ITEM.match(head) and not RULE.match(head)) or \
        any(CONTAINER.match(line) for i, line in block if i not in fenced)


def _indented_code(rows: list[tuple[int, str]], fenced: set[int], after: str = "start") -> set[int]:
    """The line indexes of rows that are indented code blocks, as Python-Markdown decides: a block
    indented by four spaces (a tab counts four), unless the block before it is a list item, an
    admonition or a details block (or their content), which it then continues; inside those, the
    content unindented by four spaces follows the same rule. `after`: what came before the rows,
    "start", "other" or "container"."""
    code, content, opener = set(), [], "other"
    for block in _blocks(rows, fenced) + [[(-1, "end")]]:
        if block[0][1].expandtabs(4).startswith(INDENT):
            if after == "container":
                content += block
            else:
                code.update(i for i, _ in block)
                after = "code"
            continue
        if content:  # the container's content, itself a page in small
            first, last = content[0][0], content[-1][0]
            inner = [(i, _dedent(line)) for i, line in rows if first <= i <= last]
            code |= _indented_code(inner, fenced, opener)
            content = []
        after = "container" if _opens_container(block, fenced) else "other"
        # what the container's content continues: the item's own text, or a list nested in it
        opener = "container" if any(LIST_ITEM.match(_dedent(line)) for _, line in block[1:]) else "other"
    return code


def _code(text: str) -> list[tuple[int, int]]:
    """Where text is code, as (start, end) offsets: fenced and indented blocks, then code spans between them."""
    lines = _lines(text)
    starts = [0, *itertools.accumulate(map(len, lines))]
    fences, _ = _fences(lines)
    fenced = {i for a, b in fences for i in range(a, b)}
    indented = _indented_code(list(enumerate(lines)), fenced)
    blocks = [(starts[a], starts[b]) for a, b in fences]
    blocks += [(starts[i], starts[i + 1]) for i in sorted(indented)]
    spans, prose_start = [], 0
    for start, end in [*sorted(blocks), (len(text), len(text))]:
        spans += [m.span() for m in CODE_SPAN.finditer(text, prose_start, start)]
        spans.append((start, end))
        prose_start = max(prose_start, end)
    return spans


def unclosed_fence(text: str) -> int | None:
    """The offset of the line where a code fence opens that is never closed, or None: Markdown
    would make the rest of the page code, and whatever a build appends to it."""
    lines = _lines(text)
    _, opened = _fences(lines)
    return None if opened is None else sum(map(len, lines[:opened]))


def outside_code(pattern: re.Pattern, text: str) -> list[re.Match]:
    """pattern's matches that do not start inside code."""
    code = _code(text)
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in code)]
