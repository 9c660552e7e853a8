"""Where the suite keeps what outlives one checkout: frames drawn and checked (frame_checks.Kept) and
the page-4 models' trained weights and the masked model's head measurements. All are named by digests of the code that made them, so every
clone on a machine can share them, as pip shares its wheels: a fresh clone's suite then draws and
trains only what its code changed. MHA_TEST_CACHE moves the folder; otherwise it is
$XDG_CACHE_HOME/mha-explained-tests (~/.cache/mha-explained-tests)."""

from __future__ import annotations

import os
import time
from pathlib import Path

ENV = "MHA_TEST_CACHE"


def folder() -> Path:
    value = os.environ.get(ENV, "").strip()
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "mha-explained-tests"


KEEP_EACH = 6000  # files each shared folder keeps: a session's three builds write about 3,000 into whole/
SETTLED = 3600  # seconds: a file used or written more recently may belong to a session running beside


def prune(folder: Path, keep: int = KEEP_EACH, settled: float = SETTLED) -> None:
    """Forget all but the `keep` most recently written or used files of one of the machine's shared
    folders (the figure caches of sessions link them, and do not prune them: figures/engine/cache.py),
    never one used or written in the last `settled` seconds."""
    try:
        files = sorted(((p.stat().st_mtime, p) for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
                       reverse=True)
        for mtime, p in files[keep:]:
            if mtime < time.time() - settled:
                p.unlink(missing_ok=True)
    except OSError:  # a folder another session prunes at the same time, or cannot be written: no matter
        pass
