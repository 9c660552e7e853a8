"""The service worker's build-time facts and the offline zip's switch (figures/site/offline_reading.py),
without a build; tests/test_offline_reading.py drives the worker in a browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from figures.site import offline_reading as reading


@pytest.mark.parametrize("langs, files", [
    (["en"], []),
    (["zh"], ["min/lunr.stemmer.support.min.js", "min/lunr.zh.min.js"]),
    (["en", "zh"], ["min/lunr.stemmer.support.min.js", "min/lunr.zh.min.js", "min/lunr.multi.min.js"]),
    (["ja"], ["min/lunr.stemmer.support.min.js", "tinyseg.js", "min/lunr.ja.min.js"]),
])
def test_the_search_scripts_are_those_materials_worker_imports(langs, files):
    assert reading.search_scripts(langs) == ["assets/javascripts/lunr/" + f for f in files]


def test_only_the_search_scripts_the_sites_languages_import_are_kept(tmp_path):
    shipped = ["min/lunr.stemmer.support.min.js", "min/lunr.zh.min.js", "min/lunr.multi.min.js", "min/lunr.ja.min.js",
               "min/lunr.th.min.js", "tinyseg.js", "wordcut.js"]
    for name in shipped:
        (tmp_path / reading.LUNR / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / reading.LUNR / name).write_text("//")
    assert reading.without_other_search_languages(tmp_path, ["en", "zh"]) == 4
    kept = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.js"))
    assert kept == sorted(reading.search_scripts(["en", "zh"]))
    assert reading.without_other_search_languages(tmp_path, ["en", "zh"]) == 0  # idempotent


def test_the_build_digest_follows_every_byte_and_path_but_the_worker(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.svg").write_bytes(b"<svg/>")
    (tmp_path / "index.html").write_text("page")
    first = reading.build_digest(tmp_path)
    (tmp_path / "sw.js").write_text("anything")
    assert reading.build_digest(tmp_path) == first  # the worker carries the digest: not part of it
    (tmp_path / "figures" / "a.svg").write_bytes(b"<svg></svg>")  # same URL, new bytes
    changed = reading.build_digest(tmp_path)
    assert changed != first
    (tmp_path / "figures" / "a.svg").rename(tmp_path / "figures" / "b.svg")
    assert reading.build_digest(tmp_path) not in (first, changed)
    assert re.fullmatch(r"[0-9a-f]{16}", first)


def test_the_worker_carries_its_build(tmp_path):
    source = reading.worker_source("0123456789abcdef", ["assets/x.js"], offline=["en/offline.html", "offline.html"])
    line = next(line for line in source.splitlines() if line.startswith("const BUILD = "))
    assert json.loads(line.removeprefix("const BUILD = ").rstrip(";")) == {
        "version": "0123456789abcdef", "search": ["assets/x.js"], "retire": False,
        "offline": ["en/offline.html", "offline.html"]}
    assert "/*BUILD*/" not in source
    node = shutil.which("node")
    if node:  # the worker is valid JavaScript
        (tmp_path / "sw.js").write_text(source)
        assert subprocess.run([node, "--check", str(tmp_path / "sw.js")]).returncode == 0


@pytest.mark.parametrize("offline, serving, registered", [(False, False, True), (True, False, False), (False, True, False)])
def test_only_the_published_site_registers_the_worker_and_the_offline_copy_offers_no_zip(
        monkeypatch, tmp_path, offline, serving, registered):
    with zipfile.ZipFile(tmp_path / "copy.zip", "w") as z:
        z.writestr("index.html", "home")
    monkeypatch.setenv(reading.ZIP_ENV, str(tmp_path / "copy.zip"))
    config = SimpleNamespace(extra={})
    reading.configure(config, offline, serving)
    assert config.extra["mha_worker"] is registered
    assert config.extra["mha_offline_zip"] == (None if offline else str(tmp_path / "copy.zip"))


def test_the_offline_copy_gets_no_worker_and_serve_a_retiring_one(tmp_path):
    (tmp_path / "index.html").write_text("page")
    reading.write_worker(tmp_path, ["en"], offline=True, serving=False)
    assert not (tmp_path / "sw.js").exists()
    reading.write_worker(tmp_path, ["en"], offline=False, serving=True)
    assert '"retire": true' in (tmp_path / "sw.js").read_text()


def test_the_worker_is_told_each_languages_offline_page(tmp_path):
    for where in ("", "en/"):
        (tmp_path / where).mkdir(exist_ok=True)
        (tmp_path / where / "offline.html").write_text("page")
    reading.write_worker(tmp_path, ["en"], offline=False, serving=False)
    assert '"offline": ["en/offline.html", "offline.html"]' in (tmp_path / "sw.js").read_text()


def test_no_zip_asked_for_is_no_zip(monkeypatch):
    monkeypatch.delenv(reading.ZIP_ENV, raising=False)
    assert reading.offline_zip() is None
    monkeypatch.setenv(reading.ZIP_ENV, " ")
    assert reading.offline_zip() is None


def test_the_zip_must_be_the_offline_copy(monkeypatch, tmp_path):
    good, other, text = tmp_path / "good.zip", tmp_path / "other.zip", tmp_path / "notes.txt"
    with zipfile.ZipFile(good, "w") as z:
        z.writestr("index.html", "home")
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("site/index.html", "home")
    text.write_text("not a zip")
    monkeypatch.setenv(reading.ZIP_ENV, str(good))
    assert reading.offline_zip() == good
    for bad, why in ((other, "no index.html at its top"), (text, "no zip file there"), (tmp_path / "missing.zip", "no zip file there")):
        monkeypatch.setenv(reading.ZIP_ENV, str(bad))
        with pytest.raises(PluginError, match=why):
            reading.offline_zip()


def test_a_damaged_or_huge_zip_is_refused_in_one_line(monkeypatch, tmp_path):
    """A zip whose member's bytes were damaged since it was made, or larger than any offline copy
    (ZIP_LIMIT, 1 GB zipped or unpacked), was put into the site as it was."""
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("index.html", "<p>home</p>" * 100)
        z.writestr("page.html", "<p>a page of the copy</p>" * 200)
    monkeypatch.setenv(reading.ZIP_ENV, str(good))
    assert reading.offline_zip() == good
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("page.html")
    at = info.header_offset + 30 + len(info.filename) + 5  # inside the member's compressed bytes
    data[at] ^= 0xFF
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    monkeypatch.setenv(reading.ZIP_ENV, str(damaged))
    with pytest.raises(PluginError) as e:
        reading.offline_zip()
    assert str(e.value).startswith(f"MHA_OFFLINE_ZIP={str(damaged)!r}: the zip is damaged (") and "\n" not in str(e.value)
    monkeypatch.setenv(reading.ZIP_ENV, str(good))
    monkeypatch.setattr(reading, "ZIP_LIMIT", 5000)  # its pages unpack to 6,100 bytes
    with pytest.raises(PluginError, match=r"good.zip'\: 6 KB unpacked, more than the 5 KB a reader is offered"):
        reading.offline_zip()


@pytest.mark.parametrize("n, text", [(1, "1 KB"), (840_000, "840 KB"), (999_400, "999 KB"), (12_340_000, "12.3 MB")])
def test_a_size_reads_as_a_reader_reads_it(n, text):
    assert reading.size_text(n) == text


def test_the_footer_speaks_each_language(tmp_path):
    z = tmp_path / "site.zip"
    z.write_bytes(b"x" * 2_500_000)
    assert reading.footer_text("zh", z) == ("下载整站离线版（zip，2.5 MB）", "：解压后打开 index.html，无网络也能读")
    assert reading.footer_text("en", z) == ("Download the whole site to read offline (zip, 2.5 MB)", ": unpack it and open index.html")


# The worker run by node with the browser's cache storage stood in for: the caches it opens when it
# installs, and those it deletes when it starts (activate) on a browser that holds `held`.
RUN_WORKER = r"""
const vm = require('vm');
const [source, scope, held] = [require('fs').readFileSync(process.argv[1], 'utf8'), process.argv[2], JSON.parse(process.argv[3])];
const opened = [], deleted = [], listeners = {}, waits = [];
const cache = { match: async () => undefined, put: async () => {} };
const self = { registration: { scope, unregister: async () => true }, clients: { claim: async () => {} },
               skipWaiting() {}, addEventListener: (type, listener) => { listeners[type] = listener; } };
