"""What a build keeps so that the next build does not do it again: each module's facts for the
digests, the published files of a frame, a figure's data table, the training sentences' counts,
the modules a language build imported, and the figure files the site links instead of writing. Each is read back instead of made, and made again when what
it is made from changes."""

import hashlib
import logging
import os
import sys
import types

import pytest

from figures.engine import registry
from figures.engine.cache import WHOLE, FigureCache, from_env
from figures.engine.render import render_files
from figures.publish import bundles, expansions
from figures.publish.numbering import site_numbers
from figures.site import hooks
from figures.keep import disk, reach, tiny_lm
from mha_ref.tiny import lm_heads


def _tree(root, files: dict) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


FILES = {"mha_ref/__init__.py": "", "mha_ref/a.py": "from .b import g\n\ndef f(x):\n    return g(x)\n",
         "mha_ref/b.py": "def g(x):\n    return 2 * x\n"}


def test_a_modules_facts_are_read_from_the_cache_not_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "cache"))
    _tree(tmp_path / "repo", FILES)
    monkeypatch.setattr(reach, "_PARSED", {})
    digest = reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f"))
    assert len(list((tmp_path / "cache" / "code").glob("*.json" + disk.SEALED))) == 2  # a.py and b.py

    def refused(*args, **kwargs):
        raise AssertionError("parsed again")
    monkeypatch.setattr(reach, "_PARSED", {})  # a new process
    monkeypatch.setattr(reach.ast, "parse", refused)
    assert reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f")) == digest
    _tree(tmp_path / "repo", {"mha_ref/b.py": "def g(x):\n    return 3 * x\n"})  # an edit is parsed afresh
    with pytest.raises(AssertionError, match="parsed again"):
        reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f"))
    monkeypatch.undo()
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "cache"))
    assert reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f")) != digest


def test_a_damaged_facts_file_is_dropped_and_the_module_parsed_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "cache"))
    _tree(tmp_path / "repo", FILES)
    monkeypatch.setattr(reach, "_PARSED", {})
    digest = reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f"))
    for kept in (tmp_path / "cache" / "code").glob("*.json" + disk.SEALED):
        kept.write_text("{not json")
    monkeypatch.setattr(reach, "_PARSED", {})
    with caplog.at_level(logging.WARNING):
        assert reach.CodeReach(tmp_path / "repo").digest(("mha_ref.a", "f")) == digest
    assert "a module's facts" in caplog.text and "dropped" in caplog.text


@pytest.fixture
def a_frame():
    """One frame of peak-dip, drawn (or taken from the session's cache), as the build hands it on."""
    return next(iter(render_files(["en"], ["peak-dip"], ("svg",), from_env())))


def test_a_published_frame_is_kept_and_made_again_when_its_attribution_changes(a_frame, tmp_path, monkeypatch):
    numbers, cache = site_numbers(), FigureCache(tmp_path)

    def written(numbers) -> bytes:
        out = {}
        bundles.write_all([a_frame], numbers, lambda lang, path, data: out.setdefault(path, data), zips=False, cache=cache)
        return out[a_frame.frame.path("svg")]
    made = written(numbers)
    bundles.write_all([a_frame], numbers, lambda lang, path, data: None, zips=False)  # no cache: made as before
    assert made == bundles.published(a_frame, bundles.attribution(a_frame.frame, "en", numbers.get("peak-dip")))

    def refused(*args):
        raise AssertionError("published again")
    monkeypatch.setattr(bundles, "published", refused)
    assert written(numbers) == made  # read back
    elsewhere = {**numbers, "peak-dip": None}  # unplaced: another title and address inside the file
    with pytest.raises(AssertionError, match="published again"):
        written(elsewhere)


