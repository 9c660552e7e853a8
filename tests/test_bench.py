"""python -m bench: --help runs nothing, and stopped mid-build (Ctrl-C, SIGTERM) it leaves nothing
behind: no copy of the checkout, no temporary folder of mkdocs, no drawing process."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from processes import below, survivors

ROOT = Path(__file__).resolve().parents[1]


def test_bench_help_prints_usage_and_runs_nothing(tmp_path):
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "bench", "--help"], cwd=ROOT, env=dict(os.environ, TMPDIR=str(tmp_path)),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: python -m bench") and "Ctrl-C" in run.stdout
    assert time.monotonic() - started < 20 and list(tmp_path.iterdir()) == []


def _gen_files_made(folder: Path) -> bool:
    """Whether a mkdocs_gen_files_* folder is somewhere under folder. The build makes and removes
    temporary folders meanwhile: os.walk passes over one that goes (Path.glob raised on it)."""
    return any(name.startswith("mkdocs_gen_files_") for _, names, _ in os.walk(folder) for name in names)


@pytest.mark.slow  # starts the benchmark's builds and waits for them to be under way
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_bench_stopped_mid_build_leaves_nothing_behind(tmp_path, stop):
    # SIGINT as the default: pytest run in the background would pass on an ignored SIGINT
    bench = subprocess.Popen([sys.executable, "-m", "bench"], cwd=ROOT, env=dict(os.environ, TMPDIR=str(tmp_path)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    running: set[int] = set()
    try:
        assert bench.stdout.readline().startswith("bench: building a copy")
        deadline = time.monotonic() + 180
        # the build draws its figures: mkdocs, its gen-files folder, and processes below it
        while not (_gen_files_made(tmp_path) and len(below(bench.pid)) >= 3):
            assert time.monotonic() < deadline and bench.poll() is None, "the first build never began drawing"
            time.sleep(0.2)
        running = below(bench.pid)
        if stop == "ctrl-c":  # the terminal sends it to the whole foreground process group
            os.killpg(bench.pid, signal.SIGINT)
        else:
            bench.terminate()
        _, err = bench.communicate(timeout=120)
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
    left = survivors(running)
    assert bench.returncode == 130, err[-2000:]
    assert "bench: stopped; its temporary folder is removed" in err
    assert left == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["{tmp}/missing"], "is not a built site (no index.html there)"),
    (["{tmp}", "--runs", "0"], "argument --runs: '0' is not a whole number of runs >= 1"),
    (["{tmp}", "--runs", "three"], "argument --runs: 'three' is not a whole number of runs >= 1")])
def test_lighthouse_refuses_a_missing_site_or_no_runs_before_anything_starts(tmp_path, argv, message):
    """A missing folder was a traceback from the page list; --runs 0 an IndexError after serving."""
    run = subprocess.run([sys.executable, "-m", "bench.lighthouse", *(a.replace("{tmp}", str(tmp_path)) for a in argv)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and err[-1].startswith("python -m bench.lighthouse: error: ") and message in err[-1]
    assert "Traceback" not in run.stderr and run.stdout == ""
