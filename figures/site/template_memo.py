"""The theme's templates compiled once, and kept.

Each build (and each language's, and each rebuild under `mkdocs serve`) makes a new Jinja
environment, which compiles Material's templates again: some eighty files, about a tenth of a warm
build's CPU. Jinja can keep what it compiles in a bytecode cache: a template is looked up by its
name and file, and what is kept is used only while the template's source is unchanged (Jinja keeps
a checksum of it, and the Python version, beside the code). Here that cache is the figure cache's
templates/ folder, one sub-folder per Jinja version and environment settings (what the compiled
code depends on besides the source), each file sealed like every kept file (figures/keep/disk.py):
a damaged one is dropped, with a warning, and compiled again. With the cache off or unwritable,
templates are compiled as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

from ..keep import disk

FOLDER = "templates"
# the environment's settings the compiled code depends on, besides the template's source
SETTINGS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
            "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
            "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
            "autoescape", "finalize", "is_async", "extensions")


class KeptTemplates(jinja2.BytecodeCache):
    """Jinja's bytecode cache, kept in `folder` with the figure cache's sealed files."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"{bucket.key}.jinja"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = disk.kept(self._path(bucket), "a compiled template", "compiling it again")
        if data is not None:
            bucket.bytecode_from_string(data)  # Jinja checks its version and the source's checksum

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        disk.keep(self._path(bucket), bucket.bytecode_to_string(), self.folder.parent)


def attach(env: jinja2.Environment) -> jinja2.Environment:
    """env with its compiled templates kept (KeptTemplates), unless the figure cache is off."""
    folder = disk.cache_folder(FOLDER)
    if folder is not None:
        env.bytecode_cache = KeptTemplates(folder / settings_digest(env))
    return env


def settings_digest(env: jinja2.Environment) -> str:
    """A digest of the Jinja version and the environment's SETTINGS (a function by its name)."""
    def named(value):
        if callable(value):
            return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
        if isinstance(value, dict):  # the extensions, by name
            return sorted(value)
        return value
    text = repr([*disk.versions(("jinja2",)), *((name, named(getattr(env, name))) for name in SETTINGS)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]
