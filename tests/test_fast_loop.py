"""The fast loop (the guide's `-m "not (build or browser or serve or slow or trained)"`): it checks the
frame each page opens on, in both languages, and never trains page 4's model, even in a process a
test starts; the whole suite checks every frame."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from frame_checks import checked_keys
from figures.engine import registry
from figures.engine.render import plan
from figures.keep import tiny_lm
from mha_ref.tiny import lm_train

ROOT = Path(__file__).resolve().parents[1]
FAST = "not (build or browser or serve or slow or trained)"
TRAINED = tiny_lm._trained.__wrapped__  # taken before the fast loop's guard stands in for it (conftest)


def _trains(fig_id: str) -> bool:
    return getattr(registry.get(fig_id), "PREPARE", None) is not None


def _opening_value(fig_id: str):
    control = registry.get(fig_id).CONTROL
    return None if control is None else control.start


def test_the_fast_loop_checks_each_figure_once_a_language_on_the_frame_its_page_opens_on():
    keys = checked_keys(trained=False, every=False)
    for lang in ("zh", "en"):
        frames = [f for f, l in keys if l == lang]
        assert sorted(f.fig_id for f in frames) == sorted(i for i in registry.ORDER if not _trains(i))
        assert all(f.value == _opening_value(f.fig_id) for f in frames), [f for f in frames if f.value != _opening_value(f.fig_id)]


def test_a_frame_a_test_names_is_checked_too_and_the_whole_suite_checks_every_frame():
    other = next(f for f in plan() if f.value is not None and f.value != _opening_value(f.fig_id) and not _trains(f.fig_id))
    assert (other, "en") in checked_keys(trained=False, every=False, named=frozenset({other}))
    assert (other, "en") not in checked_keys(trained=False, every=False)
    assert checked_keys() == [(f, lang) for lang in ("zh", "en") for f in plan()]


def test_collecting_the_fast_loop_keeps_one_frame_test_a_figure_and_language():
    """What pytest runs under the fast loop's -m: the frame tests of the opening frames only."""
    run = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "-m", FAST,
                          "tests/test_text_fits.py"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    ids = [line.split("[", 1)[1].rstrip("]") for line in run.stdout.splitlines() if "::test_no_text_is_cut" in line]
    expected = {f"{f.path('svg')}-{lang}" for f, lang in checked_keys(trained=False, every=False)}
    assert set(ids) == expected and len(ids) == len(expected), run.stdout[-2000:]


def test_with_mha_no_training_page_4s_model_is_refused_in_one_line_not_trained(monkeypatch, tmp_path):
    monkeypatch.setenv(tiny_lm.REFUSE, "1")
    with pytest.raises(tiny_lm.TrainingRefused, match=r"seed 3, .* MHA_NO_TRAINING=1") as refused:
        TRAINED(lm_train.CONFIG, 3, "a-digest-nothing-is-kept-under", tmp_path)
    assert "\n" not in str(refused.value)


def test_without_it_the_model_is_made(monkeypatch):
    monkeypatch.delenv(tiny_lm.REFUSE, raising=False)
    made = object()
    monkeypatch.setattr(tiny_lm.arithmetic, "run", lambda *args: made)  # stands in for the minutes of training
    assert TRAINED(lm_train.CONFIG, 3, "any", None) is made
