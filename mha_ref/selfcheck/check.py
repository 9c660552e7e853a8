"""Check your own multi-head attention against mha_ref's test vectors, stage by stage.

    python mha_selfcheck.py my_module.py [mha-selfcheck-vectors.npz]  (the two downloads: this file)
    python -m mha_ref.selfcheck my_module.py                           (in the repository)

Needs numpy only. my_module.py defines, in plain numpy (row vectors: a token is a row, x @ w + b):

    def multi_head_attention(x, w_q, w_k, w_v, w_o, h,
                             b_q=None, b_k=None, b_v=None, b_o=None, mask=None, kv_heads=None):

x [n, d_model]; w_q, w_o [d_model, d_model]; w_k, w_v [d_model, kv_heads * d_k] (d_k = d_model / h;
kv_heads None means h); biases [width] or None; mask [n, n] boolean, True where query i may attend
to key j, or None. Arguments that are None are not passed, so a function without masks or grouped
key/value heads still runs on the configurations that need neither. It returns out [n, d_model], or
a dict holding "out" and any of the stages, so the check can find the first one that differs:

    q, k, v  [h, n, d_k] (k, v may be [kv_heads, n, d_k])   per head, heads in order
    scores   [h, n, n]   q @ k^T              scaled   [h, n, n]   scores / sqrt(d_k), before the mask
    weights  [h, n, n]   softmax over keys    heads    [h, n, d_k] weights @ v
    concat   [n, d_model]                     out      [n, d_model] concat @ w_o + b_o

Optionally, multi_head_attention_backward(x, w_q, w_k, w_v, w_o, h, d_out, <the same keywords>)
returns a dict of the gradients of the loss sum(out * d_out): "d_x", "d_w_q", ..., "d_b_o".

The report gives, for each configuration, the first stage that differs, where (head, row, column),
expected and got, the largest difference, and the most likely cause when the stage matches one of
the common mistakes. Exit status 0 when everything matches, 1 otherwise.
"""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import traceback

import numpy as np

VECTORS = "mha-selfcheck-vectors.npz"  # the download's name, looked for beside this script
STAGES = ("q", "k", "v", "scores", "scaled", "weights", "heads", "concat", "out")
PARAMS = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
GRADIENTS = ("d_x",) + tuple(f"d_{p}" for p in PARAMS)
RTOL, ATOL = 1e-4, 1e-5  # the vectors are float32; atol is relative to the stage's largest value
FORWARD, BACKWARD = "multi_head_attention", "multi_head_attention_backward"
SIGNATURE = "(x, w_q, w_k, w_v, w_o, h, b_q=None, b_k=None, b_v=None, b_o=None, mask=None, kv_heads=None)"
# what the checker says when a learner's first wrong stage matches a stored mistake (mha_ref.vectors makes them)
MISTAKES = {
    "transpose": "k not transposed: scores = q @ k instead of q @ k^T (k.swapaxes(-1, -2))",
    "no_scale": "the scale forgotten: divide the scores by sqrt(d_k) before the softmax",
    "strided_split": "heads split strided (head i took columns i, i+h, i+2h, ...): head i owns the contiguous "
                     "columns i*d_k ... (i+1)*d_k - 1; reshape to [n, h, d_k], then move h first",
    "softmax_axis": "softmax over the wrong axis (over the queries, axis -2): each query's weights run along "
                    "the keys, axis -1, and sum to 1",
    "mask_after_softmax": "the mask applied after the softmax: set masked scores to -inf before it, so that "
                          "the remaining weights still sum to 1",
    "keys_as_values": "the keys used as the values: v = x @ w_v + b_v, not x @ w_k + b_k",
}


class Stop(Exception):
    """A learner's module the check cannot run at all: its message is the one line to print."""


# --- reading the vectors and the learner's module ------------------------------------------------

# A weight's gradient is its layer's input, transposed, times the gradient of the layer's output:
# d_w_q = x^T @ (d loss / d (x @ w_q)), [d_model, n] @ [n, width]. The file keeps the right-hand factor,
# n rows, as "grad/d_w_q.right", not the d_model rows of the product (at a published width, 512 rows
# where n is 4: nearly all the file's weight); load_vectors multiplies it out again.
RIGHT = ".right"
LEFT = {"d_w_q": "x", "d_w_k": "x", "d_w_v": "x", "d_w_o": "expected/concat"}  # each weight's layer input


