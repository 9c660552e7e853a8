"""The release steps (.github/CONTRIBUTING.md, "Releases") on a copy of the checkout: every file a release changes,
set for a version released on a given day, then committed on that day and tagged."""

import os
import re
import subprocess
from pathlib import Path

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.org"}


def _sub(path: Path, pattern: str, value: str) -> None:
    """Replace the one match of `pattern`'s group 2 (between groups 1 and 3) with `value`."""
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(pattern, lambda m: m[1] + value + m[3], text, count=1, flags=re.M)
    assert n == 1, (path, pattern)
    path.write_text(text, encoding="utf-8")


def set_release(repo: Path, version: str, day: str) -> None:
    """pyproject.toml's version and release_date; CITATION.cff's version, date-released and this
    version's frozen address (its identifier's value and description)."""
    pyproject, cff = repo / "pyproject.toml", repo / "CITATION.cff"
    _sub(pyproject, r'^(version = ")([^"]+)(")', version)
    _sub(pyproject, r'^(release_date = ")([^"]+)(")', day)
    _sub(cff, r'^(version: ")([^"]+)(")', version)
    _sub(cff, r'^(date-released: ")([^"]+)(")', day)
    _sub(cff, r'^(    value: "[^"]*/)(\d+\.\d+\.\d+)(/")', version)
    _sub(cff, r'^(    description: "This version \()([^)]+)(\))', version)


def commit_and_tag(repo: Path, version: str, day: str) -> None:
    """Everything in `repo` committed on `day` (noon UTC) and tagged v<version>."""
    env = dict(os.environ, **GIT, GIT_AUTHOR_DATE=f"{day}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{day}T12:00:00+00:00")
    for command in (["add", "-A"], ["commit", "-q", "-m", f"version {version}"], ["tag", f"v{version}"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True, capture_output=True)
