"""Training (mha_ref.train) and the language it trains on (mha_ref.corpus): deterministic weights,
the disk cache of trained weights, Adam by hand, and the facts about the sentences that the model
and the head measures (mha_ref.trained) rely on."""

from __future__ import annotations

import errno
import logging
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mha_ref.tiny import corpus, train
from mha_ref import roles, store

ROOT = Path(__file__).resolve().parents[1]
SMALL = train.TrainConfig(d_model=8, h=2, train_sentences=200, held_out=20, steps=30, batch=16)
# A fresh process trains (or loads, with train.train refused) SMALL and prints a sha256 of every
# array's name, dtype, shape and bytes.
FINGERPRINT = f'''
import hashlib, sys
from mha_ref.tiny import train
if "--load-only" in sys.argv:
    def refuse(config):
        raise AssertionError("train.train was called: the weights were not loaded from the cache")
    train.train = refuse
t = train.trained(train.{SMALL!r})
h = hashlib.sha256()
for name, a in sorted(train._arrays(t).items()):
    h.update(f"{{name}} {{a.dtype}} {{a.shape}}".encode() + a.tobytes())
print(h.hexdigest())
'''


def fingerprint(t: train.Trained) -> str:
    """The sha256 FINGERPRINT prints, computed in this process."""
    import hashlib
    h = hashlib.sha256()
    for name, a in sorted(train._arrays(t).items()):
        h.update(f"{name} {a.dtype} {a.shape}".encode() + a.tobytes())
    return h.hexdigest()


