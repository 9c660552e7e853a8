"""The "what changed" page (figures/site/changes.py): two snapshots compared (snapshot_diff.py), the previous release
chosen among the tags, and the snapshot of this tree (figures/publish/snapshot.py)."""

import re
import subprocess

import pytest
import yaml

from figures.publish import snapshot
from figures.site import changes, snapshot_diff

ROOT = snapshot.ROOT


def _page(name, values=(), anchors=(), figures=(), sections=(("", "a"),), title="T"):
    return {"page": name, "title": {"zh": f"{title}zh", "en": f"{title}en"}, "values": list(values),
            "anchors": list(anchors), "figures": list(figures),
            "sections": [{"id": i, "level": 2, "title": {"zh": f"{i}zh", "en": f"{i}en"}, "digest": {"zh": d, "en": d}}
                         for i, d in sections]}


OLD = {"format": 1, "version": "1.0.0",
       "quantities": {"toy.n": 6, "blend.peak": 0.5, "gone.q": 1},  # gone.q: printed on old.md, then removed
       "figures": {"blend": {"data": {"zh": "x", "en": "y"}, "thumb": "blend/a.svg"},
                   "same": {"code": "c", "thumb": "same.svg"},
                   "retired": {"code": "r", "thumb": "retired.svg"}},
       "pages": [_page("index.md", ["toy.n"], ["intro", "fig-same"], ["same"]),
                 _page("one.md", ["blend.peak"], ["one", "kept", "dropped", "fig-blend", "fig-retired"],
                       ["blend", "retired"], [("", "a"), ("kept", "k"), ("edited", "e")]),
                 _page("old.md", ["gone.q"], ["old"], title="Old")]}
NEW = {"format": 1, "version": "1.1.0",
       "quantities": {"toy.n": 6, "blend.peak": 0.625, "new.q": 2},
       "figures": {"blend": {"data": {"zh": "x2", "en": "y2"}, "thumb": "blend/a.svg"},
                   "same": {"code": "c", "thumb": "elsewhere.svg"}, "fresh": {"code": "f", "thumb": "fresh.svg"}},
       "pages": [_page("index.md", ["toy.n"], ["intro", "fig-same"], ["same"]),
                 _page("one.md", ["blend.peak"], ["one", "kept", "fig-blend", "fig-retired", "edited", "more"],
                       ["blend", "fresh"], [("", "a"), ("kept", "k"), ("edited", "E"), ("more", "m")], title="One"),
                 _page("new.md", [], ["new"])]}


def test_two_snapshots_give_the_pages_figures_and_numbers_that_changed():
    found = snapshot_diff.diff(OLD, NEW)
    assert found.previous == "1.0.0"
    assert (found.pages_added, found.pages_removed) == (["new.md"], ["old.md"])
    assert found.pages_edited == {"one.md": ["edited"]} and found.sections_added == {"one.md": ["more"]}
    assert found.figures_changed == ["blend"]  # `same` moved its thumbnail only: its data is the same
    assert (found.figures_added, found.figures_removed) == (["fresh"], ["retired"])
    assert found.numbers == [("blend.peak", 0.5, 0.625, ["one.md"]), ("gone.q", 1, None, ["old.md"])]
    # one.md's #dropped is gone; retired's anchor stays as a note (fig-retired); old.md went with its page
    assert found.vanished == [("one.md", "dropped"), ("old.md", "old")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_tables_name_each_change_with_its_old_and_new_value_and_link_the_pages(lang):
    text = changes.markdown(snapshot_diff.diff(OLD, NEW), NEW, lang, OLD, lambda fig_id, which: f"<{which} {fig_id}>")
    rows = [line for line in text.splitlines() if line.startswith("| `blend.peak`")]
    assert rows == [f"| `blend.peak` | 0.5 | 0.625 | [One{lang}](one.md) |"]
    assert f"| [`blend`](one.md#fig-blend) | <before blend> | <after blend> |" in text
    # the header as a reader reads it (a key given twice in WORDS once made it "after {t}")
    assert {"zh": "| 图 | 之前（1.0.0） | 现在 |", "en": "| Figure | Before (1.0.0) | Now |"}[lang] in text
    w = changes.WORDS[lang]
    assert (f"- [One{lang}](one.md){w['sep']}{w['section']}{w['colon']}[edited{lang}](one.md#edited){w['sep']}"
            f"{w['new_sections']}{w['colon']}[more{lang}](one.md#more)") in text  # in the language's punctuation
    assert f"[T{lang}](new.md)" in text and f"- Old{lang}" in text  # added (linked), removed (its old title)
    assert f"| `gone.q` | 1 | {changes.WORDS[lang]['gone']} | Old{lang} |" in text  # a number no longer printed
    assert "`one.md#dropped`" in text and "`old.md#old`" in text
    assert "toy.n" not in text  # unchanged
    for anchor in ("changes-pages", "changes-pages-added", "changes-pages-removed", "changes-pages-edited",
                   "changes-figures", "changes-figures-added", "changes-figures-removed", "changes-numbers",
                   "changes-anchors"):
        assert f"{{#{anchor}}}" in text


@pytest.mark.parametrize("lang, says", [("en", "first release"), ("zh", "第一个版本")])
def test_with_no_earlier_release_the_page_says_it_is_the_first(lang, says):
    """(Once the key of "first" in a section's place overwrote it: the page said "first" alone.)"""
    text = changes.markdown(None, None, lang, None)
    assert says in text and text.endswith("\n") and text.count("\n") == 1, text


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.org", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@e.org", "PATH": "/usr/bin:/bin"})


