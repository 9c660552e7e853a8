"""The self-check's two downloads: the test vectors (mha_ref.vectors, one .npz) and the checker itself
(mha_ref/selfcheck/check.py, as it is: it needs numpy only). The vectors are kept in the build's cache under
a digest of the code that makes them, so a warm build reads them rather than computing them again."""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np

from ..keep import disk, reach
from mha_ref.selfcheck import check

VECTORS = f"downloads/{check.VECTORS}"  # below a language's root; pages link them relative to docs/
SCRIPT = "downloads/mha_selfcheck.py"
SOURCE = Path(check.__file__)  # the script is the checker's own file, as it is


def files() -> dict[str, bytes]:
    """path below the site's root -> bytes, the same for both languages."""
    salt = f"numpy {np.__version__} python {platform.python_version()}"
    key = reach.CodeReach().digest(("mha_ref.vectors", "npz_bytes"), salt=salt)[:32]
    folder = disk.cache_folder()
    kept = None if folder is None else folder / "selfcheck" / f"{key}.npz"

    def make() -> bytes:
        from mha_ref import vectors  # computing them imports the whole reference: only on a cold cache
        return vectors.npz_bytes()

    npz = disk.kept_or_made(kept, bytes, make, bytes, "the self-check's test vectors")
    return {VECTORS: npz, SCRIPT: SOURCE.read_bytes()}