def test_a_data_table_is_kept_with_its_figures_frames(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    fig_id = "head-planes"
    bundles.data_table.cache_clear()
    table = bundles.data_table(fig_id, "zh")
    module = registry.get(fig_id)

    def refused(lang):
        raise AssertionError("computed again")
    monkeypatch.setattr(module, "data", refused)
    bundles.data_table.cache_clear()
    assert bundles.data_table(fig_id, "zh") == table  # read back, the same cells
    cache = from_env()
    (kept,) = (cache.folder / bundles.TABLES).glob("*.zh.json" + disk.SEALED)
    cache.put(kept.with_suffix(""), b"[not a table")
    bundles.data_table.cache_clear()
    with pytest.raises(registry.FigureError, match="computed again"):  # dropped, computed again
        bundles.data_table(fig_id, "zh")
    bundles.data_table.cache_clear()


def test_the_training_counts_are_kept_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    tiny_lm.training_counts.cache_clear()
    counts = tiny_lm.training_counts()
    assert counts.sum() == sum(len(s.tokens) for s in lm_heads.lm_train.data()[0])

    def refused(config):
        raise AssertionError("counted again")
    monkeypatch.setattr(lm_heads, "training_counts", refused)
    tiny_lm.training_counts.cache_clear()
    assert (tiny_lm.training_counts() == counts).all()
    tiny_lm.training_counts.cache_clear()


def test_a_build_forgets_our_modules_only_when_their_files_changed(tmp_path, monkeypatch):
    """static-i18n's second language build and a rebuild with nothing edited keep the imported
    modules (and what they computed); an edit to any file of the packages drops them all."""
    _tree(tmp_path, {"pkg_one/__init__.py": "", "pkg_one/a.py": "X = 1\n", "pkg_two/data.txt": "1\n"})
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    monkeypatch.setattr(hooks, "OUR_PACKAGES", ("pkg_one", "pkg_two"))
    monkeypatch.setattr(hooks, "_imported_from", None)

    def imported() -> set:
        for name in ("pkg_one", "pkg_one.a", "pkg_two"):
            monkeypatch.setitem(sys.modules, name, sys.modules.get(name) or types.ModuleType(name))
        return {"pkg_one", "pkg_one.a", "pkg_two"}

    imported()
    hooks._forget_edited_code()  # the first build: nothing known, all forgotten
    assert not {"pkg_one", "pkg_one.a", "pkg_two"} & set(sys.modules)
    names = imported()
    hooks._forget_edited_code()
    assert names <= set(sys.modules)  # unchanged: kept
    (tmp_path / "pkg_two" / "data.txt").write_text("2\n")
    hooks._forget_edited_code()
    assert not names & set(sys.modules)


def test_an_expanded_page_is_kept_unless_it_holds_an_error_card(tmp_path, monkeypatch):
    from figures.site import markup
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    made = []

    def make(text):
        def expand():
            made.append(text)
            return text, ["peak-dip"]
        return expand
    page = ("# A page", "en", "docs/a.en.md", 1, "{}", "a.md", False, "a/", "files")
    assert markup.kept_expansion(page, make("<p>expanded</p>")) == ("<p>expanded</p>", ["peak-dip"])
    assert markup.kept_expansion(page, make("<p>again</p>")) == ("<p>expanded</p>", ["peak-dip"])  # read back
    other = ("# A page, edited", *page[1:])
    assert markup.kept_expansion(other, make("<p>edited</p>"))[0] == "<p>edited</p>"
    monkeypatch.setattr(markup.expansions, "code", lambda figures=(): "other code")  # an edit to the code: made again
    assert markup.kept_expansion(page, make("<p>new code</p>"))[0] == "<p>new code</p>"
    card = '<div class="mha-figure-error admonition failure" id="fig-x">'
    failing = ("# Failing", *page[1:])
    assert markup.kept_expansion(failing, make(card))[0] == card
    assert markup.kept_expansion(failing, make("<p>drawn in time</p>"))[0] == "<p>drawn in time</p>"
    assert made == ["<p>expanded</p>", "<p>edited</p>", "<p>new code</p>", card, "<p>drawn in time</p>"]


def test_a_caption_is_expanded_once_and_read_back_until_its_text_or_the_code_changes(tmp_path, monkeypatch):
    from figures.publish import attribution, expansions
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    attribution._expanded.cache_clear()
    caption = attribution.caption("peak-dip", "en")
    assert "{{ value" in registry.get("peak-dip").CAPTION_EN and "{{ value" not in caption and len(list((tmp_path / expansions.CAPTIONS).glob("*.json" + disk.SEALED))) == 1

    def refused(text):
        raise AssertionError("expanded again")
    monkeypatch.setattr(attribution, "expand_values", refused)
    attribution._expanded.cache_clear()  # a new process
    assert attribution.caption("peak-dip", "en") == caption  # read back
    # placed elsewhere (a page's prose edited above it): the same words, read back
    assert attribution.caption("peak-dip", "en", "docs/one-head-blends.en.md:80") == caption
    module = registry.get("peak-dip")
    monkeypatch.setattr(module, "CAPTION_EN", module.CAPTION_EN + " One more sentence.")
    with pytest.raises(AssertionError, match="expanded again"):
        attribution.caption("peak-dip", "en")
    monkeypatch.undo()
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(expansions, "code", lambda figures=(): "other code")  # an edit to the code
    monkeypatch.setattr(attribution, "expand_values", refused)
    attribution._expanded.cache_clear()
    with pytest.raises(AssertionError, match="expanded again"):
        attribution.caption("peak-dip", "en")
    attribution._expanded.cache_clear()


def test_the_code_digest_of_expansions_ignores_comments_and_follows_code(tmp_path, monkeypatch):
    from figures.publish import expansions
    (tmp_path / "figures" / "gallery").mkdir(parents=True)
    (tmp_path / "figures" / "gallery" / "peak_dip.py").write_text("CAPTION_EN = 'a'\n")
    (tmp_path / "mha_ref").mkdir()
    (tmp_path / "mha_ref" / "__init__.py").write_text("")
    (tmp_path / "mha_ref" / "a.py").write_text("X = 1\n")
    monkeypatch.setattr(expansions, "ROOT", tmp_path)

    def code(figures=()) -> str:
        for memo in (expansions._facts, expansions._shared, expansions.code):
            memo.cache_clear()
        return expansions.code(figures)
    first = code()
    (tmp_path / "mha_ref" / "a.py").write_text("X = 1  # a comment\n")
    assert code() == first
    (tmp_path / "mha_ref" / "a.py").write_text("X = 1\n\ndef f():\n    return X\n")
    with_f = code()
    assert with_f != first
    (tmp_path / "mha_ref" / "a.py").write_text("X = 1\n# f, linked by its line, moves down one\n\ndef f():\n    return X\n")
    assert code() != with_f
    (tmp_path / "mha_ref" / "a.py").write_text("X = 1\n")
    (tmp_path / "mha_ref" / "a.py").write_text("X = 2\n")
    second, of_peak_dip, of_another = code(), code(("peak-dip",)), code(("blend-rows",))
    assert second != first
    # a figure's own module counts only for what names that figure
    (tmp_path / "figures" / "gallery" / "peak_dip.py").write_text("CAPTION_EN = 'b'\n")
    assert code() == second and code(("blend-rows",)) == of_another and code(("peak-dip",)) != of_peak_dip
    monkeypatch.setenv("MHA_DOWNLOADS", "0")
    assert code() not in (first, second)
    for memo in (expansions._facts, expansions._shared, expansions.code):
        memo.cache_clear()


def test_a_page_is_expanded_again_when_a_figure_it_places_is_edited_and_only_then(tmp_path, monkeypatch):
    from figures.publish import expansions
    from figures.site import markup
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(expansions, "code", lambda figures=(): f"code of {figures}")
    made = []

    def expand(text):
        def make():
            made.append(text)
            return text, []
        return make
    page = ("{{ figure peak-dip }}\n", "en", "docs/a.en.md", 1, "{}", "a.md", False, "a/", "files")
    gallery = ("{{ gallery }}\n", *page[1:])
    markup.kept_expansion(page, expand("page"))
    markup.kept_expansion(gallery, expand("gallery"))
    monkeypatch.setattr(expansions, "code", lambda figures=(): f"code of {figures}" + " edited" * ("peak-dip" in figures))
    markup.kept_expansion(page, expand("page again"))
    markup.kept_expansion(gallery, expand("gallery again"))
    other = ("{{ figure blend-rows }}\n", *page[1:])
    markup.kept_expansion(other, expand("other"))
    monkeypatch.setattr(expansions, "code", lambda figures=(): f"code of {figures}" + " edited" * ("peak-dip" in figures) * 2)
    markup.kept_expansion(other, expand("other again"))  # peak-dip edited: a page without it is read back
    assert made == ["page", "gallery", "page again", "gallery again", "other"]


def test_a_file_kept_whole_is_named_by_its_bytes_and_written_again_when_damaged(tmp_path):
    cache = FigureCache(tmp_path)
    kept = cache.whole(b"<svg/>", ".svg")
    assert kept.read_bytes() == b"<svg/>" and kept.name == hashlib.sha256(b"<svg/>").hexdigest() + ".svg"
    inode = kept.stat().st_ino
    assert cache.whole(b"<svg/>", ".svg") == kept and kept.stat().st_ino == inode  # found, not written again
    kept.write_bytes(b"<svg")  # damaged in place
    assert cache.whole(b"<svg/>", ".svg") == kept and kept.read_bytes() == b"<svg/>"
    assert kept.stat().st_ino != inode  # a new file: a site linked to the old one keeps what it had
    assert cache.whole(b"<svg></svg>", ".svg") != kept


def test_a_file_kept_whole_is_none_where_the_cache_cannot_be_written(tmp_path, monkeypatch):
    monkeypatch.delenv(disk.UNWRITABLE_ENV, raising=False)
    disk.cache_unwritable(tmp_path, None)
    assert FigureCache(tmp_path).whole(b"<svg/>", ".svg") is None
    assert not (tmp_path / WHOLE).exists()


def _linked_file(tmp_path, kept):
    from mkdocs.config import load_config
    from figures.site import linked
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nsite_dir: site\n")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    config.plugins._current_plugin = "hooks"  # as while MkDocs runs the hooks' on_files
    files = []
    linked.start(config)
    linked.place(config, "figures/a.svg", kept)
    (f,) = linked.add(files, config)
    assert files == [f] and f.url == "figures/a.svg"
    return f


def test_a_placed_figure_file_reaches_the_site_as_a_link_to_the_kept_file(tmp_path):
    kept = FigureCache(tmp_path / "cache").whole(b"<svg/>", ".svg")
    f = _linked_file(tmp_path, kept)
    f.copy_file()
    out = tmp_path / "site" / "figures" / "a.svg"
    assert out.read_bytes() == b"<svg/>" and out.stat().st_ino == kept.stat().st_ino
    f.copy_file()  # a build into the same folder again (--dirty, serve)
    assert out.stat().st_ino == kept.stat().st_ino


def test_where_no_link_can_be_made_a_placed_file_is_copied(tmp_path, monkeypatch):
    kept = FigureCache(tmp_path / "cache").whole(b"<svg/>", ".svg")
    f = _linked_file(tmp_path, kept)

    def cross_device(src, dst):
        raise OSError(18, "Invalid cross-device link")
    monkeypatch.setattr(os, "link", cross_device)
    f.copy_file()
    out = tmp_path / "site" / "figures" / "a.svg"
    assert out.read_bytes() == b"<svg/>" and out.stat().st_ino != kept.stat().st_ino


def test_every_figure_file_of_the_site_is_a_link_to_a_file_kept_whole(site):
    whole = from_env().folder / WHOLE
    kept = {(p.stat().st_dev, p.stat().st_ino): p for p in whole.iterdir() if not p.name.startswith(".")}
    files = [p for folder in ("figures", "en/figures") for p in (site / folder).rglob("*") if p.is_file()]
    assert len(files) > 500
    for p in files:
        source = kept.get((p.stat().st_dev, p.stat().st_ino))
        assert source is not None, f"{p} is not a link to a file of {whole}"
        assert source.name.startswith(hashlib.sha256(p.read_bytes()).hexdigest())


def test_a_pages_finished_html_and_description_are_kept(tmp_path, monkeypatch):
    from figures.site import mathml
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    config = types.SimpleNamespace(plugins={"i18n": types.SimpleNamespace(current_language="en")})

    def page():
        return types.SimpleNamespace(meta={}, file=types.SimpleNamespace(src_uri="a.en.md"), toc=[])
    html = '<p>A page that adds. It adds two numbers, <span class="arithmatex">\\(a+b\\)</span>, and no more.</p>'
    first = page()
    out = hooks.on_page_content(html, first, config, None)
    assert "<math" in out and "arithmatex" not in out and first.meta["description"]

    def refused(*args):
        raise AssertionError("finished again")
    monkeypatch.setattr(mathml, "to_mathml", refused)
    again = page()
    assert hooks.on_page_content(html, again, config, None) == out and again.meta == first.meta  # read back
    with pytest.raises(AssertionError, match="finished again"):
        hooks.on_page_content(html + "<p>Edited.</p>", page(), config, None)
    described = page()
    described.meta["description"] = "its own"  # the page's front matter: not written over, a key of its own
    with pytest.raises(AssertionError, match="finished again"):
        hooks.on_page_content(html, described, config, None)


def test_a_slides_heading_is_set_once_and_kept_with_the_captions(tmp_path, monkeypatch):
    from figures.publish import decks
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    numbers = site_numbers()
    first = decks.page_decks(numbers, "zh", lambda frame: b"%PDF-")

    def refused(text):
        raise AssertionError("set again")
    monkeypatch.setattr(decks, "slide_text", refused)
    assert decks.page_decks(numbers, "zh", lambda frame: b"%PDF-") == first
    assert any("$" in s.heading for deck in first.values() for s in deck.slides)  # maths, as mathtext sets it


# a page as Material's search plugin reads it: headings with ids, Chinese text that jieba cuts
SEARCHED_HTML = ('<h1 id="heads">多头注意力</h1><p>每个头在自己的子空间里计算注意力权重。</p>'
                 '<h2 id="concat">拼接</h2><p>Heads are concatenated, then mixed by W<sub>O</sub>.</p>')


def _searched_page(toc_url="#concat"):
    item = types.SimpleNamespace
    toc = [item(id="heads", url="#heads", children=[item(id="concat", url=toc_url, children=[])])]
    return types.SimpleNamespace(content=SEARCHED_HTML, url="one-head-blends/", toc=toc, title="多头注意力", meta={})


def _material_index():
    from material.plugins.search.plugin import SearchIndex
    return SearchIndex(lang=["zh", "en"], separator=r"[\s\u200b]+", pipeline=[], fields={})


def test_a_pages_search_entries_are_kept_and_are_materials_own(tmp_path, monkeypatch):
    """A page's search entries are Material's, read back from the figure cache while the page, its
    table of contents and its title are unchanged, and made again when one changes."""
    import jieba
    from material.plugins.search.plugin import SearchIndex
    from figures.site import search_memo
    search_memo.install()
    made = SearchIndex.add_entry_from_context.made  # Material's own method, unwrapped
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))

    def own(page):
        index = _material_index()
        made(index, page)
        return index.entries

    def kept(page):
        index = _material_index()
        index.entries.append({"location": "earlier/", "title": "an earlier page", "text": ""})
        index.add_entry_from_context(page)
        return index.entries[1:]

    plain = own(_searched_page())
    assert [e["location"] for e in plain] == ["one-head-blends/", "one-head-blends/#concat"]
    assert "\u200b" in plain[0]["text"]  # cut into words by jieba
    assert kept(_searched_page()) == plain
    assert len(list((tmp_path / search_memo.FOLDER).glob("*.json" + disk.SEALED))) == 1

    def refused(*args, **kwargs):
        raise AssertionError("cut again")
    with monkeypatch.context() as m:
        m.setattr(jieba, "cut", refused)
        assert kept(_searched_page()) == plain  # read back: nothing cut again
        m.setattr(expansions, "code", lambda *args: "an edited checkout")  # whatever else changed
        m.setenv("MHA_OFFLINE", "1")
        assert kept(_searched_page()) == plain
        moved = _searched_page(toc_url="#mixing")  # the same HTML under another anchor in its contents
        with pytest.raises(AssertionError, match="cut again"):
            kept(moved)
    assert kept(moved) == own(_searched_page(toc_url="#mixing")) != plain
    retitled = _searched_page()
    retitled.content = SEARCHED_HTML.replace("拼接", "拼接与混合")
    assert kept(retitled) == own(retitled) != plain
    monkeypatch.setenv(disk.CACHE_ENV, "off")
    assert kept(_searched_page()) == plain


