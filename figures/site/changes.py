"""The "what changed" page: this tree against the previous release, from two snapshots.

The previous release is the newest tag vX.Y.Z that is an ancestor of HEAD and is not this tree's
own version (pyproject.toml); MHA_PREVIOUS_RELEASE=<tag> names another, MHA_PREVIOUS_RELEASE=none
none. Its snapshot (figures/publish/snapshot.py) is made by that release's own code: its files
(`git archive`) in a temporary folder, `python -m figures.publish.snapshot` run there with this
Python, and kept in the build's cache under the tag's commit, so a warm build reads it. This tree's
snapshot is made in the build's process (the numbers and tables it has already computed). Without
git, or without an earlier tag, the page says that this is the first release it lists, and nothing
is computed.

`{{ changes }}` on a line of its own (docs/changes.*.md) becomes the tables: pages added, removed
and edited (the sections whose text changed, added or removed; under the page, each section
retitled, given a new id or moved, with its earlier title and place: snapshot_diff.py says how a section is
known on both sides), figures whose data changed (before and after, the
before from the earlier release's frozen folder when this build is a release), every number whose
value changed (name, old, new, the pages that print it; a number in a `{{ table }}` by its table, row
and column, the earlier release's cells given by its own figures/site/tables.py), and every figure id or anchor of the
earlier release that no longer exists on its page (each also a build warning; --strict fails).
An anchor that must go keeps a tombstone: a short note on its page carrying the id
(`{: #fig-old-id }`), saying where its content went.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

from ..keep import disk
from ..publish import identity, snapshot as snap
from ..text.constructs import format_value
from . import tables
from .snapshot_diff import Changes, Moved, Place, diff, keyed_sections

ROOT = identity.PYPROJECT.parent  # the checkout; for code installed from a wheel, the folder the site is built in
PREVIOUS_ENV = "MHA_PREVIOUS_RELEASE"
TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
CONSTRUCT = re.compile(r"^[ \t]*\{\{\s*changes\s*\}\}[ \t]*$", re.M)
SNAPSHOT_MODULE = "figures/publish/snapshot.py"
TABLES_MODULE = "figures/site/tables.py"
log = logging.getLogger("mkdocs.plugins.mha.changes")


class ChangesError(Exception):
    """The previous release's snapshot could not be made, in one line."""


def _git(root: Path, *args: str) -> str | None:
    try:
        run = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    except OSError:  # no git at all
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def previous_release(root: Path = ROOT, version: str | None = None) -> str | None:
    """The tag of the release before this tree's version (see the module's docstring), or None."""
    chosen = os.environ.get(PREVIOUS_ENV, "").strip()
    if chosen.lower() == "none":
        return None
    if chosen:
        if _git(root, "rev-parse", "--verify", "--quiet", f"{chosen}^{{commit}}") is None:
            raise ChangesError(f"{PREVIOUS_ENV}={chosen!r} names no tag or commit of this repository: "
                               "name a release's tag (vX.Y.Z), or none for no comparison")
        return chosen
    version = version or identity.load(root / "pyproject.toml").version
    tags = _git(root, "tag", "--merged", "HEAD", "--list", "v*")
    ours = [t for t in (tags or "").split() if TAG.match(t) and t != f"v{version}"]
    if not ours:
        return None
    return max(ours, key=lambda t: tuple(int(n) for n in TAG.match(t).groups()))


