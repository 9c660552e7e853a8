"""How far a build's drawing has come, said every few seconds while it lasts: frames drawn of how
many, the shared slow work the figures wait for (page 4's model: seeds trained of five), and about
how long is left. fill_cache says it (figures/engine/render.py) when given somewhere to say it:
`mkdocs build` and `mkdocs serve` (figures/site/gen_figures.py) print it among their log lines."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

EVERY = 10.0  # seconds between two lines


class Progress:
    """Counts the frames drawn (drawn()) and asks `work` (name -> a function giving (done, total),
    e.g. tiny_lm.progress for "seeds of page 4's model trained") how far the work the figures wait
    for has come; says a line through `say` every `every` seconds from a thread of its own, and one
    when stopped (stop())."""

    def __init__(self, frames: int, say: Callable[[str], None], work: dict[str, Callable[[], tuple[int, int]]] | None = None,
                 every: float | None = None, clock: Callable[[], float] = time.monotonic, waiting: int = 0):
        self.frames, self.say, self.work, self.clock = frames, say, dict(work or {}), clock
        self.waiting = waiting  # frames drawn only once the work is done (page 4's figures: its seeds)
        self.every = EVERY if every is None else every
        self.done, self.started = 0, clock()
        self._work_seen: dict[str, tuple[float, int]] = {}  # when each work's count was first seen, and that count
        self._work_moved: dict[str, tuple[float, int]] = {}  # when each work's count last changed, and that count
        self._stopped = threading.Event()
        self._thread = None

    def start(self) -> Progress:
        self.say(self.line())
        self._thread = threading.Thread(target=self._tick, daemon=True, name="figure progress")
        self._thread.start()
        return self

    def drawn(self, n: int = 1) -> None:
        self.done += n

    def _tick(self) -> None:
        while not self._stopped.wait(self.every):
            self.say(self.line())

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            self.say(f"figures: {self.done} of {self.frames} frames drawn in {_duration(self.clock() - self.started)}")

    def line(self) -> str:
        """"figures: 40 of 312 frames drawn, about 3 min 10 s left; seeds of page 4's model trained and
        measured: 2 of 5, about 2 min left": each count with the time left at its rate so far."""
        now = self.clock()
        left = self.frames - self.done
        then = f", {left} wait for what follows" if 0 < left <= self.waiting and self.work else \
            _time_left(now - self.started, self.done, self.frames)
        parts = [f"figures: {self.done} of {self.frames} frames drawn{then}"]
        for name, count in self.work.items():
            done, total = count()
            since, at_first = self._work_seen.setdefault(name, (now, done))  # counted from when first asked
            moved, seen = self._work_moved.get(name, (now, done))
            if done != seen:
                moved = now
            self._work_moved[name] = moved, done
            # the rate up to its last step, counted down since: a seed takes minutes, and the time left
            # must not grow while the next one is under way
            parts.append(f"{name}: {done} of {total}"
                         f"{_time_left(moved - since, done - at_first, total - at_first, now - moved)}")
        return "; ".join(parts)


def _time_left(elapsed: float, done: int, total: int, since_last: float = 0.0) -> str:
    """", about 2 min 05 s left" at the rate so far (done in elapsed seconds), less the seconds
    since the last one was done; ", due now at its rate so far" once that is spent; nothing once all
    is done, and before anything is (no rate yet) ", time left not yet known"."""
    if done >= total:
        return ""
    if done <= 0:
        return ", time left not yet known"
    left = elapsed / done * (total - done) - since_last
    return f", about {_duration(left)} left" if round(left) > 0 else ", due now at its rate so far"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"
