"""Material as the site ships it (figures/site/material.py): three changes that keep a page load from
restyling every element of the page, each checked in the built site, on its own, and in a browser;
the twin links, the versions' root, the search index built when search opens, the source maps."""

import json
from pathlib import Path

import pytest

from figures.site import material

RULE = "[data-md-color-switching] *,[data-md-color-switching] :after{transition-duration:0s!important}"
META = 'function li(e){let o=x("meta",{name:"color-scheme"});document.head.appendChild(o);o.content="light"}'


def _asset(root, folder, name, text):
    path = root / "assets" / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_built_site_ships_materials_palette_without_the_switching_rule(site):
    (sheet,) = (site / "assets" / "stylesheets").glob("palette.*.min.css")
    css = sheet.read_text(encoding="utf-8")
    assert "data-md-color-switching" not in css
    assert "[data-md-color-scheme=slate]" in css  # the rest of the palette is still there


def test_the_built_site_styles_tables_without_testing_the_class_attribute(site):
    (main,) = (site / "assets" / "stylesheets").glob("main.*.min.css")
    css = main.read_text(encoding="utf-8")
    assert "[class])" not in css.replace("span[class]", "")
    assert ".md-typeset table{" in css and ".md-typeset table th{" in css


def test_the_built_bundle_never_puts_a_color_scheme_meta_in_the_head(site):
    (bundle,) = (site / "assets" / "javascripts").glob("bundle.*.min.js")
    js = bundle.read_text(encoding="utf-8")
    assert not material.SCHEME_META.search(js)
    assert js.count('=document.createElement("meta");') == 1


def test_the_rule_is_taken_out_once_and_the_rest_is_kept(tmp_path):
    sheet = _asset(tmp_path, "stylesheets", "palette.0123abcd.min.css", f"a{{color:red}}{RULE}b{{color:blue}}")
    assert material.without_switching_rule(tmp_path) == 1
    assert sheet.read_text(encoding="utf-8") == "a{color:red}b{color:blue}"
    assert material.without_switching_rule(tmp_path) == 0  # both languages' builds call it


def test_the_source_maps_and_the_lines_that_point_at_them_are_taken_out_once(tmp_path):
    js = _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js", "(()=>{})();\n//# sourceMappingURL=bundle.0123abcd.min.js.map\n")
    worker = _asset(tmp_path, "javascripts", "workers/search.0123abcd.min.js", "x();\n//# sourceMappingURL=search.0123abcd.min.js.map")
    css = _asset(tmp_path, "stylesheets", "main.0123abcd.min.css", "a{b:c}\n/*# sourceMappingURL=main.0123abcd.min.css.map*/")
    maps = [_asset(tmp_path, folder, f"{name}.map", "{}") for folder, name in
            (("javascripts", "bundle.0123abcd.min.js"), ("javascripts", "workers/search.0123abcd.min.js"),
             ("stylesheets", "main.0123abcd.min.css"))]
    kept = _asset(tmp_path, "javascripts", "mapping.min.js", "let sourceMappingURL = 1;\n")  # not a pointer at a map
    assert material.without_source_maps(tmp_path) == 6
    assert js.read_text(encoding="utf-8") == "(()=>{})();\n"
    assert worker.read_text(encoding="utf-8") == "x();\n" and css.read_text(encoding="utf-8") == "a{b:c}\n"
    assert not any(m.exists() for m in maps) and kept.read_text(encoding="utf-8") == "let sourceMappingURL = 1;\n"
    assert material.without_source_maps(tmp_path) == 0  # both languages' builds call it


def test_the_built_site_ships_only_the_search_scripts_its_languages_import(site):
    from figures.site import offline_reading
    kept = sorted(p.relative_to(site).as_posix() for p in (site / offline_reading.LUNR).rglob("*"))
    assert kept == sorted(offline_reading.search_scripts(["en", "zh"]) + ["assets/javascripts/lunr/min"])


def test_the_built_site_ships_no_source_map(site):
    assert not list(site.rglob("*.map"))
    assert not [p for p in (site / "assets").rglob("*.min.*") if "sourceMappingURL=" in p.read_text(encoding="utf-8")]


