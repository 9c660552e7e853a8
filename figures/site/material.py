"""Material for MkDocs, as this site ships it: three changes that keep a page load from restyling
every element of the page, one that keeps its script from fetching what does not exist, and one
that builds the search index only for a reader who searches.

A Chromium trace of a long page (what-it-costs, 1,300 elements, invalidation tracking on) showed
the browser recomputing the style of every element five times as Material started, each time for
one of these reasons; each change below takes one reason away:

1. **The palette's switching rule.** Material's palette component marks <body> with
   `data-md-color-switching` as every page starts and unmarks it a frame later; its stylesheet's rule
   `[data-md-color-switching] *, … :after, … :before { transition-duration: 0s !important }` makes
   each of the two changes restyle everything. It only keeps colours from fading while the reader
   toggles the scheme; without it a toggle fades over Material's own 0.25 s transitions
   (`without_switching_rule`).
2. **`table:not([class])`.** Material styles a page's Markdown tables with 16 selectors of the form
   `.md-typeset table:not([class]) …`. A selector that tests for the class attribute itself makes
   any class change on an element (Material's `no-js` → `js` on <html>, our slider marking its frame)
   restyle all its descendants. This site's pages have no table with a class (`plain_tables` checks
   every built page and stops the build if one appears), so `table` selects the same tables.
   Material's `no-js` → `js` swap is also made before <body> is parsed (overrides/main.html), when
   there is nothing to restyle, so Material's own swap changes nothing.
3. **The color-scheme meta.** Material's palette adds `<meta name="color-scheme">` to the head and
   then sets it to the scheme's `color-scheme`; Chromium restyles the whole page on each of the two
   (a "platform colour change", even when the value is the one it had). The bundle is shipped with
   that meta detached (`without_color_scheme_meta`); the same value reaches the page through
   `:root { color-scheme }` in assets/mha-figures.css, which follows <body>'s scheme.

A fourth change is not about styling:

4. **The twin links.** Each page names its twins in the other language in its head
   (`<link rel="alternate" hreflang>`, figures/site/language.py), as search engines read them.
   Material's script fetches a sitemap.xml beside every `link[rel=alternate]`, to take over the
   language menu: from each page, a request for `<twin page>/sitemap.xml` that answers 404, and a
   menu that drops the reader's place. The bundle is shipped selecting only the alternate links
   without hreflang (an RSS feed's, which this site has none of): `without_twin_fetch`.

5. **The versions' root.** In a release (.github/CONTRIBUTING.md, "Releases"), Material's version selector reads
   mike's versions.json beside the release's folder and names the release from the last folder of
   its script's base. An English page's base is its language's root (`en/`, for its own search:
   figures/site/language.py), which would name the release "en" and look for versions.json in the
   release's folder, and link each version under `en/`. The bundle is shipped with the version
   component and its list alone reading the site's root (Material's `__md_scope`, from the page's
   base_url) as their base: `versions_from_site_root`.

6. **The search index, built when the reader opens search.** Material's search worker builds its
   index (lunr, from search/search_index.json: some 450 kB of Chinese, cut into words) as every page
   loads when the site is served, and only once the reader opens search when it is opened from disk.
   The bundle is shipped doing the latter everywhere (`search_when_opened`): opening search (the
   icon, a click in the field, a shortcut, a `?q=` address) builds it, and Material says "Initializing
   search" meanwhile. A page load saves about 0.4 s of a core on the build machine (what-trained-
   heads-do in a fresh Chromium tab, four loads each: 1.7 to 1.9 s before, 1.25 to 1.55 s after) and
   three requests (the worker's lunr scripts); the index file is still fetched, as search.highlight
   reads its settings.

7. **No source maps.** Material ships a source map beside each of its bundles (1.3 MB, four fifths of
   it the main script's), for a developer's tools to show its TypeScript. Changed by the steps
   above, the bundles no longer match them, and a reader never loads them: the site ships neither
   the maps nor the comments that point at them (`without_source_maps`).

With the first three, the trace of what-it-costs shows the page styled whole once, when it is first
styled, by the browser or by whichever script first reads the layout (Material's start reads the
scroll position: which comes first is a matter of timing); before, three more times, all 1,210
elements each time. And the load's unthrottled style time
fell from 182 to 123 ms and from 247 to 126 ms in two paired runs on a busy machine
(tests/test_material.py keeps the first). Each change checks that Material
still has the text it changes and raises MaterialChanged (the build fails, naming it) when a
Material release changed it; and `check_theme`, as the build starts (hooks.py, on_config), applies
each of the six changes of code (1 to 6) to a copy of Material's own assets as installed, so that
the build stops at once, naming the change, before minutes of figures are drawn. What each change
costs if dropped: figures/site/ENGINE.md.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from importlib import metadata
from pathlib import Path

MARK = "[data-md-color-switching]"
RULE = re.compile(r"(?:^|(?<=[{}]))([^{}]*)\{([^{}]*)\}")  # a selector list and its declarations
CLASSLESS = "table:not([class])"
CLASSED_TABLE = re.compile(r"<table\b[^>]*\sclass=", re.I)
# the palette component's `let o=x("meta",{name:"color-scheme"});document.head.appendChild(o);`
SCHEME_META = re.compile(r'let (\w+)=\w+\("meta",\{name:"color-scheme"\}\);document\.head\.appendChild\(\1\);')
DETACHED = 'let {}=document.createElement("meta");'
ALTERNATES = '("link[rel=alternate]")'  # the selector Material's alternate component queries
OWN_ALTERNATES = '("link[rel=alternate]:not([hreflang])")'
# the version component's first lines, `let t=Te(),r=ze(new URL("../versions.json",t.base))`, and
# its list's item, `let t=Te(),r=new URL(`../${e.version}/`,t.base)`: the config read, then its base
VERSIONS = (re.compile(r'let (\w+)=(\w+)\(\),(\w+=\w+\(new URL\("\.\./versions\.json",\1\.base\)\))'),
            re.compile(r'let (\w+)=(\w+)\(\),(\w+=new URL\(`\.\./\$\{\w+\.version\}/`,\1\.base\))'))
SITE_ROOT_BASE = '{base:__md_scope.href}'
# the search worker's setup, `L($(location.protocol!=="file:"),Je("search")).pipe(...)`: the index sent
# to the worker at once unless the page was opened from disk, else when the search toggle opens
SEARCH_AT_LOAD = re.compile(r'([\w$]+)\(([\w$]+)\(location\.protocol!=="file:"\),([\w$]+)\("search"\)\)')
SEARCH_WHEN_OPENED = re.compile(r'([\w$]+)\(([\w$]+)\(!1\),([\w$]+)\("search"\)\)')


class MaterialChanged(RuntimeError):
    """Material's assets are not where, or not what, this module expects."""