def _tree_snapshot(root: Path, tag: str) -> dict:
    """The snapshot of `tag`'s files, made by its own code in a process of its own."""
    with tempfile.TemporaryDirectory(prefix="mha-changes-") as tmp:
        tree = Path(tmp)
        archive = subprocess.run(["git", "archive", "--format=tar", tag], cwd=root, capture_output=True)
        if archive.returncode != 0:
            raise ChangesError(f"git archive {tag} failed: {archive.stderr.decode(errors='replace').strip()}")
        import io
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        if not (tree / SNAPSHOT_MODULE).exists():  # a release older than the snapshot: read with today's reader
            shutil.copyfile(root / SNAPSHOT_MODULE, tree / SNAPSHOT_MODULE)
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
        env.pop(identity.RELEASE_ENV, None)  # the old tree's version is its own, not the one being deployed
        folder = disk.cache_folder()  # its trained models and measurements, shared when its code is the same
        env[disk.CACHE_ENV] = str(folder.resolve()) if folder is not None else "0"
        run = subprocess.run([sys.executable, "-m", "figures.publish.snapshot"], cwd=tree, capture_output=True,
                             text=True, env=env)
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise ChangesError(f"the snapshot of {tag} failed: {last}")
        found = json.loads(run.stdout)
        # its tables' cells, by its own site code: a release older than that code has none to compare
        tables = tree / TABLES_MODULE
        if tables.exists() and "def snapshot(" in tables.read_text(encoding="utf-8"):
            run = subprocess.run([sys.executable, "-m", "figures.site.tables"], cwd=tree, capture_output=True,
                                 text=True, env=env)
            if run.returncode != 0:
                last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
                raise ChangesError(f"the tables' snapshot of {tag} failed: {last}")
            found["tables"] = json.loads(run.stdout)
        return found


def release_snapshot(tag: str, root: Path = ROOT) -> dict:
    """`tag`'s snapshot, kept in the build's cache under its commit (and this snapshot's format)."""
    commit = _git(root, "rev-parse", f"{tag}^{{commit}}")
    if commit is None:
        raise ChangesError(f"{tag} names no commit")
    folder = disk.cache_folder()
    path = folder / "changes" / f"{commit}-{snap.FORMAT}.json" if folder is not None else None

    return disk.kept_or_made(path, json.loads, lambda: _tree_snapshot(root, tag), lambda v: json.dumps(v).encode(),
                              f"the snapshot of {tag}")


WORDS = {
    "zh": {
        "first": "这是本页记录的第一个版本：之前没有可以比较的发布版本。",
        "since": "与上一个发布版本 {v} 相比：",
        "pages": "页面", "added": "新增的页面", "removed": "删去的页面", "edited": "改动的页面",
        "section": "改动的小节", "new_sections": "新增的小节", "opening": "开头",
        "figures": "数据或绘图代码有变化的图", "figure": "图", "before": "之前（{v}）", "after": "现在",
        "figures_added": "新增的图", "figures_removed": "删去的图",
        "numbers": "数值有变化的量", "name": "名称", "old": "旧值", "new": "新值", "printed": "出现在",
        "none_printed": "（页面上未直接出现）", "gone": "（已删去）",
        "vanished": "未留下去向的锚点", "vanished_none": "上一个版本的每个图编号和锚点在这一版里都还在（作为图、锚点或说明去向的短注）。",
        "vanished_some": "下面这些锚点在上一个版本里有，这一版里没有，也没有说明去向的短注：",
        "nothing": "无。", "at": "{v} 中的这一图", "sep": "；", "colon": "：", "comma": "、", "and": "、",
        "cell": "表 `{table}`：{row} · {column}",
        "sections_removed": "删去的小节", "retitled": "改了标题", "renamed": "换了锚点", "moved": "挪了位置",
        "shift": "{link}：{how}。原来{old}{now}。", "now": "；现在{new}", "clause": "，",
        "titled": "标题是{t}", "id": "锚点是 `#{id}`", "on": "在{page}页", "on_under": "在{page}页的{t}一节下", "under": "在{t}一节下",
        "top": "在最外一层", "placed_after": "排在{t}之后", "foremost": "排在最前", "quoted": "“{t}”",
        "no_titles": "上一版（{v}）的记录里没有小节标题：之后改了标题的小节这里列不出来，它的小节只能用锚点称呼。",
        "no_places": "上一版（{v}）的记录里没有标题的级别：小节只有换了页面，或者在页内的先后次序变了，才算挪了位置。",
    },
    "en": {
        "first": "This is the first release this page lists: there is no earlier release to compare with.",
        "since": "Against the previous release, {v}:",
        "pages": "Pages", "added": "Pages added", "removed": "Pages removed", "edited": "Pages edited",
        "section": "Sections changed", "new_sections": "Sections added", "opening": "opening",
        "figures": "Figures whose data or drawing code changed", "figure": "Figure", "before": "Before ({v})", "after": "Now",
        "figures_added": "Figures added", "figures_removed": "Figures removed",
        "numbers": "Numbers whose value changed", "name": "Name", "old": "Old", "new": "New", "printed": "Printed on",
        "none_printed": "(not printed on a page)", "gone": "(removed)",
        "vanished": "Anchors gone without a note", "vanished_none": "Every figure id and anchor of the previous release is still here (as a figure, an anchor or a note saying where it went).",
        "vanished_some": "These anchors were in the previous release and are not in this one, and no note says where they went:",
        "nothing": "None.", "at": "this figure in {v}", "sep": "; ", "colon": ": ", "comma": ", ", "and": ", ",
        "cell": "table `{table}`: {row} · {column}",
        "sections_removed": "Sections removed", "retitled": "retitled", "renamed": "given a new id", "moved": "moved",
        "shift": "{link}: {how}; before: {old}{now}.", "now": "; now: {new}", "clause": ", ",
        "titled": "titled {t}", "id": "id `#{id}`", "on": "on {page}", "on_under": "on {page}, under {t}", "under": "under {t}",
        "top": "at the top level", "placed_after": "after {t}", "foremost": "first", "quoted": "“{t}”",
        "no_titles": "The previous release ({v}) records no titles of its sections: a heading retitled since is "
                     "not listed, and its sections are named by their ids.",
        "no_places": "The previous release ({v}) records no levels of its headings: a section is listed as moved "
                     "only when it changed page or its order among the page's sections changed.",
    },
}