def test_the_previous_release_is_the_newest_earlier_tag_that_head_descends_from(tmp_path, monkeypatch):
    monkeypatch.delenv(changes.PREVIOUS_ENV, raising=False)
    assert changes.previous_release(tmp_path, "1.1.0") is None  # not a repository: the first release
    _git(tmp_path, "init", "-q", "-b", "main")
    for tags in (["v0.9.0"], ["v0.10.0", "not-a-release", "v2.0"], []):
        _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "c")
        for tag in tags:
            _git(tmp_path, "tag", tag)
    assert changes.previous_release(tmp_path, "1.1.0") == "v0.10.0"  # by number, not by text: 10 > 9
    _git(tmp_path, "checkout", "-q", "-b", "side", "HEAD~1")
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "side")
    _git(tmp_path, "tag", "v5.0.0")  # on another branch: not an ancestor of main
    _git(tmp_path, "checkout", "-q", "main")
    _git(tmp_path, "tag", "v1.1.0")  # HEAD's own version is not its previous release
    assert changes.previous_release(tmp_path, "1.1.0") == "v0.10.0"
    assert changes.previous_release(tmp_path, "1.2.0") == "v1.1.0"
    monkeypatch.setenv(changes.PREVIOUS_ENV, "v0.9.0")
    assert changes.previous_release(tmp_path, "1.1.0") == "v0.9.0"
    monkeypatch.setenv(changes.PREVIOUS_ENV, "none")
    assert changes.previous_release(tmp_path, "1.1.0") is None
    monkeypatch.setenv(changes.PREVIOUS_ENV, "v9.9.9")
    with pytest.raises(changes.ChangesError, match="v9.9.9"):
        changes.previous_release(tmp_path, "1.1.0")


@pytest.fixture(scope="module")
def this_tree(trained_lm):
    return snapshot.snapshot()  # every number, page 4's too


def test_the_snapshot_of_this_tree_has_every_number_and_every_page_with_its_anchors(this_tree):
    from figures.numbers import quantities
    assert set(this_tree["quantities"]) == set(quantities.QUANTITIES)
    assert all(not isinstance(v, dict) for v in this_tree["quantities"].values())  # every one computed
    nav = yaml.safe_load(re.sub(r"!\w+.*", "", (ROOT / "mkdocs.yml").read_text(encoding="utf-8")))["nav"]
    assert [p["page"] for p in this_tree["pages"]] == nav
    for page in this_tree["pages"]:
        for lang in ("zh", "en"):
            source = (ROOT / "docs" / page["page"].replace(".md", f".{lang}.md")).read_text(encoding="utf-8")
            headed = set(re.findall(r"(?m)^#+ .*\{#([\w-]+)\}\s*$", source))
            assert headed <= set(page["anchors"]), (page["page"], lang, headed - set(page["anchors"]))
            printed = set(re.findall(r"\{\{ *value +([\w.]+)", source))
            assert printed <= set(page["values"]), (page["page"], lang)
            figures = re.findall(r"(?m)^\{\{ *figure +([\w-]+)", source)
            assert {f"fig-{f}" for f in figures} <= set(page["anchors"])
    page4 = next(p for p in this_tree["pages"] if p["page"] == "what-trained-heads-do.md")
    assert "fig-trained-maps" in page4["anchors"]  # a retired figure's note keeps its anchor
    assert all(set(f) >= {"thumb"} and ("data" in f or "code" in f) for f in this_tree["figures"].values())


