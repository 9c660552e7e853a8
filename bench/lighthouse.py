"""python -m bench.lighthouse [SITE_DIR]: Lighthouse's four scores for every page, in both languages.

Builds the site (or takes SITE_DIR, already built), serves it on 127.0.0.1 with gzip as a real host
would, and runs a pinned Lighthouse on each page in turn with its default mobile preset (simulated
throttling), --runs times (3 unless told), keeping the run of median performance: performance,
accessibility, best practices, SEO, and the bytes a first view transfers.
Prints a Markdown table and, under it, the audits that cost each score below 100 its points.
Lighthouse is installed from npm into .cache/npm/ the first time; Chromium is Debian's.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE_VERSION = "12.8.2"  # the last release that runs on Node 20 (13.x wants Node >= 22.19)
LIGHTHOUSE_DIR = ROOT / ".cache" / "npm" / f"lighthouse-{LIGHTHOUSE_VERSION}"
CHROME_PATH = "/usr/bin/chromium"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
GZIP_SUFFIXES = {".html", ".css", ".js", ".json", ".svg", ".xml"}
SCORED = {"binary", "numeric", "metricSavings"}  # the other display modes carry no pass or fail


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """The static file server of http.server, gzipping text files for clients that accept it."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts_gzip and path.suffix in GZIP_SUFFIXES and path.is_file()):
            return super().send_head()  # also redirects "/dir" to "/dir/" and answers 404
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format, *args):  # one line per request would bury the table
        pass


def serve(site: Path) -> http.server.ThreadingHTTPServer:
    """A server for `site` on a free port of 127.0.0.1, answering in a background thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def build(dst: Path) -> Path:
    """The site built from this checkout into dst, as `mkdocs build --strict` builds it."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(dst)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"bench.lighthouse: the build failed:\n{run.stderr[-3000:]}")
    return dst


def pages(site: Path) -> list[tuple[str, str, str]]:
    """(page, language, URL path) of every page of the site: its index.html files but search's."""
    found = []
    for index in site.rglob("index.html"):
        rel = index.parent.relative_to(site).as_posix()
        if rel == "search" or rel.endswith("/search"):
            continue
        url = "/" if rel == "." else f"/{rel}/"
        lang, page = ("en", url[len("/en"):]) if url.startswith("/en/") else ("zh", url)
        found.append((page, lang, url))
    return sorted(found, key=lambda p: (p[0], p[1] != "zh"))


def install_lighthouse() -> Path:
    """The pinned Lighthouse's command, installed from npm the first time."""
    cli = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
    if not cli.exists():
        print(f"bench.lighthouse: installing lighthouse@{LIGHTHOUSE_VERSION} into {LIGHTHOUSE_DIR} ...",
              file=sys.stderr, flush=True)
        LIGHTHOUSE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "i", "--prefix", str(LIGHTHOUSE_DIR), "--no-audit", "--no-fund",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], stdout=sys.stderr, check=True)  # stdout: the table
    return cli


