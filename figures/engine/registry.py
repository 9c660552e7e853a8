"""Figures by id: the ordered ids (figures/gallery/__init__.py), the module that draws each, and the
error that names a figure which failed to import or to draw."""

from __future__ import annotations

import difflib
import importlib
import signal
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from . import pool
from ..gallery import ORDER

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "figures.gallery"  # the figures' own modules, one per figure
REQUIRED = ("CONTROL", "CAPTION_ZH", "CAPTION_EN", "draw")  # what every figure module defines


def module_name(fig_id: str) -> str:
    return f"{PACKAGE}.{fig_id.replace('-', '_')}"


class FigureError(RuntimeError):
    """A figure failed to import or to draw: which one, in which language and frame, and why.

    Its message is one line (`headline`); `trace` holds the traceback as text, so that the error
    crosses from a worker process intact and a page can show its last lines.
    """

    def __init__(self, fig_id: str, lang: str | None, slug: str | None, error: str, trace: str = "",
                 stage: str = "draw"):
        self.fig_id, self.lang, self.slug, self.error, self.trace, self.stage = fig_id, lang, slug, error, trace, stage
        super().__init__(self.headline)

    def __reduce__(self):  # pickled by its fields, not by its message
        return FigureError, (self.fig_id, self.lang, self.slug, self.error, self.trace, self.stage)

    @property
    def headline(self) -> str:
        frame = f"frame {self.slug}" if self.slug else "its one frame" if self.stage == "draw" else "every frame"
        return f"figure {self.fig_id!r} ({self.lang or 'every language'}, {frame}) failed to {self.stage}: {self.error}"

    def at(self, lang: str, slug: str | None = None) -> FigureError:
        """The same failure, named in the language (and frame) being built."""
        return FigureError(self.fig_id, lang, slug or self.slug, self.error, self.trace, self.stage)

    def last_lines(self, n: int = 8) -> list[str]:
        return [line for line in self.trace.splitlines() if line.strip()][-n:]

    @classmethod
    def caught(cls, e: BaseException, fig_id: str, lang: str | None, slug: str | None, stage: str) -> FigureError:
        """The FigureError for an exception being handled: its type, message and where in our code."""
        return cls(fig_id, lang, slug, f"{type(e).__name__}: {e}{located(e)}", traceback.format_exc(), stage)


def located(e: BaseException) -> str:
    """' (mha_ref/x.py, line 12)': where in this checkout the exception arose, or ''."""
    if isinstance(e, SyntaxError) and e.filename:
        return located_at([(e.filename, e.lineno)])
    return located_at([(f.filename, f.lineno) for f in traceback.extract_tb(e.__traceback__)])


def located_at(where: list[tuple[str, int]]) -> str:
    """' (mha_ref/x.py, line 12)': the innermost of the (file, line) frames, outermost first, that
    lies in this checkout, or ''. When that is not a figure's own module but one was on the way
    (a kit helper or mha_ref called wrongly), the figure's line too: ', called from
    figures/gallery/x.py, line 40)', the line its author wrote."""
    ours = [(Path(file).relative_to(ROOT), line) for file, line in where if Path(file).is_relative_to(ROOT)
            and ".venv" not in Path(file).relative_to(ROOT).parts]
    if not ours:
        return ""
    file, line = ours[-1]
    gallery = Path(*PACKAGE.split("."))
    figure = [(f, n) for f, n in ours if f.parent == gallery]
    called = f", called from {figure[-1][0]}, line {figure[-1][1]}" if figure and file.parent != gallery else ""
    return f" ({file}, line {line}{called})"


def unknown(fig_id: str, order: tuple[str, ...] = ORDER) -> str:
    """"unknown figure id 'x'; did you mean 'y'? (...)": the one message for an id not registered,
    naming the nearest registered ids rather than all of them."""
    near = difflib.get_close_matches(fig_id, order, n=3)
    return (f"unknown figure id {fig_id!r}; " + (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
            + "(the registered ids: figures/gallery/__init__.py)")


def get(fig_id: str) -> ModuleType:
    """The module that draws `fig_id`; an unknown id is refused by name, a failed import named
    (FigureError), an import still running after the time limit stopped and named (`limited`)."""
    if fig_id not in ORDER:
        raise KeyError(unknown(fig_id))
    with limited(fig_id, None, "import"):
        try:
            module = importlib.import_module(module_name(fig_id))
        except Exception as e:
            raise FigureError.caught(e, fig_id, None, None, "import") from e
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    wrong = [f"{name} as text" for name in REQUIRED if name.startswith("CAPTION_") and name not in missing
             and not (isinstance(getattr(module, name), str) and getattr(module, name).strip())]
    wrong += [] if "draw" in missing or callable(module.draw) else ["draw as a function"]
    if missing or wrong:
        file = Path(module.__file__).resolve()
        shown = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file
        raise FigureError(fig_id, None, None, f"{shown} does not define {', '.join(missing + wrong)}: "
                          f"every figure module gives {', '.join(REQUIRED)} (.github/CONTRIBUTING.md, \"Add a figure\")", stage="import")
    return module


class _OverTime(BaseException):
    """Raised into a figure's code run in this process when it outlives the limit: a BaseException,
    so that the figure's own `except Exception` cannot swallow it."""


_running: list[str] = []  # the figure code now under a limit in this process (limits do not nest)


@contextmanager
def limited(fig_id: str, lang: str | None, stage: str) -> Iterator[None]:
    """Run a figure's code in this process (its import, data(), readout()) under the time limit its
    frames are drawn with (pool.limit_from_env): code still running after it is stopped and raises
    FigureError, "still running after N s", with where it was, instead of hanging the build or the
    server. A signal stops it, so only in the main thread (where `mkdocs build` and `mkdocs serve`
    build); elsewhere, or inside another limit, the code runs without one."""
    limit = pool.limit_from_env()
    if (limit is None or _running or threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")):
        yield
        return

    def stop(signum, frame):  # where the code was, not this handler
        raise _OverTime(located_at([(f.filename, f.lineno) for f in traceback.extract_stack(frame)]))

    previous = signal.signal(signal.SIGALRM, stop)
    _running.append(fig_id)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    except _OverTime as e:
        raise FigureError(fig_id, lang, None, f"still running after {limit:g} s (the limit, {pool.LIMIT_ENV}), "
                          f"so it was stopped{e.args[0]}", traceback.format_exc(), stage) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _running.pop()