const caches = { open: async (name) => { opened.push(name); return cache; }, keys: async () => held,
                 delete: async (name) => { deleted.push(name); return true; } };
const fetch = async () => { throw new TypeError('offline'); };
vm.runInNewContext(source, { self, caches, fetch, URL, console, setTimeout, Promise });
for (const type of ['install', 'activate']) listeners[type]({ waitUntil: (p) => waits.push(p) });
Promise.allSettled(waits).then(() => console.log(JSON.stringify({ opened, deleted })));
"""


def _run_worker(site_dir, held: list[str], scope="https://example.org/mha/") -> dict:
    node = shutil.which("node")
    if not node:
        pytest.skip("no node to run the service worker with")
    result = subprocess.run([node, "-e", RUN_WORKER, str(site_dir / reading.WORKER), scope, json.dumps(held)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_each_build_names_its_cache_by_that_build_and_drops_the_last_ones(tmp_path):
    """A figure keeps its URL when its bytes change: a worker whose cache name did not follow the
    build (a fixed 'v1') would serve a reader the old figure from a stale cache for ever."""
    builds = [tmp_path / "a", tmp_path / "b"]
    for site_dir, svg in zip(builds, (b"<svg/>", b"<svg />")):  # one byte apart, the same URL
        (site_dir / "figures").mkdir(parents=True)
        (site_dir / "figures" / "a.svg").write_bytes(svg)
        (site_dir / "index.html").write_text("page")
        reading.write_worker(site_dir, ["en"], offline=False, serving=False)
    first = _run_worker(builds[0], held=[])
    [name] = set(first["opened"])
    assert reading.build_digest(builds[0]) in name  # named by its build's digest
    # the next build's worker opens a cache of another name, and drops the first one's when it starts
    other_release = name.replace("/mha/", "/mha/0.1.0/")  # another scope: another release's, kept
    second = _run_worker(builds[1], held=[name, other_release])
    [second_name] = set(second["opened"])
    assert second_name != name and reading.build_digest(builds[1]) in second_name
    assert second["deleted"] == [name]
