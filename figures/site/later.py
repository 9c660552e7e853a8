"""`mkdocs serve` shows its pages at once and the figures not drawn yet follow (never `mkdocs build`,
which waits for every frame and publishes nothing half-made: gen_figures.py).

The serve's first build (a fresh clone's: minutes of drawing, and page 4's model to train) hands the
frames the figure cache lacks to a thread of their own, started once its pages are built (fill_cache,
whose pool of processes draws them and whose PREPARE trains page 4's model beside it), saying how far
it has come in the terminal (figures/engine/progress.py). Meanwhile each of those frames is a card saying it is being drawn
(cards.pending_svg, in the page's language), each figure with such frames a card in its place on its
page (cards.pending_html), and each number that needs page 4's trained model a short mark
(pending_value). When the frames that need no training are drawn the server rebuilds, and again when
all are (serving.rebuild_soon): that build finds them in the cache, or what failed as its error card.

A rebuild (after an edit, or asked for by the drawing) draws what the cache lacks before its pages,
as `mkdocs build` does, all but the frames the first drawing still has under way: a frame that an
edit breaks is its error card at once, one that hangs is stopped by MHA_FIGURE_TIMEOUT, and a second
edit never waits for the first drawing.

What lasts from build to build lives in a Later, made once by the hooks (whose module mkdocs loads
once per process) and kept for the server's life, handed to each build in its config
(config["figures_later"]): the drawing thread and the frames it has under way, the server to tell,
and what failed to draw (the figure cache's failure memory: a rebuild after an edit imports our
packages afresh, which would drop a module's memory, and the drawing thread records into the
modules it started with). A failed frame stays its card until an edit changes what it is drawn
from (its path in the cache) or the server restarts. What one build left for later (pending,
waiting_values) is this module's, set by the gen-files script at each language's build's start."""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Iterable

PENDING_CLASS = "mha-figure-pending"  # on every placeholder: a kept page never holds one (markup.kept_expansion)
WORDS = {"zh": "正在绘制…", "en": "being drawn…"}
VALUE_WORDS = {"zh": "正在计算", "en": "being computed"}

_pending: frozenset[str] = frozenset()  # this build's figures with a frame not drawn yet
_waiting: frozenset[str] = frozenset()  # this build's numbers that wait for page 4's model


def start_build(pending: Iterable[str], waiting_values: Iterable[str]) -> None:
    global _pending, _waiting
    _pending, _waiting = frozenset(pending), frozenset(waiting_values)


def pending(fig_id: str) -> bool:
    """Whether this build shows the figure as being drawn (only ever under serve)."""
    return fig_id in _pending


def waiting_values() -> frozenset[str]:
    """The named numbers this build shows as being computed (only ever under serve)."""
    return _waiting


def pending_value(name: str, lang: str) -> str:
    return (f'<span class="{PENDING_CLASS} mha-value-pending" data-value="{html.escape(name)}" '
            f'title="{VALUE_WORDS[lang]}">…</span>')


class Later:
    """The state of one `mkdocs serve` that outlives its rebuilds (see above)."""

    def __init__(self):
        self.failures: dict = {}  # figure cache path -> FigureError (FigureCache's `failures`)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._underway: frozenset = frozenset()  # the cache's paths the drawing took on, while it runs
        self._server = None
        self._rebuild_wanted = False  # drawn before the server was there (the first build): rebuild when it is

    def first_build(self) -> bool:
        """Whether this is the serve's first build, which mkdocs runs before it serves: the one whose
        missing frames are drawn after its pages."""
        with self._lock:
            return self._server is None

    def underway(self) -> frozenset:
        """The cache's paths of the frames the drawing has under way (drawn or not yet), while it runs."""
        with self._lock:
            return self._underway

    def draw(self, paths: Iterable, fill: Callable[[], object]) -> None:
        """fill() (fill_cache of the frames at `paths`) in a thread of its own, once the build asking
        for it has built its pages (built(): the pages first, not sharing the cores with it), unless
        one is under way; then a rebuild (and one meanwhile when fill calls rebuild(): what is drawn,
        while page 4's model still trains)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._underway = frozenset(paths)
            self._thread = threading.Thread(target=self._run, args=(fill,), daemon=True, name="figures drawn later")

    def built(self) -> None:
        """The build is done, in every language (hooks.on_post_build): the drawing it asked for starts."""
        with self._lock:
            if self._thread is not None and self._thread.ident is None:
                self._thread.start()

    def _run(self, fill) -> None:
        try:
            fill()
        finally:
            with self._lock:
                self._underway = frozenset()
            self.rebuild()

    def rebuild(self) -> None:
        """Have the server rebuild now, or once it is there (the first build is still running)."""
        with self._lock:
            if self._server is None:
                self._rebuild_wanted = True
                return
            server = self._server
        _rebuild(server)

    def served(self, server) -> None:
        """The server, once it is there (hooks.on_serve): told to rebuild when a drawing ends."""
        with self._lock:
            self._server, wanted, self._rebuild_wanted = server, self._rebuild_wanted, False
        if wanted:
            _rebuild(server)


def _rebuild(server) -> None:
    from .serving import rebuild_soon
    rebuild_soon(server)


def model_values() -> frozenset[str]:
    """The named numbers of page 4's model (tiny/lm_heads.py, tiny/lm_findings.py): its seeds trained."""
    from mha_ref.tiny import lm_findings, lm_heads
    from ..keep import tiny_lm
    return frozenset(lm_heads.quantities(tiny_lm.all_seeds, tiny_lm.training_counts)) | \
        frozenset(lm_findings.quantities(tiny_lm.all_seeds))


def model_ready() -> bool:
    """Whether every seed of page 4's model is trained and measured, kept on disk (read, not trained)."""
    from ..keep import tiny_lm
    done, total = tiny_lm.progress()
    return done == total
