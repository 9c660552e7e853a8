"""Every file the figure cache keeps is checked when read, by one mechanism (figures.keep.disk: keep, kept,
kept_or_made): a file damaged, another key's file in its place, or a link in place of a file is
dropped with one warning naming it and made again, and nothing is read, or linked into a site, from
outside the cache; a cache folder that is a file, or cannot be written, is one warning line; a file
the cache keeps, and so a site's figure linked to it, is readable by all."""

import json
import logging
import os
import stat

import pytest

from figures.engine.cache import WHOLE, FigureCache
from figures.engine.render import frames, render_files
from figures.keep import disk


@pytest.fixture(autouse=True)
def writable(monkeypatch):
    """No cache marked unwritable by an earlier test, nor by this one for a later test."""
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == disk.log.name and r.levelno >= logging.WARNING]


class Kind:
    """A tiny kind of kept file, kept as every kind is (kept_or_made): what it made, by key."""

    def __init__(self, folder):
        self.folder, self.made = folder, []

    def get(self, key: str):
        def make():
            self.made.append(key)
            return {"key": key}
        return disk.kept_or_made(self.folder / f"{key}.json", json.loads, make, lambda v: json.dumps(v).encode(),
                                  "a tiny result")

    def file(self, key: str):
        return disk.sealed_path(self.folder / f"{key}.json")


def _swap(a, b) -> None:
    data_a, data_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(data_b)
    b.write_bytes(data_a)


def test_a_file_swapped_with_another_keys_is_dropped_and_made_again(tmp_path, caplog):
    kind = Kind(tmp_path)
    assert [kind.get(k) for k in "ab"] == [{"key": "a"}, {"key": "b"}]
    _swap(kind.file("a"), kind.file("b"))  # each whole and valid, but the other's
    assert [kind.get(k) for k in "ab"] == [{"key": "a"}, {"key": "b"}]
    assert kind.made == ["a", "b", "a", "b"]
    assert _warnings(caplog) == [f"figure cache: {kind.file(k)}, a tiny result, holds a file kept under another name "
                                 "(moved or swapped): dropped, making it again" for k in "ab"]
    caplog.clear()
    assert [kind.get(k) for k in "ab"] == [{"key": "a"}, {"key": "b"}] and kind.made == ["a", "b", "a", "b"]
    assert _warnings(caplog) == []  # kept right again


@pytest.mark.parametrize("cut", [1, 40, 64, 65])  # a byte of the seal, most of it, all of it, and into the value
def test_a_truncated_file_is_dropped_and_made_again(tmp_path, caplog, cut):
    kind = Kind(tmp_path)
    kind.get("a")
    kind.file("a").write_bytes(kind.file("a").read_bytes()[:-cut])
    assert kind.get("a") == {"key": "a"} and kind.made == ["a", "a"]
    assert _warnings(caplog) == [f"figure cache: {kind.file('a')}, a tiny result, is damaged (its bytes do not match "
                                 "the digest kept with them): dropped, making it again"]


def test_a_link_in_place_of_a_kept_file_is_never_read_through(tmp_path, caplog):
    kind = Kind(tmp_path / "cache")
    kind.get("a")
    outside = tmp_path / "outside.json"
    outside.write_bytes(disk.seal(b'{"key": "planted"}', kind.folder / "a.json"))  # sealed right for the key
    kind.file("a").unlink()
    kind.file("a").symlink_to(outside)
    assert kind.get("a") == {"key": "a"} and kind.made == ["a", "a"]
    assert _warnings(caplog) == [f"figure cache: {kind.file('a')}, a tiny result, is a symbolic link: nothing is "
                                 "read through a link: dropped, making it again"]
    assert not kind.file("a").is_symlink() and outside.read_bytes().startswith(b'{"key": "planted"}')  # left alone


def test_two_frames_svgs_swapped_are_drawn_again(tmp_path, caplog):
    cache = FigureCache(tmp_path)
    first = list(render_files(["en"], ["width-slices"], ("svg",), cache, jobs=1))
    paths = [cache.path(cache.digests(["figures.gallery.width_slices"])[0], "en", f.slug, "svg")
             for f in frames("width-slices")[:2]]
    _swap(*(disk.sealed_path(p) for p in paths))
    again = list(render_files(["en"], ["width-slices"], ("svg",), cache, jobs=1))
    assert [r.data for r in again] == [r.data for r in first]  # each frame its own, not the other's
    assert [r.drawn for r in again] == [True, True] + [False] * (len(first) - 2)
    assert [w.split(",")[0] for w in _warnings(caplog)] == [f"figure cache: {disk.sealed_path(p)}" for p in paths]


