"""Turn registered figures into files: every frame, for a language, in a format.

Used by the site's build step and by the CLI, so both write the same paths and the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

from . import pool, registry
from .cache import FigureCache
from .progress import Progress
from .sources import Sources
from .registry import FigureError
from .save import KINDS, to_bytes, to_bytes_each
from ..kit.words import LANGS
from ..kit.style import narrow
from ..keep import disk
from ..keep.switches import cores  # the processors a pool may use


class Frame(NamedTuple):
    fig_id: str
    value: Any  # the control value, or None for a figure without a control
    slug: str | None

    @property
    def stem(self) -> str:
        """The frame's path below the figures folder without its format: path(fmt) = stem.fmt."""
        return self.fig_id if self.slug is None else f"{self.fig_id}/{self.slug}"

    def path(self, fmt: str = "svg") -> str:
        """Where the frame lives below the figures folder: stable, cited by lecturers."""
        return f"{self.stem}.{fmt}"


def frames(fig_id: str) -> list[Frame]:
    control = registry.get(fig_id).CONTROL
    if control is None:
        return [Frame(fig_id, None, None)]
    return [Frame(fig_id, v, control.slug(v)) for v in control.values]


def render(frame: Frame, lang: str, fmt: str = "svg") -> bytes:
    if fmt != "svg":  # laid out as for the SVG, like every PDF and PNG (save.to_bytes_each)
        return render_set(frame, lang, (fmt,))[0]
    return _drawn(frame, lang, (fmt,), lambda fig, fmts: to_bytes(fig, fmts[0]))


def render_set(frame: Frame, lang: str, fmts: tuple[str, ...]) -> tuple[bytes, ...]:
    """The frame drawn once and saved in each format, in the order asked; drawn once more, narrow,
    if a narrow variant ("narrow.svg", "narrow.dark.svg") is asked."""
    wide = tuple(f for f in fmts if not f.startswith("narrow."))
    thin = tuple(f.removeprefix("narrow.") for f in fmts if f.startswith("narrow."))
    _check(lang, fmts)
    saved = dict(zip(wide, _drawn(frame, lang, wide, to_bytes_each) if wide else ()))
    if thin:
        with narrow():
            saved.update(zip(("narrow." + f for f in thin), _drawn(frame, lang, thin, to_bytes_each)))
    return tuple(saved[f] for f in fmts)


def _check(lang: str, fmts: tuple[str, ...]) -> None:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")
    bad = [fmt for fmt in fmts if fmt not in KINDS]
    if bad:
        raise ValueError(f"unknown figure format {bad[0]!r}; use one of {KINDS}")


_DREW_HERE = False  # this process has drawn a frame, so its font files are open: never fork it (_start_method)


def _drawn(frame: Frame, lang: str, fmts: tuple[str, ...], save) -> bytes | tuple[bytes, ...]:
    global _DREW_HERE
    _DREW_HERE = True
    _check(lang, fmts)
    try:
        mod = registry.get(frame.fig_id)
    except FigureError as e:
        raise e.at(lang, frame.slug) from None
    try:
        fig = mod.draw(lang, frame.value)
        if fig is None or not hasattr(fig, "savefig"):
            raise TypeError(f"draw() must return a matplotlib Figure, got {fig!r}")
        return save(fig, fmts)
    except Exception as e:
        raise FigureError.caught(e, frame.fig_id, lang, frame.slug, "draw") from e


def plan(ids: Iterable[str] | None = None, broken: list[FigureError] | None = None) -> list[Frame]:
    """Every frame of the chosen figures (all registered ones by default), in site order.

    A figure that fails to import raises FigureError, or with `broken` is left out and added there.
    """
    chosen = registry.ORDER if ids is None else list(ids)
    importable = []
    for fig_id in chosen:
        try:
            registry.get(fig_id)  # refuse an unknown id before drawing anything
        except FigureError as e:
            if broken is None:
                raise
            broken.append(e)
            continue
        importable.append(fig_id)
    return [f for fig_id in importable for f in frames(fig_id)]


