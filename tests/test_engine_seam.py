"""The seam between the site and its engine (figures/site/ENGINE.md): every import of MkDocs, Material,
static-i18n, gen-files, mike or ProperDocs stands in figures/site/, and what makes the figures, their
numbers, the expanded pages, the citations and the downloads works with none of them importable.
An engine's end (MkDocs 2, Material's end of life) then costs the MkDocs layer only."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys

from test_layers import PACKAGES, ROOT, graph, module_name

# the import names of the engine and its plugins (pyproject.toml's mkdocs, mkdocs-material,
# mkdocs-static-i18n, mkdocs-gen-files, mike and the properdocs extra)
ENGINE = ("mkdocs", "material", "mkdocs_static_i18n", "mkdocs_gen_files", "mike", "properdocs")
LAYER = "figures.site"

# Run in a fresh interpreter: every engine package unimportable (a finder ahead of all others), then
# every module named in argv imported, then a figure frame drawn, a page expanded, the site's figure
# numbers read, a page cited and a figure's data table written. Prints what it found as JSON.
WITHOUT_ENGINE = r'''
import importlib, json, sys

ENGINE = set(sys.argv[1].split(","))

class NoEngine:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ENGINE:
            raise ModuleNotFoundError(f"{name}: the engine is unimportable here", name=name)
        return None

sys.meta_path.insert(0, NoEngine())
for name in sys.argv[2:]:
    importlib.import_module(name)

from figures.engine.render import frames, render
from figures.publish import bundles, numbering
from figures.site import cite, markup

svg = render(frames("scale-pitfall")[0], "en", "svg")
page, placed = markup.expand("# A page\n\nThe toy has {{ value toy.n }} tokens.\n\n{{ figure scale-pitfall }}\n",
                             "en", str, "a.en.md")
numbers = numbering.site_numbers()
citation = cite.bibtex(cite.PageCitation(lang="en", slug="index", title="A page", url="https://example.org/",
                                         date="2026-01-02"))
table = bundles.data_csv("scale-pitfall", "en")
print(json.dumps({"svg": svg[:200].decode("utf-8", "replace"), "page": page, "placed": placed,
                  "numbers": len(numbers), "citation": citation, "table": (table or b"").decode("utf-8")[:200],
                  "engine": sorted(m for m in sys.modules if m.split(".")[0] in ENGINE)}))
'''


def engine_imports(path) -> set[str]:
    """The engine packages a file imports (any `import`, wherever it stands)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        found |= {n.split(".")[0] for n in names if n.split(".")[0] in ENGINE}
    return found


@functools.cache
def engine_facing() -> frozenset[str]:
    """Our modules that import the engine, directly or through another module of ours."""
    direct = {module_name(p) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if engine_imports(p)}
    g, facing = graph(), set(direct)
    while True:
        more = {m for m, targets in g.items() if targets & facing} - facing
        if not more:
            return frozenset(facing)
        facing |= more


def test_only_the_mkdocs_layer_imports_the_engine():
    outside = sorted(m for m in engine_facing() if not (m.startswith(LAYER + ".") or m.startswith("bench")))
    assert outside == []


def test_the_engine_facing_modules_are_found():
    # the finder reads what it should: the hooks and gen-files script import MkDocs and gen-files
    facing = engine_facing()
    assert {"figures.site.hooks", "figures.site.gen_figures", "figures.site.linked"} <= facing
    assert "figures.site.cite" not in facing and "figures.publish.bundles" not in facing


def test_figures_numbers_pages_citations_and_downloads_work_without_the_engine():
    facing = engine_facing()
    names = sorted(m for m in graph() if m not in facing and not m.startswith("bench"))
    # what the pages are made of, besides the engine: none of it may come to need the engine
    assert {"figures.site.markup", "figures.site.figure_block", "figures.site.cite", "figures.site.tables",
            "figures.publish.bundles", "figures.publish.numbering", "figures.__main__"} <= set(names)
    run = subprocess.run([sys.executable, "-c", WITHOUT_ENGINE, ",".join(ENGINE), *names], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.splitlines()[-1])
    assert found["engine"] == []
    assert found["svg"].startswith("<?xml") or "<svg" in found["svg"]
    assert found["placed"] == ["scale-pitfall"] and "<figure" in found["page"] and "{{" not in found["page"]
    assert found["numbers"] > 20
    assert found["citation"].startswith("@misc{") and "updated 2026-01-02" in found["citation"]
    assert found["table"].count("\n") >= 2


def test_an_engine_import_is_refused_in_the_seams_interpreter():
    # the blocker blocks: a module that imports MkDocs fails there, naming the engine
    run = subprocess.run([sys.executable, "-c", WITHOUT_ENGINE, ",".join(ENGINE), "figures.site.linked"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "the engine is unimportable here" in run.stderr
