"""Material for MkDocs, as this site ships it: one rule of its palette stylesheet left out.

Material's palette component, as it starts on every page, marks <body> with
`data-md-color-switching`, reads the header's computed colour, and removes the mark a frame later.
Its stylesheet has the rule `[data-md-color-switching] *, … :after, … :before { transition-duration:
0s !important }`, so each of the two changes makes the browser recompute the style of every element
of the page. On a long page (what-it-costs, 1,300 elements) that is Lighthouse's largest blocking
task: with the rule, total blocking time 334 ms and performance 89 on a simulated phone; without it
145 ms and 95 (median of five runs each, `python -m bench.lighthouse`; measured 2026-11-30).

The rule only keeps colours from fading while the reader toggles the scheme. Without it, a toggle
fades the header and links over Material's own 0.25 s transitions: a cosmetic difference, paid for
on the toggle, not on every page load. The build writes the stylesheet without the rule
(`without_switching_rule`, called from the hooks after Material copied its assets).
"""

from __future__ import annotations

import re
from pathlib import Path

MARK = "[data-md-color-switching]"
RULE = re.compile(r"(?:^|(?<=[{}]))([^{}]*)\{([^{}]*)\}")  # a selector list and its declarations


class MaterialChanged(RuntimeError):
    """Material's palette stylesheet is not where, or not what, this module expects."""


def palette_stylesheets(site_dir: Path) -> list[Path]:
    """Material's palette stylesheet(s) in a built site (the name carries a content hash)."""
    return sorted((site_dir / "assets" / "stylesheets").glob("palette.*.min.css"))


def without_switching_rule(site_dir: Path) -> int:
    """Take the switching rule out of Material's palette stylesheet in `site_dir`; the number of
    rules taken out (0 when a build already took it out). Raises MaterialChanged when there is no
    palette stylesheet, or one names the mark in a rule this does not recognise (a Material
    release that changed it: look again)."""
    sheets = palette_stylesheets(site_dir)
    if not sheets:
        raise MaterialChanged(f"no Material palette stylesheet under {site_dir}/assets/stylesheets")
    removed = 0
    for sheet in sheets:
        css = sheet.read_text(encoding="utf-8")
        found = [rule for rule in RULE.finditer(css) if _is_switching_rule(sheet, rule)]
        for rule in reversed(found):
            css = css[:rule.start()] + css[rule.end():]
        if found:
            sheet.write_text(css, encoding="utf-8")
            removed += len(found)
    return removed


def _is_switching_rule(sheet: Path, rule: re.Match) -> bool:
    """Whether `rule` is the switching rule: every selector under the mark, transitions off."""
    selectors, declarations = rule.group(1), rule.group(2)
    if "data-md-color-switching" not in selectors:
        return False
    if all(s.strip().startswith(MARK) for s in selectors.split(",")) and declarations.startswith("transition"):
        return True
    raise MaterialChanged(f"{sheet.name}: a data-md-color-switching rule this module does not recognise: "
                          f"{rule.group(0)[:120]}")