def test_no_anchor_of_the_previous_release_disappeared_silently(this_tree):
    """Every figure id and anchor of the previous release is still here, as a figure, an anchor or a
    note carrying it; only when this checkout has an earlier release tag."""
    tag = changes.previous_release(ROOT)
    if tag is None:
        pytest.skip("no earlier release tag in this checkout")
    assert snapshot_diff.diff(changes.release_snapshot(tag), this_tree).vanished == []


def test_the_build_warns_naming_an_anchor_gone_without_a_note(monkeypatch, caplog):
    """A warning (which --strict turns into a failed build) per anchor that vanished, once a build."""
    monkeypatch.setattr(changes, "previous_release", lambda root, version: "v1.0.0")
    monkeypatch.setattr(changes, "release_snapshot", lambda tag, root: OLD)
    monkeypatch.setattr(changes.snap, "snapshot", lambda root: NEW)
    changes._compared.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="mkdocs"):
            text = changes.expand("# T\n\n{{ changes }}\n", "en", lambda path: f"figures/{path}", 2, ROOT)
            changes.expand("# T\n\n{{ changes }}\n", "zh", lambda path: f"figures/{path}", 1, ROOT)
    finally:
        changes._compared.cache_clear()
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 2 and "#dropped of one.md in v1.0.0" in warned[0] and "#old of old.md" in warned[1]
    assert "`one.md#dropped`" in text and "{{ changes }}" not in text
    # not a release: the earlier frame is named, not linked (its frozen folder is not beside this build)
    assert '<img class="mha-light" src="figures/blend/a.svg"' in text and changes.WORDS["en"]["at"].format(v="1.0.0") in text
    # and in the dark scheme, its dark drawing (the stylesheet shows the one of the reader's scheme)
    assert '<img class="mha-dark" src="figures/blend/a.svg#dark"' in text


def _tables(ppl: str, row_name: str = "h = 8", extra=None):
    """A table snapshot: one table, `head-count`, in both languages (the zh heads in Chinese)."""
    rows = [["h = 1", "512", "5.29"], [row_name, "64", ppl]] + ([extra] if extra else [])
    return {"head-count": {"zh": [["头数", "头宽", "困惑度"], *rows], "en": [["heads", "width", "perplexity"], *rows]},
            "notation": {"zh": [["符号", "含义"], ["$h$", "头数"]], "en": [["symbol", "meaning"], ["$h$", "number of heads"]]}}


def test_a_table_cell_holding_a_number_that_changed_is_listed_by_table_row_and_column():
    old, new = dict(OLD, tables=_tables("4.91")), dict(NEW, tables=_tables("4.88", extra=["h = 16", "32", "5.01"]))
    new["pages"] = [dict(p, tables=["head-count"] if p["page"] == "one.md" else []) for p in new["pages"]]
    found = snapshot_diff.diff(old, new)
    assert found.cells["en"] == [("head-count", "h = 8", "perplexity", "4.91", "4.88", ["one.md"]),
                                 ("head-count", "h = 16", "width", "–", "32", ["one.md"]),
                                 ("head-count", "h = 16", "perplexity", "–", "5.01", ["one.md"])]
    assert found.cells["zh"][0] == ("head-count", "h = 8", "困惑度", "4.91", "4.88", ["one.md"])
    # a cell of words that changed is no number; an earlier release without its tables gives none
    words = dict(NEW, tables=_tables("4.91"))
    words["tables"]["notation"]["en"][1][1] = "heads"
    assert snapshot_diff.diff(old, words).cells["en"] == [] and snapshot_diff.diff(OLD, new).cells["en"] == []
    for lang in ("zh", "en"):
        text = changes.markdown(found, new, lang, old)
        row = changes.WORDS[lang]["cell"].format(table="head-count", row="h = 8", column=found.cells[lang][0][2])
        assert f"| {row} | 4.91 | 4.88 | [One{lang}](one.md) |" in text


