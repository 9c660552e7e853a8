"""`mkdocs serve` picks up an edit to mha_ref/ or figures/: modules reloaded, figures redrawn."""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8")
    except OSError:
        return ""


def _wait_for(url: str, needle: str, seconds: float = 90) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = _get(url)
        if needle in body:
            return body
        time.sleep(0.5)
    raise AssertionError(f"{url} never contained {needle!r}")


def test_serve_reloads_edited_modules(checkout):
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                              cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(base, "2,362,368", seconds=300)  # the first build draws every figure
        before_svg = _wait_for(base + "en/figures/peak-dip.svg", "<svg")
        # an edit to mha_ref: one more parameter per block shows up on the page
        costs = checkout / "mha_ref/costs.py"
        costs.write_text(costs.read_text() + (
            "\n_exact = param_count\n"
            "def param_count(d_model, h, *, bias=True):\n"
            "    return _exact(d_model, h, bias=bias) + 1\n"))
        _wait_for(base, "2,362,369")
        _wait_for(base + "en/", "2,362,369")
        # an edit to a figure module: the served figure is redrawn
        fig = checkout / "figures/peak_dip.py"
        edited = fig.read_text().replace('"blend ratio"', '"blend ratio (edited)"')
        assert "(edited)" in edited
        fig.write_text(edited)
        deadline = time.monotonic() + 90
        while _get(base + "en/figures/peak-dip.svg") in ("", before_svg) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _get(base + "en/figures/peak-dip.svg") not in ("", before_svg)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
