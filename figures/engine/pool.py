"""The processes that draw frames, kept so that no figure can hang a build or outlive it.

Each process takes one task at a time, so the parent knows which task each one runs and since
when. A task that runs longer than the limit (LIMIT_ENV, DEFAULT_LIMIT seconds) has its process
killed and replaced, and comes back as the `lost` error its caller makes, with where the process
was when stopped; the other tasks of its group (its figure) are then not started, since they would
most likely hang the same way. A process that dies (os._exit, a signal, the kernel's OOM killer)
comes back the same way, named by the task it was running. Every process dies with the one that
started the pool, whatever ends that one, SIGKILL included (Linux: die_with).
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import re
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from ..keep import switches

LIMIT_ENV = "MHA_FIGURE_TIMEOUT"
DEFAULT_LIMIT = 60.0  # seconds; a frame draws in well under one, training page 4's model takes about 10
STACK_SIGNAL = signal.SIGUSR1  # asks a process for its stack (faulthandler) before it is killed
PR_SET_PDEATHSIG = 1  # linux/prctl.h

Outcome = tuple[bool, Any]  # (True, result) or (False, the exception to raise in its place)


def limit_from_env() -> float | None:
    """The seconds a task may run (LIMIT_ENV; DEFAULT_LIMIT when unset), or None when it turns the
    limit off ("0", "off", ...). Anything else is refused by name (switches.EnvError, a ValueError)."""
    return switches.env_seconds(LIMIT_ENV, DEFAULT_LIMIT, "a frame may take to draw")


def die_with(owner: int) -> None:
    """End this process when `owner`, the process that started it, ends, however it ends.

    A thread waits for `owner` to end (a pidfd: Linux 5.3), since under the fork server our parent
    is the fork server, which lives as long as any process it forked (each holds its "alive" pipe);
    and the kernel kills this process when its parent ends (PR_SET_PDEATHSIG), which holds even
    while a drawing keeps the thread from running."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux
        pass
    try:
        pidfd = os.pidfd_open(owner)
    except ProcessLookupError:  # ended already
        os._exit(1)
    except (AttributeError, OSError):  # an older system: ask every second
        pidfd = None
    threading.Thread(target=_end_with, args=(owner, pidfd), daemon=True).start()


def _end_with(owner: int, pidfd: int | None) -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {STACK_SIGNAL})  # the drawing thread's stack is asked for
    if pidfd is not None:
        select.select([pidfd], [], [])
    else:
        while _alive(owner):
            time.sleep(1)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def beside(context, fn: Callable[[], Any]):
    """fn() started in a process of its own (daemon) that dies with this one."""
    process = context.Process(target=_run_beside, args=(fn, os.getpid()), daemon=True)
    process.start()
    return process


def _run_beside(fn: Callable[[], Any], owner: int) -> None:
    die_with(owner)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group; the owner stops us
    fn()


def finish(processes: list, limit: float | None) -> None:
    """Wait for processes started beside the pool, each at most `limit` seconds more, then kill it."""
    for process in processes:
        process.join(limit)
        if process.is_alive():
            process.kill()
            process.join()


def _serve(tasks: Connection, stacks: Connection, fn: Callable[[Any], Any], owner: int) -> None:
    """A worker: fn(task) for each (task,) received, its Outcome sent back, until None comes or the
    pipe closes."""
    die_with(owner)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.register(STACK_SIGNAL, file=stacks, all_threads=False)
    while True:
        try:
            message = tasks.recv()
        except EOFError:
            return
        if message is None:
            return
        try:
            outcome = (True, fn(*message))
        except Exception as e:
            outcome = (False, e)
        try:
            tasks.send(outcome)
        except OSError:  # the pool is gone
            return
        except Exception as e:  # a result or an exception that does not pickle (nothing was sent)
            tasks.send((False, RuntimeError(f"{type(e).__name__}: {e}")))