def ship(site_dir: Path) -> None:
    """All seven changes to a built site (each is idempotent: every language's build calls this)."""
    without_switching_rule(site_dir)
    plain_tables(site_dir)
    without_color_scheme_meta(site_dir)
    without_twin_fetch(site_dir)
    versions_from_site_root(site_dir)
    search_when_opened(site_dir)
    without_source_maps(site_dir)


SOURCE_MAP_LINK = re.compile(r"\n(?://# sourceMappingURL=[^\n]*|/\*# sourceMappingURL=[^\n]*?\*/)\s*$")


def check_theme(theme_dirs: list[str]) -> None:
    """As the build starts: each of PATCHES applied to a copy of Material's assets as the theme ships
    them (the first of `theme_dirs`, MkDocs' config.theme.dirs, that holds them) must find the code it
    changes and change it. Raises MaterialChanged naming the change when one finds nothing to change
    or does not recognise what it finds (a Material release moved it: look again, and drop or redo
    that change; figures/site/ENGINE.md says what each one is for)."""
    assets = next((Path(d) / "assets" for d in theme_dirs if list((Path(d) / "assets" / "javascripts").glob(
        "bundle.*.min.js"))), None)
    if assets is None:
        raise MaterialChanged(f"no Material bundle.*.min.js under assets/javascripts in any theme folder {theme_dirs}")
    with tempfile.TemporaryDirectory(prefix="mha-material-") as tmp:
        for folder, pattern in PATCHED:
            for found in (assets / folder).glob(pattern):
                (Path(tmp) / "assets" / folder).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(found, Path(tmp) / "assets" / folder / found.name)
        for patch in PATCHES:
            try:
                changed = patch(Path(tmp))
            except MaterialChanged as e:
                raise MaterialChanged(f"patch {patch.__name__} ({_material()}): {e}") from None
            if not changed:
                raise MaterialChanged(f"patch {patch.__name__} ({_material()}): the code it changes is not in "
                                      f"Material's assets ({assets}): a Material release changed it: look again")


