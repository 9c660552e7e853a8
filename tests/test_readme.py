"""The README's commands are the ones CI runs, and its layout names what exists."""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands():
    return [line for block in re.findall(r"```sh\n(.*?)```", README, re.S)
            for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_has_the_serve_and_test_commands_and_ci_runs_the_test_one():
    commands = _commands()
    serve = [c for c in commands if "mkdocs serve" in c]
    test = [c for c in commands if "pytest" in c]
    assert len(serve) == 1 and len(test) == 1
    assert test[0] in (ROOT / ".ci/run").read_text(encoding="utf-8")


def test_readme_layout_names_existing_paths():
    for path in re.findall(r"^\| `([^`]+)` \|", README, re.M):
        assert (ROOT / path).exists(), path


FAKE_MKDOCS = """#!/bin/sh
# stands in for mkdocs build: fills the -d folder, then exits with $FAKE_STATUS
while [ $# -gt 0 ]; do [ "$1" = -d ] && out=$2; shift; done
mkdir -p "$out" && echo new > "$out/index.html"
exit "$FAKE_STATUS"
"""


@pytest.mark.parametrize("engine", ["mkdocs", "properdocs"])  # the same command with either (tests/test_engine.py)
@pytest.mark.parametrize("status", [0, 1], ids=["built", "failed"])
def test_readme_build_command_keeps_the_last_good_site_and_leaves_no_half_build(tmp_path, status, engine):
    [build] = [c for c in _commands() if c.startswith(f".venv/bin/{engine} build ")]
    fake = tmp_path / "fake-mkdocs"
    fake.write_text(FAKE_MKDOCS)
    fake.chmod(0o755)
    (tmp_path / "site").mkdir()
    (tmp_path / "site/index.html").write_text("old\n")
    run = subprocess.run(["sh", "-c", build.replace(f".venv/bin/{engine}", str(fake))], cwd=tmp_path,
                         env=dict(os.environ, FAKE_STATUS=str(status)), capture_output=True, text=True)
    assert (run.returncode == 0) == (status == 0)
    assert (tmp_path / "site/index.html").read_text() == ("new\n" if status == 0 else "old\n")
    assert not (tmp_path / "site.new").exists()


def test_a_half_build_folder_is_git_ignored():
    assert subprocess.run(["git", "check-ignore", "-q", "site.new/"], cwd=ROOT).returncode == 0
