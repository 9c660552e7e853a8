"""Each page's meta description, in its language: its front matter's `description`, else the
opening sentences of its first paragraphs (what a search engine shows under the title)."""

from __future__ import annotations

import html
import re

LIMIT = {"zh": 80, "en": 160}  # characters a result page shows, about: Chinese characters are wider
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)  # the text's own paragraphs: a figure's have a class
PRINT_ONLY = re.compile(r'<span class="mha-print-only"[^>]*>.*?</span>', re.S)  # the screen's words are kept
MATH = re.compile(r'class="arithmatex"|<math\b')
SENTENCE_END = {"zh": re.compile(r"(?<=[。！？])"), "en": re.compile(r"(?<=[.!?])\s+")}


def plain_text(fragment: str) -> str:
    """An HTML fragment's text, its tags dropped, entities read, white space one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", PRINT_ONLY.sub("", fragment))).split())


def sentences(page_html: str, lang: str) -> list[str]:
    """The page's paragraphs' sentences in order, but those that hold a formula (plain text has no
    way to show it)."""
    return [text for paragraph in PARAGRAPH.finditer(page_html) for sentence in SENTENCE_END[lang].split(paragraph[1])
            if not MATH.search(sentence) and (text := plain_text(sentence))]


def page_description(page_html: str, lang: str) -> str:
    """Whole opening sentences within the language's limit; a first sentence longer than that,
    cut at a word (a character in Chinese) and ended with "…". Empty for a page without text."""
    limit, joiner = LIMIT[lang], "" if lang == "zh" else " "
    words = sentences(page_html, lang)
    if not words:
        return ""
    text = words[0]
    for sentence in words[1:]:
        if len(text) + len(joiner) + len(sentence) > limit:
            break
        text += joiner + sentence
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if lang != "zh" and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip("，、,;: ") + "…"
