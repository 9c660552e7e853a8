"""`mkdocs serve` shows its pages at once and the figures not drawn yet follow (never `mkdocs build`,
which waits for every frame and publishes nothing half-made: gen_figures.py).

Under serve, the frames the figure cache lacks are drawn in the background (a thread running
fill_cache, whose pool of processes draws them and whose PREPARE trains page 4's model beside it),
saying how far it has come in the terminal (figures/engine/progress.py). Meanwhile each of those
frames is a card saying it is being drawn (cards.pending_svg, in the page's language), each figure
with such frames a card in its place on its page (cards.pending_html), and each number that needs page
4's trained model a short mark (pending_value). When the drawing ends the server rebuilds and the
browsers reload (serving.rebuild_soon): that build finds every frame in the cache.

What one build left for later (pending, waiting_values) is this module's, set by the gen-files script
at the build's start; what lasts from build to build (the drawing under way, the server to tell) is a
Later, which the hooks keep for the server's life."""

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
    """The background drawing of one `mkdocs serve`, kept across its rebuilds."""

    def __init__(self):
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._server = None
        self._rebuild_wanted = False  # drawn before the server was there (the first build): rebuild when it is
        self._next_background = True  # the serve's first build, and each rebuild the drawing asks for
        self._this_background = True

    def background(self, first_language: bool) -> bool:
        """Whether this build shows its pages before the missing frames are drawn: the serve's first
        build (a fresh clone's, minutes of drawing and training) and the rebuilds the drawing asks
        for. A rebuild after an edit draws what the edit changed first, as `mkdocs build` does, so
        that a frame that fails is its error card at once. Decided by the first language's build,
        kept for the others of the same build."""
        with self._lock:
            if first_language:
                self._this_background, self._next_background = self._next_background, False
            return self._this_background

    def draw(self, fill: Callable[[], object]) -> None:
        """fill() (fill_cache of what is missing) in a thread of its own, unless one is under way;
        then a rebuild (and one meanwhile when fill calls rebuild(): what is drawn, while page 4's
        model still trains)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, args=(fill,), daemon=True, name="figures drawn later")
            self._thread.start()

    def _run(self, fill) -> None:
        try:
            fill()
        finally:
            self.rebuild()

    def rebuild(self) -> None:
        """Have the server rebuild now, or once it is there (the first build is still running)."""
        with self._lock:
            if self._server is None:
                self._rebuild_wanted = True
                return
            server = self._server
            self._next_background = True
        _rebuild(server)

    def served(self, server) -> None:
        """The server, once it is there (hooks.on_serve): told to rebuild when a drawing ends."""
        with self._lock:
            self._server, wanted, self._rebuild_wanted = server, self._rebuild_wanted, False
            self._next_background = self._next_background or wanted
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
