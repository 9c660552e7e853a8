"""Check your own multi-head attention against mha_ref's test vectors, stage by stage.

    python mha_selfcheck.py my_module.py [mha-selfcheck-vectors.npz]  (the two downloads: this file)
    python -m mha_ref.selfcheck my_module.py                           (in the repository)
    --time-limit SECONDS before my_module.py: how long one call of your function may take (default 10)

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

Your module is imported, and your functions run, in a process of their own: whatever they do there
(exit, loop for ever, change this checker) cannot change the verdict, which this process alone
gives. A call that takes longer than the time limit is stopped and reported.

The report gives, for each configuration, the first stage that differs, where (head, row, column),
expected and got, the largest difference, and the most likely cause when the stage matches one of
the common mistakes. Exit status 0 when everything matches, 1 otherwise.
"""

from __future__ import annotations

import importlib.util
import io
import multiprocessing
import os
import sys
import traceback

import numpy as np

VECTORS = "mha-selfcheck-vectors.npz"  # the download's name, looked for beside this script
STAGES = ("q", "k", "v", "scores", "scaled", "weights", "heads", "concat", "out")
PARAMS = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
GRADIENTS = ("d_x",) + tuple(f"d_{p}" for p in PARAMS)
SHAPES = {"q": "[h, n, d_k]", "k": "[kv_heads, n, d_k]", "v": "[kv_heads, n, d_k]", "scores": "[h, n, n]",
          "scaled": "[h, n, n]", "weights": "[h, n, n]", "heads": "[h, n, d_k]", "concat": "[n, d_model]"}