def test_tables_are_selected_as_tables_once(tmp_path):
    sheet = _asset(tmp_path, "stylesheets", "main.0123abcd.min.css",
                   ".md-typeset table:not([class]){x:y}.md-typeset table:not([class]) th{x:z}a[class]{q:r}")
    (tmp_path / "index.html").write_text("<table><tr><td>1</td></tr></table>", encoding="utf-8")
    assert material.plain_tables(tmp_path) == 2
    assert sheet.read_text(encoding="utf-8") == ".md-typeset table{x:y}.md-typeset table th{x:z}a[class]{q:r}"
    assert material.plain_tables(tmp_path) == 0


def test_a_page_with_a_classed_table_stops_the_change(tmp_path):
    _asset(tmp_path, "stylesheets", "main.0123abcd.min.css", ".md-typeset table:not([class]){x:y}")
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_text('<p>x</p><table class="highlighttable">', encoding="utf-8")
    with pytest.raises(material.MaterialChanged, match=r"en/index\.html has a table with a class"):
        material.plain_tables(tmp_path)


def test_the_color_scheme_meta_is_made_but_never_added_once(tmp_path):
    bundle = _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js", META)
    assert material.without_color_scheme_meta(tmp_path) == 1
    assert bundle.read_text(encoding="utf-8") == 'function li(e){let o=document.createElement("meta");o.content="light"}'
    assert material.without_color_scheme_meta(tmp_path) == 0


def test_materials_script_leaves_the_twin_links_alone_once(tmp_path):
    bundle = _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js",
                    'e.pipe(b(()=>M("link[rel=alternate]")),m(r=>new URL(r.href)))')
    assert material.without_twin_fetch(tmp_path) == 1
    assert bundle.read_text(encoding="utf-8") == 'e.pipe(b(()=>M("link[rel=alternate]:not([hreflang])")),m(r=>new URL(r.href)))'
    assert material.without_twin_fetch(tmp_path) == 0
    bundle.write_text('e.pipe(b(()=>M("link[rel=\'alternate\']")))', encoding="utf-8")  # a release that changed it
    with pytest.raises(material.MaterialChanged, match="bundle.0123abcd.min.js: Material finds the alternate links"):
        material.without_twin_fetch(tmp_path)


def test_materials_version_selector_reads_the_site_root_not_the_language_root_once(tmp_path):
    """An English page's config base is en/ (its own search); the version component alone is given
    the site's root, the release's folder, where mike's versions.json is one folder up."""
    item = 'function Qa(e){var o;let t=Te(),r=new URL(`../${e.version}/`,t.base);return x("li")}'
    code = 'function Ti({document$:e}){let t=Te(),r=ze(new URL("../versions.json",t.base)).pipe(ve(()=>y))}' + item
    bundle = _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js", code)
    assert material.versions_from_site_root(tmp_path) == 1
    assert bundle.read_text(encoding="utf-8") == (
        'function Ti({document$:e}){let t=Object.assign({},Te(),{base:__md_scope.href}),'
        'r=ze(new URL("../versions.json",t.base)).pipe(ve(()=>y))}'
        'function Qa(e){var o;let t=Object.assign({},Te(),{base:__md_scope.href}),r=new URL(`../${e.version}/`,t.base);return x("li")}')
    assert material.versions_from_site_root(tmp_path) == 0
    bundle.write_text('let t=Te(),r=ze(new URL("versions.json",t.base))', encoding="utf-8")  # a release that changed it
    with pytest.raises(material.MaterialChanged, match="bundle.0123abcd.min.js: Material's version selector"):
        material.versions_from_site_root(tmp_path)


def test_materials_search_worker_gets_its_index_when_search_opens_once(tmp_path):
    """Served or opened from disk, the index reaches the search worker once the search toggle opens."""
    setup = 'function Ei(e,t){let r=Mn(e);return L($(location.protocol!=="file:"),Je("search")).pipe(Re(o=>o),b(()=>t))}'
    bundle = _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js", setup)
    assert material.search_when_opened(tmp_path) == 1
    assert bundle.read_text(encoding="utf-8") == 'function Ei(e,t){let r=Mn(e);return L($(!1),Je("search")).pipe(Re(o=>o),b(()=>t))}'
    assert material.search_when_opened(tmp_path) == 0
    bundle.write_text(setup.replace('Je("search")', 'Je("search-open")'), encoding="utf-8")  # a release that changed it
    with pytest.raises(material.MaterialChanged, match="bundle.0123abcd.min.js: Material's search worker gets its index"):
        material.search_when_opened(tmp_path)


