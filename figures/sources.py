"""What a figure is drawn from, as one digest: the code it reaches, the fonts, the library versions.

Code counts as its syntax tree without docstrings, so an edit to a comment or a docstring changes
no digest. A figure's own module and every `figures` module it imports count whole. In `mha_ref`
only what the figure can reach by name counts: each function or class named from the figure code
or from a function already reached, and the top-level statements (constants, import-time calls)
of every module reached. An edit to an `mha_ref` function thus redraws only the figures that
reach it; a call that names nothing (a function fetched with getattr) would go unseen.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from pathlib import Path

import matplotlib
import noto_cjk_sans_otc
import numpy as np
from matplotlib import font_manager, ft2font

ROOT = Path(__file__).resolve().parents[1]
WHOLE = "figures"  # modules of this package count whole
BY_NAME = "mha_ref"  # modules of this package count by the functions and classes reached
HARNESS = "figures.render"  # what turns every figure into bytes (it imports style and registry)
NOT_DRAWING = ("figures.cache", "figures.sources")  # where frames are kept, not what they hold

Unit = tuple[str, str | None]  # (module, top-level def) or (module, None): its other statements


def environment() -> str:
    """The library versions and the fonts every frame depends on."""
    font = Path(noto_cjk_sans_otc.FONT_PATH).stat()
    known = sorted((f.fname, f.name, f.style, f.weight, f.stretch, f.variant) for f in font_manager.fontManager.ttflist)
    parts = (sys.version_info[:2], matplotlib.__version__, np.__version__, ft2font.__freetype_version__,
             noto_cjk_sans_otc.FONT_PATH, font.st_size, font.st_mtime_ns, known)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


class _Module:
    """One parsed module: its top-level defs, its other statements and what its imports name."""

    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path
        self.is_package = path.name == "__init__.py"
        self.tree = _strip_docstrings(ast.parse(path.read_bytes(), str(path)))
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        self.defs: dict[str, ast.Module] = {}  # a name defined twice counts both definitions
        for n in self.tree.body:
            if isinstance(n, defs):
                self.defs.setdefault(n.name, ast.Module(body=[], type_ignores=[])).body.append(n)
        self.top = ast.Module(body=[n for n in self.tree.body if not isinstance(n, defs)], type_ignores=[])
        self.imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(node.module, node.level)
                for a in node.names:
                    self.imports[a.asname or a.name] = (base, a.name)

    def _absolute(self, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        package = self.name.split(".") if self.is_package else self.name.split(".")[:-1]
        package = package[:len(package) - (level - 1)]
        return ".".join(package + ([module] if module else []))


class Sources:
    """The figure and reference code of a checkout, parsed once; digests of what each figure reaches."""

    def __init__(self, root: Path = ROOT):
        self.root = Path(root)
        self.env = environment()
        self._modules: dict[str, _Module | None] = {}
        self._units: dict[Unit, tuple[str, frozenset[Unit]]] = {}
        self._digests: dict[str, str] = {}

    def module(self, name: str) -> _Module | None:
        if name.split(".")[0] not in (WHOLE, BY_NAME) or name in NOT_DRAWING:
            return None  # numpy, matplotlib, ...: covered by their versions
        if name not in self._modules:
            base = self.root.joinpath(*name.split("."))
            paths = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
            self._modules[name] = _Module(name, paths[0]) if paths else None
        return self._modules[name]

    def _module_unit(self, name: str) -> Unit | None:
        mod = self.module(name)
        return None if mod is None else (name, "*" if name.split(".")[0] == WHOLE else None)

    def _symbol(self, module: str, attr: str) -> set[Unit]:
        """What `module.attr` names: a submodule, a def, a re-exported name or a constant."""
        if self.module(f"{module}.{attr}") is not None:
            return {self._module_unit(f"{module}.{attr}")} - {None}
        mod = self.module(module)
        if mod is None:
            return set()
        units = {self._module_unit(module)} - {None}
        if units == {(module, "*")}:
            return units
        if attr in mod.defs:
            units.add((module, attr))
        elif attr in mod.imports:  # re-exported, as mha_ref/__init__.py does
            units |= self._local(mod, attr)[0]
        return units

    def _local(self, mod: _Module, name: str) -> tuple[set[Unit], str | None]:
        """What a name used in `mod` refers to, and the module it is, if it is one."""
        if name in mod.defs:
            return {self._module_unit(mod.name) if mod.name.startswith(WHOLE) else (mod.name, name)}, None
        if name not in mod.imports:
            return set(), None  # a local variable, a builtin, or a constant of `mod` (in its top unit)
        module, attr = mod.imports[name]
        if attr is not None and self.module(f"{module}.{attr}") is None:
            return self._symbol(module, attr), None
        module = module if attr is None else f"{module}.{attr}"
        return {self._module_unit(module)} - {None}, module

    def _names(self, mod: _Module, node: ast.AST) -> set[Unit]:
        """The units that the names used inside `node` (code of module `mod`) refer to."""
        units: set[Unit] = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                units |= self._local(mod, n.id)[0]
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                module = self._local(mod, n.value.id)[1]
                if module is not None:
                    units |= self._symbol(module, n.attr)
        return units

    def _unit(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        """A unit's own digest and the units it names."""
        if unit not in self._units:
            self._units[unit] = self._read(unit)
        return self._units[unit]

    def _read(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        name, part = unit
        mod = self.module(name)
        node = mod.tree if part == "*" else mod.top if part is None else mod.defs[part]
        refs = self._names(mod, node)
        if part != "*":
            refs.add((name, None))  # a def reached brings its module's constants with it
        if part == "*":  # importing runs the imported modules, used or not (mha_ref has no side effects)
            for stmt in (n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))):
                for target in {mod.imports[a.asname or a.name.split(".")[0]] for a in stmt.names if a.name != "*"}:
                    module = ".".join(filter(None, target))
                    refs |= {self._module_unit(module if self.module(module) else target[0])} - {None}
        digest = hashlib.sha256(ast.dump(node).encode()).hexdigest()
        return digest, frozenset(refs - {unit, None})

    def reached(self, module: str) -> dict[Unit, str]:
        """Every unit a figure module reaches, with its digest (the harness included)."""
        todo = [u for u in (self._module_unit(module), self._module_unit(HARNESS)) if u]
        seen: dict[Unit, str] = {}
        while todo:
            unit = todo.pop()
            if unit in seen:
                continue
            seen[unit], refs = self._unit(unit)
            todo.extend(refs)
        return seen

    def digest(self, module: str) -> str:
        """One digest of everything the figure in `module` is drawn from."""
        if module not in self._digests:
            h = hashlib.sha256(self.env.encode())
            for (name, part), digest in sorted(self.reached(module).items(), key=lambda kv: repr(kv[0])):
                h.update(f"{name}:{part}:{digest}\n".encode())
            self._digests[module] = h.hexdigest()
        return self._digests[module]

    def stamp(self) -> str:
        """A digest of every byte of the code the digests are read from, and of the environment:
        while it holds, the digests do too, and need not be worked out again."""
        h = hashlib.sha256(self.env.encode())
        for package in (WHOLE, BY_NAME):
            for path in sorted((self.root / package).rglob("*.py")):
                h.update(path.relative_to(self.root).as_posix().encode() + b"\0" + path.read_bytes())
        return h.hexdigest()
