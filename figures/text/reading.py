"""How long a page takes to read, from what its Markdown says: the home page's "where to start".

The count is made on the English twin of each page and shown in both languages (the twins say the
same things): its words at 238 a minute, the mean silent-reading rate of adults for non-fiction in
Brysbaert, "How many words do we read per minute?", Journal of Memory and Language 109, 2019,
104047. A Chinese rate measured the same way (silent, non-fiction) is not one this site can cite;
the published Chinese rate at hand (IReST, 2012) is for reading aloud, and a time at one rate on
one page beside a time at the other on its twin would compare unlike things. The page prints no
rate: the minutes are a rough guide.

Han characters that an English page quotes (a term's Chinese name) count at 255 a minute, IReST's
rate, so that a page of Chinese alone still gets a time. What is counted is what a reader reads:
the text, code, exercises and their answers, and each figure's caption; not link targets, heading
ids, attribute lists or HTML tags. A formula counts as one word, a printed number as one word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .constructs import FIGURE, MEDIA, VALUE
from .markdown_code import outside_code

HAN_PER_MINUTE = 255   # IReST (2012), Chinese read aloud: only for Han characters an English page quotes
WORDS_PER_MINUTE = 238  # Brysbaert (2019), English non-fiction, silent

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"[A-Za-z0-9]+(?:['’._-][A-Za-z0-9]+)*")
BLOCK = re.compile(r"^[ \t]*\{\{\s*\w+(?:\s+[^\s}]+)?\s*\}\}[ \t]*$", re.M)  # table, gallery, ...: no prose
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
MARKUP = re.compile(r"\]\([^)\n]*\)|\{[#:.][^}\n]*\}|</?[A-Za-z][^<>\n]*>")  # link targets, ids and attribute lists, tags


def readable(markdown: str, caption: Callable[[str], str]) -> str:
    """The page's words as a reader meets them: each figure replaced by its caption (caption(id)),
    screen/print words by the screen's, each number and formula by one word."""
    def sub(pattern: re.Pattern, replace: Callable[[re.Match], str], text: str) -> str:
        out, pos = [], 0
        for m in outside_code(pattern, text):
            out += [text[pos:m.start()], replace(m)]
            pos = m.end()
        return "".join(out) + text[pos:]

    text = sub(FIGURE, lambda m: "\n" + caption(m["id"]) + "\n", markdown)
    text = sub(MEDIA, lambda m: m["screen"], text)
    text = sub(VALUE, lambda m: "n", text)
    text = sub(BLOCK, lambda m: "", text)
    text = MATH.sub(" x ", text)
    return MARKUP.sub("]", text)


def counts(text: str) -> tuple[int, int]:
    """(Han characters, words in Latin script) of a text."""
    return len(HAN.findall(text)), len(WORD.findall(text))


def minutes(markdown: str, caption: Callable[[str], str] = lambda fig_id: "") -> int:
    """About how many minutes the page takes to read: whole minutes, at least one."""
    han, words = counts(readable(markdown, caption))
    return max(1, round(han / HAN_PER_MINUTE + words / WORDS_PER_MINUTE))