def _number(v) -> str:
    if isinstance(v, dict):
        return f"({v.get('error', '?')})"
    return format_value(v, None) if isinstance(v, int) else f"{v:.6g}"


def _titles(snapshot: dict) -> dict[str, dict]:
    return {p["page"]: p for p in snapshot["pages"]}


def _page_link(page: str, pages: dict, lang: str, anchor: str = "", title: str | None = None) -> str:
    name = title if title is not None else pages[page]["title"][lang] if page in pages else page
    return f"[{name}]({page}{'#' + anchor if anchor else ''})"


def markdown(changes: Changes | None, new: dict | None, lang: str, old: dict | None = None,
             thumbnail=None) -> str:
    """The tables in `lang`; changes None: the first release. thumbnail(fig_id, which) gives the
    Markdown of a figure's opening frame, "before" or "after", or "" when there is none."""
    w = WORDS[lang]
    if changes is None:
        return w["first"] + "\n"
    pages, old_pages = _titles(new), _titles(old or {"pages": []})
    out = [w["since"].format(v=changes.previous), ""]

    def items(title: str, rows: list[str], anchor: str):  # the same ids in both languages
        out.extend([f"### {title} {{#changes-{anchor}}}", ""] + ([f"- {r}" for r in rows] if rows else [w["nothing"]]) + [""])

    out += [f"## {w['pages']} {{#changes-pages}}", ""]
    out += [w[f"no_{what}"].format(v=changes.previous) + "\n" for what in changes.unknown]
    before, after = keyed_sections(old or {"pages": []}), keyed_sections(new)

    def shifts(page: str) -> str:  # a line under the page's for each section retitled, renamed or moved
        return "".join("\n    - " + _shift(m, before, after, pages, old_pages, lang)
                       for m in changes.sections_moved.get(page, []))

    items(w["added"], [_page_link(p, pages, lang) + shifts(p) for p in changes.pages_added], "pages-added")
    items(w["removed"], [old_pages[p]["title"][lang] if p in old_pages else p for p in changes.pages_removed], "pages-removed")
    edited = []
    for page, ids in changes.pages_edited.items():
        sections = {s["id"]: s for s in pages[page]["sections"]}

        def name(i):
            return w["opening"] if i == "" else sections[i]["title"][lang]

        parts = [_page_link(page, pages, lang)]
        if ids:
            parts.append(w["section"] + w["colon"] + w["comma"].join(_page_link(page, pages, lang, i, name(i)) for i in ids))
        if changes.sections_added.get(page):
            parts.append(w["new_sections"] + w["colon"] + w["comma"].join(_page_link(page, pages, lang, i, name(i))
                                                             for i in changes.sections_added[page]))
        if changes.sections_removed.get(page):
            parts.append(w["sections_removed"] + w["colon"] + w["comma"].join(
                _called(before, (page, i), lang) for i in changes.sections_removed[page]))
        edited.append(w["sep"].join(parts) + shifts(page))
    items(w["edited"], edited, "pages-edited")

    out += [f"## {w['figures']} {{#changes-figures}}", ""]
    if changes.figures_changed:
        out += [f"| {w['figure']} | {w['before'].format(v=changes.previous)} | {w['after']} |", "|---|---|---|"]
        for fig_id in changes.figures_changed:
            home = next((p["page"] for p in new["pages"] if fig_id in p["figures"]), None)
            link = f"[`{fig_id}`]({home}#fig-{fig_id})" if home else f"`{fig_id}`"
            before, after = (thumbnail(fig_id, which) if thumbnail else "" for which in ("before", "after"))
            out.append(f"| {link} | {before} | {after} |")
        out.append("")
    else:
        out += [w["nothing"], ""]
    items(w["figures_added"], [f"`{f}`" for f in changes.figures_added], "figures-added")
    items(w["figures_removed"], [f"`{f}`" for f in changes.figures_removed], "figures-removed")

    out += [f"## {w['numbers']} {{#changes-numbers}}", ""]
    cells = changes.cells.get(lang, [])
    if changes.numbers or cells:
        out += [f"| {w['name']} | {w['old']} | {w['new']} | {w['printed']} |", "|---|--:|--:|---|"]

        def where(printed: list[str]) -> str:
            return ", ".join(_page_link(p, pages, lang) if p in pages else old_pages[p]["title"][lang]
                             for p in printed) or w["none_printed"]

        for name, before, after, printed in changes.numbers:
            now = w["gone"] if after is None else _number(after)
            out.append(f"| `{name}` | {_number(before)} | {now} | {where(printed)} |")
        for table, row, column, before, after, printed in cells:  # a table's cell: table, row, column
            label = w["cell"].format(table=table, row=row, column=column)
            out.append(f"| {label} | {before} | {after} | {where(printed)} |")
        out.append("")
    else:
        out += [w["nothing"], ""]

    out += [f"## {w['vanished']} {{#changes-anchors}}", ""]
    if changes.vanished:
        out += [w["vanished_some"], ""] + [f"- `{page or '?'}#{a}`" for page, a in changes.vanished] + [""]
    else:
        out += [w["vanished_none"], ""]
    return "\n".join(out)


