"""python -m figures --out DIR [--lang zh,en] [--only ID ...] [--format svg,png,pdf]

Writes every frame of the chosen figures to DIR/<lang>/<path>, the same paths as on the site.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from . import registry
from .render import FigureError, plan, render
from .style import FORMATS, LANGS, plural


def _list(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    items = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown {what} {bad or text!r}; choose from {','.join(allowed)}")
    return items


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m figures", description=__doc__.splitlines()[2])
    p.add_argument("--out", required=True, type=Path, help="folder to write into")
    p.add_argument("--lang", default="zh,en", type=lambda s: _list(s, LANGS, "language"),
                   help="comma-separated languages (default zh,en)")
    p.add_argument("--only", nargs="+", metavar="ID", help=f"figure ids (default: all): {' '.join(registry.ORDER)}")
    p.add_argument("--format", default="svg", type=lambda s: _list(s, FORMATS, "format"),
                   help="comma-separated formats (default svg): svg,png,pdf")
    args = p.parse_args(argv)
    try:
        todo = [(lang, frame) for lang in args.lang for frame in plan(args.only)]
    except KeyError as e:
        p.error(e.args[0])
    bar = tqdm(total=len(todo) * len(args.format), unit="file", disable=not sys.stderr.isatty())
    try:
        for lang, frame in todo:
            for fmt in args.format:
                target = args.out / lang / frame.path(fmt)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(render(frame, lang, fmt))
                bar.update()
    except FigureError as e:
        bar.close()
        print(f"error: {e}", file=sys.stderr)
        return 1
    bar.close()
    print(f"wrote {plural(len(todo) * len(args.format), 'file')} to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