def render_many(tasks: Sequence[tuple[Frame, str, str]], jobs: int | None = None,
                keep_going: bool = False) -> Iterator[bytes | FigureError]:
    """render(frame, lang, fmt) for each task, in order, drawn by a pool of one process per core
    (with a tuple of formats, render_set: a tuple of bytes); with jobs=1, here, one by one, with no
    time limit (for tests and measurements).

    Every frame starts from the same settings (kit.style.setup), so a frame's bytes do not depend on
    which process drew it or what it drew before: the same bytes as drawing them one by one.
    A frame that fails raises its FigureError, or with `keep_going` is yielded as one in its place:
    also a frame still drawing after the time limit (pool.limit_from_env; its process is killed
    and replaced, and the figure's frames not yet started are not drawn) and one whose process died.
    With nowhere to keep a PREPARE's work (_keeps), the frames of a figure that declares one are
    drawn here, where the PREPARE ran.
    """
    task_fn = _render_or_error if keep_going else _render_task
    if jobs == 1:
        yield from (task_fn(task) for task in tasks)
        return
    if not tasks:
        return
    here = [] if _keeps() else [i for i, task in enumerate(tasks) if _preparation(task[0].fig_id) is not None]
    if here:  # what their PREPARE made is in this process's memory only (_keeps): drawn here
        drawn_here = {i: task_fn(tasks[i]) for i in here}
        with closing(render_many([t for i, t in enumerate(tasks) if i not in drawn_here], jobs, keep_going)) as others:
            for i in range(len(tasks)):
                yield drawn_here[i] if i in drawn_here else next(others)
        return
    limit = pool.limit_from_env()
    for ok, value in pool.outcomes(task_fn, tasks, min(jobs or cores(), len(tasks)), _start_method(), limit, _lost,
                                   group=lambda task: task[0].fig_id):
        if ok:
            yield value
        elif keep_going and isinstance(value, FigureError):
            yield value
        else:
            raise value


def _lost(task: tuple[Frame, str, Any], said: str, stack: list[tuple[str, int, str]]) -> FigureError:
    """The FigureError of a frame whose process timed out or died: `said` what happened, and where
    the process was stopped, as a traceback (`stack`, outermost first)."""
    frame, lang, _ = task
    trace = "".join(["Traceback of the drawing process when it was stopped (most recent call last):\n",
                     *(f'  File "{file}", line {line}, in {fn}\n' for file, line, fn in stack),
                     f"{said}\n"]) if stack else ""
    return FigureError(frame.fig_id, lang, frame.slug, said + registry.located_at([(f, n) for f, n, _ in stack]),
                       trace)


PREPARE_LIMITS = 20  # a PREPARE may take this many frames' time limits (cold, page 4's: about four minutes)


def _preparation(fig_id: str):
    return getattr(registry.get(fig_id), "PREPARE", None)


def _prepare(tasks: Sequence[tuple[Frame, str, str]], jobs: int | None, wait: bool = True) -> list:
    """Start the slow shared work that the figures about to be drawn declare (a figure module's
    PREPARE, a function of no arguments: training and measuring page 4's model, minutes when nothing
    is kept), each in a process of its own, and with `wait` wait for it (_await). Their frames are
    drawn once it is done, so that a frame's time limit counts its drawing, not that work, which the
    PREPARE keeps on disk where the frames read it; fill_cache draws the other figures meanwhile.
    Drawn one by one here (jobs=1, with no time limit), a frame does the work itself."""
    if jobs == 1 or not tasks:
        return []
    wanted = []
    for frame, *_ in tasks:
        fn = _preparation(frame.fig_id)
        if fn is not None and fn not in wanted:
            wanted.append(fn)
    if not _keeps():  # nowhere for a process of its own to leave its work: done here, and kept in memory
        for fn in wanted:
            fn()
        return []
    context = _start_method()
    started = [pool.beside(context, fn) for fn in wanted]
    if wait:
        _await(started)
    return started


def _prepare_progress(fig_ids: Iterable[str]) -> dict[str, Callable[[], tuple[int, int]]]:
    """What the figures' PREPARE says of its progress (a figure module's PREPARE_PROGRESS: a name and a
    function giving (done, total), e.g. page 4's seeds trained of five), by name, each once."""
    found = (getattr(registry.get(fig_id), "PREPARE_PROGRESS", None) for fig_id in sorted(fig_ids))
    return dict(p for p in found if p is not None)


