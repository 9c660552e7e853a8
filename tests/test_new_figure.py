"""python -m figures new ID (figures/new.py): a new figure's module that draws, a test of its claim and
its id in ORDER, written into a copy of the checkout; a bad or taken id refused in one line, nothing
written."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkout_copy import copy_checkout
from figures import new
from figures.__main__ import main as figures_cli
from figures.engine import registry
from figures.text.constructs import FIGURE, outside_code

ROOT = Path(__file__).resolve().parents[1]
INIT = ROOT / "figures" / "gallery" / "__init__.py"


def _order(init: Path) -> list[str]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return next(list(ast.literal_eval(n.value)) for n in tree.body
                if isinstance(n, ast.Assign) and n.targets[0].id == "ORDER")


@pytest.mark.parametrize("argv, said", [
    (["Bad_ID"], "figure id 'Bad_ID' is not lower-case words joined by '-'"),
    (["peak-dip"], "figure id 'peak-dip' is taken (figures/gallery/peak_dip.py)"),
    ([""], "the figure id is empty"),
    (["  "], "the figure id is empty"),
    (["class"], "figure id 'class' is a Python keyword"),
    (["2-heads"], "figure id '2-heads' is not lower-case words"),
    (["query--picks"], "figure id 'query--picks' is not lower-case words"),
    (["a-new-one", "--after", "peak-dips"], "--after: unknown figure id 'peak-dips'; did you mean 'peak-dip'"),
    (["a-new-one", "--page", "one-head-blend"], "no page 'one-head-blend' in docs/ (docs/NAME.zh.md and docs/NAME.en.md); "
                                                "did you mean 'one-head-blends'"),
])
def test_a_bad_id_page_or_neighbour_is_refused_in_one_line_and_nothing_is_written(capsys, monkeypatch, tmp_path, argv, said):
    # the checkout's list, gallery and pages, copied: a refusal that failed would write there, not here
    for rel in ("figures/gallery", "docs"):
        shutil.copytree(ROOT / rel, tmp_path / rel, ignore=shutil.ignore_patterns("__pycache__", "assets"))
    (tmp_path / "tests").mkdir()
    monkeypatch.setattr(new, "ROOT", tmp_path)
    before = sorted((p, p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    capsys.readouterr()
    status = figures_cli(["new", *argv])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.startswith(f"error: {said}"), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sorted((p, p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()) == before


def test_a_file_already_there_for_an_unregistered_id_is_refused(tmp_path):
    (tmp_path / "figures" / "gallery").mkdir(parents=True)
    (tmp_path / "figures" / "gallery" / "__init__.py").write_bytes(INIT.read_bytes())
    (tmp_path / "figures" / "gallery" / "left_over.py").write_text("# mine\n")
    with pytest.raises(new.Refused, match=r"^figures/gallery/left_over\.py exists already, though 'left-over' is not registered"):
        new.create("left-over", root=tmp_path)
    assert (tmp_path / "figures" / "gallery" / "left_over.py").read_text() == "# mine\n"


DRAW = """
import sys
from figures.engine import registry
from figures.gallery import ORDER
from figures.kit.style import narrow
import matplotlib.pyplot as plt
m = registry.get(sys.argv[1])  # the module's required names checked here
assert m.__file__.startswith(sys.argv[2]), m.__file__  # the copy's module, not this checkout's
values = list(m.CONTROL.values) if m.CONTROL else [None]
tables = {}
for lang in ("zh", "en"):
    for v in values:
        plt.close(m.draw(lang, v))
    with narrow():
        plt.close(m.draw(lang, m.CONTROL.start if m.CONTROL else None))
    head, rows = m.data(lang)
    assert rows and all(len(r) == len(head) for r in rows), (head, rows)
    tables[lang] = [r[1:] for r in rows]
assert tables["zh"] == tables["en"]  # the same numbers in both languages
print(" ".join(ORDER))
"""


def _run(copy: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy)}  # the copy's figures and mha_ref, not this checkout's
    return subprocess.run([sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True, timeout=120)


def test_a_new_figure_draws_its_test_runs_and_its_id_follows_its_pages_last_figure(tmp_path):
    copy = copy_checkout(tmp_path / "checkout")
    page = "one-head-blends"
    created = new.create("query-picks", page=page, root=copy)
    module, test = copy / "figures/gallery/query_picks.py", copy / "tests/test_fig_query_picks.py"
    assert (created.module, created.test) == (module.relative_to(copy), test.relative_to(copy))
    # registered after the figure of the page that comes last in ORDER: one line added, no other moved
    order = _order(INIT)
    on_page = [m["id"] for m in outside_code(FIGURE, (copy / f"docs/{page}.en.md").read_text(encoding="utf-8"))]
    last = max(on_page, key=order.index)
    assert _order(copy / "figures/gallery/__init__.py") == order[:order.index(last) + 1] + ["query-picks"] + \
        order[order.index(last) + 1:]
    added = set((copy / "figures/gallery/__init__.py").read_text(encoding="utf-8").splitlines()) - set(INIT.read_text(encoding="utf-8").splitlines())
    assert added == {'    "query-picks",'}

    # the module imports, has every required name, draws every frame in both languages, at a phone's width too
    drawn = _run(copy, "-c", DRAW, "query-picks", str(copy))
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stdout.split() == _order(copy / "figures/gallery/__init__.py")

    # its test runs: the claim holds on the template's drawing; the template's marks fail it, naming the lines
    run = _run(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(test.relative_to(copy)))
    assert re.search(r"\b1 failed, 2 passed\b", run.stdout), run.stdout
    assert "FAILED tests/test_fig_query_picks.py::test_query_picks_is_no_longer_the_template" in run.stdout
    assert re.search(r"replace each line marked TEMPLATE: .*query_picks\.py:1, .*test_fig_query_picks\.py:\d+", run.stdout)
    for path in (module, test):  # the author's words in place of the marks: it passes
        path.write_text(path.read_text(encoding="utf-8").replace("TEMPLATE: ", ""), encoding="utf-8")
    run = _run(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(test.relative_to(copy)))
    assert re.search(r"\b3 passed\b", run.stdout) and "failed" not in run.stdout, run.stdout

    # what is left to do names the page's two files, the construct, the named numbers, how to see it
    steps = new.next_steps(created)
    for said in (f"{{{{ figure query-picks }}}}, in docs/{page}.zh.md and docs/{page}.en.md",
                 f"below {{{{ figure {last} }}}} (docs/{page}.zh.md:", "figures/numbers/quantities.py",
                 "tests/test_fig_query_picks.py", f"mkdocs serve, then http://127.0.0.1:8000/{page}/#fig-query-picks"):
        assert said in steps, (said, steps)


def test_after_puts_it_right_behind_that_figure_and_without_either_last(tmp_path, monkeypatch, capsys):
    (tmp_path / "figures" / "gallery").mkdir(parents=True)
    init = tmp_path / "figures" / "gallery" / "__init__.py"
    init.write_bytes(INIT.read_bytes())
    order = _order(INIT)
    monkeypatch.setattr(new, "ROOT", tmp_path)
    capsys.readouterr()
    assert figures_cli(["new", "one-more", "--after", order[1]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote figures/gallery/one_more.py (the figure) and tests/test_fig_one_more.py (its claim)\n"
                          f"registered 'one-more' in figures/gallery/__init__.py (after {order[1]!r})"), out
    assert _order(init) == [*order[:2], "one-more", *order[2:]]
    new.create("and-another", root=tmp_path)
    assert _order(init)[-1] == "and-another" and len(_order(init)) == len(order) + 2
    assert registry.ORDER == tuple(order)  # this checkout's list untouched
