"""No dict written out in the code gives a key twice: Python keeps the last value without a word (the
changes page once said "first" where it meant its first-release sentence)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def repeated_keys(source: str) -> list[tuple[int, object]]:
    """(line, key) of each constant key a dict literal in `source` gives again."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            seen = set()
            for key in node.keys:
                if isinstance(key, ast.Constant):
                    if key.value in seen:
                        found.append((key.lineno, key.value))
                    seen.add(key.value)
    return found


def test_the_finder_finds_a_repeated_key():
    assert repeated_keys('W = {"a": 1,\n     "b": 2, "a": 3}\n') == [(2, "a")]
    assert repeated_keys('W = {"a": 1, "b": {"a": 2}}\n') == []


def test_no_dict_in_the_code_gives_a_key_twice():
    files = [p for d in ("mha_ref", "figures", "bench", "tests") for p in sorted((ROOT / d).rglob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{line}: {key!r}" for p in files for line, key in repeated_keys(p.read_text(encoding="utf-8"))]
    assert found == []
