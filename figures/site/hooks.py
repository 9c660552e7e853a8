"""MkDocs hooks: how the figures and computed numbers reach the pages.

mkdocs-static-i18n runs the whole build once per language (zh at /, en at /en/) with the same
config; `config.plugins["i18n"].current_language` says which one is running.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import posixpath
import sys
from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
OUR_PACKAGES = ("mha_ref", "figures")
# True under `mkdocs serve` (on_startup): a failed figure is shown as an error card, not fatal
_serving = False
log = logging.getLogger("mkdocs.plugins.figures")


def _lang(config) -> str:
    return config.plugins["i18n"].current_language


@event_priority(100)  # before Material's offline plugin reads whether it is on
def on_config(config):
    # This checkout's code first, whatever else the environment has installed.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _forget_edited_code()
    _check_environment(config)
    _show_figure_failures(config)
    importlib.import_module("figures.site.jieba_cache").place()  # not left in the system's temporary folder
    importlib.import_module("figures.site.search_memo").install()  # an unchanged page's search entries kept
    importlib.import_module("figures.site.markdown_memo").install()  # an unchanged page converted once
    offline = importlib.import_module("figures.site.offline")
    offline.configure(config)
    importlib.import_module("figures.site.offline_reading").configure(config, offline.wanted(), _serving)
    importlib.import_module("figures.site.address").identify(config, _serving)
    material = importlib.import_module("figures.site.material")
    try:  # each patch of Material's assets still finds its code, before any figure is drawn
        material.check_theme(config.theme.dirs)
    except material.MaterialChanged as e:
        raise PluginError(f"figures/site/material.py: {e}") from None
    return config


def _check_environment(config) -> None:
    """Every MHA_* variable asked once (figures/site/environment.py): a value one does not take stops
    the build in one line naming it. MHA_BUILD_EN says whether the English pages are built."""
    try:
        environment = importlib.import_module("figures.site.environment")  # MHA_SITE_URL is read on import
        environment.check()
    except ValueError as e:
        raise PluginError(str(e)) from None
    for language in config.plugins["i18n"].config.languages:
        if language.locale == "en":
            language.build = environment.build_en()


_imported_from: str | None = None  # the digest of our packages' files when their modules were imported


def _forget_edited_code() -> None:
    """`mkdocs serve` keeps imported modules across rebuilds: when a file of mha_ref/ or figures/
    changed since they were imported, forget them all, so that the gen-files script and the pages see
    the edit. Unchanged, they are kept, with what they computed and cached in memory: the second
    language's build (static-i18n runs a build per language) and a prose-only rebuild reuse it."""
    global _imported_from
    h = hashlib.sha256()
    for package in OUR_PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    if h.hexdigest() == _imported_from:
        return
    for name in [m for m in sys.modules if m.split(".")[0] in OUR_PACKAGES]:
        del sys.modules[name]
    importlib.invalidate_caches()
    _imported_from = h.hexdigest()


def untwinned_pages(docs_dir: Path, langs: list[str]) -> list[str]:
    """Every page written in some languages but not all: "extra.zh.md has no en twin extra.en.md"."""
    stems = {lang: {p.relative_to(docs_dir).as_posix().removesuffix(f".{lang}.md")
                    for p in docs_dir.rglob(f"*.{lang}.md")} for lang in langs}
    return [f"{stem}.{lang}.md has no {other} twin {stem}.{other}.md"
            for lang in langs for stem in sorted(stems[lang]) for other in langs if stem not in stems[other]]


def on_pre_build(config):
    """Refuse a page missing in a language; number the figures once per build, from the docs
    sources of every language in nav order."""
    missing = untwinned_pages(Path(config.docs_dir), config.plugins["i18n"].all_languages)
    if missing:
        raise PluginError("every page is written in every language: " + "; ".join(missing))
    numbering = importlib.import_module("figures.publish.numbering")
    try:
        numbers = numbering.figure_numbers(Path(config.docs_dir), config.nav, config.plugins["i18n"].all_languages)
    except numbering.MarkupError as e:
        raise PluginError(str(e)) from e
    config["figure_numbers"] = numbers  # figure id -> FigureNumber: the gen-files script and every page read it
    # the pages that carry a number (the one their figures carry), with titles and reading times:
    # the nav and {{ contents }} read them
    config["numbered_pages"] = importlib.import_module("figures.publish.contents").numbered_pages(
        Path(config.docs_dir), config.nav, config.plugins["i18n"].all_languages, numbers)


@event_priority(-200)  # after static-i18n's own on_files (-100)
def on_files(files, config):
    """Generated figures are per language: in the en build they belong under en/.

    static-i18n only localises files inside docs/, and gen-files writes elsewhere. The figures'
    files that the gen-files script placed from the cache (linked.py) are added here.
    """
    files = importlib.import_module("figures.site.offline").add_shim(files, config)
    files = importlib.import_module("figures.site.offline").add_licences(files, config)
    files = importlib.import_module("figures.site.mathfont").add_font(files, config)
    lang, default = _lang(config), config.plugins["i18n"].default_language
    figures = importlib.import_module("figures.site.linked").add(files, config)  # what gen-files' script placed
    files = _add_cards(files, config, lang, default)
    files = _add_selfcheck(files, config, lang, default)
    if lang == default:
        return files
    for f in files:
        if getattr(f, "generated_by", None) == "mkdocs-gen-files" and not f.is_documentation_page():
            _under(lang, f, config)
    for f in figures:
        _under(lang, f, config)
    return files