def test_the_tables_snapshot_holds_every_table_a_page_prints_as_the_page_prints_it(trained_lm):
    from figures.site import tables
    found = tables.snapshot()
    printed = {name for page in snapshot.snapshot(ROOT)["pages"] for name in page["tables"]}
    assert printed and printed <= set(found)
    for name in printed:
        for lang in ("zh", "en"):
            head, *rows = found[name][lang]
            markdown = tables.table_markdown(name, lang, "test")
            assert "| " + " | ".join(head) + " |" in markdown
            assert all("| " + " | ".join(r) + " |" in markdown for r in rows)


def _markdown(heads, lang):
    """A page's Markdown in `lang` from (level, id, title, text) rows; the Chinese twin's titles and
    texts marked "中" so that the languages differ."""
    mark = "中" if lang == "zh" else ""
    return "\n\n".join((f"{'#' * level} {mark}{title} {{#{i}}}" if level else "")  # level 0: the opening's text
                       + (f"\n\n{mark}{text}" if text else "") for level, i, title, text in heads).lstrip("\n") + "\n"


def _tree(version, pages):
    """The snapshot of a small fake tree, its sections read from its Markdown by the snapshot's code."""
    out = []
    for name, heads in pages.items():
        texts = {lang: _markdown(heads, lang) for lang in ("zh", "en")}
        out.append({"page": name, "title": {lang: heads[0][2] + lang for lang in texts},
                    "sections": snapshot.page_sections(texts), "anchors": snapshot.anchors(texts["zh"], []),
                    "figures": [], "values": [], "tables": []})
    return {"format": snapshot.FORMAT, "version": version, "quantities": {}, "figures": {}, "pages": out}


# 1.0.0 -> 1.1.0: #shapes retitled; #detail moved from #heads to #loop; #setup moved after #loop;
# #old-name given a new id, #new-name, its text kept; #travel moved from b.md to a.md, its text edited;
# the rest kept
A = [(1, "a", "A", "a's opening"), (2, "setup", "Setup", "setup text"), (2, "shapes", "Shapes", "shapes text"),
     (2, "heads", "Heads", "heads text"), (3, "detail", "Detail", "detail text"), (2, "loop", "Loop", "loop text"),
     (2, "old-name", "Old name", "a text kept word for word")]
B = [(1, "b", "B", "b's opening"), (2, "costs", "Costs", "costs text"), (2, "travel", "Travel", "travel text")]
TREE_OLD = _tree("1.0.0", {"a.md": A, "b.md": B})
TREE_NEW = _tree("1.1.0", {
    "a.md": [A[0], (2, "shapes", "Tensor shapes", "shapes text"), A[3], A[5], A[4], A[1],
             (2, "new-name", "New name", "a text kept word for word"), (2, "travel", "Travel", "travel text, edited")],
    "b.md": B[:2]})


def test_the_snapshot_gives_each_section_its_id_level_parent_position_title_and_text():
    text = _markdown(A, "en")
    found = snapshot.page_sections({"zh": _markdown(A, "zh"), "en": text})
    assert [(s["id"], s["level"], s["parent"], s["position"]) for s in found] == [
        ("", 0, None, 0), ("a", 1, "", 0), ("setup", 2, "a", 0), ("shapes", 2, "a", 1), ("heads", 2, "a", 2),
        ("detail", 3, "heads", 0), ("loop", 2, "a", 3), ("old-name", 2, "a", 4)]
    assert found[3]["title"] == {"zh": "中Shapes", "en": "Shapes"}
    # the text's digest is not the title's, nor the blank lines' around it: retitled, or last on its
    # page, a section's text is the same
    retitled = snapshot.page_sections({"en": text.replace("# Shapes", "# Tensor shapes") + "\n\n"})
    assert [s["text"]["en"] for s in retitled] == [s["text"]["en"] for s in found]
    assert retitled[3]["title"]["en"] == "Tensor shapes" and retitled[-1]["digest"] != found[-1]["digest"]["en"]
    assert len({s["text"]["en"] for s in found}) == len(found)


def _moves():
    found = snapshot_diff.diff(TREE_OLD, TREE_NEW)
    return found, {m.new.id: m for m in found.sections_moved["a.md"]}