def test_two_pages_expansions_swapped_are_expanded_again(tmp_path, monkeypatch, caplog):
    from figures.publish import expansions
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(expansions, "code", lambda figures=(): "code")
    made = []

    def page(text):
        return expansions.kept(expansions.PAGES, (text,), lambda: made.append(text) or f"<p>{text}</p>", "a page")

    assert [page("one"), page("two")] == ["<p>one</p>", "<p>two</p>"]
    files = sorted((tmp_path / expansions.PAGES).glob("*" + disk.SEALED))
    _swap(*files)
    assert [page("one"), page("two")] == ["<p>one</p>", "<p>two</p>"] and made == ["one", "two", "one", "two"]
    assert len(_warnings(caplog)) == 2 and all("holds a file kept under another name" in w for w in _warnings(caplog))


def test_the_self_checks_vectors_truncated_are_made_again(tmp_path, monkeypatch, caplog):
    from figures.publish import selfcheck_files
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    cold = selfcheck_files.files()
    (kept,) = (tmp_path / "selfcheck").glob("*" + disk.SEALED)
    kept.write_bytes(kept.read_bytes()[:1000])
    assert selfcheck_files.files() == cold
    assert _warnings(caplog) == [f"figure cache: {kept}, the self-check's test vectors, is damaged (its bytes do not "
                                 "match the digest kept with them): dropped, making it again"]


def test_the_glossary_cards_truncated_are_made_again(tmp_path, monkeypatch, caplog):
    from figures.publish import flashcards
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    docs = disk.ROOT / "docs"
    cold = flashcards.files(docs, "en", "https://example.org/")
    for kept in (tmp_path / "flashcards").glob("*" + disk.SEALED):
        kept.write_bytes(kept.read_bytes()[:-1])
    assert flashcards.files(docs, "en", "https://example.org/") == cold
    assert len(_warnings(caplog)) == 2 and all("is damaged" in w for w in _warnings(caplog))


# ---- whole/: the files a site links ----------------------------------------------------------------

def test_a_link_in_whole_is_replaced_never_linked_into_a_site(tmp_path, caplog):
    cache = FigureCache(tmp_path / "cache")
    outside = tmp_path / "outside.svg"
    outside.write_bytes(b"<svg/>")  # the very bytes, but not the cache's file
    kept = cache.whole(b"<svg/>", ".svg")
    kept.unlink()
    kept.symlink_to(outside)
    assert cache.whole(b"<svg/>", ".svg") == kept
    assert not kept.is_symlink() and kept.read_bytes() == b"<svg/>" and kept.stat().st_ino != outside.stat().st_ino
    assert _warnings(caplog) == [f"figure cache: {kept}, a figure's file, is a symbolic link: dropped, writing it again"]
    assert kept.parent == cache.folder / WHOLE


def test_a_file_kept_whole_is_readable_by_all_even_if_kept_before_as_0600(tmp_path):
    cache = FigureCache(tmp_path)
    kept = cache.whole(b"<svg/>", ".svg")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o644
    kept.chmod(0o600)  # as mkstemp left every kept file before
    assert cache.whole(b"<svg/>", ".svg") == kept and stat.S_IMODE(kept.stat().st_mode) == 0o644


def test_an_atomic_write_is_readable_by_all_whatever_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        disk.write_atomic(tmp_path / "a" / "b.bin", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a" / "b.bin").stat().st_mode) == 0o644


# ---- a cache folder that is a file, or cannot be written ----------------------------------------------

@pytest.mark.parametrize("file", [".cache", ".cache/figures"])
def test_a_cache_folder_that_is_a_file_is_one_warning_and_no_cache(tmp_path, monkeypatch, caplog, file):
    (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / file).write_text("not a folder")
    folder = tmp_path / ".cache" / "figures"
    monkeypatch.delenv(disk.CACHE_ENV, raising=False)  # the default folder: MHA_FIGURE_CACHE naming a file is refused
    monkeypatch.setattr(disk, "DEFAULT_CACHE", folder)
    assert disk.cache_folder() is None and disk.cache_folder("trained-lm") is None
    kind = Kind(folder / "tiny")  # as a kind made before the cache was found wanting
    assert kind.get("a") == {"key": "a"}
    assert _warnings(caplog) == [f"cache folder {folder} cannot be used ({tmp_path / file} is a file, not a folder): "
                                 "this build keeps and reads nothing there, as with MHA_FIGURE_CACHE=0"]


def test_a_cache_folder_that_cannot_be_written_is_one_warning_and_still_read(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    kind = Kind(tmp_path / "tiny")
    kind.get("a")
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as for a user who may not write there
    assert disk.cache_folder("tiny") == tmp_path / "tiny" and disk.cache_folder() == tmp_path
    assert [kind.get(k) for k in "ab"] == [{"key": "a"}, {"key": "b"}] and kind.made == ["a", "b"]  # a read
    assert not kind.file("b").exists()
    assert _warnings(caplog) == [f"cache folder {tmp_path} cannot be written (Permission denied): nothing more is "
                                 "kept there in this build; what it holds is still read"]