def _add_cards(files, config, lang: str, default: str):
    """The glossary as cards (figures/publish/flashcards.py), this language's, under its root's
    downloads/: the glossary page links them as docs/downloads/glossary-cards.<lang>.<fmt>."""
    flashcards = importlib.import_module("figures.publish.flashcards")
    attribution = importlib.import_module("figures.publish.attribution")
    try:
        made = flashcards.files(Path(config.docs_dir), lang, attribution.page_url("index.md", lang))
    except flashcards.GlossaryError as e:
        raise PluginError(str(e)) from None
    for path, data in made.items():
        f = File.generated(config, path, content=data)
        if lang != default:  # its file under en/, where the English glossary's link leads
            _under(lang, f, config)
        files.append(f)
    return files


def _add_selfcheck(files, config, lang: str, default: str):
    """The self-check's test vectors and script (figures/publish/selfcheck_files.py), the same bytes
    in every language: one copy under the site root's downloads/, which each language's build
    writes alike and its the-code and reference pages link (relative to docs/)."""
    for path, data in importlib.import_module("figures.publish.selfcheck_files").files().items():
        files.append(File.generated(config, path, content=data))
    return files


def _under(lang: str, f, config) -> None:
    """Move a generated file of the `lang` build under its language's folder."""
    f.dest_uri = posixpath.join(lang, f.dest_uri)
    f.url = f._get_url()
    f.abs_dest_path = os.path.normpath(os.path.join(config.site_dir, f.dest_uri))


def on_env(env, config, files):
    return importlib.import_module("figures.site.template_memo").attach(env)  # the theme compiled once


def on_page_markdown(markdown, page, config, files):
    return importlib.import_module("figures.site.page_markdown").expand(markdown, page, config, files, _serving)


PERMALINK_TITLE = {"zh": "本节的固定链接"}  # the toc extension's English title, for other languages


def on_page_content(html, page, config, files):
    """The page's HTML finished (its maths as MathML, ...) and its description; kept with the
    expanded pages (publish/expansions.py), under the HTML Markdown made and the code's digest."""
    lang, described = _lang(config), bool(page.meta.get("description"))
    expansions = importlib.import_module("figures.publish.expansions")
    mathml = importlib.import_module("figures.site.mathml")

    def finished() -> tuple[str, str | None]:
        # Material's <meta name="description">; else the site's, on every page
        text = None if described else importlib.import_module("figures.site.description").page_description(html, lang)
        try:
            out = mathml.to_mathml(html, page.file.src_uri)
        except ValueError as e:
            raise PluginError(str(e)) from e
        out = importlib.import_module("figures.site.answers").with_print_switch(out, lang)
        out = importlib.import_module("figures.site.urls").with_breakable_urls(out)
        title = PERMALINK_TITLE.get(lang)
        return (out.replace('title="Permanent link"', f'title="{title}"') if title else out), text

    out, text = expansions.kept(expansions.PAGES, ("page content", html, lang, page.file.src_uri, described),
                                finished, "a page's finished HTML")
    if text is not None:
        page.meta["description"] = escape(text)  # Material prints it as it is, in an attribute
    mathml.plain_toc(page.toc)
    return out


def on_page_context(context, page, config, nav):
    """Each numbered page's number before its title in the nav (figures/site/contents.py); the
    footer's offer of the offline copy (overrides/partials/copyright.html), when there is one."""
    importlib.import_module("figures.site.contents").number_the_nav(nav, config.get("numbered_pages") or [])
    zip_path = config.extra.get("mha_offline_zip")  # offline_reading.configure
    if zip_path:
        context["mha_offline_zip"] = importlib.import_module("figures.site.offline_reading").footer_text(
            _lang(config), Path(zip_path))
    return context


def on_template_context(context, template_name, config):
    """The 404 page and the worker's offline page link each language's home and know the site's
    path (overrides/404.html, overrides/offline.html)."""
    language = importlib.import_module("figures.site.language")
    if template_name in language.SERVED_ANYWHERE:
        i18n = config.plugins["i18n"]
        langs = [lang.locale for lang in i18n.config.languages]
        context["mha_homes"] = language.homes(config.site_url, langs, i18n.default_language)
        identity = importlib.import_module("figures.publish.identity").IDENTITY
        context["mha_404"] = context["mha_offline"] = language.not_found_facts(
            config.site_url, _lang(config), i18n.default_language, langs, identity.release)
    return context


