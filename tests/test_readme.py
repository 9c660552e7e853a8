"""The README's commands are the ones CI runs, its first screen leads to the guide for authors and
maintainers (.github/CONTRIBUTING.md), and what both name exists."""

import ast
import re
from pathlib import Path

import mkdocs.config

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE_PATH = ".github/CONTRIBUTING.md"
GUIDE = (ROOT / GUIDE_PATH).read_text(encoding="utf-8")


def _commands():
    return [line for block in re.findall(r"```sh\n(.*?)```", README, re.S)
            for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_has_the_serve_and_test_commands_and_ci_runs_the_test_one():
    commands = _commands()
    serve = [c for c in commands if "mkdocs serve" in c]
    test = [c for c in commands if "pytest" in c]
    assert len(serve) == 1 and len(test) == 1
    assert test[0] in (ROOT / ".ci/run").read_text(encoding="utf-8")
    # the two commands come first: no other command before them
    assert commands[:2] == serve + test


def _section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_layout_names_existing_paths():
    for table in (_section(README, "Where things are"), _section(GUIDE, "Layout")):
        paths = re.findall(r"^\| `([^`]+)` \|", table, re.M)
        assert len(paths) >= 6
        for path in paths:
            assert (ROOT / path).exists(), path


def test_the_guide_is_one_click_from_the_readme_s_first_screen_and_not_part_of_the_site():
    first_screen = README.split("\n## ", 1)[0]
    assert f"]({GUIDE_PATH})" in first_screen
    docs = ROOT / mkdocs.config.load_config(str(ROOT / "mkdocs.yml")).docs_dir
    assert not (ROOT / GUIDE_PATH).resolve().is_relative_to(docs.resolve())


# every file, module and test the guide names exists ---------------------------------------------
PATH = re.compile(r"`((?:mha_ref|figures|tests|docs|bench|overrides|\.ci|\.github)/[\w./-]*)`")


def test_every_path_the_guide_names_exists():
    named = PATH.findall(GUIDE)
    assert len(named) > 50  # it found them at all
    missing = [p for p in named if "<" not in p and not (ROOT / p).exists()]
    assert not missing, missing


def test_every_module_the_guide_names_by_file_name_exists():
    """"`hooks.py`" in the hooks table: a module of that name somewhere in the checkout's code."""
    names = set(re.findall(r"`([\w-]+\.py)`", GUIDE))
    assert len(names) > 30
    existing = {p.name for folder in ("mha_ref", "figures", "tests", "docs", "overrides", "bench")
                for p in (ROOT / folder).rglob("*") if p.is_file()}
    assert not names - existing, sorted(names - existing)


def _test_functions(path: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test")}


def test_every_rule_the_guide_lists_names_a_test_that_exists():
    """The table of the rules pages follow: each row names tests as `tests/FILE.py::test_name`, or
    `::test_name` for another test of the file named before it in the row."""
    section = _section(GUIDE, "The rules the tests hold pages to")
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| rule")]
    assert len(rows) >= 15
    for row in rows:
        tests = re.findall(r"`(tests/[\w/]+\.py)?(?:::(\w+))?`", row.rsplit(" | ", 1)[1])
        assert tests, row
        file = None
        for path, name in tests:
            file = ROOT / path if path else file
            assert file is not None and file.exists(), row
            if name:
                assert name in _test_functions(file), f"{file.name}::{name}"