def _called(sections: dict, key: tuple[str, str], lang: str) -> str:
    """A section named in running text: its title quoted, or its id when its side records no title."""
    title = sections.get(key, {}).get("title")
    return WORDS[lang]["quoted"].format(t=title[lang]) if title and lang in title else f"`#{key[1]}`"


def _shift(moved: Moved, before: dict, after: dict, pages: dict, old_pages: dict, lang: str) -> str:
    """One section retitled, renamed or moved: linked where it is now, what it was and where."""
    w = WORDS[lang]
    o, n = moved.old, moved.new

    def where(place: Place, sections: dict) -> list[str]:
        """Its earlier page (if it changed page), the section it lay or lies in (if that changed), the
        sibling before it."""
        said, page = [], None
        if o.page != n.page and sections is before:
            page = _page_link(o.page, pages, lang) if o.page in pages else \
                old_pages[o.page]["title"][lang] if o.page in old_pages else o.page
            said.append(w["on"].format(page=page))
        if place.parent is not None and (o.page != n.page or o.parent != n.parent):
            if place.parent == "":  # a level-1 heading's
                said.append(w["top"])
            else:
                parent = _called(sections, (place.page, place.parent), lang)
                said[-1:] = [w["on_under"].format(page=page, t=parent)] if page else [*said, w["under"].format(t=parent)]
        said.append(w["foremost"] if place.after is None else w["placed_after"].format(t=_called(sections, (place.page, place.after), lang)))
        return said

    was = ([w["id"].format(id=o.id)] if "renamed" in moved.how else []) + \
          ([w["titled"].format(t=_called(before, (o.page, o.id), lang))] if "retitled" in moved.how else [])
    now = ""
    if "moved" in moved.how:
        was += where(o, before)
        now = w["now"].format(new=w["clause"].join(where(n, after)))
    title = after[(n.page, n.id)]["title"][lang]
    return w["shift"].format(link=_page_link(n.page, pages, lang, n.id, title), how=w["and"].join(w[h] for h in moved.how),
                             old=w["clause"].join(was), now=now)


