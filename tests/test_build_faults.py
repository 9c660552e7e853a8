"""The build-only command (.github/CONTRIBUTING.md) (`python -m figures.site.build`) under faults: two builds of one
checkout at once both succeed and the site is always one whole build; a build stopped by SIGINT,
SIGTERM or SIGKILL, sent to it alone or to its process group, leaves the previous site as it was,
no folder of its own behind, and no process running."""

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from figures.site import build
from processes import below, survivors

ROOT = Path(__file__).resolve().parents[1]
STOPS = [(sig, whom) for sig in ("SIGINT", "SIGTERM", "SIGKILL") for whom in ("build", "group")]


def _old_site(target: Path) -> Path:
    target.mkdir()
    (target / "index.html").write_text("old")
    return target


def _own_folders(where: Path) -> list[Path]:
    """The builds' own folders left beside the target."""
    return sorted(where.glob(build.NEW.format("*") + "*"))


def _read_in(folder: int, name: str) -> str:
    with open(name, opener=lambda path, flags: os.open(path, flags, dir_fd=folder)) as f:
        return f.read()


def _same_folder(folder: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(folder).st_ino
    except FileNotFoundError:
        return False


def _forked(pid: int, pids: set[int]) -> set[int]:
    """The processes of `pids` that run the command line of `pid` (forked from it, not started anew)."""
    def command(p: int) -> bytes:
        try:
            return Path(f"/proc/{p}/cmdline").read_bytes()
        except OSError:
            return b"gone"
    return {p for p in pids if command(p) == command(pid)}


def _drawing_server(pids: set[int]) -> set[int]:
    """The processes of `pids` that multiprocessing's forkserver started: where a build draws once
    a thread of its own runs beside it (its progress lines: figures/engine/progress.py), since a
    process with threads is never forked (figures/engine/render.py, _start_method)."""
    def command(p: int) -> bytes:
        try:
            return Path(f"/proc/{p}/cmdline").read_bytes()
        except OSError:
            return b"gone"
    return {p for p in pids if b"multiprocessing.forkserver" in command(p)}


def _children(pid: int) -> set[int]:
    return {int(k) for task in Path(f"/proc/{pid}/task").glob("*") for k in (task / "children").read_text().split()}


def _stop(process: subprocess.Popen, sig: str, whom: str) -> None:
    (os.killpg if whom == "group" else os.kill)(process.pid, getattr(signal, sig))


def _removed(folders: list[Path], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while any(f.exists() for f in folders) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not any(f.exists() for f in folders)


def test_a_build_that_finishes_replaces_the_site_and_one_that_fails_leaves_it(tmp_path):
    target = _old_site(tmp_path / "site")

    def fails(own: Path) -> int:
        (own / "index.html").write_text("half")
        return 1
    assert build.publish(target, fails) == 1
    assert (target / "index.html").read_text() == "old" and _own_folders(tmp_path) == []

    def builds(own: Path) -> int:
        (own / "index.html").write_text("new")
        return 0
    assert build.publish(target, builds) == 0
    assert (target / "index.html").read_text() == "new" and _own_folders(tmp_path) == []
    (tmp_path / "made").mkdir()  # readable by whom a folder mkdocs makes is readable by
    assert target.stat().st_mode == (tmp_path / "made").stat().st_mode
    assert build.publish(tmp_path / "none/yet", builds) == 0  # no site before: the folder is renamed
    assert (tmp_path / "none/yet/index.html").read_text() == "new"


def test_two_builds_into_one_folder_at_once_both_succeed_and_the_site_is_always_one_whole_build(tmp_path):
    target = _old_site(tmp_path / "site")
    (target / "page.html").write_text("old")
    seen, done = set(), threading.Event()

    def watch():  # every moment: the folder at `target` holds both files, from one and the same build
        while not done.is_set():
            try:
                folder = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                seen.add(("missing",))
                continue
            try:
                seen.add(tuple(_read_in(folder, name) for name in ("index.html", "page.html")))
            except FileNotFoundError:  # a real gap if the folder is still the site, not the old one removed
                if _same_folder(folder, target):
                    seen.add(("missing a file",))
            finally:
                os.close(folder)

    def fake(token: str):
        def run(own: Path) -> int:
            for name in ("index.html", "page.html"):
                (own / name).write_text(token)
                time.sleep(0.2)
            return 0
        return run
    watcher = threading.Thread(target=watch)
    watcher.start()
    statuses = []
    builds = [threading.Thread(target=lambda t=t: statuses.append(build.publish(target, fake(t)))) for t in "ab"]
    for b in builds:
        b.start()
    for b in builds:
        b.join()
    done.set()
    watcher.join()
    assert statuses == [0, 0]
    assert seen <= {("old", "old"), ("a", "a"), ("b", "b")}, seen
    final = tuple((target / name).read_text() for name in ("index.html", "page.html"))
    assert final in {("a", "a"), ("b", "b")} and _own_folders(tmp_path) == []


HALF_BUILT = """if True:
    import sys, time
    from pathlib import Path
    from figures.site import build
    def half(own):
        (own / "index.html").write_text("half")
        print(own, flush=True)
        time.sleep(600)
    build.publish(Path(sys.argv[1]), half)
"""


@pytest.mark.parametrize("sig, whom", STOPS)
def test_a_build_stopped_leaves_the_site_and_no_folder_of_its_own(tmp_path, sig, whom):
    target = _old_site(tmp_path / "site")
    run = subprocess.Popen([sys.executable, "-c", HALF_BUILT, str(target)], cwd=ROOT, stdout=subprocess.PIPE,
                           text=True, start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        own = Path(run.stdout.readline().strip())
        assert own.parent == tmp_path and (own / "index.html").read_text() == "half"
        _stop(run, sig, whom)
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert _removed([own]), f"{own.name} is left after {sig} to the {whom}"
    assert (target / "index.html").read_text() == "old" and _own_folders(tmp_path) == []


def test_a_site_folder_that_is_a_file_is_refused_in_one_line(tmp_path):
    (tmp_path / "site").write_text("not a folder")
    run = subprocess.run([sys.executable, "-m", "figures.site.build", "-d", str(tmp_path / "site")], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr == f"{tmp_path / 'site'} is not a folder: give -d a folder for the site\n"


def test_the_guide_builds_with_the_command_and_its_folders_are_git_ignored(tmp_path):
    guide = (ROOT / ".github/CONTRIBUTING.md").read_text(encoding="utf-8")
    assert ".venv/bin/python -m figures.site.build\n" in guide
    own = Path(build.tempfile.mkdtemp(dir=ROOT, prefix=build.NEW.format("site")))
    try:
        assert subprocess.run(["git", "check-ignore", "-q", own.name + "/"], cwd=ROOT).returncode == 0
    finally:
        own.rmdir()


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_whole_builds_of_one_checkout_at_once_both_succeed_with_the_lone_build_s_site(site, site_command,
                                                                                             tmp_path):
    target = tmp_path / "site"
    runs = [site_command(target)]
    time.sleep(1)
    runs.append(site_command(target))
    try:
        statuses = [run.wait(timeout=600) for run in runs]
    finally:
        for run in runs:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
    assert statuses == [0, 0], Path(f"{target}.log").read_text()[-3000:]
    assert _own_folders(tmp_path) == []
    lone, both = _tree(site), _tree(target)
    assert sorted(set(lone) ^ set(both)) == [] and [p for p in lone if lone[p] != both[p]] == []


@pytest.mark.slow  # draws from an empty figure cache until it is stopped
@pytest.mark.parametrize("sig, whom", STOPS)
def test_a_whole_build_stopped_while_it_draws_leaves_the_site_and_no_process(site_command, tmp_path, sig, whom):
    target = _old_site(tmp_path / "site")
    run = site_command(target, MHA_FIGURE_CACHE=str(tmp_path / "cache"), MHA_DOWNLOADS="0")
    running: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        # forked from the build: seed-roles' PREPARE, and a drawing process (forked too, or the
        # forkserver's); below PREPARE, not the build, a seed's trainer (mha_ref/tiny/arithmetic.py),
        # at work for 2 s (past its start)
        training: set[int] = set()
        while not (len(_forked(run.pid, now := below(run.pid)) | _drawing_server(now)) >= 2 and training & now):
            assert time.monotonic() < deadline and run.poll() is None, Path(f"{target}.log").read_text()[-3000:]
            servers = _drawing_server(now)  # its drawing processes are below the build too: not trainers
            training = now - _children(run.pid) - servers - {c for s in servers for c in _children(s)}
            time.sleep(2)
            running |= now
        own = _own_folders(tmp_path)
        assert len(own) == 1
        running |= below(run.pid)
        _stop(run, sig, whom)
        status = run.wait(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    left = survivors(running, 5)  # they end at once: a trainer left alone would end its seed
    assert status == (1 if sig == "SIGINT" else -getattr(signal, sig))  # Ctrl-C: mkdocs' "Aborted!"
    assert left == [], f"{len(left)} of {len(running)} processes outlived {sig} to the {whom}"
    assert _removed(own) and _own_folders(tmp_path) == []
    assert [p.name for p in target.iterdir()] == ["index.html"] and (target / "index.html").read_text() == "old"
