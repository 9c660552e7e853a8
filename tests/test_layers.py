"""The rooms of the code and the order of its layers: every import points down, and none goes round.

mha_ref < figures.keep (the disk caches) < figures.numbers (the named numbers) < figures.kit,
figures.text < figures.gallery < figures.engine < figures.publish < figures.site and the CLI < bench. The imports are read from the source (every `import`, every
`from ... import`, wherever it stands, and `importlib.import_module("...")` with a literal name, as
the MkDocs hooks use), so an import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mha_ref", "figures", "bench")
# (prefix, layer): the longest prefix that names a module decides its layer
LAYERS = [("mha_ref", 0), ("figures.keep", 1), ("figures.numbers", 2), ("figures.kit", 3), ("figures.text", 3),
          ("figures.gallery", 4), ("figures.engine", 5), ("figures.publish", 6), ("figures.site", 7),
          ("figures.__main__", 7), ("figures.new", 7), ("bench", 8)]
LEAVES = ("figures.text",)  # a leaf imports nothing of figures outside itself but the rooms below it


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(path: Path) -> set[str]:
    """Every module of ours that the file imports, by full name."""
    name, tree = module_name(path), ast.parse(path.read_bytes())
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module] if node.level else [node.module]) \
                if node.module else ".".join(package[:len(package) - node.level + 1])
            targets = [f"{base}.{a.name}" if is_module(f"{base}.{a.name}") else base for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            targets = [node.args[0].value]
        found |= {t for t in targets if t.split(".")[0] in PACKAGES and is_module(t)}
    return found - {name}


@functools.cache
def graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    # a package's __init__ is not an import of the package's modules: leave packages out as targets
    return {module_name(p): {t for t in imports(p) if not (ROOT.joinpath(*t.split(".")) / "__init__.py").is_file()}
            for p in files}


def layer(name: str) -> int:
    return max(((len(prefix), n) for prefix, n in LAYERS if name == prefix or name.startswith(prefix + ".")),
               default=(0, -1))[1]


def test_every_module_has_a_layer():
    assert [m for m in graph() if m not in ("figures",) and layer(m) < 0] == []


def test_imports_only_point_down():
    upward = [f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
              for m, targets in graph().items() for t in sorted(targets) if layer(t) > layer(m)]
    assert upward == []


def test_the_text_layer_is_a_leaf():
    reached = [f"{m} imports {t}" for m, targets in graph().items() if m.startswith(LEAVES)
               for t in targets if t.startswith("figures.") and not t.startswith(LEAVES) and layer(t) >= layer(m)]
    assert reached == []


def test_kit_and_gallery_do_not_import_the_machinery():
    wrong = [f"{m} imports {t}" for m, targets in graph().items() if m.startswith(("figures.kit", "figures.gallery"))
             for t in targets if t.startswith(("figures.engine", "figures.publish", "figures.site"))]
    assert wrong == []


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_tests_do_not_import_bench():
    found = [f"{p.name} imports {t}" for p in (ROOT / "tests").glob("*.py") for t in imports(p) if t.startswith("bench")]
    assert found == []


def test_import_mha_ref_loads_the_reference_only():
    code = ("import sys, mha_ref; print(' '.join(sorted(m for m in sys.modules if m.startswith('mha_ref')"
            " or m.split('.')[0] in ('scipy', 'threadpoolctl', 'matplotlib'))))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["mha_ref", "mha_ref.attention", "mha_ref.backward", "mha_ref.checks", "mha_ref.flash", "mha_ref.latent", "mha_ref.params",
                      "mha_ref.rope", "mha_ref.windows"]
    import mha_ref
    assert callable(mha_ref.multi_head_attention_backward)


@pytest.mark.parametrize("folder", ["figures/gallery"])
def test_the_gallery_holds_figures_only(folder):
    from figures.engine import registry
    files = {p.stem for p in (ROOT / folder).glob("*.py")} - {"__init__"}
    assert files == {fig_id.replace("-", "_") for fig_id in registry.ORDER}
