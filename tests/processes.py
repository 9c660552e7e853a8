"""Small helpers for the tests that check no process is left running: what runs below a process,
and whether one has ended."""

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