def load_vectors(path: str | bytes | None = None) -> dict[str, dict[str, np.ndarray]]:
    """config name -> {"x": ..., "expected/out": ..., "mistake/no_scale/out": ..., "grad/d_w_q": ...}, in
    the file's order; each weight's gradient multiplied out from its factor (LEFT, RIGHT). `path` is a
    file's path or the file's bytes; without one, the download beside this script."""
    if path is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), VECTORS)
        if not os.path.exists(path):
            raise Stop(f"no test vectors: download {VECTORS} beside this script, or give its path after your module's")
    if isinstance(path, bytes):
        path = io.BytesIO(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            found: dict[str, dict[str, np.ndarray]] = {}
            for key in z.files:
                config, _, what = key.partition("/")
                found.setdefault(config, {})[what] = z[key]
    except (OSError, ValueError) as e:
        raise Stop(f"cannot read the test vectors {path}: {e}") from None
    for v in found.values():
        for key in [k for k in v if k.startswith("grad/") and k.endswith(RIGHT)]:
            grad = key[len("grad/"):-len(RIGHT)]
            v[f"grad/{grad}"] = v[LEFT[grad]].astype(np.float64).T @ v.pop(key).astype(np.float64)
    return found


def load_module(path: str):
    """The learner's module, imported from its file; Stop with one line when it does not import."""
    if not os.path.isfile(path):
        raise Stop(f"no file {path}")
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise Stop(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 (whatever the learner's file raises, say it in one line)
        raise Stop(f"cannot import {path}: {_one_line(e, path)}") from None
    if not callable(getattr(module, FORWARD, None)):
        raise Stop(f"{path} defines no function {FORWARD}{SIGNATURE}")
    return module


def _one_line(e: BaseException, path: str) -> str:
    """'TypeError: ... (my_module.py, line 7)': the error and the learner's last line it passed through."""
    where = [f for f in traceback.extract_tb(e.__traceback__) if os.path.abspath(f.filename) == os.path.abspath(path)]
    line = getattr(e, "lineno", None) if isinstance(e, SyntaxError) else (where[-1].lineno if where else None)
    text = f"{type(e).__name__}: {e}".splitlines()[0]
    return text if line is None else f"{text} ({os.path.basename(path)}, line {line})"


# --- comparing --------------------------------------------------------------------------------------

def describe(v: dict[str, np.ndarray]) -> str:
    n, d_model, h, kv, bias, causal = (int(a) for a in v["config"])
    parts = [f"n={n}", f"d_model={d_model}", f"h={h}"] + ([f"kv_heads={kv}"] if kv != h else [])
    return ", ".join(parts + ["biases" if bias else "no biases", "causal mask" if causal else "no mask"])


def _arguments(v: dict[str, np.ndarray]) -> tuple[tuple, dict]:
    n, d_model, h, kv = (int(a) for a in v["config"][:4])
    args = tuple(v[p].astype(np.float64) for p in ("x", "w_q", "w_k", "w_v", "w_o")) + (h,)
    keywords = {p: v[p].astype(np.float64) for p in ("b_q", "b_k", "b_v", "b_o") if p in v}
    if "mask" in v:
        keywords["mask"] = v["mask"].copy()
    if kv != h:
        keywords["kv_heads"] = kv
    return args, keywords


def _index(stage: str, shape: tuple, flat: int) -> str:
    """Where in a stage: 'head 1, row 2, column 0' (or 'row 2, column 0' for a per-token stage)."""
    idx = np.unravel_index(flat, shape)
    names = {3: ("head", "row", "column"), 2: ("row", "column"), 1: ("entry",)}.get(len(shape))
    return ", ".join(f"{a} {i}" for a, i in zip(names, idx)) if names else str(tuple(int(i) for i in idx))


def _fit(stage: str, expected: np.ndarray, got: np.ndarray, h: int) -> np.ndarray:
    """k and v may come per query head ([h, n, d_k]) where the vectors keep one per key/value head."""
    if stage in ("k", "v") and got.shape != expected.shape and got.shape[1:] == expected.shape[1:] \
            and got.shape[0] == h and h % expected.shape[0] == 0:
        return np.repeat(expected, h // expected.shape[0], axis=0)
    return expected


def close(expected: np.ndarray, got: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Entry by entry, whether got is expected within the tolerance (and True outside `where`)."""
    atol = ATOL * max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    ok = np.isclose(got, expected, rtol=RTOL, atol=atol)
    return ok if where is None else ok | ~where


def _compare(name, v, stage, expected, got, where=None) -> str | None:
    """None when got matches, else the report's line for it."""
    h = int(v["config"][2])
    expected = _fit(stage, expected, got, h)
    if got.shape != expected.shape:
        return f"{stage} has shape {got.shape}, expected {expected.shape}"
    if not np.all(np.isfinite(got) | ~(True if where is None else where)):
        bad = int(np.flatnonzero(~np.isfinite(got) & (True if where is None else where))[0])
        return f"{stage} is not finite at {_index(stage, got.shape, bad)}: got {got.flat[bad]}"
    ok = close(expected, got, None if where is None else np.broadcast_to(where, got.shape))
    if ok.all():
        return None
    first = int(np.flatnonzero(~ok)[0])
    worst = float(np.max(np.abs(got - expected)[~ok]))
    return (f"{stage} differs first at {_index(stage, got.shape, first)}: expected {expected.flat[first]:.6g}, "
            f"got {got.flat[first]:.6g} (largest difference {worst:.3g})")


def likely(v: dict[str, np.ndarray], stage: str, got: np.ndarray, where=None) -> str | None:
    """The stored mistake whose `stage` matches what the learner got, if any."""
    h = int(v["config"][2])
    for m, cause in MISTAKES.items():
        wrong = v.get(f"mistake/{m}/{stage}")
        if wrong is None:
            continue
        wrong = _fit(stage, wrong, got, h)
        if wrong.shape == got.shape and close(wrong, got, None if where is None else
                                              np.broadcast_to(where, got.shape)).all():
            return cause
    return None


def check_config(module, name: str, v: dict[str, np.ndarray], path: str) -> list[str]:
    """The report's lines for one configuration: [] when every stage and gradient matches."""
    args, keywords = _arguments(v)
    try:
        result = getattr(module, FORWARD)(*args, **keywords)
    except TypeError as e:
        if "unexpected keyword argument" in str(e):
            return [f"not run: {FORWARD} takes no {str(e).split('argument')[-1].strip()} "
                    f"(the signature is {FORWARD}{SIGNATURE})"]
        return [f"{FORWARD} raised {_one_line(e, path)}"]
    except Exception as e:  # noqa: BLE001
        return [f"{FORWARD} raised {_one_line(e, path)}"]
    stages = dict(result) if isinstance(result, dict) else {"out": result[0] if isinstance(result, tuple) else result}
    if "out" not in stages:
        return [f"{FORWARD} returned a dict without \"out\" (its keys: {', '.join(map(str, stages))})"]
    n, d_model = int(v["config"][0]), int(v["config"][1])
    mask = v.get("mask")
    for stage in (s for s in STAGES if s in stages):
        got = np.asarray(stages[stage], dtype=np.float64)
        expected = v[f"expected/{stage}"]
        if stage == "out" and got.shape != expected.shape:
            return [f"wrong shape: {FORWARD} returned out of shape {got.shape}, expected {expected.shape} "
                    f"= [n, d_model] = [{n}, {d_model}]"]
        where = mask if stage == "scaled" and mask is not None else None  # masked entries may hold anything
        line = _compare(name, v, stage, expected, got, where)
        if line is not None:
            cause = likely(v, stage, got, where)
            return [line] + ([f"most likely: {cause}"] if cause else
                             ["no common mistake matches this stage: compare it by hand with the vectors"])
    return check_backward(module, v, args, keywords, path)


def check_backward(module, v, args, keywords, path) -> list[str]:
    backward = getattr(module, BACKWARD, None)
    if not callable(backward):
        return []
    try:
        grads = backward(*args, v["d_out"].astype(np.float64), **keywords)
    except Exception as e:  # noqa: BLE001
        return [f"{BACKWARD} raised {_one_line(e, path)}"]
    if not isinstance(grads, dict):
        return [f"{BACKWARD} returned {type(grads).__name__}, expected a dict of gradients (\"d_x\", \"d_w_q\", ...)"]
    for g in GRADIENTS:
        expected = v.get(f"grad/{g}")
        if expected is None:
            continue
        if grads.get(g) is None:
            return [f"{BACKWARD} returned no \"{g}\""]
        line = _compare("", v, g, expected, np.asarray(grads[g], dtype=np.float64))
        if line is not None:
            return ["gradient " + line]
    return []


def run(module_path: str, vectors_path: str | bytes | None = None, out=sys.stdout) -> int:
    """Check the module on every configuration, print the report; 0 when everything matches."""
    try:
        module = load_module(module_path)
        vectors = load_vectors(vectors_path)
    except Stop as e:
        print(e, file=out)
        return 1
    has_backward = callable(getattr(module, BACKWARD, None))
    failed = 0
    for name, v in vectors.items():
        lines = check_config(module, name, v, module_path)
        failed += bool(lines)
        what = "every stage given and every gradient" if has_backward else "every stage given"
        print(f"{name} ({describe(v)}): " + (lines[0] if lines else f"{what} matches"), file=out)
        for line in lines[1:]:
            print(f"    {line}", file=out)
    print(f"{len(vectors) - failed} of {len(vectors)} configurations match"
          + ("" if has_backward else f" (no {BACKWARD}: gradients not checked)"), file=out)
    return 1 if failed else 0


def main(argv: list[str] | None = None, vectors: bytes | None = None) -> int:
    """The command: my_module.py [vectors.npz]; `vectors` (the file's bytes) stands in for a missing path."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) not in (1, 2):
        print(f"usage: python -m mha_ref.selfcheck my_module.py [{VECTORS}]")
        return 1
    return run(argv[0], argv[1] if len(argv) == 2 else vectors)


if __name__ == "__main__":
    sys.exit(main())
