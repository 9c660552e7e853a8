"""Training's infrastructure for page 4's model (mha_ref.tiny.lm_train): Adam by hand, the code digest
that names the kept weights (code counts, comments and docstrings do not; every function training
runs is covered), the cache folder, and training beside the figure pool. The model, its training and
its kept weights are tested in test_lm.py; keeping a file in figures/keep/'s test_store.py."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from figures.keep import disk, reach, tiny_lm
from mha_ref.tiny import language, lm, lm_backward, lm_train
from test_lm import SMALL, TINY

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------
# the cache folder
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "off", "No", " false "])
def test_the_cache_can_be_switched_off(value, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, value)
    assert tiny_lm.weights_folder() is None


def test_the_cache_folder_follows_the_figure_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    assert tiny_lm.weights_folder() == tmp_path / "trained-lm"
    monkeypatch.delenv(disk.CACHE_ENV)
    assert tiny_lm.weights_folder() == ROOT / ".cache" / "figures" / "trained-lm"


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
    assert reach.code_text(EXPLAINED) == reach.code_text(SOURCE)


@pytest.mark.parametrize("old, new", [
    ("2 * x", "3 * x"),  # a number
    ("math.sqrt(3)", "math.sqrt(2)"),
    ("return 1", "return 1.0"),  # the same value, another type: the weights could differ
    ('"""Twice x, scaled."""\n    return', '"""Twice x, scaled."""\n    x = x\n    return'),
    ("import math", "import math as math"),
])
def test_code_text_changes_when_the_code_changes(old, new):
    assert old in SOURCE
    assert reach.code_text(SOURCE.replace(old, new)) != reach.code_text(SOURCE)


def test_a_string_that_is_not_a_docstring_counts():
    edited = SOURCE.replace("return 1\n", 'return 1\n        "not a docstring: after the return"\n')
    assert reach.code_text(edited) != reach.code_text(SOURCE)


# Which code decides the weights is derived here, not from lm_train.py's own reach: a fresh process in a
# copy of the checkout runs a few steps of training under sys.setprofile and collects every function
# of mha_ref that runs; then it edits each of them in the copy (one statement added at the top of its
# body), and each module they live in (one statement added at its end), and recomputes the digest.
# Whatever way lm_train.py comes to compute its digest, an edit to code that training runs must change it.
REACHED_AND_EDITED = r"""
import ast, json, linecache, sys
from pathlib import Path
import mha_ref
from figures.keep import tiny_lm
from mha_ref.tiny import lm, lm_train

PKG = Path(mha_ref.__file__).resolve().parent
assert PKG.parent == Path.cwd().resolve(), f"mha_ref imported from {PKG}, not from the copy"
CONFIG = lm_train.SMALL_CONFIG_HERE

ran = set()  # (file name, first line) of every code object of mha_ref that training runs
def profile(frame, event, arg):
    path = Path(frame.f_code.co_filename).resolve()
    if event == "call" and PKG in path.parents:
        ran.add((path.relative_to(PKG).as_posix(), frame.f_code.co_firstlineno))
sys.setprofile(profile)
lm_train.train(CONFIG, 0)
sys.setprofile(None)

