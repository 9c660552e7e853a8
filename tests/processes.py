"""Small helpers for the tests that check no process is left running: what runs below a process,
and whether one has ended."""

import os
import signal
import time
from pathlib import Path


def gone(pid: int) -> bool:
    """Ended (a zombie waiting for its new parent to reap it counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def below(pid: int) -> set[int]:
    """Every process below pid, however deep (Linux /proc)."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except FileNotFoundError:
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def survivors(pids, seconds: float = 20) -> list[int]:
    """The processes of `pids` still running after up to `seconds`; each is then killed, so that
    nothing is left running whatever the test concludes."""
    deadline = time.monotonic() + seconds
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in pids if not gone(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left
