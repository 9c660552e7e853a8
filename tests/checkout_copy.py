"""A copy of this checkout (its tracked and new files: no site, no cache), for a test to edit freely.

The suite's `checkout` fixture (conftest.py) and `python -m bench` both copy the checkout with it;
it lives here so that the tests import nothing from bench."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(dst: Path, root: Path = ROOT) -> Path:
    """The tracked and new files of the checkout at root, copied to dst."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (root / rel).is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, dst / rel)
    return dst
