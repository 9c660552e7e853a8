"""`mkdocs serve` shows its pages before every frame is drawn (figures/site/later.py): the frames the
figure cache lacks are drawn in the background, shown meanwhile as cards saying so, page 4's numbers
as marks while its model trains, and the server rebuilds when the drawing ends. Here the pieces, with
no site built; `mkdocs build` never shows a placeholder (test_site.py checks the built site)."""

import threading

import pytest

from mkdocs.livereload import LiveReloadServer

from figures.engine import render
from figures.engine.cache import FigureCache
from figures.engine.render import frames, render_files
from figures.site import cards, later, markup, serving


def test_a_frame_drawn_elsewhere_meanwhile_is_left_undrawn(tmp_path, monkeypatch):
    """The frames the serve's first drawing has under way: a rebuild neither draws them (render_files'
    `later`, fill_cache's `skip`) nor waits for them; the frames an edit changed it draws."""
    cache = FigureCache(tmp_path)
    ids = ["peak-dip", "causal-mask"]
    underway = render.missing(cache, ["en"], ids)
    assert set(underway.values()) == set(ids)
    peak_dip = {path for path, fig_id in underway.items() if fig_id == "peak-dip"}
    assert render.fill_cache(cache, ["en"], ids, jobs=1, skip=peak_dip) == len(frames("causal-mask"))
    assert set(render.missing(cache, ["en"], ids).values()) == {"peak-dip"}
    assert render.missing(cache, ["en"], ids, among=frozenset()) == {}
    monkeypatch.setattr(render, "_render_task", lambda task: (_ for _ in ()).throw(AssertionError("drawn")))
    got = list(render_files(["en"], ids, cache=cache, later=peak_dip))
    assert [(r.frame.fig_id, r.data is None, r.error) for r in got] == \
        [("peak-dip", True, None)] * len(frames("peak-dip")) + [("causal-mask", False, None)] * len(frames("causal-mask"))


def test_what_failed_is_remembered_where_the_server_keeps_it(tmp_path, monkeypatch):
    """A frame that failed in the serve's first drawing, or in a rebuild, is its error card in every
    later build: the failure is kept in the serve's Later (FigureCache's `failures`), not in a module
    that a rebuild after an edit imports afresh, and read back whatever class its error is of."""
    serve = later.Later()
    cache = FigureCache(tmp_path, serve.failures)
    path = next(iter(render.missing(cache, ["en"], ["peak-dip"])))

    class ErrorImportedBeforeAnEdit:  # a FigureError of the modules imported before the rebuild's
        def at(self, lang, slug=None):
            return self
    error = ErrorImportedBeforeAnEdit()
    cache.failed(path, error)
    monkeypatch.setattr(render, "_render_task", lambda task: (_ for _ in ()).throw(AssertionError("drawn")))
    fresh = FigureCache(tmp_path, serve.failures)  # the next build's cache
    assert render.missing(fresh, ["en"], ["peak-dip"]) == {} and render.fill_cache(fresh, ["en"], ["peak-dip"]) == 0
    got = list(render_files(["en"], ["peak-dip"], cache=fresh, keep_going=True))
    assert [(r.data, r.error) for r in got] == [(None, error)]
    assert FigureCache(tmp_path).failed(path) is None  # a build's cache: its process's own memory


def test_a_page_shows_a_figure_being_drawn_and_a_number_being_computed_as_placeholders(monkeypatch):
    text = "# T\n\n{{ figure peak-dip }}\n\nThe model reaches {{ value lm.seeds }} seeds and {{ value toy.n }} tokens.\n"
    later.start_build({"peak-dip"}, {"lm.seeds"})
    try:
        for lang in ("zh", "en"):
            served, _ = markup.expand(text, lang, lambda path: path, "page.md", show_failures=True)
            assert served.count(later.PENDING_CLASS) == 2 and later.WORDS[lang] in served
            assert 'id="fig-peak-dip"' in served  # links to the figure still land
            assert 'data-value="lm.seeds"' in served and "{{" not in served  # toy.n printed as usual
        built, _ = markup.expand(text, "en", lambda path: path, "page.md", show_failures=False)
        assert later.PENDING_CLASS not in built  # mkdocs build: never a placeholder
        kept = []

        def kept_if(folder, key, make, what, keep, **kwargs):  # expansions.kept: what it would keep
            value = make()
            kept.append(keep(value))
            return value
        monkeypatch.setattr(markup.expansions, "kept", kept_if)
        markup.kept_expansion((text, "en", "page.md", 1, "", "page.md", True, "", ""),
                              lambda: markup.expand(text, "en", lambda path: path, "page.md", show_failures=True))
        assert kept == [False]  # a page holding a placeholder is never kept
    finally:
        later.start_build((), ())