@lru_cache(maxsize=None)
def _compared(root: str, version: str) -> tuple[Changes | None, dict | None, dict | None]:
    """(changes, this tree's snapshot, the previous release's) once per build, for both languages."""
    tag = previous_release(Path(root), version)
    if tag is None:
        return None, None, None
    old = release_snapshot(tag, Path(root))
    if old.get("format") not in snap.READS:
        raise ChangesError(f"the snapshot of {tag} has format {old.get('format')}, this reader reads {snap.READS}")
    new = snap.snapshot(Path(root))
    new["tables"] = tables.snapshot()
    changes = diff(old, new)
    for page, anchor in changes.vanished:
        log.warning(f"what changed: the anchor #{anchor} of {page or 'a figure'} in {tag} is gone without a note "
                    "saying where it went; keep it on a short note (`{: #" + anchor + " }`) or keep the figure")
    return changes, new, old


def forget() -> None:
    """A new build (mkdocs serve) compares again."""
    _compared.cache_clear()


def expand(markdown_text: str, lang: str, thumbnail_url, page_depth: int, root: Path = ROOT) -> str:
    """The page's `{{ changes }}` replaced by the tables; thumbnail_url(path) is a frame's URL from the
    page (None when it was not written); page_depth: how many folders the page lies below its
    release's (or site's) root, its language's folder included."""
    if not CONSTRUCT.search(markdown_text):
        return markdown_text
    ident = identity.load(root / "pyproject.toml")
    changes, new, old = _compared(str(root), ident.version)

    def thumbnail(fig_id: str, which: str) -> str:
        path = new["figures"][fig_id].get("thumb") if new else None
        if path is None or thumbnail_url(path) is None:
            return ""
        if which == "before" and not ident.release:
            return WORDS[lang]["at"].format(v=changes.previous)
        # the frame in each scheme: the stylesheet shows the one of the reader's (mha-figures.css)
        shown = []
        if which == "after":
            src, alt = thumbnail_url(path), fig_id
        else:  # the earlier release's frozen frame: mike puts each release in a folder of its own, side by side
            lang_folder = "" if lang == "zh" else f"{lang}/"
            src, alt = "../" * page_depth + f"../{changes.previous}/{lang_folder}figures/{path}", f"{fig_id} ({changes.previous})"
        if src is not None:
            # one file, both looks: its dark one at #dark (engine/dark.py); HTML, not Markdown: MkDocs
            # would look for these files among the docs' and warn
            for look, fragment in (("light", ""), ("dark", "#dark")):
                shown.append(f'<img class="mha-{look}" src="{src}{fragment}" alt="{alt}" width="160" loading="lazy">')
        return "".join(shown)

    return CONSTRUCT.sub(lambda m: markdown(changes, new, lang, old, thumbnail), markdown_text)
