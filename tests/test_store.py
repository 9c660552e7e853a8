"""figures.keep (disk.py, as_json.py): results kept as JSON (to_json, from_json) and the keep-or-make step every disk cache
shares (kept_or_made): made once, read back after, a damaged file dropped and made again,
two processes making the same file one after the other."""

import json
import multiprocessing
import time
from collections import Counter
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
import pytest

from figures.keep import as_json, disk


class Inner(NamedTuple):
    hits: int
    share: float


class Outer(NamedTuple):
    name: str
    inner: Inner
    offsets: object
    weights: np.ndarray
    order: tuple
    steps: list


VALUE = Outer("L0H1", Inner(3, 1 / 3), MappingProxyType({-1: 5, 2: 1}),
              np.array([[0.1, 2 / 3], [np.nan, -0.0]], dtype=np.float64), (np.int64(4), 1, (2, "x")),
              [Counter({"det:dep->head": 2}), None, True, float("inf"), np.float32(0.1)])


def test_a_value_comes_back_equal_in_every_part_and_type():
    back = as_json.from_json(as_json.to_json(VALUE), (Outer, Inner))
    assert type(back) is Outer and type(back.inner) is Inner
    assert back.name == "L0H1" and back.inner == (3, 1 / 3)  # the float in full, not rounded
    assert back.offsets == {-1: 5, 2: 1} and all(type(k) is int for k in back.offsets)
    assert back.weights.dtype == np.float64 and back.weights.shape == (2, 2)
    np.testing.assert_array_equal(back.weights, VALUE.weights)  # nan where it was
    assert np.signbit(back.weights[1, 1])
    assert back.order == (4, 1, (2, "x")) and type(back.order) is tuple and type(back.order[2]) is tuple
    assert type(back.steps) is list and back.steps[0] == {"det:dep->head": 2}
    assert back.steps[1:4] == [None, True, float("inf")] and back.steps[4] == float(np.float32(0.1))
    assert as_json.to_json(back) == as_json.to_json(VALUE)


def test_only_the_named_types_are_made_from_a_file():
    text = as_json.to_json(VALUE)
    with pytest.raises(ValueError, match="'Inner', not one of \\['Outer'\\]"):
        as_json.from_json(text, (Outer,))
    with pytest.raises(ValueError, match="keys \\['eval'\\]"):
        as_json.from_json(json.dumps({"eval": "print(1)"}), (Outer, Inner))


def test_what_it_cannot_keep_is_named():
    with pytest.raises(TypeError, match="cannot keep a set"):
        as_json.to_json(Inner({1}, 0.5))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")
    return tmp_path / "kept"


def read(data):
    return json.loads(data)


def write(value):
    return json.dumps(value).encode()


def on_disk(path):
    """What is kept under `path`, as it is on disk (sealed)."""
    return json.loads(disk.unseal(disk.sealed_path(path).read_bytes(), path))


def test_made_once_then_read(folder):
    made = []
    make = lambda: made.append(1) or {"n": len(made)}  # noqa: E731
    assert disk.kept_or_made(folder / "a.json", read, make, write, "a result") == {"n": 1}
    assert disk.kept_or_made(folder / "a.json", read, make, write, "a result") == {"n": 1}
    assert made == [1] and on_disk(folder / "a.json") == {"n": 1}
    assert disk.kept_or_made(None, read, make, write, "a result") == {"n": 2}  # no folder: made each time


def test_a_damaged_file_is_dropped_with_its_name_and_made_again(folder, caplog):
    path = folder / "a.json"
    disk.kept_or_made(path, read, lambda: {"n": 1}, write, "a result")
    disk.sealed_path(path).write_bytes(disk.seal(b'{"n": ', path))  # sealed right, but not JSON
    assert disk.kept_or_made(path, read, lambda: {"n": 2}, write, "a result") == {"n": 2}
    assert on_disk(path) == {"n": 2}
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        f"figure cache: {disk.sealed_path(path)}, a result, cannot be read"]


def test_a_folder_that_cannot_be_written_makes_in_memory(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")
    (tmp_path / "file").write_text("")
    path = tmp_path / "file" / "a.json"  # a cache folder under a file: cannot be made
    assert disk.kept_or_made(path, read, lambda: {"n": 1}, write, "a result") == {"n": 1}
    assert not disk.cache_writable(path.parent)


def _slow_make(path, out):
    def make():
        (path.parent / f"{out}.made").write_text("")
        time.sleep(0.5)
        return {"by": out}
    (path.parent / f"{out}.got").write_text(json.dumps(disk.kept_or_made(path, read, make, write, "a result")))


def test_two_processes_make_the_same_file_once(folder):
    folder.mkdir(parents=True)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_slow_make, args=(folder / "a.json", name)) for name in ("p", "q")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    made = [p.stem for p in folder.glob("*.made")]
    assert len(made) == 1  # the second waited for the first's file, and read it
    assert [json.loads((folder / f"{n}.got").read_text()) for n in ("p", "q")] == [{"by": made[0]}] * 2