def fresh_process(cache: str, *args: str) -> subprocess.Popen:
    """FINGERPRINT in a new Python process with MHA_FIGURE_CACHE=cache, started, not waited for."""
    env = dict(os.environ, **{train.CACHE_ENV: cache})
    return subprocess.Popen([sys.executable, "-c", FINGERPRINT, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def output(p: subprocess.Popen) -> str:
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err[-3000:]
    return out.strip()


@pytest.fixture(autouse=True)
def writable(monkeypatch):
    """No cache marked unwritable by an earlier test, nor by this one for a later test."""
    monkeypatch.setenv(store.UNWRITABLE_ENV, "")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder of this test's own, and no trained weights kept in memory."""
    monkeypatch.setenv(train.CACHE_ENV, str(tmp_path))
    train._trained.cache_clear()
    yield tmp_path / "trained"
    train._trained.cache_clear()  # nothing trained here may be handed to a later test


def warnings(caplog) -> list[str]:
    """The warnings the disk caches gave (mha_ref.store)."""
    return [r.getMessage() for r in caplog.records if r.name == store.log.name and r.levelno >= logging.WARNING]


def kept_files(folder: Path) -> list[str]:
    """The files of the cache folder but its locks."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


# --------------------------------------------------------------------------------------------
# deterministic training
# --------------------------------------------------------------------------------------------

def test_two_cold_trains_in_two_processes_give_the_same_bytes():
    runs = [fresh_process("0") for _ in range(2)]  # MHA_FIGURE_CACHE=0: nothing read or written
    first, second = (output(p) for p in runs)
    assert len(first) == 64
    assert first == second


# --------------------------------------------------------------------------------------------
# the disk cache
# --------------------------------------------------------------------------------------------

def test_trained_writes_one_file_then_loads_it_without_training(cache, monkeypatch):
    t = train.trained(SMALL)
    assert kept_files(cache) == [f"{train.code_digest(SMALL)}.npz"]
    assert train.trained(SMALL) is t  # the same process keeps it in memory
    # a new process loads the file and never trains
    assert output(fresh_process(str(cache.parent), "--load-only")) == fingerprint(t)
    # and so does this one once its memory is cleared
    train._trained.cache_clear()

    def refuse(config):
        raise AssertionError("train.train was called: the weights were not loaded from the cache")

    monkeypatch.setattr(train, "train", refuse)
    loaded = train.trained(SMALL)
    assert loaded is not t
    assert loaded.config == SMALL and loaded.model.h == t.model.h
    for a, b in zip([*t.model.arrays(), t.losses], [*loaded.model.arrays(), loaded.losses], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert loaded.model.mha._fields == t.model.mha._fields
    assert [a is None for a in loaded.model.mha] == [a is None for a in t.model.mha]
    assert kept_files(cache) == [f"{train.code_digest(SMALL)}.npz"]  # nothing written the second time


def test_an_interrupted_save_leaves_no_file_under_the_real_name(cache, monkeypatch, caplog):
    real_savez = np.savez

    def half_written(f, **arrays):  # some bytes reach the disk, then the disk is full
        f.write(b"PK\x03\x04 half a zip")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", half_written)
    t = train.trained(SMALL)  # trained in memory: a full disk is no reason to fail
    assert warnings(caplog) == [f"cache folder {cache} cannot be written (No space left on device): nothing more "
                                "is kept there in this build; what it holds is still read"]
    assert kept_files(cache) == []  # neither the .npz nor the temporary file
    # the next build tries again, and saves whole
    monkeypatch.setattr(np, "savez", real_savez)
    store.cache_writable_again()
    train._trained.cache_clear()
    assert fingerprint(train.trained(SMALL)) == fingerprint(t)
    name = f"{train.code_digest(SMALL)}.npz"
    assert kept_files(cache) == [name]
    np.testing.assert_array_equal(train.load(cache / name, SMALL).model.embed, t.model.embed)


def test_a_process_that_waited_for_a_training_that_could_not_be_kept_neither_saves_nor_warns(cache, monkeypatch,
                                                                                              caplog):
    """Under a full disk, the build's processes that need the weights at once (its PREPARE, the
    workers) wait for one training; the one that trained warns, the others train for themselves,
    write nothing and say nothing more: one warning per build, not one per process."""
    import fcntl
    import threading

    cache.mkdir(parents=True)
    holder = open(cache / f".{train.code_digest(SMALL)}.lock", "a")  # the lock of these weights
    fcntl.flock(holder, fcntl.LOCK_EX)  # another process trains
    monkeypatch.setattr(train, "save", lambda t, path: pytest.fail("saved after the other process could not"))
    got = []
    waiter = threading.Thread(target=lambda: got.append(train.trained(SMALL)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # waiting for the lock
    holder.close()  # it ends without having kept the weights (it warned, in its own process)
    waiter.join(60)
    assert fingerprint(got[0]) == fingerprint(train.train(SMALL))
    assert warnings(caplog) == [] and kept_files(cache) == []
    assert not store.cache_writable(cache)  # nor does it try again in this build


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:1000])


def one_byte_changed(path: Path) -> None:  # inside an array: only the zip's CRC-32 notices
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))


def not_a_zip(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize("damage, error", [(truncated, "BadZipFile: File is not a zip file"),
                                           (one_byte_changed, "BadZipFile: Bad CRC-32 for file"),
                                           (not_a_zip, "EOFError: No data left in file")])
def test_damaged_weights_are_dropped_with_a_warning_and_trained_again(cache, caplog, damage, error):
    t = train.trained(SMALL)
    path = cache / f"{train.code_digest(SMALL)}.npz"
    damage(path)
    train._trained.cache_clear()
    again = train.trained(SMALL)
    assert fingerprint(again) == fingerprint(t)
    (warning,) = warnings(caplog)
    assert warning.startswith(f"trained weights {path} cannot be read ({error}")
    assert warning.endswith("): dropped, making it again") and "\n" not in warning
    assert fingerprint(train.load(path, SMALL)) == fingerprint(t)  # kept whole again


def test_weights_in_a_folder_that_cannot_be_written_are_trained_in_memory(tmp_path, monkeypatch, caplog):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv(train.CACHE_ENV, str(tmp_path / "file"))
    train._trained.cache_clear()
    t = train.trained(SMALL)
    assert fingerprint(t) == fingerprint(train.train(SMALL))
    assert warnings(caplog) == [f"cache folder {tmp_path / 'file' / 'trained'} cannot be written (Not a directory): "
                                "nothing more is kept there in this build; what it holds is still read"]
    train._trained.cache_clear()


def test_weights_kept_in_a_read_only_folder_are_still_read(cache, monkeypatch, caplog):
    t = train.trained(SMALL)
    train._trained.cache_clear()

    def refused(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "utime", refused)
    monkeypatch.setattr(train, "train", lambda config: pytest.fail("trained again"))
    assert fingerprint(train.trained(SMALL)) == fingerprint(t)
    assert warnings(caplog) == [f"cache folder {cache} cannot be written (Read-only file system): nothing more is "
                                "kept there in this build; what it holds is still read"]


def test_a_cache_known_to_be_unwritable_is_neither_written_nor_prepared(cache, monkeypatch, caplog):
    store.cache_unwritable(cache.parent, OSError(errno.ENOSPC, "No space left on device"))  # found by the build
    caplog.clear()
    real_trained = train.trained
    monkeypatch.setattr(train, "trained", lambda *a: pytest.fail("prepared with nowhere to keep the weights"))
    train.prepare()
    monkeypatch.setattr(train, "trained", real_trained)
    train.trained(SMALL)
    assert not cache.exists() and warnings(caplog) == []  # said once already, by whoever found it


@pytest.mark.parametrize("value", ["0", "off", "No", " false "])
def test_the_cache_can_be_switched_off(value, monkeypatch):
    monkeypatch.setenv(train.CACHE_ENV, value)
    assert train.cache_folder() is None


def test_the_cache_folder_follows_the_figure_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(train.CACHE_ENV, str(tmp_path))
    assert train.cache_folder() == tmp_path / "trained"
    monkeypatch.delenv(train.CACHE_ENV)
    assert train.cache_folder() == ROOT / ".cache" / "figures" / "trained"


# --------------------------------------------------------------------------------------------
# the code digest: code counts, comments and docstrings do not
# --------------------------------------------------------------------------------------------

SOURCE = '''"""A module."""

import math


def f(x):
    """Twice x, scaled."""
    return 2 * x / math.sqrt(3)


class C:
    """A class."""

    def g(self):
        """Nothing to say."""
        return 1
'''
EXPLAINED = '''"""A module, explained at more length.

Over two lines.
"""

import math  # for sqrt


def f(x):
    """Twice x, scaled by 1 / sqrt(3): the text of a docstring can change freely."""
    # a comment of its own line
    return 2 * x / math.sqrt(3)  # and one after the code


class C:

    def g(self):
        return 1
'''


def test_code_text_ignores_comments_docstrings_and_blank_lines():
    assert store.code_text(EXPLAINED) == store.code_text(SOURCE)


@pytest.mark.parametrize("old, new", [
    ("2 * x", "3 * x"),  # a number
    ("math.sqrt(3)", "math.sqrt(2)"),
    ("return 1", "return 1.0"),  # the same value, another type: the weights could differ
    ('"""Twice x, scaled."""\n    return', '"""Twice x, scaled."""\n    x = x\n    return'),
    ("import math", "import math as math"),
])
def test_code_text_changes_when_the_code_changes(old, new):
    assert old in SOURCE
    assert store.code_text(SOURCE.replace(old, new)) != store.code_text(SOURCE)


def test_a_string_that_is_not_a_docstring_counts():
    edited = SOURCE.replace("return 1\n", 'return 1\n        "not a docstring: after the return"\n')
    assert store.code_text(edited) != store.code_text(SOURCE)


# Which code decides the weights is derived here, not from train.py's own reach: a fresh process in a
# copy of the checkout runs a few steps of training under sys.setprofile and collects every function
# of mha_ref that runs; then it edits each of them in the copy (one statement added at the top of its
# body), and each module they live in (one statement added at its end), and recomputes the digest.
# Whatever way train.py comes to compute its digest, an edit to code that training runs must change it.
REACHED_AND_EDITED = r"""
import ast, json, linecache, sys
from pathlib import Path
import mha_ref
from mha_ref.tiny import train

PKG = Path(mha_ref.__file__).resolve().parent
assert PKG.parent == Path.cwd().resolve(), f"mha_ref imported from {PKG}, not from the copy"
CONFIG = train.TrainConfig(d_model=8, h=2, train_sentences=40, held_out=4, steps=2, batch=8)

ran = set()  # (file name, first line) of every code object of mha_ref that training runs
def profile(frame, event, arg):
    path = Path(frame.f_code.co_filename).resolve()
    if event == "call" and PKG in path.parents:
        ran.add((path.relative_to(PKG).as_posix(), frame.f_code.co_firstlineno))
sys.setprofile(profile)
train.train(CONFIG)
sys.setprofile(None)

def digest():
    # nothing the process remembers of the code it read may stand in for the edited file
    for name, module in list(sys.modules.items()):
        if name == "mha_ref" or name.startswith("mha_ref."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    linecache.clearcache()
    return train.code_digest(CONFIG)

def defs(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield start, node.end_lineno, node

def edited(text, node):
    # one statement at the top of the body (after the docstring, if any)
    lines = text.splitlines(keepends=True)
    first = node.body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    at = first.end_lineno if is_doc else first.lineno - 1
    if first.lineno == node.lineno:
        return None  # a one-line def: no line of its own to add to
    return "".join(lines[:at] + [" " * first.col_offset + "_teeth_edit = 0\n"] + lines[at:])

base = digest()
result = {"defs": {}, "modules": {}}
for file in sorted({f for f, _ in ran}):
    path = PKG / file
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    owners = {}  # the innermost def around each code object that ran (a comprehension's, a lambda's)
    for _, line in sorted(r for r in ran if r[0] == file):
        around = [(s, n) for s, e, n in defs(tree) if s <= line <= e]
        if around:
            start, node = max(around, key=lambda a: a[0])
            owners[start] = node
    for start, node in sorted(owners.items()):
        new = edited(text, node)
        name = f"{file}:{node.name} (line {start})"
        if new is None:
            result["defs"][name] = None
            continue
        path.write_text(new, encoding="utf-8")
        result["defs"][name] = digest() != base
        path.write_text(text, encoding="utf-8")
    path.write_text(text + "\n_TEETH_EDIT = 0\n", encoding="utf-8")
    result["modules"][file] = digest() != base
    path.write_text(text, encoding="utf-8")
result["restored"] = digest() == base
print(json.dumps(result))
"""


def test_an_edit_to_any_code_training_runs_changes_the_digest(checkout):
    env = dict(os.environ, **{train.CACHE_ENV: "0"})
    run = subprocess.run([sys.executable, "-c", REACHED_AND_EDITED], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    import json
    result = json.loads(run.stdout)
    assert result["restored"]
    defs, modules = result["defs"], result["modules"]
    assert len(modules) > 1 and "tiny/train.py" in modules, modules  # training runs more than train.py
    assert len(defs) >= len(modules)
    uncounted = sorted(name for name, changed in defs.items() if not changed)
    assert not uncounted, f"training runs these functions, yet an edit to them leaves the digest as it was " \
                          f"(stale weights would be loaded): {uncounted}"
    uncounted = sorted(name for name, changed in modules.items() if not changed)
    assert not uncounted, f"a top-level statement added to these modules, which training runs, leaves the digest " \
                          f"as it was: {uncounted}"


def test_code_digest_changes_with_the_configuration():
    digests = {train.code_digest(c) for c in (SMALL, SMALL._replace(seed=3), SMALL._replace(steps=31), train.CONFIG)}
    assert len(digests) == 4


# --------------------------------------------------------------------------------------------
# Adam, by hand
# --------------------------------------------------------------------------------------------

def test_adam_two_steps_by_hand():
    a = np.array([1.0, -2.0])
    opt = train.Adam([a], learning_rate=0.1)  # beta1 0.9, beta2 0.999, eps 1e-8
    g1, g2 = np.array([0.5, -4.0]), np.array([1.0, 2.0])
    eps = 1e-8
    # step 1: m = 0.1 g1 and v = 0.001 g1^2; corrected by 1 - 0.9 and 1 - 0.999 they are g1 and
    # g1^2, so each entry moves by 0.1 against its gradient's sign (less a hair for eps)
    opt.step([g1])
    expected_1 = [1.0 - 0.1 * 0.5 / (0.5 + eps), -2.0 + 0.1 * 4.0 / (4.0 + eps)]
    np.testing.assert_allclose(a, expected_1, rtol=1e-15)
    np.testing.assert_allclose(a, [0.9, -1.9], atol=1e-8)
    # step 2: m = 0.9 m + 0.1 g2 = [0.045 + 0.1, -0.36 + 0.2], v = 0.999 v + 0.001 g2^2
    #        = [0.00024975 + 0.001, 0.015984 + 0.004]; bias corrections 1 - 0.81 and 1 - 0.998001
    opt.step([g2])
    m = [0.145, -0.16]
    v = [0.00124975, 0.019984]
    expected_2 = [expected_1[i] - 0.1 * (m[i] / 0.19) / (math.sqrt(v[i] / 0.001999) + eps) for i in range(2)]
    np.testing.assert_allclose(a, expected_2, rtol=1e-12)
    np.testing.assert_allclose(a, [0.9 - 0.0965181, -1.9 + 0.0266337], atol=1e-7)
    assert opt.arrays[0] is a and opt.t == 2  # updated in place: the model's own arrays move


def test_adam_moves_every_array_of_a_model():
    from mha_ref.tiny import model as tinymodel
    model = tinymodel.init(tinymodel.Config(8, 2), seed=0)
    before = [a.copy() for a in model.arrays()]
    opt = train.Adam(model.arrays(), 0.01)
    _, grads = tinymodel.loss_and_grads(model, corpus.batch(corpus.sentences(4, 1)))
    opt.step(grads.arrays())
    moved = [float(np.abs(a - b).max()) for a, b in zip(model.arrays(), before)]
    # Adam's first step moves every entry with a gradient by about the learning rate; b_k's
    # gradient is zero but for rounding (softmax ignores a constant added to a row), about 1e-18,
    # which eps = 1e-8 keeps to a step of about 1e-12
    b_k = next(i for i, a in enumerate(model.arrays()) if a is model.mha.b_k)
    for i, step in enumerate(moved):
        assert step < 1e-9 if i == b_k else 0.009 < step <= 0.01 + 1e-12, (i, step)


# --------------------------------------------------------------------------------------------
# the language: facts the model and the head measures rely on
# --------------------------------------------------------------------------------------------

SENTENCES = corpus.sentences(2000, 0)


def test_sentences_are_drawn_from_their_seed():
    assert corpus.sentences(50, 0) == SENTENCES[:50]
    assert corpus.sentences(50, 1) != SENTENCES[:50]


def test_every_word_is_in_the_vocabulary_and_every_sentence_fits():
    assert len(set(corpus.VOCAB)) == len(corpus.VOCAB)
    assert max(len(s.words) for s in SENTENCES) <= corpus.MAX_LEN
    for s in SENTENCES:
        assert s.words[0] == corpus.BOS and corpus.BOS not in s.words[1:] and corpus.PAD not in s.words
        assert set(s.words) <= set(corpus.VOCAB)


def test_one_rare_word_per_sentence_where_the_sentence_says():
    for s in SENTENCES:
        assert [i for i, w in enumerate(s.words) if w in corpus.RARE] == [s.rare], s.words


def test_the_pronoun_stands_for_the_subject_which_occurs_once():
    for s in SENTENCES:
        assert s.words[s.pronoun] == corpus.IT and s.words.count(corpus.IT) == 1, s.words
        assert s.words[s.subject] in corpus.NOUNS, s.words
        assert s.words.count(s.words[s.subject]) == 1, s.words  # no other word is the subject noun
        assert s.subject < s.verbs[0] < s.pronoun < s.verbs[1], s
        assert s.words[s.verbs[0]] in corpus.VERBS_T and s.words[s.verbs[1]] in corpus.VERBS_T + corpus.VERBS_I
        assert s.nsubj(s.verbs[0]) == s.subject and s.nsubj(s.verbs[1]) == s.pronoun


def _assert_rare_is_rarest(items):
    frequencies = corpus.frequencies(items)
    for s in items:
        rare = s.words[s.rare]
        assert roles.rarest_token(s.words, frequencies) == rare, s.words
        # strictly: no tie that "the first on a tie" would settle
        assert all(frequencies[w] > frequencies[rare] for w in s.words if w != rare), s.words


def test_the_rare_word_is_each_sentences_least_frequent_word():
    _assert_rare_is_rarest(SENTENCES)


def test_the_rare_word_is_the_rarest_in_the_trained_models_data():
    # mha_ref.trained counts frequencies over train.CONFIG's training sentences and measures heads
    # on its held-out ones: the rare word must be the rarest there too.
    training, held_out = train.data(train.CONFIG)
    _assert_rare_is_rarest(training)
    frequencies = corpus.frequencies(training)
    for s in held_out:
        assert roles.rarest_token(s.words, frequencies) == s.words[s.rare], s.words


def documented_answers(s: corpus.Sentence) -> dict[str, list[int]]:
    """Each question's answers over MAX_LEN positions, as Batch's field comments describe them."""
    ids = [corpus.INDEX[w] for w in s.words]
    n, pad = len(ids), [corpus.IGNORE] * (corpus.MAX_LEN - len(ids))
    return {
        "previous": [corpus.IGNORE] + ids[:-1] + pad,  # "IGNORE at the first token"
        "next": ids[1:] + [corpus.IGNORE] + pad,  # "IGNORE at the last token"
        "subject": [corpus.IGNORE] + [ids[s.subject]] * (n - 1) + pad,  # "at every word (not at <s>)"
        "rare": [ids[s.rare]] * n + pad,  # "at every token"
    }


def test_batch_tokens_and_keys():
    items = SENTENCES[:200]
    b = corpus.batch(items)
    assert b.tokens.shape == (len(items), corpus.MAX_LEN)
    for row, s in zip(b.tokens, items):
        n = len(s.words)
        assert [corpus.VOCAB[i] for i in row[:n]] == list(s.words)
        assert np.all(row[n:] == corpus.INDEX[corpus.PAD])
    keys = b.keys
    assert keys.shape == (len(items), corpus.MAX_LEN, corpus.MAX_LEN) and keys.dtype == bool
    real = b.tokens != corpus.INDEX[corpus.PAD]
    assert np.array_equal(keys, np.broadcast_to(real[:, None, :], keys.shape))  # every query, real keys
    assert keys.any(axis=-1).all()  # every row, padding's too, keeps a key: softmax is defined


@pytest.mark.parametrize("question", corpus.QUESTIONS)
def test_batch_answers_are_ignore_exactly_where_documented(question):
    items = SENTENCES[:200]
    b = corpus.batch(items)
    assert len(b.answers) == len(corpus.QUESTIONS)
    got = b.answers[corpus.QUESTIONS.index(question)]
    assert got is getattr(b, question)
    expected = np.array([documented_answers(s)[question] for s in items])
    for i, s in enumerate(items):
        assert got[i].tolist() == expected[i].tolist(), (
            f"{question}, sentence {i} {' '.join(s.words)}: IGNORE (-1) expected at "
            f"{np.flatnonzero(expected[i] == corpus.IGNORE).tolist()}, found at "
            f"{np.flatnonzero(got[i] == corpus.IGNORE).tolist()}")


# training beside the figure pool ---------------------------------------------------------------------
def test_a_figures_prepare_runs_in_its_own_process_beside_the_pool(tmp_path, monkeypatch):
    import functools
    import types
    from figures.engine import registry, render
    from figures.engine.render import frames
    mark = tmp_path / "mark"
    # a PREPARE that a fork server or a spawned process can unpickle too (the suite runs threads,
    # so the pool may not fork): a library function, not one defined in this test module
    leave_a_mark = functools.partial(Path.touch, mark)
    tasks = [(f, lang, ("svg",)) for lang in ("zh", "en") for f in frames("peak-dip") + frames("causal-mask")]
    real_get = registry.get
    fake = types.SimpleNamespace(PREPARE=leave_a_mark)
    monkeypatch.setattr(registry, "get", lambda fig_id: fake if fig_id == "peak-dip" else real_get(fig_id))
    started = render._prepare(tasks, jobs=2)
    assert len(started) == 1  # one process for the one PREPARE, however many frames declare it
    started[0].join(60)
    assert started[0].exitcode == 0 and mark.is_file()
    assert render._prepare(tasks, jobs=1) == []  # drawn one by one: nothing runs beside


def test_the_trained_figures_train_beside_the_pool_and_every_render_path_asks(monkeypatch):
    from figures.engine import registry, render
    from mha_ref.tiny import lm_train
    assert registry.get("seed-roles").PREPARE is lm_train.prepare
    asked = []
    monkeypatch.setattr(render, "_prepare", lambda tasks, jobs: asked.append(len(tasks)) or [])
    monkeypatch.setattr(registry.get("seed-roles"), "draw", registry.get("peak-dip").draw)  # the call, not the drawing
    list(render.render_files(["en"], ["seed-roles"], ("svg",), None, 1))
    render.fill_cache(render.FigureCache(Path(tempfile.mkdtemp())), ["en"], ["seed-roles"], ("svg",), 1)
    assert asked == [1, 1]


def test_prepare_trains_only_with_a_disk_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MHA_FIGURE_CACHE", "0")
    monkeypatch.setattr(train, "trained", lambda *a: pytest.fail("trained with the cache off"))
    train.prepare()
    calls = []
    monkeypatch.setenv("MHA_FIGURE_CACHE", str(tmp_path))
    monkeypatch.setattr(train, "trained", lambda *a: calls.append(a))
    train.prepare()
    assert calls == [()]
