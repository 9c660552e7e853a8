"""`python -m figures.site.build [-d DIR] [mkdocs build options]`: `mkdocs build --strict` into DIR
(`site/` by default) whole or not at all.

The build writes into a folder of its own beside DIR (`.site.new-XXXXXXXX/`), which a finished build
swaps with DIR in one rename (Linux's renameat2 RENAME_EXCHANGE), so DIR always holds one whole site:
the last good one until the new one is done. Two builds of one checkout at once each build into their
own folder (everything else they share, the figure cache, is written a whole file at a time), both
succeed, and DIR ends as the one that finished last. A failed build or Ctrl-C removes the build's
folder; whatever else ends the build (SIGTERM, SIGKILL), a small process started for that alone
removes it once the build's processes have ended (it runs in a session of its own, so that a signal
to the build's process group spares it). The drawing processes end with the build (engine/pool.py).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

USAGE = "usage: python -m figures.site.build [-d DIR] [mkdocs build options]"
DEFAULT_DIR = "site"
NEW = ".{}.new-"  # the build's own folder beside DIR: .site.new-XXXXXXXX
RENAME_EXCHANGE = 2  # linux/fs.h
AT_FDCWD = -100

# Waits for its standard input to close (every process holding the other end has ended, the build
# and the processes it forked), then removes the folder it was given, if it is still there.
_REMOVER = "import shutil, sys; sys.stdin.buffer.read(); shutil.rmtree(sys.argv[1], ignore_errors=True)"


def split_dir(args: list[str]) -> tuple[Path, list[str]]:
    """(DIR, the other options) from the command line's -d DIR, --site-dir DIR or --site-dir=DIR."""
    out, rest, it = DEFAULT_DIR, [], iter(args)
    for arg in it:
        if arg in ("-d", "--site-dir"):
            out = next(it, None)
            if out is None:
                raise SystemExit(f"{arg} needs a folder\n{USAGE}")
        elif arg.startswith("--site-dir="):
            out = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return Path(out).absolute(), rest


def publish(target: Path, build) -> int:
    """build(folder) (an exit status) into a new folder beside `target`, swapped with `target` when
    it returns 0; the new folder (or the old site swapped into it) removed in every case."""
    target.parent.mkdir(parents=True, exist_ok=True)
    own = Path(tempfile.mkdtemp(dir=target.parent, prefix=NEW.format(target.name)))
    umask = os.umask(0)
    os.umask(umask)
    own.chmod(0o777 & ~umask)  # as mkdocs makes a site's folder (mkdtemp's is its owner's alone)
    remover = subprocess.Popen([sys.executable, "-c", _REMOVER, str(own)], stdin=subprocess.PIPE,
                               start_new_session=True)
    try:
        status = build(own)
        if status == 0:
            swap(own, target)
        return status
    finally:
        shutil.rmtree(own, ignore_errors=True)
        remover.stdin.close()  # not waited for: the processes this one forked hold the pipe until they end


def swap(new: Path, target: Path) -> None:
    """`new` at `target`'s place at once; the old `target`, if any, left at `new`'s."""
    try:
        os.rename(new, target)  # no site yet (or an empty folder)
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(AT_FDCWD, os.fsencode(new), AT_FDCWD, os.fsencode(target), RENAME_EXCHANGE) == 0:
            return
        failed = ctypes.get_errno()
        if failed not in (errno.EINVAL, errno.ENOSYS):  # other than: not on this file system
            raise OSError(failed, os.strerror(failed), str(target))
    except AttributeError:  # not Linux (or a libc without renameat2)
        pass
    old = new.with_name(new.name + "-old")  # two renames: for a moment there is no `target`
    os.rename(target, old)
    os.rename(new, target)
    os.rename(old, new)


def _mkdocs_build(args: list[str]) -> int:
    """`mkdocs build` with `args`, in this process (its drawing processes then end with this one)."""
    from mkdocs.__main__ import cli
    try:
        cli.main(args=["build", *args], prog_name="mkdocs")
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    target, rest = split_dir(args)
    if target.exists() and not target.is_dir():
        print(f"{target} is not a folder: give -d a folder for the site", file=sys.stderr)
        return 2
    # Ctrl-C ends mkdocs' command line with "Aborted!" and status 1; any other end of this process
    # (SIGTERM, SIGKILL) leaves the removal of the build's folder to the remover (publish)
    status = publish(target, lambda own: _mkdocs_build(["--strict", *rest, "-d", str(own)]))
    if status != 0:
        print(f"the build did not finish: {target} is as it was, no half-built site kept", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