class _Worker:
    def __init__(self, context, fn: Callable[[Any], Any]):
        self.tasks, theirs = context.Pipe()
        self.stacks, their_stacks = context.Pipe(duplex=False)
        self.process = context.Process(target=_serve, args=(theirs, their_stacks, fn, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()  # only the worker holds its ends: its death closes them, and we see EOF
        their_stacks.close()
        self.index: int | None = None  # the task it runs
        self.since = 0.0

    def give(self, index: int, task: Any) -> None:
        self.index, self.since = index, time.monotonic()
        self.tasks.send((task,))

    def stack(self) -> str:
        """What the process runs now, most recent call first (faulthandler's dump), or ""."""
        try:
            os.kill(self.process.pid, STACK_SIGNAL)
        except ProcessLookupError:
            return ""
        chunks, wait_for = [], 2.0  # a busy machine may take a while to run the handler
        while self.stacks.poll(wait_for) and len(chunks) < 1000:  # written a line at a time, then nothing
            chunks.append(os.read(self.stacks.fileno(), 1 << 16))
            wait_for = 0.2
        return b"".join(chunks).decode(errors="replace")

    def how_it_ended(self) -> str:
        self.process.join(5)
        code = self.process.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            return f"was killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def stop(self) -> None:
        if self.index is not None:
            self.process.kill()
        else:  # not only closing the pipe: a worker forked later holds a copy of our end
            try:
                self.tasks.send(None)
            except OSError:
                pass
        self.tasks.close()
        self.stacks.close()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def as_traceback(stack: str) -> list[tuple[str, int, str]]:
    """(file, line, function) of each frame in a faulthandler dump, outermost first, as a traceback."""
    return [(f, int(line), fn) for f, line, fn in re.findall(r'File "(.+)", line (\d+) in (\S+)', stack)][::-1]


def outcomes(fn: Callable[[Any], Any], tasks: Sequence[Any], jobs: int, context, limit: float | None,
             lost: Callable[[Any, str, list[tuple[str, int, str]]], BaseException],
             group: Callable[[Any], Any] = lambda task: None) -> Iterator[Outcome]:
    """The Outcome of fn(task) for each task, in order, from `jobs` worker processes.

    A task whose process ran past `limit` seconds or died is lost(task, what happened, the stack it
    was stopped in, outermost first); after a timeout, the tasks of the same group not yet started
    are lost(task, why not, []) too."""
    if jobs < 1:
        raise ValueError(f"processes drawing at once must be at least 1, not {jobs}")
    pool = _Pool(fn, tasks, jobs, context, limit, lost, group)
    try:
        for i in range(len(tasks)):
            while i not in pool.results:
                pool.dispatch()
                pool.collect()
            yield pool.results.pop(i)
    finally:
        for worker in pool.workers:
            worker.stop()


class _Pool:
    def __init__(self, fn, tasks, jobs, context, limit, lost, group):
        self.fn, self.tasks, self.context, self.limit, self.lost, self.group = fn, tasks, context, limit, lost, group
        self.results: dict[int, Outcome] = {}
        self.queue = list(range(len(tasks)))[::-1]  # popped from the end: first task first
        self.timed_out: dict[Any, str] = {}  # group -> why its tasks not yet started are not
        self.workers = [_Worker(context, fn) for _ in range(min(jobs, len(tasks)))]

    def dispatch(self) -> None:
        """A task to each idle worker; a task whose group timed out is lost at once."""
        for worker in self.workers:
            while worker.index is None and self.queue:
                i = self.queue.pop()
                why_not = self.timed_out.get(self.group(self.tasks[i]))
                if why_not:
                    self.results[i] = (False, self.lost(self.tasks[i], why_not, []))
                else:
                    worker.give(i, self.tasks[i])

    def collect(self) -> None:
        """Wait until a busy worker answers, dies or runs out of time; take what it gave."""
        busy = [w for w in self.workers if w.index is not None]
        if not busy:
            return
        timeout = None if self.limit is None else max(0.0, min(w.since for w in busy) + self.limit - time.monotonic())
        ready = set(wait([w.tasks for w in busy] + [w.process.sentinel for w in busy], timeout))
        for worker in busy:
            if worker.tasks in ready or worker.process.sentinel in ready:
                self._answered(worker)
            elif self.limit is not None and time.monotonic() - worker.since >= self.limit:
                self._timed_out(worker)

    def _answered(self, worker: _Worker) -> None:
        i = worker.index
        try:
            self.results[i] = worker.tasks.recv()
            worker.index = None
        except (EOFError, OSError):  # it died: its end of the pipe closed with nothing sent
            said = f"its drawing process {worker.how_it_ended()} before it finished"
            self.results[i] = (False, self.lost(self.tasks[i], said, []))
            self._replace(worker)

    def _timed_out(self, worker: _Worker) -> None:
        i = worker.index
        stack = as_traceback(worker.stack())
        said = f"still drawing after {self.limit:g} s (the limit, {LIMIT_ENV}), so its process was stopped"
        self.results[i] = (False, self.lost(self.tasks[i], said, stack))
        self.timed_out.setdefault(self.group(self.tasks[i]), f"not drawn: another frame of this figure was {said}")
        self._replace(worker)

    def _replace(self, worker: _Worker) -> None:
        """Kill the worker; start another if tasks remain."""
        worker.stop()
        self.workers.remove(worker)
        if self.queue:
            self.workers.append(_Worker(self.context, self.fn))