def _keeps() -> bool:
    """Whether a PREPARE's work can be kept on disk for the processes that draw: not with the cache off
    (MHA_FIGURE_CACHE=0) nor with one found unwritable. Then the PREPARE runs in this process, whose
    memory keeps what it made, and its figure's frames are drawn here too (render_many), with no time
    limit: a process of its own would have to do the same work again, and take minutes."""
    folder = disk.cache_folder()
    return folder is not None and disk.cache_writable(folder)


def prepare(fig_id: str) -> None:
    """fig_id's PREPARE, when it declares one, done before code of the figure that runs under the time
    limit without drawing a frame (its data table: figures/publish/bundles.py): in a process of its own
    and stopped after PREPARE_LIMITS limits, as _prepare does it before the figure's frames. With the
    limit off, that code does the work itself; with nowhere to keep it (_keeps), it is done here. What
    the PREPARE kept already, it only reads."""
    fn = _preparation(fig_id)
    if fn is not None and not _keeps():
        fn()  # here, kept in this process's memory where data() reads it
    elif fn is not None and pool.limit_from_env() is not None:
        _await([pool.beside(_start_method(), fn)])


def _await(started: list) -> None:
    """Wait for the PREPARE processes, each stopped after PREPARE_LIMITS time limits (a PREPARE stopped
    leaves its frames to do the rest themselves, and fail as a frame that takes too long does)."""
    limit = pool.limit_from_env()
    pool.finish(started, None if limit is None else PREPARE_LIMITS * limit)


# Imported by a fork server before it forks the workers: third-party only, since our own modules
# change under `mkdocs serve` and each worker must import them as they are now.
PRELOAD = ["numpy", "matplotlib", "matplotlib.pyplot"]
# The longest temporary folder under which the fork server's socket path (folder + "/pymp-XXXXXXXX"
# + "/listener-XXXXXXXX", about 32 bytes more) still fits the 107 bytes a Unix socket path may have.
SOCKET_ROOM = 107 - 40


def _start_method(fork: bool = True) -> multiprocessing.context.BaseContext:
    """fork while this process runs one thread: the workers start with everything imported. With
    more threads (`mkdocs serve`'s server and file watchers), a forked worker could inherit a lock
    another thread held at that moment and wait for it for ever; then a fork server, started
    single-threaded, forks the workers. The fork server listens on a Unix socket in the temporary
    folder, whose path the system caps (about 107 bytes): under a longer TMPDIR, spawn instead.

    Never fork a process that has drawn (_DREW_HERE), nor with fork=False one that may have drawn in
    a way this module does not see: its open font files (matplotlib's mathtext keeps its own) would
    be shared by the workers, read position included, and two workers reading glyphs at once read
    each other's bytes (FreeType: "invalid outline", "invalid stream operation")."""
    methods = multiprocessing.get_all_start_methods()
    if fork and not _DREW_HERE and "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods and len(os.fsencode(tempfile.gettempdir())) <= SOCKET_ROOM:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _render_task(task: tuple[Frame, str, str | tuple[str, ...]]) -> bytes | tuple[bytes, ...]:
    """render(), or with a tuple of formats render_set(): one drawing saved in each."""
    return render_set(*task) if isinstance(task[2], tuple) else render(*task)


def _render_or_error(task: tuple[Frame, str, str | tuple[str, ...]]) -> bytes | tuple[bytes, ...] | FigureError:
    try:
        return _render_task(task)
    except FigureError as e:
        return e


def _drawings(tasks: Iterable[tuple[Frame, str, str]]) -> list[tuple[Frame, str, tuple[str, ...]]]:
    """(frame, lang, fmt) tasks, in order, as one task per drawing: a frame's formats together
    (tasks list a frame's formats next to each other), so each frame is drawn once."""
    drawings: list[tuple[Frame, str, tuple[str, ...]]] = []
    for frame, lang, fmt in tasks:
        if drawings and drawings[-1][:2] == (frame, lang):
            drawings[-1] = (frame, lang, (*drawings[-1][2], fmt))
        else:
            drawings.append((frame, lang, (fmt,)))
    return drawings


def _each_format(drawings: list[tuple[Frame, str, tuple[str, ...]]],
                 results: Iterable[tuple[bytes, ...] | FigureError]) -> Iterator[bytes | FigureError]:
    """The drawings' results (render_many), one per format again (a failure once per format)."""
    for (_, _, fmts), result in zip(drawings, results):
        yield from [result] * len(fmts) if isinstance(result, FigureError) else result