def digest():
    # nothing the process remembers of the code it read may stand in for the edited file
    for name, module in list(sys.modules.items()):
        if name == "mha_ref" or name.startswith(("mha_ref.", "figures.keep.")):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    linecache.clearcache()
    return tiny_lm.weights_digest(CONFIG, 0)

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
    env = dict(os.environ, **{disk.CACHE_ENV: "0"})
    script = REACHED_AND_EDITED.replace("SMALL_CONFIG_HERE", repr(SMALL).replace("model=Config(", "model=lm.Config("))
    run = subprocess.run([sys.executable, "-c", script], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["restored"]
    defs, modules = result["defs"], result["modules"]
    assert {"tiny/lm_train.py", "tiny/lm.py", "tiny/language.py", "attention.py", "backward.py"} <= set(modules), modules
    assert len(defs) >= len(modules)
    uncounted = sorted(name for name, changed in defs.items() if not changed)
    assert not uncounted, f"training runs these functions, yet an edit to them leaves the digest as it was " \
                          f"(stale weights would be loaded): {uncounted}"
    uncounted = sorted(name for name, changed in modules.items() if not changed)
    assert not uncounted, f"a top-level statement added to these modules, which training runs, leaves the digest " \
                          f"as it was: {uncounted}"


# --------------------------------------------------------------------------------------------
# Adam, by hand
# --------------------------------------------------------------------------------------------

def test_adam_two_steps_by_hand():
    a = np.array([1.0, -2.0])
    opt = lm_train.Adam([a], learning_rate=0.1)  # beta1 0.9, beta2 0.999, eps 1e-8
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
    model = lm.init(TINY, 0)
    before = [a.copy() for a in lm.arrays(model)]
    opt = lm_train.Adam(lm.arrays(model), 0.01)
    _, grads, _ = lm_backward.loss_and_grads(model, lm.masked_batch(language.sentences(4, 1), np.random.default_rng(0)))
    opt.step(lm.arrays(grads))
    # Adam's first step moves every entry with a gradient by about the learning rate; an array
    # whose gradient is zero but for rounding (a key bias: softmax ignores a constant added to a
    # row) is held to a step of about 1e-12 by eps = 1e-8
    for i, (a, b, g) in enumerate(zip(lm.arrays(model), before, lm.arrays(grads))):
        step = float(np.abs(a - b).max())
        assert step < 1e-9 if np.abs(g).max() < 1e-12 else 0.009 < step <= 0.01 + 1e-12, (i, step)


# --------------------------------------------------------------------------------------------
# training beside the figure pool
# --------------------------------------------------------------------------------------------

def test_a_figures_prepare_runs_in_its_own_process_before_the_frames_are_drawn(tmp_path, monkeypatch):
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
    # done before a frame is drawn: its time limit counts the drawing alone
    assert not started[0].is_alive() and started[0].exitcode == 0 and mark.is_file()
    mark.unlink()
    assert len(render._prepare(tasks[:1], jobs=None)) == 1 and mark.is_file()  # one frame in the pool: the same
    assert render._prepare(tasks, jobs=1) == []  # drawn one by one, with no time limit: the frame does the work


def test_with_the_cache_off_a_prepare_and_its_figures_frames_run_here(monkeypatch):
    """MHA_FIGURE_CACHE=0: nothing kept on disk, so a PREPARE in a process of its own would be lost
    and each frame would train page 4's seeds again inside its time limit (the build failed: "still
    drawing after 60 s"). The PREPARE runs here, in memory, and its figure's frames are drawn here;
    the other figures' frames still go to the pool."""
    import types
    from figures.engine import registry, render
    from figures.engine.render import frames
    tasks = [(f, "en", ("svg",)) for f in frames("peak-dip") + frames("causal-mask")]
    ran = []
    real_get = registry.get
    fake = types.SimpleNamespace(PREPARE=lambda: ran.append(os.getpid()))
    monkeypatch.setattr(registry, "get", lambda fig_id: fake if fig_id == "peak-dip" else real_get(fig_id))
    monkeypatch.setattr(render, "_render_task", lambda task: ("drawn by", os.getpid()))  # a forked worker's too
    import multiprocessing  # forked, so that the workers run the lambda above (a session that drew would not fork)
    monkeypatch.setattr(render, "_start_method", lambda *args, **kwargs: multiprocessing.get_context("fork"))
    monkeypatch.setenv(disk.CACHE_ENV, "0")
    assert render._prepare(tasks, jobs=2) == [] and ran == [os.getpid()]
    drawn = list(render.render_many(tasks, jobs=2))
    assert len(drawn) == len(tasks)
    for (frame, *_), result in zip(tasks, drawn):
        assert (result == ("drawn by", os.getpid())) == (frame.fig_id == "peak-dip"), frame
    monkeypatch.setattr(render, "_preparation", lambda fig_id: fake.PREPARE)
    render.prepare("seed-roles")  # before its data table, the same
    assert ran == [os.getpid()] * 2


def test_a_prepare_runs_here_when_the_cache_cannot_be_written(monkeypatch, tmp_path):
    from figures.engine import render
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")
    assert render._keeps()
    monkeypatch.setenv(disk.UNWRITABLE_ENV, str(tmp_path))
    assert not render._keeps()


def test_seed_roles_trains_beside_the_pool_and_every_render_path_asks(monkeypatch):
    from figures.engine import registry, render
    assert registry.get("seed-roles").PREPARE is tiny_lm.prepare
    asked = []
    monkeypatch.setattr(render, "_prepare", lambda tasks, jobs, wait=True: asked.append(len(tasks)) or [])
    monkeypatch.setattr(registry.get("seed-roles"), "draw", registry.get("peak-dip").draw)  # the call, not the drawing
    list(render.render_files(["en"], ["seed-roles"], ("svg",), None, 1))
    render.fill_cache(render.FigureCache(Path(tempfile.mkdtemp())), ["en"], ["seed-roles"], ("svg",), 1)
    assert asked == [1, 1]


def test_while_a_prepare_runs_the_progress_lines_say_how_far_its_work_has_come(tmp_path, monkeypatch):
    """A figure's PREPARE_PROGRESS (seed-roles': page 4's seeds trained of five) is said beside the
    frames drawn, each with its time left (figures/engine/progress.py)."""
    import functools
    import types
    from figures.engine import progress, registry, render
    from figures.engine.cache import FigureCache
    real_get = registry.get
    fake = types.SimpleNamespace(**{k: getattr(real_get("peak-dip"), k) for k in ("draw", "CONTROL", "CAPTION_ZH", "CAPTION_EN")},
                                 PREPARE=functools.partial(Path.touch, tmp_path / "mark"),
                                 PREPARE_PROGRESS=("seeds trained", lambda: (int((tmp_path / "mark").exists()), 1)))
    monkeypatch.setattr(registry, "get", lambda fig_id: fake if fig_id == "peak-dip" else real_get(fig_id))
    monkeypatch.setattr(progress, "EVERY", 0.01)
    said = []
    render.fill_cache(FigureCache(tmp_path / "cache"), ["en"], ["peak-dip", "causal-mask"], ("svg",), jobs=2, say=said.append)
    assert said[0].startswith("figures: 0 of ") and "; seeds trained: " in said[0]
    assert any("; seeds trained: 1 of 1" in line for line in said[1:-1])  # the PREPARE done, the frames still drawn
    assert said[-1].startswith("figures: ") and " frames drawn in " in said[-1]