def _material() -> str:
    try:
        return f"mkdocs-material {metadata.version('mkdocs-material')}"
    except metadata.PackageNotFoundError:
        return "mkdocs-material, not installed as such"


def without_source_maps(site_dir: Path) -> int:
    """Remove Material's source maps (assets/**/*.map) from `site_dir`, and the last line of each of
    its scripts and stylesheets that points at one; the number of files changed or removed (0 when a
    build already did)."""
    changed = 0
    for folder, pattern in (("javascripts", "*.min.js"), ("stylesheets", "*.min.css")):
        for code in sorted((site_dir / "assets" / folder).rglob(pattern)):
            text = code.read_text(encoding="utf-8")
            plain = SOURCE_MAP_LINK.sub("\n", text)
            if plain != text:
                code.write_text(plain, encoding="utf-8")
                changed += 1
        for kept in sorted((site_dir / "assets" / folder).rglob("*.map")):
            kept.unlink()
            changed += 1
    return changed


def _assets(site_dir: Path, folder: str, pattern: str) -> list[Path]:
    """Material's files `pattern` (the name carries a content hash) in a built site; at least one."""
    found = sorted((site_dir / "assets" / folder).glob(pattern))
    if not found:
        raise MaterialChanged(f"no Material {pattern} under {site_dir}/assets/{folder}")
    return found


def without_switching_rule(site_dir: Path) -> int:
    """Take the switching rule out of Material's palette stylesheet in `site_dir`; the number of
    rules taken out (0 when a build already took it out). Raises MaterialChanged when there is no
    palette stylesheet, or one names the mark in a rule this does not recognise (a Material
    release that changed it: look again)."""
    removed = 0
    for sheet in _assets(site_dir, "stylesheets", "palette.*.min.css"):
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


def plain_tables(site_dir: Path) -> int:
    """`table:not([class])` → `table` in Material's main stylesheet; the number of selectors changed
    (0 when a build already changed them). Raises MaterialChanged when a built page has a table
    with a class (the change would style it as a Markdown table) or the stylesheet has none of
    these selectors and was not changed before."""
    for page in sorted(site_dir.rglob("*.html")):
        m = CLASSED_TABLE.search(page.read_text(encoding="utf-8"))
        if m:
            raise MaterialChanged(f"{page.relative_to(site_dir)} has a table with a class ({m.group(0)}…): "
                                  f"Material styles only tables without one, and {CLASSLESS} was shipped as table")
    changed = 0
    for sheet in _assets(site_dir, "stylesheets", "main.*.min.css"):
        css = sheet.read_text(encoding="utf-8")
        n = css.count(CLASSLESS)
        if n:
            sheet.write_text(css.replace(CLASSLESS, "table"), encoding="utf-8")
            changed += n
        elif ".md-typeset table{" not in css:
            raise MaterialChanged(f"{sheet.name}: no {CLASSLESS} selectors (a Material release changed how it "
                                  "styles tables: look again)")
    return changed


