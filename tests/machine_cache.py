"""Where the suite keeps what outlives one checkout: frames drawn and checked (frame_checks.Kept) and
the page-4 models' trained weights and the masked model's head measurements. All are named by digests of the code that made them, so every
clone on a machine can share them, as pip shares its wheels: a fresh clone's suite then draws and
trains only what its code changed. MHA_TEST_CACHE moves the folder; otherwise it is
$XDG_CACHE_HOME/mha-explained-tests (~/.cache/mha-explained-tests)."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "MHA_TEST_CACHE"


def folder() -> Path:
    value = os.environ.get(ENV, "").strip()
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "mha-explained-tests"
