"""The slide decks as the build's files (decks.py makes them): where each lives and what it is
downloaded as, each kept in the cache under a digest of everything in it and of the code that makes
it, and the decks the cache lacks made side by side, a process per core.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import matplotlib
import pypdf

from ..engine import pool, render
from ..keep import disk, reach
from . import decks
from .decks import SCHEMES, Deck, DeckError
from .identity import IDENTITY


def path(home: str, scheme: str) -> str:
    """Where a page's deck lives below the figures folder of its language."""
    slug = "index" if home == "index.md" else home.removesuffix(".md")
    return f"slides/{slug}{'' if scheme == 'light' else '.dark'}.pdf"


def download_name(home: str, lang: str, scheme: str, page_number: int) -> str:
    """The name a deck is saved under: page number first, language and scheme in it, so that no
    two decks overwrite each other in a downloads folder."""
    slug = "index" if home == "index.md" else home.removesuffix(".md")
    return f"slides-{page_number}-{slug}.{lang}{'' if scheme == 'light' else '.dark'}.pdf"


def key(deck: Deck, scheme: str, code: str) -> str:
    """The kept deck's name: a digest of everything in it (texts, frames' bytes, the identity the
    title slide prints) and of `code`, the digest of the code that makes it (code_digest)."""
    h = hashlib.sha256()
    for part in (code, deck.lang, deck.title, deck.url, str(deck.figures), scheme, repr(IDENTITY),
                 matplotlib.__version__, pypdf.__version__):
        h.update(part.encode() + b"\0")
    for s in deck.slides:
        for part in (s.heading, s.label, s.notes, s.credit):
            h.update(part.encode() + b"\0")
        h.update(hashlib.sha256(s.frame).digest())
    return h.hexdigest()[:32]


def code_digest(root: Path = disk.ROOT) -> str:
    """A digest of the code a deck is made with, as far as it reaches (CodeReach from decks.deck_pdfs:
    decks.py and what it calls, the figures' style and the dark rule included)."""
    return reach.CodeReach(root, by_name=("figures", "mha_ref")).digest((decks.__name__, "deck_pdfs"))


def cache_folder() -> Path | None:
    return disk.cache_folder("decks")


def write_all(numbers: dict, lang: str, pdf_of, write) -> dict[str, int]:
    """Every deck of a language, in both schemes: write(path below figures/, bytes), from the cache
    when it holds them; the decks it lacks are made side by side, a process per core (made).
    Returns path -> size in bytes."""
    folder = cache_folder()
    found = decks.page_decks(numbers, lang, pdf_of)
    code = code_digest() if folder is not None and found else ""
    kept = {(home, scheme): None if folder is None else folder / f"{key(deck, scheme, code)}.pdf"
            for home, deck in found.items() for scheme in SCHEMES}
    data = {k: None if path is None else disk.kept(path, "a slide deck", folder=folder) for k, path in kept.items()}
    lacking = [home for home in found if any(data[home, scheme] is None for scheme in SCHEMES)]
    for home, pdfs in zip(lacking, made([found[home] for home in lacking], [f"{home} ({lang})" for home in lacking])):
        for scheme in SCHEMES:
            data[home, scheme] = pdfs[scheme]
            if kept[home, scheme] is not None:  # another build making the same deck writes the same bytes
                disk.keep(kept[home, scheme], pdfs[scheme], folder)
    sizes = {}
    for (home, scheme), pdf in data.items():
        write(path(home, scheme), pdf)
        sizes[path(home, scheme)] = len(pdf)
    return sizes


def made(wanted: list[Deck], names: list[str]) -> list[dict[str, bytes]]:
    """deck_pdfs of each deck, in order: here for one, else in a pool of a process per core (the
    figures' pool, figures/engine/pool.py, whose processes end with this one). A deck that cannot
    be made raises DeckError naming it."""
    def named(e: BaseException, name: str) -> DeckError:
        return DeckError(f"the slide deck of {name}: {e}")

    if len(wanted) < 2:
        try:
            return [decks.deck_pdfs(deck) for deck in wanted]
        except DeckError as e:
            raise named(e, names[0]) from e
    out = []
    # never forked: this process may have drawn, and a fork would share its open font files (render.py)
    context = render._start_method(fork=False)
    for i, (ok, value) in enumerate(pool.outcomes(decks.deck_pdfs, wanted, min(render.cores(), len(wanted)), context, None,
                                                  lambda deck, said, stack: DeckError(said))):
        if not ok:
            raise named(value, names[i])
        out.append(value)
    return out
