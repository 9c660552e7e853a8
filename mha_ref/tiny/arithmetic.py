"""One arithmetic for training and measuring page 4's model, whichever x86-64 machine builds the site.

One thread gives the same weights from the same seed on one machine, but not on every
machine: OpenBLAS picks its matrix kernels by processor (AVX-512 kernels sum in another order than
AVX2 ones), and numpy picks its loops by processor too. A model trained on an AVX-512 machine came
out different from the same seed trained on an AVX2 machine, enough to move one relation of page 4
across the paper's syntactic bar. So training and the head measurements run in a process of their
own whose arithmetic is pinned to x86-64-v3 (AVX2 and FMA): OpenBLAS's Haswell kernels
(OPENBLAS_CORETYPE) and numpy without its AVX-512 loops (NPY_DISABLE_CPU_FEATURES). Both variables
are read once, when the libraries load, hence the separate process.

A machine without AVX2 and FMA (or not x86-64) cannot run that arithmetic: there the work runs in
this process with the machine's own, its results may differ, and ARITHMETIC names it, so that the
digests of the kept weights and measurements never mix the two.
"""

from __future__ import annotations

import importlib
import os
import pickle
import platform
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

PINNED = {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}


def pins() -> bool:
    """Whether run() computes in a process of its own, pinned (else here, with this machine's kernels)."""
    return _supported() and not pinned_here()


def _supported() -> bool:
    from numpy._core._multiarray_umath import __cpu_features__ as features
    return platform.machine() in ("x86_64", "AMD64") and bool(features.get("AVX2")) and bool(features.get("FMA3"))


ARITHMETIC = "x86-64-v3 " + " ".join(f"{k}={v}" for k, v in PINNED.items()) if _supported() \
    else f"native {platform.machine()} numpy {np.__version__}"

# The child: ends with the process that started it (PR_SET_PDEATHSIG, Linux), reads (module, function,
# args) from stdin, imports, calls, and writes the pickled result to the file its first argument
# names (not to stdout, which the code it runs may print to).
_CHILD = """
import ctypes, importlib, os, pickle, signal, sys
try:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[2]):  # the parent ended before prctl took hold
    sys.exit(1)
m, f, a = pickle.load(sys.stdin.buffer)
r = getattr(importlib.import_module(m), f)(*a)
open(sys.argv[1], "wb").write(pickle.dumps(r))
"""


def kernels() -> dict[str, str]:
    """Which kernels this process computes with: OpenBLAS's, and numpy's loops for exp, log and tanh."""
    from numpy.lib.introspect import opt_func_info
    from threadpoolctl import threadpool_info
    found = {f"openblas {lib['filepath'].rsplit('/', 1)[-1]}": lib["architecture"] for lib in threadpool_info()
             if lib["internal_api"] == "openblas"}
    return found | {f"numpy {name}": kinds["dd"]["current"]
                    for name, kinds in opt_func_info("^(exp|log|tanh)$", "float64").items()}


def pinned_here() -> bool:
    """Whether this process already computes in the pinned arithmetic (its libraries loaded under it)."""
    return all(os.environ.get(k) == v for k, v in PINNED.items())


def run(module: str, function: str, *args):
    """module.function(*args) computed in the pinned arithmetic: in a child process started for it
    (the code this process imported, found first on the child's path), or here when this process
    already is pinned or the machine cannot pin. The child's error, with its traceback, is raised here."""
    if not pins():
        return getattr(importlib.import_module(module), function)(*args)
    code_root = str(Path(__file__).resolve().parents[2])  # the folder holding this checkout's mha_ref/
    env = dict(os.environ, **PINNED, PYTHONPATH=os.pathsep.join(filter(None, (code_root, os.environ.get("PYTHONPATH")))))
    with tempfile.TemporaryDirectory(prefix="mha-pinned-") as folder:
        result = Path(folder) / "result.pickle"
        done = subprocess.run([sys.executable, "-c", _CHILD, str(result), str(os.getpid())],
                              input=pickle.dumps((module, function, args)), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=env, cwd=code_root)
        if done.returncode != 0:
            ended = f"exit status {done.returncode}" if done.returncode > 0 else \
                f"signal {signal.Signals(-done.returncode).name}"  # killed, say, by a person or the kernel
            raise RuntimeError(f"{module}.{function} failed in its process of pinned arithmetic (x86-64-v3), "
                               f"{ended}:\n" + done.stderr.decode("utf-8", "replace")[-4000:])
        return pickle.loads(result.read_bytes())