class Rendered(NamedTuple):
    frame: Frame
    lang: str
    fmt: str
    data: bytes | None  # None when the frame failed
    drawn: bool  # False: taken from the cache
    error: FigureError | None = None


def _tasks(langs, ids, formats, cache: FigureCache | None,
           broken: list[FigureError] | None = None) -> tuple[list[tuple[Frame, str, str]], list]:
    """Every (frame, lang, fmt) of the chosen figures, in site order, and its file in the cache.

    broken: as in plan()."""
    chosen = plan(ids, broken)
    tasks = [(frame, lang, fmt) for lang in langs for frame in chosen for fmt in formats]
    if cache is None:
        return tasks, [None] * len(tasks)
    modules = sorted({registry.module_name(frame.fig_id) for frame in chosen})
    digest = dict(zip(modules, cache.digests(modules)))
    return tasks, [cache.path(digest[registry.module_name(frame.fig_id)], lang, frame.slug, fmt)
                   for frame, lang, fmt in tasks]


def render_files(langs: Iterable[str], ids: Iterable[str] | None = None, formats: Iterable[str] = ("svg",),
                 cache: FigureCache | None = None, jobs: int | None = None,
                 keep_going: bool = False, later: Collection[Path] = frozenset()) -> Iterator[Rendered]:
    """Every frame of the chosen figures in each language and format, in site order.

    With a cache, a frame whose sources are unchanged since it was last drawn is read back; the
    others are drawn in a process pool (render_many) and stored as they arrive. A failure raises
    FigureError; with `keep_going` it comes as a Rendered with `error` set instead (first those of
    figures that failed to import, one per language, then every frame that failed to draw).
    later: the cache's paths of frames drawn elsewhere meanwhile (`mkdocs serve`'s first drawing:
    figures/site/later.py); such a frame the cache still lacks is not drawn here: it comes as a
    Rendered with neither data nor error.
    """
    langs = list(langs)
    broken: list[FigureError] | None = [] if keep_going else None
    tasks, paths = _tasks(langs, ids, formats, cache, broken)
    for e in broken or ():
        yield from (Rendered(Frame(e.fig_id, None, None), lang, "svg", None, False, e.at(lang)) for lang in langs)
    found = [None if path is None else cache.failed(path) or cache.get(path, task) for task, path in zip(tasks, paths)]
    fresh_tasks = _drawings(task for task, path, data in zip(tasks, paths, found) if data is None and path not in later)
    preparing = _prepare(fresh_tasks, jobs)
    # closing: a consumer that stops early shuts the pool down now, not whenever this is collected
    with closing(render_many(fresh_tasks, jobs, keep_going)) as drawn:
        yield from _merged(tasks, paths, found, _each_format(fresh_tasks, drawn), cache, later)
    pool.finish(preparing, pool.limit_from_env())
    if cache is not None and None in found:
        cache.prune()


def _merged(tasks, paths, found, fresh, cache, later) -> Iterator[Rendered]:
    """Each task's Rendered, in order: from the cache when found, else the next frame drawn (or none,
    for a frame in `later`)."""
    for task, path, data in zip(tasks, paths, found):
        if isinstance(data, bytes):
            yield Rendered(*task, data, drawn=False)
            continue
        if data is not None:  # failed to draw earlier (FigureCache.failed): not drawn again
            yield Rendered(*task, None, drawn=False, error=data.at(task[1], task[0].slug))
            continue
        if path in later:
            yield Rendered(*task, None, drawn=False)
            continue
        data = next(fresh)
        if isinstance(data, FigureError):
            yield Rendered(*task, None, drawn=True, error=data)
            continue
        if path is not None:
            cache.put(path, data)
        yield Rendered(*task, data, drawn=True)


def missing(cache: FigureCache, langs: Iterable[str], ids: Iterable[str] | None = None,
            formats: Iterable[str] = ("svg",), among: Collection[Path] | None = None) -> dict[Path, str]:
    """The cache's paths of the frames it lacks (neither drawn nor failed), each with its figure's
    id: of the chosen figures in each language and format, or only those `among` these paths."""
    tasks, paths = _tasks(list(langs), ids, formats, cache, [])
    return {path: task[0].fig_id for task, path in zip(tasks, paths)
            if (among is None or path in among) and not cache.has(path) and not cache.failed(path)}