def lighthouse(cli: Path, url: str) -> dict:
    """Lighthouse's report (its JSON, parsed) on one URL, mobile preset."""
    run = subprocess.run([str(cli), url, "--quiet", "--output=json", "--output-path=stdout",
                          f"--only-categories={','.join(CATEGORIES)}", "--chrome-flags=--headless=new --no-sandbox"],
                         env=dict(os.environ, CHROME_PATH=CHROME_PATH), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"bench.lighthouse: lighthouse failed on {url}:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout)


def summary(report: dict) -> dict:
    """The scores (0-100), the first view's transfer bytes, Lighthouse's measure of this machine's speed
    and, per category, the audits that fail (those that cost points, then the diagnostics)."""
    audits = report["audits"]
    failing = {name: [] for name in CATEGORIES}
    for name in CATEGORIES:
        for ref in report["categories"][name]["auditRefs"]:
            audit = audits[ref["id"]]
            if not ref["weight"] and ref.get("group") == "hidden":  # repeats of the diagnostics shown
                continue
            if audit["scoreDisplayMode"] in SCORED and audit["score"] < 1:
                failing[name].append({"id": ref["id"], "title": audit["title"], "score": audit["score"],
                                      "value": audit.get("displayValue", "").replace("\xa0", " "),
                                      "weight": ref["weight"]})
    return {"scores": {name: round(100 * report["categories"][name]["score"]) for name in CATEGORIES},
            "total_byte_weight": audits.get("total-byte-weight", {}).get("numericValue"),
            "benchmark_index": report["environment"]["benchmarkIndex"], "failing": failing}


def table(rows: list[dict]) -> str:
    """The Markdown table of the scores, then the failing audits of every score below 100."""
    lines = ["| page | language | performance | accessibility | best practices | SEO | first view (kB) | performance, every run |",
             "|---|---|--:|--:|--:|--:|--:|---|"]
    for row in rows:
        kb = "-" if row["total_byte_weight"] is None else f"{row['total_byte_weight'] / 1000:.0f}"
        lines.append(f"| `{row['page']}` | {row['language']} | "
                     + " | ".join(str(row["scores"][name]) for name in CATEGORIES) + f" | {kb} | "
                     + " ".join(map(str, row["performance_runs"])) + " |")
    lines.append("")
    for row in rows:
        for name in CATEGORIES:
            if row["scores"][name] < 100:
                audits = row["failing"][name]
                costly = ", ".join(f"{a['id']} {a['value']}".strip() for a in audits if a["weight"])
                others = ", ".join(a["id"] for a in audits if not a["weight"])
                lines.append(f"- `{row['page']}` {row['language']}, {name} {row['scores'][name]}: "
                             f"{costly or 'no weighted audit fails'}" + (f"; diagnostics: {others}" if others else ""))
    return "\n".join(lines)


def run(site: Path, reports: Path | None, only: list[str] | None = None, runs: int = 1) -> list[dict]:
    """The summary of every page of `site` (or of the URL paths `only`), served locally: of `runs`
    runs a page, the one of median performance (its full report saved under `reports`)."""
    known = {url for _, _, url in pages(site)}
    unknown = sorted(set(only or ()) - known)
    if unknown:  # a typo would otherwise measure nothing and say nothing
        raise SystemExit(f"bench.lighthouse: no such page: {', '.join(unknown)} (a URL path, e.g. /en/gallery/)")
    cli = install_lighthouse()
    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rows = []
    try:
        for page, lang, url in pages(site):
            if only and url not in only:
                continue
            start = time.perf_counter()
            tried = sorted((lighthouse(cli, base + url) for _ in range(runs)),
                           key=lambda r: r["categories"]["performance"]["score"])
            report = tried[len(tried) // 2]  # the median run, as Lighthouse's docs advise for a score
            print(f"bench.lighthouse: {url}, {runs} run(s) in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
            if reports:
                name = (url.strip("/") or "index").replace("/", "_") + ".json"
                (reports / name).write_text(json.dumps(report, indent=1), encoding="utf-8")
            rows.append({"page": page, "language": lang, "url": url, **summary(report),
                         "performance_runs": [round(100 * r["categories"]["performance"]["score"]) for r in tried]})
    finally:
        server.shutdown()
    return rows


def _runs(text: str) -> int:
    try:
        runs = int(text)
    except ValueError:
        runs = 0
    if runs < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of runs >= 1")
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lighthouse", description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, help="a built site (default: build this checkout)")
    parser.add_argument("--json", type=Path, help="also write the summary, as JSON, to this file")
    parser.add_argument("--reports", type=Path, help="keep Lighthouse's full report of every page in this folder")
    parser.add_argument("--page", action="append", metavar="URL_PATH",
                        help="only this page, e.g. /en/gallery/ (repeatable; default: every page)")
    parser.add_argument("--runs", type=_runs, default=3, metavar="N",
                        help="runs per page, the median reported (default 3; one run's performance can "
                             "swing by 10 points on a loaded 2-core machine)")
    args = parser.parse_args(argv)
    if args.site and not (args.site / "index.html").is_file():
        parser.error(f"{str(args.site)!r} is not a built site (no index.html there): build one "
                     "(mkdocs build -d FOLDER), or give none to build this checkout")
    if args.reports:
        args.reports.mkdir(parents=True, exist_ok=True)
    load, start = os.getloadavg()[0], time.perf_counter()  # other work on the machine lowers performance
    if args.site:
        rows = run(args.site.resolve(), args.reports, args.page, args.runs)
    else:
        with tempfile.TemporaryDirectory(prefix="mha-lighthouse-") as tmp:
            print(f"bench.lighthouse: building {ROOT} ...", file=sys.stderr, flush=True)
            rows = run(build(Path(tmp) / "site"), args.reports, args.page, args.runs)
    seconds = time.perf_counter() - start
    print(f"Lighthouse {LIGHTHOUSE_VERSION}, mobile preset (simulated throttling), {len(rows)} pages, "
          f"the median of {args.runs} run(s) each\n")
    print(table(rows))
    speed = sorted(row["benchmark_index"] for row in rows)
    print(f"\n{seconds:.0f} s in all; Lighthouse's benchmark index of this machine {speed[0]:.0f} to {speed[-1]:.0f} "
          f"(below 1000 Lighthouse warns the CPU is slower than it expects); {os.cpu_count()} cores, "
          f"load average at the start {load:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"lighthouse": LIGHTHOUSE_VERSION, "seconds": round(seconds, 1),
                                         "pages": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
