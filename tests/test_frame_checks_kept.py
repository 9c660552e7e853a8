"""What a frame's checks found is kept between test sessions (tests/frame_checks.Kept), under the
names of the frame's files in the figure cache, so that a warm fast loop draws nothing: taken back
whole, or not at all."""

import pytest

from frame_checks import Checked, Kept
from figures.keep import disk


def _cached(path, data: bytes):
    """A file as the figure cache keeps it (disk.keep): the bytes, sealed for its key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    disk.sealed_path(path).write_bytes(disk.seal(data, path))


@pytest.fixture
def frame(tmp_path, monkeypatch):
    """A frame checked in a session whose figure cache was `then`: its two files there, kept."""
    monkeypatch.setenv("MHA_FIGURE_CACHE", str(tmp_path / "now"))
    then = {fmt: tmp_path / "then" / "ab" / f"ab12.{fmt}" for fmt in ("svg", "narrow.svg")}
    for fmt, path in then.items():
        _cached(path, f"<svg>{fmt}</svg>".encode())
    checked = Checked(None, "", ["Glyph 8 missing"], [], ["a_b"], [], [(7.5, 6.25, "x"), (8.0, 3.5, "y")], [3, 1],
                      ["narrow: 'x' 3.5 px past the right"], ["wide: 'a' over 'b'"])
    kept = Kept(tmp_path / "kept")
    kept.keep(then, checked)
    now = {fmt: tmp_path / "now" / path.relative_to(tmp_path / "then") for fmt, path in then.items()}
    return kept, checked, now


def test_a_later_session_takes_the_findings_and_the_files_back(frame):
    kept, checked, now = frame
    taken = kept.take(now)
    assert taken[1:] == checked[1:]  # the same findings, the sizes as tuples again, exactly
    assert dict(taken.files) == {"svg": b"<svg>svg</svg>", "narrow.svg": b"<svg>narrow.svg</svg>"}
    assert all(disk.sealed_path(path).exists() for path in now.values())


def test_a_kept_file_damaged_since_is_not_taken(frame):
    kept, _, now = frame
    damaged = kept.folder / "files" / disk.sealed_path(now["svg"]).name
    damaged.write_bytes(damaged.read_bytes()[:-1])
    assert kept.take(now) is None  # the frame is drawn again


def test_other_checks_take_nothing(frame, tmp_path):
    kept, _, now = frame
    other = Kept(kept.folder)
    other.stamp = "checks edited"
    assert other.take(now) is None
    assert kept.take({"svg": now["svg"]}) is None  # nor do other formats of the frame


def test_a_copy_taken_is_a_file_of_its_own(frame):
    kept, _, now = frame
    kept.take(now)
    disk.sealed_path(now["svg"]).write_bytes(b"damaged in this session on purpose")
    assert (kept.folder / "files" / disk.sealed_path(now["svg"]).name).read_bytes().startswith(b"<svg>svg</svg>")


def test_pruning_keeps_the_newest(frame):
    kept, _, now = frame
    kept.prune(keep=1)
    assert len([p for p in kept.folder.rglob("*") if p.is_file()]) == 1