def test_a_frame_being_drawn_is_a_card_in_the_pages_language():
    for lang in ("zh", "en"):
        svg = cards.pending_svg(lang).decode()
        assert svg.startswith("<svg") and later.WORDS[lang] in svg and later.PENDING_CLASS in svg
        assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")  # nothing from elsewhere


def test_when_the_drawing_ends_the_server_rebuilds():
    """The background drawing ends before the server is there (serve's first build) or after: either
    way mkdocs' own LiveReloadServer is told to rebuild, as a watched file's change tells it."""
    rebuilt = threading.Event()
    server = LiveReloadServer(builder=rebuilt.set, host="127.0.0.1", port=0, root=".")
    serving.check(server)
    loop = threading.Thread(target=server._build_loop, daemon=True)  # what serve() runs after starting
    drawing, drawn = later.Later(), threading.Event()
    assert drawing.first_build()
    drawing.draw({"a frame"}, drawn.set)
    assert not drawn.wait(0.5) and drawing.underway() == {"a frame"}  # not while the first build makes its pages
    drawing.built()  # hooks.on_post_build, every language built
    assert drawn.wait(10)
    loop.start()
    try:
        assert not rebuilt.wait(0.5)  # no server yet: nothing told
        drawing.served(server)  # hooks.on_serve
        assert rebuilt.wait(10)
        assert not drawing.first_build() and drawing.underway() == frozenset()  # the drawing is over
        rebuilt.clear()
        drawing.draw({"a frame"}, lambda: None)  # a drawing that ends with the server there
        drawing.built()
        assert rebuilt.wait(10)
    finally:
        server.shutdown()
        loop.join(10)


@pytest.mark.parametrize("engine", ["mkdocs", "properdocs"])
@pytest.mark.parametrize("flags, later_drawing", [([], True), (["--no-livereload"], False)])
def test_serve_without_livereload_draws_before_its_pages(monkeypatch, engine, flags, later_drawing):
    """`mkdocs serve --no-livereload` never rebuilds (MkDocs does not call on_serve): its first build
    draws every figure before the pages, as `mkdocs build` does, or its pages would keep their
    "being drawn" cards for the server's life. Read from the command's options as each engine's
    command line parses them."""
    import importlib
    from figures.site import hooks
    serve_command = importlib.import_module(f"{engine}.__main__").serve_command
    monkeypatch.setattr(hooks, "_later", None)
    monkeypatch.setattr(hooks, "_serving", hooks._serving)  # put back after on_startup sets it
    hooks.on_startup("serve", dirty=False)
    config = {}
    with serve_command.make_context("serve", list(flags)):
        hooks._show_figure_failures(config)
    assert (config["figures_later"] is not None) == later_drawing
    assert config["show_figure_failures"]  # a figure that fails is still a card on the page


def test_only_serve_draws_after_its_pages(monkeypatch):
    """`mkdocs build` gets no Later (gen_figures then draws every frame before a page is made); each
    build of one `mkdocs serve` gets the same one, kept by the hooks for the server's life."""
    from figures.site import hooks
    monkeypatch.setattr(hooks, "_serving", hooks._serving)  # put back after on_startup sets it
    for command in ("build", "serve"):
        monkeypatch.setattr(hooks, "_later", None)
        hooks.on_startup(command, dirty=False)
        first, rebuild = {}, {}
        hooks._show_figure_failures(first)
        hooks._show_figure_failures(rebuild)
        assert (first["figures_later"] is None) == (command == "build")
        assert rebuild["figures_later"] is first["figures_later"]
