"""The package as pip installs it (pyproject.toml, [tool.setuptools]): a wheel holds every package of
the checkout and the files they read when they run, and, installed into a fresh venv, runs the
self-check and builds the site from outside the checkout.

The venv is fresh but for its dependencies: a .pth file lends it this environment's site-packages
(numpy, mkdocs, ...; installing them all again is a minute of pip), added as a plain folder, so the
editable install of the checkout found there is never switched on: the code comes from the wheel,
and each test checks that it does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

# A wheel built (pip's isolated build env) and installed: some thirty seconds before any test runs
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
OURS = ("mha_ref", "figures", "bench")  # the checkout's top-level packages
SITE_SOURCES = ("mkdocs.yml", "docs", "overrides", "pyproject.toml")  # what the site is built from, but the code


def _packages(root: Path) -> set[str]:
    """Every package below `root`'s top-level OURS, by its folder's __init__.py."""
    return {".".join(p.parent.relative_to(root).parts) for top in OURS for p in (root / top).rglob("__init__.py")
            if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip install .` builds in a fresh clone: from a copy of the checkout's files, as the
    checkout's own *.egg-info/SOURCES.txt (left by `pip install -e`) lists files the wheel then takes."""
    from checkout_copy import copy_checkout
    source, out = copy_checkout(tmp_path_factory.mktemp("clone")), tmp_path_factory.mktemp("wheel")
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    [built] = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed (its dependencies lent, see above): its python."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "lent-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                          "--no-index", str(wheel)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return python


def _outside(python: Path, *args: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    """`python args` in `cwd`, a folder outside the checkout, with nothing of the checkout on its path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"NO_MKDOCS_2_WARNING": "1", **env}
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_wheel_holds_every_package_and_the_files_the_code_reads(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {str(Path(n).parent).replace("/", ".") for n in names if n.endswith("/__init__.py")} == _packages(ROOT)
    # every file beside the code that it opens when it runs (not Python, not a cache)
    data = {p.relative_to(ROOT).as_posix() for top in OURS for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc")}
    assert "figures/site/offline-worker.js" in data
    assert data <= set(names)


def test_installed_it_imports_from_the_wheel_and_runs_the_self_check(installed, tmp_path):
    from mha_ref import vectors
    from test_selfcheck import LEARNER
    (tmp_path / "mine.py").write_text(textwrap.dedent(LEARNER.replace("STAGES", "out")), encoding="utf-8")
    where = _outside(installed, "-c", "import mha_ref, figures.site.offline_reading as r; "
                     "print(mha_ref.__file__); print(len(r.worker_source('v', [])))", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.split()[0]).is_relative_to(installed.parents[1]), where.stdout  # the wheel's copy
    run = _outside(installed, "-m", "mha_ref.selfcheck", "mine.py", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(vectors.CONFIGS)} of {len(vectors.CONFIGS)} configurations match" in run.stdout


def site_sources(installed: Path, to: Path) -> Path:
    """The site's own sources (SITE_SOURCES) copied to `to`, without the code beside them. mkdocs.yml
    names the code by its paths in the checkout (MkDocs takes hooks as files, not modules): its hooks,
    its gen-files script, the folders `mkdocs serve` watches, and the snippets' base path, from which
    the-code includes mha_ref/attention.py. In the copy they name the installed package's files."""
    to.mkdir()
    for name in SITE_SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copyfile)(ROOT / name, to / name)
    purelib = Path(subprocess.run([installed, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    config = (to / "mkdocs.yml").read_text(encoding="utf-8")
    code_paths = re.compile(rf"(?m)^(\s*-\s+)((?:{'|'.join(OURS)})(?:/\S*)?)[ \t]*(#.*)?$")
    named = [m[2] for m in code_paths.finditer(config)]
    assert named and not [path for path in named if not (purelib / path).exists()], named
    config = code_paths.sub(lambda m: f"{m[1]}{purelib / m[2]}", config)
    assert config.count('base_path: ["."]') == 1
    config = config.replace('base_path: ["."]', f'base_path: [".", "{purelib}"]')
    (to / "mkdocs.yml").write_text(config, encoding="utf-8")
    return to


@pytest.mark.build
def test_installed_it_builds_the_site_from_its_sources_alone(installed, warm_cache, tmp_path):
    """`mkdocs build` of the site's sources with the code from the wheel; every frame is in the
    session's figure cache (warm_cache: its keys are digests of the code's text, the same installed),
    and the downloads are left out (MHA_DOWNLOADS=0), so nothing is drawn again."""
    sources = site_sources(installed, tmp_path / "sources")
    out = tmp_path / "site"
    run = _outside(installed, "-m", "mkdocs", "build", "--strict", "-d", str(out), cwd=sources, MHA_DOWNLOADS="0")
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    for lang_root in (out, out / "en"):
        assert (lang_root / "one-head-blends" / "index.html").is_file()
    assert (out / "sw.js").is_file() and any((out / "figures").rglob("*.svg"))
    assert not [top for top in OURS if (sources / top).exists()]  # the code came from the wheel alone