def test_the_built_site_ships_materials_script_without_the_twin_fetch(site):
    bundle, = (site / "assets" / "javascripts").glob("bundle.*.min.js")
    assert material.OWN_ALTERNATES in bundle.read_text(encoding="utf-8")


def test_a_material_that_changed_is_named_not_silently_shipped(tmp_path):
    with pytest.raises(material.MaterialChanged, match="no Material palette"):
        material.without_switching_rule(tmp_path)
    with pytest.raises(material.MaterialChanged, match="no Material main"):
        material.plain_tables(tmp_path)
    with pytest.raises(material.MaterialChanged, match="no Material bundle"):
        material.without_color_scheme_meta(tmp_path)
    _asset(tmp_path, "stylesheets", "palette.0123abcd.min.css", "@media screen{body[data-md-color-switching]{x:y}")
    with pytest.raises(material.MaterialChanged, match="palette.0123abcd.min.css"):
        material.without_switching_rule(tmp_path)
    _asset(tmp_path, "stylesheets", "main.0123abcd.min.css", ".md-typeset table.plain{x:y}")
    with pytest.raises(material.MaterialChanged, match="main.0123abcd.min.css: no table:not"):
        material.plain_tables(tmp_path)
    _asset(tmp_path, "javascripts", "bundle.0123abcd.min.js", 'let m=x("meta",{name:"color-scheme"});head.append(m)')
    with pytest.raises(material.MaterialChanged, match="bundle.0123abcd.min.js: Material adds its color-scheme"):
        material.without_color_scheme_meta(tmp_path)


def _materials_theme() -> Path:
    """The folder of Material's theme as installed (what MkDocs' config.theme.dirs names)."""
    import importlib.util
    return Path(importlib.util.find_spec("material").submodule_search_locations[0]) / "templates"


def _theme_copy(folder: Path) -> Path:
    """A theme folder holding a copy of the assets of Material's that the patches change."""
    for sub, pattern in material.PATCHED:
        for found in (_materials_theme() / "assets" / sub).glob(pattern):
            _asset(folder, sub, found.name, found.read_text(encoding="utf-8"))
    return folder


def test_every_patch_finds_its_code_in_the_material_installed():
    material.check_theme([str(_materials_theme())])  # raises, naming the patch, if not


@pytest.mark.parametrize("patch", material.PATCHES, ids=lambda p: p.__name__)
def test_a_material_without_the_code_a_patch_changes_stops_the_build_naming_it(tmp_path, patch):
    """A Material release that no longer has what one patch changes (here: its code as the patch
    leaves it) stops the build as it starts, naming that patch, whatever the other patches find."""
    theme = _theme_copy(tmp_path / "theme")
    assert patch(theme) >= 1
    with pytest.raises(material.MaterialChanged, match=rf"^patch {patch.__name__} \(mkdocs-material [\d.]+\): "):
        material.check_theme([str(tmp_path / "nothing-here"), str(theme)])


def test_a_patch_that_does_not_recognise_materials_code_is_named(tmp_path):
    theme = _theme_copy(tmp_path / "theme")
    (bundle,) = (theme / "assets" / "javascripts").glob("bundle.*.min.js")
    js = bundle.read_text(encoding="utf-8")
    bundle.write_text(js.replace(material.ALTERNATES, material.ALTERNATES * 2), encoding="utf-8")
    with pytest.raises(material.MaterialChanged, match=r"^patch without_twin_fetch .*finds the alternate links"):
        material.check_theme([str(theme)])
    with pytest.raises(material.MaterialChanged, match="no Material bundle"):
        material.check_theme([str(tmp_path)])