def test_a_retitled_heading_is_listed_with_its_old_title():
    found, moved = _moves()
    assert moved["shapes"].how == ("retitled",)
    assert (moved["shapes"].old.id, moved["shapes"].new.id) == ("shapes", "shapes")
    assert "shapes" not in found.pages_edited["a.md"]  # its text is the same: retitled, not edited


def test_a_section_moved_within_its_page_is_listed_with_its_old_and_new_place():
    found, moved = _moves()
    # into another section: from under #heads to under #loop
    assert moved["detail"].how == ("moved",)
    assert (moved["detail"].old.parent, moved["detail"].new.parent) == ("heads", "loop")
    # among its siblings: #setup went from first to after #loop; the others kept their order
    assert moved["setup"].how == ("moved",)
    assert (moved["setup"].old.after, moved["setup"].new.after) == (None, "loop")
    assert not {"heads", "loop"} & set(moved) and found.pages_edited["a.md"] == ["travel"]


def test_a_section_moved_to_another_page_is_listed_with_the_page_it_left():
    """Found by its id, the one page that has it now (its text was edited on the way)."""
    found, moved = _moves()
    assert moved["travel"].how == ("moved",) and "travel" in found.pages_edited["a.md"]
    assert (moved["travel"].old, moved["travel"].new) == (snapshot_diff.Place("b.md", "travel", "b", "costs"),
                                                          snapshot_diff.Place("a.md", "travel", "a", "new-name"))
    assert "b.md" not in found.pages_edited  # b.md lost it, and its #costs is now last: no edit
    assert found.sections_removed.get("a.md") == [] and found.sections_added.get("a.md") == []


def test_a_section_given_a_new_id_is_found_by_its_text():
    found, moved = _moves()
    assert moved["new-name"].how == ("retitled", "renamed")
    assert moved["new-name"].old == snapshot_diff.Place("a.md", "old-name", "a", "loop")
    # a text that two sections share, or none (a heading right above another), names no section
    twice = snapshot_diff.diff(TREE_OLD, _tree("1.1.0", {"a.md": TREE_NEW_A_TWICE, "b.md": B[:2]}))
    assert "old-name" in twice.sections_removed["a.md"] and {"new-name", "copy"} <= set(twice.sections_added["a.md"])
    empty = [(0, "", "", "text above the title"), (1, "a", "A", "a's opening"), (2, "old", "Old", ""),
             (3, "inner", "Inner", "inner text")]
    blank = snapshot_diff.diff(_tree("1.0.0", {"a.md": empty}), _tree("1.1.0", {"a.md": [*empty[:2], (2, "new", "New", ""), empty[3]]}))
    assert (blank.sections_added, blank.sections_removed) == ({"a.md": ["new"]}, {"a.md": ["old"]})


TREE_NEW_A_TWICE = [A[0], (2, "new-name", "New name", "a text kept word for word"),
                    (2, "copy", "Copy", "a text kept word for word")]