RTOL, ATOL = 1e-4, 1e-5  # the vectors are float32; atol is relative to the stage's largest value
FORWARD, BACKWARD = "multi_head_attention", "multi_head_attention_backward"
SIGNATURE = "(x, w_q, w_k, w_v, w_o, h, b_q=None, b_k=None, b_v=None, b_o=None, mask=None, kv_heads=None)"
TIME_LIMIT = 10.0  # seconds one call of the learner's function (or their module's import) may take
START_LIMIT = 120.0  # seconds a fresh Python with numpy may take to start, before the learner's code runs
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
    "scale_d_model": "the scores divided by sqrt(d_model): divide by sqrt(d_k), d_k = d_model / h, the width "
                     "of one head",
    "split_no_transpose": "heads split with a reshape and no transpose: [n, d_model] reshaped straight to "
                          "[h, n, d_k] mixes the tokens; reshape to [n, h, d_k], then move h first "
                          "(.transpose(1, 0, 2))",
    "merge_no_transpose": "heads concatenated in the wrong order: [h, n, d_k] reshaped straight to [n, d_model] "
                          "mixes the tokens; move n first (.transpose(1, 0, 2)), then reshape",
    "merge_strided": "heads concatenated in the wrong order (interleaved: column j*h + i from head i): head i's "
                     "output fills the contiguous columns i*d_k ... (i+1)*d_k - 1",
    "merge_reversed": "heads concatenated in reverse order: head 0's output comes first, in columns 0 ... d_k - 1",
    "no_w_o": "W_O left out: out = concat @ w_o + b_o, the output projection mixes the heads",
    "no_b_o": "the output bias dropped: out = concat @ w_o + b_o",
    "mask_inverted": "the mask's meaning inverted: True marks the keys a query may attend to; set the scores "
                     "to -inf where the mask is False",
    "causal_plus_one": "the causal mask off by one (each query also sees the next key): query i attends to keys "
                       "0 ... i, np.tril(np.ones((n, n), dtype=bool))",
    "causal_minus_one": "the causal mask off by one (a query does not see its own key, the first sees none): "
                        "query i attends to keys 0 ... i, itself included, np.tril(np.ones((n, n), dtype=bool))",
    "softmax_unstable": "softmax without its maximum subtracted: exp overflows on large scores (inf / inf = nan); "
                        "subtract each row's maximum first, s - s.max(axis=-1, keepdims=True)",
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
    file's path or the file's bytes; without one, the download beside this script. A file that cannot
    be read, or lacks an array or holds one of the wrong shape, is a Stop naming the file and what."""
    if path is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), VECTORS)
        if not os.path.exists(path):
            raise Stop(f"no test vectors: download {VECTORS} beside this script, or give its path after your module's")
    name = "made afresh" if isinstance(path, bytes) else path
    try:
        with np.load(io.BytesIO(path) if isinstance(path, bytes) else path, allow_pickle=False) as z:
            found: dict[str, dict[str, np.ndarray]] = {}
            for key in z.files:
                config, _, what = key.partition("/")
                found.setdefault(config, {})[what] = z[key]
    except Exception as e:  # noqa: BLE001 (a truncated or damaged file raises any of several errors)
        text = f"{type(e).__name__}: {e}".splitlines()[0]
        raise Stop(f"cannot read the test vectors {name}: {text} (download {VECTORS} again)") from None
    damage = _damage(found)
    if damage:
        raise Stop(f"the test vectors {name} are damaged: {damage} (download {VECTORS} again)")
    for v in found.values():
        for key in [k for k in v if k.startswith("grad/") and k.endswith(RIGHT)]:
            grad = key[len("grad/"):-len(RIGHT)]
            v[f"grad/{grad}"] = v[LEFT[grad]].astype(np.float64).T @ v.pop(key).astype(np.float64)
    return found


def _shapes(config: np.ndarray) -> dict[str, tuple]:
    """Every array a configuration must hold, and its shape (the gradients' apart)."""
    n, d, h, kv, bias, causal = (int(a) for a in config)
    d_k = d // h
    kv_w = kv * d_k
    shapes = {"x": (n, d), "d_out": (n, d), "w_q": (d, d), "w_k": (d, kv_w), "w_v": (d, kv_w), "w_o": (d, d)}
    if bias:
        shapes.update(b_q=(d,), b_k=(kv_w,), b_v=(kv_w,), b_o=(d,))
    if causal:
        shapes["mask"] = (n, n)
    per_stage = {"q": (h, n, d_k), "k": (kv, n, d_k), "v": (kv, n, d_k), "scores": (h, n, n), "scaled": (h, n, n),
                 "weights": (h, n, n), "heads": (h, n, d_k), "concat": (n, d), "out": (n, d)}
    shapes.update({f"expected/{s}": per_stage[s] for s in STAGES})
    shapes["grad/d_x"] = (n, d)
    for p in [q for q in PARAMS if q in shapes]:
        shapes[f"grad/d_{p}"] = shapes[p]
    return shapes


def _damage(found: dict[str, dict[str, np.ndarray]]) -> str | None:
    """What is wrong with the vectors as read (a missing array, a wrong shape or kind), or None."""
    if not found:
        return "they hold no configuration"
    for name, v in found.items():
        config = v.get("config")
        if config is None or config.shape != (6,) or config.dtype.kind not in "iu":
            return f"{name}/config is missing or not 6 whole numbers"
        n, d, h, kv, _, _ = (int(a) for a in config)
        if min(n, d, h, kv) < 1 or d % h or h % kv:
            return f"{name}/config holds impossible sizes {config.tolist()}"
        shapes = _shapes(config)
        for key, shape in shapes.items():
            got = v.get(key)
            if key.startswith("grad/d_w_") and got is None:  # kept as its factor of n rows
                key, got = key + RIGHT, v.get(key + RIGHT)
                shape = (n, shape[1])
            if got is None:
                return f"{name}/{key} is missing"
            if got.shape != shape:
                return f"{name}/{key} has shape {got.shape}, expected {shape}"
            if got.dtype.kind != ("b" if key == "mask" else "f"):
                return f"{name}/{key} holds {got.dtype}, expected {'booleans' if key == 'mask' else 'floats'}"
        for key, got in v.items():
            stage = key.rpartition("/")[2]
            if key.startswith("mistake/") and (got.shape != shapes.get(f"expected/{stage}") or got.dtype.kind != "f"):
                return f"{name}/{key} has shape {got.shape} of {got.dtype}, expected {shapes.get(f'expected/{stage}')}"
    return None


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
    except (Exception, SystemExit) as e:  # noqa: BLE001 (whatever the learner's file raises, in one line)
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


# --- the learner's code runs in a process of its own --------------------------------------------------
# The learner's module is imported, and its functions called, in a child process (multiprocessing's
# "spawn": a fresh Python, on every system), so that nothing it does there (exit, loop for ever, change
# this checker's functions) reaches the verdict, which only this process gives. The requests and the
# results cross a pipe as .npz bytes read with allow_pickle=False: what comes back is arrays of real
# numbers or one line of text, nothing that runs.

KEYWORD = "keyword."  # a request's keyword arguments, beside the positional x, w_q, w_k, w_v, w_o, h, d_out
_TIMEOUT, _DIED = object(), object()


def _pack(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _unpack(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _worker(conn, module_path: str) -> None:
    """The child: import the learner's module, say whether it has a backward pass, then answer each
    request with b"R" and the result's arrays, or b"E" and one line that says what went wrong."""
    conn.send_bytes(b"S")
    try:
        module = load_module(module_path)
    except Stop as e:
        conn.send_bytes(b"E" + str(e).encode("utf-8", "replace"))
        return
    conn.send_bytes(b"MB" if callable(getattr(module, BACKWARD, None)) else b"M")
    while True:
        try:
            request = _unpack(conn.recv_bytes())
        except EOFError:
            return
        conn.send_bytes(_answer(module, module_path, request))


def _answer(module, path: str, request: dict[str, np.ndarray]) -> bytes:
    function = str(request.pop("function"))
    args = [request.pop(p) for p in ("x", "w_q", "w_k", "w_v", "w_o")] + [int(request.pop("h"))]
    if "d_out" in request:
        args.append(request.pop("d_out"))
    keywords = {k[len(KEYWORD):]: int(a) if k == KEYWORD + "kv_heads" else a for k, a in request.items()}
    try:
        result = getattr(module, function)(*args, **keywords)
    except TypeError as e:
        if "unexpected keyword argument" in str(e):
            line = (f"not run: {function} takes no {str(e).split('argument')[-1].strip()} "
                    f"(the signature is {function}{SIGNATURE})")
        else:
            line = f"{function} raised {_one_line(e, path)}"
        return b"E" + line.encode("utf-8", "replace")
    except (Exception, SystemExit) as e:  # noqa: BLE001 (whatever the learner's code raises, in one line)
        return b"E" + f"{function} raised {_one_line(e, path)}".encode("utf-8", "replace")
    arrays = _plain_result(function, result, args[0].shape)
    return b"E" + arrays.encode("utf-8", "replace") if isinstance(arrays, str) else b"R" + _pack(arrays)


def _plain(value) -> np.ndarray | str:
    """value as an array of float64, or what it is instead ("str", "complex numbers", ...)."""
    if value is None or isinstance(value, (str, bytes)):
        return "None" if value is None else type(value).__name__
    try:
        a = np.asarray(value)
    except Exception:  # noqa: BLE001 (a ragged list, an object whose __array__ fails)
        return type(value).__name__
    if a.dtype.kind == "c":
        return "complex numbers"
    if a.dtype.kind not in "biuf":
        return type(value).__name__ if not isinstance(value, np.ndarray) else f"an array of {a.dtype}"
    return a.astype(np.float64)


def _plain_result(function: str, result, shape: tuple) -> dict[str, np.ndarray] | str:
    """The stages (or gradients) a function returned, as arrays of float64; or the one line that
    says what was expected instead."""
    n, d_model = shape
    if function == BACKWARD:
        if not isinstance(result, dict):
            return f"{BACKWARD} returned {_plain(result) if result is None else type(result).__name__}, " \
                   f"expected a dict of gradients (\"d_x\", \"d_w_q\", ...)"
        wanted, whole = GRADIENTS, False
    else:
        if isinstance(result, tuple) and result:  # (out, weights), as some write it
            result = result[0]
        whole = not isinstance(result, dict)
        if whole:
            result = {"out": result}
        elif "out" not in result:
            return f"{FORWARD} returned a dict without \"out\" (its keys: {', '.join(map(str, result))})"
        wanted = STAGES
    found = {}
    for key in (k for k in wanted if k in result and (whole or result[k] is not None)):
        a = _plain(result[key])
        if isinstance(a, np.ndarray):
            found[key] = a
            continue
        what = f"{function} returned {a}" if whole else f"{function} returned \"{key}\" as {a}"
        real = "real floats, " if a == "complex numbers" else ""
        return what + (f"; expected {real}a numpy array of shape ({n}, {d_model}) (or a dict of stages)" if whole
                       else f"; expected {real}a numpy array")
    return found


class Learner:
    """The learner's module in a child process; call() runs one of its functions there, within the
    time limit, and gives back its arrays or the one line that says what went wrong."""

    def __init__(self, path: str, limit: float = TIME_LIMIT):
        self.path, self.limit = path, limit
        self.process = self.conn = None
        self.backward = False
        self._idle = True

    def start(self) -> None:
        """A fresh child with the module imported; Stop with one line when it cannot be."""
        self._idle = True
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child, self.path), daemon=True)
        self.process.start()
        child.close()
        started = self._receive(START_LIMIT)
        got = self._receive(self.limit) if started == b"S" else started
        if got is _TIMEOUT:
            self._idle = False
            self.stop()
            raise Stop(f"cannot import {self.path}: it did not finish within {self.limit:g} s "
                       f"(an endless loop at its top level? --time-limit SECONDS gives it longer)")
        if got is _DIED or not isinstance(got, bytes) or got[:1] not in (b"E", b"M"):
            code = self.stop()
            raise Stop(f"cannot import {self.path}: its process ended (exit status {code}) while importing it")
        if got[:1] == b"E":
            self.stop()
            raise Stop(_line(got[1:]))
        self.backward = got == b"MB"

    def call(self, function: str, request: dict[str, np.ndarray]) -> dict[str, np.ndarray] | str:
        if self.process is None:
            self.start()
        try:
            self.conn.send_bytes(_pack({"function": np.array(function), **request}))
        except (OSError, ValueError):  # the child is gone
            got = _DIED
        else:
            got = self._receive(self.limit)
        if got is _TIMEOUT:
            self._idle = False
            self.stop()
            return (f"{function} did not return within {self.limit:g} s and was stopped "
                    f"(an endless loop? --time-limit SECONDS gives it longer)")
        if got is _DIED:
            return f"{function} ended its process (exit status {self.stop()}) without returning a result"
        if got[:1] == b"E":
            return _line(got[1:])
        try:
            arrays = _unpack(got[1:]) if got[:1] == b"R" else None
        except Exception:  # noqa: BLE001 (anything but arrays of numbers is refused below)
            arrays = None
        if arrays is None or any(a.dtype.kind not in "biuf" for a in arrays.values()):
            return f"{function} gave back something other than arrays of real numbers"
        return {k: a.astype(np.float64) for k, a in arrays.items()}

    def _receive(self, limit: float):
        try:
            return self.conn.recv_bytes() if self.conn.poll(limit) else _TIMEOUT
        except (EOFError, OSError):
            return _DIED

    def stop(self) -> int | None:
        """End the child (killed if it still runs); its exit status."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        self.conn.close()  # a child waiting for the next request ends; a busy one is killed
        process.join(5.0 if process.is_alive() and self._idle else 0)
        if process.is_alive():
            process.kill()
            process.join()
        return process.exitcode


def _line(data: bytes) -> str:
    return (data.decode("utf-8", "replace").splitlines() or ["(an empty message)"])[0]


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
    """Entry by entry, whether got is expected within the tolerance (and True outside `where`); nan
    matches nan and inf the same inf, as a stored mistake may hold them. The tolerance is relative to
    the stage's largest finite value."""
    finite = np.abs(expected[np.isfinite(expected)])
    atol = ATOL * max(1.0, float(np.max(finite, initial=0.0)))
    ok = np.isclose(got, expected, rtol=RTOL, atol=atol, equal_nan=True)
    return ok if where is None else ok | ~where


def _compare(name, v, stage, expected, got, where=None) -> str | None:
    """None when got matches, else the report's line for it. Where got holds nan or inf (and the
    stage's `where` allows a value), the line says so first: a number compared with nan says nothing."""
    h = int(v["config"][2])
    expected = _fit(stage, expected, got, h)
    if got.shape != expected.shape:
        return f"{stage} has shape {got.shape}, expected {expected.shape}" + (
            f" = {SHAPES[stage]}" if stage in SHAPES else "")
    allowed = np.ones(got.shape, dtype=bool) if where is None else np.broadcast_to(where, got.shape)
    bad = ~np.isfinite(got) & allowed
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        count = int(bad.sum())
        return (f"{stage} is not finite at {_index(stage, got.shape, first)}: got {got.flat[first]}, expected "
                f"{expected.flat[first]:.6g} ({count} of {got.size} entries are nan or inf)")
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


def _request(args: tuple, keywords: dict, d_out: np.ndarray | None = None) -> dict[str, np.ndarray]:
    request = dict(zip(("x", "w_q", "w_k", "w_v", "w_o"), args[:5]), h=np.array(args[5]))
    request.update({KEYWORD + k: np.asarray(a) for k, a in keywords.items()})
    return request if d_out is None else {**request, "d_out": d_out}


def check_config(learner: Learner, name: str, v: dict[str, np.ndarray]) -> list[str]:
    """The report's lines for one configuration: [] when every stage and gradient matches."""
    args, keywords = _arguments(v)
    stages = learner.call(FORWARD, _request(args, keywords))
    if isinstance(stages, str):
        return [stages]
    n, d_model = int(v["config"][0]), int(v["config"][1])
    mask = v.get("mask")
    for stage in (s for s in STAGES if s in stages):
        got = stages[stage]
        expected = v[f"expected/{stage}"]
        if stage == "out" and got.shape != expected.shape:
            return [f"wrong shape: {FORWARD} returned out of shape {got.shape}, expected {expected.shape} "
                    f"= [n, d_model] = [{n}, {d_model}]"]
        where = mask if stage == "scaled" and mask is not None else None  # masked entries may hold anything
        line = _compare(name, v, stage, expected, got, where)
        if line is not None and " has shape " in line:  # a stage of the wrong shape is no common mistake
            return [line]
        if line is not None:
            cause = likely(v, stage, got, where)
            return [line] + ([f"most likely: {cause}"] if cause else
                             ["no common mistake matches this stage: compare it by hand with the vectors"])
    return check_backward(learner, v, args, keywords) if learner.backward else []


def check_backward(learner: Learner, v, args, keywords) -> list[str]:
    grads = learner.call(BACKWARD, _request(args, keywords, v["d_out"].astype(np.float64)))
    if isinstance(grads, str):
        return [grads]
    for g in GRADIENTS:
        expected = v.get(f"grad/{g}")
        if expected is None:
            continue
        if g not in grads:
            return [f"{BACKWARD} returned no \"{g}\""]
        line = _compare("", v, g, expected, grads[g])
        if line is not None:
            return ["gradient " + line]
    return []


def run(module_path: str, vectors_path: str | bytes | None = None, out=sys.stdout,
        time_limit: float = TIME_LIMIT) -> int:
    """Check the module on every configuration, print the report; 0 when everything matches. The
    module runs in a process of its own (Learner); each call may take time_limit seconds."""
    learner = Learner(module_path, time_limit)
    try:
        if not os.path.isfile(module_path):
            raise Stop(f"no file {module_path}")
        vectors = load_vectors(vectors_path)
        learner.start()
        failed = 0
        for name, v in vectors.items():
            lines = check_config(learner, name, v)
            failed += bool(lines)
            what = "every stage given and every gradient" if learner.backward else "every stage given"
            print(f"{name} ({describe(v)}): " + (lines[0] if lines else f"{what} matches"), file=out)
            for line in lines[1:]:
                print(f"    {line}", file=out)
    except Stop as e:
        print(e, file=out)
        return 1
    finally:
        learner.stop()
    print(f"{len(vectors) - failed} of {len(vectors)} configurations match"
          + ("" if learner.backward else f" (no {BACKWARD}: gradients not checked)"), file=out)
    return 1 if failed else 0


USAGE = f"usage: python -m mha_ref.selfcheck [--time-limit SECONDS] my_module.py [{VECTORS}]"


def main(argv: list[str] | None = None, vectors=None) -> int:
    """The command: [--time-limit SECONDS] my_module.py [vectors.npz]; `vectors` (the file's bytes, or
    a function that makes them) stands in for a missing path."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    limit = TIME_LIMIT
    if argv[:1] == ["--time-limit"] or (argv and argv[0].startswith("--time-limit=")):
        value = argv[0].partition("=")[2] if "=" in argv[0] else (argv[1] if len(argv) > 1 else "")
        argv = argv[1:] if "=" in argv[0] else argv[2:]
        try:
            limit = float(value)
        except ValueError:
            limit = float("nan")
        if not limit > 0 or limit == float("inf"):
            print(f"--time-limit takes a number of seconds above 0, got {value!r}")
            return 1
    if len(argv) not in (1, 2) or argv[0].startswith("-"):
        print(USAGE)
        return 1
    if len(argv) == 2:
        vectors = argv[1]
    elif callable(vectors):
        vectors = vectors()
    return run(argv[0], vectors, time_limit=limit)


if __name__ == "__main__":
    sys.exit(main())