def on_post_template(output_content, template_name, config):
    """Each language's 404 page (404.html, en/404.html) and offline page (offline.html,
    en/offline.html), their links from the site's root."""
    language = importlib.import_module("figures.site.language")
    if template_name not in language.SERVED_ANYWHERE:
        return output_content
    lang, default = _lang(config), config.plugins["i18n"].default_language
    homes = language.homes(config.site_url, _all_languages(config), default)
    html = language.menu_to_homes(language.without_alternate_links(output_content), homes)
    html = language.from_site_root(html, config.site_url)
    html = language.with_html_lang(language.with_own_search(html, lang, default))
    if lang == default:
        return html
    # every language's build writes to the same site_dir: mkdocs would put this one over the root's
    out = Path(config.site_dir) / lang / template_name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return ""  # mkdocs writes no file for an empty template


def on_post_page(output, page, config):
    language = importlib.import_module("figures.site.language")
    output = language.relative_menu_links(language.without_alternate_links(output), page.url, config.site_url)
    output = language.with_twin_links(output, page.url, config.site_url, _lang(config),
                                      config.plugins["i18n"].default_language, _all_languages(config))
    return language.with_html_lang(language.with_own_search(output, _lang(config), config.plugins["i18n"].default_language))


def _all_languages(config) -> list[str]:
    return [lang.locale for lang in config.plugins["i18n"].config.languages]


@event_priority(-110)  # after the search plugin wrote the index, and Material's offline plugin its script
def on_post_build(config):
    material = importlib.import_module("figures.site.material")
    try:
        material.ship(Path(config.site_dir))
    except material.MaterialChanged as e:
        raise PluginError(f"figures/site/material.py: {e}") from None
    i18n = config.plugins["i18n"]
    importlib.import_module("figures.site.language").split_search_index(
        Path(config.site_dir), [lang.locale for lang in i18n.config.languages], i18n.default_language,
        importlib.import_module("figures.site.offline").wanted())
    if not i18n.building:  # the last call: every language is built, the site's files are final
        importlib.import_module("figures.site.mathfont").cut_to_pages(Path(config.site_dir))
        offline = importlib.import_module("figures.site.offline").wanted()
        reading = importlib.import_module("figures.site.offline_reading")
        reading.add_zip(Path(config.site_dir), config.extra.get("mha_offline_zip"))
        search = config.plugins.get("material/search") or config.plugins.get("search")
        reading.without_other_search_languages(Path(config.site_dir), search.config.lang if search else [])
        importlib.import_module("figures.site.language").with_site_names(Path(config.site_dir), also=[reading.WORKER])
        reading.write_worker(Path(config.site_dir), search.config.lang if search else [], offline, _serving)
        importlib.import_module("figures.site.linked").readable_by_all(Path(config.site_dir))  # whatever the umask
        if _later is not None:
            _later.built()  # the serve's first build: its pages are there, its missing frames are drawn now


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def _show_figure_failures(config) -> None:
    """Tell the gen-files script (which reads this config) whether a failed figure is a card, and
    under serve the background drawing (figures/site/later.py) that draws what the pages wait for."""
    global _later
    config["show_figure_failures"] = _serving
    if _serving and _later is None and not _builds_once():
        _later = importlib.import_module("figures.site.later").Later()
    config["figures_later"] = _later


def _builds_once() -> bool:
    """Whether this is `mkdocs serve --no-livereload` (or ProperDocs'): a server that never rebuilds
    (MkDocs then never calls on_serve), so a figure drawn after the pages would never reach them. Its
    first build draws every figure before the pages, as `mkdocs build` does. Read from the command's
    own options (click's context), as MkDocs and ProperDocs each name them."""
    import click
    context = click.get_current_context(silent=True)
    params = context.params if context is not None else {}
    if "no_livereload" in params:  # ProperDocs: a flag of its own (its hidden --livereload is False unless given)
        return params["no_livereload"] is True
    return params.get("livereload") is False  # MkDocs: --no-livereload sets livereload to False


def on_serve(server, config, builder):
    """Rebuilds never keep the server from answering: it serves the last good site meanwhile."""
    global _rebuilding, _served
    _rebuilding = True  # from now on serving.py reports a failed build
    serving = importlib.import_module("figures.site.serving")
    try:
        _served = serving.keep_answering(server, Path(config.site_dir))
    except serving.ServerChanged as e:
        raise PluginError(str(e)) from None
    if _later is not None:
        _later.served(server)  # rebuilt when the frames drawn after the pages are done
    return server


def on_shutdown():
    if _served is not None:
        _served.remove()


_rebuilding = False
_served = None  # serving.Served, under mkdocs serve
_later = None  # later.Later, under mkdocs serve: what outlives a rebuild's fresh imports (the first drawing,
# what failed to draw), kept here because mkdocs loads this module once per process


def on_build_error(error):
    """A build that fails outside the serve loop (`mkdocs build`, or serve's first build, which
    mkdocs runs before the loop and ends serve on) gets one line with the file and line first."""
    if _rebuilding or isinstance(error, PluginError):  # figure failures already name themselves
        return
    where = importlib.import_module("figures.site.serving").where(error)
    log.error(f"The build failed{where}: {type(error).__name__}: {error}"
              + (" mkdocs serve needs one good build to start: fix it and start it again." if _serving else ""))