def test_the_build_stops_as_it_starts_naming_the_patch(checkout, mkdocs_build, tmp_path):
    """A theme folder ahead of Material's (mkdocs.yml's custom_dir) with a Material whose palette
    lost the switching rule: the build fails before it draws a figure, in one line naming the patch."""
    theme = _theme_copy(checkout / "overrides")
    (palette,) = (theme / "assets" / "stylesheets").glob("palette.*.min.css")
    palette.write_text(palette.read_text(encoding="utf-8").replace("data-md-color-switching", "data-md-switching"),
                       encoding="utf-8")
    run = mkdocs_build(tmp_path / "out", cwd=checkout, timeout=300)
    assert run.returncode != 0
    line = next(line for line in run.stderr.splitlines() if "patch " in line)
    assert "figures/site/material.py: patch without_switching_rule (mkdocs-material" in line
    assert "Building documentation" not in run.stderr and not (tmp_path / "out" / "figures").exists()


# A trace of the page load: the style recalculations, with how many elements each touched. Before the
# three changes, Material's start forced three that restyled the whole page after it was first styled.
# Each change of <body>'s scheme, with the document's readyState then ("loading": while parsed).
SCHEME_CHANGES = """
window.mhaSchemeChanges = [];
new MutationObserver((records) => records.forEach((r) => {
  const now = r.target.getAttribute("data-md-color-scheme");
  if (r.target === document.body && r.oldValue !== now) window.mhaSchemeChanges.push([now, document.readyState]);
})).observe(document, {subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ["data-md-color-scheme"]});
"""
TRACE = ["devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.stack"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_materials_start_restyles_no_whole_page_and_the_page_follows_the_scheme(browser, served, scheme):
    page = browser.new_page(viewport={"width": 412, "height": 823}, color_scheme=scheme)
    page.add_init_script(SCHEME_CHANGES)
    browser.start_tracing(page=page, categories=TRACE)
    page.goto(served + "what-it-costs/", wait_until="load")
    page.wait_for_timeout(1500)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    elements = page.evaluate("document.getElementsByTagName('*').length")
    # every style recalculation, a script's or the browser's own: the page is styled whole at most once, when
    # it first is, by whichever comes first (Material's start reads the scroll position, which forces
    # it when the script runs before the browser has styled the page: a matter of timing)
    counts = [e["args"]["elementCount"] for e in events
              if e.get("name") == "UpdateLayoutTree" and e.get("ph") == "X" and "elementCount" in e.get("args", {})]
    assert counts, "the trace shows no style recalculation: it measures nothing"
    whole = [n for n in counts if n > elements / 2]
    assert len(whole) <= 1, f"{len(whole)} style recalculations restyled most of the {elements} elements: {counts}"

    # the reader's scheme was set while the page was parsed, before Material's script: it never
    # draws the page in one scheme and then restyles all of it in the other
    changes = page.evaluate("window.mhaSchemeChanges")
    assert all(state == "loading" for _, state in changes), changes
    assert page.evaluate("document.body.dataset.mdColorScheme") == {"light": "default", "dark": "slate"}[scheme]

    html = page.evaluate("document.documentElement.className").split()
    assert "js" in html and "no-js" not in html
    assert page.locator("meta[name=color-scheme]").count() == 0
    want = {"light": "light", "dark": "dark"}
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == want[scheme]
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()  # Material's toggle
    other = {"light": "dark", "dark": "light"}[scheme]
    page.wait_for_function(f"getComputedStyle(document.documentElement).colorScheme === '{other}'", timeout=5000)
    page.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_search_index_is_built_when_the_reader_opens_search_and_then_finds(browser, served, lang):
    """A page loads without building the search index (Material says it is initializing, as it does
    until its worker has the index); opening search builds it, and the search finds pages."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + ("" if lang == "zh" else "en/") + "what-it-costs/", wait_until="networkidle")
    page.wait_for_timeout(1000)  # time enough for a worker given the index at load to report ready
    meta = ".md-search-result__meta"
    waiting = page.inner_text(meta)
    assert waiting == {"zh": "正在初始化搜索引擎", "en": "Initializing search"}[lang]
    page.click(".md-search__input")  # the field, as a reader clicks or taps it: search opens
    page.wait_for_function(f"document.querySelector('{meta}').innerText !== {json.dumps(waiting)}", timeout=20000)
    page.type(".md-search__input", "softmax")
    page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0", timeout=20000)
    page.close()
