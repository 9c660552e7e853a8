"""Text expanded once and kept: a page's constructs (figures/site/markup.py) and a figure's caption
with its numbers filled in (attribution.py), each kept in the figure cache under a digest of its text
and of everything an expansion reads besides (code()): a build in which neither changed reads what
an earlier build expanded instead of computing the numbers again."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from ..keep import disk, reach
from ..engine import registry
from ..engine.sources import environment
from .identity import IDENTITY

ROOT = Path(__file__).resolve().parents[2]
PAGES, CAPTIONS = "pages", "captions"  # the figure cache's folders of expanded pages and captions
NOT_KEYED = ("MHA_FIGURE_CACHE", "MHA_TEST_CACHE", "MHA_CACHE_UNWRITABLE")  # where things are kept, not what


@lru_cache(maxsize=1)  # once per process: `mkdocs serve` re-imports this module after an edit
def _facts() -> dict[str, str]:
    """Each module of figures/ and mha_ref/ as code() counts it: its syntax tree's digest (comments
    and docstrings do not count, as in the figure digests) and the line each function starts on,
    which the figures' source links name."""
    code = reach.CodeReach(ROOT, whole=("figures", "mha_ref"))
    facts = {}
    for package in ("figures", "mha_ref"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            module = code.module(name)
            # with where each function starts: a page links it by its line (publish/provenance.py)
            facts[name] = str(None if module is None else (module.digests["*"], sorted(module.defs.items())))
    return facts


@lru_cache(maxsize=1)
def _shared() -> str:
    """code()'s part that no figure's own module is in: the libraries and fonts, the identity, and
    every module but the figures' own."""
    h = hashlib.sha256(f"{environment()} scipy {metadata.version('scipy')} {IDENTITY!r}\n".encode())
    for name, facts in _facts().items():
        if not name.startswith(f"{registry.PACKAGE}."):
            h.update(f"{name}:{facts}\n".encode())
    return h.hexdigest()


@lru_cache(maxsize=None)
def code(fig_ids: tuple[str, ...] = ()) -> str:
    """A digest of everything an expansion reads besides its text: the code of figures/ and mha_ref/,
    of the figures' own modules (figures/gallery/) only those of `fig_ids`, the figures it names
    (an edit to one figure expands again only what names it); the libraries and fonts
    (engine/sources.py, environment, and scipy's version), the site's identity and the MHA_* switches."""
    facts = _facts()
    h = hashlib.sha256(_shared().encode())
    for name in sorted({registry.module_name(f) for f in fig_ids}):
        h.update(f"{name}:{facts.get(name)}\n".encode())
    h.update(repr(sorted((k, v) for k, v in os.environ.items() if k.startswith("MHA_") and k not in NOT_KEYED)).encode())
    return h.hexdigest()


def kept(folder: str, key: tuple, make: Callable[[], Any], what: str,
         keep: Callable[[Any], bool] = lambda value: True, figures: tuple[str, ...] = ()) -> Any:
    """make() (JSON: text, lists), kept in the figure cache's `folder` under a digest of `key` (the
    text and every other argument the expansion is given, as text) and of code(figures), `figures`
    being the ids of the figures whose modules it reads; a value for which keep(value) is false is
    made, not kept. Read back as JSON gives it: lists for tuples."""
    return disk.kept_json(folder, repr((code(tuple(sorted(figures))), key)), make, what, keep)
