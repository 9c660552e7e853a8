"""The processes that draw frames (figures/engine/pool.py): a frame that hangs is stopped after the
time limit and named, a process that dies is named by the frame it drew, and none outlives the
process that started it, whatever kills that one."""

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from figures.engine import pool, registry, render
from figures.engine.registry import FigureError
from figures.engine.render import Frame
from processes import below, survivors

FORK = multiprocessing.get_context("fork")


def _lost(task, said, stack):
    return RuntimeError(f"{task!r}: {said}")


def _outcomes(tasks, jobs):
    """Each (name, seconds) task sleeps that long and gives its name; a task's group is its name."""
    return list(pool.outcomes(lambda task: time.sleep(task[1]) or task[0], tasks, jobs, FORK, 1.0, _lost,
                              group=lambda task: task[0]))


def test_a_task_past_the_limit_is_stopped_while_the_others_go_on():
    started = time.monotonic()
    got = _outcomes([("a", 0.01), ("hangs", 600), ("b", 0.01), ("c", 0.01)], 2)
    assert time.monotonic() - started < 20
    assert [value for ok, value in got if ok] == ["a", "b", "c"]
    assert str(got[1][1]) == ("('hangs', 600): still drawing after 1 s (the limit, MHA_FIGURE_TIMEOUT), "
                              "so its process was stopped")


def test_after_a_timeout_its_process_is_replaced_and_its_group_not_started():
    got = _outcomes([("hangs", 600), ("hangs", 0.01), ("c", 0.01)], 1)
    assert [ok for ok, _ in got] == [False, False, True]
    assert str(got[1][1]) == ("('hangs', 0.01): not drawn: another frame of this figure was still drawing after 1 s "
                              "(the limit, MHA_FIGURE_TIMEOUT), so its process was stopped")


def test_a_process_that_dies_is_named_by_its_task_and_the_others_go_on():
    got = list(pool.outcomes(os._exit, [3, 4], 2, FORK, None, _lost))
    assert [str(e) for _, e in got] == ["3: its drawing process exited with code 3 before it finished",
                                        "4: its drawing process exited with code 4 before it finished"]
    got = list(pool.outcomes(lambda n: os.kill(os.getpid(), signal.SIGKILL) if n < 0 else abs(n), [1, -2, 3], 2, FORK,
                             None, _lost))
    assert got[0] == (True, 1) and got[2] == (True, 3)
    assert str(got[1][1]) == "-2: its drawing process was killed by SIGKILL before it finished"
    ok, error = next(pool.outcomes(abs, ["x"], 1, FORK, None, _lost))  # an exception is raised in its place
    assert not ok and isinstance(error, TypeError)


def test_a_lost_frame_is_a_figure_error_naming_figure_language_frame_and_where_it_was_stopped():
    stack = [("/usr/lib/python3.11/multiprocessing/process.py", 108, "run"),
             (str(registry.ROOT / "figures/gallery/width_slices.py"), 45, "draw"),
             ("/x/.venv/lib/python3.11/site-packages/matplotlib/figure.py", 9, "savefig")]
    e = render._lost((Frame("width-slices", 4, "h4"), "en", ("svg",)), "still drawing after 60 s", stack)
    assert isinstance(e, FigureError)
    assert e.headline == ("figure 'width-slices' (en, frame h4) failed to draw: still drawing after 60 s "
                          "(figures/gallery/width_slices.py, line 45)")
    assert e.last_lines(2) == ['  File "/x/.venv/lib/python3.11/site-packages/matplotlib/figure.py", line 9, in savefig',
                               "still drawing after 60 s"]


@pytest.mark.parametrize("value, limit", [("", 60.0), (" 2.5 ", 2.5), ("0", None), ("off", None)])
def test_the_time_limit_comes_from_the_environment(monkeypatch, value, limit):
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", value)
    assert pool.limit_from_env() == limit


@pytest.mark.parametrize("value", ["abc", "-1", "inf", "nan"])
def test_a_bad_time_limit_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", value)
    with pytest.raises(ValueError, match=f"MHA_FIGURE_TIMEOUT='{value}' is not a number of seconds"):
        pool.limit_from_env()


