"""How long a page takes to read, from what its Markdown says: the home page's "where to start".

Chinese is counted by characters, English by words, each at a published rate for adults:

- Chinese, 255 characters a minute: the International Reading Speed Texts (IReST),
  Trauzettel-Klosinski, Dietz et al., Investigative Ophthalmology & Visual Science 53(9), 2012,
  5452-5461 (Chinese: 255 syllables a minute, one syllable to a character).
- English, 238 words a minute: Brysbaert, "How many words do we read per minute?", Journal of
  Memory and Language 109, 2019, 104047 (silent reading of non-fiction).

A page's time is its Han characters at the first rate plus its words in Latin script (code, names,
English terms on a Chinese page) at the second. What is counted is what a reader reads: the text,
code, exercises and their answers, and each figure's caption; not link targets, heading ids,
attribute lists or HTML tags. A formula counts as one word, a printed number as one word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .constructs import FIGURE, MEDIA, VALUE
from .markdown_code import outside_code

HAN_PER_MINUTE = 255   # IReST (2012), Chinese
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
