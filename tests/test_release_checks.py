"""What the release command (figures/site/release.py) refuses before it builds anything, and the
tree it builds from, on a small git repository holding the checkout's pyproject.toml and
CITATION.cff: no site is built here (tests/test_release.py makes two releases for real)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from figures.publish import identity
from figures.site import release
from release_steps import commit_and_tag, set_release

ROOT = Path(__file__).resolve().parents[1]
DAY = "2027-03-04"  # the tagged commit's day in these repositories


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A git repository with the checkout's identity files and a page, not yet committed."""
    monkeypatch.delenv(identity.SITE_URL_ENV, raising=False)
    monkeypatch.delenv(identity.RELEASE_ENV, raising=False)
    repo = tmp_path / "repo"
    for name in ("pyproject.toml", "CITATION.cff", "docs/index.en.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    _git(repo, "init", "-q", "-b", "main")
    return repo


def _refusal(repo: Path, capsys) -> str:
    """The release command's whole output in `repo`, which must refuse: one line on stderr."""
    assert release.main(["--branch", "pages"], root=repo) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and _git(repo, "branch", "--list", "pages") == ""  # nothing released
    return err.removeprefix("release: ").rstrip("\n")


# ---- CITATION.cff and release_date say what pyproject.toml says --------------------------------------

def test_the_guide_s_steps_leave_nothing_to_disagree(repo):
    set_release(repo, "2.3.4", DAY)
    assert release.citation_problems(repo, DAY) == []


def test_the_guide_names_every_file_and_field_the_steps_change(repo):
    """The steps above (release_steps.set_release) are all the check asks for; the guide's
    "Releases" names each file and field they change, read from git's diff of them."""
    commit_and_tag(repo, "0.0.1", DAY)
    set_release(repo, "2.3.4", "2027-05-06")
    guide = (ROOT / ".github/CONTRIBUTING.md").read_text(encoding="utf-8")
    steps = guide.split("\n## Releases\n", 1)[1].split("\n## ", 1)[0].split("```sh", 1)[0]
    diff = _git(repo, "diff", "-U0")
    files = re.findall(r"^\+\+\+ b/(.+)$", diff, re.M)
    keys = {m[2] for m in re.finditer(r"^\+\s*(-\s*)?([\w-]+)\s*[=:]", diff, re.M)}
    assert files == ["CITATION.cff", "pyproject.toml"] and len(keys) == 5, diff
    for name in files + sorted(keys - {"value", "description"}):
        assert f"`{name}`" in steps, name
    assert {"value", "description"} <= keys and "first identifier" in steps and "description" in steps


def test_a_version_raised_in_pyproject_only_is_found_in_every_field_that_names_it(repo):
    """The issue's release: `version` raised in pyproject.toml, nothing else."""
    cff = yaml.safe_load((repo / "CITATION.cff").read_text(encoding="utf-8"))
    old_version, old_day = cff["version"], cff["date-released"]
    site = identity.load(repo / "pyproject.toml", environ={}).site_url
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    (repo / "pyproject.toml").write_text(text.replace(f'version = "{old_version}"', 'version = "2.3.4"', 1), encoding="utf-8")
    assert release.citation_problems(repo, DAY) == [
        f"pyproject.toml release_date is {old_day!r}, not {DAY!r} (the day of the tagged commit)",
        f"CITATION.cff version is {old_version!r}, not '2.3.4'",
        f"CITATION.cff date-released is {old_day!r}, not {DAY!r}",
        f"CITATION.cff identifiers[0] (this version's frozen address) is '{site}{old_version}/', not '{site}2.3.4/'",
        f"CITATION.cff identifiers[0] description {cff['identifiers'][0]['description']!r} does not name version 2.3.4",
    ]


def test_the_file_names_pyproject_s_address_not_the_build_s(repo, monkeypatch):
    """CITATION.cff is committed: it names pyproject's site_url whatever MHA_SITE_URL a build is given."""
    set_release(repo, "2.3.4", DAY)
    monkeypatch.setenv(identity.SITE_URL_ENV, "https://elsewhere.example.net/")
    assert release.citation_problems(repo, DAY) == []
    cff = repo / "CITATION.cff"
    cff.write_text(cff.read_text(encoding="utf-8").replace("https://mha-explained.example.org/latest/",
                                                           "https://mha-explained.example.org/newest/"), encoding="utf-8")
    assert release.citation_problems(repo, DAY) == [
        "CITATION.cff identifiers[1] (the newest's) is 'https://mha-explained.example.org/newest/', "
        "not 'https://mha-explained.example.org/latest/'"]
    cff.write_text("version: [", encoding="utf-8")
    assert [p.split(" (")[0] for p in release.citation_problems(repo, DAY)] == ["CITATION.cff cannot be read"]


def test_the_release_command_refuses_the_issue_s_tag_in_one_line_naming_each_field(repo, capsys):
    set_release(repo, "2.3.4", DAY)
    text = (repo / "CITATION.cff").read_text(encoding="utf-8")
    (repo / "CITATION.cff").write_text(text.replace('version: "2.3.4"', 'version: "2.3.3"'), encoding="utf-8")
    commit_and_tag(repo, "2.3.4", DAY)
    message = _refusal(repo, capsys)
    assert message == ("v2.3.4 cannot be released as tagged: CITATION.cff version is '2.3.3', not '2.3.4'. Set each in "
                       "its file (.github/CONTRIBUTING.md, \"Releases\"), commit, and tag that commit (git tag -f v2.3.4)")
    assert _git(repo, "worktree", "list").count("\n") == 1  # the tag's tree is gone again


def test_a_release_date_that_is_not_the_tagged_commit_s_day_is_refused(repo, capsys):
    set_release(repo, "2.3.4", "2027-03-03")  # prepared the day before, committed the next
    commit_and_tag(repo, "2.3.4", DAY)
    message = _refusal(repo, capsys)
    assert message.startswith("v2.3.4 cannot be released as tagged: pyproject.toml release_date is '2027-03-03', "
                              f"not {DAY!r} (the day of the tagged commit); CITATION.cff date-released is '2027-03-03', "
                              f"not {DAY!r}. Set each")


# ---- the version ----------------------------------------------------------------------------------

@pytest.mark.parametrize("version, why", [
    ("versions.json", "cannot be released: a release's version is three numbers, X.Y.Z (1.2.0)"),
    (identity.LATEST, "cannot be released: a release's version is three numbers"),
    ("1.2", "cannot be released"), ("01.2.0", "cannot be released"), ("1.2.0rc1", "cannot be released"),
    ("1.2.0 beta", "is not a valid version: letters, digits and . + ! _ - only"),
    ("1/2/0", "is not a valid version"), (".", "is not a valid version"),
])
def test_a_version_that_is_not_x_y_z_is_refused_in_one_line(repo, capsys, version, why):
    """mike takes any version without a slash: `versions.json` overwrote its own list, and `latest`
    went as far as mike's refusal of a version named like an alias."""
    set_release(repo, "2.3.4", DAY)
    path = repo / "pyproject.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('version = "2.3.4"', f'version = "{version}"'),
                    encoding="utf-8")
    commit_and_tag(repo, "2.3.4", DAY)
    assert _refusal(repo, capsys).startswith(f"pyproject.toml [project] version = {version!r} {why}")


