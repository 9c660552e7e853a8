"""python -m figures --out DIR [--lang zh,en] [--only ID ...] [--format svg,png,pdf,csv] [--no-cache]

Writes every frame of the chosen figures to DIR/<lang>/<path>, the same paths as on the site, and
for a figure with several frames one zip of them all per format (<id>-frames-<format>.zip): the
same bytes as the site's downloads, each file carrying its attribution (figures/publish/).
Frames are drawn on every core, or read from the figure cache the site build shares (.cache/figures/).
The format csv writes, for each chosen figure that has one, its data table (<id>.csv): nothing drawn.

python -m figures new ID [--page PAGE] [--after EXISTING_ID] starts a new figure (figures/new.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tqdm import tqdm

from .engine import pool, registry
from .engine.cache import ENV, from_env
from .engine.render import FigureError, plan, render_files
from .engine.save import FORMATS
from .kit.words import LANGS, plural
from .publish import bundles, numbering

TABLE = "csv"  # not a drawing: the figure's data table (bundles.data_csv)


def _unique(items: list[str] | None) -> list[str] | None:
    """The items once each, in the order first given: `--lang zh,zh` writes each file once."""
    return None if items is None else list(dict.fromkeys(items))


def _list(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    items = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown {what} {bad or text!r}; choose from {','.join(allowed)}")
    return _unique(items)


def _at_least_one(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 or more)")
    return n


def _out_folder(text: str) -> Path:
    """--out as a folder that exists (made if need be) and can be written; never "", which would
    be the current folder, nor the root of the file system. Raises ValueError with a one-line reason."""
    if not text.strip():
        raise ValueError("--out is empty; name the folder to write into, e.g. --out out/")
    out = Path(text)
    if out.resolve().parent == out.resolve():  # "/", "//", "/tmp/..": zh/ and en/ would land in /
        raise ValueError(f"--out {text!r} is the root of the file system; name a folder to write into, e.g. --out out/")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {text!r} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {text!r}: cannot create the folder: {e.strerror}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ValueError(f"--out {text!r}: the folder is not writable")
    return out


def _failed(e: FigureError, traceback: bool) -> int:
    """One line naming the figure, language and frame; the traceback after it only if asked."""
    where = "" if not e.trace else f"\n{e.trace}" if traceback else " (--traceback shows where)"
    print(f"error: {e.headline}{where}", file=sys.stderr)
    return 1


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["new"]:  # python -m figures new ID: start a new figure (figures/new.py)
        from . import new
        return new.main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m figures", description=__doc__.splitlines()[2],
                                epilog="python -m figures new ID starts a new figure (python -m figures new --help)")
    p.add_argument("--out", required=True, help="folder to write into")
    p.add_argument("--lang", default="zh,en", type=lambda s: _list(s, LANGS, "language"),
                   help="comma-separated languages (default zh,en)")
    p.add_argument("--only", nargs="+", metavar="ID", help=f"figure ids (default: all): {' '.join(registry.ORDER)}")
    p.add_argument("--format", default="svg", type=lambda s: _list(s, (*FORMATS, TABLE), "format"),
                   help="comma-separated formats (default svg): svg,png,pdf, and csv for the data tables")
    p.add_argument("--no-cache", action="store_true",
                   help=f"draw every frame, neither reading nor writing the figure cache (or set {ENV}=0)")
    p.add_argument("--jobs", type=_at_least_one, metavar="N",
                   help="processes drawing at once (default: one per core); 1 draws in this process, without "
                        f"the time limit {pool.LIMIT_ENV} sets (default {pool.DEFAULT_LIMIT:g} s a frame)")
    p.add_argument("--traceback", action="store_true", help="after a figure's one-line error, its traceback")
    args = p.parse_args(argv)
    args.only = _unique(args.only)
    drawn_formats = [f for f in args.format if f != TABLE]
    try:  # the MHA_* variables this command reads, before anything else reads them
        pool.limit_from_env(), from_env(), bundles.downloads_on()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        total = len(plan(args.only)) * len(args.lang) * len(drawn_formats)
    except KeyError as e:
        p.error(e.args[0])
    except FigureError as e:  # a figure that fails to import, in its CONTROL say
        return _failed(e, args.traceback)
    try:
        args.out = _out_folder(args.out)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    bar = tqdm(total=total, unit="file", disable=not sys.stderr.isatty())
    counts = {"drawn": 0, "zips": 0}

    def write(lang: str, path: str, data: bytes) -> None:
        target = args.out / lang / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        counts["zips"] += path.endswith(".zip")

    def counted(results):
        for r in results:
            counts["drawn"] += r.drawn
            bar.update()
            yield r

    try:
        if drawn_formats:
            cache = None if args.no_cache else from_env()
            rendered = render_files(args.lang, args.only, drawn_formats, cache, args.jobs)
            bundles.write_all(counted(rendered), numbering.site_numbers(), write, cache=cache)
        tables = bundles.write_tables(args.lang, args.only or registry.ORDER, write) if TABLE in args.format else 0
    except FigureError as e:
        bar.close()
        return _failed(e, args.traceback)
    except OSError as e:  # the disk filled, a file stands where a folder goes, ...
        bar.close()
        print(f"error: {e}", file=sys.stderr)
        return 1
    bar.close()
    drawn = counts["drawn"]
    csv = f"{plural(tables, 'data table')} (CSV)"
    if not drawn_formats:
        print(f"wrote {csv} to {args.out}", file=sys.stderr)
        return 0
    print(f"wrote {plural(total, 'file')} to {args.out} ({drawn} drawn, {total - drawn} from the cache)"
          f" and {plural(counts['zips'], 'zip')} of all frames" + (f", and {csv}" if TABLE in args.format else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