# width-slices' frame h4 hangs in English, h2 ends its process: edited in a copy of the checkout. A hang
# here waits rather than spins: the limit stops either alike (tests/test_figure_limits.py spins), and a
# waiting one leaves the suite's other tests their core
DRAW = "def draw(lang: str, h: int):\n"
HANGS = DRAW + ('    if lang == "en" and h == 4:\n        open(__file__ + ".hangs", "w").close()\n'
                '        while True:\n            __import__("time").sleep(1)\n')
EXITS = DRAW + '    if lang == "en" and h == 2:\n        import os\n        os._exit(7)\n'
HANGS_ON_IMPORT = "while True:\n    __import__('time').sleep(1)\n\n\n" + DRAW  # the module never finishes importing


def _edit(checkout: Path, new: str) -> None:
    figure = checkout / "figures/gallery/width_slices.py"
    text = figure.read_text()
    assert text.count(DRAW) == 1
    figure.write_text(text.replace(DRAW, new))


@pytest.mark.parametrize("new, error", [
    pytest.param(HANGS, "error: figure 'width-slices' (en, frame h4) failed to draw: still drawing after 10 s (the "
                 "limit, MHA_FIGURE_TIMEOUT), so its process was stopped (figures/gallery/width_slices.py, line 4",
                 marks=pytest.mark.slow),  # waits out the limit; the pool's own tests above keep it in the fast loop
    (EXITS, "error: figure 'width-slices' (en, frame h2) failed to draw: its drawing process exited with code 7 "
            "before it finished"),
    pytest.param(HANGS_ON_IMPORT, "error: figure 'width-slices' (every language, every frame) failed to import: "
                 "still running after 10 s (the limit, MHA_FIGURE_TIMEOUT), so it was stopped "
                 "(figures/gallery/width_slices.py", marks=pytest.mark.slow),  # as tests/test_figure_limits.py, by the CLI
], ids=["hangs", "exits", "hangs-on-import"])
def test_the_cli_names_a_figure_that_hangs_or_ends_its_process(checkout, tmp_path, new, error):
    _edit(checkout, new)
    # a limit the other frames keep on a busy machine, each worker's first frame importing its modules
    run = subprocess.run([sys.executable, "-m", "figures", "--out", str(tmp_path / "out"), "--only", "width-slices",
                          "--lang", "en", "--no-cache"], cwd=checkout, env=dict(os.environ, MHA_FIGURE_TIMEOUT="10"),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.startswith(error), run.stderr


DRAW_IN_A_POOL = """if True:
    import sys, threading
    if sys.argv[1] == "threads":  # as under mkdocs serve: the pool then starts its workers from a fork server
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    from figures.engine.render import _start_method, render_files
    print(_start_method().get_start_method(), flush=True)
    list(render_files(["en"], ["width-slices"], jobs=2))
"""


@pytest.mark.parametrize("threads, method", [("none", "fork"), ("threads", "forkserver")])
def test_no_drawing_process_outlives_a_kill_9_of_the_process_that_started_it(checkout, threads, method):
    _edit(checkout, HANGS)
    parent = subprocess.Popen([sys.executable, "-c", DRAW_IN_A_POOL, threads], cwd=checkout, stdout=subprocess.PIPE,
                              text=True, env=dict(os.environ, MHA_FIGURE_TIMEOUT="0"))  # hangs for ever
    try:
        assert parent.stdout.readline().strip() == method
        hangs, deadline = checkout / "figures/gallery/width_slices.py.hangs", time.monotonic() + 120
        while not hangs.exists() and time.monotonic() < deadline:  # a worker loops for ever in h4
            time.sleep(0.2)
        assert hangs.exists()
        running = below(parent.pid)
        assert len(running) >= 2, running
    finally:
        parent.kill()
        parent.wait()
    left = survivors(running)
    assert left == [], f"{len(left)} of {len(running)} processes outlived a kill -9 of their parent"
