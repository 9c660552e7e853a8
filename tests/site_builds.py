"""The session's builds of this checkout, each `mkdocs build --strict` into a folder of its own:
the site as published, the offline copy (the README's MHA_OFFLINE=1) and the site published under
a sub-path, as GitHub Pages serves a project (MHA_SITE_URL). Once every frame is in the session's
figure cache the builds draw nothing, and those the session's tests use start side by side
(conftest's site_builds), instead of one after the other when each is first needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SUB_PATH_URL = "https://owner.github.io/some-repo/"
# by the fixture that hands the build to the tests: what it adds to the environment
BUILDS = {"site": {}, "offline_site": {"MHA_OFFLINE": "1"}, "sub_path_site": {"MHA_SITE_URL": SUB_PATH_URL}}


class Build:
    """`mkdocs build --strict -d out` in root, started; its log kept in a file beside out (a pipe
    nobody reads while the tests run could fill and stall it)."""

    def __init__(self, root: Path, out: Path, env: dict[str, str]):
        self.out, self.log = out, out.parent / "build.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=root,
                env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **env), stdout=log, stderr=subprocess.STDOUT)

    def result(self) -> Path:
        """The built site's folder, once the build has finished; the end of its log if it failed."""
        assert self.process.wait() == 0, self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
        return self.out

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
