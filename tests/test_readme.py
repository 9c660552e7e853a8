"""The README's commands are the ones CI runs, and its layout names what exists."""

import re
from pathlib import Path

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
