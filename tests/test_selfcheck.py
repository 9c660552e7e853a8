"""The self-check for a learner's own implementation (mha_ref/selfcheck/check.py) and its test vectors
(mha_ref/vectors.py): a correct module passes, each common mistake is caught at its stage and named,
a module that cannot run gets one clear line, and the vectors are mha_ref's own numbers."""

from __future__ import annotations

import ast
import io
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mha_ref
from mha_ref import selfcheck, vectors

ROOT = Path(__file__).resolve().parents[1]

# A learner's module, written from the maths in plain numpy; each MISTAKE line below swaps one line of it.
LEARNER = '''
import numpy as np

def softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)

def split(a, heads):                       # [n, heads * d_k] -> [heads, n, d_k]
    n, width = a.shape
    return a.reshape(n, heads, width // heads).transpose(1, 0, 2)

def multi_head_attention(x, w_q, w_k, w_v, w_o, h, b_q=None, b_k=None, b_v=None, b_o=None,
                         mask=None, kv_heads=None):
    kv_heads = kv_heads or h
    zero = 0.0
    q = split(x @ w_q + (zero if b_q is None else b_q), h)
    k = split(x @ w_k + (zero if b_k is None else b_k), kv_heads)
    v = split(x @ w_v + (zero if b_v is None else b_v), kv_heads)
    k_all, v_all = np.repeat(k, h // kv_heads, axis=0), np.repeat(v, h // kv_heads, axis=0)
    d_k = q.shape[-1]
    scores = q @ k_all.transpose(0, 2, 1)
    scaled = scores / np.sqrt(d_k)
    allowed = np.ones(scaled.shape[-2:], dtype=bool) if mask is None else mask
    weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)
    heads = weights @ v_all
    concat = heads.transpose(1, 0, 2).reshape(x.shape[0], -1)
    out = concat @ w_o + (zero if b_o is None else b_o)
    return STAGES
'''
EVERY_STAGE = ('dict(q=q, k=k, v=v, scores=scores, scaled=scaled, weights=weights, heads=heads, concat=concat, '
               'out=out)')

# mistake -> (the right line, the wrong one, the stage it first shows in)
MISTAKE = {
    "transpose": ("scores = q @ k_all.transpose(0, 2, 1)", "scores = q @ k_all", "scores"),
    "no_scale": ("scaled = scores / np.sqrt(d_k)", "scaled = scores", "scaled"),
    "strided_split": ("return a.reshape(n, heads, width // heads).transpose(1, 0, 2)",
                      "return a.reshape(n, width // heads, heads).transpose(2, 0, 1)", "q"),
    "softmax_axis": ("weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)",
                     "weights = softmax(np.where(allowed, scaled, -np.inf), axis=-2)", "weights"),
    "mask_after_softmax": ("weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)",
                           "weights = np.where(allowed, softmax(scaled, axis=-1), 0.0)", "weights"),
    "keys_as_values": ("v = split(x @ w_v + (zero if b_v is None else b_v), kv_heads)",
                       "v = split(x @ w_k + (zero if b_k is None else b_k), kv_heads)", "v"),
    "scale_d_model": ("scaled = scores / np.sqrt(d_k)", "scaled = scores / np.sqrt(x.shape[1])", "scaled"),
    "split_no_transpose": ("return a.reshape(n, heads, width // heads).transpose(1, 0, 2)",
                           "return a.reshape(heads, n, width // heads)", "q"),
    "merge_no_transpose": ("concat = heads.transpose(1, 0, 2).reshape(x.shape[0], -1)",
                           "concat = heads.reshape(x.shape[0], -1)", "concat"),
    "merge_strided": ("concat = heads.transpose(1, 0, 2).reshape(x.shape[0], -1)",
                      "concat = heads.transpose(1, 2, 0).reshape(x.shape[0], -1)", "concat"),
    "merge_reversed": ("concat = heads.transpose(1, 0, 2).reshape(x.shape[0], -1)",
                       "concat = np.concatenate(list(heads)[::-1], axis=-1)", "concat"),
    "no_w_o": ("out = concat @ w_o + (zero if b_o is None else b_o)", "out = concat + (zero if b_o is None else b_o)",
               "out"),
    "no_b_o": ("out = concat @ w_o + (zero if b_o is None else b_o)", "out = concat @ w_o", "out"),
    "mask_inverted": ("weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)",
                      "weights = softmax(scaled if mask is None else np.where(mask, -np.inf, scaled), axis=-1)",
                      "weights"),
    "causal_plus_one": ("allowed = np.ones(scaled.shape[-2:], dtype=bool) if mask is None else mask",
                        "allowed = np.ones(scaled.shape[-2:], dtype=bool) if mask is None else "
                        "np.tril(np.ones_like(mask), k=1)", "weights"),
    "causal_minus_one": ("allowed = np.ones(scaled.shape[-2:], dtype=bool) if mask is None else mask",
                         "allowed = np.ones(scaled.shape[-2:], dtype=bool) if mask is None else "
                         "np.tril(np.ones_like(mask), k=-1)", "weights"),
    "softmax_unstable": ("e = np.exp(s - s.max(axis=axis, keepdims=True))", "e = np.exp(s)", "weights"),
}


