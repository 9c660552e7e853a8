"""python -m figures new ID [--page PAGE] [--after EXISTING_ID]

Starts a new figure: writes figures/gallery/<id with _>.py from a template that draws (a control, both
captions with a {{ value }} number, draw(lang, value) in the kit's style, a small data table),
tests/test_fig_<id with _>.py with a claim on what it draws, and registers the id in
figures/gallery/__init__.py's ORDER: after EXISTING_ID, else after the last figure PAGE places, else
last. Then it prints what is left to do: the lines marked TEMPLATE: in both files, the page
construct in both languages, the numbers a caption prints (figures/numbers/quantities.py), how to see it.

A bad or taken id, an unknown page or EXISTING_ID is refused in one line, before anything is written.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .keep.disk import write_atomic

from .engine import registry
from .text.constructs import FIGURE, outside_code

ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")  # lower-case words joined by "-": names files and anchors
GALLERY = Path("figures/gallery")
TESTS = Path("tests")
DOCS = Path("docs")
LANGS = ("zh", "en")
MARK = "TEMPLATE" + ":"  # what the author replaces; the generated test fails while one is left


class Refused(ValueError):
    """The command cannot do what it was asked: one line saying why."""


@dataclass(frozen=True)
class Created:
    fig_id: str
    module: Path  # relative to the root, as every path here
    test: Path
    after: str | None  # the id it follows in ORDER (None: first)
    page: str | None
    below: dict[str, str]  # lang -> "docs/x.zh.md:47", the line of the page's figure to place it below


def file_stem(fig_id: str) -> str:
    return fig_id.replace("-", "_")


def registered(root: Path) -> tuple[str, ...]:
    """ORDER as written in root's figures/gallery/__init__.py (read, not imported: root may be a copy)."""
    tree = ast.parse((root / GALLERY / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ORDER" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise Refused(f"{GALLERY / '__init__.py'} has no ORDER")


def check_id(fig_id: str, order: tuple[str, ...], root: Path) -> None:
    if not fig_id.strip():
        raise Refused("the figure id is empty; name it in lower-case words joined by '-', e.g. query-picks")
    if not ID.fullmatch(fig_id):
        raise Refused(f"figure id {fig_id!r} is not lower-case words joined by '-' (a-z, 0-9, starting with a letter), "
                      f"e.g. {_suggested(fig_id)!r}: it names the figure's module, files, anchor and downloads")
    if keyword.iskeyword(file_stem(fig_id)):
        raise Refused(f"figure id {fig_id!r} is a Python keyword, which cannot name a module; choose another")
    if fig_id in order:
        raise Refused(f"figure id {fig_id!r} is taken ({GALLERY / file_stem(fig_id)}.py); choose another")
    for path in (GALLERY / f"{file_stem(fig_id)}.py", TESTS / f"test_fig_{file_stem(fig_id)}.py"):
        if (root / path).exists():
            raise Refused(f"{path} exists already, though {fig_id!r} is not registered; choose another id or remove it")


def _suggested(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text).lower())
    return "-".join(words).lstrip("0123456789-") or "query-picks"


def page_name(page: str, root: Path) -> str:
    """"one-head-blends" from what a writer may type for it (one-head-blends.md, docs/one-head-blends.zh.md)."""
    name = re.sub(r"(\.(zh|en))?(\.md)?$", "", page.strip().removeprefix("docs/"))
    pages = sorted({p.name.split(".")[0] for p in (root / DOCS).glob("*.zh.md")})
    if name not in pages or not all((root / DOCS / f"{name}.{lang}.md").is_file() for lang in LANGS):
        near = difflib.get_close_matches(name, pages, n=3)
        raise Refused(f"no page {page!r} in docs/ (docs/NAME.zh.md and docs/NAME.en.md); "
                      + (f"did you mean {' or '.join(map(repr, near))}?" if near else f"the pages: {', '.join(pages)}"))
    return name


def placed(root: Path, page: str, lang: str) -> list[tuple[str, int]]:
    """(id, line) of every figure the page places, in page order."""
    text = (root / DOCS / f"{page}.{lang}.md").read_text(encoding="utf-8")
    return [(m["id"], text.count("\n", 0, m.start()) + 1) for m in outside_code(FIGURE, text)]


ROOT = registry.ROOT  # the checkout written into


def create(fig_id: str, page: str | None = None, after: str | None = None, root: Path | None = None) -> Created:
    """Write the module and its test into root (ROOT), register the id; refuse (Refused) before
    writing anything."""
    root = ROOT if root is None else root
    order = registered(root)
    check_id(fig_id, order, root)
    if after is not None and after not in order:
        raise Refused("--after: " + registry.unknown(after, order))
    page = page_name(page, root) if page is not None else None
    on_page = {lang: placed(root, page, lang) for lang in LANGS} if page else {}
    if after is None:  # after the last of the page's figures in ORDER, else last
        mine = [i for i, _ in on_page.get(LANGS[0], []) if i in order]
        after = max(mine, key=order.index) if mine else order[-1] if order else None
    below = {}
    if page:  # below the page's figure that comes before it in ORDER, else below the page's last figure
        for lang in LANGS:
            ids = dict(on_page[lang])
            if after in ids:
                below[lang] = f"{DOCS}/{page}.{lang}.md:{ids[after]}"
    module, test = GALLERY / f"{file_stem(fig_id)}.py", TESTS / f"test_fig_{file_stem(fig_id)}.py"
    init = root / GALLERY / "__init__.py"
    ordered = _registered_after(init.read_text(encoding="utf-8"), fig_id, after)
    write_atomic(root / module, MODULE_TEMPLATE.replace("{id}", fig_id).replace("{stem}", file_stem(fig_id)).encode())
    write_atomic(root / test, TEST_TEMPLATE.replace("{id}", fig_id).replace("{stem}", file_stem(fig_id)).encode())
    write_atomic(init, ordered.encode())
    return Created(fig_id, module, test, after, page, below)


def _registered_after(init: str, fig_id: str, after: str | None) -> str:
    """The text of figures/gallery/__init__.py with fig_id's line added to ORDER after `after`'s
    (or, with None, as its first entry); every other line as it was."""
    line = f'    "{fig_id}",\n'
    if after is None:
        at = re.search(r"^ORDER\s*=\s*\(\s*\n", init, re.M)
    else:
        at = re.search(rf'^[ \t]*"{re.escape(after)}",[^\n]*\n', init, re.M)
    if at is None:
        raise Refused(f"cannot find where to add {fig_id!r} in {GALLERY / '__init__.py'}: its ORDER is not one "
                      f'id a line ("id",); add the line yourself')
    return init[:at.end()] + line + init[at.end():]


def next_steps(c: Created) -> str:
    stem, page = file_stem(c.fig_id), c.page or "PAGE"
    construct = "{{ figure " + c.fig_id + " }}"
    where = (f"\n   below {{{{ figure {c.after} }}}} ({', '.join(c.below.values())})") if c.below else ""
    url = "/" if page == "index" else f"/{page}/"
    return f"""wrote {c.module} (the figure) and {c.test} (its claim)
registered {c.fig_id!r} in {GALLERY / '__init__.py'} ({f'after {c.after!r}' if c.after else 'first'}): it numbers in that order

Next:
1. Place it: a line of its own, {construct}, in docs/{page}.zh.md and docs/{page}.en.md{where},
   at the same place in both (twins place the same figures in the same order).
2. Make it yours: every line marked {MARK} in {c.module} (the docstring opens with '{c.fig_id}:',
   keep that). A caption never types a number: {{{{ value NAME }}}} prints what mha_ref computes under
   NAME, a key of QUANTITIES in figures/numbers/quantities.py; add an entry there for a number of your own.
3. Assert what the caption claims in {c.test}, on the numbers draw() returns, and run it:
   .venv/bin/python -m pytest -q -p no:cacheprovider {c.test}
   (it fails while a line marked {MARK} is left in either file)
4. See it: MHA_BUILD_EN=false .venv/bin/mkdocs serve, then http://127.0.0.1:8000{url}#fig-{c.fig_id}
   (English at /en{url}: serve without MHA_BUILD_EN=false); or its files alone:
   .venv/bin/python -m figures --out out/ --only {c.fig_id}
Undo what this wrote: git checkout {GALLERY / '__init__.py'} && rm {c.module} {c.test}"""


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m figures new", description="Start a new figure: its module from a template "
                                "that draws, a test of its claim, its id in ORDER; then what is left to do.")
    p.add_argument("id", help="the new figure's id: lower-case words joined by '-', e.g. query-picks")
    p.add_argument("--page", help="the page that explains it: docs/PAGE.zh.md and docs/PAGE.en.md")
    p.add_argument("--after", metavar="EXISTING_ID", help="the registered figure it follows in ORDER")
    args = p.parse_args(argv)
    try:
        created = create(args.id, args.page, args.after)
    except (Refused, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(next_steps(created))
    return 0


MODULE_TEMPLATE = '''"""{id}: TEMPLATE: one line saying what the figure shows (keep '{id}:' first).

TEMPLATE: a few lines for the next maintainer: what is drawn, from which mha_ref numbers, and the
claim the captions make, which tests/test_fig_{stem}.py asserts. Written by `python -m figures new`
as a figure that draws: replace every line marked TEMPLATE: (the test fails while one is left).
"""

from __future__ import annotations

# A figure imports only mha_ref (every number is computed there), the kit (figures.kit: the shared
# look, words, controls, drawing helpers) and, to share a look, another figure.
from mha_ref.example import toy

from ..kit.control import query_control
from ..kit.draw import mark_query, weight_bars
from ..kit.readouts import decimals
from ..kit.style import HEAD_COLOURS, new_figure
from ..kit.words import pick

# TEMPLATE: the control: one frame per value, each drawn ahead of time; the page opens on its start.
# query_control("it") steps through the running example's query tokens, opening on `it`;
# kit.control.heads_control(values, start) steps through head counts; kit.control.Control(...) takes
# any values. CONTROL = None gives one frame, drawn by draw(lang, None).
CONTROL = query_control("it")

# TEMPLATE: the captions, one claim in both languages (Markdown). Never type a number:
# {{ value NAME }} prints the number mha_ref computes under NAME, a key of QUANTITIES in
# figures/numbers/quantities.py (add an entry there for a number of your own; a misspelt name is refused,
# naming the nearest). ".2f" is a format; "up"/"down" round safely beside "at most"/"at least".
# Words that only make sense on screen ("drag") go in {{ screen "..." print "..." }}.
CAPTION_ZH = (
    "位置头对查询的那一行权重。查询是 `it` 时，它把最大的权重 "
    "{{ value heads.position_it_and .2f }} 给前一个词 `and`。"
)
CAPTION_EN = (
    "The position head's row of weights for a query. For `it`, its largest weight, "
    "{{ value heads.position_it_and .2f }}, goes to the word before, `and`."
)


def readout(lang: str, query: int) -> str:
    """TEMPLATE: optional: what the slider shows beside a frame (delete it if there is nothing to say)."""
    top = toy.TOKENS[int(toy.trace().weights[toy.head_index("position")][query].argmax())]
    return pick(lang, f"查询 {toy.TOKENS[query]}：位置头 → {top}", f"query {toy.TOKENS[query]}: position head → {top}")


def data(lang: str):
    """TEMPLATE: optional: the numbers the figure draws, as (column heads, rows of text); the page folds
    it under the figure and offers it as CSV. Here every query's row, so it holds every frame."""
    w = toy.trace().weights[toy.head_index("position")]
    return [pick(lang, "查询", "query"), *toy.TOKENS], [[toy.TOKENS[q], *map(decimals, w[q])] for q in range(toy.N)]


def draw(lang: str, query: int):
    """TEMPLATE: one frame: the value is one of CONTROL's values (None without a control); returns a
    matplotlib Figure started by new_figure (the site's width, its fonts, a phone's width too).
    Every word goes through pick(lang, zh, en); the kit's helpers keep the look of the other figures."""
    fig, ax = new_figure(2.6)
    weights = toy.trace().weights[toy.head_index("position")][query]
    weight_bars(ax, weights, HEAD_COLOURS["position"], title=pick(lang, "位置头：看前一个词", "position head: the previous word"))
    mark_query(ax, query)
    ax.set_ylabel(pick(lang, "权重", "weight"))
    ax.set_xlabel(pick(lang, f"键（查询 = {toy.TOKENS[query]}）", f"keys (query = {toy.TOKENS[query]})"))
    return fig
'''

TEST_TEMPLATE = '''"""{id}: its claim (what its captions say), asserted on the numbers the figure draws, read back
from the Figure its draw() returns (bar heights, line data, texts), and on the mha_ref numbers behind
them; never on pixels, never on a constant the figure does not draw."""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from figures.engine import registry
from figures.numbers import quantities
from mha_ref.example import toy

FIG_ID = "{id}"
MARK = "TEMPLATE" + ":"


def _drawn(lang: str, value):
    """The figure as drawn for one frame (closed: its artists stay readable)."""
    fig = registry.get(FIG_ID).draw(lang, value)
    plt.close(fig)
    return fig


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_{stem}_claim(lang):
    # TEMPLATE: the template's captions say: for `it`, the position head's largest weight goes to `and`,
    # {{ value heads.position_it_and }} of it. Assert what your captions say, the same way.
    it = toy.token_index("it")
    bars = _drawn(lang, it).axes[0].containers[0]  # what its first ax.bar call drew
    heights = np.array([bar.get_height() for bar in bars])
    assert toy.TOKENS[int(heights.argmax())] == "and"
    assert heights[toy.token_index("and")] == pytest.approx(quantities.value("heads.position_it_and"))


def test_{stem}_is_no_longer_the_template():
    files = [Path(registry.get(FIG_ID).__file__), Path(__file__)]
    left = [f"{path.name}:{n}" for path in files
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if MARK in line]
    assert not left, f"replace each line marked {MARK} with your figure's own (and drop the mark): {', '.join(left)}"
'''