def _forget_changed(cache: FigureCache, kept: list[tuple[Path, tuple[Frame, str, str]]]) -> None:
    """Drop the kept frames of each figure whose digest (everything it is drawn from) is not what
    their path was named by: the code changed while they were drawn."""
    modules = sorted({registry.module_name(frame.fig_id) for _, (frame, _, _) in kept})
    now = dict(zip(modules, cache.digests(modules, Sources())))
    changed = [path for path, (frame, lang, fmt) in kept
               if cache.path(now[registry.module_name(frame.fig_id)], lang, frame.slug, fmt) != path]
    for path in changed:
        cache.forget(path)
    if changed:
        disk.log.warning(f"figure cache: the code changed while {len(changed)} files were drawn; they are not kept "
                         "(the next build draws them again)")


def fill_cache(cache: FigureCache, langs: Iterable[str], ids: Iterable[str] | None = None,
               formats: Iterable[str] = ("svg",), jobs: int | None = None, keep_going: bool = False,
               say: Callable[[str], None] | None = None, drawn_but_prepared: Callable[[], None] | None = None,
               skip: Collection[Path] = frozenset()) -> int:
    """Draw the frames the cache lacks, all in one pool, and store them; how many were drawn.

    keep_going: leave out what fails (render_files reports it) instead of raising FigureError.
    say: where to say how far the drawing has come every few seconds (progress.Progress): frames
    drawn of how many, the work their PREPARE does (page 4's seeds trained), the time left.
    drawn_but_prepared: called when every frame is drawn but those of the figures waiting for their PREPARE
    (`mkdocs serve` then shows what is drawn: figures/site/later.py).
    skip: the cache's paths of frames drawn elsewhere meanwhile (`mkdocs serve`'s first drawing).

    Code edited while its frames are drawn (a file saved under `mkdocs serve` while it draws) could
    leave frames of one version under the digest of the other: when the code's bytes differ after the
    drawing from before the digests were read, the frames this call kept of each figure whose digest
    changed meanwhile are dropped again, with a warning, and drawn afresh by the next build."""
    code, formats = Sources().stamp(), tuple(formats)
    tasks, paths = _tasks(langs, ids, formats, cache, [] if keep_going else None)
    missing = [(task, path) for task, path in zip(tasks, paths)
               if path not in skip and not cache.has(path) and not cache.failed(path)]
    drawings = _drawings(task for task, _ in missing)
    preparing = _prepare(drawings, jobs, wait=False)
    # the frames of figures with a PREPARE wait for it; the others are drawn meanwhile
    waiting = {frame.fig_id for frame, *_ in drawings if preparing and _preparation(frame.fig_id) is not None}
    progress = None if say is None or not drawings else \
        Progress(len(drawings), say, _prepare_progress(waiting), waiting=sum(d[0].fig_id in waiting for d in drawings)).start()
    kept, full = [], False
    try:
        for group in ([m for m in missing if m[0][0].fig_id not in waiting], [m for m in missing if m[0][0].fig_id in waiting]):
            if full or not group:
                continue
            if group[0][0][0].fig_id in waiting:
                if drawn_but_prepared is not None and len(group) < len(missing):  # others were drawn
                    drawn_but_prepared()
                _await(preparing)
            group_drawings = _drawings(task for task, _ in group)
            with closing(render_many(group_drawings, jobs, keep_going)) as drawn:
                for (task, path), data in zip(group, _each_format(group_drawings, drawn)):
                    if progress is not None and task[2] == formats[-1]:  # a frame's last file: the frame is drawn
                        progress.drawn()
                    if isinstance(data, FigureError):
                        cache.failed(path, data)
                    elif not cache.put(path, data):  # the cache cannot be written: render_files draws what it needs
                        full = True
                        break
                    else:
                        kept.append((path, task))
    finally:  # a failure raised (FigureError) ends the lines too
        if progress is not None:
            progress.stop()
    pool.finish(preparing, pool.limit_from_env())
    if kept and Sources().stamp() != code:
        _forget_changed(cache, kept)
    if missing:
        cache.prune()
    return len(drawings)
