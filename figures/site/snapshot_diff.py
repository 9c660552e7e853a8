"""What changed between two snapshots (figures/publish/snapshot.py) of the site: pages added, removed
and edited, each section retitled, given a new id or moved (_pair says how a section is known on
both sides), figures whose data changed, every number and table cell whose value changed, every
anchor of the earlier release that no longer exists. diff() gives it as data; the "what changed"
page (changes.py) writes it out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..kit.words import LANGS
from ..publish import snapshot as snap


@dataclass(frozen=True)
class Place:
    """Where a section lies on one side: its page, its id, the id of the section it lies in ("" the
    page's opening, None: that side cannot tell) and the id of the sibling before it (None: first)."""
    page: str
    id: str
    parent: str | None
    after: str | None


@dataclass(frozen=True)
class Moved:
    """A section found on both sides whose heading or place changed; `how` among "retitled" (another
    title), "renamed" (another id: found by its text) and "moved" (another page, another section it
    lies in, or another order among its siblings)."""
    old: Place
    new: Place
    how: tuple[str, ...]


@dataclass
class Changes:
    """One release against the one before."""
    previous: str  # its version, "1.0.0"
    pages_added: list[str] = field(default_factory=list)
    pages_removed: list[str] = field(default_factory=list)
    pages_edited: dict[str, list[str]] = field(default_factory=dict)  # page: its sections' ids whose text changed ("" its opening)
    sections_added: dict[str, list[str]] = field(default_factory=dict)
    sections_removed: dict[str, list[str]] = field(default_factory=dict)  # page: ids of the earlier release's
    sections_moved: dict[str, list[Moved]] = field(default_factory=dict)  # by the page the section is on now
    unknown: list[str] = field(default_factory=list)  # what the earlier snapshot cannot tell: "titles", "places"
    figures_changed: list[str] = field(default_factory=list)
    figures_added: list[str] = field(default_factory=list)
    figures_removed: list[str] = field(default_factory=list)
    numbers: list[tuple[str, object, object, list[str]]] = field(default_factory=list)  # name, old, new, pages
    # per language, each table cell holding a number that changed: (table, row, column, old, new, pages)
    cells: dict[str, list[tuple[str, str, str, str, str, list[str]]]] = field(default_factory=dict)
    vanished: list[tuple[str, str]] = field(default_factory=list)  # (page of the earlier release, id)


def _drawn(figure: dict) -> dict:
    """What a figure's snapshot says of what it draws (not where its thumbnail lives)."""
    return {k: figure.get(k) for k in ("data", "code")}


def diff(old: dict, new: dict) -> Changes:
    """What changed from snapshot `old` to snapshot `new`."""
    out = Changes(previous=old["version"])
    old_pages = {p["page"]: p for p in old["pages"]}
    new_pages = {p["page"]: p for p in new["pages"]}
    out.pages_added = [p for p in new_pages if p not in old_pages]
    out.pages_removed = [p for p in old_pages if p not in new_pages]
    before, after = keyed_sections(old), keyed_sections(new)
    out.unknown = [what for what, key in (("titles", "title"), ("places", "parent"))
                   if any(s.get(key, "-") == "-" for s in before.values())]
    text = _text_key(before, after)
    pairs = _pair(before, after, text)
    moved = _moved(before, after, pairs, "places" not in out.unknown)
    found = set(pairs.values())
    for name, page in new_pages.items():
        here = [(name, s["id"]) for s in page["sections"]]
        edited = [k[1] for o, k in pairs.items() if k[0] == name and before[o][text] != after[k][text]]
        edited.sort(key=lambda i: here.index((name, i)))
        shifted = sorted((m for m in moved if m.new.page == name), key=lambda m: here.index((name, m.new.id)))
        added = [i for p, i in here if (p, i) not in found] if name in old_pages else []
        removed = [i for p, i in before if p == name and (p, i) not in pairs and i] if name in old_pages else []
        if shifted:
            out.sections_moved[name] = shifted
        if name in old_pages and (edited or added or removed or shifted):
            out.pages_edited[name], out.sections_added[name], out.sections_removed[name] = edited, added, removed
    for fig_id, now in new["figures"].items():
        if fig_id not in old["figures"]:
            out.figures_added.append(fig_id)
        elif _drawn(now) != _drawn(old["figures"][fig_id]):
            out.figures_changed.append(fig_id)
    out.figures_removed = [f for f in old["figures"] if f not in new["figures"]]
    for name, value in new["quantities"].items():
        if name in old["quantities"] and old["quantities"][name] != value:
            out.numbers.append((name, old["quantities"][name], value, printing(new, name)))
    for name, value in old["quantities"].items():  # a number the site no longer has: where it was printed
        if name not in new["quantities"]:
            out.numbers.append((name, value, None, printing(old, name)))
    out.cells = {lang: table_cells(old, new, lang) for lang in LANGS}
    anchors_now = {p["page"]: set(p["anchors"]) for p in new["pages"]}
    everywhere = set().union(*anchors_now.values()) if anchors_now else set()
    for page in old["pages"]:
        here = anchors_now.get(page["page"])
        for a in page["anchors"]:
            if (a not in here) if here is not None else (a not in everywhere):
                out.vanished.append((page["page"], a))
    for fig_id in out.figures_removed:
        if f"fig-{fig_id}" not in everywhere and not any(f"fig-{fig_id}" == a for _, a in out.vanished):
            out.vanished.append(("", f"fig-{fig_id}"))
    return out


def keyed_sections(snapshot: dict) -> dict[tuple[str, str], dict]:
    """A snapshot's sections by (page, id), in page order, each with its index on its page (`at`) and
    the id of the section it lies in (`parent`), derived from the levels for a snapshot that gives
    none ("-": neither given nor derivable)."""
    out = {}
    for page in snapshot["pages"]:
        sections = page["sections"]
        if all("parent" in s for s in sections):
            parents = [s["parent"] for s in sections]
        elif all("level" in s for s in sections):
            parents = [None if p is None else sections[p]["id"] for p, _ in snap.outline([s["level"] for s in sections])]
        else:
            parents = ["-"] * len(sections)
        for k, (s, parent) in enumerate(zip(sections, parents)):
            out.setdefault((page["page"], s["id"]), dict(s, parent=parent, at=k))
    return out


def _text_key(*sides: dict) -> str:
    """Which digest of a section's text both sides give: `text` (without the blank lines around it),
    or `digest` (as it stands) for a snapshot of format 1."""
    return "text" if all("text" in s for side in sides for s in side.values()) else "digest"


def _pair(before: dict, after: dict, text: str = "text") -> dict[tuple[str, str], tuple[str, str]]:
    """Which section of `before` is which of `after`, by (page, id). An id never changes (the
    anchors' rule), so the same id on the same page is the same section; one that left its page is
    the one with its id on another page, if only one has it there and its title or text is alike in
    a language; one whose id changed is the one with its text in every language, if no other section
    on either side has that text."""
    pairs = {k: k for k in before if k in after}
    lost = [k for k in before if k not in pairs and k[1]]
    found = [k for k in after if k not in pairs and k[1]]
    for k in lost:
        same = [n for n in found if n[1] == k[1]]
        if len(same) == 1 and sum(o[1] == k[1] for o in lost) == 1 and _alike(before[k], after[same[0]], text):
            pairs[k] = same[0]

    def words(section: dict) -> tuple:  # its text in every language
        return tuple(sorted(section[text].items()))

    texts = {side: Counter(words(s) for s in sections.values()) for side, sections in (("old", before), ("new", after))}
    taken = set(pairs.values())
    by_text = {words(after[n]): n for n in found if n not in taken}
    for k in lost:
        said, n = words(before[k]), by_text.get(words(before[k]))
        if k not in pairs and n is not None and texts["old"][said] == texts["new"][said] == 1 \
                and not set(before[k][text].values()) <= snap.BLANK:
            pairs[k] = n
    return pairs


def _alike(old: dict, new: dict, text: str) -> bool:
    """Alike in one language at least: the same title or the same text."""
    return any(old.get(key, {}).get(lang) == value for key in ("title", text)
               for lang, value in new.get(key, {}).items())


def _moved(before: dict, after: dict, pairs: dict, places: bool) -> list[Moved]:
    """The pairs whose title, id or place changed (`Moved` says how)."""
    in_order = _in_order(before, after, pairs, places)
    out = []
    for o, n in pairs.items():
        if not o[1]:  # the opening: before every heading, always
            continue
        how = []
        old_title, new_title = before[o].get("title"), after[n].get("title")
        if old_title is not None and any(old_title.get(lang, t) != t for lang, t in new_title.items()):
            how.append("retitled")
        if o[1] != n[1]:
            how.append("renamed")
        if n not in in_order:
            how.append("moved")
        if how:
            out.append(Moved(_place(before, o, places), _place(after, n, places), tuple(how)))
    return out


def _in_order(before: dict, after: dict, pairs: dict, places: bool) -> set[tuple[str, str]]:
    """The sections (new keys) that did not move: on the same page, in the same section (the one it
    lay in is the one it lies in now; without places, the page), and among the siblings there in the
    longest run kept from the earlier order, so that one section moved does not move its neighbours."""
    def parent(sections: dict, key: tuple[str, str]):
        return (key[0], sections[key]["parent"]) if places and sections[key]["parent"] is not None else key[0]

    siblings = {}  # (page, parent) -> [(earlier index, new key)], in the new order
    for o, n in sorted(pairs.items(), key=lambda pair: after[pair[1]]["at"]):
        old_parent = parent(before, o)
        if o[0] == n[0] and pairs.get(old_parent, old_parent) == parent(after, n):
            siblings.setdefault(parent(after, n), []).append((before[o]["at"], n))
    return {keys[i][1] for keys in siblings.values() for i in _longest_run([at for at, _ in keys])}


def _place(sections: dict, key: tuple[str, str], places: bool) -> Place:
    page, parent = key[0], sections[key]["parent"] if places else None
    earlier = [k for k, s in sections.items() if k[0] == page and s["at"] < sections[key]["at"] and k[1]
               and (not places or s["parent"] == parent)]
    return Place(page, key[1], parent, earlier[-1][1] if earlier else None)


def _longest_run(values: list[int]) -> list[int]:
    """The indices of a longest increasing subsequence of `values` (the order kept), the earliest ending."""
    best = [1] * len(values)
    before = [-1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i] and best[j] + 1 > best[i]:
                best[i], before[i] = best[j] + 1, j
    if not values:
        return []
    i, out = best.index(max(best)), []
    while i != -1:
        out.append(i)
        i = before[i]
    return out[::-1]


NUMBER = re.compile(r"\d")


def printing(snapshot: dict, name: str, what: str = "values") -> list[str]:
    """The pages of a snapshot that print a quantity (`what` "values") or a table ("tables")."""
    return [p["page"] for p in snapshot["pages"] if name in p.get(what, [])]


def table_cells(old: dict, new: dict, lang: str) -> list[tuple[str, str, str, str, str, list[str]]]:
    """The cells of two snapshots' tables in `lang` that hold a number and changed, matched by table
    name, row (its first cell) and column (its heading): (table, row, column, old, new, pages that
    print the table). A row only one side has is listed cell by cell against "–". An earlier release
    that cannot give its tables (no "tables" in its snapshot): nothing."""
    if not old.get("tables") or not new.get("tables"):
        return []
    out = []
    for name, now in new["tables"].items():
        before_table = old["tables"].get(name, {})
        if lang not in now or lang not in before_table:
            continue
        (old_head, *old_rows), (head, *rows) = before_table[lang], now[lang]
        before = {r[0]: dict(zip(old_head, r)) for r in old_rows}
        after = {r[0]: dict(zip(head, r)) for r in rows}
        pages = printing(new, name, "tables") or printing(old, name, "tables")
        for row in [*after, *(r for r in before if r not in after)]:
            for column in [*head, *(c for c in old_head if c not in head)][1:]:
                was, is_now = before.get(row, {}).get(column, "–"), after.get(row, {}).get(column, "–")
                if was != is_now and (NUMBER.search(was) or NUMBER.search(is_now)):
                    out.append((name, row, column, was, is_now, pages))
    return out
