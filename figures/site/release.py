"""`python -m figures.site.release`: this checkout's version deployed as a frozen release, with mike.

The version is pyproject.toml's ([project] version), the one place it is set, and HEAD must be
tagged `v<version>` with no uncommitted change to tracked files: a release is a tag, and the tag
names what was built. mike builds the site (both languages: /X.Y.Z/ and /X.Y.Z/en/) with
MIKE_DOCS_VERSION set, which figures/publish/identity.py reads (the frozen addresses the pages
cite), and commits it into its own folder of the Pages branch; the alias `latest` moves to it and
the root redirects there. A version already on the branch is refused: an earlier release is never
built again (mike would replace it), so what a citation points at stays as it was cited.

The branch's root also gets the newest release's 404 page (a host serves the root's 404.html for
every missing address, in any release's folder).

    python -m figures.site.release [--remote origin] [--branch gh-pages] [--push]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ..publish import identity

ROOT = Path(__file__).resolve().parents[2]
NOT_FOUND = "404.html"


class ReleaseError(Exception):
    """Why this checkout cannot be released now, in one line."""


def _git(*args: str, cwd: Path = ROOT, check: bool = True, env: dict | None = None, input: bytes | None = None,
         raw: bool = False):
    """git's output, stripped text (or its bytes as they are, `raw`); empty when it failed unchecked."""
    run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, input=input)
    if check and run.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {run.stderr.decode(errors='replace').strip()}")
    if run.returncode != 0:
        return b"" if raw else ""
    return run.stdout if raw else run.stdout.decode(errors="replace").strip()


def tagged_version(root: Path = ROOT) -> str:
    """pyproject's version, once HEAD is tagged v<version> and no tracked file is changed."""
    version = identity.load(root / "pyproject.toml").version
    tags = _git("tag", "--points-at", "HEAD", cwd=root).split()
    if f"v{version}" not in tags:
        raise ReleaseError(f"pyproject.toml says version {version}, but HEAD is not tagged v{version} "
                           f"(its tags: {', '.join(tags) or 'none'}): tag the commit to release, `git tag v{version}`")
    changed = _git("status", "--porcelain", "--untracked-files=no", cwd=root)
    if changed:
        raise ReleaseError(f"tracked files are changed since v{version} ({changed.splitlines()[0].strip()} ...): "
                           "a release is built from its tag only")
    return version


def released(branch: str, remote: str, root: Path = ROOT) -> list[str]:
    """The versions already on the Pages branch (its versions.json), local or fetched from `remote`."""
    for ref in (branch, f"{remote}/{branch}"):
        text = _git("show", f"{ref}:versions.json", cwd=root, check=False)
        if text:
            return [v["version"] for v in json.loads(text)]
    return []


def root_not_found(branch: str, version: str, message: str, root: Path = ROOT) -> None:
    """Commit the release's 404 page at the branch's root (as mike commits: a commit on `branch`)."""
    page = _git("show", f"{branch}:{version}/{NOT_FOUND}", cwd=root, check=False, raw=True)
    if not page:
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        _git("read-tree", branch, cwd=root, env=env)
        blob = _git("hash-object", "-w", "--stdin", cwd=root, input=page)
        _git("update-index", "--add", "--cacheinfo", f"100644,{blob},{NOT_FOUND}", cwd=root, env=env)
        tree = _git("write-tree", cwd=root, env=env)
    if tree == _git("rev-parse", f"{branch}^{{tree}}", cwd=root):
        return
    commit = _git("commit-tree", tree, "-p", branch, "-m", message, cwd=root)
    _git("update-ref", f"refs/heads/{branch}", commit, cwd=root)


def release(remote: str = "origin", branch: str = "gh-pages", push: bool = False, root: Path = ROOT) -> str:
    """Deploy this checkout's tagged version; its version."""
    if os.environ.get(identity.RELEASE_ENV):
        raise ReleaseError(f"{identity.RELEASE_ENV} is set: mike sets it for the build it runs, from the version")
    version = tagged_version(root)
    if _git("remote", cwd=root, check=False).split().count(remote):
        _git("fetch", remote, branch, cwd=root, check=False)  # mike fetches nothing; absent the first time
    if version in released(branch, remote, root):
        raise ReleaseError(f"{version} is already released on {branch}: a release is never built again "
                           "(raise the version in pyproject.toml, commit, tag v<version>)")
    # mike and the `mkdocs` it runs, from this Python's environment (a venv need not be activated)
    scripts = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=scripts + os.pathsep + os.environ.get("PATH", ""))
    mike = [str(Path(scripts) / "mike")]
    where = ["--remote", remote, "--branch", branch] + (["--push"] if push else [])
    subprocess.run([*mike, "deploy", "--update-aliases", *where, version, identity.LATEST], cwd=root, check=True, env=env)
    subprocess.run([*mike, "set-default", *where, identity.LATEST], cwd=root, check=True, env=env)
    root_not_found(branch, version, f"The root's 404 page: {version}'s", root)
    if push:
        _git("push", remote, branch, cwd=root)
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m figures.site.release", description=__doc__.split("\n\n")[0])
    parser.add_argument("--remote", default="origin", help="the repository the Pages branch is pushed to")
    parser.add_argument("--branch", default="gh-pages", help="the Pages branch (mike's)")
    parser.add_argument("--push", action="store_true", help="push the branch to the remote when done")
    args = parser.parse_args(argv)
    try:
        version = release(args.remote, args.branch, args.push)
    except (ReleaseError, identity.IdentityError) as e:
        print(f"release: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"release: {' '.join(map(str, e.cmd[1:]))} failed (exit {e.returncode})", file=sys.stderr)
        return 1
    print(f"released {version} on {args.branch}: /{version}/ and /{identity.LATEST}/, the root redirecting there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