@pytest.fixture(scope="module")
def npz(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("vectors") / selfcheck.VECTORS
    path.write_bytes(vectors.npz_bytes())
    return path


def learner(tmp_path: Path, source: str, name: str = "mine.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def report(module: Path, npz: Path) -> tuple[int, str]:
    out = io.StringIO()
    status = selfcheck.run(str(module), str(npz), out=out)
    return status, out.getvalue()


@pytest.mark.parametrize("returns", ["out", EVERY_STAGE, EVERY_STAGE.replace("k=k, v=v", "k=k_all, v=v_all")])
def test_a_correct_module_passes_every_configuration(tmp_path, npz, returns):
    status, text = report(learner(tmp_path, LEARNER.replace("STAGES", returns)), npz)
    assert status == 0, text
    assert f"{len(vectors.CONFIGS)} of {len(vectors.CONFIGS)} configurations match" in text


def _named(text: str) -> tuple[list[str], list[str]]:
    """The report's lines for the configurations where a stage differs, and the line under each (a
    configuration where the function raises, as a forgotten transpose does where d_k != n, names none)."""
    lines = text.splitlines()[:-1]
    failed = [i for i, line in enumerate(lines) if " differs first at " in line or " is not finite at " in line]
    return [lines[i] for i in failed], [lines[i + 1].strip() if i + 1 < len(lines) else "" for i in failed]


def test_every_mistake_the_checker_names_is_tested():
    assert set(MISTAKE) == set(selfcheck.MISTAKES)


@pytest.mark.parametrize("mistake", sorted(MISTAKE))
def test_each_common_mistake_is_caught_at_its_stage_and_named(tmp_path, npz, mistake):
    """A module with exactly this one mistake: every configuration it fails names it, at its stage."""
    right, wrong, stage = MISTAKE[mistake]
    assert LEARNER.count(right) == 1
    source = LEARNER.replace(right, wrong).replace("STAGES", EVERY_STAGE)
    status, text = report(learner(tmp_path, source), npz)
    assert status == 1
    failed, under = _named(text)
    assert failed and all(line == f"most likely: {selfcheck.MISTAKES[mistake]}" for line in under), text
    for line in failed:
        assert f"): {stage} differs first at" in line or f"): {stage} is not finite at" in line, text


@pytest.mark.parametrize("mistake", sorted(MISTAKE))
def test_a_mistake_is_named_from_the_output_alone(tmp_path, npz, mistake):
    right, wrong, _ = MISTAKE[mistake]
    status, text = report(learner(tmp_path, LEARNER.replace(right, wrong).replace("STAGES", "out")), npz)
    failed, under = _named(text)
    assert status == 1 and failed and all(line == f"most likely: {selfcheck.MISTAKES[mistake]}" for line in under), text


def test_the_report_says_where_and_by_how_much(tmp_path, npz):
    source = LEARNER.replace(MISTAKE["no_scale"][0], MISTAKE["no_scale"][1]).replace("STAGES", EVERY_STAGE)
    text = report(learner(tmp_path, source), npz)[1]
    line = next(line for line in text.splitlines() if line.startswith("small ("))
    v = selfcheck.load_vectors(str(npz))["small"]
    scaled = v["expected/scaled"]  # first entry differs: every scaled score is off by sqrt(d_k)
    got = v["expected/scores"]
    worst = np.max(np.abs(got - scaled))
    assert (f"scaled differs first at head 0, row 0, column 0: expected {scaled[0, 0, 0]:.6g}, "
            f"got {got[0, 0, 0]:.6g} (largest difference {worst:.3g})") in line


def test_a_module_that_does_not_import_gets_one_line(tmp_path, npz):
    status, text = report(learner(tmp_path, "import numpy as np\ndef multi_head_attention(x:\n"), npz)
    assert status == 1
    assert text.strip().count("\n") == 0 and text.startswith("cannot import ") and "SyntaxError" in text
    status, text = report(learner(tmp_path, "import numpy as np\nraise RuntimeError('boom')\n"), npz)
    assert text.strip() == f"cannot import {tmp_path / 'mine.py'}: RuntimeError: boom (mine.py, line 2)"


def test_a_missing_function_gets_one_line(tmp_path, npz):
    status, text = report(learner(tmp_path, "def attention(q, k, v):\n    return q\n"), npz)
    assert status == 1
    assert text.strip() == (f"{tmp_path / 'mine.py'} defines no function multi_head_attention{selfcheck.SIGNATURE}")


def test_a_wrong_shape_gets_one_line_per_configuration(tmp_path, npz):
    source = LEARNER.replace("STAGES", "concat[:, :1]")
    status, text = report(learner(tmp_path, source), npz)
    assert status == 1
    c = vectors.CONFIGS[0]
    assert (f"wrong shape: multi_head_attention returned out of shape ({c.n}, 1), expected ({c.n}, {c.d_model}) "
            f"= [n, d_model] = [{c.n}, {c.d_model}]") in text


def test_a_function_without_kv_heads_is_told_so(tmp_path, npz):
    source = LEARNER.replace("mask=None, kv_heads=None)", "mask=None)").replace("kv_heads = kv_heads or h", "kv_heads = h")
    status, text = report(learner(tmp_path, source.replace("STAGES", "out")), npz)
    assert status == 1
    assert "grouped-kv (" in text and "not run: multi_head_attention takes no 'kv_heads'" in text
    assert f"{len(vectors.CONFIGS) - 1} of {len(vectors.CONFIGS)} configurations match" in text


BACKWARD = '''
def multi_head_attention_backward(x, w_q, w_k, w_v, w_o, h, d_out, b_q=None, b_k=None, b_v=None, b_o=None,
                                  mask=None, kv_heads=None):
    from mha_ref import MHAParams, multi_head_attention_backward as ref
    p = MHAParams(w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o)
    d_p, d_x = ref(x, p, h, d_out, mask=mask, kv_heads=kv_heads)
    found = {"d_" + name: g for name, g in zip(MHAParams._fields, d_p) if g is not None}
    found["d_x"] = d_x SCALE
    found[WEIGHT] = found[WEIGHT] WRONG
    return found
'''


def _backward(scale: str = "", weight: str = "d_w_q", wrong: str = "") -> str:
    return BACKWARD.replace(" SCALE", scale).replace("WEIGHT", repr(weight)).replace(" WRONG", wrong)


def test_gradients_are_checked_when_the_module_has_a_backward(tmp_path, npz):
    forward = LEARNER.replace("STAGES", "out")
    status, text = report(learner(tmp_path, forward + _backward()), npz)
    assert status == 0 and "every stage given and every gradient matches" in text, text
    status, text = report(learner(tmp_path, forward + _backward(scale=" * 2")), npz)
    assert status == 1 and "gradient d_x differs first at row 0, column 0" in text, text


@pytest.mark.parametrize("weight", ["d_w_q", "d_w_k", "d_w_v", "d_w_o"])
def test_each_weights_gradient_is_checked(tmp_path, npz, weight):
    """Kept as a factor in the file, multiplied out by the checker: still compared, every entry."""
    forward = LEARNER.replace("STAGES", "out")
    status, text = report(learner(tmp_path, forward + _backward(weight=weight, wrong=" * 1.001")), npz)
    assert status == 1 and f"gradient {weight} differs" in text, text


def test_the_vectors_are_mha_refs_numbers(npz):
    """Recomputed here from mha_ref's public calls, not read back from vectors.arrays()."""
    found = selfcheck.load_vectors(str(npz))
    assert list(found) == [c.name for c in vectors.CONFIGS]
    for c in vectors.CONFIGS:
        v = found[c.name]
        p = mha_ref.MHAParams(*(v[name].astype(np.float64) if name in v else None for name in mha_ref.MHAParams._fields))
        x, mask = v["x"].astype(np.float64), v.get("mask")
        assert (mask is not None) == c.causal and (p.b_q is not None) == c.bias
        assert (mask is None) or (mask == np.tril(np.ones((c.n, c.n), dtype=bool))).all()
        out, weights = mha_ref.multi_head_attention_loop(x, p, c.h, mask=mask, kv_heads=c.kv_heads)
        t = mha_ref.mha_trace(x, p, c.h, mask=mask, kv_heads=c.kv_heads)
        np.testing.assert_allclose(v["expected/out"], out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v["expected/weights"], weights, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v["expected/q"], t.q, rtol=1e-5, atol=1e-6)
        group = c.h // (c.kv_heads or c.h)
        np.testing.assert_allclose(np.repeat(v["expected/v"], group, axis=0), t.v, rtol=1e-5, atol=1e-6)
        allowed = np.isfinite(t.scores)
        np.testing.assert_allclose(v["expected/scaled"][allowed], t.scores[allowed], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v["expected/scaled"] * math.sqrt(c.d_model // c.h), v["expected/scores"], rtol=1e-5)
        d_p, d_x = mha_ref.multi_head_attention_backward(x, p, c.h, v["d_out"].astype(np.float64), mask=mask,
                                                         kv_heads=c.kv_heads)
        np.testing.assert_allclose(v["grad/d_x"], d_x, rtol=1e-5, atol=1e-6)
        for name, g in zip(mha_ref.MHAParams._fields, d_p):
            assert (f"grad/d_{name}" in v) == (g is not None)
            if g is not None:
                np.testing.assert_allclose(v[f"grad/d_{name}"], g, rtol=1e-5, atol=1e-6)


def test_a_weights_gradient_is_kept_as_its_factor_of_n_rows(npz):
    """The file keeps d_w = input^T @ right as `right` (n rows, not d_model): at the published width
    that is what made the file 6 MB; load_vectors multiplies it out (test_the_vectors_are_mha_refs_numbers)."""
    with np.load(npz, allow_pickle=False) as z:
        for c in vectors.CONFIGS:
            for w in ("w_q", "w_k", "w_v", "w_o"):
                assert f"{c.name}/grad/d_{w}" not in z.files
                assert z[f"{c.name}/grad/d_{w}{selfcheck.check.RIGHT}"].shape[0] == c.n


def test_the_vectors_cover_what_the_issue_asks():
    hs = {c.h for c in vectors.CONFIGS}
    assert min(hs) == 1 and 8 in hs
    assert any(c.kv_heads and c.kv_heads < c.h for c in vectors.CONFIGS)
    assert {c.causal for c in vectors.CONFIGS} == {True, False} and {c.bias for c in vectors.CONFIGS} == {True, False}
    assert any(c.h >= 3 and c.bias for c in vectors.CONFIGS)  # heads in the wrong order; the output bias dropped
    assert any(c.key_bias for c in vectors.CONFIGS)  # large scores: an unstable softmax
    published = mha_ref.models.model("Transformer base")
    assert any((c.d_model, c.h) == (published.d_model, published.heads) for c in vectors.CONFIGS)


def test_only_large_scores_separate_a_softmax_without_its_maximum_subtracted(tmp_path, npz):
    """The configurations an unstable softmax fails are those whose scaled scores overflow or underflow
    exp in float64: at least one, and a stable softmax passes them (test_a_correct_module_passes...)."""
    right, wrong, _ = MISTAKE["softmax_unstable"]
    text = report(learner(tmp_path, LEARNER.replace(right, wrong).replace("STAGES", "out")), npz)[1]
    failed = {line.split(" (", 1)[0] for line in _named(text)[0]}
    with np.errstate(over="ignore"):
        large = {name for name, v in selfcheck.load_vectors(str(npz)).items()
                 if not np.all(np.isfinite(np.exp(v["expected/scaled"].astype(np.float64)))
                               & (np.exp(v["expected/scaled"].astype(np.float64)).max(axis=-1) > 0)[..., None])}
    assert failed == large and large, text


def test_the_file_is_the_same_bytes_each_time_and_unpacks_readable_by_all():
    assert vectors.npz_bytes() == vectors.npz_bytes()
    import zipfile
    with zipfile.ZipFile(io.BytesIO(vectors.npz_bytes())) as z:
        assert {i.external_attr for i in z.infolist()} == {0o644 << 16}  # rw-r--r--, whatever the umask


def test_the_script_imports_nothing_but_numpy_and_the_standard_library():
    tree = ast.parse((ROOT / "mha_ref" / "selfcheck" / "check.py").read_text(encoding="utf-8"))
    top = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    top |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert not relative
    assert top - {"numpy"} <= sys.stdlib_module_names


def test_the_module_runs_as_a_command_on_its_own(tmp_path, npz):
    """The downloaded script: a copy of the file outside the repository, the vectors beside it."""
    script = tmp_path / "mha_selfcheck.py"
    script.write_bytes((ROOT / "mha_ref" / "selfcheck" / "check.py").read_bytes())
    (tmp_path / selfcheck.VECTORS).write_bytes(npz.read_bytes())
    mine = learner(tmp_path, LEARNER.replace("STAGES", "out"))
    run = subprocess.run([sys.executable, "-I", str(script), str(mine)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(vectors.CONFIGS)} of {len(vectors.CONFIGS)} configurations match" in run.stdout


def test_in_the_repository_it_runs_as_a_module_on_vectors_made_afresh(tmp_path):
    mine = learner(tmp_path, LEARNER.replace(MISTAKE["keys_as_values"][0], MISTAKE["keys_as_values"][1])
                   .replace("STAGES", "out"))
    run = subprocess.run([sys.executable, "-m", "mha_ref.selfcheck", str(mine)], capture_output=True, text=True,
                         cwd=ROOT)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"most likely: {selfcheck.MISTAKES['keys_as_values']}" in run.stdout


@pytest.mark.parametrize("root", ["", "en/"])
def test_the_built_pages_link_the_two_downloads_and_they_work(site, root, tmp_path):
    """Both languages' the-code and reference pages link the vectors and the script; the script
    downloaded beside the vectors passes a correct module."""
    from built_pages import parsed

    found = {}
    for page in ("the-code", "reference"):
        html = parsed(site / root / page / "index.html")
        hrefs = {a["href"] for a in html.select("article a[href]") if "downloads/" in a["href"]}
        linked = {href.rsplit("/", 1)[1]: (site / root / page / href).resolve() for href in hrefs}
        assert {selfcheck.VECTORS, "mha_selfcheck.py"} <= set(linked), (page, hrefs)
        found.update(linked)
    assert found["mha_selfcheck.py"].read_bytes() == (ROOT / "mha_ref" / "selfcheck" / "check.py").read_bytes()
    for name in (selfcheck.VECTORS, "mha_selfcheck.py"):
        (tmp_path / name).write_bytes(found[name].read_bytes())
    mine = learner(tmp_path, LEARNER.replace("STAGES", "out"))
    run = subprocess.run([sys.executable, "-I", str(tmp_path / "mha_selfcheck.py"), str(mine)], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_warm_build_reads_the_vectors_from_the_cache(tmp_path, monkeypatch):
    from figures.publish import selfcheck_files
    from figures.keep import disk

    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    cold = selfcheck_files.files()
    assert [p.suffixes for p in (tmp_path / "selfcheck").iterdir() if not p.name.startswith(".")] == [[".npz", disk.SEALED]]

    def computed_again():
        raise AssertionError("the vectors were computed again")

    monkeypatch.setattr(vectors, "npz_bytes", computed_again)
    assert selfcheck_files.files() == cold


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pages_table_names_the_configurations_as_the_report_does(tmp_path, npz, lang):
    from figures.site.tables import table_markdown

    text = report(learner(tmp_path, LEARNER.replace("STAGES", "out")), npz)[1]
    reported = [line.split(" (", 1)[0] for line in text.splitlines()[:-1]]
    rows = table_markdown("selfcheck-configs", lang, "test").splitlines()[2:]
    assert [r.split("|")[1].strip().strip("`") for r in rows] == reported
    for row, line in zip(rows, text.splitlines()):
        n, d_model, h = (int(c) for c in row.split("|")[2:5])
        assert f"n={n}, d_model={d_model}, h={h}" in line


# --- the learner's code runs in a process of its own: nothing it does decides the verdict -------------

CORRECT = LEARNER.replace("STAGES", "out")
LIMIT = "1"  # seconds a call may take in these tests: a correct call takes milliseconds


@pytest.fixture(scope="module")
def one_config(npz, tmp_path_factory) -> Path:
    """The vectors of the first configuration alone ("small": n=4, d_model=8, h=2), so that a module
    that loops for ever costs one time limit, not one per configuration."""
    with np.load(npz, allow_pickle=False) as z:
        small = {k: z[k] for k in z.files if k.startswith(f"{vectors.CONFIGS[0].name}/")}
    path = tmp_path_factory.mktemp("one") / "one.npz"
    path.write_bytes(vectors.npz_bytes(small))
    return path


def as_a_learner(module: Path, npz: Path, *options: str, standalone: Path | None = None) -> tuple[int, str]:
    """The command a learner types, in its own process: `python -m mha_ref.selfcheck`, or the downloaded
    copy of the checker (standalone: its folder); exit status and everything it printed."""
    command = ([sys.executable, "-I", str(standalone / "mha_selfcheck.py")] if standalone else
               [sys.executable, "-m", "mha_ref.selfcheck"])
    run = subprocess.run([*command, *options, str(module), str(npz)], capture_output=True, text=True,
                         cwd=standalone or ROOT, timeout=120)
    return run.returncode, run.stdout + run.stderr


def _standalone(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "mha_selfcheck.py").write_bytes((ROOT / "mha_ref" / "selfcheck" / "check.py").read_bytes())
    return folder


def _first_line(text: str) -> str:
    return text.splitlines()[0].split("): ", 1)[1]


@pytest.mark.parametrize("standalone", [False, True])
def test_an_endless_loop_is_stopped_at_the_time_limit(tmp_path, one_config, standalone):
    source = CORRECT.replace("    kv_heads = kv_heads or h\n", "    kv_heads = kv_heads or h\n    while True:\n        pass\n")
    status, text = as_a_learner(learner(tmp_path, source), one_config, "--time-limit", LIMIT,
                                standalone=_standalone(tmp_path / "dl") if standalone else None)
    assert status == 1, text
    assert _first_line(text) == ("multi_head_attention did not return within 1 s and was stopped "
                                 "(an endless loop? --time-limit SECONDS gives it longer)"), text
    assert text.splitlines()[-1] == "0 of 1 configurations match (no multi_head_attention_backward: gradients not checked)"


@pytest.mark.parametrize("exit_call, line", [
    ("sys.exit(0)", "multi_head_attention raised SystemExit: 0 (mine.py, line {line})"),
    ("os._exit(0)", "multi_head_attention ended its process (exit status 0) without returning a result"),
])
def test_exiting_inside_the_function_is_not_a_pass(tmp_path, one_config, exit_call, line):
    source = "import os, sys\n" + CORRECT.replace("    kv_heads = kv_heads or h\n", f"    {exit_call}\n")
    status, text = as_a_learner(learner(tmp_path, source), one_config)
    assert status == 1 and _first_line(text) == line.format(line=source.splitlines().index(f"    {exit_call}") + 1), text


@pytest.mark.parametrize("exit_call, line", [
    ("sys.exit(0)", "SystemExit: 0 (mine.py, line 2)"),
    ("os._exit(0)", "its process ended (exit status 0) while importing it"),
    ("while True: pass", "it did not finish within 1 s (an endless loop at its top level? "
                         "--time-limit SECONDS gives it longer)"),
])
def test_exiting_or_looping_while_imported_is_one_line(tmp_path, one_config, exit_call, line):
    mine = learner(tmp_path, "import os, sys\n" + exit_call + "\n" + CORRECT)
    status, text = as_a_learner(mine, one_config, "--time-limit", LIMIT)
    assert status == 1 and text.strip() == f"cannot import {mine}: {line}", text


FAKE = '''
import numpy as np

for module in list(sys.modules.values()):  # the checker, however it was loaded: make every comparison pass
    if hasattr(module, "likely") and hasattr(module, "MISTAKES"):
        module._compare = lambda *args, **kwargs: None
        module.close = lambda expected, got, where=None: np.ones(np.shape(got), dtype=bool)
        module.run = lambda *args, **kwargs: 0
        module.main = lambda *args, **kwargs: 0

def multi_head_attention(x, w_q, w_k, w_v, w_o, h, **keywords):
    return np.zeros_like(x)
'''


@pytest.mark.parametrize("how", ["import mha_ref.selfcheck.check", "import mha_selfcheck"])
def test_a_module_that_changes_the_checker_cannot_fake_a_pass(tmp_path, one_config, how):
    standalone = _standalone(tmp_path) if how == "import mha_selfcheck" else None
    found = "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"  # the checker's folder
    status, text = as_a_learner(learner(tmp_path, found + how + "\n" + FAKE), one_config, standalone=standalone)
    assert status == 1, text
    assert _first_line(text).startswith("out differs first at row 0, column 0: expected "), text


SHAPE = "expected a numpy array of shape (4, 8) (or a dict of stages)"


@pytest.mark.parametrize("returns, line", [
    ('"out"', f"multi_head_attention returned str; {SHAPE}"),
    ("object()", f"multi_head_attention returned object; {SHAPE}"),
    ("None", f"multi_head_attention returned None; {SHAPE}"),
    ("out.astype(complex)", f"multi_head_attention returned complex numbers; expected real floats, a numpy array "
                            "of shape (4, 8) (or a dict of stages)"),
    ('dict(out=out, weights="w")', 'multi_head_attention returned "weights" as str; expected a numpy array'),
    ("dict(out=out, weights=weights + 0j)", 'multi_head_attention returned "weights" as complex numbers; '
                                           "expected real floats, a numpy array"),
    ("dict(weights=weights)", 'multi_head_attention returned a dict without "out" (its keys: weights)'),
    ("dict(out=out, weights=weights[0])", "weights has shape (4, 4), expected (2, 4, 4) = [h, n, n]"),
])
def test_a_malformed_result_gets_one_line_that_says_what_was_expected(tmp_path, one_config, returns, line):
    out = io.StringIO()
    status = selfcheck.run(str(learner(tmp_path, LEARNER.replace("STAGES", returns))), str(one_config), out=out)
    assert status == 1
    assert out.getvalue().splitlines()[0] == f"small (n=4, d_model=8, h=2, biases, no mask): {line}", out.getvalue()
    assert len(out.getvalue().splitlines()) == 2


def _damaged(npz: Path, tmp_path: Path, how: str) -> Path:
    path = tmp_path / "damaged.npz"
    if how == "truncated":
        path.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])
        return path
    with np.load(npz, allow_pickle=False) as z:
        found = {k: z[k] for k in z.files}
    if how == "missing":
        del found["small/expected/out"]
    elif how == "shape":
        found["small/x"] = found["small/x"][:, :3]
    path.write_bytes(vectors.npz_bytes(found))
    return path


@pytest.mark.parametrize("how, what", [
    ("truncated", "cannot read the test vectors {path}: BadZipFile: File is not a zip file"),
    ("missing", "the test vectors {path} are damaged: small/expected/out is missing"),
    ("shape", "the test vectors {path} are damaged: small/x has shape (4, 3), expected (4, 8)"),
])
def test_a_damaged_vectors_file_says_so_in_one_line(tmp_path, one_config, how, what):
    path = _damaged(one_config, tmp_path, how)
    status, text = as_a_learner(learner(tmp_path, CORRECT), path)
    assert status == 1
    assert text.strip() == what.format(path=path) + f" (download {selfcheck.VECTORS} again)", text


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf"])
def test_a_bad_time_limit_is_one_line(tmp_path, one_config, value):
    out = io.StringIO()
    from contextlib import redirect_stdout
    with redirect_stdout(out):
        status = selfcheck.check.main(["--time-limit", value, str(learner(tmp_path, CORRECT)), str(one_config)])
    assert status == 1 and out.getvalue().strip() == f"--time-limit takes a number of seconds above 0, got {value!r}"


# --- nan and inf are reported as what they are, at the first stage that holds them --------------------

INVERTED = ("weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)",  # the last causal row: every key masked
            "weights = softmax(scaled if mask is None else np.where(mask, -np.inf, scaled), axis=-1)")


def test_nan_is_reported_as_nan_at_the_stage_it_first_appears(tmp_path, npz):
    source = LEARNER.replace(*INVERTED).replace("STAGES", EVERY_STAGE)
    status, text = report(learner(tmp_path, source), npz)
    assert status == 1
    v = selfcheck.load_vectors(str(npz))["one-head-causal"]
    n = int(v["config"][0])
    line = next(line for line in text.splitlines() if line.startswith("one-head-causal ("))
    assert line.endswith(f": weights is not finite at head 0, row {n - 1}, column 0: got nan, expected "
                         f"{v['expected/weights'][0, n - 1, 0]:.6g} ({n} of {n * n} entries are nan or inf)"), text


def test_inf_in_the_output_is_reported_as_inf(tmp_path, one_config):
    out = io.StringIO()
    assert selfcheck.run(str(learner(tmp_path, LEARNER.replace("STAGES", "out + np.inf"))), str(one_config), out=out) == 1
    expected = selfcheck.load_vectors(str(one_config))["small"]["expected/out"]
    assert out.getvalue().splitlines()[0].endswith(
        f": out is not finite at row 0, column 0: got inf, expected {expected[0, 0]:.6g} (32 of 32 entries are nan or inf)")