def without_color_scheme_meta(site_dir: Path) -> int:
    """Material's bundle with its color-scheme meta made but not put in the head; the number of
    bundles changed (0 when a build already changed them). Raises MaterialChanged when a bundle
    has neither the original text nor the change."""
    changed = 0
    for bundle in _assets(site_dir, "javascripts", "bundle.*.min.js"):
        js = bundle.read_text(encoding="utf-8")
        found = SCHEME_META.findall(js)
        if len(found) == 1:
            bundle.write_text(SCHEME_META.sub(lambda m: DETACHED.format(m.group(1)), js), encoding="utf-8")
            changed += 1
        elif found or '("meta",{name:"color-scheme"})' in js:
            raise MaterialChanged(f"{bundle.name}: Material adds its color-scheme meta in a way this module "
                                  "does not recognise (a Material release changed it: look again)")
    return changed


def without_twin_fetch(site_dir: Path) -> int:
    """Material's bundle querying `link[rel=alternate]:not([hreflang])`, not every alternate link;
    the number of bundles changed (0 when a build already changed them). Raises MaterialChanged
    when a bundle has neither the original query (once) nor the change."""
    changed = 0
    for bundle in _assets(site_dir, "javascripts", "bundle.*.min.js"):
        js = bundle.read_text(encoding="utf-8")
        if js.count(ALTERNATES) == 1:
            bundle.write_text(js.replace(ALTERNATES, OWN_ALTERNATES), encoding="utf-8")
            changed += 1
        elif OWN_ALTERNATES not in js:
            raise MaterialChanged(f"{bundle.name}: Material finds the alternate links in a way this module "
                                  "does not recognise (a Material release changed it: look again)")
    return changed


def versions_from_site_root(site_dir: Path) -> int:
    """Material's bundle with its version component reading the site's root as its base (a copy of
    the config, which the other components keep reading as it is); the number of bundles changed
    (0 when a build already changed them). Raises MaterialChanged when a bundle has neither the
    original lines (once) nor the change."""
    changed = 0
    for bundle in _assets(site_dir, "javascripts", "bundle.*.min.js"):
        js = bundle.read_text(encoding="utf-8")
        found = [len(pattern.findall(js)) for pattern in VERSIONS]
        if found == [1] * len(VERSIONS):
            for pattern in VERSIONS:
                js = pattern.sub(lambda m: f"let {m[1]}=Object.assign({{}},{m[2]}(),{SITE_ROOT_BASE}),{m[3]}", js)
            bundle.write_text(js, encoding="utf-8")
            changed += 1
        elif any(found) or js.count(SITE_ROOT_BASE) != len(VERSIONS):
            raise MaterialChanged(f"{bundle.name}: Material's version selector finds versions.json or links a "
                                  "version in a way this module does not recognise (a Material release changed it: "
                                  "look again)")
    return changed


def search_when_opened(site_dir: Path) -> int:
    """Material's bundle sending the search index to its worker when the reader opens search, as it
    does for a page opened from disk, not as the page loads; the number of bundles changed (0 when a
    build already changed them). Raises MaterialChanged when a bundle has neither the original
    setup (once) nor the change."""
    changed = 0
    for bundle in _assets(site_dir, "javascripts", "bundle.*.min.js"):
        js = bundle.read_text(encoding="utf-8")
        if len(SEARCH_AT_LOAD.findall(js)) == 1:
            bundle.write_text(SEARCH_AT_LOAD.sub(lambda m: f'{m[1]}({m[2]}(!1),{m[3]}("search"))', js), encoding="utf-8")
            changed += 1
        elif len(SEARCH_WHEN_OPENED.findall(js)) != 1:
            raise MaterialChanged(f"{bundle.name}: Material's search worker gets its index in a way this module "
                                  "does not recognise (a Material release changed it: look again)")
    return changed


# The six changes of Material's code (1 to 6 above), and the files of its assets they change.
# (without_source_maps removes files, whatever their number: nothing of Material's code to look for.)
PATCHES = (without_switching_rule, plain_tables, without_color_scheme_meta, without_twin_fetch, versions_from_site_root,
           search_when_opened)
PATCHED = (("stylesheets", "palette.*.min.css"), ("stylesheets", "main.*.min.css"), ("javascripts", "bundle.*.min.js"))