def test_a_new_id_still_leaves_the_old_anchor_gone_without_a_note():
    """Found again or not, an id the earlier release had on its page is a build warning until a note
    keeps it: the anchor check is the same."""
    assert snapshot_diff.diff(TREE_OLD, TREE_NEW).vanished == [("a.md", "old-name"), ("b.md", "travel")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_section_retitled_renamed_or_moved_is_listed_under_its_page_linked(lang):
    w = changes.WORDS[lang]
    mark = "中" if lang == "zh" else ""
    text = changes.markdown(snapshot_diff.diff(TREE_OLD, TREE_NEW), TREE_NEW, lang, TREE_OLD)
    page = text[text.index(f"- [A{lang}](a.md)"):text.index("## ", text.index(f"- [A{lang}](a.md)"))]
    lines = [line.removeprefix("    - ") for line in page.splitlines()[1:] if line.startswith("    - ")]

    def title(t):
        return w["quoted"].format(t=mark + t)

    def said(link, how, old, new=None):
        return w["shift"].format(link=link, how=w["and"].join(w[h] for h in how), old=w["clause"].join(old),
                                 now=w["now"].format(new=w["clause"].join(new)) if new else "")

    assert lines == [
        said(f"[{mark}Tensor shapes](a.md#shapes)", ["retitled"], [w["titled"].format(t=title("Shapes"))]),
        said(f"[{mark}Detail](a.md#detail)", ["moved"], [w["under"].format(t=title("Heads")), w["foremost"]],
             [w["under"].format(t=title("Loop")), w["foremost"]]),
        said(f"[{mark}Setup](a.md#setup)", ["moved"], [w["foremost"]], [w["placed_after"].format(t=title("Loop"))]),
        said(f"[{mark}New name](a.md#new-name)", ["retitled", "renamed"],
             [w["id"].format(id="old-name"), w["titled"].format(t=title("Old name"))]),
        said(f"[{mark}Travel](a.md#travel)", ["moved"],
             [w["on_under"].format(page=f"[B{lang}](b.md)", t=title("B")), w["placed_after"].format(t=title("Costs"))],
             [w["under"].format(t=title("A")), w["placed_after"].format(t=title("New name"))]),
    ]
    assert w["no_titles"].format(v="1.0.0") not in text
    assert {"zh": "[中Travel](a.md#travel)：挪了位置。原来在[Bzh](b.md)页的“中B”一节下，排在“中Costs”之后；"
                  "现在在“中A”一节下，排在“中New name”之后。",
            "en": "[Travel](a.md#travel): moved; before: on [Ben](b.md), under “B”, after “Costs”; "
                  "now: under “A”, after “New name”."}[lang] == lines[-1]  # as a reader reads it
    assert {"zh": "[中Detail](a.md#detail)：挪了位置。原来在“中Heads”一节下，排在最前；现在在“中Loop”一节下，排在最前。",
            "en": "[Detail](a.md#detail): moved; before: under “Heads”, first; now: under “Loop”, first."}[lang] == lines[1]


def _older(tree, *keys):
    """`tree` as an earlier release's code would give it, without the sections' `keys`."""
    return dict(tree, pages=[dict(p, sections=[{k: v for k, v in s.items() if k not in keys} for s in p["sections"]])
                             for p in tree["pages"]])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_earlier_snapshot_is_compared_on_what_it_gives(lang):
    # format 1: no parent, position nor trimmed text; the places come from the levels, the same moves,
    # but its texts' digests count the blank lines: #old-name was last on its page, #new-name is not
    formats = snapshot_diff.diff(_older(TREE_OLD, "parent", "position", "text"), TREE_NEW)
    now = snapshot_diff.diff(TREE_OLD, TREE_NEW).sections_moved["a.md"]
    assert formats.sections_moved["a.md"] == [m for m in now if m.new.id != "new-name"] and formats.unknown == []
    # no titles nor levels: nothing is retitled; moved by page or order only; the page says it
    found = snapshot_diff.diff(_older(TREE_OLD, "parent", "position", "level", "title"), TREE_NEW)
    assert found.unknown == ["titles", "places"]
    moved = {m.new.id: m.how for m in found.sections_moved["a.md"]}
    # in the page's order, #detail now comes after #loop, #setup after #detail
    assert moved == {"detail": ("moved",), "setup": ("moved",), "new-name": ("renamed",)}
    # #travel, edited on its way to a.md, is alike in nothing the earlier side gives: gone and new
    assert found.sections_removed["b.md"] == ["travel"] and found.sections_added["a.md"] == ["travel"]
    text = changes.markdown(found, TREE_NEW, lang, _older(TREE_OLD, "title"))
    w = changes.WORDS[lang]
    assert w["no_titles"].format(v="1.0.0") in text and w["no_places"].format(v="1.0.0") in text
    assert w["id"].format(id="old-name") in text  # the earlier side named by its ids:
    assert w["placed_after"].format(t="`#heads`") in text and w["sections_removed"] + w["colon"] + "`#travel`" in text


@pytest.mark.parametrize("module", ["figures.publish.snapshot", "figures.site.tables"])
def test_the_snapshot_commands_refuse_an_argument_they_do_not_take(monkeypatch, capsys, module):
    """They take none; `--out x` was ignored and the snapshot printed anyway."""
    import runpy
    monkeypatch.setattr("sys.argv", [module, "--out", "x"])
    with pytest.raises(SystemExit) as e:
        runpy.run_module(module, run_name="__main__")
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and err.strip().splitlines()[-1].endswith("error: unrecognized arguments: --out x")
