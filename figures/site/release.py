"""`python -m figures.site.release`: this checkout's version deployed as a frozen release, with mike.

The version is pyproject.toml's ([project] version, a plain X.Y.Z), the one place it is set, and
HEAD must be tagged `v<version>` with no uncommitted change to tracked files: a release is a tag,
and the tag names what was built. The tagged commit's files, and only those, are checked out in a
temporary folder (an untracked page is never published); there its CITATION.cff and release_date
must say what its pyproject.toml says, and the date be the commit's day, or nothing is built.
mike builds the site there (both languages: /X.Y.Z/ and /X.Y.Z/en/) with MIKE_DOCS_VERSION set,
which figures/publish/identity.py reads (the frozen addresses the pages cite), and commits it
into its own folder of the Pages branch; the alias `latest` moves to it and the root redirects
there. A version already on the branch is refused: an earlier release is never built again (mike
would replace it), so what a citation points at stays as it was cited.

The branch's root also gets the newest release's 404 page (a host serves the root's 404.html for
every missing address, in any release's folder).

    python -m figures.site.release [--remote origin] [--branch gh-pages] [--push]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from ..keep import disk, switches
from ..publish import identity
from . import offline_reading

ROOT = Path(__file__).resolve().parents[2]
NOT_FOUND = "404.html"
CITATION = "CITATION.cff"
# what a build reads from a path in the environment: resolved against the folder the release runs
# from, since mike builds in the tag's tree
PATH_ENVS = (disk.CACHE_ENV, offline_reading.ZIP_ENV)


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
    if problem := identity.release_version_problem(version):
        raise ReleaseError(f"pyproject.toml [project] version = {version!r} cannot be released: {problem}")
    tags = _git("tag", "--points-at", "HEAD", cwd=root).split()
    if f"v{version}" not in tags:
        raise ReleaseError(f"pyproject.toml says version {version}, but HEAD is not tagged v{version} "
                           f"(its tags: {', '.join(tags) or 'none'}): tag the commit to release, `git tag v{version}`")
    changed = _git("status", "--porcelain", "--untracked-files=no", cwd=root)
    if changed:
        raise ReleaseError(f"tracked files are changed since v{version} ({changed.splitlines()[0].strip()} ...): "
                           "a release is built from its tag only")
    return version


def citation_problems(root: Path, day: str) -> list[str]:
    """Where the files of the checkout at `root` disagree about the release they make, each as
    "FILE FIELD is FOUND, not WANTED": pyproject.toml's release_date is `day` (the tagged commit's,
    which the pages cite when git cannot date them), and CITATION.cff says what pyproject.toml says
    (without MHA_SITE_URL: the file names the address pyproject names)."""
    own = identity.load(root / "pyproject.toml", environ={})
    problems = [] if own.release_date == day else \
        [f"pyproject.toml release_date is {own.release_date!r}, not {day!r} (the day of the tagged commit)"]
    try:
        cff = yaml.safe_load((root / CITATION).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        return problems + [f"{CITATION} cannot be read ({type(e).__name__}: {str(e).splitlines()[0]})"]
    cff = cff if isinstance(cff, dict) else {}
    ids = cff.get("identifiers")
    ids = [i if isinstance(i, dict) else {} for i in ids] + [{}, {}] if isinstance(ids, list) else [{}, {}]
    authors = cff.get("authors") if isinstance(cff.get("authors"), list) else []
    wanted = {  # CITATION.cff's field: (what it holds, what pyproject.toml says)
        "version": (cff.get("version"), own.version),
        "date-released": (cff.get("date-released"), day),
        "identifiers[0] (this version's frozen address)": (ids[0].get("value"), f"{own.site_url}{own.version}/"),
        "identifiers[1] (the newest's)": (ids[1].get("value"), f"{own.site_url}{identity.LATEST}/"),
        "url": (cff.get("url"), own.site_url),
        "repository-code": (cff.get("repository-code"), own.repository),
        "title": (cff.get("title"), own.title["en"]),
        "authors": ([a.get("name") if isinstance(a, dict) else a for a in authors], list(own.authors)),
        "license": (cff.get("license"), [own.code_licence, own.content_licence]),
    }
    for field, (found, want) in wanted.items():
        found = str(found) if field == "date-released" and found is not None else found  # YAML reads a bare date
        if found != want:
            problems.append(f"{CITATION} {field} is {found!r}, not {want!r}")
    description = str(ids[0].get("description", ""))
    if not re.search(rf"(?<![\w.]){re.escape(own.version)}(?!\w|\.\w)", description):
        problems.append(f"{CITATION} identifiers[0] description {description!r} does not name version {own.version}")
    return problems


def check_citation(version: str, tree: Path) -> None:
    """Refuse, in one line naming each field to change, a tagged tree whose files disagree (see
    citation_problems): the tag itself must hold the right CITATION.cff, the one GitHub and every
    copy of the tag show, so the release command changes nothing and asks for a corrected tag."""
    day = _git("log", "-1", "--format=%cs", "HEAD", cwd=tree)
    if problems := citation_problems(tree, day):
        raise ReleaseError(f"v{version} cannot be released as tagged: {'; '.join(problems)}. Set each in its file "
                           f"(.github/CONTRIBUTING.md, \"Releases\"), commit, and tag that commit (git tag -f v{version})")


@contextlib.contextmanager
def tag_tree(version: str, root: Path = ROOT) -> Iterator[Path]:
    """The files of the commit tagged v<version>, and nothing else, in a temporary folder: a git
    worktree of the checkout's repository, so that mike commits to its branches and the pages are
    dated by its history. Its .cache/ is the checkout's (every cache in it is keyed by what the
    code reaches), so that a release draws only what the checkout's builds have not drawn."""
    root = root.resolve()
    with tempfile.TemporaryDirectory(prefix="mha-release-") as tmp:
        tree = Path(tmp) / "tree"
        _git("worktree", "add", "--quiet", "--detach", str(tree), f"v{version}^{{commit}}", cwd=root)
        try:
            (root / ".cache").mkdir(exist_ok=True)
            (tree / ".cache").symlink_to(root / ".cache", target_is_directory=True)
            yield tree
        finally:
            (tree / ".cache").unlink(missing_ok=True)  # the link, never the checkout's cache
            _git("worktree", "remove", "--force", str(tree), cwd=root, check=False)
            _git("worktree", "prune", cwd=root, check=False)


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
    for name in PATH_ENVS:
        if env.get(name, "").strip() and not switches.switched_off(name):
            env[name] = str(Path(env[name].strip()).resolve())
    mike = [str(Path(scripts) / "mike")]
    where = ["--remote", remote, "--branch", branch] + (["--push"] if push else [])
    with tag_tree(version, root) as tree:
        check_citation(version, tree)
        subprocess.run([*mike, "deploy", "--update-aliases", *where, version, identity.LATEST], cwd=tree, check=True,
                       env=env)
        subprocess.run([*mike, "set-default", *where, identity.LATEST], cwd=tree, check=True, env=env)
    root_not_found(branch, version, f"The root's 404 page: {version}'s", root)
    if push:
        _git("push", remote, branch, cwd=root)
    return version


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(prog="python -m figures.site.release", description=__doc__.split("\n\n")[0])
    parser.add_argument("--remote", default="origin", help="the repository the Pages branch is pushed to")
    parser.add_argument("--branch", default="gh-pages", help="the Pages branch (mike's)")
    parser.add_argument("--push", action="store_true", help="push the branch to the remote when done")
    args = parser.parse_args(argv)
    try:
        version = release(args.remote, args.branch, args.push, root)
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