CONVERTED = """# Heads {#heads}

Each head reads [the other page's split](b.md#split), and [a folder](nowhere/) is left as it is.

<div markdown="1" id="fig-x">
A *figure* block in raw HTML.
</div>

## Mixing {#mixing}
"""


def _converting(tmp_path):
    """A config whose extensions are some of the site's, and a page a.md beside b.md."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import File, Files
    (tmp_path / "docs").mkdir(exist_ok=True)
    config = MkDocsConfig()
    config.load_dict({"site_name": "t", "docs_dir": str(tmp_path / "docs"), "site_dir": str(tmp_path / "site"),
                      "markdown_extensions": ["toc", "attr_list", "md_in_html"]})
    assert config.validate() == ([], [])
    files = Files([File(name, config.docs_dir, config.site_dir, True) for name in ("a.md", "b.md")])
    return config, files


def _page(config, files, markdown=CONVERTED):
    from mkdocs.structure.pages import Page
    page = Page(None, files.get_file_from_path("a.md"), config)
    page.markdown = markdown
    return page


def _converted(page):
    """What Page.render left on the page, as plain values."""
    from figures.site import markdown_memo
    return [page.content, markdown_memo._tokens(page.toc), [item.active for item in page.toc], page._title_from_render,
            page.present_anchor_ids, {f.src_uri: a for f, a in (page.links_to_anchors or {}).items()}]


def test_a_pages_conversion_is_kept_and_is_mkdocs_own(tmp_path, monkeypatch, caplog):
    """A page's HTML, contents, title, anchors and links are MkDocs' own, read back from the figure
    cache while the page and the files it may link to are unchanged, with what the conversion
    logged; made again when either changes; not kept when the conversion warned."""
    import markdown
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page
    from figures.site import markdown_memo
    markdown_memo.install()
    made = Page.render.made  # MkDocs' own, unwrapped
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "cache"))
    config, files = _converting(tmp_path)
    kept = tmp_path / "cache" / markdown_memo.FOLDER
    caplog.set_level(logging.INFO, logger="mkdocs")  # as MkDocs logs

    def own(markdown_text=CONVERTED, files=files):
        page = _page(config, files, markdown_text)
        made(page, config, files)
        return _converted(page)

    def converted(markdown_text=CONVERTED, files=files):
        page = _page(config, files, markdown_text)
        page.render(config, files)
        return _converted(page)

    plain = own()
    assert 'id="fig-x"' in plain[0] and plain[3] == "Heads" and {"heads", "mixing", "fig-x"} <= plain[4]
    assert plain[5] == {"b.md": {"split": "b.md#split"}}
    assert converted() == plain
    assert len(list(kept.glob("*.json" + disk.SEALED))) == 1

    def refused(*args, **kwargs):
        raise AssertionError("converted again")
    with monkeypatch.context() as m:
        m.setattr(markdown.Markdown, "convert", refused)
        caplog.clear()
        assert converted() == plain  # read back: nothing converted again
        assert [(r.name, r.levelno) for r in caplog.records] == [("mkdocs.structure.pages", logging.INFO)]
        assert "unrecognized relative link 'nowhere/'" in caplog.records[0].getMessage()  # replayed
        # nor after an edit elsewhere (a figure, the reference) or another build's switches
        m.setattr(expansions, "code", lambda *args: "an edited checkout")
        m.setenv("MHA_OFFLINE", "1")
        assert converted() == plain
        edited = CONVERTED.replace("## Mixing", "## Mixed")
        with pytest.raises(AssertionError, match="converted again"):
            converted(edited)
        moved = Files([File(name, config.docs_dir, config.site_dir, True) for name in ("a.md", "c/b.md")])
        with pytest.raises(AssertionError, match="converted again"):  # the link's target is no longer there
            converted(files=moved)
    assert converted(edited) == own(edited) != plain
    # a link to a page that is not there warns (strict stops the build): converted each time, never kept
    broken = CONVERTED.replace("b.md#split", "missing.md")
    sealed = lambda: set(kept.glob("*.json" + disk.SEALED))  # noqa: E731
    before = sealed()
    assert converted(broken) == own(broken)
    assert sealed() == before
    # a page that includes a file (pymdownx.snippets) is converted each time
    assert converted(CONVERTED + '\n--8<-- "b.md"\n') == own(CONVERTED + '\n--8<-- "b.md"\n')
    assert sealed() == before


def test_the_themes_templates_are_compiled_once_and_kept(tmp_path, monkeypatch, caplog):
    """A template compiled by one build's environment is read back by the next one's, while its
    source and the environment's settings are unchanged; compiled again when either changes, or when
    the kept file is damaged (dropped, with a warning naming it)."""
    import jinja2
    from figures.site import template_memo
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "cache"))
    (tmp_path / "theme").mkdir()
    page = tmp_path / "theme" / "page.html"
    page.write_text("{% for h in heads %}<p>{{ h }}</p>\n{% endfor %}")

    def rendered(**settings):
        env = template_memo.attach(jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path / "theme"), **settings))
        return env.get_template("page.html").render(heads=[1, 2])

    plain = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path / "theme")).get_template("page.html").render(heads=[1, 2])
    assert rendered() == plain == "<p>1</p>\n<p>2</p>\n"
    kept = list((tmp_path / "cache" / template_memo.FOLDER).glob("*/*.jinja" + disk.SEALED))
    assert len(kept) == 1

    def refused(*args, **kwargs):
        raise AssertionError("compiled again")
    with monkeypatch.context() as m:
        m.setattr(jinja2.Environment, "compile", refused)
        assert rendered() == plain  # read back: not compiled
        with pytest.raises(AssertionError, match="compiled again"):
            rendered(trim_blocks=True)  # other settings: their own folder
        page.write_text("{% for h in heads %}<li>{{ h }}</li>{% endfor %}")
        with pytest.raises(AssertionError, match="compiled again"):
            rendered()  # an edited template
    assert rendered() == "<li>1</li><li>2</li>"
    kept = list((tmp_path / "cache" / template_memo.FOLDER).glob("*/*.jinja" + disk.SEALED))
    assert len(kept) == 1
    kept[0].write_bytes(kept[0].read_bytes()[:-70] + b"x" * 70)
    with caplog.at_level(logging.WARNING):
        assert rendered() == "<li>1</li><li>2</li>"
    assert "a compiled template, is damaged" in caplog.text and "compiling it again" in caplog.text
    monkeypatch.setenv(disk.CACHE_ENV, "off")
    assert rendered() == "<li>1</li><li>2</li>"
