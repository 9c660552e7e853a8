"""The digest of the code a result depends on (CodeReach), which names every result kept on disk.

A result kept on disk is named by a digest of what it is made from, so an edit gives a new name and
a stale file is never read. The code counts as its syntax tree without docstrings, so an edit to a
comment or a docstring changes no digest. What counts is found by following names (CodeReach):
from a starting function, each function or class it names, and theirs in turn, and the top-level
statements (constants, import-time calls) of every module reached; in a package counted whole, a
module imported counts entirely. A call that names nothing (a function fetched with getattr) would
go unseen.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from pathlib import Path

from .disk import ROOT, cache_folder, kept_or_made

Unit = tuple[str, str | None]  # (module, top-level def) or (module, None): its other statements


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def code_text(source: str) -> str:
    """A module's source as the digests see it: its syntax tree as text, without comments,
    docstrings or line numbers (what an edit to the code changes and an edit to its explanations
    does not)."""
    return ast.dump(_strip_docstrings(ast.parse(source)))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _module_facts(name: str, is_package: bool, source: bytes, path: Path) -> dict:
    """What the digests read from a module's syntax tree (docstrings stripped): each part's digest
    and the names it uses ("*" the whole module, None its statements outside defs, or a def by
    name), what its imports name, and the lines of its function definitions."""
    tree = _strip_docstrings(ast.parse(source, str(path)))
    defs: dict[str, ast.Module] = {}  # a name defined twice counts both definitions
    for n in tree.body:
        if isinstance(n, _DEFS):
            defs.setdefault(n.name, ast.Module(body=[], type_ignores=[])).body.append(n)
    parts = {"*": tree, None: ast.Module(body=[n for n in tree.body if not isinstance(n, _DEFS)], type_ignores=[]),
             **defs}
    statements = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
    for node in statements:
        if isinstance(node, ast.Import):
            for a in node.names:
                imports[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
        else:
            base = _absolute(name, is_package, node.module, node.level)
            for a in node.names:
                imports[a.asname or a.name] = (base, a.name)
    return {"parts": [[part, hashlib.sha256(ast.dump(node).encode()).hexdigest(), _used(node)]
                      for part, node in parts.items()],
            "imports": [[local, list(target)] for local, target in imports.items()],
            "imported": [a.asname or a.name.split(".")[0] for stmt in statements for a in stmt.names if a.name != "*"],
            "lines": {part: [n.lineno for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                      for part, node in defs.items()}}


def _used(node: ast.AST) -> list[tuple[str, str | None]]:
    """The names used inside `node`, in order, once each: (name, None) for `name`, (name, attr) for `name.attr`."""
    found: dict[tuple[str, str | None], None] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found[(n.id, None)] = None
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            found[(n.value.id, n.attr)] = None
    return list(found)


def _absolute(name: str, is_package: bool, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    package = name.split(".") if is_package else name.split(".")[:-1]
    package = package[:len(package) - (level - 1)]
    return ".".join(package + ([module] if module else []))


class _Module:
    """One module as the digests see it: its parts' digests and the names each uses, its top-level
    defs (with the lines of their function definitions) and what its imports name."""

    def __init__(self, name: str, path: Path, facts: dict):
        self.name, self.path = name, path
        self.is_package = path.name == "__init__.py"
        self.digests: dict[str | None, str] = {part: digest for part, digest, _ in facts["parts"]}
        self._names = {part: tuple((n, a) for n, a in used) for part, _, used in facts["parts"]}
        self.defs: dict[str, list[int]] = {part: lines for part, lines in facts["lines"].items()}
        self.imports: dict[str, tuple[str, str | None]] = {local: (m, a) for local, (m, a) in facts["imports"]}
        self.imported: list[str] = facts["imported"]  # the local names its import statements bind

    def names(self, part: str | None) -> tuple[tuple[str, str | None], ...]:
        """The names a part uses: (name, None) for `name`, (name, attr) for `name.attr`."""
        return self._names[part]


_PARSED: dict[tuple, _Module] = {}  # (name, path, source) -> the module read: once per process, not per CodeReach
# What a module's facts are read with: this file's code and Python's syntax trees (ast.dump differs between versions)
_FACTS_SALT = hashlib.sha256(Path(__file__).read_bytes()).hexdigest() + repr(sys.version_info[:2])


def _parsed(name: str, path: Path) -> _Module:
    """The module at `path` as the digests see it, parsed once per process (a build makes a CodeReach
    for each figure's digest, and each would otherwise parse the modules again), and once per source
    on this machine: its facts are kept in the cache folder's code/, named by a digest of the module's
    name, its source and _FACTS_SALT, so a process whose code did not change parses nothing."""
    source = path.read_bytes()
    key = (name, str(path), hashlib.sha256(source).digest())
    if key not in _PARSED:
        is_package = path.name == "__init__.py"
        folder = cache_folder("code")
        digest = hashlib.sha256(f"{name}\0{is_package}\0{_FACTS_SALT}\0".encode() + source).hexdigest()
        facts = kept_or_made(None if folder is None else folder / f"{digest}.json", json.loads,
                             lambda: _module_facts(name, is_package, source, path),
                             lambda f: json.dumps(f).encode(), "a module's facts")
        _PARSED[key] = _Module(name, path, facts)
    return _PARSED[key]


class CodeReach:
    """The code of packages below `root`, parsed once, and what a unit of it reaches by name.

    whole: packages whose modules count entirely once imported; by_name: packages whose modules
    count by the functions and classes reached; skip: modules that never count.
    """

    def __init__(self, root: Path = ROOT, whole: tuple[str, ...] = (), by_name: tuple[str, ...] = ("mha_ref",),
                 skip: tuple[str, ...] = ()):
        self.root, self.whole, self.by_name, self.skip = Path(root), whole, by_name, skip
        self._modules: dict[str, _Module | None] = {}
        self._units: dict[Unit, tuple[str, frozenset[Unit]]] = {}

    def module(self, name: str) -> _Module | None:
        if name.split(".")[0] not in (*self.whole, *self.by_name) or name in self.skip:
            return None  # numpy, matplotlib, ...: covered by their versions
        if name not in self._modules:
            base = self.root.joinpath(*name.split("."))
            paths = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
            self._modules[name] = _parsed(name, paths[0]) if paths else None
        return self._modules[name]

    def _module_unit(self, name: str) -> Unit | None:
        mod = self.module(name)
        return None if mod is None else (name, "*" if name.split(".")[0] in self.whole else None)

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
            return {self._module_unit(mod.name) if mod.name.split(".")[0] in self.whole else (mod.name, name)}, None
        if name not in mod.imports:
            return set(), None  # a local variable, a builtin, or a constant of `mod` (in its top unit)
        module, attr = mod.imports[name]
        if attr is not None and self.module(f"{module}.{attr}") is None:
            return self._symbol(module, attr), None
        module = module if attr is None else f"{module}.{attr}"
        return {self._module_unit(module)} - {None}, module

    def _names(self, mod: _Module, part: str | None) -> set[Unit]:
        """The units that the names used inside a part of module `mod` refer to."""
        units: set[Unit] = set()
        for name, attr in mod.names(part):
            if attr is None:
                units |= self._local(mod, name)[0]
            else:
                module = self._local(mod, name)[1]
                if module is not None:
                    units |= self._symbol(module, attr)
        return units

    def _unit(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        """A unit's own digest and the units it names."""
        if unit not in self._units:
            self._units[unit] = self._read(unit)
        return self._units[unit]

    def _read(self, unit: Unit) -> tuple[str, frozenset[Unit]]:
        name, part = unit
        mod = self.module(name)
        refs = self._names(mod, part)
        if part != "*":
            refs.add((name, None))  # a def reached brings its module's constants with it
        if part == "*":  # importing runs the imported modules, used or not (mha_ref has no side effects)
            for target in {mod.imports[local] for local in mod.imported}:
                module = ".".join(filter(None, target))
                refs |= {self._module_unit(module if self.module(module) else target[0])} - {None}
        return mod.digests[part], frozenset(refs - {unit, None})

    def reached(self, *start: Unit) -> dict[Unit, str]:
        """Every unit reached from the `start` units, with its own digest."""
        todo = [u for u in start if u and self.module(u[0]) is not None]
        seen: dict[Unit, str] = {}
        while todo:
            unit = todo.pop()
            if unit in seen:
                continue
            seen[unit], refs = self._unit(unit)
            todo.extend(refs)
        return seen

    def digest(self, *start: Unit, salt: str = "") -> str:
        """One digest of every unit reached from `start` (and of `salt`: what else decides the result)."""
        h = hashlib.sha256(salt.encode())
        for (name, part), digest in sorted(self.reached(*start).items(), key=lambda kv: repr(kv[0])):
            h.update(f"{name}:{part}:{digest}\n".encode())
        return h.hexdigest()
