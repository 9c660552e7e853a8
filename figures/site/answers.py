"""Worked answers in print (with docs/assets/mha-print.js and mha-print.css): the box "print with
every worked answer" above a page's first answer, and after each answer's title the note, shown in
print only, that it was left out. Both are written into the page here, not by the script: an
element the script inserted among the article's blocks restyled the whole page once more."""

from __future__ import annotations

import re

ANSWER = re.compile(r'<details class="success">\s*<summary>(?P<title>.*?)</summary>', re.S)
WORDS = {
    "zh": {"all": "打印时附上全部参考解答", "left": "（未打印）"},
    "en": {"all": "Print with every worked answer", "left": " (not printed)"},
}


def with_print_switch(html: str, lang: str) -> str:
    """The page with the switch before its first worked answer and a left-out note in each answer's
    title; a page without answers is returned as it is. The switch is shown only with script on
    (mha-figures.css), where it works."""
    words = WORDS[lang]
    note = f'<span class="mha-answer-left-out">{words["left"]}</span>'
    html, count = ANSWER.subn(lambda m: m[0].removesuffix("</summary>") + note + "</summary>", html)
    if not count:
        return html
    first = ANSWER.search(html).start()
    switch = (f'<label class="mha-answers-switch mha-screen-only"><input type="checkbox"> {words["all"]}</label>\n')
    return html[:first] + switch + html[first:]
