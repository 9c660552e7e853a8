"""Page 4's model is trained and measured in one arithmetic on every x86-64 machine (mha_ref/tiny/arithmetic.py):
the work runs in a process whose OpenBLAS and numpy kernels are pinned to x86-64-v3."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from figures.keep import tiny_lm
from mha_ref.tiny import arithmetic

needs_pinning = pytest.mark.skipif(not arithmetic._supported(), reason="this machine has no AVX2 and FMA to pin to")


@needs_pinning
def test_the_work_runs_with_openblas_haswell_kernels_and_numpys_avx2_loops():
    used = arithmetic.run("mha_ref.tiny.arithmetic", "kernels")
    assert {v for k, v in used.items() if k.startswith("openblas")} == {"Haswell"}
    assert {k: v for k, v in used.items() if k.startswith("numpy")} == {f"numpy {f}": "X86_V3" for f in ("exp", "log", "tanh")}


@needs_pinning
def test_the_child_runs_this_checkout_and_its_failure_is_raised_here_with_its_traceback():
    where = arithmetic.run("importlib.util", "find_spec", "mha_ref")
    assert where.origin == arithmetic.__file__.replace("tiny/arithmetic.py", "__init__.py")
    with pytest.raises(RuntimeError, match=r"(?s)mha_ref\.tiny\.lm_train\.no_such_function failed.*AttributeError"):
        arithmetic.run("mha_ref.tiny.lm_train", "no_such_function")
    # a process ended by a signal says which: its stderr may be empty
    with pytest.raises(RuntimeError, match=r"signal\.raise_signal failed .*, signal SIGTERM:"):
        arithmetic.run("signal", "raise_signal", signal.SIGTERM)  # in the child only


def test_the_kept_weights_and_measurements_are_named_by_the_arithmetic(monkeypatch):
    before = tiny_lm.weights_digest(), tiny_lm.heads_digest(0)
    monkeypatch.setattr(arithmetic, "ARITHMETIC", "native elsewhere")
    for digest in (tiny_lm.weights_digest, tiny_lm.heads_digest):
        digest.cache_clear()
    try:
        after = tiny_lm.weights_digest(), tiny_lm.heads_digest(0)
    finally:
        for digest in (tiny_lm.weights_digest, tiny_lm.heads_digest):
            digest.cache_clear()
    assert before[0] != after[0] and before[1] != after[1]


@needs_pinning
def test_the_pinned_process_ends_with_the_process_that_started_it(tmp_path):
    """A build killed (kill -9) while it trains leaves no training running (only the empty folder its
    result would have gone to, which nobody is left to remove: in tmp_path here)."""
    parent = subprocess.Popen([sys.executable, "-c", "from mha_ref.tiny import arithmetic; arithmetic.run('time', 'sleep', 60)"],
                              cwd=Path(__file__).resolve().parents[1], env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        deadline = time.monotonic() + 30
        children = []
        while not children and time.monotonic() < deadline:
            time.sleep(0.2)
            found = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
            children = [int(c) for c in found.read_text().split()] if found.exists() else []
        assert children, "the pinned process never started"
        time.sleep(1)  # past its start, into the sleep
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while _running(children[0]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(children[0]), "the pinned process outlived the process that started it"
    finally:
        parent.kill()


def _running(pid: int) -> bool:
    """Whether the process is there and not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