@pytest.mark.parametrize("version", ["0.0.0", "1.2.3", "10.20.30"])
def test_a_plain_version_is_a_release_s(version):
    assert identity.release_version_problem(version) is None


def test_a_build_deployed_under_a_version_that_is_not_x_y_z_is_refused(repo, monkeypatch):
    """mike deploy run by hand sets MIKE_DOCS_VERSION too: the build refuses what the command does."""
    path = repo / "pyproject.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('version = "0.1.0"', 'version = "versions.json"'),
                    encoding="utf-8")
    monkeypatch.setenv(identity.RELEASE_ENV, "versions.json")
    with pytest.raises(identity.IdentityError, match=r"^pyproject.toml \[project\] version = 'versions.json' cannot be "
                                                     r"released: a release's version is three numbers"):
        identity.load(path)
    assert identity.load(path, environ={}).release is None  # pyproject alone: no release, any version


# ---- built from the tag's tree only -----------------------------------------------------------------

def test_the_tree_a_release_is_built_in_holds_the_tag_s_files_and_nothing_else(repo):
    set_release(repo, "2.3.4", DAY)
    commit_and_tag(repo, "2.3.4", DAY)
    tagged = set(_git(repo, "ls-tree", "-r", "--name-only", "v2.3.4").split())
    (repo / "docs/untracked.en.md").write_text("# Not committed {#untracked}\n", encoding="utf-8")
    (repo / "docs/index.en.md").write_text("# Edited, not committed {#index}\n", encoding="utf-8")
    (repo / ".cache").mkdir()
    with release.tag_tree("2.3.4", repo) as tree:
        found = {p.relative_to(tree).as_posix() for p in tree.rglob("*")
                 if p.is_file() and not {".git", ".cache"} & set(p.relative_to(tree).parts)}
        assert found == tagged and "docs/untracked.en.md" not in found
        assert (tree / "docs/index.en.md").read_bytes() == (ROOT / "docs/index.en.md").read_bytes()
        assert (tree / ".cache").resolve() == (repo / ".cache").resolve()  # the checkout's caches
        assert _git(tree, "log", "-1", "--format=%cs") == f"{DAY}\n"  # its pages are dated by the history
    assert not tree.exists() and (repo / ".cache").is_dir()  # the link went, the checkout's cache stays
    assert _git(repo, "worktree", "list").count("\n") == 1
