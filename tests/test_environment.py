"""Every MHA_* variable: its documented values work, anything else stops the build with one line that
names the variable and the values it takes (figures/keep/switches.py's readers, figures/site/environment.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from figures.site import environment, hooks
from figures.keep import disk, switches

ROOT = Path(__file__).resolve().parents[1]
# set by the build itself, for the processes it starts (figures/keep/disk.py): never a reader's to set;
# and the tests' own (tests/machine_cache.py), which no build reads
INTERNAL = {disk.UNWRITABLE_ENV, "MHA_TEST_CACHE"}


def variables_in_the_code() -> set[str]:
    """Every MHA_* name the code, its config and its benchmarks use."""
    found = set()
    for path in [ROOT / "mkdocs.yml", *(p for d in ("figures", "mha_ref", "bench") for p in (ROOT / d).rglob("*")
                                        if p.suffix in (".py", ".yml", ".js", ".html"))]:
        found |= set(re.findall(r"\bMHA_[A-Z][A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8")))
    return found - INTERNAL


@pytest.fixture
def clean_env(monkeypatch):
    for name in [n for n in os.environ if n.startswith("MHA_")]:
        monkeypatch.delenv(name)
    return monkeypatch


def test_a_build_takes_the_environment_as_it_is_by_default(clean_env):
    environment.check()


@pytest.mark.parametrize("name", sorted(variables_in_the_code()))
def test_every_variable_refuses_a_value_it_does_not_take_in_one_line_naming_it(clean_env, name):
    """/dev/null is no switch, number, folder, zip, address nor release: whatever the variable takes."""
    clean_env.setenv(name, "/dev/null")
    with pytest.raises(PluginError) as e:
        environment.check()
    message = str(e.value)
    assert "\n" not in message and message.startswith(f"{name}='/dev/null'"), message


def test_the_list_is_the_code_s():
    found = variables_in_the_code()
    assert {"MHA_FIGURE_CACHE", "MHA_DOWNLOADS", "MHA_BUILD_EN", "MHA_FIGURE_TIMEOUT", "MHA_OFFLINE",
            "MHA_OFFLINE_ZIP", "MHA_SITE_URL", "MHA_REQUIRE_SITE_URL", "MHA_PREVIOUS_RELEASE"} <= found


@pytest.mark.parametrize("value, on", [("", True), ("1", True), ("on", True), (" Yes ", True), ("TRUE", True),
                                       ("0", False), ("off", False), ("no", False), ("False", False)])
def test_a_switch_takes_the_documented_words(monkeypatch, value, on):
    monkeypatch.setenv("MHA_DOWNLOADS", value)
    assert switches.env_switch("MHA_DOWNLOADS", True) is on
    assert switches.env_switch("MHA_DOWNLOADS", False) is (on if value else False)


@pytest.mark.parametrize("value", ["perhaps", "2", "-", "onn"])
def test_a_switch_refuses_anything_else_naming_what_it_takes(monkeypatch, value):
    monkeypatch.setenv("MHA_BUILD_EN", value)
    with pytest.raises(switches.EnvError) as e:
        environment.build_en()
    assert str(e.value) == (f"MHA_BUILD_EN={value!r} is not a switch: set it to 1 (or on, yes, true), "
                            "to 0 (or off, no, false), or leave it unset (on)")


def test_the_cache_folder_is_a_folder_or_off(monkeypatch, tmp_path):
    monkeypatch.setenv(disk.CACHE_ENV, "0")
    assert disk.cache_folder() is None and disk.cache_folder("decks") is None
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path / "new"))  # made when first written to
    assert disk.cache_folder("decks") == tmp_path / "new" / "decks"
    monkeypatch.setenv(disk.CACHE_ENV, "")
    assert disk.cache_folder() == disk.DEFAULT_CACHE
    (tmp_path / "file").write_text("")
    for value in ("/dev/null", str(tmp_path / "file")):
        monkeypatch.setenv(disk.CACHE_ENV, value)
        with pytest.raises(switches.EnvError, match=re.escape(f"MHA_FIGURE_CACHE={value!r} is not a folder")):
            disk.cache_folder()


@pytest.mark.parametrize("value, build", [(None, True), ("true", True), ("false", False), ("0", False)])
def test_mha_build_en_decides_whether_the_english_pages_are_built(clean_env, value, build):
    if value is not None:
        clean_env.setenv("MHA_BUILD_EN", value)
    languages = [types.SimpleNamespace(locale="zh", build=True), types.SimpleNamespace(locale="en", build=True)]
    config = types.SimpleNamespace(plugins={"i18n": types.SimpleNamespace(config=types.SimpleNamespace(languages=languages))})
    hooks._check_environment(config)
    assert [lang.build for lang in languages] == [True, build]


def test_mkdocs_build_says_one_line_naming_the_variable(tmp_path, mkdocs_build, monkeypatch):
    """Before this, MkDocs' own config error: "Plugin 'i18n' option 'languages': Sub-option 'build':
    Expected type: <class 'bool'>"; now the build stops at its start, before anything is drawn."""
    for name in [k for k in os.environ if k.startswith("MHA_")]:
        monkeypatch.delenv(name)
    run = mkdocs_build(tmp_path / "site", strict=False, MHA_BUILD_EN="perhaps")
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR")]
    assert run.returncode == 1 and len(errors) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "MHA_BUILD_EN='perhaps' is not a switch" in errors[0]
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("name, value", [("MHA_FIGURE_TIMEOUT", "abc"), ("MHA_FIGURE_CACHE", "/dev/null"),
                                         ("MHA_DOWNLOADS", "garbage")])
def test_python_m_figures_says_one_line_naming_the_variable(clean_env, capsys, tmp_path, name, value):
    """MHA_FIGURE_TIMEOUT=abc was a traceback: the figures' registry read it before the check."""
    from figures.__main__ import main
    clean_env.setenv(name, value)
    assert main(["--out", str(tmp_path), "--only", "peak-dip"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {name}={value!r} is not a ") and len(err.strip().splitlines()) == 1, err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("cache", ["folder", "0"])
def test_jieba_keeps_its_cache_in_the_build_s_cache_not_the_temporary_folder(tmp_path, cache):
    """Material's search cuts Chinese with jieba, whose jieba.cache stayed in the system's temporary
    folder after every build and serve (figures/site/jieba_cache.py)."""
    system_tmp, kept = tmp_path / "tmp", tmp_path / "cache"
    system_tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MHA_")}
    code = ("from figures.site import jieba_cache; jieba_cache.place(); import jieba; "
            "import logging; jieba.setLogLevel(logging.WARNING); print('/'.join(jieba.cut('多头注意力的每个头')))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env=dict(env, TMPDIR=str(system_tmp), MHA_FIGURE_CACHE=str(kept) if cache == "folder" else "0"))
    assert run.returncode == 0 and "/" in run.stdout, run.stderr
    assert list(system_tmp.iterdir()) == []  # nothing left there, the cache off included
    assert (kept / "jieba" / "jieba.cache").is_file() == (cache == "folder")
