"""The session's builds of this checkout, each `mkdocs build --strict` into a folder of its own:
the site as published, the offline copy (the guide's MHA_OFFLINE=1) and the site published under
a sub-path, as GitHub Pages serves a project (MHA_SITE_URL), and the site as published built by
ProperDocs in place of MkDocs (tests/test_engine.py). Once every frame is in the session's
figure cache the builds draw nothing, and those the session's tests use start side by side
(conftest's site_builds), instead of one after the other when each is first needed."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUB_PATH_URL = "https://owner.github.io/some-repo/"
SAMPLE_ZIP = "<a sample offline zip>"  # an env value: Build writes a stand-in zip and names it
# by the fixture that hands the build to the tests: what it adds to the environment. The sub-path
# build is also given a zip to offer, as the Pages workflow gives the offline copy's
BUILDS = {"site": {}, "offline_site": {"MHA_OFFLINE": "1"},
          "sub_path_site": {"MHA_SITE_URL": SUB_PATH_URL, "MHA_OFFLINE_ZIP": SAMPLE_ZIP},
          "properdocs_site": {}}
# by build: the command that builds it, when not MkDocs' (ProperDocs, the fork of MkDocs 1.6, reads
# the same mkdocs.yml, named, as it would ask for a properdocs.yml first: tests/test_engine.py)
ENGINES = {"properdocs_site": ["properdocs", "-f", "mkdocs.yml"]}


def sample_zip(path: Path) -> Path:
    """A stand-in for the offline copy's zip (figures/site/offline_reading.py checks it holds an
    index.html): building the real one would be another whole build."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("index.html", "<!doctype html><title>offline copy</title>")
    return path


class Build:
    """`mkdocs build --strict -d out` in root, started; its log kept in a file beside out (a pipe
    nobody reads while the tests run could fill and stall it)."""

    def __init__(self, root: Path, out: Path, env: dict[str, str], engine: list[str] | None = None):
        self.out, self.log = out, out.parent / "build.log"
        env = {k: str(sample_zip(out.parent / "offline.zip")) if v == SAMPLE_ZIP else v for k, v in env.items()}
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", *(engine or ["mkdocs"])[:1], "build", *(engine or [])[1:], "--strict", "-d",
                 str(out)], cwd=root,
                env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **env), stdout=log, stderr=subprocess.STDOUT)

    def result(self) -> Path:
        """The built site's folder, once the build has finished; the end of its log if it failed."""
        assert self.process.wait() == 0, self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
        return self.out

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def shared_builds(folder: Path, names: list[str]):
    """The builds of `names` in `folder`, shared by the processes of one pytest-xdist session: the
    first process to get here builds them side by side, holding a lock; the others wait for it and
    take the folders. Yields site_builds' result(name); a build asked for by name only is built by
    whichever process asks, under the lock."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            _build_missing(folder, names)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

    def result(name: str) -> Path:
        if not (folder / name / "done").exists():
            with open(folder / ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                _build_missing(folder, [name])
        return folder / name / "site"
    yield result


def _build_missing(folder: Path, names: list[str]) -> None:
    """Build side by side those of `names` not built yet into `folder` (each marked done once built)."""
    started = {}
    for name in names:
        if not (folder / name / "done").exists():
            (folder / name).mkdir(exist_ok=True)
            started[name] = Build(ROOT, folder / name / "site", BUILDS[name], ENGINES.get(name))
    try:
        for name, build in started.items():
            build.result()
            (folder / name / "done").touch()
    finally:
        for build in started.values():
            build.stop()
